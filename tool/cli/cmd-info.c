// SPDX-License-Identifier: MIT
/*
 * imgpatch info: what an image holds, read-only. The library surveys the
 * image and writes what info shows of it (info/), as text or as one JSON
 * document; a damaged section is reported where it belongs and turns the
 * exit status into 1, but never stops the other sections.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { OPT_JSON = 256, OPT_FIT, OPT_MODEL };

static const struct cli_option info_options[] = {
	{ OPT_JSON, "json", 0, NULL, "print one JSON document (schema_version 1)" },
	{ OPT_MODEL, "model", 0, "MODEL", "show only the tree the boot path boots for MODEL\n"
	  "(a model, a tree's file name or path)" },
	{ OPT_FIT, "fit", 0, "PATH", "FIT file to look for (default " IMGP_FIT_PATH ")" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const info_tables[] = { info_options, NULL };

static const struct cli_command info_command = {
	"info",
	"Usage: imgpatch info [--json] [--fit PATH] [--model MODEL] IMAGE\n"
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
	struct imgp_survey_opts sopts = {
		.what = IMGP_SURVEY_BOOT | IMGP_SURVEY_TREES | IMGP_SURVEY_EFFECTIVE |
			IMGP_SURVEY_FSTAB,
	};
	struct imgp_info_opts iopts = { 0 };
	struct imgp_survey *sv;
	const char *path;
	char *fit_path = NULL;
	int c, rc, problems = 0;

	cli_parser_init(&p, &info_command, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		if (c == OPT_JSON) {
			iopts.json = true;
			continue;
		}
		if (c == OPT_MODEL) {
			iopts.model = p.value;
			continue;
		}
		cli_fit_path(&p, &fit_path);
	}
	rc = c == CLI_STOP ? p.exit : cli_arguments(&p, 1, 1, args);
	path = rc || c == CLI_STOP ? NULL : p.args[0];
	cli_parser_free(&p);
	if (rc || c == CLI_STOP) {
		free(fit_path);
		return rc;
	}
	sopts.fit_path = fit_path;

	rc = cli_read_open(&img, path);
	if (rc) {
		free(fit_path);
		return rc;
	}
	if (imgp_survey_new(&sv, img.disk, &sopts)) {
		rc = error_lib(path);
		cli_read_close(&img);
		free(fit_path);
		return rc;
	}
	iopts.name = path;
	rc = imgp_info_write(sv, &iopts, stdout, &problems);
	if (rc == -EIO)
		error("cannot write output: %s", strerror(EIO));
	else if (rc)
		/* --model: the tree as cat --dtb and doctor --model pick it. */
		rc = error_lib_typed(path, true);
	else if (problems)
		error("%s: %d problem%s found", path, problems, problems == 1 ? "" : "s");
	if (rc != EXIT_USAGE)
		rc = (rc || problems) ? EXIT_ERROR : EXIT_OK;
	imgp_survey_free(sv);
	cli_read_close(&img);
	free(fit_path);
	return rc;
}
