// SPDX-License-Identifier: MIT
/*
 * Edits of a kernel command line, its words split as the kernel splits
 * them (next_arg() in lib/cmdline.c, Linux 6.1): blanks separate words
 * except between double quotes, a '"' anywhere in a word opens or closes
 * a quoted part, and a word's parameter name is what comes before its
 * first '=' (after a leading '"'). The word "--" ends the kernel's
 * parameters: what follows it goes to init, so no edit looks past it and
 * a new word goes before it.
 *
 * The line is never rebuilt: an edit copies every byte it does not
 * change, so the owner's spacing stays. A dropped word takes the blanks
 * before it along (after it, for the first word).
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"

/* A word of the line: [start, stop), its name [start + q, start + q + nlen). */
struct word {
	size_t start, stop, name, nlen;
};

/*
 * The word at or after pos in [0, len): false when only blanks are left.
 * The kernel takes isspace() as the separator, so this does too.
 */
static bool next_word(const char *s, size_t len, size_t pos, struct word *w)
{
	bool quoted = false;
	size_t eq = 0;

	while (pos < len && isspace((unsigned char)s[pos]))
		pos++;
	if (pos >= len)
		return false;
	w->start = pos;
	w->name = pos + (s[pos] == '"');
	quoted = w->name > w->start;
	for (pos = w->name; pos < len; pos++) {
		if (!quoted && isspace((unsigned char)s[pos]))
			break;
		/* next_arg: the first '=' past the name's first byte. */
		if (!eq && pos > w->name && s[pos] == '=')
			eq = pos;
		if (s[pos] == '"')
			quoted = !quoted;
	}
	w->stop = pos;
	w->nlen = (eq ? eq : pos) - w->name;
	/* A quoted word without '=': its closing quote is not part of the name. */
	if (!eq && w->name > w->start && w->nlen && s[pos - 1] == '"')
		w->nlen--;
	return true;
}

static bool is_end_of_params(const char *s, const struct word *w)
{
	return w->stop - w->start == 2 && s[w->start] == '-' && s[w->start + 1] == '-';
}

/*
 * Whether arg (after its sign) is one word the kernel reads as such: no
 * blank outside quotes, quotes closed, printable, not "--"; a removal
 * names a parameter or a whole word.
 */
static int check_word(const char *edit, const char *arg, size_t len)
{
	struct word w;
	size_t quotes = 0;

	for (size_t i = 0; i < len; i++) {
		if (!isprint((unsigned char)arg[i]) && arg[i] != '\t')
			return imgp_fail(EINVAL, "'%s': control characters cannot be on a command line",
					 edit);
		quotes += arg[i] == '"';
	}
	if (!len || !next_word(arg, len, 0, &w) || w.start != 0 || w.stop != len ||
	    !w.nlen)
		return imgp_fail(EINVAL, "'%s': not one word of a kernel command line (blanks outside quotes, or empty)",
				 edit);
	if (quotes % 2)
		return imgp_fail(EINVAL, "'%s': a double quote is not closed", edit);
	if (is_end_of_params(arg, &w))
		return imgp_fail(EINVAL, "'%s': \"--\" ends the kernel's parameters; it is no edit",
				 edit);
	return 0;
}

/* The next edit of the list at *p: [*p, end); a ',' before '+' or '-' ends it. */
static size_t edit_len(const char *p)
{
	bool quoted = false;
	size_t i;

	for (i = 0; p[i]; i++) {
		if (p[i] == '"')
			quoted = !quoted;
		if (!quoted && p[i] == ',' && (p[i + 1] == '+' || p[i + 1] == '-'))
			break;
	}
	return i;
}

/*
 * One edit, parsed: its sign, whether it adds one more word of a name
 * ("++"), the word and the name of the word a new word goes before.
 */
struct edit {
	char sign;
	bool more;
	const char *arg, *before;
	size_t alen, blen;
};

#define BEFORE " before "

/* Parses and checks one edit, [edit, edit + n), into e. 0 or -EINVAL. */
static int parse_edit(const char *edit, size_t n, struct edit *e)
{
	const char *usage = "an edit is +WORD, +KEY=VALUE, ++WORD, -WORD or -KEY, an added word optionally followed by ' before KEY'";
	char shown[512];
	bool quoted = false;
	size_t blank, skip;

	snprintf(shown, sizeof(shown), "%.*s", (int)n, edit);
	memset(e, 0, sizeof(*e));
	if (n == 0 || (edit[0] != '+' && edit[0] != '-'))
		return imgp_fail(EINVAL, "'%s': %s", shown, usage);
	e->sign = edit[0];
	e->more = n > 1 && edit[0] == '+' && edit[1] == '+';
	skip = e->more ? 2 : 1;
	e->arg = edit + skip;
	/* A word has no blank outside quotes: one there starts " before KEY". */
	for (blank = skip; blank < n; blank++) {
		if (edit[blank] == '"')
			quoted = !quoted;
		if (!quoted && (edit[blank] == ' ' || edit[blank] == '\t'))
			break;
	}
	e->alen = blank - skip;
	if (blank < n) {
		size_t k = blank + strlen(BEFORE);

		if (e->sign != '+' || n <= k || strncmp(edit + blank, BEFORE, strlen(BEFORE)))
			return imgp_fail(EINVAL, "'%s': %s", shown, usage);
		e->before = edit + k;
		e->blen = n - k;
		for (size_t i = 0; i < e->blen; i++)
			if (!isgraph((unsigned char)e->before[i]) || e->before[i] == '=' ||
			    e->before[i] == '"')
				return imgp_fail(EINVAL, "'%s': 'before' names a parameter: no blank, '=' or '\"' in it",
						 shown);
	}
	return check_word(shown, e->arg, e->alen);
}

int imgp_cmdline_check(const char *edits)
{
	const char *p = edits;
	int rc = 0;

	if (!*p)
		return imgp_fail(EINVAL, "no edit given (+WORD, +KEY=VALUE, ++WORD, -WORD or -KEY)");
	while (!rc && *p) {
		size_t n = edit_len(p);
		struct edit e;

		rc = parse_edit(p, n, &e);
		p += n + (p[n] == ',');
	}
	return rc;
}

/* The first word before "--" named [name, name + nlen): true with it in *w. */
static bool find_named(const char *s, size_t len, const char *name, size_t nlen,
		       struct word *w)
{
	for (size_t pos = 0; next_word(s, len, pos, w) && !is_end_of_params(s, w);
	     pos = w->stop)
		if (w->nlen == nlen && !memcmp(s + w->name, name, nlen))
			return true;
	return false;
}

/*
 * One edit e of s into out (emptied first): '+' sets its word (the first
 * word of its name takes it, later ones go, appended when none), "++" adds
 * its word unless that very word is there, '-' drops every word of its
 * name (arg without '=') or every word equal to it (with '='). A new word
 * goes before the first word named e->before when there is one. Returns 0
 * or -ENOMEM.
 */
static int edit_one(const char *s, size_t len, const struct edit *e, struct imgp_buf *out)
{
	const char *arg = e->arg;
	size_t alen = e->alen;
	char sign = e->sign;
	struct word a, w, b;
	size_t pos = 0, copied = 0;
	bool found = false, emitted = false, exact, valued;
	int rc = 0;

	next_word(arg, alen, 0, &a);
	/* With '=' in it: "-KEY=VALUE" names one word, "+KEY=VALUE" sets a value. */
	valued = memchr(arg, '=', alen) != NULL;
	/* "++WORD": only that very word counts; others of its name stay. */
	exact = (sign == '-' && valued) || e->more;
	out->len = 0;
	while (!rc && next_word(s, len, pos, &w) && !is_end_of_params(s, &w)) {
		bool match = exact ? w.stop - w.start == alen && !memcmp(s + w.start, arg, alen)
				   : w.nlen == a.nlen && !memcmp(s + w.name, arg + a.name, a.nlen);

		pos = w.stop;
		/* "+WORD": any word of that name will do, as it stands. */
		if (match && sign == '+' && (!valued || e->more)) {
			out->len = 0;
			return imgp_buf_append(out, s, len) ? -ENOMEM : 0;
		}
		if (match && (found || sign == '-')) {
			found = true;
			if (emitted) {
				copied = w.stop;        /* the blanks before it go */
				continue;
			}
			/* The first word: the line's leading blanks stay, those after it go. */
			rc = imgp_buf_append(out, s + copied, w.start - copied);
			for (copied = w.stop; copied < len && isspace((unsigned char)s[copied]);)
				copied++;
			continue;
		}
		rc = imgp_buf_append(out, s + copied, w.start - copied);
		if (!rc)
			rc = match ? imgp_buf_append(out, arg, alen)
				   : imgp_buf_append(out, s + w.start, w.stop - w.start);
		copied = w.stop;
		found |= match;
		emitted = true;
	}
	/*
	 * A new word before a named one, as raspi-config's sed puts
	 * console= before root=: nothing was dropped, so s is rebuilt.
	 */
	if (!rc && !found && sign == '+' && e->before &&
	    find_named(s, len, e->before, e->blen, &b)) {
		out->len = 0;
		rc = imgp_buf_append(out, s, b.start) || imgp_buf_append(out, arg, alen) ||
		     imgp_buf_append(out, " ", 1) ||
		     imgp_buf_append(out, s + b.start, len - b.start);
		return rc ? -ENOMEM : 0;
	}
	if (!rc && !found && sign == '+') {
		bool more = false;

		/* After the last word; with none, after the leading blanks ("--" after it). */
		if (!emitted) {
			size_t lead = copied;

			while (lead < len && isspace((unsigned char)s[lead]))
				lead++;
			rc = imgp_buf_append(out, s + copied, lead - copied);
			copied = lead;
			more = copied < len;
		}
		if (!rc && emitted)
			rc = imgp_buf_append(out, " ", 1);
		if (!rc)
			rc = imgp_buf_append(out, arg, alen);
		if (!rc && !emitted && more)
			rc = imgp_buf_append(out, " ", 1);
	}
	if (!rc)
		rc = imgp_buf_append(out, s + copied, len - copied);
	return rc ? -ENOMEM : 0;
}

int imgp_cmdline_edit_(const char *line, size_t len, const char *edits,
		      struct imgp_buf *out)
{
	struct imgp_buf cur = { 0 };
	const char *p = edits;
	int rc = imgp_cmdline_check(edits);

	out->len = 0;
	if (!rc)
		rc = imgp_buf_append(out, line, len) ? -ENOMEM : 0;
	while (!rc && *p) {
		size_t n = edit_len(p);
		struct edit e;

		cur.len = 0;
		rc = parse_edit(p, n, &e);
		if (!rc)
			rc = imgp_buf_append(&cur, out->data, out->len) ? -ENOMEM : 0;
		if (!rc)
			rc = edit_one(cur.len ? (const char *)cur.data : "", cur.len, &e, out);
		p += n + (p[n] == ',');
	}
	imgp_buf_free(&cur);
	if (rc == -ENOMEM)
		return imgp_fail(ENOMEM, "out of memory");
	if (rc)
		return rc;
	/* A NUL after the line, not counted: callers print it. */
	if (imgp_buf_append(out, "", 1))
		return imgp_fail(ENOMEM, "out of memory");
	out->len--;
	return out->len != len || memcmp(out->data, line, len) != 0;
}

int imgp_cmdline_get_(const char *line, size_t len, const char *key,
		     struct imgp_buf *value)
{
	size_t klen = strlen(key);
	struct word w;

	for (size_t pos = 0; next_word(line, len, pos, &w) && !is_end_of_params(line, &w);
	     pos = w.stop) {
		size_t eq = w.name + w.nlen;

		if (w.nlen != klen || memcmp(line + w.name, key, klen) || eq >= w.stop ||
		    line[eq] != '=')
			continue;
		value->len = 0;
		if (imgp_buf_append(value, line + eq + 1, w.stop - eq - 1))
			return imgp_fail(ENOMEM, "out of memory");
		return 1;
	}
	return 0;
}
