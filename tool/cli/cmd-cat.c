// SPDX-License-Identifier: MIT
/* imgpatch cat IMAGE PART:PATH: a file from inside a partition to stdout. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* cat streams whole files; the bound only stops a runaway read. */
#define CAT_MAX ((size_t)4 << 30)

static void cat_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch cat IMAGE PART:PATH\n"
		"Print a file from inside a partition of IMAGE to standard output.\n"
		"PART is a partition number (1-based), a GPT partition name or a\n"
		"filesystem label, e.g. 'writable:/etc/fstab' or '1:/boot.scr.uimg'.\n\n"
		"  -h, --help    this help\n");
}

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
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct imgp_part *part;
	struct imgp_disk disk;
	struct cli_io io;
	struct imgp_buf data = { 0 };
	struct imgp_fs fs;
	char *spec, *path, *colon;
	int c, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h')
			return cat_usage(stdout), EXIT_OK;
		return usage_error("cat", "unknown option");
	}
	if (argc - optind != 2)
		return usage_error("cat", "cat takes IMAGE and PART:PATH");
	spec = strdup(argv[optind + 1]);
	if (!spec)
		die("out of memory");
	colon = strchr(spec, ':');
	if (!colon || colon == spec || !colon[1]) {
		free(spec);
		return usage_error("cat", "'%s' is not PART:PATH", argv[optind + 1]);
	}
	*colon = '\0';
	path = colon + 1;

	/* A compressed or archived image is read from an unpacked copy. */
	cli_io_init(&io);
	io.image = argv[optind];
	io.dry_run = true;
	rc = cli_io_open(&io, "cat");
	if (!rc && imgp_disk_open(&disk, io.work, false))
		rc = error_lib(argv[optind]);
	if (rc) {
		cli_io_close(&io);
		free(spec);
		return rc;
	}
	part = imgp_table_find(&disk.tab, spec);
	rc = part ? imgp_fs_open(&fs, &disk.img, part, false) : -ENOENT;
	if (!rc) {
		rc = imgp_survey_read_file(&fs, path, CAT_MAX, &data);
		imgp_fs_close(&fs);
	}
	if (rc) {
		rc = error_lib(argv[optind]);
	} else if (write_all(STDOUT_FILENO, data.data, data.len) < 0) {
		error("standard output: %s", strerror(errno));
		rc = EXIT_ERROR;
	}
	imgp_buf_free(&data);
	imgp_disk_close(&disk);
	cli_io_close(&io);
	free(spec);
	return rc;
}
