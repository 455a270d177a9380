/* SPDX-License-Identifier: MIT */
/* imgpatch write: one card's work (write-card.c), run in a child of cmd-write.c. */
#ifndef IMGP_CLI_WRITE_H
#define IMGP_CLI_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "imgpatch.h"

struct cli_each;
struct cli_custom_args;

/* What a card is written from. */
struct write_card {
	const char *target;            /* as the user named it */
	const char *path;              /* the file written when the run made the
					* target (a temporary name beside it), or NULL */
	const char *image;             /* the raw image, shared by every card */
	uint64_t size;
	struct imgp_recipe **recipes;  /* loaded; bound again for this card */
	size_t nrecipes;
	const struct cli_each *each;   /* --each, or NULL */
	const char *const *sets;       /* --set NAME=VALUE */
	size_t nsets;
	bool dry_run;                  /* plan only: patch the copy, map it, write nothing */
	const struct cli_custom_args *custom; /* customize's options for every card */
	bool customized;               /* the card gets customize settings */
};

struct card_result {
	bool done;                     /* the child got as far as reporting */
	bool failed;
	bool has_offset;               /* offset is where the card failed */
	uint64_t offset;
	uint64_t mapped, written;
	double seconds;
	char error[512];
	/* customize's facts of this card: "KEY<TAB>VALUE" lines (host keys, machine-id) */
	char facts[1024];
};

enum { CARD_MSG_PROGRESS = 1, CARD_MSG_RESULT };

/* What a child sends its parent through a pipe: fixed size, one write each. */
struct card_msg {
	int kind;
	uint64_t done, total;
	struct card_result result;
};

/*
 * Patches a private copy of the image (when there are recipes or customize
 * settings), writes its
 * mapped blocks to the target, syncs, reads them back past the page cache
 * and compares; a dry run stops after mapping. Sends progress and one
 * result to fd. Returns the exit status of the child.
 */
int write_card_run(const struct write_card *card, int fd);

#endif
