// SPDX-License-Identifier: MIT
/*
 * The lines and words of a list file, as the list syntaxes read them (the
 * boot paths' in boot/bootlist.c, the generic ones in patch/patch-list.c):
 * a line without its ending, its words, and text spliced in.
 */
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"

bool imgp_text_next_line_(const char *text, size_t len, const char **cursor,
			 struct imgp_text_line *l)
{
	const char *end = text + len, *nl;

	if (*cursor >= end)
		return false;
	l->start = *cursor;
	nl = memchr(l->start, '\n', (size_t)(end - l->start));
	l->end = nl ? nl : end;
	l->next = nl ? nl + 1 : end;
	/* CRLF files keep their CR: it is part of the line ending. */
	if (l->end > l->start && l->end[-1] == '\r')
		l->end--;
	*cursor = l->next;
	return true;
}

const char *imgp_text_skip_blanks_(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

bool imgp_text_has_word_(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	for (;;) {
		const char *w;

		p = imgp_text_skip_blanks_(p, end);
		if (p >= end)
			return false;
		w = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if ((size_t)(p - w) == n && memcmp(w, word, n) == 0)
			return true;
	}
}

const char *imgp_text_content_end_(const struct imgp_text_line *l, bool comments)
{
	const char *e = l->end;

	if (comments) {
		const char *hash = memchr(l->start, '#', (size_t)(l->end - l->start));

		if (hash)
			e = hash;
	}
	while (e > l->start && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e;
}

int imgp_text_splice_(const char *text, size_t len, const char *pos, const char *ins,
		     struct imgp_buf *out)
{
	size_t head = (size_t)(pos - text);
	int rc = imgp_buf_append(out, text, head);

	if (!rc)
		rc = imgp_buf_append(out, ins, strlen(ins));
	if (!rc)
		rc = imgp_buf_append(out, text + head, len - head);
	return rc;
}

int imgp_text_append_line_(const char *text, size_t len, const char *tail,
			  struct imgp_buf *out)
{
	int rc = imgp_buf_append(out, text, len);

	if (!rc && len && text[len - 1] != '\n')
		rc = imgp_buf_append(out, "\n", 1);
	if (!rc)
		rc = imgp_buf_append(out, tail, strlen(tail));
	return rc;
}
