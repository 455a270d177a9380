// SPDX-License-Identifier: MIT
/*
 * Adding one word to a list a configuration keeps, never touching the
 * entries its owner put there: the way a new overlay gets registered, or
 * a module loaded. A boot path's own lists are its (its list member,
 * boot/bootlist.c); here are those of no boot path, each as its reader
 * parses it:
 *
 *  - "key=a b c" (Armbian's armbianEnv.txt, read by U-Boot's env import -t:
 *    the last line of a key wins, words split by blanks), the default;
 *  - a shell variable of a file a shell sources, KEY="a b c" (Debian's
 *    /etc/default/u-boot): the last assignment counts, its quotes kept;
 *  - a list of kernel modules to load at boot, one a line (/etc/modules,
 *    modules-load.d(5)'s *.conf), no key: the module's name first on its
 *    line, maybe parameters after it (kmod's /etc/modules header says so),
 *    '#' and ';' starting comments.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

static int env_add(const char *text, size_t len, const char *key, const char *word,
		   const char *sections, struct imgp_buf *out)
{
	const char *cursor = text, *value = NULL;
	struct imgp_text_line l, last = { 0 };
	size_t n = strlen(key);
	char tail[512];
	int rc;

	(void)sections;
	while (imgp_text_next_line_(text, len, &cursor, &l))
		if ((size_t)(l.end - l.start) > n && memcmp(l.start, key, n) == 0 &&
		    l.start[n] == '=') {
			last = l;
			value = l.start + n + 1;
		}
	if (value && imgp_text_has_word_(value, last.end, word))
		return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
	if (value) {
		const char *end = imgp_text_content_end_(&last, false);

		snprintf(tail, sizeof(tail), "%s%s", end > value ? " " : "", word);
		rc = imgp_text_splice_(text, len, end, tail, out);
	} else {
		snprintf(tail, sizeof(tail), "%s=%s\n", key, word);
		rc = imgp_text_append_line_(text, len, tail, out);
	}
	return rc ? -ENOMEM : 1;
}

/*
 * The last "KEY=value" assignment (blanks and "export " before it
 * allowed): the value's bounds without its quotes, and its quote ('"',
 * '\'', or 0 for a bare word). false when none.
 */
static bool shell_assignment(const char *text, size_t len, const char *key,
			     const char **value, const char **value_end, char *quote)
{
	const char *cursor = text;
	size_t n = strlen(key);
	bool found = false;
	struct imgp_text_line l;

	while (imgp_text_next_line_(text, len, &cursor, &l)) {
		const char *p = imgp_text_skip_blanks_(l.start, l.end), *v, *e;

		if ((size_t)(l.end - p) > 7 && memcmp(p, "export ", 7) == 0)
			p = imgp_text_skip_blanks_(p + 7, l.end);
		if ((size_t)(l.end - p) <= n || memcmp(p, key, n) != 0 || p[n] != '=')
			continue;
		v = p + n + 1;
		*quote = v < l.end && (*v == '"' || *v == '\'') ? *v : 0;
		if (*quote) {
			e = memchr(v + 1, *quote, (size_t)(l.end - v - 1));
			if (!e)
				continue;       /* a value over several lines: not ours to edit */
			v++;
		} else {
			e = v;
			while (e < l.end && !strchr(" \t;#", *e))
				e++;
		}
		*value = v;
		*value_end = e;
		found = true;
	}
	return found;
}

static int shell_add(const char *text, size_t len, const char *key, const char *word,
		     const char *sections, struct imgp_buf *out)
{
	const char *v = NULL, *e = NULL;
	char quote = 0, tail[512];
	int rc;

	(void)sections;
	if (!shell_assignment(text, len, key, &v, &e, &quote)) {
		snprintf(tail, sizeof(tail), "%s=\"%s\"\n", key, word);
		rc = imgp_text_append_line_(text, len, tail, out);
		return rc ? -ENOMEM : 1;
	}
	if (imgp_text_has_word_(v, e, word))
		return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
	/* A bare word gets quotes: "KEY=a b" would run b. */
	rc = imgp_buf_append(out, text, (size_t)(v - text));
	if (!rc && !quote)
		rc = imgp_buf_append(out, "\"", 1);
	if (!rc)
		rc = imgp_buf_append(out, v, (size_t)(e - v));
	snprintf(tail, sizeof(tail), "%s%s%s", e > imgp_text_skip_blanks_(v, e) ? " " : "", word,
		 quote ? "" : "\"");
	if (!rc)
		rc = imgp_buf_append(out, tail, strlen(tail));
	if (!rc)
		rc = imgp_buf_append(out, e, len - (size_t)(e - text));
	return rc ? -ENOMEM : 1;
}

/*
 * Whether module names [a, a + n) and b are the same module: modprobe reads
 * '-' and '_' in a name as one (kmod's underscores()), so raspi-config's
 * "^i2c[-_]dev" finds i2c_dev too.
 */
static bool same_module(const char *a, size_t n, const char *b)
{
	if (strlen(b) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];

		if (x != y)
			return false;
	}
	return true;
}

/*
 * A module list: a line whose first word is the module (blanks before it
 * skipped, as systemd-modules-load strips them) means it is there;
 * comments stay comments (raspi-config would uncomment a "#i2c-dev": the
 * line added at the end loads the same module, and the owner's comment
 * stays as it is). Otherwise "word\n" goes at the end.
 */
static int modules_add(const char *text, size_t len, const char *key, const char *word,
		       const char *sections, struct imgp_buf *out)
{
	const char *cursor = text;
	struct imgp_text_line l;
	char tail[258];

	(void)key;
	(void)sections;
	while (imgp_text_next_line_(text, len, &cursor, &l)) {
		const char *p = imgp_text_skip_blanks_(l.start, l.end), *e = p;

		if (p >= l.end || *p == '#' || *p == ';')
			continue;
		while (e < l.end && *e != ' ' && *e != '\t')
			e++;
		if (same_module(p, (size_t)(e - p), word))
			return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
	}
	snprintf(tail, sizeof(tail), "%s\n", word);
	return imgp_text_append_line_(text, len, tail, out) ? -ENOMEM : 1;
}

static bool word_ok(const char *word)
{
	if (!*word)
		return false;
	for (const char *p = word; *p; p++)
		if (isspace((unsigned char)*p) || *p == '#' || *p == ',' ||
		    !isprint((unsigned char)*p))
			return false;
	return strlen(word) < 256;
}

/* /etc/modules and modules-load.d(5)'s *.conf, whatever the key (they take none). */
static bool modules_owns(const char *path, const char *key)
{
	const char *base = strrchr(path, '/');

	(void)key;
	base = base ? base + 1 : path;
	return strcmp(path, "/etc/modules") == 0 ||
	       (strstr(path, "/modules-load.d/") && strlen(base) > 5 &&
		strcmp(base + strlen(base) - 5, ".conf") == 0);
}

/* Debian's u-boot-update reads its settings as sh does. */
static bool shell_owns(const char *path, const char *key)
{
	(void)key;
	return strcmp(path, "/etc/default/u-boot") == 0 || strstr(path, "/u-boot-menu/conf.d/");
}

static bool any_owns(const char *path, const char *key)
{
	(void)path;
	(void)key;
	return true;
}

/* The lists of no boot path, tried in this order around the boot paths' own. */
static const struct imgp_list_syntax list_modules = { modules_owns, modules_add };
static const struct imgp_list_syntax list_shell = { shell_owns, shell_add };
static const struct imgp_list_syntax list_env = { any_owns, env_add };

const struct imgp_list_syntax *imgp_list_syntax_of_(const char *path, const char *key)
{
	const struct imgp_bootpath *bp;

	if (list_modules.owns(path, key))
		return &list_modules;
	if (!key)
		return &list_env;
	for (size_t i = 0; (bp = imgp_bootpath_at_(i)); i++)
		if (bp->list && bp->list->owns(path, key))
			return bp->list;
	return list_shell.owns(path, key) ? &list_shell : &list_env;
}

bool imgp_list_keyless_(const char *path)
{
	return list_modules.owns(path, NULL);
}

int imgp_list_add_(const char *text, size_t len, const struct imgp_list_syntax *syntax,
		  const char *key, const char *word, const char *sections,
		  struct imgp_buf *out)
{
	bool modules = syntax == &list_modules;

	out->len = 0;
	if (!word_ok(word))
		return imgp_fail(EINVAL, "'%s' is no list word (blanks, '#' or ',' in it, or empty)",
				 word);
	/* A module list keeps names, one a line; every other list has a key. */
	if (modules && key)
		return imgp_fail(EINVAL, "a list of kernel modules has one name a line, no key (got key '%s')",
				 key);
	if (!modules && !key)
		return imgp_fail(EINVAL, "which list? a key is needed (only /etc/modules and modules-load.d/*.conf, one module a line, have none)");
	return syntax->add(text, len, key, word, sections, out);
}
