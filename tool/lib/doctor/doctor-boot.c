// SPDX-License-Identifier: MIT
/*
 * The boot script: does it load the file a device-tree fix is written to
 * (user-override.dtb next to a FIT, user.scr on postmarketOS), and which
 * FIT configuration does it pick for each board it tells apart? The
 * second follows the shape of Ubuntu's Kria script: "setenv fit_config
 * NAME" lines inside "if test ...; then / else / fi" blocks, one
 * statement a line; anything else that touches fit_config makes the
 * check say nothing rather than guess. Then the effective trees: a base
 * tree that is not there, an overlay that does not take effect.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <libfdt.h>

#include "doctor/doctor.h"
#include "boot/bootpath.h"

#define COND_DEPTH 16
#define COND_MAX 256

/* A board the script selects, and the configuration it boots. */
struct fit_choice {
	char when[COND_DEPTH * (COND_MAX + 8)];
	char conf[128];
	int line;
};

/* Findings about the trees the board boots: what a hook would let one fix. */
static size_t tree_findings(const struct doctor *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->out->n; i++)
		n += d->out->findings[i].node != NULL;
	return n;
}

static int check_hook(struct doctor *d)
{
	const char *word = NULL;
	struct imgp_finding *f;
	int rc;

	/* The boot path says which file its script must load (bootpath-*.c). */
	word = d->sv.hook;
	if (!word || d->sv.hook_loaded)
		return 0;
	f = imgp_doctor_add_milder_(d, DOCTOR_BOOT_OVERRIDE_IGNORED, !tree_findings(d));
	if (!f)
		return -ENOMEM;
	f->partition = d->sv.boot->number;
	rc = imgp_doctor_set_(&f->property, "%s", word);
	if (!rc && d->sv.script.path)
		rc = imgp_doctor_set_(&f->file, "%s", d->sv.script.path);
	if (!rc)
		rc = d->sv.script.path ?
		     imgp_doctor_set_(&f->title, "the boot script %s never loads %s: a fixed tree there is ignored",
				d->sv.script.path, word) :
		     imgp_doctor_set_(&f->title, "no boot script (boot.scr.uimg, boot.scr) loads %s: a fixed tree there is ignored",
				word);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "device-tree fixes cannot take effect this way: the board keeps booting the tree it has%s",
				tree_findings(d) ? ", with the findings above" : "");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, strcmp(word, "user.scr") == 0 ?
				"boot with a boot.scr that loads and sources user.scr after loading the tree, as postmarketOS's does" :
				"boot with a script that loads " IMGP_OVERRIDE_PATH " when it exists, as Ubuntu's Kria boot.scr.uimg does");
	return rc;
}

/* "test \"${card1_rev}\" = \"B\" || test ..." -> "card1_rev = B or ..." */
static void cond_text(const char *s, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 4 < outlen; i++) {
		if (strncmp(s + i, "test ", 5) == 0 && (i == 0 || s[i - 1] == ' ')) {
			i += 4;
		} else if (strncmp(s + i, "${", 2) == 0) {
			i++;
		} else if (s[i] == '"' || s[i] == '}') {
			continue;
		} else if (strncmp(s + i, "||", 2) == 0 || strncmp(s + i, "&&", 2) == 0) {
			const char *w = s[i] == '|' ? "or" : "and";

			memcpy(out + o, w, strlen(w));
			o += strlen(w);
			i++;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

static bool starts(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && strncmp(s, word, n) == 0 &&
	       (len == n || s[n] == ' ' || s[n] == '\t' || s[n] == ';');
}

struct cond {
	char text[COND_MAX];
	bool negated;
};

static void choice_when(const struct cond *stack, int depth, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	if (depth == 0)
		snprintf(out, len, "by default");
	for (int i = 0; i < depth && o < len; i++) {
		/* "a and (b or c)": an "or" inside an "and" keeps its parentheses. */
		bool paren = stack[i].negated || (depth > 1 && strstr(stack[i].text, " or "));
		int n = snprintf(out + o, len - o, "%s%s%s%s%s", i ? " and " : "",
				 stack[i].negated ? "not " : "", paren ? "(" : "",
				 stack[i].text, paren ? ")" : "");

		if (n < 0)
			break;
		o += (size_t)n;
	}
}

/*
 * Reads the choices into out (struct fit_choice, as many as the script
 * makes); returns how many, 0 when the script does not choose by board or
 * has a shape this reader does not follow, or -ENOMEM.
 */
static int read_choices(const char *text, size_t text_len, struct imgp_buf *out_buf)
{
	struct cond stack[COND_DEPTH];
	const char *end = text + text_len, *p = text;
	struct fit_choice *out = NULL;
	int depth = 0, line = 0;
	size_t n = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *s = p, *e = eol ? eol : end;
		size_t len;

		line++;
		p = eol ? eol + 1 : end;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == ';'))
			e--;
		len = (size_t)(e - s);
		if (len == 0 || *s == '#')
			continue;
		if (starts(s, len, "if")) {
			const char *then = len > 7 ? s + len - 4 : NULL;

			/* "if COND; then" on its own line, nothing after "then". */
			if (!then || strncmp(then, "then", 4) != 0 || depth == COND_DEPTH ||
			    memmem(s, len, "fit_config", 10))
				return 0;
			cond_text(s + 3, (size_t)(then - s - 3), stack[depth].text,
				  sizeof(stack[depth].text));
			/* Drop the "; " left before "then". */
			for (char *t = stack[depth].text + strlen(stack[depth].text);
			     t > stack[depth].text && (t[-1] == ' ' || t[-1] == ';'); t--)
				t[-1] = '\0';
			stack[depth++].negated = false;
		} else if (len == 4 && strncmp(s, "else", 4) == 0) {
			if (depth == 0 || stack[depth - 1].negated)
				return 0;
			stack[depth - 1].negated = true;
		} else if (len == 2 && strncmp(s, "fi", 2) == 0) {
			if (depth == 0)
				return 0;
			depth--;
		} else if (starts(s, len, "setenv") && memmem(s, len, "fit_config", 10)) {
			const char *name = s + 6;
			size_t nlen;

			while (name < e && (*name == ' ' || *name == '\t'))
				name++;
			if ((size_t)(e - name) < 11 || strncmp(name, "fit_config", 10) != 0 ||
			    (name[10] != ' ' && name[10] != '\t'))
				return 0;
			if (imgp_buf_reserve_(out_buf, sizeof(*out)))
				return -ENOMEM;
			out_buf->len += sizeof(*out);
			out = (struct fit_choice *)out_buf->data;
			memset(&out[n], 0, sizeof(*out));
			name += 11;
			while (name < e && (*name == ' ' || *name == '"'))
				name++;
			nlen = (size_t)(e - name);
			while (nlen && name[nlen - 1] == '"')
				nlen--;
			if (nlen == 0 || nlen >= sizeof(out[n].conf) || memchr(name, ' ', nlen))
				return 0;
			memcpy(out[n].conf, name, nlen);
			out[n].conf[nlen] = '\0';
			out[n].line = line;
			choice_when(stack, depth, out[n].when, sizeof(out[n].when));
			n++;
		} else if (starts(s, len, "elif") || starts(s, len, "while") ||
			   starts(s, len, "for") || (memmem(s, len, "fit_config", 10) &&
						     !memmem(s, len, "${fit_config}", 13))) {
			return 0;
		}
	}
	/* One default alone is no choice by board. */
	return depth == 0 && n > 1 ? (int)n : 0;
}

static const struct imgp_fit_conf *find_conf(const struct doctor *d, const char *name)
{
	for (size_t i = 0; i < d->sv.fit.fit.nconfs; i++)
		if (strcmp(d->sv.fit.fit.confs[i].name, name) == 0)
			return &d->sv.fit.fit.confs[i];
	return NULL;
}

/* Warnings already found in the FIT tree fdt. */
static size_t fdt_warnings(const struct doctor *d, const char *fdt)
{
	size_t n = 0;

	for (size_t i = 0; i < d->out->n; i++) {
		const struct imgp_finding *f = &d->out->findings[i];

		n += f->severity == IMGP_SEVERITY_WARNING && f->fdt &&
		     strcmp(f->fdt, fdt) == 0;
	}
	return n;
}

static int add_choice(struct doctor *d, const struct fit_choice *c)
{
	const struct imgp_fit_conf *conf = find_conf(d, c->conf);
	const char *fdt = conf && conf->fdt ? conf->fdt : NULL;
	struct imgp_finding *f;
	size_t warnings;
	int rc;

	f = imgp_doctor_add_(d, DOCTOR_FIT_CONFIG);
	if (!f)
		return -ENOMEM;
	f->partition = d->sv.boot->number;
	f->line = c->line;
	rc = imgp_doctor_set_(&f->file, "%s", d->sv.script.path);
	if (!rc)
		rc = imgp_doctor_set_(&f->property, "fit_config");
	if (!rc && fdt)
		rc = imgp_doctor_set_(&f->fdt, "%s", fdt);
	if (!rc)
		rc = imgp_doctor_set_(&f->title, "%s: boots %s (%s)", c->when, c->conf,
				fdt ? fdt : conf ? "no fdt" : "not in the FIT");
	warnings = fdt ? fdt_warnings(d, fdt) : 0;
	if (rc)
		return rc;
	if (imgp_doctor_override_in_effect_(d))
		return imgp_doctor_set_(&f->cost, "none: " IMGP_OVERRIDE_PATH " replaces this tree");
	if (warnings)
		return imgp_doctor_set_(&f->cost, "this tree has %zu of the warnings above", warnings);
	return imgp_doctor_set_(&f->cost, "none known");
}

static int check_fit_config(struct doctor *d)
{
	struct imgp_buf choices = { 0 };
	int n, rc = 0;

	if (!d->sv.fit.parsed || !d->sv.script.path)
		return 0;
	n = read_choices(d->sv.script.scr.text, d->sv.script.scr.text_len, &choices);
	if (n < 0)
		rc = imgp_fail(ENOMEM, "out of memory");
	for (int i = 0; i < n && !rc; i++)
		rc = add_choice(d, &((const struct fit_choice *)choices.data)[i]);
	imgp_buf_free(&choices);
	return rc;
}

/*
 * The file of an overlay entry: a Raspberry Pi entry carries the
 * overlay's parameters after it ("/overlays/sdio.dtbo,poll_once=off",
 * bootpath-rpi.c), the others are the file. *params: NULL or the list.
 */
static char *entry_file(const char *entry, const char **params)
{
	const char *comma = strstr(entry, ".dtbo,");

	*params = comma ? comma + 6 : NULL;
	return strndup(entry, comma ? (size_t)(comma + 5 - entry) : strlen(entry));
}

/*
 * Why the Raspberry Pi firmware refuses overlay file: the "deprecated"
 * text overlay_map.dtb next to it gives for its name (its replacement),
 * or NULL (owned).
 */
static char *map_deprecated(struct doctor *d, const struct imgp_part *part,
			    const char *file)
{
	const char *slash = strrchr(file, '/'), *name = slash ? slash + 1 : file;
	struct imgp_buf map = { 0 };
	const char *why = NULL;
	char *path = NULL, *out = NULL;
	size_t n = strlen(name);

	if (n > 5 && strcmp(name + n - 5, ".dtbo") == 0)
		n -= 5;
	if (asprintf(&path, "%.*soverlay_map.dtb", (int)(name - file), file) < 0)
		return NULL;
	if (imgp_doctor_read_(d, part, path, IMGP_DTB_MAX, &map) > 0 &&
	    imgp_fdt_check_full_(map.data, map.len) == 0) {
		why = imgp_rpi_map_deprecated_(&map, name, n);
		if (why)
			out = strdup(why);
	}
	imgp_errclear_();
	imgp_buf_free(&map);
	free(path);
	return out;
}

/* True when file is on part ("a//b" is "a/b", as for the loaders). */
static bool file_there(struct doctor *d, const struct imgp_part *part, const char *file)
{
	char *clean = strdup(file), *o = clean;
	int rc;

	if (!clean)
		return true;
	for (const char *p = file; *p; p++)
		if (*p != '/' || o == clean || o[-1] != '/')
			*o++ = *p;
	*o = '\0';
	rc = imgp_doctor_exists_(d, part, clean);
	imgp_errclear_();
	free(clean);
	return rc != 0;
}

/*
 * An overlay of an effective tree that failed: the file (where), why, and
 * the fix for that cause: the replacement overlay_map.dtb names for one
 * the firmware refuses, the file for one that is not there, a rebuild
 * for one that does not apply.
 */
static int check_overlay(struct doctor *d, const struct imgp_effective *t)
{
	const struct imgp_bootpath *bp = imgp_bootpath_named_(t->boot_path);
	const char *params = NULL;
	char *file = NULL, *deprecated = NULL;
	bool is_file, missing;
	struct imgp_finding *f;
	int rc;

	if (!t->rc || !t->failed)
		return 0;
	/* A Raspberry Pi entry may be a dtparam= line rather than a file. */
	is_file = *t->failed == '/';
	file = is_file ? entry_file(t->failed, &params) : strdup(t->failed);
	if (!file)
		return imgp_fail(ENOMEM, "out of memory");
	deprecated = is_file && t->rc != -ENOENT ? map_deprecated(d, t->part, file) : NULL;
	missing = !deprecated && is_file &&
		  (t->rc == -ENOENT || !file_there(d, t->part, file));
	/* Milder where the loader only skips it: the other overlays still count. */
	f = t->rc == -ENOSPC ? imgp_doctor_add_milder_(d, DOCTOR_OVERLAY_NO_ROOM, false) :
	    imgp_doctor_add_milder_(d, DOCTOR_OVERLAY_NOT_APPLIED, t->dtb.fdt && !t->reverted);
	rc = f ? 0 : -ENOMEM;
	if (!rc) {
		f->partition = t->part->number;
		rc = imgp_doctor_set_(is_file ? &f->file : &f->property, "%s", file);
	}
	if (!rc)
		rc = imgp_doctor_path_evidence_(f, t);
	if (!rc)
		rc = imgp_doctor_set_(&f->title, "%s%s%s, listed by boot path %s for %s, %s",
				file, params ? " with " : "", params ? params : "",
				t->boot_path, t->path,
				deprecated ? "is not loaded: overlay_map.dtb deprecates it" :
				missing ? "is not there" :
				t->rc == -ENOSPC ? "needs more room than U-Boot gives the tree" :
				"does not apply");
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "%s", t->error);
	if (!rc && deprecated)
		rc = imgp_doctor_set_(&f->hint, "overlay_map.dtb says: %s; do that instead, or take the dtoverlay= line out of config.txt",
				deprecated);
	else if (!rc && t->rc == -ENOSPC)
		rc = imgp_doctor_set_(&f->hint, "%s", bp && bp->on_no_room ? bp->on_no_room :
				"give the tree the room first: \"fdt resize N\" (N in hexadecimal, at least the bytes named) right before the fdt apply");
	else if (!rc)
		rc = imgp_doctor_set_(&f->hint, "%s", missing ?
				"install the overlay there, or correct its name or take it off the boot path's list" :
				"rebuild the overlay or its base tree (dtc -@) until fdtoverlay applies it; imgpatch cat IMAGE --dtb shows the tree the board boots");
	free(deprecated);
	free(file);
	return rc;
}

/*
 * The base tree a boot path names is not there. What the board then does
 * is its loader's: U-Boot skips an extlinux label whose FDT does not load
 * and, for FDTDIR, boots with the tree it has itself (pxe_utils.c); the
 * BeagleBone's uname_boot says "unable to find [dtb=...]" and stops;
 * Armbian's and postmarketOS's boot.scr load it unguarded, so booti gets
 * no tree and the boot stops; the Raspberry Pi firmware starts the kernel
 * without the tree. None boots the tree the configuration names.
 */
static int check_base(struct doctor *d, const struct imgp_effective *t)
{
	const struct imgp_bootpath *bp;
	struct imgp_finding *f;
	const char *then;
	int rc;

	if (t->dtb.fdt || t->failed || t->image || t->rc != -ENOENT)
		return 0;
	bp = imgp_bootpath_named_(t->boot_path);
	then = bp && bp->on_missing_tree ? bp->on_missing_tree :
		"the boot script's load fails and the kernel gets no tree: the boot stops";
	f = imgp_doctor_add_(d, DOCTOR_TREE_MISSING);
	if (!f)
		return -ENOMEM;
	f->partition = t->part->number;
	rc = imgp_doctor_set_(&f->file, "%s", t->path);
	if (!rc)
		rc = imgp_doctor_path_evidence_(f, t);
	if (!rc)
		rc = imgp_doctor_set_(&f->title, "%s, the tree boot path %s boots%s%s, is not there",
				t->path, t->boot_path, t->model ? " for " : "",
				t->model ? t->model : "");
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "%s", then);
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "install the tree there (the kernel package's .dtb files), or name one that is there; imgpatch info IMAGE shows the trees the boot path names");
	return rc;
}

/*
 * An overlay of the booted entry that the distribution's generator will
 * not write again (an fdtoverlays line added by hand to the extlinux.conf
 * Debian's u-boot-update writes): the boot path's describe() names them.
 */
static int check_durable(struct doctor *d)
{
	const struct imgp_survey_bootinfo *bi = &d->sv.bootinfo;
	int rc = 0;

	for (size_t i = 0; !rc && i < bi->ndropped; i++) {
		struct imgp_finding *f = imgp_doctor_add_(d, DOCTOR_OVERLAY_NOT_DURABLE);

		rc = f ? 0 : -ENOMEM;
		if (!rc) {
			f->partition = d->sv.boot->number;
			rc = imgp_doctor_set_(&f->file, "%s", bi->dropped[i]);
		}
		if (!rc)
			rc = imgp_doctor_set_(&f->boot_path, "%s", d->sv.bootpath_name);
		if (!rc)
			rc = imgp_doctor_set_(&f->title, "%s, listed by boot path %s, is dropped at the next kernel upgrade",
					bi->dropped[i], d->sv.bootpath_name);
		if (!rc)
			rc = imgp_doctor_set_(&f->cost, "%s", bi->updates);
		if (!rc)
			rc = imgp_doctor_set_(&f->hint, "%s", d->sv.bootpath->keep_overlay ?
					d->sv.bootpath->keep_overlay :
					"imgpatch info IMAGE, its updates: line, says what the next kernel upgrade writes");
	}
	return rc;
}

/* Whether two trees have the same root property (absent in both counts as the same). */
static bool same_root_prop(const void *a, const void *b, const char *name)
{
	int alen, blen;
	const void *av = fdt_getprop(a, 0, name, &alen);
	const void *bv = fdt_getprop(b, 0, name, &blen);

	if (!av || !bv)
		return !av && !bv;
	return alen == blen && memcmp(av, bv, (size_t)alen) == 0;
}

/*
 * The override a FIT's boot script loads in place of the FIT's tree
 * (Ubuntu's Kria user-override.dtb) is a whole tree, copied from a tree of
 * today's FIT. A kernel upgrade writes a new FIT, never the override, so
 * the board goes on booting the copy: said after the fact, with the FIT
 * tree it copies (the same root compatible and model), or that it copies
 * none of them (then it is stale already: another kernel's or board's).
 */
static int check_override_stale(struct doctor *d)
{
	struct imgp_survey *sv = &d->sv;
	struct imgp_fit *fit = &sv->fit.fit;
	const struct imgp_fit_image *same = NULL;
	struct imgp_buf ovr = { 0 }, copies = { 0 };
	struct imgp_finding *f;
	int rc;

	if (!imgp_doctor_override_in_effect_(d) || !sv->fit.parsed || !sv->override.part)
		return 0;
	rc = imgp_doctor_read_(d, sv->override.part, IMGP_OVERRIDE_PATH, IMGP_DTB_MAX, &ovr);
	if (rc <= 0 || ovr.len < 40 || fdt_check_full(ovr.data, ovr.len)) {
		/* Unreadable or broken: the tree checks say so. */
		imgp_buf_free(&ovr);
		imgp_errclear_();
		return rc == -ENOMEM ? rc : 0;
	}
	rc = 0;
	/* Every tree it may copy: the one it equals, else each of the same board. */
	for (size_t i = 0; !rc && !same && i < fit->nimages; i++) {
		const struct imgp_fit_image *img = &fit->images[i];
		const uint8_t *data;
		size_t size;

		if (strcmp(img->type, "flat_dt") || imgp_fit_payload_(fit, img, &data, &size) ||
		    size < 40 || fdt_check_full(data, size)) {
			imgp_errclear_();
			continue;
		}
		if (size == ovr.len && memcmp(data, ovr.data, size) == 0)
			same = img;
		else if (same_root_prop(ovr.data, data, "compatible") &&
			 same_root_prop(ovr.data, data, "model"))
			rc = imgp_buf_printf(&copies, "%s%s", copies.len ? ", " : "", img->name);
	}
	f = rc ? NULL : imgp_doctor_add_milder_(d, DOCTOR_OVERRIDE_STALE, same || copies.len);
	rc = f ? 0 : -ENOMEM;
	if (!rc) {
		f->partition = sv->override.part->number;
		rc = imgp_doctor_set_(&f->file, "%s", IMGP_OVERRIDE_PATH);
	}
	if (!rc && sv->bootpath_name)
		rc = imgp_doctor_set_(&f->boot_path, "%s", sv->bootpath_name);
	if (!rc && same)
		rc = imgp_doctor_set_(&f->title, "%s is a whole copy of the FIT's %s, byte for byte: a kernel upgrade writes a new FIT, not this file, and the board keeps booting the copy",
				IMGP_OVERRIDE_PATH, same->name);
	else if (!rc && copies.len)
		rc = imgp_doctor_set_(&f->title, "%s is a whole tree for the board of the FIT's %s (the same compatible and model), edited: a kernel upgrade writes a new FIT, not this file, and the board keeps booting the copy",
				IMGP_OVERRIDE_PATH, (char *)copies.data);
	else if (!rc) {
		const char *compat = fdt_getprop(ovr.data, 0, "compatible", NULL);

		rc = imgp_doctor_set_(&f->title, "%s matches none of the FIT's trees (its compatible: %s): a copy of another kernel's or board's tree, booted in place of them",
				IMGP_OVERRIDE_PATH, compat ? compat : "none");
	}
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "%s", same || copies.len ?
				"after the next kernel upgrade the board boots this copy of today's tree, not the new kernel's, whose changes it lacks" :
				"the board boots a tree that is not its kernel's: what changed in the kernel's trees since it was copied does not reach the board");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "after each kernel upgrade make the override anew from the FIT's tree (remove it, then run the same imgpatch patch or recipe again), or remove it to boot the FIT's tree");
	imgp_buf_free(&ovr);
	imgp_buf_free(&copies);
	return rc;
}

int imgp_doctor_check_boot_(struct doctor *d)
{
	int rc;

	if (!d->sv.boot)
		return 0;
	rc = check_durable(d);
	if (rc)
		return rc;
	rc = check_hook(d);
	if (!rc)
		rc = check_override_stale(d);
	if (!rc)
		rc = check_fit_config(d);
	for (size_t i = 0; !rc && i < d->neffective; i++)
		rc = check_base(d, &d->effective[i]);
	for (size_t i = 0; !rc && i < d->neffective; i++)
		rc = check_overlay(d, &d->effective[i]);
	return rc;
}
