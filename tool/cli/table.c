// SPDX-License-Identifier: MIT
/* Aligned text tables, and strings from an image printed safely. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "table.h"

size_t table_put_text(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), cols = 0, i = 0;

	while (i < len) {
		size_t n = s[i] < 0x20 || s[i] == 0x7f ? 0 :
			   json_utf8_len(s + i, len - i);

		if (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)
			n = 0;
		if (n == 0) {
			putchar('?');
			i++;
		} else {
			fwrite(s + i, 1, n, stdout);
			i += n;
		}
		cols++;
	}
	return cols;
}

static size_t text_width(const char *str)
{
	size_t cols = 0;

	for (const unsigned char *s = (const unsigned char *)str; *s; s++)
		cols += (*s & 0xc0) != 0x80;
	return cols;
}

void table_row(struct table *t, const char *const cells[])
{
	char **grown = realloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(*grown));

	if (!grown)
		die("out of memory");
	t->cells = grown;
	for (size_t c = 0; c < t->ncols; c++) {
		char *cell = strdup(cells[c] ? cells[c] : "");

		if (!cell)
			die("out of memory");
		t->cells[t->nrows * t->ncols + c] = cell;
	}
	t->nrows++;
}

void table_print(struct table *t, const char *indent)
{
	size_t width[TABLE_COLS] = { 0 };
	bool show[TABLE_COLS];

	for (size_t c = 0; c < t->ncols; c++) {
		show[c] = !(t->optional & 1u << c);
		width[c] = text_width(t->head[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			const char *cell = t->cells[r * t->ncols + c];
			size_t w = text_width(cell);

			if (w > width[c])
				width[c] = w;
			if (*cell)
				show[c] = true;
		}
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		const char *const *row = r ? (const char *const *)t->cells +
					     (r - 1) * t->ncols : t->head;
		const char *sep = indent;
		size_t end = 0;

		/* Empty cells at the end of a row leave no trailing blanks. */
		for (size_t c = 0; c < t->ncols; c++)
			if (show[c] && *row[c])
				end = c + 1;
		for (size_t c = 0; c < end; c++) {
			size_t pad = width[c] - text_width(row[c]);

			if (!show[c])
				continue;
			fputs(sep, stdout);
			sep = "  ";
			if (t->right & 1u << c)
				printf("%*s", (int)pad, "");
			table_put_text(row[c]);
			if (!(t->right & 1u << c) && c + 1 < end)
				printf("%*s", (int)pad, "");
		}
		putchar('\n');
	}
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
}
