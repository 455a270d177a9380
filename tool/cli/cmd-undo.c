// SPDX-License-Identifier: MIT
/*
 * imgpatch undo IMAGE: put back the bytes an in-place patch changed, from
 * its undo journal, and check every region against its recorded SHA-256.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static void undo_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch undo IMAGE [--undo FILE] [--force]\n"
		"Restore IMAGE as it was before the last in-place patch or apply, from its\n"
		"undo journal (default IMAGE.imgpatch-undo; for a device, DEVICE-NAME.imgpatch-undo\n"
		"in this folder). Also finishes the rollback of an interrupted run.\n\n"
		"  --undo FILE   the journal to use\n"
		"  --force       restore even regions that changed again since the patch\n"
		"  -h, --help    this help\n");
}

int cmd_undo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "undo", required_argument, NULL, 'u' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *undo = NULL, *image;
	struct imgp_image img;
	bool force = false;
	size_t regions;
	uint64_t bytes;
	char *journal;
	int c, lock, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 'u': undo = optarg; break;
		case 'f': force = true; break;
		case 'h': undo_usage(stdout); return EXIT_OK;
		default: return usage_error("undo", "bad option");
		}
	}
	if (argc - optind != 1)
		return usage_error("undo", "undo takes exactly one IMAGE");
	image = argv[optind];
	journal = cli_journal_path(image, undo);
	if (!journal)
		die("out of memory");
	lock = imgp_lock(image);
	if (lock < 0) {
		free(journal);
		return error_lib(image);
	}
	rc = imgp_image_open(&img, image, true);
	if (!rc) {
		rc = imgp_journal_undo(journal, &img, force, &regions, &bytes);
		imgp_image_close(&img);
	}
	if (rc) {
		rc = error_lib(image);
	} else {
		printf("restored %s: %zu region%s (%llu bytes) from %s, checked\n", image,
		       regions, regions == 1 ? "" : "s", (unsigned long long)bytes,
		       journal);
		rc = EXIT_OK;
	}
	imgp_unlock(lock);
	free(journal);
	return rc;
}
