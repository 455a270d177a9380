// SPDX-License-Identifier: MIT
/*
 * imgpatch undo IMAGE: put back the bytes an in-place patch changed, from
 * its undo journal, and check every region against its recorded SHA-256.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

enum { OPT_UNDO = 256 };

static const struct cli_option undo_options[] = {
	{ OPT_UNDO, "undo", 0, "FILE", "the journal to use" },
	{ 'f', "force", 'f', NULL, "restore even regions that changed again since the patch" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const undo_tables[] = { undo_options, NULL };

static const struct cli_command undo_command = {
	"undo",
	"Usage: imgpatch undo IMAGE [--undo FILE] [--force]\n"
	"Restore IMAGE as it was before the last in-place patch or apply, from its\n"
	"undo journal (default IMAGE.imgpatch-undo; for a device, DEVICE-NAME.imgpatch-undo\n"
	"in this folder). Also finishes the rollback of an interrupted run.\n\n",
	undo_tables,
	NULL,
};

int cmd_undo(int argc, char **argv)
{
	static const char *const args[] = { "IMAGE" };
	const char *undo = NULL, *image;
	struct cli_parser p;
	bool force = false;
	size_t regions;
	uint64_t bytes;
	char *journal;
	int c, rc;

	cli_parser_init(&p, &undo_command, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		if (c == OPT_UNDO)
			undo = p.value;
		else
			force = true;
	}
	rc = c == CLI_STOP ? p.exit : cli_arguments(&p, 1, 1, args);
	image = p.nargs ? p.args[0] : NULL;
	cli_parser_free(&p);
	if (rc || c == CLI_STOP)
		return rc;
	journal = cli_journal_path(image, undo);
	if (!journal)
		die("out of memory");
	rc = imgp_journal_undo(journal, image, force, &regions, &bytes);
	if (rc) {
		rc = error_lib(image);
	} else {
		printf("restored %s: %zu region%s (%llu bytes) from %s, checked\n", image,
		       regions, regions == 1 ? "" : "s", (unsigned long long)bytes,
		       journal);
		rc = EXIT_OK;
	}
	free(journal);
	return rc;
}
