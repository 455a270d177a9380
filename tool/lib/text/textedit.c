// SPDX-License-Identifier: MIT
/*
 * Edits of the small text files on a boot partition: KEY=VALUE lines
 * (config.txt, uEnv.txt) and space-separated tokens (cmdline.txt).
 *
 * The text is never rebuilt: an edit copies every byte it does not change,
 * so comments, spacing, CRLF line ends and a missing final newline stay as
 * they were. New lines take the file's own line end (that of its first
 * line).
 *
 * config.txt sections: a line "[name]" starts a section that lasts until
 * the next one; lines before the first header belong to [all], as the Pi
 * firmware reads them. set_line looks for KEY in the whole file and
 * replaces its first active line where it stands, even inside another
 * section than the one asked for (e.g. under [pi4]): moving it would change
 * which boards see it. Only a new line goes into the section asked for.
 *
 * A section header imgpatch writes is closed with "[all]": the firmware
 * keeps a filter in force until [all], so a line someone appends to the
 * file later (by hand, raspi-config, another tool) would reach only the
 * boards of imgpatch's section otherwise. When the file itself ends under
 * a filter, "[all]" also comes before the new header: the header replaces
 * a model filter but would combine with one of another kind ([EDID=...],
 * [gpio4=1]) or stay silenced by [none].
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"

/* These files are a few KiB; the bound keeps a corrupt one cheap. */
#define TEXT_MAX (1024 * 1024)

/* One line: content [start, end), then its line end up to next. */
struct line {
	size_t start;
	size_t end;
	size_t next;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The line at pos; false at the end of the text. */
static bool line_at(const char *text, size_t len, size_t pos, struct line *l)
{
	const char *nl;

	if (pos >= len)
		return false;
	l->start = pos;
	nl = memchr(text + pos, '\n', len - pos);
	if (!nl) {
		l->end = l->next = len;
		return true;
	}
	l->next = (size_t)(nl - text) + 1;
	l->end = l->next - 1;
	if (l->end > pos && text[l->end - 1] == '\r')
		l->end--;
	return true;
}

/* The line end new lines get: the file's first one, "\n" when it has none. */
static const char *text_eol(const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len);

	return nl && nl > text && nl[-1] == '\r' ? "\r\n" : "\n";
}

static size_t skip_blanks(const char *text, size_t pos, size_t end)
{
	while (pos < end && is_blank(text[pos]))
		pos++;
	return pos;
}

static bool line_is_blank(const char *text, const struct line *l)
{
	return skip_blanks(text, l->start, l->end) == l->end;
}

/*
 * Whether the line is an active "KEY=..." line (leading blanks allowed,
 * '#' comments out); *vpos is then where the value starts.
 */
static bool line_has_key(const char *text, const struct line *l,
			 const char *key, size_t klen, size_t *vpos)
{
	size_t p = skip_blanks(text, l->start, l->end);

	if (l->end - p < klen + 1 || memcmp(text + p, key, klen) ||
	    text[p + klen] != '=')
		return false;
	*vpos = p + klen + 1;
	return true;
}

/* Whether the line is a section header "[name]"; the name in *name, *nlen. */
static bool line_section(const char *text, const struct line *l,
			 const char **name, size_t *nlen)
{
	size_t p = skip_blanks(text, l->start, l->end);
	const char *close;

	if (p == l->end || text[p] != '[')
		return false;
	close = memchr(text + p + 1, ']', l->end - p - 1);
	if (!close)
		return false;
	*name = text + p + 1;
	*nlen = (size_t)(close - *name);
	return true;
}


bool imgp_config_ends_unfiltered_(const char *text, size_t len)
{
	bool unfiltered = true;
	struct line l;

	for (size_t pos = 0; line_at(text, len, pos, &l); pos = l.next) {
		const char *name;
		size_t nlen, p = skip_blanks(text, l.start, l.end);

		if (line_section(text, &l, &name, &nlen))
			unfiltered = nlen == 3 && !memcmp(name, "all", 3);
		/* An included file may leave a filter in force. */
		else if (l.end - p > 8 && !memcmp(text + p, "include", 7) &&
			 is_blank(text[p + 7]))
			unfiltered = false;
	}
	return unfiltered;
}

/* A key, value or token must stay on one line. */
static int field_check(const char *s, const char *what, bool may_be_empty)
{
	if (!may_be_empty && !*s)
		return imgp_fail(EINVAL, "empty %s", what);
	if (strpbrk(s, "\r\n"))
		return imgp_fail(EINVAL, "%s '%s' holds a line break", what, s);
	return 0;
}

/* A key must be what a line starts with: no blank or '#' in front. */
static int key_check(const char *key)
{
	int rc = field_check(key, "key", false);

	if (!rc && (is_blank(*key) || *key == '#'))
		rc = imgp_fail(EINVAL, "key '%s' starts with a blank or '#'", key);
	return rc;
}

static void buf_clear(struct imgp_buf *out)
{
	out->len = 0;
	if (out->data)
		out->data[0] = '\0';
}

/* 1 when out differs from the input text, else 0. */
static int text_changed(const char *text, size_t len, const struct imgp_buf *out)
{
	return out->len != len || (len && memcmp(out->data, text, len));
}

static int text_nomem(struct imgp_buf *out)
{
	buf_clear(out);
	return imgp_fail(ENOMEM, "out of memory");
}

/*
 * What every edit starts with: out emptied, an empty text made "" (it may
 * come as NULL), and the text's size checked.
 */
static int text_begin(const char **text, size_t len, struct imgp_buf *out)
{
	buf_clear(out);
	if (!len)
		*text = "";
	if (len > TEXT_MAX)
		return imgp_fail(EFBIG, "text of %zu bytes is too large (at most %d)",
				 len, TEXT_MAX);
	return 0;
}

/*
 * Copies the text into out with its active KEY= lines edited: the first
 * gets value (is dropped when value is NULL), later ones are dropped. With
 * a section only the lines under its headers count ("all" also those above
 * the first header): config.txt's [pi3] and [pi4] may each hold the same
 * key for their own boards. Returns 1 when a line had the key, 0 when
 * none, or -ENOMEM (out emptied).
 */
static int key_lines_edit(const char *text, size_t len, const char *key,
			  const char *value, const char *section,
			  struct imgp_buf *out)
{
	size_t klen = strlen(key), pos, vpos;
	bool found = false, in_section = !section || !strcmp(section, "all");
	struct line l;
	int rc = 0;

	for (pos = 0; line_at(text, len, pos, &l); pos = l.next) {
		const char *name;
		size_t nlen;
		bool match;

		if (section && line_section(text, &l, &name, &nlen))
			in_section = nlen == strlen(section) &&
				     !memcmp(name, section, nlen);
		match = in_section && line_has_key(text, &l, key, klen, &vpos);
		if (!match) {
			rc = imgp_buf_append(out, text + l.start, l.next - l.start);
		} else if (!found && value) {
			rc = imgp_buf_append(out, text + l.start, vpos - l.start);
			if (!rc)
				rc = imgp_buf_append(out, value, strlen(value));
			if (!rc)
				rc = imgp_buf_append(out, text + l.end, l.next - l.end);
		}
		found = found || match;
		if (rc)
			return text_nomem(out);
	}
	return found;
}

/*
 * Where a new line of section goes, and whether a header must come first:
 * after the last non-blank line of the section's block when the file's last
 * header is that section (or, for "all", when there is no header at all),
 * else at the very end under a new header, one blank line below the text
 * unless its last line is blank already. Without a section: after the
 * file's last non-blank line, so that trailing blank lines stay trailing.
 */
static size_t insert_point(const char *text, size_t len, const char *section,
			   bool *need_header, bool *need_gap)
{
	const char *name = NULL;
	size_t nlen = 0, pos, point = 0;
	bool have_header = false, last_blank = true;
	struct line l;

	for (pos = 0; line_at(text, len, pos, &l); pos = l.next) {
		last_blank = line_is_blank(text, &l);
		if (line_section(text, &l, &name, &nlen)) {
			have_header = true;
			point = l.next;
		} else if (!last_blank) {
			point = l.next;
		}
	}
	*need_header = *need_gap = false;
	if (!section)
		return point;
	if (have_header ? nlen == strlen(section) && !memcmp(name, section, nlen)
			: !strcmp(section, "all"))
		return point;
	*need_header = true;
	*need_gap = !last_blank;
	return len;
}

int imgp_text_set_line_(const char *text, size_t len, const char *key,
		       const char *value, const char *section,
		       struct imgp_buf *out)
{
	size_t point;
	const char *eol;
	bool need_header, need_gap, reset, close;
	int rc;

	rc = text_begin(&text, len, out);
	if (!rc)
		rc = key_check(key);
	if (!rc)
		rc = field_check(value, "value", true);
	if (!rc && section) {
		rc = field_check(section, "section", false);
		if (!rc && strchr(section, ']'))
			rc = imgp_fail(EINVAL, "section '%s' holds a ']'", section);
	}
	if (rc)
		return rc;
	eol = text_eol(text, len);

	/* The first active line is rewritten in place, later ones dropped. */
	rc = key_lines_edit(text, len, key, value, section, out);
	if (rc < 0)
		return rc;
	if (rc)
		return text_changed(text, len, out);

	buf_clear(out);
	point = insert_point(text, len, section, &need_header, &need_gap);
	/* A new header goes at the very end: see the top of this file. */
	close = need_header && strcmp(section, "all") != 0;
	reset = close && !imgp_config_ends_unfiltered_(text, len);
	rc = imgp_buf_append(out, text, point);
	/* A last line without a line end gets one before anything follows it. */
	if (!rc && point && text[point - 1] != '\n')
		rc = imgp_buf_append(out, eol, strlen(eol));
	if (!rc && need_gap)
		rc = imgp_buf_append(out, eol, strlen(eol));
	if (!rc && reset)
		rc = imgp_buf_printf(out, "[all]%s", eol);
	if (!rc && need_header)
		rc = imgp_buf_printf(out, "[%s]%s", section, eol);
	if (!rc)
		rc = imgp_buf_printf(out, "%s=%s%s", key, value, eol);
	if (!rc && close)
		rc = imgp_buf_printf(out, "[all]%s", eol);
	if (!rc)
		rc = imgp_buf_append(out, text + point, len - point);
	if (rc)
		return text_nomem(out);
	return 1;
}

int imgp_text_remove_line_(const char *text, size_t len, const char *key,
			  struct imgp_buf *out)
{
	int rc;

	rc = text_begin(&text, len, out);
	if (!rc)
		rc = key_check(key);
	if (!rc)
		rc = key_lines_edit(text, len, key, NULL, NULL, out);
	return rc < 0 ? rc : text_changed(text, len, out);
}

int imgp_text_set_fields_(const char *text, size_t len, const char *key,
			 const char *value, struct imgp_buf *out)
{
	size_t klen = strlen(key), pos;
	struct line l;
	int rc;

	rc = text_begin(&text, len, out);
	if (!rc)
		rc = key_check(key);
	if (!rc && strpbrk(key, " \t"))
		rc = imgp_fail(EINVAL, "key '%s' holds a blank: it is one field", key);
	if (!rc)
		rc = field_check(value, "value", false);
	if (rc)
		return rc;
	for (pos = 0; !rc && line_at(text, len, pos, &l); pos = l.next) {
		size_t p = skip_blanks(text, l.start, l.end), q = p + klen, e, f;
		const char *hash;

		if (l.end - p < klen || memcmp(text + p, key, klen) ||
		    (q < l.end && !is_blank(text[q]) && text[q] != '#')) {
			rc = imgp_buf_append(out, text + l.start, l.next - l.start);
			continue;
		}
		/* The fields after the key, up to a comment; its blanks stay. */
		hash = memchr(text + q, '#', l.end - q);
		e = hash ? (size_t)(hash - text) : l.end;
		while (e > q && is_blank(text[e - 1]))
			e--;
		f = skip_blanks(text, q, e);
		rc = imgp_buf_append(out, text + l.start, f - l.start);
		if (!rc && f == q)
			rc = imgp_buf_append(out, "\t", 1);
		if (!rc)
			rc = imgp_buf_append(out, value, strlen(value));
		if (!rc)
			rc = imgp_buf_append(out, text + e, l.next - e);
	}
	if (rc)
		return text_nomem(out);
	return text_changed(text, len, out);
}

/*
 * The next token in [pos, end): a run of non-blanks, where blanks between
 * double quotes belong to the token (foo="a b"). False when none is left.
 */
static bool token_at(const char *text, size_t pos, size_t end, size_t *start,
		     size_t *stop)
{
	bool quoted = false;

	pos = skip_blanks(text, pos, end);
	if (pos == end)
		return false;
	*start = pos;
	while (pos < end && (quoted || !is_blank(text[pos]))) {
		if (text[pos] == '"')
			quoted = !quoted;
		pos++;
	}
	*stop = pos;
	return true;
}

/* The key of a token: what comes before its first '='. */
static size_t token_keylen(const char *tok, size_t len)
{
	const char *eq = memchr(tok, '=', len);

	return eq ? (size_t)(eq - tok) : len;
}

/*
 * Rewrites the first line of a token file: the first token with key
 * (klen bytes) becomes repl (or is dropped when repl is NULL), later ones
 * are dropped, and repl is appended when no token had the key. Dropping a
 * token drops the blanks before it (after it, for the first token), so the
 * separators of the tokens kept stay as they were.
 */
static int token_edit(const char *text, size_t len, const char *key,
		      size_t klen, const char *repl, struct imgp_buf *out)
{
	size_t pos, start, stop, lead_end, tail_start;
	bool found = false, emitted = false;
	struct line l;
	int rc = 0;

	if (!line_at(text, len, 0, &l))
		l.start = l.end = l.next = 0;
	lead_end = token_at(text, 0, l.end, &start, &stop) ? start : l.end;
	tail_start = lead_end;
	rc = imgp_buf_append(out, text, lead_end);
	for (pos = lead_end; !rc && token_at(text, pos, l.end, &start, &stop);
	     pos = stop) {
		const char *tok = text + start;
		size_t tlen = stop - start;
		bool match = token_keylen(tok, tlen) == klen &&
			     !memcmp(tok, key, klen);

		tail_start = stop;
		if (match && (found || !repl)) {
			found = true;
			continue;
		}
		if (emitted)
			rc = imgp_buf_append(out, text + pos, start - pos);
		if (!rc && match)
			rc = imgp_buf_append(out, repl, strlen(repl));
		else if (!rc)
			rc = imgp_buf_append(out, tok, tlen);
		found = found || match;
		emitted = true;
	}
	if (!rc && !found && repl) {
		if (emitted)
			rc = imgp_buf_append(out, " ", 1);
		if (!rc)
			rc = imgp_buf_append(out, repl, strlen(repl));
	}
	if (!rc)
		rc = imgp_buf_append(out, text + tail_start, len - tail_start);
	if (rc)
		return text_nomem(out);
	return text_changed(text, len, out);
}

int imgp_text_set_token_(const char *text, size_t len, const char *token,
			struct imgp_buf *out)
{
	size_t tlen = strlen(token), start, stop;
	int rc;

	rc = text_begin(&text, len, out);
	if (!rc)
		rc = field_check(token, "token", false);
	if (rc)
		return rc;
	if (!token_at(token, 0, tlen, &start, &stop) || start || stop != tlen)
		return imgp_fail(EINVAL,
				 "token '%s' is not one token (quote blanks inside it: key=\"a b\")",
				 token);
	if (token_keylen(token, tlen) == 0)
		return imgp_fail(EINVAL, "token '%s' has no key before '='", token);
	return token_edit(text, len, token, token_keylen(token, tlen), token, out);
}

int imgp_text_remove_token_(const char *text, size_t len, const char *key,
			   struct imgp_buf *out)
{
	int rc;

	rc = text_begin(&text, len, out);
	if (!rc)
		rc = field_check(key, "key", false);
	if (rc)
		return rc;
	if (strpbrk(key, " \t=\""))
		return imgp_fail(EINVAL,
				 "key '%s' holds a blank, '=' or '\"' (give the key alone, as in console)",
				 key);
	return token_edit(text, len, key, strlen(key), NULL, out);
}
