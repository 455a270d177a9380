// SPDX-License-Identifier: MIT
/*
 * The scanner that runs before libconfuse: it rewrites what libconfuse
 * would misread and notes the lines of sections and keys.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recipe-internal.h"

/* --------------------------------------------------------- the scanner */

enum { T_WORD = 256 };

static int scan_add_key(struct scan *s, size_t sec, const char *key, int line)
{
	struct scan_key *grown = realloc(s->keys, (s->nkeys + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	s->keys = grown;
	grown[s->nkeys].sec = sec;
	snprintf(grown[s->nkeys].key, sizeof(grown[s->nkeys].key), "%s", key);
	grown[s->nkeys].line = line;
	s->nkeys++;
	return 0;
}

static int scan_open(struct scan *s)
{
	int rc = 0;

	if (s->depth == 0) {
		struct scan_sec *grown = realloc(s->secs,
						 (s->nsecs + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->secs = grown;
		snprintf(grown[s->nsecs].kind, sizeof(grown[s->nsecs].kind),
			 "%s", s->key);
		grown[s->nsecs].line = s->keyline;
		s->nsecs++;
		rc = scan_add_key(s, 0, s->key, s->keyline);
		s->cur = s->nsecs;
	}
	s->depth++;
	s->st = S_KEY;
	return rc;
}

static int scan_token(struct scan *s, int tok, const char *word, size_t wlen,
		      int line)
{
	switch (s->st) {
	case S_KEY:
		if (tok == T_WORD) {
			snprintf(s->key, sizeof(s->key), "%.*s", (int)wlen, word);
			s->keyline = line;
			s->st = S_AFTER_KEY;
		} else if (tok == '}' && s->depth > 0) {
			if (--s->depth == 0)
				s->cur = 0;
		}
		return 0;
	case S_AFTER_KEY:
		if (tok == '=' || tok == '+')
			s->st = S_VALUE;
		else if (tok == T_WORD)
			s->st = S_TITLE;
		else if (tok == '{')
			return scan_open(s);
		else
			s->st = tok == '(' ? S_FUNC : S_KEY;
		return 0;
	case S_TITLE:
		if (tok == '{')
			return scan_open(s);
		s->st = S_KEY;
		return 0;
	case S_VALUE:
		s->st = tok == '{' ? S_LIST : S_KEY;
		return scan_add_key(s, s->depth ? s->cur : 0, s->key, s->keyline);
	case S_LIST:
		if (tok == '}')
			s->st = S_KEY;
		return 0;
	case S_FUNC:
		if (tok == ')')
			s->st = S_KEY;
		return 0;
	}
	return 0;
}

int imgp_recipe_scan_text_(struct scan *s, const char *t, size_t len)
{
	struct imgp_buf *o = &s->out;
	int line = 1, rc = 0;
	size_t i = 0;

	while (!rc && i < len) {
		char c = t[i];

		if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
			line += c == '\n';
			rc = imgp_buf_append(o, &t[i++], 1);
		} else if (c == '#' || (c == '/' && i + 1 < len && t[i + 1] == '/')) {
			for (; i < len && t[i] != '\n'; i++)
				rc |= imgp_buf_append(o, " ", 1);
		} else if (c == '/' && i + 1 < len && t[i + 1] == '*') {
			int start = line;

			for (i += 2, rc = imgp_buf_append(o, "  ", 2);
			     i < len && !(t[i] == '*' && i + 1 < len && t[i + 1] == '/');
			     i++) {
				line += t[i] == '\n';
				rc |= imgp_buf_append(o, t[i] == '\n' ? "\n" : " ", 1);
			}
			if (i >= len)
				return imgp_fail(EINVAL, "%s:%d: unterminated comment",
						 s->path, start);
			rc |= imgp_buf_append(o, "  ", 2);
			i += 2;
		} else if (c == '"' || c == '\'') {
			size_t start = i++;
			int sline = line;

			rc = imgp_buf_append(o, &c, 1);
			while (!rc && i < len && t[i] != c) {
				if (t[i] == '\\' && i + 1 < len) {
					line += t[i + 1] == '\n';
					rc = imgp_buf_append(o, &t[i], 2);
					i += 2;
					continue;
				}
				if (c == '"' && t[i] == '$' && i + 1 < len &&
				    t[i + 1] == '{')
					rc = imgp_buf_append(o, "\\", 1);
				line += t[i] == '\n';
				rc |= imgp_buf_append(o, &t[i++], 1);
			}
			if (i >= len)
				return imgp_fail(EINVAL, "%s:%d: unterminated string",
						 s->path, sline);
			rc |= imgp_buf_append(o, &t[i++], 1);
			if (!rc)
				rc = scan_token(s, T_WORD, t + start + 1,
						i - start - 2, sline);
		} else if (strchr("{}=,()", c) || (c == '+' && i + 1 < len &&
						    t[i + 1] == '=')) {
			size_t n = c == '+' ? 2 : 1;

			rc = imgp_buf_append(o, &t[i], n);
			i += n;
			if (!rc)
				rc = scan_token(s, c, NULL, 0, line);
		} else {
			size_t start = i;

			for (; i < len && !strchr(" \t\r\n\"'{}=,()+#", t[i]); i++) {
				if (t[i] == '$' && i + 1 < len && t[i + 1] == '{')
					return imgp_fail(EINVAL, "%s:%d: '${' outside quotes: put the value in quotes (\"...\")",
							 s->path, line);
			}
			if (i == start) {
				/* A lone '+': libconfuse skips it too. */
				rc = imgp_buf_append(o, &t[i++], 1);
				continue;
			}
			rc = imgp_buf_append(o, t + start, i - start);
			if (!rc)
				rc = scan_token(s, T_WORD, t + start, i - start, line);
		}
	}
	/* libconfuse wants a final newline; fmemopen wants a non-empty buffer. */
	if (!rc)
		rc = imgp_buf_append(o, "\n", 1);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

void imgp_recipe_scan_free_(struct scan *s)
{
	imgp_buf_free(&s->out);
	free(s->secs);
	free(s->keys);
}

/* 1-based index into secs of the ordinal-th section of kind, or 0. */
size_t imgp_recipe_scan_sec_(const struct scan *s, const char *kind, size_t ordinal)
{
	for (size_t i = 0; i < s->nsecs; i++)
		if (!strcmp(s->secs[i].kind, kind) && ordinal-- == 0)
			return i + 1;
	return 0;
}

int imgp_recipe_sec_line_(const struct scan *s, size_t sec)
{
	return sec ? s->secs[sec - 1].line : 0;
}

bool imgp_recipe_has_key_(const struct scan *s, size_t sec, const char *key)
{
	for (size_t i = 0; i < s->nkeys; i++)
		if (s->keys[i].sec == sec && !strcmp(s->keys[i].key, key))
			return true;
	return false;
}

/* Line of the last key in section sec, or the section's own line. */
int imgp_recipe_key_line_(const struct scan *s, size_t sec, const char *key)
{
	int line = 0;

	for (size_t i = 0; i < s->nkeys; i++)
		if (s->keys[i].sec == sec && !strcmp(s->keys[i].key, key))
			line = s->keys[i].line;
	return line ? line : imgp_recipe_sec_line_(s, sec);
}
