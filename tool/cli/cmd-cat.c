// SPDX-License-Identifier: MIT
/*
 * imgpatch cat IMAGE PART:PATH: a file from inside a partition to stdout;
 * imgpatch cat IMAGE --dtb: the device tree the board really boots (its
 * boot path's tree with the overlays applied, IMGP_SURVEY_EFFECTIVE) as DTS;
 * imgpatch cat IMAGE --cmdline: the kernel command line its boot path keeps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* cat streams whole files; the bound only stops a runaway read. */
#define CAT_MAX ((size_t)4 << 30)

enum { OPT_DTB = 256, OPT_MODEL, OPT_FIT, OPT_CMDLINE };

static const struct cli_option cat_options[] = {
	{ OPT_DTB, "dtb", 0, NULL, "print the device tree the board boots, as DTS:\n"
	  "its boot path's tree with the overlays applied" },
	{ OPT_CMDLINE, "cmdline", 0, NULL, "print the kernel command line the boot path\n"
	  "hands over, after a comment line saying where it is\n"
	  "kept and what the loader adds itself" },
	{ OPT_MODEL, "model", 0, "MODEL", "with --dtb or --cmdline: the tree of this model\n"
	  "(or tree file, or FIT fdt) where the image boots several" },
	{ OPT_FIT, "fit", 0, "PATH", "with --dtb: FIT file to look for (default " IMGP_FIT_PATH ")" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const cat_tables[] = { cat_options, NULL };

static const struct cli_command cat_command = {
	"cat",
	"Usage: imgpatch cat IMAGE PART:PATH\n"
	"       imgpatch cat IMAGE --dtb [--model MODEL] [--fit PATH]\n"
	"       imgpatch cat IMAGE --cmdline [--model MODEL]\n"
	"Print a file from inside a partition of IMAGE to standard output.\n"
	"PART is a partition number (1-based), a GPT partition name or a\n"
	"filesystem label, e.g. 'writable:/etc/fstab' or '1:/boot.scr.uimg'.\n"
	"With --dtb, print the device tree the board really boots as DTS, after\n"
	"a comment line naming the boot path, the tree and the overlays applied.\n"
	"With --cmdline, print the kernel command line as the boot path keeps it.\n\n",
	cat_tables,
	NULL,
};

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The effective tree as DTS, after a comment that says where it comes from. */
static int cat_dtb(const char *image, const char *model, const char *fit_path)
{
	const struct imgp_survey_opts sopts = {
		.fit_path = fit_path,
		.what = IMGP_SURVEY_BOOT | IMGP_SURVEY_EFFECTIVE,
	};
	struct imgp_buf dts = { 0 }, why = { 0 };
	struct imgp_survey *sv;
	struct cli_read in;
	int rc;

	rc = cli_read_open(&in, image);
	if (rc)
		return rc;
	rc = imgp_survey_new(&sv, in.disk, &sopts);
	if (rc) {
		rc = error_lib(image);
		goto out_read;
	}
	rc = imgp_survey_dts(sv, model, &dts, &why);
	if (!rc && why.len)
		warning("%s: %s", image, (const char *)why.data);
	if (rc) {
		rc = error_lib_typed(image, model != NULL);
	} else if (write_all(STDOUT_FILENO, dts.data, dts.len) < 0) {
		error("standard output: %s", strerror(errno));
		rc = EXIT_ERROR;
	}
	imgp_buf_free(&why);
	imgp_buf_free(&dts);
	imgp_survey_free(sv);
out_read:
	cli_read_close(&in);
	return rc;
}

/* The command line as the boot path keeps it, after "# where; what the loader adds". */
static int cat_cmdline(const char *image, const char *model)
{
	const struct imgp_survey_opts sopts = { .what = IMGP_SURVEY_BOOT };
	struct imgp_buf line = { 0 }, where = { 0 }, loader = { 0 }, out = { 0 };
	struct imgp_survey *sv;
	struct cli_read in;
	int rc;

	rc = cli_read_open(&in, image);
	if (rc)
		return rc;
	rc = imgp_survey_new(&sv, in.disk, &sopts);
	if (rc) {
		rc = error_lib(image);
		cli_read_close(&in);
		return rc;
	}
	rc = imgp_survey_cmdline(sv, model, &line, &where, &loader);
	if (!rc)
		rc = imgp_buf_printf(&out, "# %s%s%s\n%s\n", (char *)where.data,
				     loader.len ? "; " : "", loader.len ? (char *)loader.data : "",
				     (char *)line.data);
	if (rc) {
		rc = error_lib(image);
	} else if (write_all(STDOUT_FILENO, out.data, out.len) < 0) {
		error("standard output: %s", strerror(errno));
		rc = EXIT_ERROR;
	}
	imgp_buf_free(&out);
	imgp_buf_free(&loader);
	imgp_buf_free(&where);
	imgp_buf_free(&line);
	imgp_survey_free(sv);
	cli_read_close(&in);
	return rc;
}

int cmd_cat(int argc, char **argv)
{
	static const char *const args[] = { "IMAGE", "PART:PATH" };
	struct imgp_buf data = { 0 };
	struct cli_parser p;
	struct cli_read in;
	const char *image = NULL, *spec_arg = NULL, *model = NULL;
	char *spec = NULL, *path, *colon, *fit_path = NULL;
	bool dtb = false, cmdline = false;
	int c = CLI_END, rc = 0;

	cli_parser_init(&p, &cat_command, argc, argv);
	while (!rc && (c = cli_next(&p)) > 0) {
		switch (c) {
		case OPT_DTB:
			dtb = true;
			break;
		case OPT_CMDLINE:
			cmdline = true;
			break;
		case OPT_MODEL:
			model = p.value;
			break;
		case OPT_FIT:
			cli_fit_path(&p, &fit_path);
			break;
		}
	}
	if (!rc && c != CLI_STOP && dtb && cmdline)
		rc = usage_error("cat", "--dtb and --cmdline: one at a time");
	if (!rc)
		rc = c == CLI_STOP ? p.exit : cli_arguments(&p, dtb || cmdline ? 1 : 2,
							    dtb || cmdline ? 1 : 2, args);
	if (!rc && c != CLI_STOP && !dtb && !cmdline && model)
		rc = usage_error("cat", "--model needs --dtb or --cmdline");
	if (!rc && c != CLI_STOP && !dtb && fit_path)
		rc = usage_error("cat", "--fit needs --dtb");
	if (!rc && c != CLI_STOP) {
		image = p.args[0];
		spec_arg = dtb || cmdline ? NULL : p.args[1];
	}
	cli_parser_free(&p);
	if (rc || c == CLI_STOP) {
		free(fit_path);
		return rc;
	}
	if (dtb) {
		rc = cat_dtb(image, model, fit_path);
		free(fit_path);
		return rc;
	}
	if (cmdline)
		return cat_cmdline(image, model);
	spec = strdup(spec_arg);
	if (!spec)
		die("out of memory");
	colon = strchr(spec, ':');
	if (!colon || colon == spec || !colon[1]) {
		free(spec);
		return usage_error("cat", "'%s' is not PART:PATH", spec_arg);
	}
	*colon = '\0';
	path = colon + 1;

	rc = cli_read_open(&in, image);
	if (rc) {
		free(spec);
		return rc;
	}
	rc = imgp_disk_read_file(in.disk, spec, path, CAT_MAX, &data);
	if (rc) {
		rc = error_lib_typed(image, model != NULL);
	} else if (write_all(STDOUT_FILENO, data.data, data.len) < 0) {
		error("standard output: %s", strerror(errno));
		rc = EXIT_ERROR;
	}
	imgp_buf_free(&data);
	cli_read_close(&in);
	free(spec);
	return rc;
}
