// SPDX-License-Identifier: MIT
/*
 * One top-level entry of a YAML block mapping: cloud-init's user-data
 * ("#cloud-config" first) and NoCloud meta-data, where every setting is a
 * key at column 0 and what belongs to it is indented under it (or, for a
 * sequence, starts with "- " at column 0, as Raspberry Pi Imager writes
 * "packages:\n- avahi-daemon").
 *
 * The text is read line by line, not parsed as YAML: an entry runs from
 * its "key:" line to its last indented or "- " line (blank lines between
 * included, trailing ones not; a comment at column 0 ends it). Every byte
 * outside the entry stays, comments too. A text this reading cannot follow
 * (a line at column 0 that is neither a comment, "key:" nor "- ", tabs, CR
 * line ends, a key twice, flow style, a document marker) is refused with
 * its line: guessing there could change what cloud-init reads.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"

#define YAML_MAX (1024 * 1024)

/* The length of a plain key ("name", "ssh_pwauth", "instance-id") at s. */
static size_t key_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (s[i] == '_' || s[i] == '-' || s[i] == '.' ||
			 (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
			 (s[i] >= 'A' && s[i] <= 'Z')))
		i++;
	if (!i || s[0] == '-' || s[0] == '.')
		return 0;
	return i;
}

/* Whether the line [s, s + n) is "KEY:" followed by a blank or its end. */
static size_t line_key(const char *s, size_t n)
{
	size_t k = key_len(s, n);

	if (!k || k >= n || s[k] != ':')
		return 0;
	return k + 1 == n || s[k + 1] == ' ' ? k : 0;
}

static bool all_spaces(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ')
			return false;
	return true;
}

/* Whether an entry continues on this line: indented, or "- " / "-". */
static bool continues(const char *s, size_t n)
{
	return n && (s[0] == ' ' || (s[0] == '-' && (n == 1 || s[1] == ' ')));
}

static int key_check(const char *key)
{
	size_t klen = strlen(key);

	if (key_len(key, klen) != klen)
		return imgp_fail(EINVAL, "'%s' is not a plain YAML key (letters, digits, '_', '-', '.')",
				 key);
	return 0;
}

int imgp_yaml_entry_check_(const char *key, const char *entry)
{
	size_t n = strlen(entry), klen = key ? strlen(key) : line_key(entry, strcspn(entry, "\n"));
	const char *p, *nl;

	if (!key && !klen)
		return imgp_fail(EINVAL, "must start with 'KEY:', KEY a plain YAML key (letters, digits, '_', '-', '.')");
	key = key ? key : entry;
	if (n <= klen || memcmp(entry, key, klen) || entry[klen] != ':' ||
	    (entry[klen + 1] != ' ' && entry[klen + 1] != '\n'))
		return imgp_fail(EINVAL, "the entry for '%.*s' must start with '%.*s:'",
				 (int)klen, key, (int)klen, key);
	if (entry[n - 1] != '\n')
		return imgp_fail(EINVAL, "the entry for '%.*s' must end with a newline",
				 (int)klen, key);
	if (strpbrk(entry, "\t\r"))
		return imgp_fail(EINVAL, "the entry for '%.*s' holds a tab or a carriage return",
				 (int)klen, key);
	for (p = strchr(entry, '\n') + 1; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl > p && !continues(p, (size_t)(nl - p)))
			return imgp_fail(EINVAL, "the entry for '%.*s' has a line at column 0 ('%.*s'): only its first line may be",
					 (int)klen, key, (int)(nl - p), p);
	}
	return 0;
}

/* At most 60 bytes of a line, for messages. */
#define SHOW(n) ((n) > 60 ? 60 : (int)(n))

/*
 * Finds key's entry in text: 1 with its span [*start, *end), 0 when the
 * text has none, or -EINVAL for a text the line reading cannot follow.
 */
static int entry_find(const char *text, size_t len, const char *header,
		      const char *key, size_t *start, size_t *end)
{
	size_t line_no = 0, found_line = 0, pos = 0;
	size_t hlen = header ? strlen(header) : 0, first;
	bool found = false, open = false, in_found = false;

	if (len > YAML_MAX)
		return imgp_fail(EFBIG, "text of %zu bytes is too large (at most %d)",
				 len, YAML_MAX);
	if (memchr(text, '\r', len) || memchr(text, '\0', len))
		return imgp_fail(EINVAL, "carriage return or NUL in the text: imgpatch edits only plain LF-ended YAML");
	first = strcspn(text, "\n");
	if (header && len && (first < hlen || memcmp(text, header, hlen) ||
			      !all_spaces(text + hlen, first - hlen)))
		return imgp_fail(EINVAL, "its first line is '%.*s', not '%s': cloud-init reads it as another kind of user-data, which imgpatch does not merge into",
				 SHOW(first), text, header);
	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		size_t next = nl ? pos + n + 1 : len, k;

		line_no++;
		if ((line_no == 1 && header) || all_spaces(s, n)) {
			/* the header, or a blank line: ends nothing */
		} else if (s[0] == '\t') {
			return imgp_fail(EINVAL, "line %zu: a tab where YAML indents: imgpatch does not edit this",
					 line_no);
		} else if (s[0] == '#') {
			open = in_found = false;
		} else if (continues(s, n)) {
			if (!open)
				return imgp_fail(EINVAL, "line %zu: '%.*s' belongs to no 'key:' line: imgpatch edits only a mapping of 'key: value' entries",
						 line_no, SHOW(n), s);
			if (in_found)
				*end = next;
		} else if ((k = line_key(s, n))) {
			bool same = k == strlen(key) && !memcmp(s, key, k);

			if (same && found)
				return imgp_fail(EINVAL, "key '%s' appears twice (lines %zu and %zu): imgpatch does not know which one cloud-init reads",
						 key, found_line, line_no);
			open = true;
			in_found = same;
			if (same) {
				found = true;
				found_line = line_no;
				*start = pos;
				*end = next;
			}
		} else {
			return imgp_fail(EINVAL, "line %zu: '%.*s' is not a 'key: value' entry: imgpatch edits only a block mapping of plain keys",
					 line_no, SHOW(n), s);
		}
		pos = next;
	}
	return found;
}

int imgp_yaml_set_key_(const char *text, size_t len, const char *header,
		      const char *key, const char *entry, struct imgp_buf *out)
{
	size_t start = 0, end = 0;
	int rc, found;

	out->len = 0;
	rc = key_check(key);
	if (!rc && entry)
		rc = imgp_yaml_entry_check_(key, entry);
	if (rc)
		return rc;
	if (!len)
		text = "";
	found = entry_find(text, len, header, key, &start, &end);
	if (found < 0)
		return found;
	if (found) {
		rc = imgp_buf_append(out, text, start);
		if (!rc && entry)
			rc = imgp_buf_append(out, entry, strlen(entry));
		if (!rc)
			rc = imgp_buf_append(out, text + end, len - end);
	} else {
		if (!len && header && entry)
			rc = imgp_buf_printf(out, "%s\n", header);
		if (!rc)
			rc = imgp_buf_append(out, text, len);
		if (!rc && entry && len && text[len - 1] != '\n')
			rc = imgp_buf_append(out, "\n", 1);
		if (!rc && entry)
			rc = imgp_buf_append(out, entry, strlen(entry));
	}
	if (rc) {
		out->len = 0;
		return imgp_fail(ENOMEM, "out of memory");
	}
	return out->len != len || (len && memcmp(out->data, text, len));
}

int imgp_yaml_get_key_(const char *text, size_t len, const char *header,
		      const char *key, struct imgp_buf *out)
{
	size_t start = 0, end = 0;
	int rc = key_check(key), found;

	out->len = 0;
	if (rc)
		return rc;
	found = entry_find(len ? text : "", len, header, key, &start, &end);
	if (found <= 0)
		return found;
	if (imgp_buf_append(out, text + start, end - start))
		return imgp_fail(ENOMEM, "out of memory");
	return 1;
}
