/* SPDX-License-Identifier: MIT */
/* Aligned text tables for a command's human output, and safe text printing. */
#ifndef IMGP_TABLE_H
#define IMGP_TABLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Prints a string from the image with control characters (C0, DEL, C1) and
 * invalid UTF-8 shown as '?', so a crafted name cannot drive the terminal.
 * Returns the number of characters printed.
 */
size_t table_put_text(const char *str);

#define TABLE_COLS 10

/*
 * An aligned table. Columns in `right` are right-aligned; columns in
 * `optional` are left out when every cell in them is empty.
 */
struct table {
	size_t ncols;
	const char *head[TABLE_COLS];
	unsigned right, optional;
	size_t nrows;
	char **cells;            /* nrows * ncols, owned */
};

/* Adds a row of t->ncols cells (copied; NULL is an empty cell). */
void table_row(struct table *t, const char *const cells[]);
/* Prints the heading and the rows, each line after indent, and empties t. */
void table_print(struct table *t, const char *indent);

#endif
