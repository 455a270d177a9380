// SPDX-License-Identifier: MIT
/*
 * Boot path "extlinux": U-Boot's sysboot reads /extlinux/extlinux.conf or
 * /boot/extlinux/extlinux.conf (its distro boot prefixes) and boots the
 * label DEFAULT (or ONTIMEOUT) names, the last one that does; a "menu
 * default" in a label counts when none was named before it; with none,
 * the first label. It reads a label as boot/pxe_utils.c does: keywords in
 * any case; the first FDT (DEVICETREE), FDTDIR (DEVICETREEDIR) and
 * FDTOVERLAYS (DEVICETREE-OVERLAY) line counts, and a second one, or a
 * word that is no label keyword, ends the label there; FDT wins over
 * FDTDIR, under which U-Boot loads ${fdtfile} (else ${soc}-${board}.dtb);
 * the overlays are applied in their order; a path without a leading '/'
 * is relative to the folder of extlinux.conf. Jetson's L4T writes
 * OVERLAYS, read as FDTOVERLAYS. Debian's u-boot-menu writes such a file
 * on the root.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

static const char *const conf_paths[] = {
	"/extlinux/extlinux.conf", "/boot/extlinux/extlinux.conf",
};
#define NCONF (sizeof(conf_paths) / sizeof(conf_paths[0]))

struct label {
	const char *name, *kernel, *initrd, *append, *fdt, *fdtdir, *overlays;
};

/* The room pxe_utils.c gives each overlay: fdt_shrink_to_minimum(fdt, 8192). */
#define PXE_OVERLAY_ROOM 8192

/* The value after keyword (case-insensitive, as U-Boot's pxe parser); NULL: another. */
static const char *keyword(const char *line, const char *word)
{
	size_t n = strlen(word);

	if (strncasecmp(line, word, n) != 0 || (line[n] && !isspace((unsigned char)line[n])))
		return NULL;
	line += n;
	while (isspace((unsigned char)*line))
		line++;
	return line;
}

/*
 * A label's setting. U-Boot keeps the first line of a keyword; a second
 * one leaves its value unread, which ends the label (pxe_utils.c's
 * parse_label returns at a word it has no case for): false then.
 */
static bool set_once(const char **field, const char *value)
{
	if (*field)
		return false;
	*field = value;
	return true;
}

/* The other keywords of a label in U-Boot 2023.01 (any other ends it). */
static bool label_keyword(const char *line)
{
	static const char *const words[] = {
		"menu", "kernel", "linux", "append", "localboot",
		"ipappend", "kaslrseed",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (keyword(line, words[i]))
			return true;
	return false;
}

/*
 * path as U-Boot's get_relfile() reads it for a file named in conf:
 * absolute as is, else after the folder of conf. Into out (emptied).
 */
static int relfile(struct imgp_buf *out, const char *conf, const char *path)
{
	size_t dir = (size_t)(strrchr(conf, '/') - conf) + 1;

	out->len = 0;
	return path[0] == '/' ? imgp_buf_printf(out, "%s", path) :
				imgp_buf_printf(out, "%.*s%s", (int)dir, conf, path);
}

/* Each overlay of list, resolved against conf, onto dt. */
static int add_overlays(struct imgp_survey_bootdt *dt, const char *conf,
			const char *list)
{
	struct imgp_buf path = { 0 }, name = { 0 };
	int rc = 0;

	while (!rc && list && *list) {
		size_t n;

		list += strspn(list, " \t");
		n = strcspn(list, " \t");
		if (!n)
			break;
		name.len = 0;
		rc = imgp_buf_printf(&name, "%.*s", (int)n, list);
		if (!rc)
			rc = relfile(&path, conf, (char *)name.data);
		if (!rc)
			rc = imgp_bootinfo_add_overlay_room_(dt, (char *)path.data,
							    PXE_OVERLAY_ROOM);
		list += n;
	}
	imgp_buf_free(&name);
	imgp_buf_free(&path);
	return rc;
}

static int extlinux_probe(struct imgp_survey *sv)
{
	return imgp_survey_probe_paths_(sv, conf_paths, NCONF);
}


static int add_label(struct imgp_survey *sv, const char *conf, struct label *labels,
		     size_t nlabels, const struct label *l, struct imgp_survey_bootdt *dt,
		     const char *rel);

/* The labels of extlinux.conf, and the one booted. */
struct labels {
	const char *conf;
	struct label *all;
	size_t n;
	const struct label *booted;
	const char *root;        /* the booted label's FDTDIR, resolved */
};

/* Every *.dtb in dir and its vendor subdirectories, as U-Boot may pick by ${fdtfile}. */
static int add_dtbdir(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
		      const struct labels *ls, const char *dir, int depth)
{
	const char *conf = ls->conf;
	const struct label *l = ls->booted;

	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	struct imgp_buf path = { 0 };
	char **names = NULL;
	size_t n = 0;
	int rc;

	rc = fs ? imgp_fs_list_(fs, dir, &names, &n) : -ENOTSUP;
	/* A folder that is not there holds no tree; one that does not list is said. */
	if (rc == -ENOENT || rc == -ENOTDIR) {
		imgp_errclear_();
		return 0;
	}
	if (rc) {
		if (imgp_survey_keep_(rc, &bi->error) == -ENOMEM && !bi->error)
			return -ENOMEM;
		bi->rc = rc;
		return 0;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		size_t len = strlen(names[i]);
		struct imgp_survey_bootdt *dt;

		path.len = 0;
		rc = imgp_buf_printf(&path, "%s%s%s", dir,
				     dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
		if (rc)
			break;
		if (len < 5 || strcmp(names[i] + len - 4, ".dtb") != 0) {
			if (depth == 0 && !strchr(names[i], '.'))
				rc = add_dtbdir(sv, bi, ls, (char *)path.data, 1);
			continue;
		}
		dt = imgp_bootinfo_add_dt_(bi, NULL, (char *)path.data);
		if (!dt)
			rc = -ENOMEM;
		if (!rc)
			rc = add_overlays(dt, conf, l->overlays);
		if (!rc) {
			const char *rel = (char *)path.data + strlen(ls->root);

			rc = add_label(sv, conf, ls->all, ls->n, l, dt, rel + strspn(rel, "/"));
		}
	}
	imgp_fs_list_free_(names, n);
	imgp_buf_free(&path);
	return rc;
}

/* Whether the file a label names (relative to conf) is on the boot partition. */
static bool label_file(struct imgp_survey *sv, const char *conf, const char *name)
{
	struct imgp_buf path = { 0 };
	bool yes = false;

	if (!relfile(&path, conf, name))
		yes = imgp_bootinfo_exists_(sv, (char *)path.data);
	imgp_buf_free(&path);
	return yes;
}

/*
 * The labels sysboot goes on to when the one booted fails, onto dt->next:
 * boot_unattempted_labels() tries the others in the file's order, and a
 * label without a kernel, or whose kernel, initrd or FDT does not load,
 * fails in turn. Each gets its tree for the board dt is for: its FDT file,
 * or the same name under its FDTDIR (rel: dt's path under its FDTDIR;
 * NULL: none, and U-Boot's own tree then). Returns 0 or -ENOMEM.
 */
static int add_fallbacks(struct imgp_survey *sv, const char *conf, struct label *labels,
			 size_t nlabels, const struct label *booted,
			 struct imgp_survey_bootdt *dt, const char *rel)
{
	struct imgp_buf path = { 0 };
	int rc = 0;

	for (size_t i = 0; !rc && i < nlabels; i++) {
		const struct label *l = &labels[i];
		struct imgp_survey_bootdt *next;

		if (l == booted || !l->kernel || !label_file(sv, conf, l->kernel) ||
		    (l->initrd && *l->initrd && !label_file(sv, conf, l->initrd)) ||
		    (l->fdt && *l->fdt && !label_file(sv, conf, l->fdt)))
			continue;
		path.len = 0;
		if (l->fdt && *l->fdt)
			rc = relfile(&path, conf, l->fdt);
		else if (l->fdtdir && *l->fdtdir && rel)
			rc = relfile(&path, conf, l->fdtdir);
		if (!rc && !(l->fdt && *l->fdt) && l->fdtdir && *l->fdtdir && rel)
			rc = imgp_buf_printf(&path, "%s%s", path.len &&
					     ((char *)path.data)[path.len - 1] == '/' ? "" : "/", rel);
		next = rc ? NULL : calloc(1, sizeof(*next));
		if (!next)
			rc = rc ? rc : imgp_fail(ENOMEM, "out of memory");
		if (rc)
			break;
		dt->next = next;
		next->label = strdup(l->name);
		next->append = l->append ? strdup(l->append) : NULL;
		next->path = path.len ? strdup((char *)path.data) : NULL;
		if (!next->label || (l->append && !next->append) || (path.len && !next->path))
			rc = imgp_fail(ENOMEM, "out of memory");
		if (!rc)
			rc = add_overlays(next, conf, l->overlays);
		dt = next;
	}
	imgp_buf_free(&path);
	return rc;
}

/* The label's name and arguments on dt, and the labels sysboot tries after it. */
static int add_label(struct imgp_survey *sv, const char *conf, struct label *labels,
		     size_t nlabels, const struct label *l, struct imgp_survey_bootdt *dt,
		     const char *rel)
{
	dt->label = strdup(l->name);
	dt->append = l->append ? strdup(l->append) : NULL;
	if (!dt->label || (l->append && !dt->append))
		return imgp_fail(ENOMEM, "out of memory");
	return add_fallbacks(sv, conf, labels, nlabels, l, dt, rel);
}

/*
 * The tree of fdtdir that the image's own U-Boot loads (its fdtfile, else
 * ${soc}-${board}.dtb, joined to the folder with a '/' as pxe_utils.c
 * does): marked, and named in the summary. Returns 0 or -ENOMEM.
 */
static int mark_uboot_tree(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
			   const char *dir)
{
	struct imgp_buf want = { 0 };
	const char *found = NULL;
	int rc;

	if (!sv->uboot.tree)
		return 0;
	rc = imgp_buf_printf(&want, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
			     sv->uboot.tree);
	for (size_t i = 0; !rc && i < bi->ndts; i++)
		if (!strcmp(bi->dts[i].path, (char *)want.data)) {
			bi->dts[i].uboot_default = true;
			found = bi->dts[i].path;
		}
	if (!rc)
		rc = imgp_bootinfo_summary_(bi, "%s; the image's U-Boot: %s %s%s", bi->summary,
					   sv->uboot.tree_from, sv->uboot.tree,
					   found ? "" : " (not there)");
	imgp_buf_free(&want);
	return rc;
}

/*
 * What Debian's u-boot-update will make of a file it wrote (see
 * uboot-menu.c), in bi->updates, and the overlays of the booted label l
 * it will not write again in bi->dropped; what it reads is kept in
 * sv->generator for patch. Returns 0 or -ENOMEM.
 */
static int describe_updates(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
			    const struct label *l, bool boot_part)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	struct imgp_fs *root = boot_part ? imgp_survey_fs_(sv, sv->root) : fs;
	struct imgp_buf list = { 0 }, from = { 0 }, gone = { 0 }, where = { 0 };
	struct imgp_uboot_menu *mp = calloc(1, sizeof(*mp));
	int rc;

	if (!fs || !root || !mp) {
		free(mp);
		if (!mp)
			return imgp_fail(ENOMEM, "out of memory");
		imgp_errclear_();
		return 0;
	}
	rc = imgp_uboot_menu_read_(root, boot_part ? fs : NULL, mp);
	if (rc) {
		free(mp);
		return rc;
	}
	sv->generator = mp;
	for (size_t i = 0; !rc && i < mp->nwords; i++)
		rc = imgp_buf_printf(&list, "%s%s", i ? " " : "", mp->words[i]);
	if (!rc && mp->overlays)
		rc = imgp_buf_printf(&from, "U_BOOT_FDT_OVERLAYS of %s", mp->overlays_file);
	/* On a /boot partition the folder is a path on it, under the mount point. */
	if (!rc && boot_part)
		rc = imgp_uboot_menu_path_("/boot", mp->dir, &gone);
	if (!rc && boot_part)
		rc = imgp_buf_printf(&where, " on the /boot partition " IMGP_PART_FMT " (%s once mounted)",
				     sv->boot->number, (char *)gone.data);
	gone.len = 0;
	if (!rc && !mp->overlays)
		rc = imgp_buf_printf(&from, "every *.dtbo of %s%s", mp->dir,
				     where.len ? (char *)where.data : "");
	if (!rc && !mp->overlays && !mp->dir_exists)
		rc = imgp_buf_printf(&from, ", which is not there");
	for (const char *p = l ? l->overlays : NULL; !rc && p && *p;) {
		size_t k;
		char *word;
		bool kept = false;

		p += strspn(p, " \t");
		k = strcspn(p, " \t");
		if (!k)
			break;
		word = strndup(p, k);
		if (!word) {
			rc = imgp_fail(ENOMEM, "out of memory");
			break;
		}
		for (size_t i = 0; i < mp->nwords; i++)
			kept |= !strcmp(mp->words[i], word);
		if (!kept) {
			char **grown = realloc(bi->dropped, (bi->ndropped + 1) * sizeof(*grown));

			rc = grown ? imgp_buf_printf(&gone, "%s%s", gone.len ? " " : "", word) :
				     imgp_fail(ENOMEM, "out of memory");
			if (grown) {
				bi->dropped = grown;
				grown[bi->ndropped++] = word;
				word = NULL;
			}
		}
		free(word);
		p += k;
	}
	if (!rc && asprintf(&bi->updates, "extlinux.conf is regenerated by u-boot-update at every kernel install or removal: fdtoverlays then lists %s (%s)%s%s; the trees are the new kernel's, an edited tree file is not carried over",
			    list.len ? (char *)list.data : "nothing", (char *)from.data,
			    gone.len ? "; dropped: " : "",
			    gone.len ? (char *)gone.data : "") < 0) {
		bi->updates = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	imgp_buf_free(&list);
	imgp_buf_free(&from);
	imgp_buf_free(&gone);
	imgp_buf_free(&where);
	return rc;
}

/* The extlinux.conf of the boot partition: the first of U-Boot's prefixes that has one. */
static const char *conf_of(struct imgp_survey *sv)
{
	for (size_t i = 0; i < NCONF; i++)
		if (imgp_bootinfo_exists_(sv, conf_paths[i]))
			return conf_paths[i];
	return conf_paths[0];
}

/*
 * The labels of extlinux.conf's text (written into: the labels point into
 * it) and the one sysboot boots: DEFAULT's (ONTIMEOUT's), else a "menu
 * default" one, else the first; NULL without labels. 0 or -ENOMEM.
 */
static int parse_conf(char *text, struct label **out, size_t *nout,
		      struct label **booted)
{
	struct label *labels = NULL, *cur = NULL, *l = NULL;
	const char *deflt = NULL;
	char *cursor = text, *line;
	size_t nlabels = 0;

	while ((line = imgp_bootinfo_line_(&cursor))) {
		const char *v;

		if (!*line)
			continue;
		if ((v = keyword(line, "default")) || (v = keyword(line, "ontimeout")))
			deflt = v;
		else if ((v = keyword(line, "label"))) {
			struct label *grown = realloc(labels, (nlabels + 1) * sizeof(*labels));

			if (!grown) {
				free(labels);
				return imgp_fail(ENOMEM, "out of memory");
			}
			labels = grown;
			cur = &labels[nlabels++];
			*cur = (struct label){ .name = v };
		} else if (!cur)
			continue;
		else if ((v = keyword(line, "kernel")) || (v = keyword(line, "linux")))
			cur->kernel = v;  /* a later line replaces it, as in parse_label() */
		else if ((v = keyword(line, "append")))
			cur->append = v;
		else if ((v = keyword(line, "initrd")))
			cur = set_once(&cur->initrd, v) ? cur : NULL;
		else if ((v = keyword(line, "fdt")) || (v = keyword(line, "devicetree")))
			cur = set_once(&cur->fdt, v) ? cur : NULL;
		else if ((v = keyword(line, "fdtdir")) || (v = keyword(line, "devicetreedir")))
			cur = set_once(&cur->fdtdir, v) ? cur : NULL;
		else if ((v = keyword(line, "fdtoverlays")) ||
			 (v = keyword(line, "devicetree-overlay")) ||
			 (v = keyword(line, "overlays")))
			cur = set_once(&cur->overlays, v) ? cur : NULL;
		else if ((v = keyword(line, "menu")) && keyword(v, "default") && !deflt)
			deflt = cur->name;
		else if (!label_keyword(line))
			cur = NULL;
	}
	for (size_t i = 0; i < nlabels && !l; i++)
		if (deflt && strcmp(labels[i].name, deflt) == 0)
			l = &labels[i];
	if (!l && nlabels)
		l = &labels[0];
	*out = labels;
	*nout = nlabels;
	*booted = l;
	return 0;
}

static int extlinux_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	struct label *labels = NULL, *l = NULL;
	const char *conf = conf_of(sv);
	struct imgp_buf path = { 0 };
	size_t nlabels = 0;
	char *text;
	bool made, boot_part;
	int rc;

	rc = imgp_bootinfo_summary_(bi, "extlinux %s", conf);
	if (!rc)
		rc = imgp_bootinfo_read_(sv, bi, sv->boot, conf, &text);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	/*
	 * u-boot-update writes only /boot/extlinux/extlinux.conf: on the root,
	 * or at the top of the partition the root mounts at /boot.
	 */
	made = imgp_uboot_menu_made_(text, strlen(text));
	boot_part = made && !strcmp(conf, "/extlinux/extlinux.conf");
	rc = boot_part ? imgp_survey_boot_mounted_(sv) : 0;
	if (rc < 0) {
		free(text);
		return rc;
	}
	made = made && (boot_part ? rc == 1 : !strcmp(conf, "/boot/extlinux/extlinux.conf"));
	rc = parse_conf(text, &labels, &nlabels, &l);
	if (rc) {
		free(text);
		return rc;
	}
	if (made)
		rc = describe_updates(sv, bi, l, boot_part);
	if (!rc && !l) {
		rc = imgp_bootinfo_summary_(bi, "extlinux %s, no LABEL", conf);
	} else if (!rc) {
		rc = imgp_bootinfo_summary_(bi, "extlinux %s, label %s, %s %s%s, overlays: %s",
					   conf, l->name,
					   l->fdt && *l->fdt ? "fdt" :
					   l->fdtdir ? "fdtdir" : "fdt",
					   l->fdt && *l->fdt ? l->fdt :
					   l->fdtdir ? l->fdtdir : "(none: U-Boot's own)",
					   !(l->fdt && *l->fdt) && l->fdtdir ? " + ${fdtfile}" : "",
					   l->overlays && *l->overlays ? l->overlays : "none");
		if (!rc && l->fdt && *l->fdt) {
			struct imgp_survey_bootdt *dt = NULL;

			rc = relfile(&path, conf, l->fdt);
			if (!rc)
				dt = imgp_bootinfo_add_dt_(bi, NULL, (char *)path.data);
			rc = dt ? 0 : -ENOMEM;
			if (!rc)
				rc = add_overlays(dt, conf, l->overlays);
			if (!rc)
				rc = add_label(sv, conf, labels, nlabels, l, dt, NULL);
		} else if (!rc && l->fdtdir && *l->fdtdir) {
			rc = relfile(&path, conf, l->fdtdir);
			if (!rc) {
				struct labels ls = { conf, labels, nlabels, l, (char *)path.data };

				rc = add_dtbdir(sv, bi, &ls, (char *)path.data, 0);
			}
			if (!rc)
				rc = mark_uboot_tree(sv, bi, (char *)path.data);
			bi->chooser = "fdtfile";
		}
	}
	imgp_buf_free(&path);
	free(labels);
	free(text);
	return rc;
}

/* The label site->arg names (NULL: the one booted) of a copy of text; -ENOENT: none. */
static int find_label(const struct imgp_cmdline_site *site, char *copy,
		      struct label **labels, const struct label **l)
{
	struct label *booted;
	size_t n;
	int rc = parse_conf(copy, labels, &n, &booted);

	*l = booted;
	for (size_t i = 0; !rc && site->arg && i < n; i++)
		if (!strcmp((*labels)[i].name, site->arg)) {
			*l = &(*labels)[i];
			break;
		}
	if (!rc && (!*l || (site->arg && strcmp((*l)->name, site->arg))))
		rc = imgp_fail(ENOENT, "%s: no LABEL %s", site->path, site->arg ? site->arg : "");
	return rc;
}

/*
 * The append line of the label: its value; without one, a new line goes
 * right after the label's, indented as the line after it is.
 */
static int locate_append(const struct imgp_cmdline_site *site, const char *text,
			 size_t len, struct imgp_cmdline_span *span)
{
	char *copy = strndup(text, len);
	struct label *labels = NULL;
	const struct label *l;
	int rc;

	memset(span, 0, sizeof(*span));
	if (!copy)
		return imgp_fail(ENOMEM, "out of memory");
	rc = find_label(site, copy, &labels, &l);
	if (!rc && l->append) {
		span->start = (size_t)(l->append - copy);
		span->end = span->start + strlen(l->append);
		span->found = true;
		/* "append" with nothing after it: the word needs a blank before it. */
		if (span->start == span->end && span->start &&
		    !isspace((unsigned char)text[span->start - 1])) {
			span->found = false;
			snprintf(span->head, sizeof(span->head), " ");
		}
	} else if (!rc) {
		const char *nl = memchr(text + (l->name - copy), '\n',
					len - (size_t)(l->name - copy));
		const char *next = nl ? nl + 1 : text + len;
		int indent = (int)strspn(next, " \t");

		span->start = span->end = (size_t)(next - text);
		snprintf(span->head, sizeof(span->head), "%s%.*sappend ", nl ? "" : "\n",
			 indent ? indent : 1, indent ? next : "\t");
		snprintf(span->tail, sizeof(span->tail), "\n");
	}
	free(labels);
	free(copy);
	return rc;
}

/*
 * u-boot-update's source of the line: it writes each default label's
 * append as "${U_BOOT_ROOT} ${U_BOOT_PARAMETERS}", the parameters the
 * last assignment of /etc/default/u-boot and the conf.d files sourced
 * after it (unset or empty: /etc/kernel/cmdline's words but root=, else
 * "ro quiet"). An edit goes there too, or it is gone at the next kernel.
 */
static int cmdline_source(struct imgp_survey *sv, struct imgp_cmdline_site *site)
{
	const struct imgp_uboot_menu *gen = sv->generator;
	const struct imgp_part *root = gen && gen->boot_part ? sv->root : sv->boot;
	struct imgp_cmdline_site *src;
	int rc;

	if (!gen || !root)
		return 0;
	if (!gen->params_file && gen->kernel_cmdline) {
		site->source_lost = strdup("u-boot-update writes extlinux.conf anew at the next kernel with the words of /etc/kernel/cmdline, which imgpatch does not edit: this edit lasts until then");
		return site->source_lost ? 0 : imgp_fail(ENOMEM, "out of memory");
	}
	src = calloc(1, sizeof(*src));
	if (!src)
		return imgp_fail(ENOMEM, "out of memory");
	site->source = src;
	src->locate = imgp_cmdline_locate_sh_;
	/* Not set: the words u-boot-update puts there itself. */
	src->base = gen->params_file ? NULL : strdup("ro quiet");
	rc = gen->params_file || src->base ? 0 : imgp_fail(ENOMEM, "out of memory");
	if (!rc)
		rc = imgp_cmdline_site_set_(src, root,
					   gen->params_file ? gen->params_file : "/etc/default/u-boot",
					   "U_BOOT_PARAMETERS",
					   "u-boot-update writes it after root= into each label's append line when it makes extlinux.conf anew",
					   "U_BOOT_PARAMETERS");
	return rc;
}

/*
 * The append line of the label sysboot boots: pxe_utils.c's label_boot()
 * sets bootargs to it, its ${variables} filled in from U-Boot's
 * environment; a label without one leaves the environment's bootargs.
 */
static int extlinux_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
			    struct imgp_cmdline_site *site)
{
	const char *conf = conf_of(sv);
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	struct imgp_buf text = { 0 }, what = { 0 };
	struct label *labels = NULL;
	const struct label *l = NULL;
	char *copy = NULL;
	int rc;

	rc = fs ? imgp_survey_read_file_(fs, conf, IMGP_TEXT_MAX, &text) : -ENOTSUP;
	if (!rc)
		rc = imgp_buf_printf(&text, "%s", "");
	if (!rc)
		rc = imgp_cmdline_site_set_(site, sv->boot, conf, NULL, NULL,
					   dt && dt->label ? dt->label : NULL);
	if (!rc && !(copy = strdup((char *)text.data)))
		rc = imgp_fail(ENOMEM, "out of memory");
	if (!rc)
		rc = find_label(site, copy, &labels, &l);
	if (!rc)
		rc = imgp_buf_printf(&what, "label %s, append", l->name);
	if (!rc)
		rc = imgp_cmdline_site_set_(site, sv->boot, conf, (char *)what.data,
					   l->append ? "U-Boot's sysboot hands it over as it is, ${variables} filled in from its environment" :
					   "the label has no append line: U-Boot hands over the bootargs of its own environment",
					   l->name);
	site->locate = locate_append;
	if (!rc)
		rc = cmdline_source(sv, site);
	free(labels);
	free(copy);
	imgp_buf_free(&what);
	imgp_buf_free(&text);
	return rc;
}

/*
 * Beside the tree, on the label's fdtoverlays line; under u-boot-update,
 * in its U_BOOT_FDT_OVERLAYS_DIR and named as it names it.
 */
static int extlinux_overlay_site(const struct imgp_boot_view *boot,
			const struct imgp_survey_bootdt *dt, const char *name,
			const struct imgp_uboot_menu *gen, struct imgp_overlay_site *h)
{
	const char *tree = dt->path;
	static const char *const confs[] = {
		"/extlinux/extlinux.conf", "/boot/extlinux/extlinux.conf",
	};
	const char *slash = strrchr(tree, '/');
	int dirlen = slash ? (int)(slash - tree) : 0;
	bool existed = false;
	int rc = 0;

	for (size_t i = 0; !rc && !existed && i < 2; i++) {
		snprintf(h->list, sizeof(h->list), "%s", confs[i]);
		rc = boot->exists(boot->ctx, confs[i], &existed);
	}
	if (rc)
		return rc;
	snprintf(h->file, sizeof(h->file), "%.*s/%s.dtbo", dirlen, tree, name);
	h->key = "fdtoverlays";
	snprintf(h->word, sizeof(h->word), "%s", h->file);
	if (gen) {
		struct imgp_buf at = { 0 };

		/* Where u-boot-update finds it, named as it names it. */
		snprintf(h->word, sizeof(h->word), "%s/%s.dtbo", gen->dir, name);
		rc = imgp_uboot_menu_path_(gen->dir, h->word + strlen(gen->dir) + 1, &at);
		if (!rc)
			snprintf(h->file, sizeof(h->file), "%s", (char *)at.data);
		if (!rc && !gen->dir_exists)
			rc = imgp_uboot_menu_path_(gen->dir, NULL, &at);
		if (!rc && !gen->dir_exists) {
			snprintf(h->folder, sizeof(h->folder), "%s", (char *)at.data);
			h->folder_why = "made for u-boot-update, which lists the overlays of U_BOOT_FDT_OVERLAYS_DIR only when that folder is there";
		}
		imgp_buf_free(&at);
	}
	return rc;
}

/* What sysboot reads: the menu, and the kernels and initrds Debian names. */
static const char *const extlinux_loads[] = {
	"*/extlinux.conf", "*/vmlinuz*", "*/vmlinux*", "*/initrd.img*", NULL,
};

const struct imgp_bootpath imgp_bootpath_extlinux_ = {
	.name = "extlinux",
	.named_by = "extlinux.conf",
	.loads = extlinux_loads,
	.probe = extlinux_probe,
	.describe = extlinux_describe,
	.overlay_room = PXE_OVERLAY_ROOM,
	.cmdline = extlinux_cmdline,
	.overlay_site = extlinux_overlay_site,
	.list = &imgp_list_extlinux_,
	/* pxe_utils.c: a label whose FDT does not load is skipped; FDTDIR boots U-Boot's own. */
	.on_missing_tree = "U-Boot skips the label (FDT), or boots the kernel with U-Boot's own tree (FDTDIR)",
	.on_no_room = "sysboot gives each FDTOVERLAYS entry 8 KiB: make the overlay smaller, or put its change into the tree file (imgpatch patch --via file)",
	.keep_overlay = "list it where the generator reads it (imgpatch info IMAGE, its updates: line, says where); imgpatch patch --via overlay puts a new overlay there",
};
