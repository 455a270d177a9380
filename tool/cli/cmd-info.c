// SPDX-License-Identifier: MIT
/*
 * imgpatch info: what an image holds, read-only. The library surveys the
 * image first (survey.c); the survey is printed afterwards, as text or as
 * one JSON document, so both outputs always say the same. A damaged section (bad FIT hash, corrupt boot
 * script, dirty ext4) is reported where it belongs and turns the exit status
 * into 1, but never stops the other sections.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

bool info_fit_missing(const struct info *in)
{
	return !in->sv.fit.part;
}

bool info_script_missing(const struct info *in)
{
	return !in->sv.script.path && in->sv.script.rc == -ENOENT;
}

bool info_override_missing(const struct info *in)
{
	return !in->sv.override.part;
}

bool info_fstab_missing(const struct info *in)
{
	return !in->sv.root && in->sv.root_rc == -ENOENT;
}

bool info_script_loads_override(const struct info *in)
{
	return in->sv.script.parsed &&
	       imgp_bootscr_mentions(&in->sv.script.scr, IMGP_OVERRIDE_NAME);
}

const char *info_fstab_error(const struct info *in)
{
	const struct imgp_survey_fstab *f = &in->sv.fstab;

	if (info_fstab_missing(in))
		return NULL;
	if (f->rc)
		return f->error;
	return f->root_rc && f->root_rc != -ENOENT ? f->root_error : NULL;
}

/* What makes info exit with status 1: each fact that could not be read. */
static int count_problems(const struct info *in)
{
	const struct imgp_survey *sv = &in->sv;
	int n = in->disk.tab.used_backup;

	for (size_t i = 0; i < in->disk.tab.nparts; i++)
		n += sv->fs_rc[i] != 0;
	n += !info_fit_missing(in) && sv->fit.rc;
	for (size_t i = 0; sv->fit.hash && i < sv->fit.fit.nimages; i++)
		n += sv->fit.hash[i].state == IMGP_HASH_BAD;
	n += !info_script_missing(in) && sv->script.rc;
	n += !info_override_missing(in) && sv->override.rc &&
	     sv->override.rc != -ENOENT;
	for (size_t i = 0; i < sv->ntrees; i++)
		n += sv->trees[i].state == IMGP_TREE_ERROR;
	n += info_fstab_error(in) != NULL;
	return n;
}

static void info_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch info [--json] [--fit PATH] IMAGE\n"
		"Show an image's partitions, its FIT, boot script, SD/eMMC controller\n"
		"settings and the root fstab entry. Read-only.\n\n"
		"Options:\n"
		"      --json       print one JSON document (schema_version 1)\n"
		"      --fit PATH   FIT file to look for (default " IMGP_FIT_PATH ")\n"
		"  -h, --help       show this help\n\n"
		"Exit status: 0 all fine, 1 a problem was found (reported in its\n"
		"section) or the image cannot be read, 2 usage error.\n");
}

int cmd_info(int argc, char **argv)
{
	struct cli_io io;
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "fit", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct imgp_survey_opts sopts = {
		.what = IMGP_SURVEY_BOOT | IMGP_SURVEY_TREES | IMGP_SURVEY_FSTAB,
	};
	struct info in = { 0 };
	char *fit_path = NULL;
	bool json = false;
	int c, rc;

	/* 0, not 1: GNU getopt then also forgets state from an earlier parse. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'f':
			if (!*optarg) {
				free(fit_path);
				return usage_error("info", "--fit needs a path, e.g. " IMGP_FIT_PATH);
			}
			free(fit_path);
			if (asprintf(&fit_path, "%s%s", *optarg == '/' ? "" : "/",
				     optarg) < 0)
				die("out of memory");
			break;
		case 'h':
			free(fit_path);
			info_usage(stdout);
			return EXIT_OK;
		case ':':
			free(fit_path);
			return usage_error("info", "option '%s' needs a value",
					   argv[optind - 1]);
		default:
			free(fit_path);
			if (optopt)
				return usage_error("info", "unknown option '-%c'", optopt);
			return usage_error("info", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		free(fit_path);
		return usage_error("info", "missing IMAGE");
	}
	if (argc - optind > 1) {
		free(fit_path);
		return usage_error("info", "too many arguments: '%s'",
				   argv[optind + 1]);
	}
	in.path = argv[optind];

	/* A compressed or archived image is read from an unpacked copy. */
	cli_io_init(&io);
	io.image = in.path;
	io.dry_run = true;
	rc = cli_io_open(&io, "info");
	if (!rc && imgp_disk_open(&in.disk, io.work, false))
		rc = error_lib(in.path);
	if (rc) {
		cli_io_close(&io);
		free(fit_path);
		return rc;
	}
	sopts.fit_path = fit_path;
	if (imgp_survey_open(&in.sv, &in.disk, &sopts)) {
		rc = error_lib(in.path);
		imgp_disk_close(&in.disk);
		cli_io_close(&io);
		free(fit_path);
		return rc;
	}
	in.problems = count_problems(&in);

	if (json) {
		rc = info_print_json(&in);
	} else {
		info_print_text(&in);
		rc = fflush(stdout) || ferror(stdout) ? -EIO : 0;
	}
	if (rc == -EIO)
		error("cannot write output: %s", strerror(EIO));
	if (!rc && in.problems)
		error("%s: %d problem%s found", in.path, in.problems,
		      in.problems == 1 ? "" : "s");
	rc = (rc || in.problems) ? EXIT_ERROR : EXIT_OK;
	imgp_survey_free(&in.sv);
	imgp_disk_close(&in.disk);
	cli_io_close(&io);
	free(fit_path);
	return rc;
}
