// SPDX-License-Identifier: MIT
/*
 * Images as they come and go, through the library's job (imgp_job_*):
 * the writing commands (patch, apply) open one to plan on and commit the
 * plan through it, the reading commands (info, cat, doctor, write) open
 * one to read. Here the options become the job's, and what it did or why
 * it failed becomes the command's lines and exit status.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_sweep(const char *dir, const char *base)
{
	/* What a run makes in $TMPDIR: the kinds, never any other program's. */
	static const char *const kinds[] = {
		"imgpatch-work", "imgpatch-card", "imgpatch-batch", "imgpatch-stage", NULL,
	};

	if (base)
		imgp_temp_sweep(cli_ctx, dir, (const char *const[]){ base, NULL });
	else
		imgp_temp_sweep(cli_ctx, imgp_tmpdir(), kinds);
}

const struct cli_option cli_io_options[] = {
	{ 'o', "output", 'o', "OUT", "write a patched copy to OUT, leave IMAGE untouched;\n"
	  "compressed when OUT ends in .xz .gz .zst .bz2 .lz4" },
	{ CLI_OPT_COMPRESS, "compress", 0, "FMT", "output format: xz, gz, zst, bz2, lz4 or none" },
	{ CLI_OPT_LEVEL, "level", 0, "N", "compression level" },
	{ CLI_OPT_THREADS, "threads", 0, "N", "compression threads (0: all cores)" },
	{ CLI_OPT_BMAP, "bmap", 0, "FILE", "also write a bmaptool block map of the output" },
	{ CLI_OPT_IN_PLACE, "in-place", 0, NULL, "recompress over a compressed IMAGE" },
	{ 'n', "dry-run", 'n', NULL, "print the plan as diffs, write nothing" },
	{ CLI_OPT_QUIET, "quiet", 0, NULL, "no progress lines, even on a terminal" },
	{ CLI_OPT_UNDO, "undo", 0, "FILE", "undo journal of an in-place run (default\n"
	  "IMAGE.imgpatch-undo; for a device, in this folder)" },
	{ CLI_OPT_RECOVER, "recover", 0, NULL, "first undo what an interrupted run left" },
	CLI_OPTIONS_END,
};

int cli_io_option(struct cli_io *io, const struct cli_parser *p, int c)
{
	long n;

	switch (c) {
	case 'o': io->out = p->value; return 1;
	case 'n': io->dry_run = true; return 1;
	case CLI_OPT_BMAP: io->bmap = p->value; return 1;
	case CLI_OPT_IN_PLACE: io->in_place = true; return 1;
	case CLI_OPT_QUIET: cli_quiet = true; return 1;
	case CLI_OPT_UNDO: io->undo = p->value; return 1;
	case CLI_OPT_RECOVER: io->recover = true; return 1;
	case CLI_OPT_COMPRESS:
		if (imgp_format_parse(p->value, &io->pack.format))
			return cli_bad_value(p, "%s", imgp_format_choices());
		io->compress_set = true;
		return 1;
	case CLI_OPT_LEVEL:
	case CLI_OPT_THREADS:
		if (cli_number(p, 0, 1024, &n))
			return EXIT_USAGE;
		if (c == CLI_OPT_LEVEL)
			io->pack.level = (int)n;
		else
			io->pack.threads = (int)n;
		return 1;
	}
	return 0;
}

void cli_io_init(struct cli_io *io)
{
	memset(io, 0, sizeof(*io));
	io->pack.level = -1;
}

char *cli_journal_path(const char *image, const char *undo)
{
	return undo ? strdup(undo) : imgp_journal_path(image);
}

int cli_check_folder(const char *dir, const char *what, const char *hint)
{
	const char *why = imgp_folder_problem(dir);

	if (!*why)
		return EXIT_OK;
	error("%s: cannot write %s: the folder %s%s%s", dir, what, why,
	      hint ? ": " : "", hint ? hint : "");
	return EXIT_ERROR;
}

int cli_check_output(const char *path, const char *what)
{
	char *copy = strdup(path);
	const char *dir, *why;
	int rc = EXIT_OK;

	if (!copy)
		die("out of memory");
	dir = dirname(copy);
	why = imgp_folder_problem(dir);
	if (*why) {
		error("%s: cannot write %s: folder %s %s", path, what, dir, why);
		rc = EXIT_ERROR;
	}
	free(copy);
	return rc;
}

/* The job's failure as the command's: one line naming the file, an exit status. */
static int job_error(const struct cli_io *io)
{
	bool usage;
	const char *subject = imgp_job_failed(io->job, &usage);
	int rc = error_lib(subject);

	return usage ? EXIT_USAGE : rc;
}

int cli_io_open(struct cli_io *io, const char *cmd)
{
	struct imgp_job_opts opts = {
		.image = io->image, .write = true, .out = io->out, .in_place = io->in_place,
		.dry_run = io->dry_run, .bmap = io->bmap, .format_set = io->compress_set,
		.pack = io->pack, .journal = io->undo, .recover = io->recover,
		/* IMGPATCH_XZ_WHOLE turns block-wise .xz off (for comparisons). */
		.xz_whole = getenv("IMGPATCH_XZ_WHOLE") != NULL,
	};
	const char *journal;
	size_t regions;
	uint64_t bytes;

	if (cli_same_file(io->image, io->out))
		return usage_error(cmd, "-o %s is IMAGE itself: leave out -o to patch in place",
				   io->out);
	/* Each file a run writes is its own: none written over another, nor the image. */
	if (cli_same_file(io->bmap, io->image) || cli_same_file(io->bmap, io->out))
		return usage_error(cmd, "--bmap %s is %s itself: give the block map a name of its own",
				   io->bmap, cli_same_file(io->bmap, io->out) ? "OUT" : "IMAGE");
	if (cli_same_file(io->undo, io->image) || cli_same_file(io->undo, io->out) ||
	    cli_same_file(io->undo, io->bmap))
		return usage_error(cmd, "--undo %s is %s itself: give the undo journal a name of its own",
				   io->undo, cli_same_file(io->undo, io->image) ? "IMAGE" :
				   cli_same_file(io->undo, io->out) ? "OUT" : "the --bmap file");
	/* What a killed run left in $TMPDIR goes before this run adds its own. */
	cli_sweep(NULL, NULL);
	if (io->in_place && io->out)
		return usage_error(cmd, "--in-place and -o exclude each other");
	if (io->bmap && !io->out && !io->in_place)
		return usage_error(cmd, "--bmap needs -o (or --in-place)");
	if (imgp_job_new(&io->job, cli_ctx, &opts))
		die("out of memory");
	if (imgp_job_open(io->job))
		return job_error(io);
	journal = imgp_job_recovered(io->job, &regions, &bytes);
	if (journal)
		printf("recovered %s: restored %zu region%s (%llu bytes) from %s\n",
		       io->image, regions, regions == 1 ? "" : "s",
		       (unsigned long long)bytes, journal);
	return EXIT_OK;
}

void cli_io_close(struct cli_io *io)
{
	imgp_job_free(io->job);
	io->job = NULL;
}

int cli_read_open(struct cli_read *r, const char *image)
{
	struct imgp_job_opts opts = { .image = image };
	int rc;

	memset(r, 0, sizeof(*r));
	/* What a killed run left in $TMPDIR goes, as for the writing commands. */
	cli_sweep(NULL, NULL);
	if (imgp_job_new(&r->job, cli_ctx, &opts))
		die("out of memory");
	rc = imgp_job_open(r->job);
	if (!rc)
		rc = imgp_job_disk_open(r->job, &r->disk);
	if (!rc)
		return EXIT_OK;
	/* Interrupted (write): the run says so in one line, not here. */
	rc = rc == -EINTR ? EXIT_ERROR : error_lib(image);
	cli_read_close(r);
	return rc;
}

void cli_read_close(struct cli_read *r)
{
	imgp_disk_close(r->disk);
	r->disk = NULL;
	imgp_job_free(r->job);
	r->job = NULL;
}

int cli_io_commit(struct cli_io *io, struct imgp_patch *patch)
{
	struct imgp_buf plan = { 0 };
	const char *final = imgp_job_output(io->job);
	size_t pending, changed, nblocks;

	if (imgp_patch_describe(patch, &plan))
		return error_lib(io->image);
	if (plan.len)
		fwrite(plan.data, 1, plan.len, stdout);
	imgp_buf_free(&plan);
	pending = imgp_patch_pending(patch);
	fflush(stdout);
	if (!final && !pending && !io->dry_run)
		printf("nothing to change: %s is already patched\n", io->image);
	if (imgp_job_commit(io->job, patch))
		return job_error(io);
	if (io->dry_run)
		printf("dry run: %zu change%s planned, nothing written\n", pending,
		       pending == 1 ? "" : "s");
	else if (!final && pending)
		printf("patched %s: %zu change%s\n", io->image, pending, pending == 1 ? "" : "s");
	if (io->dry_run || !final)
		return EXIT_OK;
	printf("wrote %s (%s): %zu change%s", final,
	       imgp_format_name(imgp_job_out_format(io->job)), pending, pending == 1 ? "" : "s");
	if (imgp_job_xz_blocks(io->job, &changed, &nblocks))
		printf(", %zu of %zu xz blocks re-encoded", changed, nblocks);
	putchar('\n');
	return EXIT_OK;
}
