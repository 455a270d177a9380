/* SPDX-License-Identifier: MIT */
/* Aligned text tables for info's text output, and strings from an image written safely. */
#ifndef IMGP_INFO_TABLE_H
#define IMGP_INFO_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Writes a string from the image to out with control characters (C0, DEL,
 * C1) and invalid UTF-8 shown as '?', so a crafted name cannot drive the
 * terminal. Returns the number of characters written.
 */
size_t imgp_put_text_(FILE *out, const char *str);

#define IMGP_TEXT_TABLE_COLS 10

/*
 * An aligned table. Columns in `right` are right-aligned; columns in
 * `optional` are left out when every cell in them is empty.
 */
struct imgp_text_table {
	size_t ncols;
	const char *head[IMGP_TEXT_TABLE_COLS];
	unsigned right, optional;
	size_t nrows;
	char **cells;            /* nrows * ncols, owned */
	bool failed;             /* a row was left out: out of memory */
};

/* Adds a row of t->ncols cells (copied; NULL is an empty cell). */
void imgp_text_table_row_(struct imgp_text_table *t, const char *const cells[]);
/*
 * Writes the heading and the rows, each line after indent, and empties t.
 * Returns 0, or -ENOMEM when a row was left out.
 */
int imgp_text_table_print_(FILE *out, struct imgp_text_table *t, const char *indent);

#endif
