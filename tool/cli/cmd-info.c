// SPDX-License-Identifier: MIT
/*
 * imgpatch info: what an image holds, read-only. Every fact is collected
 * first and printed afterwards, as text or as one JSON document, so both
 * outputs always say the same. A damaged section (bad FIT hash, corrupt boot
 * script, dirty ext4) is reported where it belongs and turns the exit status
 * into 1, but never stops the other sections.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

enum { OPT_JSON = 256, OPT_FIT };

static const struct cli_option info_options[] = {
	{ OPT_JSON, "json", 0, NULL, "print one JSON document (schema_version 1)" },
	{ OPT_FIT, "fit", 0, "PATH", "FIT file to look for (default /image.fit)" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const info_tables[] = { info_options, NULL };

static const struct cli_command info_command = {
	"info",
	"Usage: imgpatch info [--json] [--fit PATH] IMAGE\n"
	"Show an image's partitions, its FIT, boot script, SD/eMMC controller\n"
	"settings and the root fstab entry. Read-only.\n\n",
	info_tables,
	"Exit status: 0 all fine, 1 a problem was found (reported in its\n"
	"section) or the image cannot be read, 2 usage error.\n",
};

int cmd_info(int argc, char **argv)
{
	static const char *const args[] = { "IMAGE" };
	struct cli_parser p;
	struct cli_read img;
	struct info in = { 0 };
	char *fit_path = NULL;
	bool json = false;
	int c, rc;

	cli_parser_init(&p, &info_command, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		if (c == OPT_JSON) {
			json = true;
			continue;
		}
		free(fit_path);
		if (asprintf(&fit_path, "%s%s", *p.value == '/' ? "" : "/",
			     p.value) < 0)
			die("out of memory");
	}
	rc = c == CLI_STOP ? p.exit : cli_arguments(&p, 1, 1, args);
	in.path = rc || c == CLI_STOP ? NULL : p.args[0];
	cli_parser_free(&p);
	if (rc || c == CLI_STOP) {
		free(fit_path);
		return rc;
	}
	in.fit.path = fit_path ? fit_path : "/image.fit";

	rc = cli_read_open(&img, in.path);
	if (rc) {
		free(fit_path);
		return rc;
	}
	/* The collectors own the disk from here: info_free() closes it. */
	in.disk = img.disk;
	img.disk_open = false;
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
	cli_read_close(&img);
	free(fit_path);
	return rc;
}
