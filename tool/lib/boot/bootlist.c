// SPDX-License-Identifier: MIT
/*
 * The lists of overlays the boot paths' loaders read, each as its loader
 * parses it (a boot path names its own as its list member):
 *
 *  - extlinux.conf's "fdtoverlays a b" of the label U-Boot boots (DEFAULT,
 *    else the first; keywords case-insensitive, as U-Boot's pxe_utils);
 *  - a Boot Loader Specification entry's "key a b" lines, every one of
 *    them counting, in order (devicetree-overlay): a word goes onto the
 *    last, or a new line after the devicetree line (else at the end);
 *  - the set of "dtoverlay=NAME[,params]" lines of config.txt that apply
 *    to every model (before any [filter], or under [all], and not after an
 *    include line that no [all] follows), or to the boards of one tree
 *    (under the filters that single them out: [pi400], [board-type=0x11]).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "text/text.h"
#include "boot/bootpath.h"

/* The value after keyword (case-insensitive); NULL when the line is another. */
static const char *keyword(const struct imgp_text_line *l, const char *word)
{
	const char *p = imgp_text_skip_blanks_(l->start, l->end);
	size_t n = strlen(word);

	if ((size_t)(l->end - p) < n || strncasecmp(p, word, n) != 0)
		return NULL;
	p += n;
	if (p < l->end && *p != ' ' && *p != '\t')
		return NULL;
	return imgp_text_skip_blanks_(p, l->end);
}

static const char *keyword_any(const struct imgp_text_line *l, const char *const *words)
{
	const char *v = NULL;

	for (; *words && !v; words++)
		v = keyword(l, *words);
	return v;
}

static int extlinux_add(const char *text, size_t len, const char *key, const char *word,
			const char *sections, struct imgp_buf *out)
{
	static const char *const kw_label[] = { "label", NULL };
	static const char *const kw_default[] = { "default", NULL };
	static const char *const kw_fdt[] = { "fdt", "devicetree", "fdtdir",
					      "devicetreedir", NULL };
	static const char *const kw_list[] = { "fdtoverlays", "overlays", NULL };
	const char *cursor = text, *deflt = NULL, *deflt_end = NULL, *v;
	const char *block = NULL, *after = NULL, *list = NULL;
	struct imgp_text_line l, list_line = { 0 }, fdt_line = { 0 };
	bool in_block = false, found = false;
	char ins[512];
	int rc;

	(void)key;
	(void)sections;
	while (imgp_text_next_line_(text, len, &cursor, &l))
		if (!deflt && (v = keyword_any(&l, kw_default))) {
			deflt = v;
			deflt_end = imgp_text_content_end_(&l, true);
		}
	/* The label U-Boot boots: DEFAULT's, else the first. */
	for (int pass = 0; pass < 2 && !found; pass++) {
		cursor = text;
		while (imgp_text_next_line_(text, len, &cursor, &l)) {
			if ((v = keyword_any(&l, kw_label))) {
				const char *e = imgp_text_content_end_(&l, true);

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
			if (imgp_text_content_end_(&l, true) > imgp_text_skip_blanks_(l.start, l.end))
				after = l.next;
		}
	}
	if (!block)
		return imgp_fail(ENOENT, "no LABEL to add the overlay to");
	if (list && imgp_text_has_word_(list, imgp_text_content_end_(&list_line, true), word))
		return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
	if (list) {
		const char *end = imgp_text_content_end_(&list_line, true);

		snprintf(ins, sizeof(ins), "%s%s", end > list ? " " : "", word);
		rc = imgp_text_splice_(text, len, end, ins, out);
	} else {
		/* A new line after the tree's, indented as it is. */
		const struct imgp_text_line *ref = fdt_line.start ? &fdt_line : NULL;
		const char *indent = ref ? ref->start : "\t";
		int nindent = ref ? (int)(imgp_text_skip_blanks_(ref->start, ref->end) - ref->start) : 1;

		const char *c = ref ? ref->next : NULL;
		struct imgp_text_line slot;

		snprintf(ins, sizeof(ins), "%.*sfdtoverlays %s\n", nindent, indent, word);
		/*
		 * The line after the tree's holding only blanks is the slot
		 * Debian's u-boot-update leaves where it has no fdtoverlays: the
		 * new line takes it, as the generator's own line would.
		 */
		if (c && imgp_text_next_line_(text, len, &c, &slot) && slot.end > slot.start &&
		    imgp_text_skip_blanks_(slot.start, slot.end) == slot.end && slot.next > slot.end) {
			rc = imgp_buf_append(out, text, (size_t)(slot.start - text));
			if (!rc)
				rc = imgp_buf_append(out, ins, strlen(ins) - 1);
			if (!rc)
				rc = imgp_buf_append(out, slot.end, len - (size_t)(slot.end - text));
		} else if (ref && ref->next == text + len && ref->end == text + len)
			rc = imgp_text_append_line_(text, len, ins, out);
		else
			rc = imgp_text_splice_(text, len, ref ? ref->next : after, ins, out);
	}
	return rc ? -ENOMEM : 1;
}

static int bls_add(const char *text, size_t len, const char *key, const char *word,
		   const char *sections, struct imgp_buf *out)
{
	const char *kw_key[] = { key, NULL };
	static const char *const kw_tree[] = { "devicetree", NULL };
	const char *cursor = text, *v;
	struct imgp_text_line l, last = { 0 }, tree = { 0 };
	char ins[512];
	int rc;

	(void)sections;
	while (imgp_text_next_line_(text, len, &cursor, &l)) {
		if ((v = keyword_any(&l, kw_key))) {
			if (imgp_text_has_word_(v, imgp_text_content_end_(&l, true), word))
				return imgp_buf_append(out, text, len) ? -ENOMEM : 0;
			last = l;
		} else if (keyword_any(&l, kw_tree)) {
			tree = l;
		}
	}
	if (last.start) {
		const char *end = imgp_text_content_end_(&last, true);
		const char *v0 = keyword_any(&last, kw_key);

		snprintf(ins, sizeof(ins), "%s%s", end > v0 ? " " : "", word);
		rc = imgp_text_splice_(text, len, end, ins, out);
	} else if (tree.start && tree.next > tree.end) {
		snprintf(ins, sizeof(ins), "%s %s\n", key, word);
		rc = imgp_text_splice_(text, len, tree.next, ins, out);
	} else {
		snprintf(ins, sizeof(ins), "%s %s\n", key, word);
		rc = imgp_text_append_line_(text, len, ins, out);
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
	struct imgp_text_line l;

	while (imgp_text_next_line_(text, len, &cursor, &l)) {
		const char *p = imgp_text_skip_blanks_(l.start, l.end);
		const char *e = imgp_text_content_end_(&l, true);

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
static int config_txt_add(const char *text, size_t len, const char *key,
			  const char *word, const char *sections, struct imgp_buf *out)
{
	struct imgp_buf tail = { 0 };
	bool unfiltered = imgp_config_ends_unfiltered_(text, len), changed;
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
		rc = tail.len ? imgp_text_append_line_(text, len, (const char *)tail.data, out)
			      : imgp_buf_append(out, text, len);
	changed = tail.len != 0;
	imgp_buf_free(&tail);
	if (rc)
		return -ENOMEM;
	return changed;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* sysboot reads extlinux.conf by that name, whatever the key. */
static bool extlinux_owns(const char *path, const char *key)
{
	(void)key;
	return strcmp(base_name(path), "extlinux.conf") == 0;
}

/* The firmware reads dtoverlay= lines in config.txt and every file it includes. */
static bool config_txt_owns(const char *path, const char *key)
{
	(void)path;
	return key && strcmp(key, "dtoverlay") == 0;
}

static bool bls_owns(const char *path, const char *key)
{
	return strstr(path, "/loader/entries/") && key &&
	       strcmp(key, "devicetree-overlay") == 0;
}

const struct imgp_list_syntax imgp_list_extlinux_ = { extlinux_owns, extlinux_add };
const struct imgp_list_syntax imgp_list_config_txt_ = { config_txt_owns, config_txt_add };
const struct imgp_list_syntax imgp_list_bls_ = { bls_owns, bls_add };
