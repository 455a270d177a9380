// SPDX-License-Identifier: MIT
/*
 * imgpatch doctor: every storage-performance finding the library knows
 * for an image (imgp_doctor_run, read-only), as text or as one JSON
 * document (tool/schema/doctor.schema.json). With --fail-on a CI job can
 * fail on a finding; without it the exit status only says whether the
 * image could be examined.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* --fail-on: a finding at or above the severity was found. */
#define EXIT_FINDINGS 3

/* ------------------------------------------------------------------- cmd */

enum { OPT_JSON = 256, OPT_FIT, OPT_FDT, OPT_FAIL_ON, OPT_MODEL };

static const struct cli_option doctor_options[] = {
	{ OPT_JSON, "json", 0, NULL, "print one JSON document (schema_version 1)" },
	{ OPT_FIT, "fit", 0, "PATH", "FIT file to look for (default " IMGP_FIT_PATH ")" },
	{ OPT_FDT, "fdt", 0, "NAME|INDEX", "examine only this fdt of the FIT" },
	{ OPT_MODEL, "model", 0, "MODEL", "examine only the tree the boot path boots for\n"
	  "MODEL (a model, a tree's file name or path)" },
	{ OPT_FAIL_ON, "fail-on", 0, "SEVERITY", "exit 3 when a finding of SEVERITY (warning or\n"
	  "info) or a worse one is found" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const doctor_tables[] = { doctor_options, NULL };

static const struct cli_command doctor_command = {
	"doctor",
	"Usage: imgpatch doctor IMAGE [--json] [--fit PATH] [--fdt NAME|INDEX]\n"
	"                       [--model MODEL] [--fail-on warning|info]\n"
	"List what keeps IMAGE's storage below what its hardware can do: SD/eMMC\n"
	"controller settings of the device trees the board boots, fstab options,\n"
	"swap, fstrim.timer, the boot script's override hook, kernel fixes and\n"
	"config.txt; each finding with its cost, evidence and fix. Read-only.\n\n",
	doctor_tables,
	"Exit status: 0 examined (with or without findings), 1 the image cannot be\n"
	"read, 2 usage error, 3 a finding at or above the --fail-on severity.\n",
};

int cmd_doctor(int argc, char **argv)
{
	static const char *const args[] = { "IMAGE" };
	struct imgp_doctor_opts dopts = { 0 };
	struct imgp_doctor_write_opts wopts = { 0 };
	enum imgp_severity fail_on = IMGP_SEVERITY_WARNING;
	struct imgp_doctor *doc = NULL;
	struct cli_parser p;
	struct cli_read img;
	bool fail = false;
	char *fit_path = NULL;
	int c = CLI_END, rc = 0;

	cli_parser_init(&p, &doctor_command, argc, argv);
	while (!rc && (c = cli_next(&p)) > 0) {
		switch (c) {
		case OPT_JSON:
			wopts.json = true;
			break;
		case OPT_FIT:
			cli_fit_path(&p, &fit_path);
			break;
		case OPT_FDT:
			dopts.fdt = p.value;
			break;
		case OPT_MODEL:
			dopts.model = p.value;
			break;
		case OPT_FAIL_ON:
			if (imgp_severity_parse(p.value, &fail_on))
				rc = cli_bad_value(&p, "warning or info");
			fail = true;
			break;
		}
	}
	if (!rc)
		rc = c == CLI_STOP ? p.exit : cli_arguments(&p, 1, 1, args);
	wopts.name = rc || c == CLI_STOP ? NULL : p.args[0];
	cli_parser_free(&p);
	if (rc || c == CLI_STOP) {
		free(fit_path);
		return rc;
	}
	dopts.fit_path = fit_path;

	rc = cli_read_open(&img, wopts.name);
	/* The fixes of a compressed image recompress it: --in-place. */
	wopts.compressed = !rc && imgp_job_format(img.job) != IMGP_FMT_RAW;
	if (!rc && imgp_doctor_run(img.disk, &dopts, &doc))
		rc = error_lib_typed(wopts.name, dopts.model != NULL);
	if (!rc) {
		int out = imgp_doctor_write(doc, &wopts, stdout);

		if (out == -EIO)
			error("cannot write output: %s", strerror(EIO));
		else if (out)
			error_lib(wopts.name);
		if (out)
			rc = EXIT_ERROR;
	}
	if (!rc && fail && imgp_doctor_found(doc, fail_on))
		rc = EXIT_FINDINGS;
	imgp_doctor_free(doc);
	cli_read_close(&img);
	free(fit_path);
	return rc;
}
