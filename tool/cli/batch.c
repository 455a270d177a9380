// SPDX-License-Identifier: MIT
/*
 * A batch: one recipe over many images, -j N at once. Each image is patched
 * in a child process of its own (its own transaction, its own output in a
 * log), so a failure in one neither stops nor touches the others. One line
 * per image as it finishes, then a summary table and the --json report,
 * also when a signal interrupts the run (per-target.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "text/json.h"

struct job {
	const char *image;
	char *out;               /* --output-dir DIR/NAME, or NULL */
	struct cli_target t;     /* its child writes its change count to t.child.fd */
	int logfd;               /* the child's stdout and stderr */
	char *log;
	double seconds;
	int status;              /* exit status */
	size_t changes;
	char *error;             /* the child's last "imgpatch: " line */
};

/* The run, for the callbacks of cli_targets_run. */
struct batch {
	const struct cli_apply *o;
	struct imgp_recipe *r;
	struct job *jobs;
};

struct job_work {
	const struct cli_apply *o;
	struct imgp_recipe *r;
	struct job *job;
};

/*
 * In the child: the image patched, its output in the log. A signal that
 * reaches it before its count is sent ends it, so the run reports it
 * interrupted (an in-place commit holds the signal off until the image is
 * whole, then dies of it); once the count is sent, the child ends as it
 * reported, or a patched image would read as killed, hence failed.
 */
static int job_work(void *ctx, int fd)
{
	const struct job_work *w = ctx;
	size_t changes = 0;
	sigset_t all;
	int rc;

	dup2(w->job->logfd, STDOUT_FILENO);
	dup2(w->job->logfd, STDERR_FILENO);
	close(w->job->logfd);
	rc = cli_apply_one(w->o, w->r, w->job->image, w->job->out, &changes);
	fflush(stdout);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	if (write(fd, &changes, sizeof(changes)) != sizeof(changes))
		rc = rc ? rc : EXIT_ERROR;
	return rc;
}

static struct cli_target *job_target(void *ctx, size_t i)
{
	return &((struct batch *)ctx)->jobs[i].t;
}

static int job_start(void *ctx, size_t i)
{
	const struct batch *b = ctx;
	struct job *job = &b->jobs[i];
	struct job_work w = { b->o, b->r, job };
	int rc;

	job->logfd = imgp_temp_make(imgp_tmpdir(), "imgpatch-batch", &job->log);
	if (job->logfd < 0)
		return job->logfd;
	rc = cli_child_start(&job->t.child, job_work, &w);
	close(job->logfd);
	if (rc) {
		imgp_temp_remove(job->log);
		free(job->log);
		job->log = NULL;
	}
	return rc;
}

static void job_start_failed(void *ctx, size_t i, const char *why)
{
	struct job *job = &((struct batch *)ctx)->jobs[i];

	job->status = EXIT_ERROR;
	job->error = strdup(why);
}

/* The change count, sent when the image is done. */
static bool job_read(void *ctx, size_t i)
{
	struct job *job = &((struct batch *)ctx)->jobs[i];
	ssize_t n = read(job->t.child.fd, &job->changes, sizeof(job->changes));

	if (n == (ssize_t)sizeof(job->changes)) {
		job->t.result = true;
		return true;
	}
	return n < 0 && errno == EINTR;
}

/* The last "imgpatch: " line of the child's log: why it failed. */
static char *log_error(const char *log)
{
	char line[4096], *last = NULL;
	FILE *f = fopen(log, "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "imgpatch: ", 10) || !strncmp(line, "imgpatch: warning: ", 19))
			continue;
		line[strcspn(line, "\n")] = '\0';
		free(last);
		last = strdup(line + 10);
	}
	fclose(f);
	return last;
}

static void job_reaped(void *ctx, size_t i, int wstatus)
{
	struct job *job = &((struct batch *)ctx)->jobs[i];

	job->seconds = cli_child_seconds(&job->t.child);
	if (!job->t.result)
		job->changes = 0;
	job->status = job->t.interrupted ? EXIT_OK :
		      WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : EXIT_ERROR;
	if (job->status) {
		size_t n = strlen(job->image);

		job->error = log_error(job->log);
		/* The report names the image already. */
		if (job->error && !strncmp(job->error, job->image, n) &&
		    !strncmp(job->error + n, ": ", 2))
			memmove(job->error, job->error + n + 2, strlen(job->error + n + 2) + 1);
	}
	if (job->status && !job->error && WIFSIGNALED(wstatus) &&
	    asprintf(&job->error, "killed by signal %d", WTERMSIG(wstatus)) < 0)
		job->error = NULL;
	imgp_temp_remove(job->log);
	free(job->log);
	job->log = NULL;
}

/* A dry run writes nothing: its changes are only planned. */
static const char *job_state(const struct job *job, bool dry_run)
{
	if (job->t.interrupted)
		return "interrupted";
	if (job->status)
		return "failed";
	if (!job->changes)
		return "already applied";
	return dry_run ? "planned" : "patched";
}

/* One line per image, as each finishes. */
static void print_job(void *ctx, size_t i, size_t finished, size_t n)
{
	const struct batch *b = ctx;
	const struct job *job = &b->jobs[i];

	if (job->t.interrupted)
		printf("[%zu/%zu] %s: interrupted%s\n", finished, n, job->image,
		       job->t.started ? "" : ", not started");
	else if (job->status)
		printf("[%zu/%zu] %s: FAILED: %s\n", finished, n, job->image,
		       job->error ? job->error : "see above");
	else
		printf("[%zu/%zu] %s: %s, %zu change%s (%.1f s)\n", finished, n, job->image,
		       job_state(job, b->o->io.dry_run), job->changes,
		       job->changes == 1 ? "" : "s", job->seconds);
	fflush(stdout);
}

static const struct cli_targets_ops job_ops = {
	job_target, job_start, job_start_failed, job_read, job_reaped, print_job, NULL,
};

static void print_summary(const struct job *jobs, size_t n, const char *recipe,
			  bool dry_run)
{
	size_t width = 5, failed = 0, interrupted = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(jobs[i].image);

		width = len > width ? len : width;
		failed += jobs[i].status != 0;
		interrupted += jobs[i].t.interrupted;
	}
	printf("\n%-*s  %-15s  %7s  %8s\n", (int)width, "IMAGE", "STATUS", "CHANGES",
	       "SECONDS");
	for (size_t i = 0; i < n; i++)
		printf("%-*s  %-15s  %7zu  %8.1f\n", (int)width, jobs[i].image,
		       job_state(&jobs[i], dry_run), jobs[i].changes, jobs[i].seconds);
	printf("%s: %zu image%s, %zu failed", recipe, n, n == 1 ? "" : "s", failed);
	if (interrupted)
		printf(", %zu interrupted", interrupted);
	printf("%s\n", dry_run ? " (dry run: nothing written)" : "");
}

static int write_report(const char *path, const struct cli_apply *o, struct imgp_recipe *r,
			const struct job *jobs, const char *status, const char *why)
{
	const char *recipe = r ? imgp_recipe_name(r) : o->recipe;
	bool dry_run = o->io.dry_run;
	struct imgp_json j;
	FILE *f;
	int rc = cli_report_begin(path, &j, &f, status, why);

	if (rc)
		return rc;
	imgp_json_kv_string_(&j, "recipe", recipe);
	imgp_json_kv_bool_(&j, "dry_run", dry_run);
	imgp_json_key_(&j, "images");
	imgp_json_array_begin_(&j);
	for (size_t i = 0; jobs && i < o->nimages; i++) {
		imgp_json_object_begin_(&j);
		imgp_json_kv_string_(&j, "image", jobs[i].image);
		cli_json_parameters(&j, &r, 1, o->each ? &o->table : NULL, jobs[i].image,
				    o->sets, o->nsets);
		if (jobs[i].out)
			imgp_json_kv_string_(&j, "output", jobs[i].out);
		imgp_json_kv_string_(&j, "recipe", recipe);
		imgp_json_kv_string_(&j, "status", job_state(&jobs[i], dry_run));
		imgp_json_kv_uint_(&j, "changes", jobs[i].changes);
		imgp_json_kv_fixed3_(&j, "seconds", jobs[i].seconds);
		imgp_json_kv_string_(&j, "error", jobs[i].error);
		imgp_json_object_end_(&j);
	}
	imgp_json_array_end_(&j);
	imgp_json_object_end_(&j);
	return cli_report_close(&j, f);
}

int cli_apply_report(const struct cli_apply *o, struct imgp_recipe *r, int status)
{
	if (write_report(o->json, o, r, NULL, status == EXIT_USAGE ? "usage" : "failed",
			 cli_last_error()))
		return error_lib(o->json);
	return EXIT_OK;
}

/*
 * No image given twice, no two copies of one name, no copy over an image
 * and no report over either, by what each path resolves to (a.img and
 * ./a.img are one image): before any image is worked on. EXIT_ERROR
 * after a message naming the file; *report: the report may be written.
 */
static int check_files(const struct cli_apply *o, const struct job *jobs, bool *report)
{
	*report = !cli_same_file(o->json, o->each);
	if (!*report) {
		error("%s: the --json report would replace %s", o->json, o->each);
		return EXIT_ERROR;
	}
	for (size_t i = 0; i < o->nimages; i++) {
		for (size_t j = 0; j < i; j++) {
			if (cli_same_file(jobs[i].image, jobs[j].image)) {
				if (strcmp(jobs[i].image, jobs[j].image))
					error("%s: given twice as an IMAGE (first as %s)", jobs[i].image,
					      jobs[j].image);
				else
					error("%s: given twice as an IMAGE", jobs[i].image);
				return EXIT_ERROR;
			}
			if (cli_same_file(jobs[i].out, jobs[j].out)) {
				error("%s: the copy of both %s and %s: images of one name need output folders of their own",
				      jobs[i].out, jobs[j].image, jobs[i].image);
				return EXIT_ERROR;
			}
		}
		for (size_t k = 0; k < o->nimages; k++)
			if (cli_same_file(jobs[i].out, jobs[k].image)) {
				error("%s: the copy of %s would replace the image %s", jobs[i].out,
				      jobs[i].image, jobs[k].image);
				return EXIT_ERROR;
			}
		if (cli_same_file(o->json, jobs[i].image) || cli_same_file(o->json, jobs[i].out)) {
			error("%s: the --json report would replace %s", o->json,
			      cli_same_file(o->json, jobs[i].image) ? jobs[i].image : jobs[i].out);
			*report = false;
			return EXIT_ERROR;
		}
	}
	return EXIT_OK;
}

int cli_batch(const struct cli_apply *o, struct imgp_recipe *r)
{
	struct job *jobs = calloc(o->nimages, sizeof(*jobs));
	struct batch b = { o, r, jobs };
	const char *status, *why;
	bool report;
	size_t failed = 0;
	int rc = EXIT_OK;

	if (!jobs)
		die("out of memory");
	/* Where the copies and the report go, before any image is worked on. */
	if ((o->output_dir && !o->io.dry_run &&
	     cli_check_folder(o->output_dir, "the patched copies", NULL)) ||
	    (o->json && cli_check_output(o->json, "the report"))) {
		free(jobs);
		return EXIT_ERROR;
	}
	for (size_t i = 0; i < o->nimages; i++) {
		jobs[i].image = o->images[i];
		if (o->output_dir) {
			char *copy = strdup(o->images[i]);

			if (!copy || asprintf(&jobs[i].out, "%s/%s", o->output_dir,
					      basename(copy)) < 0)
				die("out of memory");
			free(copy);
		} else if (o->io.out) {
			/* One image with -o and --json: its report, its output. */
			jobs[i].out = strdup(o->io.out);
			if (!jobs[i].out)
				die("out of memory");
		}
	}
	rc = check_files(o, jobs, &report);
	if (rc) {
		if (o->json && report)
			cli_apply_report(o, r, rc);
		for (size_t i = 0; i < o->nimages; i++)
			free(jobs[i].out);
		free(jobs);
		return rc;
	}
	/* An interruption is a result: every image's status, then the signal. */
	cli_signals_deferred = 1;
	cli_targets_run(&job_ops, &b, o->nimages, (size_t)o->jobs);
	for (size_t i = 0; i < o->nimages; i++)
		failed += jobs[i].status != 0 || jobs[i].t.interrupted;
	print_summary(jobs, o->nimages, imgp_recipe_name(r), o->io.dry_run);
	status = cli_targets_status(failed, &why);
	if (o->json && write_report(o->json, o, r, jobs, status, why)) {
		error_lib(o->json);
		rc = EXIT_ERROR;
	}
	if (failed)
		rc = EXIT_ERROR;
	for (size_t i = 0; i < o->nimages; i++) {
		free(jobs[i].out);
		free(jobs[i].error);
	}
	free(jobs);
	cli_signals_finish();
	cli_signals_deferred = 0;
	return rc;
}
