// SPDX-License-Identifier: MIT
/* Aligned text tables, and strings from an image printed safely. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "text/json.h"
#include "table.h"

size_t imgp_put_text_(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), cols = 0, i = 0;

	while (i < len) {
		size_t n = s[i] < 0x20 || s[i] == 0x7f ? 0 :
			   imgp_json_utf8_len_(s + i, len - i);

		if (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)
			n = 0;
		if (n == 0) {
			fputc('?', out);
			i++;
		} else {
			fwrite(s + i, 1, n, out);
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

void imgp_text_table_row_(struct imgp_text_table *t, const char *const cells[])
{
	char **grown;

	if (t->failed)
		return;
	grown = realloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(*grown));
	if (!grown) {
		t->failed = true;
		return;
	}
	t->cells = grown;
	for (size_t c = 0; c < t->ncols; c++) {
		char *cell = strdup(cells[c] ? cells[c] : "");

		if (!cell) {
			/* The row's cells so far go; the table prints without it. */
			while (c--)
				free(t->cells[t->nrows * t->ncols + c]);
			t->failed = true;
			return;
		}
		t->cells[t->nrows * t->ncols + c] = cell;
	}
	t->nrows++;
}

int imgp_text_table_print_(FILE *out, struct imgp_text_table *t, const char *indent)
{
	size_t width[IMGP_TEXT_TABLE_COLS] = { 0 };
	bool show[IMGP_TEXT_TABLE_COLS];
	int rc;

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
			fputs(sep, out);
			sep = "  ";
			if (t->right & 1u << c)
				fprintf(out, "%*s", (int)pad, "");
			imgp_put_text_(out, row[c]);
			if (!(t->right & 1u << c) && c + 1 < end)
				fprintf(out, "%*s", (int)pad, "");
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
	rc = t->failed ? -ENOMEM : 0;
	t->failed = false;
	return rc;
}
