// SPDX-License-Identifier: MIT
/*
 * imgpatch write IMAGE TARGET...: a lab's cards in one run. IMAGE (raw,
 * compressed or archived) is unpacked once; each TARGET (a card, or a file
 * standing in for one) gets its own copy patched with the recipes and that
 * card's parameters (--set, a row of --each), then only the blocks its
 * filesystems use (imgp_fsmap_build) are written and read back past the
 * page cache. Every target is checked before the first byte is written;
 * then each card is written by a process of its own (write-card.c), so a
 * card that fails fails alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "text/json.h"
#include "write.h"

enum {
	OPT_APPLY = 700, OPT_SET, OPT_EACH, OPT_EACH_IGNORE, OPT_JSON, OPT_RECIPE_PATH, OPT_FORCE,
	OPT_DRY_RUN,
};

static const struct cli_option write_options[] = {
	{ OPT_APPLY, "apply", 0, "RECIPE", "patch each card with RECIPE on the way;\n"
	  "repeatable, run in order as one transaction" },
	{ OPT_SET, "set", 0, "NAME=VALUE", "a recipe parameter for every card; repeatable" },
	{ OPT_EACH, "each", 0, "FILE", "a CSV table, one row per card: column 'target',\n"
	  "then one column per recipe parameter" },
	{ OPT_EACH_IGNORE, "each-ignore", 0, "COLUMN", "leave the --each table's COLUMN out; repeatable" },
	{ OPT_RECIPE_PATH, "recipe-path", 0, "DIR", "look for recipes in DIR first; repeatable" },
	{ OPT_JSON, "json", 0, "FILE", "write a report: target, status, bytes, seconds, error" },
	{ 'j', "jobs", 'j', "N", "write N cards at once (default: all)" },
	{ OPT_DRY_RUN, "dry-run", 0, NULL, "check and plan every card, print what each would get,\n"
	  "write nothing" },
	{ OPT_FORCE, "force", 0, NULL, "write to a device larger than a card plausibly is" },
	{ CLI_OPT_QUIET, "quiet", 0, NULL, "no progress lines, even on a terminal" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const write_tables[] = { write_options, cli_custom_options, NULL };

static const struct cli_command write_command = {
	"write",
	"Usage: imgpatch write IMAGE TARGET... [--apply RECIPE]... [--set NAME=VALUE]...\n"
	"                      [customize options] [--each FILE.csv] [--json FILE] [-j N]\n"
	"                      [--dry-run] [--force]\n"
	"Write IMAGE (raw, compressed or archived) to every TARGET at once: a card\n"
	"(block device) or a file of at least the image's size (made when missing).\n"
	"Each is patched on the way, written only where its filesystems hold data,\n"
	"and read back. With --each, TARGETs may come from the table instead, and\n"
	"each card gets its row: recipe parameters, and customize settings in columns\n"
	"named after their options (hostname, static-ip, ssh-host-keys, ...).\n\n",
	write_tables,
	"Exit status: 0 every card written and verified, 1 error (any card failed;\n"
	"the others are written), 2 usage error (also a parameter value a recipe\n"
	"refuses), 128+N stopped by signal N (130: Ctrl-C).\n",
};

/* A card larger than this is more likely a system disk (SDXC ends at 2 TiB). */
#define CARD_SIZE_MAX ((uint64_t)2 << 40)

struct write_opts {
	const char *image;
	char **targets;            /* from argv, or the table's column */
	size_t ntargets;
	const char **recipes, **sets, **ignore;
	size_t nrecipes, nsets, nignore;
	char **paths;
	size_t npaths;
	const char *each, *json;
	long jobs;                 /* -j: cards at once, 0 all */
	bool force, stop, dry_run;
	bool targets_owned;        /* targets is the table's column */
	bool has_table;
	bool reported;             /* the --json report is written */
	uint64_t size;             /* of the raw image, once known */
	struct imgp_recipe **loaded; /* the recipes, for the report */
	char **made;               /* per target: the temporary file it is written
				    * under when the run makes it, else NULL */
	char **argv_args;
	struct cli_each table;     /* --each */
	struct cli_custom_args custom; /* customize's options, for every card */
};

static int parse_args(int argc, char **argv, struct write_opts *o)
{
	static const char *const args[] = { "IMAGE", "TARGET..." };
	struct cli_parser p;
	int c = CLI_END, rc = 0;

	cli_parser_init(&p, &write_command, argc, argv);
	while (!rc && (c = cli_next(&p)) > 0) {
		switch (c) {
		case OPT_APPLY:
			o->recipes = cli_grow(o->recipes, o->nrecipes, sizeof(*o->recipes));
			o->recipes[o->nrecipes++] = p.value;
			break;
		case OPT_SET:
			rc = cli_set_option(&p, &o->sets, &o->nsets);
			break;
		case OPT_RECIPE_PATH:
			o->paths = cli_grow(o->paths, o->npaths, sizeof(*o->paths));
			o->paths[o->npaths++] = (char *)p.value;
			break;
		case OPT_EACH: o->each = p.value; break;
		case OPT_EACH_IGNORE:
			o->ignore = cli_grow(o->ignore, o->nignore, sizeof(*o->ignore));
			o->ignore[o->nignore++] = p.value;
			break;
		case OPT_JSON: o->json = p.value; break;
		case OPT_FORCE: o->force = true; break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case 'j': rc = cli_number(&p, 1, 256, &o->jobs); break;
		case CLI_OPT_QUIET: cli_quiet = true; break;
		default:
			if (cli_custom_name(c))
				cli_custom_args_add(&o->custom, cli_custom_name(c), p.value);
		}
	}
	if (!rc && c == CLI_STOP) {
		o->stop = true;
		rc = p.exit;
	}
	if (!rc && !o->stop)
		rc = cli_arguments(&p, o->each ? 1 : 2, SIZE_MAX, args);
	if (!rc && !o->stop) {
		o->image = p.args[0];
		o->argv_args = p.args;
		p.args = NULL;
		o->targets = o->argv_args + 1;
		o->ntargets = p.nargs - 1;
		if (o->nsets && !o->nrecipes)
			rc = usage_error("write", "--set sets recipe parameters: give --apply RECIPE");
	}
	cli_parser_free(&p);
	return rc;
}

/* The table; without TARGET arguments, its targets are the targets. */
static int read_table(struct write_opts *o)
{
	int rc;

	o->table.ignore = o->ignore;
	o->table.nignore = o->nignore;
	rc = cli_each_read(&o->table, o->each, "target",
			       (const char *const *)o->targets, o->ntargets);

	o->has_table = true;
	if (rc || o->ntargets)
		return rc;
	o->ntargets = imgp_csv_nrows(o->table.table) - 1;
	o->targets = calloc(o->ntargets, sizeof(*o->targets));
	if (!o->targets)
		die("out of memory");
	for (size_t i = 0; i < o->ntargets; i++)
		o->targets[i] = (char *)imgp_csv_cell(o->table.table, i + 1, 0);
	o->targets_owned = true;
	return EXIT_OK;
}

/* " (did you mean 'x'?)" for name among every recipe's parameters, or "". */
static void closest_param(struct imgp_recipe *const *recipes, size_t n, const char *name,
			  char *hint, size_t size)
{
	const char **names = NULL, *near;
	size_t count = 0;

	for (size_t k = 0; k < n; k++) {
		const struct imgp_recipe_param *params;
		size_t np = imgp_recipe_params(recipes[k], &params);

		for (size_t i = 0; i < np; i++) {
			names = cli_grow(names, count, sizeof(*names));
			names[count++] = params[i].name;
		}
	}
	near = cli_closest(name, names, count);
	snprintf(hint, size, "%s%s%s", near ? " (did you mean '" : "", near ? near : "",
		 near ? "'?)" : "");
	free(names);
}

/* Every --set and every column not ignored names a parameter of some recipe. */
static int check_names(const struct write_opts *o, struct imgp_recipe *const *recipes)
{
	size_t ncols = o->has_table ? imgp_csv_ncols(o->table.table) - 1 : 0;

	for (size_t i = 0; i < o->nsets + ncols; i++) {
		bool column = i >= o->nsets;
		const char *name = !column ? o->sets[i] :
				   imgp_csv_cell(o->table.table, 0, i - o->nsets + 1);
		size_t len = strcspn(name, "=");
		bool found = column && (cli_each_ignored(&o->table, i - o->nsets + 1) ||
					cli_each_custom(name));
		char hint[160], *word;

		for (size_t k = 0; k < o->nrecipes && !found; k++)
			found = column ? cli_each_param(recipes[k], name) != NULL :
				cli_recipe_has_param(recipes[k], name, len);
		if (found)
			continue;
		word = strndup(name, len);
		if (!word)
			die("out of memory");
		closest_param(recipes, o->nrecipes, word, hint, sizeof(hint));
		if (column)
			error("%s:%u: no recipe given has a parameter '%s'%s: give --each-ignore '%s' to leave the column out",
			      o->each, imgp_csv_line(o->table.table, 0), word, hint, word);
		else
			error("--set %s: no recipe given has a parameter '%s'%s", name, word, hint);
		free(word);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/*
 * Loads the recipes and binds them with every card's parameters, so that
 * a bad value in any row stops the run before anything is written.
 */
static int load_recipes(const struct write_opts *o, struct imgp_recipe ***out)
{
	struct imgp_recipe **recipes = calloc(o->nrecipes + 1, sizeof(*recipes));
	struct cli_recipe_path rp;
	int rc = EXIT_OK;

	if (!recipes)
		die("out of memory");
	cli_recipe_path_init(&rp, o->paths, o->npaths);
	for (size_t k = 0; k < o->nrecipes && !rc; k++) {
		char *path = NULL;

		int found = cli_recipe_find(&rp, o->recipes[k], &path);

		if (found || imgp_recipe_load(path, &recipes[k])) {
			error("%s", imgp_errmsg());
			/* A name no recipe has is a mistake in what was typed. */
			rc = found == -ENOENT ? EXIT_USAGE : EXIT_ERROR;
		}
		free(path);
	}
	cli_recipe_path_free(&rp);
	if (!rc)
		rc = check_names(o, recipes);
	for (size_t t = 0; t < o->ntargets && !rc; t++) {
		for (size_t k = 0; k < o->nrecipes && !rc; k++) {
			/* A value its recipe refuses is a mistake in what was typed. */
			if (cli_target_bind(recipes[k], o->has_table ? &o->table : NULL,
					    o->targets[t], o->sets, o->nsets)) {
				size_t row = o->has_table ? cli_each_row(&o->table, o->targets[t]) : 0;

				/* The row's line, where the value most likely is. */
				if (row)
					error("%s:%u: %s: %s", o->each,
					      imgp_csv_line(o->table.table, row), o->targets[t],
					      imgp_errmsg());
				else
					error("%s: %s", o->targets[t], imgp_errmsg());
				rc = EXIT_USAGE;
			}
		}
	}
	*out = recipes;
	return rc;
}

/*
 * Every card's customize settings are checked before anything is written:
 * a bad value in a row is a usage error naming its line.
 */
static int check_custom(const struct write_opts *o)
{
	for (size_t t = 0; t < o->ntargets; t++) {
		const struct cli_each *each = o->has_table ? &o->table : NULL;
		struct imgp_custom *c;
		size_t row;

		if (!cli_custom_for(&o->custom, each, o->targets[t], &c)) {
			imgp_custom_free(c);
			continue;
		}
		row = each ? cli_each_row(each, o->targets[t]) : 0;
		if (row)
			error("%s:%u: %s: %s", o->each, imgp_csv_line(o->table.table, row),
			      o->targets[t], imgp_errmsg());
		else
			error("%s", imgp_errmsg());
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static void free_recipes(struct imgp_recipe **recipes)
{
	for (size_t k = 0; recipes && recipes[k]; k++)
		imgp_recipe_free(recipes[k]);
	free(recipes);
}

/* The folder and the name of path, malloc'd. */
static void split_path(const char *path, char **dir, char **base)
{
	const char *slash = strrchr(path, '/');

	*dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	*base = strdup(slash ? slash + 1 : path);
	if (!*dir || !*base)
		die("out of memory");
}

/*
 * A target as it must be before anything is written: a block device that
 * is not mounted, not held and of a card's size, or a file of at least
 * the image's size (made when missing, outside /dev).
 */
static int check_target(const char *target, uint64_t size, bool force, struct stat *st,
			bool *missing)
{
	uint64_t bytes;
	int fd;

	/* What a killed run left beside a file target goes first. */
	if (strncmp(target, "/dev/", 5)) {
		char *dir, *base;

		split_path(target, &dir, &base);
		cli_sweep(dir, base);
		free(dir);
		free(base);
	}
	/* Made only once every target has passed (make_missing). */
	*missing = stat(target, st) < 0 && errno == ENOENT && strncmp(target, "/dev/", 5);
	if (*missing) {
		memset(st, 0, sizeof(*st));
		return cli_check_output(target, "the card's file");
	}
	if (stat(target, st) < 0) {
		error("%s: %s", target, strerror(errno));
		return EXIT_ERROR;
	}
	if (S_ISREG(st->st_mode)) {
		if ((uint64_t)st->st_size < size) {
			error("%s: the file is %llu bytes, smaller than the image (%llu bytes)",
			      target, (unsigned long long)st->st_size, (unsigned long long)size);
			return EXIT_ERROR;
		}
		return EXIT_OK;
	}
	if (!S_ISBLK(st->st_mode)) {
		error("%s: not a block device or a regular file", target);
		return EXIT_ERROR;
	}
	if (imgp_blockdev_check_unmounted(target))
		return error_lib(target);
	/* O_EXCL on a block device: refused while mounted, held by dm, md, swap. */
	fd = open(target, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		error("%s: %s", target, errno == EBUSY ?
		      "the device is in use (mounted, swap, RAID or device mapper)" :
		      strerror(errno));
		return EXIT_ERROR;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes) < 0)
		bytes = 0;
	close(fd);
	if (bytes < size) {
		error("%s: the device is %llu bytes, smaller than the image (%llu bytes)",
		      target, (unsigned long long)bytes, (unsigned long long)size);
		return EXIT_ERROR;
	}
	if (bytes > CARD_SIZE_MAX && !force) {
		error("%s: the device is %.0f GiB, larger than a card plausibly is: give --force if it is the card",
		      target, (double)bytes / (1 << 30));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

/*
 * A file that stands in for a card, of the image's size (sparse), made
 * under a temporary name beside it (*made): it gets its name only once it
 * is written and verified, so an interrupted run leaves no card that looks
 * finished.
 */
static int make_missing(const char *target, uint64_t size, char **made)
{
	char *dir, *base;
	int fd;

	split_path(target, &dir, &base);
	fd = imgp_temp_make(dir, base, made);
	free(dir);
	free(base);
	if (fd < 0)
		return error_lib(target);
	cli_name_copy(*made, target);
	if (fchmod(fd, 0644) < 0 || ftruncate(fd, (off_t)size) < 0) {
		error("%s: cannot make the file: %s", target, strerror(errno));
		close(fd);
		imgp_temp_remove(*made);
		free(*made);
		*made = NULL;
		return EXIT_ERROR;
	}
	close(fd);
	return EXIT_OK;
}

/*
 * What target would be written over that the run reads or writes too
 * (the image, as given or unpacked, the table, the report), else NULL.
 */
static const char *target_clash(const struct write_opts *o, const char *raw,
				const char *target)
{
	if (cli_same_file(target, o->image) || cli_same_file(target, raw))
		return "is the image itself";
	if (cli_disk_holds(target, o->image))
		return "the image is one of its partitions";
	if (cli_disk_holds(o->image, target))
		return "is a partition of the image";
	if (cli_same_file(target, o->each))
		return "is the --each table";
	if (cli_same_file(target, o->json))
		return "is the --json report";
	return NULL;
}

/*
 * Every target, and no two the same file or device (by what they resolve
 * to: t/d.img and t/./d.img are one file, made or not), nor one the run
 * reads or reports to.
 */
static int check_targets(struct write_opts *o, const char *raw, uint64_t size)
{
	bool *missing = calloc(o->ntargets, sizeof(*missing));
	int rc = EXIT_OK;

	if (!missing)
		die("out of memory");
	for (size_t i = 0; i < o->ntargets && !rc; i++) {
		const char *clash = target_clash(o, raw, o->targets[i]);
		struct stat st;

		if (clash) {
			error("%s: %s", o->targets[i], clash);
			rc = EXIT_ERROR;
			break;
		}
		rc = check_target(o->targets[i], size, o->force, &st, &missing[i]);
		for (size_t j = 0; j < i && !rc; j++) {
			bool holds = cli_disk_holds(o->targets[i], o->targets[j]);

			if (holds || cli_disk_holds(o->targets[j], o->targets[i])) {
				error(holds ? "%s: TARGET %s is one of its partitions" :
				      "%s: a partition of TARGET %s", o->targets[i], o->targets[j]);
				rc = EXIT_ERROR;
				break;
			}
			if (!cli_same_file(o->targets[i], o->targets[j]))
				continue;
			if (strcmp(o->targets[i], o->targets[j]))
				error("%s: given twice as a TARGET (first as %s)", o->targets[i],
				      o->targets[j]);
			else
				error("%s: given twice as a TARGET", o->targets[i]);
			rc = EXIT_ERROR;
		}
	}
	/* A dry run makes nothing: a missing file would be made, and that is all. */
	o->made = calloc(o->ntargets, sizeof(*o->made));
	if (!o->made)
		die("out of memory");
	for (size_t i = 0; i < o->ntargets && !rc && !o->dry_run; i++)
		if (missing[i])
			rc = make_missing(o->targets[i], size, &o->made[i]);
	free(missing);
	return rc;
}

struct card_job {
	struct write_card card;
	struct card_result res;
	struct cli_target t;       /* t.child.fd: the child's messages */
	uint64_t done, total;
};

static struct cli_target *card_target(void *ctx, size_t i)
{
	return &((struct card_job *)ctx)[i].t;
}

static int card_work(void *ctx, int fd)
{
	return write_card_run(ctx, fd);
}

static int card_start(void *ctx, size_t i)
{
	struct card_job *job = &((struct card_job *)ctx)[i];

	return cli_child_start(&job->t.child, card_work, &job->card);
}

static void card_start_failed(void *ctx, size_t i, const char *why)
{
	struct card_job *job = &((struct card_job *)ctx)[i];

	job->res.failed = true;
	snprintf(job->res.error, sizeof(job->res.error), "%s", why);
}

/* Reads what a child sent: its progress, then its result. */
static bool card_read(void *ctx, size_t i)
{
	struct card_job *job = &((struct card_job *)ctx)[i];
	struct card_msg msg;
	ssize_t n = read(job->t.child.fd, &msg, sizeof(msg));

	if (n == (ssize_t)sizeof(msg) && msg.kind == CARD_MSG_PROGRESS) {
		job->done = msg.done;
		job->total = msg.total;
		return true;
	}
	if (n == (ssize_t)sizeof(msg) && msg.kind == CARD_MSG_RESULT) {
		job->res = msg.result;
		job->t.result = job->res.done;
		return true;
	}
	return n < 0 && errno == EINTR;
}

static void card_reaped(void *ctx, size_t i, int wstatus)
{
	struct card_job *job = &((struct card_job *)ctx)[i];

	job->res.seconds = cli_child_seconds(&job->t.child);
	if (!job->res.done && !job->t.interrupted) {
		job->res.failed = true;
		snprintf(job->res.error, sizeof(job->res.error), "%s",
			 WIFSIGNALED(wstatus) ? "killed by a signal" : "stopped without a result");
	}
	/* A file the run made gets its name once verified, and is gone otherwise. */
	if (job->card.path && !job->res.failed && !job->t.interrupted &&
	    imgp_temp_commit(job->card.path, job->card.target)) {
		job->res.failed = true;
		snprintf(job->res.error, sizeof(job->res.error), "%s", imgp_errmsg());
	}
	if (job->card.path && (job->res.failed || job->t.interrupted))
		imgp_temp_remove(job->card.path);
}

/* One line: each card's share written so far, or what it is doing. */
static void show_progress(void *ctx, size_t n)
{
	const struct card_job *jobs = ctx;

	if (cli_quiet || !cli_stderr_is_tty())
		return;
	fputs("\r\033[Kwriting:", stderr);
	for (size_t i = 0; i < n; i++) {
		if (!jobs[i].t.finished && jobs[i].total)
			fprintf(stderr, " [%zu] %u%%", i + 1,
				(unsigned)(jobs[i].done * 100 / jobs[i].total));
		else
			fprintf(stderr, " [%zu] %s", i + 1, jobs[i].t.finished ? "done" :
				jobs[i].t.started ? "preparing" : "waiting");
	}
	fflush(stderr);
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (1 << 20);
}

/*
 * An interrupted card the run had begun: a device or a file that existed,
 * now part old and part new. A file the run made is gone instead.
 */
static bool card_incomplete(const struct card_job *job)
{
	return job->t.interrupted && job->t.started && !job->card.dry_run && !job->card.path;
}

static void print_card(void *ctx, size_t i, size_t finished, size_t n)
{
	const struct card_job *job = &((const struct card_job *)ctx)[i];

	if (!cli_quiet && cli_stderr_is_tty())
		fputs("\r\033[K", stderr);
	if (job->t.interrupted)
		printf("[%zu/%zu] %s: interrupted%s\n", finished, n, job->card.target,
		       card_incomplete(job) ? ": incomplete: do not use" :
		       job->t.started ? ", not made" : ", not started");
	else if (job->res.failed)
		printf("[%zu/%zu] %s: FAILED: %s\n", finished, n, job->card.target,
		       job->res.error);
	else if (job->card.dry_run)
		printf("[%zu/%zu] %s: planned, would write %.1f MiB of %.1f MiB (%.1f s)\n",
		       finished, n, job->card.target, mib(job->res.mapped), mib(job->card.size),
		       job->res.seconds);
	else
		printf("[%zu/%zu] %s: written and verified, %.1f MiB (%.1f s)\n", finished, n,
		       job->card.target, mib(job->res.written), job->res.seconds);
	if (!job->t.interrupted && !job->res.failed) {
		char prefix[300];

		/* A lab fills known_hosts from these before the card first boots. */
		snprintf(prefix, sizeof(prefix), "      %s: ", job->card.target);
		cli_print_custom_facts(prefix, job->res.facts);
	}
	fflush(stdout);
}

static const char *card_status(const struct card_job *job)
{
	return job->t.interrupted ? "interrupted" : job->res.failed ? "failed" :
	       job->card.dry_run ? "planned" : "verified";
}

static void print_summary(const struct card_job *jobs, size_t n, bool dry_run)
{
	size_t width = 6, failed = 0, interrupted = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(jobs[i].card.target);

		width = len > width ? len : width;
		failed += jobs[i].res.failed && !jobs[i].t.interrupted;
		interrupted += jobs[i].t.interrupted;
	}
	printf("\n%-*s  %-11s  %10s  %8s\n", (int)width, "TARGET", "STATUS",
	       dry_run ? "TO WRITE" : "WRITTEN", "SECONDS");
	for (size_t i = 0; i < n; i++)
		printf("%-*s  %-11s  %6.1f MiB  %8.1f%s\n", (int)width, jobs[i].card.target,
		       card_status(&jobs[i]),
		       mib(dry_run ? jobs[i].res.mapped : jobs[i].res.written),
		       jobs[i].res.seconds,
		       card_incomplete(&jobs[i]) ? "  incomplete: do not use" : "");
	printf("write: %zu card%s, %zu failed", n, n == 1 ? "" : "s", failed);
	if (interrupted)
		printf(", %zu interrupted", interrupted);
	printf("%s\n", dry_run ? " (dry run: nothing written)" : "");
}

/*
 * The --json report: status "done", "failed", "interrupted" or "usage",
 * error why the run stopped (NULL: it did not), and every card (jobs may
 * be NULL: the run stopped before them).
 */
static int write_report(const char *path, const struct write_opts *o,
			const struct card_job *jobs, uint64_t size, const char *status,
			const char *why)
{
	struct imgp_json j;
	FILE *f;
	int rc = cli_report_begin(path, &j, &f, status, why);

	if (rc)
		return rc;
	imgp_json_kv_string_(&j, "image", o->image);
	imgp_json_kv_uint_(&j, "image_size", size);
	imgp_json_kv_bool_(&j, "dry_run", o->dry_run);
	imgp_json_key_(&j, "recipes");
	imgp_json_array_begin_(&j);
	for (size_t k = 0; k < o->nrecipes; k++)
		imgp_json_string_(&j, o->recipes[k]);
	imgp_json_array_end_(&j);
	imgp_json_key_(&j, "cards");
	imgp_json_array_begin_(&j);
	for (size_t i = 0; jobs && i < o->ntargets; i++) {
		const struct card_result *r = &jobs[i].res;

		imgp_json_object_begin_(&j);
		imgp_json_kv_string_(&j, "target", jobs[i].card.target);
		cli_json_parameters(&j, o->loaded, o->loaded ? o->nrecipes : 0, o->has_table ? &o->table : NULL,
				    jobs[i].card.target, o->sets, o->nsets);
		imgp_json_kv_string_(&j, "status", card_status(&jobs[i]));
		cli_json_custom_facts(&j, r->facts);
		imgp_json_kv_bool_(&j, "incomplete", card_incomplete(&jobs[i]));
		imgp_json_kv_uint_(&j, "mapped_bytes", r->mapped);
		imgp_json_kv_uint_(&j, "written_bytes", r->written);
		imgp_json_kv_fixed3_(&j, "seconds", r->seconds);
		if (r->failed)
			imgp_json_kv_string_(&j, "error", r->error);
		else
			imgp_json_kv_null_(&j, "error");
		if (r->failed && r->has_offset)
			imgp_json_kv_uint_(&j, "error_offset", r->offset);
		else
			imgp_json_kv_null_(&j, "error_offset");
		imgp_json_object_end_(&j);
	}
	imgp_json_array_end_(&j);
	imgp_json_object_end_(&j);
	return cli_report_close(&j, f);
}

static const struct cli_targets_ops card_ops = {
	card_target, card_start, card_start_failed, card_read, card_reaped, print_card,
	show_progress,
};

static int write_all(struct write_opts *o, struct imgp_recipe **recipes,
		     const char *raw, uint64_t size)
{
	struct card_job *jobs = calloc(o->ntargets, sizeof(*jobs));
	const char *status, *why;
	size_t failed = 0;
	int rc = EXIT_OK;

	if (!jobs)
		die("out of memory");
	for (size_t i = 0; i < o->ntargets; i++) {
		struct write_card *c = &jobs[i].card;

		c->target = o->targets[i];
		c->path = o->made[i];
		c->image = raw;
		c->size = size;
		c->recipes = recipes;
		c->nrecipes = o->nrecipes;
		c->each = o->has_table ? &o->table : NULL;
		c->sets = o->sets;
		c->nsets = o->nsets;
		c->dry_run = o->dry_run;
		c->custom = &o->custom;
		c->customized = cli_custom_any(&o->custom, c->each);
	}
	/* An interruption is a result: every card's status, then the signal. */
	cli_signals_deferred = 1;
	/* A dry run's plans are read card by card: one at a time. */
	cli_targets_run(&card_ops, jobs, o->ntargets,
			o->dry_run ? 1 : o->jobs ? (size_t)o->jobs : o->ntargets);
	if (!cli_quiet && cli_stderr_is_tty())
		fputs("\r\033[K", stderr);
	for (size_t i = 0; i < o->ntargets; i++)
		failed += jobs[i].res.failed || jobs[i].t.interrupted;
	print_summary(jobs, o->ntargets, o->dry_run);
	status = cli_targets_status(failed, &why);
	if (o->json && write_report(o->json, o, jobs, size, status, why)) {
		error_lib(o->json);
		rc = EXIT_ERROR;
	}
	o->reported = true;
	free(jobs);
	cli_signals_finish();
	cli_signals_deferred = 0;
	if (failed)
		rc = EXIT_ERROR;
	return rc;
}

/* A run interrupted before its cards: every card not started, the report. */
static int report_interrupted(struct write_opts *o)
{
	struct card_job *jobs = calloc(o->ntargets, sizeof(*jobs));
	const char *status, *why;
	int rc = EXIT_ERROR;

	if (!jobs)
		die("out of memory");
	for (size_t i = 0; i < o->ntargets; i++) {
		jobs[i].card.target = o->targets[i];
		jobs[i].card.dry_run = o->dry_run;
		jobs[i].t.interrupted = jobs[i].t.finished = true;
		print_card(jobs, i, i + 1, o->ntargets);
	}
	print_summary(jobs, o->ntargets, o->dry_run);
	status = cli_targets_status(o->ntargets, &why);
	if (o->json && write_report(o->json, o, jobs, o->size, status, why))
		error_lib(o->json);
	o->reported = true;
	free(jobs);
	return rc;
}

int cmd_write(int argc, char **argv)
{
	struct write_opts o = { 0 };
	struct imgp_recipe **recipes = NULL;
	struct cli_read in;
	bool in_open = false, report_refused = false;
	struct stat st;
	int rc;

	rc = parse_args(argc, argv, &o);
	if (rc || o.stop)
		goto out;
	/*
	 * An interruption is a result from here on: unpacking the image stops
	 * (the context's interrupt flag), and every card is reported as interrupted.
	 */
	cli_signals_deferred = 1;
	cli_sweep(NULL, NULL);
	if (o.each && (rc = read_table(&o)))
		goto out;
	if (o.nrecipes && (rc = load_recipes(&o, &recipes)))
		goto out;
	o.custom.recipes = recipes;
	o.custom.nrecipes = o.nrecipes;
	if ((!o.nrecipes && (rc = check_names(&o, NULL))) || (rc = check_custom(&o)))
		goto out;
	o.loaded = recipes;
	if (o.json && (rc = cli_check_output(o.json, "the report"))) {
		report_refused = true;
		goto out;
	}
	if (cli_same_file(o.json, o.image) || cli_same_file(o.json, o.each)) {
		error("%s: the --json report would replace %s", o.json,
		      cli_same_file(o.json, o.image) ? o.image : o.each);
		report_refused = true;
		rc = EXIT_ERROR;
		goto out;
	}
	/* Unpacked once, for every card. */
	rc = cli_read_open(&in, o.image);
	if (rc)
		goto out;
	in_open = true;
	if (stat(imgp_job_path(in.job), &st) < 0) {
		error("%s: %s", o.image, strerror(errno));
		rc = EXIT_ERROR;
		goto out;
	}
	o.size = (uint64_t)st.st_size;
	rc = check_targets(&o, imgp_job_path(in.job), (uint64_t)st.st_size);
	if (!rc)
		rc = write_all(&o, recipes, imgp_job_path(in.job), (uint64_t)st.st_size);
out:
	/* Interrupted before the cards: none started, each said so. */
	if (cli_signal && !o.reported && o.targets)
		rc = report_interrupted(&o);
	/* Once --json is read, a run that stops early still leaves its report. */
	if (rc && o.json && !o.reported && !report_refused &&
	    write_report(o.json, &o, NULL, o.size, rc == EXIT_USAGE ? "usage" : "failed",
			 cli_last_error()))
		error_lib(o.json);
	if (in_open)
		cli_read_close(&in);
	free_recipes(recipes);
	cli_each_free(&o.table);
	if (o.targets_owned)
		free(o.targets);
	cli_custom_args_free(&o.custom);
	free(o.recipes);
	free(o.sets);
	free(o.ignore);
	free(o.paths);
	free(o.argv_args);
	for (size_t i = 0; o.made && i < o.ntargets; i++)
		free(o.made[i]);
	free(o.made);
	cli_signals_finish();
	cli_signals_deferred = 0;
	return rc;
}
