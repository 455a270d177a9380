// SPDX-License-Identifier: MIT
/*
 * Adding one word to a list a boot configuration keeps, never touching the
 * entries its owner put there: the way a new overlay gets registered.
 * Three shapes of list, each as its reader parses it:
 *
 *  - "key=a b c" (Armbian's armbianEnv.txt, read by U-Boot's env import -t:
 *    the last line of a key wins, words split by blanks);
 *  - extlinux.conf's "fdtoverlays a b" of the label U-Boot boots (DEFAULT,
 *    else the first; keywords case-insensitive, as U-Boot's pxe_utils);
 *  - the set of "dtoverlay=NAME[,params]" lines of config.txt that apply
 *    to every model (before any [filter], or under [all], and not after an
 *    include line that no [all] follows), or to the boards of one tree
 *    (under the filters that single them out: [pi400], [board-type=0x11]);
 *  - a shell variable of a file a shell sources, KEY="a b c" (Debian's
 *    /etc/default/u-boot): the last assignment counts, its quotes kept;
 *  - a Boot Loader Specification entry's "key a b" lines, every one of
 *    them counting, in order (devicetree-overlay): a word goes onto the
 *    last, or a new line after the devicetree line (else at the end);
 *  - a list of kernel modules to load at boot, one a line (/etc/modules,
 *    modules-load.d(5)'s *.conf), no key: the module's name first on its
 *    line, maybe parameters after it (kmod's /etc/modules header says so),
 *    '#' and ';' starting comments.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "text/text.h"
#include "patch/patch.h"

/* One line of a text: [start, end) without its newline, next past it. */
struct line {
	const char *start, *end, *next;
};

static bool next_line(const char *text, size_t len, const char **cursor,
		      struct line *l)
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

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Whether word is one of the blank-separated words of [p, end). */
static bool has_word(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	for (;;) {
		const char *w;

		p = skip_blanks(p, end);
		if (p >= end)
			return false;
		w = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if ((size_t)(p - w) == n && memcmp(w, word, n) == 0)
			return true;
	}
}

/* The end of a line's content, before trailing blanks and a '#' comment. */
static const char *content_end(const struct line *l, bool comments)
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

/* out = text with ins inserted at pos. */
static int splice(const char *text, size_t len, const char *pos,
		  const char *ins, struct imgp_buf *out)
{
	size_t head = (size_t)(pos - text);
	int rc = imgp_buf_append(out, text, head);

	if (!rc)
		rc = imgp_buf_append(out, ins, strlen(ins));
	if (!rc)
		rc = imgp_buf_append(out, text + head, len - head);
	return rc;
}

/* out = text + (a newline when it lacks one) + tail. */
static int append_line(const char *text, size_t len, const char *tail,
		       struct imgp_buf *out)
{
	int rc = imgp_buf_append(out, text, len);

	if (!rc && len && text[len - 1] != '\n')
		rc = imgp_buf_append(out, "\n", 1);
	if (!rc)
		rc = imgp_buf_append(out, tail, strlen(tail));
	return rc;
}

static int list_env(const char *text, size_t len, const char *key,
		    const char *word, struct imgp_buf *out)
{
	const char *cursor = text, *value = NULL;
	struct line l, last = { 0 };
	size_t n = strlen(key);
	char tail[512];
	int rc;

	while (next_line(text, len, &cursor, &l))
		if ((size_t)(l.end - l.start) > n && memcmp(l.start, key, n) == 0 &&
		    l.start[n] == '=') {
			last = l;
			value = l.start + n + 1;
		}
	if (value && has_word(value, last.end, word))
		return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
	if (value) {
		const char *end = content_end(&last, false);

		snprintf(tail, sizeof(tail), "%s%s", end > value ? " " : "", word);
		rc = splice(text, len, end, tail, out);
	} else {
		snprintf(tail, sizeof(tail), "%s=%s\n", key, word);
		rc = append_line(text, len, tail, out);
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
	struct line l;

	while (next_line(text, len, &cursor, &l)) {
		const char *p = skip_blanks(l.start, l.end), *v, *e;

		if ((size_t)(l.end - p) > 7 && memcmp(p, "export ", 7) == 0)
			p = skip_blanks(p + 7, l.end);
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

static int list_shell(const char *text, size_t len, const char *key,
		      const char *word, struct imgp_buf *out)
{
	const char *v = NULL, *e = NULL;
	char quote = 0, tail[512];
	int rc;

	if (!shell_assignment(text, len, key, &v, &e, &quote)) {
		snprintf(tail, sizeof(tail), "%s=\"%s\"\n", key, word);
		rc = append_line(text, len, tail, out);
		return rc ? -ENOMEM : 1;
	}
	if (has_word(v, e, word))
		return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
	/* A bare word gets quotes: "KEY=a b" would run b. */
	rc = imgp_buf_append(out, text, (size_t)(v - text));
	if (!rc && !quote)
		rc = imgp_buf_append(out, "\"", 1);
	if (!rc)
		rc = imgp_buf_append(out, v, (size_t)(e - v));
	snprintf(tail, sizeof(tail), "%s%s%s", e > skip_blanks(v, e) ? " " : "", word,
		 quote ? "" : "\"");
	if (!rc)
		rc = imgp_buf_append(out, tail, strlen(tail));
	if (!rc)
		rc = imgp_buf_append(out, e, len - (size_t)(e - text));
	return rc ? -ENOMEM : 1;
}

/* The value after keyword (case-insensitive); NULL when the line is another. */
static const char *keyword(const struct line *l, const char *word)
{
	const char *p = skip_blanks(l->start, l->end);
	size_t n = strlen(word);

	if ((size_t)(l->end - p) < n || strncasecmp(p, word, n) != 0)
		return NULL;
	p += n;
	if (p < l->end && *p != ' ' && *p != '\t')
		return NULL;
	return skip_blanks(p, l->end);
}

static const char *keyword_any(const struct line *l, const char *const *words)
{
	const char *v = NULL;

	for (; *words && !v; words++)
		v = keyword(l, *words);
	return v;
}

static int list_extlinux(const char *text, size_t len, const char *word,
			 struct imgp_buf *out)
{
	static const char *const kw_label[] = { "label", NULL };
	static const char *const kw_default[] = { "default", NULL };
	static const char *const kw_fdt[] = { "fdt", "devicetree", "fdtdir",
					      "devicetreedir", NULL };
	static const char *const kw_list[] = { "fdtoverlays", "overlays", NULL };
	const char *cursor = text, *deflt = NULL, *deflt_end = NULL, *v;
	const char *block = NULL, *after = NULL, *list = NULL;
	struct line l, list_line = { 0 }, fdt_line = { 0 };
	bool in_block = false, found = false;
	char ins[512];
	int rc;

	while (next_line(text, len, &cursor, &l))
		if (!deflt && (v = keyword_any(&l, kw_default))) {
			deflt = v;
			deflt_end = content_end(&l, true);
		}
	/* The label U-Boot boots: DEFAULT's, else the first. */
	for (int pass = 0; pass < 2 && !found; pass++) {
		cursor = text;
		while (next_line(text, len, &cursor, &l)) {
			if ((v = keyword_any(&l, kw_label))) {
				const char *e = content_end(&l, true);

				if (found)
					break;
				found = pass ? true : deflt &&
					(size_t)(e - v) == (size_t)(deflt_end - deflt) &&
					memcmp(v, deflt, (size_t)(e - v)) == 0;
				in_block = found;
				block = found ? l.start : NULL;
				after = l.next;
				continue;
			}
			if (!in_block)
				continue;
			if ((v = keyword_any(&l, kw_list))) {
				list = v;
				list_line = l;
			} else if (keyword_any(&l, kw_fdt)) {
				fdt_line = l;
			}
			if (content_end(&l, true) > skip_blanks(l.start, l.end))
				after = l.next;
		}
	}
	if (!block)
		return imgp_fail(ENOENT, "no LABEL to add the overlay to");
	if (list && has_word(list, content_end(&list_line, true), word))
		return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
	if (list) {
		const char *end = content_end(&list_line, true);

		snprintf(ins, sizeof(ins), "%s%s", end > list ? " " : "", word);
		rc = splice(text, len, end, ins, out);
	} else {
		/* A new line after the tree's, indented as it is. */
		const struct line *ref = fdt_line.start ? &fdt_line : NULL;
		const char *indent = ref ? ref->start : "\t";
		int nindent = ref ? (int)(skip_blanks(ref->start, ref->end) - ref->start) : 1;

		const char *c = ref ? ref->next : NULL;
		struct line slot;

		snprintf(ins, sizeof(ins), "%.*sfdtoverlays %s\n", nindent, indent, word);
		/*
		 * The line after the tree's holding only blanks is the slot
		 * Debian's u-boot-update leaves where it has no fdtoverlays: the
		 * new line takes it, as the generator's own line would.
		 */
		if (c && next_line(text, len, &c, &slot) && slot.end > slot.start &&
		    skip_blanks(slot.start, slot.end) == slot.end && slot.next > slot.end) {
			rc = imgp_buf_append(out, text, (size_t)(slot.start - text));
			if (!rc)
				rc = imgp_buf_append(out, ins, strlen(ins) - 1);
			if (!rc)
				rc = imgp_buf_append(out, slot.end, len - (size_t)(slot.end - text));
		} else if (ref && ref->next == text + len && ref->end == text + len)
			rc = append_line(text, len, ins, out);
		else
			rc = splice(text, len, ref ? ref->next : after, ins, out);
	}
	return rc ? -ENOMEM : 1;
}

static int list_bls(const char *text, size_t len, const char *key, const char *word,
		    struct imgp_buf *out)
{
	const char *kw_key[] = { key, NULL };
	static const char *const kw_tree[] = { "devicetree", NULL };
	const char *cursor = text, *v;
	struct line l, last = { 0 }, tree = { 0 };
	char ins[512];
	int rc;

	while (next_line(text, len, &cursor, &l)) {
		if ((v = keyword_any(&l, kw_key))) {
			if (has_word(v, content_end(&l, true), word))
				return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
			last = l;
		} else if (keyword_any(&l, kw_tree)) {
			tree = l;
		}
	}
	if (last.start) {
		const char *end = content_end(&last, true);
		const char *v0 = keyword_any(&last, kw_key);

		snprintf(ins, sizeof(ins), "%s%s", end > v0 ? " " : "", word);
		rc = splice(text, len, end, ins, out);
	} else if (tree.start && tree.next > tree.end) {
		snprintf(ins, sizeof(ins), "%s %s\n", key, word);
		rc = splice(text, len, tree.next, ins, out);
	} else {
		snprintf(ins, sizeof(ins), "%s %s\n", key, word);
		rc = append_line(text, len, ins, out);
	}
	return rc ? -ENOMEM : 1;
}

/* Whether [p, e) is "key=word" or "key=word,params". */
static bool is_entry(const char *p, const char *e, const char *key, const char *word)
{
	size_t nkey = strlen(key), nword = strlen(word);

	if ((size_t)(e - p) < nkey + 1 + nword || memcmp(p, key, nkey) != 0 || p[nkey] != '=')
		return false;
	p += nkey + 1;
	return memcmp(p, word, nword) == 0 && (p + nword == e || p[nword] == ',');
}

/*
 * Whether "key=word" stands where the filter section (NULL: none, every
 * model) is the one in force: under a "[section]" header (before any
 * header, or under [all], and not after an include line that no [all]
 * follows, for none).
 */
static bool config_has(const char *text, size_t len, const char *key,
		       const char *word, const char *section, size_t nsection)
{
	const char *cursor = text;
	bool in = !section;
	struct line l;

	while (next_line(text, len, &cursor, &l)) {
		const char *p = skip_blanks(l.start, l.end);
		const char *e = content_end(&l, true);

		if (p < e && *p == '[' && e[-1] == ']') {
			in = section ? (size_t)(e - p) == nsection + 2 &&
					       !memcmp(p + 1, section, nsection)
				     : (size_t)(e - p) == 5 && !memcmp(p, "[all]", 5);
			continue;
		}
		/*
		 * The firmware reads an included file at its include line, and the
		 * filter that file leaves in force (Ubuntu's usercfg.txt is the
		 * user's) holds after it: a line there, or one added at the end,
		 * needs a header of its own.
		 */
		if ((size_t)(e - p) > 8 && memcmp(p, "include", 7) == 0 &&
		    (p[7] == ' ' || p[7] == '\t')) {
			in = false;
			continue;
		}
		if (in && is_entry(p, e, key, word))
			return true;
	}
	return false;
}

/*
 * sections: NULL for every model, else the filters (one a line, "pi400\n")
 * that together hold for the boards the line is for. Each without the line
 * gets a block at the end, and the file then ends in [all] (see
 * textedit.c).
 */
static int list_config_txt(const char *text, size_t len, const char *key,
			   const char *word, const char *sections,
			   struct imgp_buf *out)
{
	struct imgp_buf tail = { 0 };
	bool unfiltered = imgp_config_ends_unfiltered(text, len), changed;
	int rc = 0;

	if (!sections) {
		if (!config_has(text, len, key, word, NULL, 0))
			rc = imgp_buf_printf(&tail, "%s%s=%s\n", unfiltered ? "" : "[all]\n",
					     key, word);
	}
	for (const char *s = sections; !rc && s && *s;) {
		size_t n = strcspn(s, "\n");

		if (!config_has(text, len, key, word, s, n)) {
			if (!tail.len && !unfiltered)
				rc = imgp_buf_printf(&tail, "[all]\n");
			if (!rc)
				rc = imgp_buf_printf(&tail, "[%.*s]\n%s=%s\n", (int)n, s, key, word);
		}
		s += n + (s[n] == '\n');
	}
	if (!rc && sections && tail.len)
		rc = imgp_buf_printf(&tail, "[all]\n");
	if (!rc)
		rc = tail.len ? append_line(text, len, (const char *)tail.data, out)
			      : imgp_buf_append(out, text, len);
	changed = tail.len != 0;
	imgp_buf_free(&tail);
	if (rc)
		return -ENOMEM;
	return changed;
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
static int list_modules(const char *text, size_t len, const char *word,
			struct imgp_buf *out)
{
	const char *cursor = text;
	struct line l;
	char tail[258];

	while (next_line(text, len, &cursor, &l)) {
		const char *p = skip_blanks(l.start, l.end), *e = p;

		if (p >= l.end || *p == '#' || *p == ';')
			continue;
		while (e < l.end && *e != ' ' && *e != '\t')
			e++;
		if (same_module(p, (size_t)(e - p), word))
			return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
	}
	snprintf(tail, sizeof(tail), "%s\n", word);
	return append_line(text, len, tail, out) ? -ENOMEM : 1;
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

enum imgp_list_style imgp_list_style_of(const char *path, const char *key)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (strcmp(path, "/etc/modules") == 0 ||
	    (strstr(path, "/modules-load.d/") && strlen(base) > 5 &&
	     strcmp(base + strlen(base) - 5, ".conf") == 0))
		return IMGP_LIST_MODULES;
	if (!key)
		return IMGP_LIST_WORDS;
	if (strcmp(base, "extlinux.conf") == 0)
		return IMGP_LIST_EXTLINUX;
	if (strcmp(path, "/etc/default/u-boot") == 0 || strstr(path, "/u-boot-menu/conf.d/"))
		return IMGP_LIST_SHELL;
	if (strcmp(key, "dtoverlay") == 0)
		return IMGP_LIST_LINES;
	if (strstr(path, "/loader/entries/") && strcmp(key, "devicetree-overlay") == 0)
		return IMGP_LIST_BLS;
	return IMGP_LIST_WORDS;
}

int imgp_list_add(const char *text, size_t len, enum imgp_list_style style,
		  const char *key, const char *word, const char *sections,
		  struct imgp_buf *out)
{
	out->len = 0;
	if (!word_ok(word))
		return imgp_fail(EINVAL, "'%s' is no list word (blanks, '#' or ',' in it, or empty)",
				 word);
	/* A module list keeps names, one a line; every other list has a key. */
	if (style == IMGP_LIST_MODULES && key)
		return imgp_fail(EINVAL, "a list of kernel modules has one name a line, no key (got key '%s')",
				 key);
	if (style != IMGP_LIST_MODULES && !key)
		return imgp_fail(EINVAL, "which list? a key is needed (only /etc/modules and modules-load.d/*.conf, one module a line, have none)");
	switch (style) {
	case IMGP_LIST_MODULES:
		return list_modules(text, len, word, out);
	case IMGP_LIST_EXTLINUX:
		return list_extlinux(text, len, word, out);
	case IMGP_LIST_LINES:
		return list_config_txt(text, len, key, word, sections, out);
	case IMGP_LIST_SHELL:
		return list_shell(text, len, key, word, out);
	case IMGP_LIST_BLS:
		return list_bls(text, len, key, word, out);
	default:
		return list_env(text, len, key, word, out);
	}
}
