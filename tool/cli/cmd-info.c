// SPDX-License-Identifier: MIT
/*
 * imgpatch info: what an image holds, read-only. Every fact is collected
 * first and printed afterwards, as text or as one JSON document, so both
 * outputs always say the same. A damaged section (bad FIT hash, corrupt boot
 * script, dirty ext4) is reported where it belongs and turns the exit status
 * into 1, but never stops the other sections.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

static void info_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch info [--json] [--fit PATH] IMAGE\n"
		"Show an image's partitions, its FIT, boot script, SD/eMMC controller\n"
		"settings and the root fstab entry. Read-only.\n\n"
		"Options:\n"
		"      --json       print one JSON document (schema_version 1)\n"
		"      --fit PATH   FIT file to look for (default /image.fit)\n"
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
				return usage_error("info", "--fit needs a path, e.g. /image.fit");
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
	in.fit.path = fit_path ? fit_path : "/image.fit";

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
	if (in.disk.tab.used_backup)
		in.problems++;
	info_collect_fs(&in);
	info_collect_fit(&in);
	info_collect_script(&in);
	info_collect_override(&in);
	info_collect_dts(&in);
	info_collect_fstab(&in);

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
	info_free(&in);
	cli_io_close(&io);
	free(fit_path);
	return rc;
}
