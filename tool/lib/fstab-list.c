// SPDX-License-Identifier: MIT
/*
 * Every entry of an fstab, until fstab.c lists them itself. The parsing
 * stays in fstab.c: the whole file is validated once, then each line is
 * looked up alone by its own mount point with imgp_fstab_get(), so only
 * line boundaries and the second field are found here. A mount point
 * written with octal escapes ("/mnt/a\040b") does not match its own raw
 * text and is left out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The second field of a line, or NULL for a blank or comment line. */
static char *line_mountpoint(const char *s, size_t len)
{
	size_t i = 0, start;

	while (i < len && is_blank(s[i]))
		i++;
	if (i == len || s[i] == '#')
		return NULL;
	while (i < len && !is_blank(s[i]))
		i++;
	while (i < len && is_blank(s[i]))
		i++;
	start = i;
	while (i < len && !is_blank(s[i]) && s[i] != '\r')
		i++;
	return i > start ? strndup(s + start, i - start) : NULL;
}

int imgp_fstab_list(const char *text, size_t len, struct imgp_fstab_entry **out,
		    size_t *n)
{
	struct imgp_fstab_entry *list = NULL, probe;
	size_t count = 0, pos = 0;
	int line = 0, rc;

	*out = NULL;
	*n = 0;
	/* Validates the whole file; a file without "/" is fine here. */
	rc = imgp_fstab_get(text, len, "/", &probe);
	if (rc && rc != -ENOENT)
		return rc;
	if (!rc)
		imgp_fstab_entry_free(&probe);
	imgp_errclear();
	rc = 0;
	while (pos < len && !rc) {
		const char *eol = memchr(text + pos, '\n', len - pos);
		size_t end = eol ? (size_t)(eol - text) : len;
		char *mnt = line_mountpoint(text + pos, end - pos);
		struct imgp_fstab_entry *grown;

		line++;
		if (mnt) {
			rc = imgp_fstab_get(text + pos, end - pos, mnt, &probe);
			free(mnt);
			if (rc == -ENOENT) {
				imgp_errclear();
				rc = 0;
			} else if (!rc) {
				grown = realloc(list, (count + 1) * sizeof(*grown));
				if (!grown) {
					imgp_fstab_entry_free(&probe);
					rc = imgp_fail(ENOMEM, "out of memory");
					break;
				}
				list = grown;
				probe.line = line;
				list[count++] = probe;
			}
		}
		pos = eol ? end + 1 : len;
	}
	if (rc) {
		imgp_fstab_list_free(list, count);
		return rc;
	}
	*out = list;
	*n = count;
	return 0;
}

void imgp_fstab_list_free(struct imgp_fstab_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		imgp_fstab_entry_free(&e[i]);
	free(e);
}
