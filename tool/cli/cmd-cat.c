// SPDX-License-Identifier: MIT
/* imgpatch cat IMAGE PART:PATH: a file from inside a partition to stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* cat streams whole files; the bound only stops a runaway read. */
#define CAT_MAX ((size_t)4 << 30)

static const struct cli_command cat_command = {
	"cat",
	"Usage: imgpatch cat IMAGE PART:PATH\n"
	"Print a file from inside a partition of IMAGE to standard output.\n"
	"PART is a partition number (1-based), a GPT partition name or a\n"
	"filesystem label, e.g. 'writable:/etc/fstab' or '1:/boot.scr.uimg'.\n\n",
	NULL,
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

int cmd_cat(int argc, char **argv)
{
	static const char *const args[] = { "IMAGE", "PART:PATH" };
	const struct imgp_part *part;
	struct imgp_buf data = { 0 };
	struct cli_parser p;
	struct cli_read in;
	struct imgp_fs fs;
	const char *image = NULL, *spec_arg = NULL;
	char *spec = NULL, *path, *colon;
	int c, rc;

	cli_parser_init(&p, &cat_command, argc, argv);
	c = cli_next(&p);      /* cat has no options but --help */
	rc = c == CLI_STOP ? p.exit : cli_arguments(&p, 2, 2, args);
	if (!rc && c != CLI_STOP) {
		image = p.args[0];
		spec_arg = p.args[1];
	}
	cli_parser_free(&p);
	if (rc || c == CLI_STOP)
		return rc;
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
	part = imgp_table_find(&in.disk.tab, spec);
	rc = part ? imgp_fs_open(&fs, &in.disk.img, part) : -ENOENT;
	if (!rc) {
		rc = imgp_survey_read_file(&fs, path, CAT_MAX, &data);
		imgp_fs_close(&fs);
	}
	if (rc) {
		rc = error_lib(image);
	} else if (write_all(STDOUT_FILENO, data.data, data.len) < 0) {
		error("standard output: %s", strerror(errno));
		rc = EXIT_ERROR;
	}
	imgp_buf_free(&data);
	cli_read_close(&in);
	free(spec);
	return rc;
}
