// SPDX-License-Identifier: MIT
/*
 * A batch: one recipe over many images, -j N at once. Each image is patched
 * in a child process of its own (its own transaction, its own output in a
 * log), so a failure in one neither stops nor touches the others. One line
 * per image as it finishes, then a summary table and the --json report.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"

struct job {
	const char *image;
	char *out;               /* --output-dir DIR/NAME, or NULL */
	struct cli_child child;  /* writes its change count to child.fd */
	int logfd;               /* the child's stdout and stderr */
	char *log;
	double seconds;
	int status;              /* exit status */
	size_t changes;
	char *error;             /* the child's last "imgpatch: " line */
	bool done;
};

struct job_work {
	const struct cli_apply *o;
	struct imgp_recipe *r;
	struct job *job;
};

/* In the child: the image patched, its output in the log. */
static int job_work(void *ctx, int fd)
{
	const struct job_work *w = ctx;
	size_t changes = 0;
	int rc;

	dup2(w->job->logfd, STDOUT_FILENO);
	dup2(w->job->logfd, STDERR_FILENO);
	close(w->job->logfd);
	rc = cli_apply_one(w->o, w->r, w->job->image, w->job->out, &changes);
	fflush(stdout);
	if (write(fd, &changes, sizeof(changes)) != sizeof(changes))
		rc = rc ? rc : EXIT_ERROR;
	return rc;
}

static int job_start(const struct cli_apply *o, struct imgp_recipe *r,
		     struct job *job)
{
	struct job_work w = { o, r, job };
	int rc;

	job->logfd = imgp_temp_make(imgp_tmpdir(), "imgpatch-batch", &job->log);
	if (job->logfd < 0)
		return job->logfd;
	rc = cli_child_start(&job->child, job_work, &w);
	close(job->logfd);
	if (rc) {
		imgp_temp_remove(job->log);
		free(job->log);
		job->log = NULL;
	}
	return rc;
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

static void job_finish(struct job *job, int wstatus)
{
	cli_child_reaped(&job->child);
	job->seconds = cli_child_seconds(&job->child);
	job->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : EXIT_ERROR;
	if (read(job->child.fd, &job->changes, sizeof(job->changes)) != sizeof(job->changes))
		job->changes = 0;
	close(job->child.fd);
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
	job->done = true;
}

/* A dry run writes nothing: its changes are only planned. */
static const char *job_state(const struct job *job, bool dry_run)
{
	if (job->status)
		return "failed";
	if (!job->changes)
		return "already applied";
	return dry_run ? "planned" : "patched";
}

static void print_summary(const struct job *jobs, size_t n, const char *recipe,
			  bool dry_run)
{
	size_t width = 5, failed = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(jobs[i].image);

		width = len > width ? len : width;
		failed += jobs[i].status != 0;
	}
	printf("\n%-*s  %-15s  %7s  %8s\n", (int)width, "IMAGE", "STATUS", "CHANGES",
	       "SECONDS");
	for (size_t i = 0; i < n; i++)
		printf("%-*s  %-15s  %7zu  %8.1f\n", (int)width, jobs[i].image,
		       job_state(&jobs[i], dry_run), jobs[i].changes, jobs[i].seconds);
	printf("%s: %zu image%s, %zu failed%s\n", recipe, n, n == 1 ? "" : "s", failed,
	       dry_run ? " (dry run: nothing written)" : "");
}

static int write_report(const char *path, const struct cli_apply *o, struct imgp_recipe *r,
			const struct job *jobs, const char *status, const char *why)
{
	const char *recipe = r ? imgp_recipe_name(r) : o->recipe;
	bool dry_run = o->io.dry_run;
	struct json j;
	FILE *f;
	int rc = cli_report_open(path, &j, &f);

	if (rc)
		return rc;
	json_object_begin(&j);
	json_kv_uint(&j, "schema_version", 1);
	json_kv_string(&j, "status", status);
	if (why)
		json_kv_string(&j, "error", why);
	else
		json_kv_null(&j, "error");
	if (recipe)
		json_kv_string(&j, "recipe", recipe);
	else
		json_kv_null(&j, "recipe");
	json_kv_bool(&j, "dry_run", dry_run);
	json_key(&j, "images");
	json_array_begin(&j);
	for (size_t i = 0; jobs && i < o->nimages; i++) {
		json_object_begin(&j);
		json_kv_string(&j, "image", jobs[i].image);
		cli_json_parameters(&j, &r, 1, o->each ? &o->table : NULL, jobs[i].image,
				    o->sets, o->nsets);
		if (jobs[i].out)
			json_kv_string(&j, "output", jobs[i].out);
		json_kv_string(&j, "recipe", recipe);
		json_kv_string(&j, "status", job_state(&jobs[i], dry_run));
		json_kv_uint(&j, "changes", jobs[i].changes);
		json_kv_fixed3(&j, "seconds", jobs[i].seconds);
		if (jobs[i].error)
			json_kv_string(&j, "error", jobs[i].error);
		else
			json_kv_null(&j, "error");
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	return cli_report_close(&j, f);
}

int cli_apply_report(const struct cli_apply *o, struct imgp_recipe *r, int status)
{
	if (write_report(o->json, o, r, NULL, status == EXIT_USAGE ? "usage" : "failed",
			 cli_last_error()))
		return error_lib(o->json);
	return EXIT_OK;
}

int cli_batch(const struct cli_apply *o, struct imgp_recipe *r)
{
	struct job *jobs = calloc(o->nimages, sizeof(*jobs));
	size_t next = 0, running = 0, finished = 0, failed = 0;
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
	while (finished < o->nimages) {
		int wstatus;
		pid_t pid;

		while (running < (size_t)o->jobs && next < o->nimages) {
			if (job_start(o, r, &jobs[next])) {
				jobs[next].status = EXIT_ERROR;
				jobs[next].error = strdup(imgp_errmsg());
				jobs[next].done = true;
				finished++;
			} else {
				running++;
			}
			next++;
		}
		if (!running)
			continue;
		pid = waitpid(-1, &wstatus, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			die("waitpid: %s", strerror(errno));
		}
		for (size_t i = 0; i < o->nimages; i++) {
			struct job *job = &jobs[i];

			if (job->done || job->child.pid != pid)
				continue;
			job_finish(job, wstatus);
			running--;
			finished++;
			/* One line per image, as each finishes. */
			if (job->status)
				printf("[%zu/%zu] %s: FAILED: %s\n", finished, o->nimages,
				       job->image, job->error ? job->error : "see above");
			else
				printf("[%zu/%zu] %s: %s, %zu change%s (%.1f s)\n", finished,
				       o->nimages, job->image, job_state(job, o->io.dry_run), job->changes,
				       job->changes == 1 ? "" : "s", job->seconds);
			fflush(stdout);
		}
	}
	for (size_t i = 0; i < o->nimages; i++)
		failed += jobs[i].status != 0;
	print_summary(jobs, o->nimages, imgp_recipe_name(r), o->io.dry_run);
	if (o->json && write_report(o->json, o, r, jobs, failed ? "failed" : "done", NULL)) {
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
	return rc;
}
