// SPDX-License-Identifier: MIT
/*
 * Boot path "grub": GRUB's grub.cfg (/boot/grub/grub.cfg on a root, or
 * /grub/grub.cfg on a /boot partition), as Debian's grub-mkconfig writes it
 * (util/grub.d/10_linux.in: per kernel a menuentry with "linux PATH ARGS",
 * "initrd PATH" and, where /boot has dtb-VERSION or dtb, "devicetree
 * PATH"; the others in a submenu). Read statically, never run:
 *
 *  - the default is the value of the last "set default=..." outside a
 *    menu entry, "${next_entry}" skipped (00_header sets it only when
 *    grubenv has a one-shot entry, which then wins) and "${saved_entry}"
 *    read from the grubenv beside grub.cfg (GRUB_DEFAULT=saved); unset or
 *    empty, the first entry;
 *  - a default is a number (counting menuentry and submenu lines at the
 *    top), a title or a --id / $menuentry_id_option id, and "A>B" walks
 *    into a submenu, as GRUB's menu code takes it;
 *  - the default entry's devicetree is the tree (a symbolic link, as
 *    flash-kernel makes /boot/dtb-VERSION, followed to its file), the
 *    arguments after the kernel on its linux line the command line.
 *
 * Not modelled: anything a script computes at boot (if/else around the
 * lines, variables in the paths or in set default, "source", "configfile"
 * of another file, a fallback when the default fails), and paths on
 * another device than grub.cfg's ("search --set=root" is taken to find
 * grub.cfg's own filesystem, as grub-mkconfig makes it).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

static const char *const cfg_paths[] = { "/boot/grub/grub.cfg", "/grub/grub.cfg" };
#define NCFG (sizeof(cfg_paths) / sizeof(cfg_paths[0]))
#define MAX_DEPTH 16
#define DEFAULT_GRUB "/etc/default/grub"

struct gentry {
	char *title, *id;
	int top, sub;            /* its place: top-level index, in-submenu index (-1: none) */
	bool submenu;            /* a submenu line (holds entries) */
	size_t kernel_end;       /* the linux line: after its kernel path */
	size_t args, args_end;   /* its arguments; args == 0: no linux line */
	bool has_args;
	char *devicetree;
};

struct gcfg {
	struct gentry *e;
	size_t n;
	char *deflt;             /* the last "set default" value; NULL: none */
};

static void gcfg_free(struct gcfg *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].title);
		free(c->e[i].id);
		free(c->e[i].devicetree);
	}
	free(c->e);
	free(c->deflt);
	memset(c, 0, sizeof(*c));
}

/* The next blank-separated word of [*p, end), one level of quotes taken off. */
static char *word(const char **p, const char *end)
{
	const char *s = *p, *w;
	char q = 0, *out;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end) {
		*p = s;
		return NULL;
	}
	if (*s == '\'' || *s == '"')
		q = *s++;
	w = s;
	while (s < end && (q ? *s != q : (*s != ' ' && *s != '\t')))
		s++;
	out = strndup(w, (size_t)(s - w));
	if (q && s < end)
		s++;
	*p = s;
	if (!out)
		imgp_fail(ENOMEM, "out of memory");
	return out;
}

/* Whether [p, end) starts with keyword kw followed by a blank or its end. */
static bool starts(const char *p, const char *end, const char *kw)
{
	size_t n = strlen(kw);

	return (size_t)(end - p) >= n && !memcmp(p, kw, n) &&
	       ((size_t)(end - p) == n || p[n] == ' ' || p[n] == '\t');
}

/* A menuentry or submenu line's title and id onto e. 0 or -ENOMEM. */
static int entry_head(struct gentry *e, const char *p, const char *end)
{
	char *w;
	bool id_next = false;

	e->title = word(&p, end);
	if (!e->title)
		e->title = strdup("");
	if (!e->title)
		return imgp_fail(ENOMEM, "out of memory");
	while ((w = word(&p, end))) {
		if (id_next && !e->id) {
			e->id = w;
			w = NULL;
		}
		id_next = w && (!strcmp(w, "$menuentry_id_option") || !strcmp(w, "--id"));
		free(w);
	}
	return 0;
}

/* The entries of grub.cfg's text (len bytes) and its default. 0 or -ENOMEM. */
static int parse_cfg(const char *text, size_t len, struct gcfg *c)
{
	enum { OTHER, MENU, SUB } stack[MAX_DEPTH];
	int depth = 0, ntop = 0, nsub = 0, cur = -1;
	size_t pos = 0;

	memset(c, 0, sizeof(*c));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, start = pos;
		const char *p, *e;

		pos = nl ? end + 1 : len;
		while (end > start && isspace((unsigned char)text[end - 1]))
			end--;
		p = text + start;
		e = text + end;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p == e || *p == '#')
			continue;
		if (*p == '}' && p + 1 == e) {
			if (depth > 0 && stack[--depth] == MENU)
				cur = -1;
			continue;
		}
		if ((starts(p, e, "menuentry") || starts(p, e, "submenu")) && e[-1] == '{') {
			bool sub = *p == 's';
			struct gentry *grown;

			if (depth >= MAX_DEPTH)
				continue;
			grown = realloc(c->e, (c->n + 1) * sizeof(*grown));
			if (!grown)
				return imgp_fail(ENOMEM, "out of memory");
			c->e = grown;
			memset(&grown[c->n], 0, sizeof(*grown));
			grown[c->n].submenu = sub;
			if (depth == 0) {
				grown[c->n].top = ntop++;
				grown[c->n].sub = -1;
				nsub = 0;
			} else {
				grown[c->n].top = ntop - 1;
				grown[c->n].sub = nsub++;
			}
			c->n++;
			p += sub ? 7 : 9;
			if (entry_head(&grown[c->n - 1], p, e - 1))
				return -ENOMEM;
			stack[depth++] = sub ? SUB : MENU;
			cur = sub ? -1 : (int)c->n - 1;
			continue;
		}
		if (e[-1] == '{') {
			if (depth < MAX_DEPTH)
				stack[depth++] = OTHER;
			continue;
		}
		if (cur < 0 && starts(p, e, "set") && depth <= 1) {
			const char *v = p + 3;

			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			if ((size_t)(e - v) >= 8 && !memcmp(v, "default=", 8)) {
				const char *q = v + 8;
				char *val = word(&q, e);

				if (!val && (size_t)(e - v) > 8)
					return -ENOMEM;
				if (val && strcmp(val, "${next_entry}")) {
					free(c->deflt);
					c->deflt = val;
				} else {
					free(val);
				}
			}
			continue;
		}
		if (cur < 0)
			continue;
		if (starts(p, e, "linux")) {
			const char *q = p + 5;
			char *k = word(&q, e);

			if (!k)
				continue;
			free(k);
			c->e[cur].kernel_end = (size_t)(q - text);
			while (q < e && (*q == ' ' || *q == '\t'))
				q++;
			c->e[cur].args = (size_t)(q - text);
			c->e[cur].args_end = end;
			c->e[cur].has_args = true;
		} else if (starts(p, e, "devicetree")) {
			const char *q = p + 10;
			char *w = word(&q, e);

			free(c->e[cur].devicetree);
			c->e[cur].devicetree = w;
		}
	}
	return 0;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* The entry one part of a default names (a number, title or id) at top (-1) or in submenu top. */
static int find_part(const struct gcfg *c, int top, const char *s, size_t n)
{
	long idx = all_digits(s, n) ? strtol(s, NULL, 10) : -1;

	for (size_t i = 0; i < c->n; i++) {
		const struct gentry *g = &c->e[i];

		if ((top < 0 && g->sub != -1) || (top >= 0 && (g->top != top || g->sub < 0)))
			continue;
		if (idx >= 0 ? (top < 0 ? g->top : g->sub) == idx :
		    ((strlen(g->title) == n && !memcmp(g->title, s, n)) ||
		     (g->id && strlen(g->id) == n && !memcmp(g->id, s, n))))
			return (int)i;
	}
	return -1;
}

/* The entry deflt names ("N", "N>M", a title or id); -1: none. */
static int find_default(const struct gcfg *c, const char *deflt)
{
	const char *gt = strchr(deflt, '>');
	int i = find_part(c, -1, deflt, gt ? (size_t)(gt - deflt) : strlen(deflt));

	if (i < 0 || !gt)
		return i;
	return c->e[i].submenu ? find_part(c, c->e[i].top, gt + 1, strlen(gt + 1)) : -1;
}

/* "N" or "N>M" for entry i: where locate() finds it again. */
static int place_of(const struct gentry *g, char *out, size_t n)
{
	if (g->sub < 0)
		snprintf(out, n, "%d", g->top);
	else
		snprintf(out, n, "%d>%d", g->top, g->sub);
	return 0;
}

static int grub_probe(struct imgp_survey *sv)
{
	return imgp_survey_probe_paths_(sv, cfg_paths, NCFG);
}

/* grub.cfg on part: the first of cfg_paths it has. */
static const char *cfg_of(struct imgp_survey *sv, const struct imgp_part *part)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, part);

	for (size_t i = 0; fs && i < NCFG; i++)
		if (imgp_fs_exists_(fs, cfg_paths[i]) > 0)
			return cfg_paths[i];
	imgp_errclear_();
	return cfg_paths[0];
}

/* A grubenv variable (the file beside conf): malloc'd, NULL when unset or empty. */
static char *grubenv(struct imgp_survey *sv, const struct imgp_part *part, const char *conf,
		     const char *key)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, part);
	struct imgp_buf path = { 0 }, text = { 0 };
	char *val = NULL, *cursor, *line;
	size_t dir = (size_t)(strrchr(conf, '/') - conf);

	if (fs && !imgp_buf_printf(&path, "%.*s/grubenv", (int)dir, conf) &&
	    !imgp_survey_read_file_(fs, (char *)path.data, IMGP_TEXT_MAX, &text) &&
	    !imgp_buf_printf(&text, "%s", "")) {
		cursor = (char *)text.data;
		while (!val && (line = imgp_bootinfo_line_(&cursor))) {
			const char *v = imgp_bootinfo_value_(line, key);

			if (v && *v)
				val = strdup(v);
		}
	}
	imgp_errclear_();
	imgp_buf_free(&path);
	imgp_buf_free(&text);
	return val;
}

/*
 * grub.cfg (conf on part) read, its default entry (*booted, -1: none) and
 * why it is the one (*why, malloc'd). Returns 0, -ENOMEM, or a read
 * failure (kept in bi).
 */
static int read_cfg(struct imgp_survey *sv, const struct imgp_part *part,
		    struct imgp_survey_bootinfo *bi, const char *conf, char **text, struct gcfg *c, int *booted, char **why)
{
	char *once = NULL, *saved = NULL;
	const char *want;
	bool none;
	int rc;

	*booted = -1;
	*why = NULL;
	memset(c, 0, sizeof(*c));
	rc = imgp_bootinfo_read_(sv, bi, part, conf, text);
	if (rc)
		return rc;
	rc = parse_cfg(*text, strlen(*text), c);
	if (rc)
		return rc;
	once = grubenv(sv, part, conf, "next_entry");
	want = c->deflt;
	if (want && !strcmp(want, "${saved_entry}")) {
		saved = grubenv(sv, part, conf, "saved_entry");
		want = saved;
	}
	if (once)
		want = once;
	*booted = want && *want ? find_default(c, want) : -1;
	none = want && *want && *booted < 0;
	/* Unset, or naming no entry: GRUB boots the first. */
	if (*booted < 0 && c->n)
		*booted = 0;
	/* A submenu is no entry to boot: its first entry. */
	if (*booted >= 0 && c->e[*booted].submenu)
		*booted = find_part(c, c->e[*booted].top, "0", 1);
	if (asprintf(why, "%s%s%s%s", once ? "grubenv next_entry=" : saved ? "grubenv saved_entry=" :
		     c->deflt ? "set default=" : "no default: the first",
		     once ? once : saved ? saved : c->deflt ? c->deflt : "",
		     none ? ", which names no entry: the first" : "", "") < 0) {
		*why = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	free(once);
	free(saved);
	return rc;
}

/* path of a tree file: a symbolic link (flash-kernel's dtb-VERSION) followed. */
static int tree_file(struct imgp_survey *sv, const char *path, struct imgp_buf *out)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	struct imgp_buf target = { 0 };
	int rc;

	out->len = 0;
	rc = imgp_buf_printf(out, "%s", path);
	for (int hops = 0; !rc && fs && hops < 8 &&
	     imgp_fs_readlink_(fs, (char *)out->data, &target) == 0; hops++) {
		char *t = strndup((char *)target.data, target.len);
		size_t dir = (size_t)(strrchr((char *)out->data, '/') - (char *)out->data);
		char *was = strdup((char *)out->data);

		if (!t || !was) {
			free(t);
			free(was);
			rc = imgp_fail(ENOMEM, "out of memory");
			break;
		}
		out->len = 0;
		rc = t[0] == '/' ? imgp_buf_printf(out, "%s", t) :
				   imgp_buf_printf(out, "%.*s/%s", (int)dir, was, t);
		free(t);
		free(was);
		target.len = 0;
	}
	imgp_errclear_();
	imgp_buf_free(&target);
	return rc;
}

static int grub_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	const char *conf = cfg_of(sv, sv->boot);
	struct imgp_buf path = { 0 };
	char *text = NULL, *why = NULL;
	struct gcfg c;
	int booted, rc;

	rc = imgp_bootinfo_summary_(bi, "GRUB %s", conf);
	if (!rc)
		rc = read_cfg(sv, sv->boot, bi, conf, &text, &c, &booted, &why);
	if (rc) {
		free(text);
		free(why);
		gcfg_free(&c);
		return rc == -ENOMEM ? rc : 0;
	}
	if (booted < 0) {
		rc = imgp_bootinfo_summary_(bi, "GRUB %s, no menuentry", conf);
	} else {
		const struct gentry *g = &c.e[booted];

		rc = imgp_bootinfo_summary_(bi, "GRUB %s, menuentry '%s' (%s), devicetree %s", conf,
					   g->title, why,
					   g->devicetree ? g->devicetree : "(none: the firmware's own)");
		if (!rc && g->devicetree) {
			struct imgp_survey_bootdt *dt;

			rc = tree_file(sv, g->devicetree, &path);
			dt = rc ? NULL : imgp_bootinfo_add_dt_(bi, NULL, (char *)path.data);
			if (!rc && !dt)
				rc = -ENOMEM;
			if (!rc) {
				dt->label = strdup(g->title);
				dt->append = g->has_args ? strndup(text + g->args, g->args_end - g->args)
							 : NULL;
				if (!dt->label || (g->has_args && !dt->append))
					rc = imgp_fail(ENOMEM, "out of memory");
			}
		}
	}
	/* grub-mkconfig's header: update-grub writes the file anew. */
	if (!rc && strstr(text, "It is automatically generated by grub-mkconfig") &&
	    asprintf(&bi->updates, "grub.cfg is regenerated by update-grub (grub-mkconfig) at every kernel install or removal: the linux line's arguments then come from GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT of /etc/default/grub (a --cmdline edit goes there too), devicetree names the new kernel's dtb-VERSION (flash-kernel), which lacks an edit to this tree") < 0) {
		bi->updates = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	imgp_buf_free(&path);
	free(text);
	free(why);
	gcfg_free(&c);
	return rc;
}

/* The arguments of the linux line of the entry at site->arg ("N" or "N>M"). */
static int locate_linux(const struct imgp_cmdline_site *site, const char *text, size_t len,
			struct imgp_cmdline_span *span)
{
	struct gcfg c;
	int i, rc = parse_cfg(text, len, &c);

	memset(span, 0, sizeof(*span));
	i = rc ? -1 : find_default(&c, site->arg);
	if (!rc && (i < 0 || !c.e[i].kernel_end))
		rc = imgp_fail(ENOENT, "%s: menuentry %s has no linux line", site->path, site->arg);
	if (!rc && c.e[i].args < c.e[i].args_end) {
		span->found = true;
		span->start = c.e[i].args;
		span->end = c.e[i].args_end;
	} else if (!rc) {
		span->start = span->end = c.e[i].kernel_end;
		snprintf(span->head, sizeof(span->head), " ");
	}
	gcfg_free(&c);
	return rc;
}

/*
 * update-grub's source of the line: grub-mkconfig's 10_linux writes each
 * entry's linux line as "root=... ro ${GRUB_CMDLINE_LINUX}
 * ${GRUB_CMDLINE_LINUX_DEFAULT}" (recovery: "ro single
 * ${GRUB_CMDLINE_LINUX}") from the root's /etc/default/grub, which it
 * sources with sh. An edit goes there too, or it is gone at the next
 * kernel: a new word to GRUB_CMDLINE_LINUX (every entry has it), a word
 * dropped from either. Not read: the .cfg files of /etc/default/grub.d, sourced after it.
 */
static int cmdline_source(struct imgp_survey *sv, struct imgp_cmdline_site *site)
{
	struct imgp_fs *fs = sv->root ? imgp_survey_fs_(sv, sv->root) : NULL;
	struct imgp_cmdline_site *src;
	int there = fs ? imgp_fs_exists_(fs, DEFAULT_GRUB) : 0;

	imgp_errclear_();
	if (there != 1) {
		if (!sv->root_unread)
			return 0;
		if (asprintf(&site->source_lost, "update-grub (grub-mkconfig) writes grub.cfg anew at the next kernel from GRUB_CMDLINE_LINUX of " DEFAULT_GRUB " on the root, " IMGP_PART_FMT " (%s), which imgpatch cannot write: this edit will not survive update-grub",
			     sv->root_unread->number, sv->root_unread->fstype) < 0) {
			site->source_lost = NULL;
			return imgp_fail(ENOMEM, "out of memory");
		}
		return 0;
	}
	src = calloc(1, sizeof(*src));
	if (!src)
		return imgp_fail(ENOMEM, "out of memory");
	site->source = src;
	src->locate = imgp_cmdline_locate_sh_;
	src->lead = strdup("GRUB_CMDLINE_LINUX_DEFAULT");
	if (!src->lead)
		return imgp_fail(ENOMEM, "out of memory");
	return imgp_cmdline_site_set_(src, sv->root, DEFAULT_GRUB, "GRUB_CMDLINE_LINUX",
				     "update-grub writes it into every entry's linux line when it makes grub.cfg anew",
				     "GRUB_CMDLINE_LINUX");
}

/*
 * The arguments of the default entry's linux line of grub.cfg on part:
 * GRUB hands them to the kernel after BOOT_IMAGE=PATH, its variables
 * ($vt_handoff) filled in.
 */
static int cmdline_on(struct imgp_survey *sv, const struct imgp_part *part,
		      struct imgp_cmdline_site *site)
{
	const char *conf = cfg_of(sv, part);
	struct imgp_survey_bootinfo scratch = { 0 };
	struct imgp_buf what = { 0 };
	char *text = NULL, *why = NULL, place[32];
	struct gcfg c;
	int booted, rc;

	rc = read_cfg(sv, part, &scratch, conf, &text, &c, &booted, &why);
	if (rc && scratch.error)
		rc = imgp_survey_fail_(rc, scratch.error);
	if (!rc && (booted < 0 || !c.e[booted].kernel_end))
		rc = imgp_fail(ENOENT, "%s: the default menuentry has no linux line", conf);
	if (!rc)
		rc = place_of(&c.e[booted], place, sizeof(place));
	if (!rc)
		rc = imgp_buf_printf(&what, "menuentry '%s', linux", c.e[booted].title);
	/* grub-core/lib/cmdline.c: argv[0], the kernel's path, comes first. */
	if (!rc)
		rc = imgp_cmdline_site_set_(site, part, conf, (char *)what.data,
					   "GRUB puts BOOT_IMAGE=<the kernel's path> first, then the arguments after the kernel, one blank between words, its variables filled in",
					   place);
	site->locate = locate_linux;
	if (!rc)
		rc = cmdline_source(sv, site);
	free(scratch.error);
	free(scratch.summary);
	imgp_buf_free(&what);
	free(text);
	free(why);
	gcfg_free(&c);
	return rc;
}

static int grub_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
			struct imgp_cmdline_site *site)
{
	(void)dt;
	return cmdline_on(sv, sv->boot, site);
}

/* The first partition (table order) with grub.cfg. 1, 0 (none), -ENOMEM. */
static int loader_find(struct imgp_survey *sv, const struct imgp_part **part)
{
	int rc = -ENOENT;

	for (size_t i = 0; rc == -ENOENT && i < NCFG; i++) {
		char *error = NULL;

		rc = imgp_survey_find_(sv, cfg_paths[i], part, &error);
		free(error);
	}
	imgp_errclear_();
	return rc == -ENOMEM ? rc : !rc;
}

/* Whether the default entry of grub.cfg on part has a devicetree line. 1, 0, -ENOMEM. */
static int loader_devicetree(struct imgp_survey *sv, const struct imgp_part *part,
			     char **path)
{
	struct imgp_survey_bootinfo scratch = { 0 };
	char *text = NULL, *why = NULL;
	struct gcfg c;
	int booted, rc;

	*path = NULL;
	rc = read_cfg(sv, part, &scratch, cfg_of(sv, part), &text, &c, &booted, &why);
	if (!rc && booted >= 0 && c.e[booted].devicetree) {
		*path = strdup(c.e[booted].devicetree);
		rc = *path ? 1 : imgp_fail(ENOMEM, "out of memory");
	}
	free(scratch.error);
	free(scratch.summary);
	free(text);
	free(why);
	gcfg_free(&c);
	imgp_errclear_();
	return rc == -ENOMEM || rc == 1 ? rc : 0;
}

/* GRUB's configuration and the kernels its menu names. */
static const char *const grub_loads[] = {
	"*/grub.cfg", "*/grubenv", "*/vmlinuz*", "*/initrd*", NULL,
};

const struct imgp_bootpath imgp_bootpath_grub_ = {
	.name = "grub",
	.named_by = "grub.cfg",
	.loads = grub_loads,
	.probe = grub_probe,
	.describe = grub_describe,
	.cmdline = grub_cmdline,
};

const struct imgp_efi_loader imgp_efi_loader_grub_ = {
	.name = "GRUB",
	.updates = "update-grub (grub-mkconfig) writes grub.cfg anew at every kernel install or removal, the linux line's arguments from GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT of /etc/default/grub (a --cmdline edit goes there too)",
	.find = loader_find,
	.devicetree = loader_devicetree,
	.cmdline = cmdline_on,
};
