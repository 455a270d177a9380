// SPDX-License-Identifier: MIT
/*
 * How an edited device tree reaches the board on boot paths that name
 * plain tree files (extlinux, Armbian, Raspberry Pi, a script naming one
 * tree): the tree the path boots is loaded, the edits are recorded as they
 * are made, and the result goes back one of two ways:
 *
 *  - "overlay": the edits become a new overlay registered in the list the
 *    path applies (Armbian's user_overlays=, the label's fdtoverlays,
 *    config.txt's dtoverlay= lines), the owner's entries kept. An overlay
 *    can set properties and add what another overlay brings, never
 *    delete, so deletions are refused this way;
 *  - "file": the tree file itself edited in place.
 *
 * Before an overlay is planned it is applied to the tree as loaded, and
 * the result must equal the tree the edits made: what the board will boot
 * is what the plan shows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>
#include <nettle/sha2.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "dt/dt.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

struct dt_edit {
	enum imgp_dt_edit_kind kind;
	char *node;              /* full node path */
	char *prop;
	struct imgp_buf data;    /* the value, or the overlay's bytes */
	char *name;              /* an overlay's name (its file name without .dtbo) */
};

struct imgp_dt_plan {
	size_t n;
	struct dt_edit *e;
	const struct imgp_survey_bootdt *tree; /* the tree the path boots; NULL: a FIT's */
	bool overlay;            /* the way chosen: a new overlay (else the file) */
	bool effective;          /* the tree edited is the effective one, not the file */
};

/* One overlay to register: its name and bytes. */
struct unit {
	char name[96];
	struct imgp_buf bytes;
};

void imgp_dt_plan_free_(struct imgp_dt_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->e[i].node);
		free(p->e[i].prop);
		free(p->e[i].name);
		imgp_buf_free(&p->e[i].data);
	}
	free(p->e);
	free(p);
}

static struct imgp_dt_plan *plan_of(struct imgp_patch *patch)
{
	if (!patch->dt_plan)
		patch->dt_plan = calloc(1, sizeof(*patch->dt_plan));
	return patch->dt_plan;
}

int imgp_dt_plan_record_(struct imgp_patch *patch, enum imgp_dt_edit_kind kind,
			const char *node, const char *prop, const void *data,
			size_t len, const char *name)
{
	struct imgp_dt_plan *p = plan_of(patch);
	struct dt_edit *grown, *e;

	if (!p)
		return imgp_fail(ENOMEM, "out of memory");
	grown = realloc(p->e, (p->n + 1) * sizeof(*grown));
	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	p->e = grown;
	e = &p->e[p->n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->node = node ? strdup(node) : NULL;
	e->prop = prop ? strdup(prop) : NULL;
	e->name = name ? strdup(name) : NULL;
	if ((node && !e->node) || (prop && !e->prop) || (name && !e->name) ||
	    (len && imgp_buf_append(&e->data, data, len)))
		return imgp_fail(ENOMEM, "out of memory");
	return 0;
}

/* ------------------------------------------------------------- the way */

static const char *const via_names[] = {
	[IMGP_VIA_DEFAULT] = "default", [IMGP_VIA_OVERRIDE] = "override",
	[IMGP_VIA_FIT] = "fit", [IMGP_VIA_OVERLAY] = "overlay",
	[IMGP_VIA_FILE] = "file",
};

const char *imgp_via_name_(enum imgp_via via)
{
	return via_names[via];
}

int imgp_via_parse(const char *name, enum imgp_via *out)
{
	for (size_t i = IMGP_VIA_OVERRIDE; i <= IMGP_VIA_FILE; i++)
		if (strcmp(name, via_names[i]) == 0) {
			*out = (enum imgp_via)i;
			return 0;
		}
	return imgp_fail(EINVAL, "unknown way '%s' (override, fit, overlay or file)", name);
}

/* The boot path's own list of overlays: where a new one goes and is named. */
static bool has_overlay_list(const struct imgp_survey *sv)
{
	return sv->bootpath && sv->bootpath->overlay_site;
}

bool imgp_patch_boots_files_(struct imgp_patch *patch)
{
	struct imgp_survey *sv = imgp_patch_survey_(patch);

	return sv && sv->bootpath && !(sv->bootpath->flags & IMGP_BOOTPATHF_FIT);
}

int imgp_patch_via_choose_(struct imgp_patch *patch, enum imgp_via asked,
			  bool deletes, enum imgp_via *via, const char **why)
{
	struct imgp_survey *sv = imgp_patch_survey_(patch);
	if (!sv)
		return -ENOMEM;
	*why = NULL;
	if (asked == IMGP_VIA_OVERRIDE || asked == IMGP_VIA_FIT)
		return imgp_fail(EINVAL, "--via %s: the board boots %s, not a FIT: use --via %s",
				 imgp_via_name_(asked), sv->bootinfo.summary,
				 has_overlay_list(sv) ? "overlay or file" : "file");
	if (asked == IMGP_VIA_OVERLAY && !has_overlay_list(sv))
		return imgp_fail(EINVAL, "--via overlay: %s applies no list of overlays imgpatch can add to%s: use --via file",
				 sv->bootinfo.summary,
				 sv->hook ? " (its hook is one script the owner may have written, not a list)" : "");
	if (asked == IMGP_VIA_OVERLAY && deletes)
		return imgp_fail(EINVAL, "--via overlay: an overlay cannot delete a property or node: use --via file to edit %s in place",
				 patch->dt_plan && patch->dt_plan->tree ?
				 patch->dt_plan->tree->path : "the tree file");
	if (asked != IMGP_VIA_DEFAULT) {
		*via = asked;
		*why = asked == IMGP_VIA_OVERLAY ? "via overlay: --via overlay"
						 : "via file: --via file";
	} else if (has_overlay_list(sv) && !deletes) {
		*via = IMGP_VIA_OVERLAY;
		*why = "via overlay: the boot path applies a list of overlays: the change is a new one added to it, the owner's entries kept";
	} else {
		*via = IMGP_VIA_FILE;
		*why = has_overlay_list(sv) ?
			"via file: an overlay cannot delete: the tree file is edited in place" :
			"via file: the boot path names one tree file and no overlay list: it is edited in place";
	}
	if (*via == IMGP_VIA_FILE)
		patch->dt_in_place = true;
	if (!plan_of(patch))
		return imgp_fail(ENOMEM, "out of memory");
	patch->dt_plan->overlay = *via == IMGP_VIA_OVERLAY;
	return 0;
}

/*
 * The effective tree of the boot path's entry dt (*out, NULL when the
 * survey has none), as the loader leaves it: its rc and error say what
 * failed on the way.
 */
static int effective_of(struct imgp_patch *patch, const struct imgp_survey_bootdt *dt,
			struct imgp_effective **trees, size_t *n,
			struct imgp_effective **out)
{
	struct imgp_survey *sv = imgp_patch_survey_(patch);
	int rc;

	*out = NULL;
	*trees = NULL;
	*n = 0;
	if (!sv)
		return -ENOMEM;
	rc = imgp_effective_build_(sv, trees, n);
	if (rc)
		return rc;
	for (size_t i = 0; i < *n; i++)
		if ((*trees)[i].bootdt == dt)
			*out = &(*trees)[i];
	return 0;
}

int imgp_dt_plan_effective_has_(struct imgp_patch *patch, const char *path,
			       const char *prop, char **where)
{
	const struct imgp_dt_plan *p = patch->dt_plan;
	struct imgp_effective *trees, *t;
	size_t n;
	int rc;

	*where = NULL;
	if (!p || !p->tree || p->effective || !p->tree->noverlays)
		return 0;
	rc = effective_of(patch, p->tree, &trees, &n, &t);
	if (!rc && t && t->dtb.fdt && !t->reverted &&
	    imgp_dt_has_prop_(&t->dtb, path, prop)) {
		*where = strdup(t->provenance ? t->provenance : p->tree->path);
		rc = *where ? 1 : imgp_fail(ENOMEM, "out of memory");
	}
	imgp_effective_free_(trees, n);
	return rc;
}

/* ---------------------------------------------------------- the tree */

static int list_trees(const struct imgp_survey_bootinfo *bi, struct imgp_buf *out)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < bi->ndts && i < IMGP_NAMES_SHOWN; i++)
		rc = imgp_buf_printf(out, "%s%s%s%s", i ? ", " : "",
				     bi->dts[i].model ? bi->dts[i].model : "",
				     bi->dts[i].model ? " " : "", bi->dts[i].path);
	if (!rc && bi->ndts > IMGP_NAMES_SHOWN)
		rc = imgp_buf_printf(out, ", ... %zu in all: imgpatch info --json lists them", bi->ndts);
	return rc;
}

/* -ENOENT naming what names a tree on each boot path, in survey.c's order. */
static int unrecognised(void)
{
	const struct imgp_bootpath *bp;
	struct imgp_buf what = { 0 };
	size_t n = 0, k = 0;
	int rc = 0;

	for (size_t i = 0; (bp = imgp_bootpath_at_(i)); i++)
		n += bp->named_by != NULL;
	for (size_t i = 0; !rc && (bp = imgp_bootpath_at_(i)); i++)
		if (bp->named_by && imgp_buf_printf(&what, "%s%s", !k++ ? "" : k == n ? " or " : ", ",
						    bp->named_by))
			rc = imgp_fail(ENOMEM, "out of memory");
	if (!rc)
		rc = imgp_fail(ENOENT, "no boot path recognised: no %s names a tree",
			       what.len ? (const char *)what.data : "file");
	imgp_buf_free(&what);
	return rc;
}

int imgp_patch_find_booted_(struct imgp_patch *patch, const char *model,
			   const struct imgp_survey_bootdt **out)
{
	struct imgp_survey *sv = imgp_patch_survey_(patch);
	const struct imgp_survey_bootinfo *bi;
	const struct imgp_survey_bootdt *dt = NULL;
	struct imgp_buf names = { 0 };
	const char *given;
	size_t found = 0;
	int rc = 0;

	if (!sv)
		return -ENOMEM;
	bi = &sv->bootinfo;
	if (!sv->bootpath)
		return unrecognised();
	if (bi->rc)
		return imgp_survey_fail_(bi->rc, bi->error);
	if (!bi->ndts && (sv->bootpath->flags & IMGP_BOOTPATHF_FIT))
		return imgp_fail(EINVAL, "%s: the board boots a FIT's tree: pick it with --fdt (in a recipe: fdt-from-fit)",
				 bi->summary ? bi->summary : "FIT");
	if (!bi->ndts)
		return imgp_fail(ENOENT, "%s: the boot path picks its tree itself and names no tree file imgpatch could edit",
				 bi->summary ? bi->summary : "boot script");
	/* Without --model, the tree the image's own U-Boot picks. */
	given = model;
	for (size_t i = 0; !model && bi->ndts > 1 && i < bi->ndts; i++)
		if (bi->dts[i].uboot_default)
			model = bi->dts[i].path;
	for (size_t i = 0; i < bi->ndts; i++)
		if (!model || imgp_bootdt_named_(&bi->dts[i], model)) {
			dt = dt ? dt : &bi->dts[i];
			found++;
		}
	if (found != 1) {
		rc = list_trees(bi, &names);
		if (!rc && !found)
			rc = imgp_fail_name_(ENOENT, "%s: no tree for model '%s' (have: %s)",
					    bi->summary, model, (char *)names.data);
		else if (!rc)
			rc = (given ? imgp_fail_name_ : imgp_fail)(EINVAL,
				"%s: boots %zu trees: choose one with --model (have: %s)",
				bi->summary, found, (char *)names.data);
		imgp_buf_free(&names);
		return rc;
	}
	*out = dt;
	return 0;
}

/* The warnings of the tree the patch edits, and of no other the image has. */
static int warn_touched(struct imgp_patch *patch, const struct imgp_survey_bootdt *dt)
{
	struct imgp_effective *trees, *t;
	size_t n;
	int rc = effective_of(patch, dt, &trees, &n, &t);

	if (!rc && t)
		imgp_effective_warn_(imgp_survey_ctx_(imgp_patch_survey_(patch)), t, 1);
	imgp_effective_free_(trees, n);
	return rc;
}

int imgp_patch_load_booted_(struct imgp_patch *patch, const char *model)
{
	const struct imgp_survey_bootdt *dt = NULL;
	struct imgp_dt_plan *p;
	int rc;

	rc = imgp_patch_find_booted_(patch, model, &dt);
	if (!rc)
		rc = warn_touched(patch, dt);
	p = rc ? NULL : plan_of(patch);
	if (!rc && !p)
		rc = imgp_fail(ENOMEM, "out of memory");
	if (rc)
		return rc;
	p->tree = dt;
	/*
	 * A new overlay is applied after the path's own: it edits the tree
	 * they make (and may aim at what they add). The file way edits the
	 * file, so it starts from the file.
	 */
	if (p->overlay && dt->noverlays) {
		struct imgp_effective *trees, *t;
		size_t n;

		rc = effective_of(patch, dt, &trees, &n, &t);
		/* Where the path's own overlays already fail, a new one cannot help. */
		if (!rc && t && (!t->dtb.fdt || t->reverted))
			rc = imgp_fail(EINVAL, "--via overlay: a new overlay would not take effect: %s; fix that overlay first, or use --via file",
				       t->error ? t->error : "the boot path's overlays fail");
		if (!rc && t) {
			const void *blob;
			size_t size;
			char *origin = NULL;

			rc = imgp_dtb_finish_(&t->dtb, &blob, &size);
			if (!rc && asprintf(&origin, "the effective tree (" IMGP_PART_FMT " %s + %zu overlay%s)",
					    t->part->number, dt->path, t->napplied,
					    t->napplied == 1 ? "" : "s") < 0) {
				origin = NULL;
				rc = imgp_fail(ENOMEM, "out of memory");
			}
			if (!rc)
				rc = imgp_patch_load_dtb_blob_(patch, t->part, blob, size, origin);
			p->effective = !rc;
			free(origin);
		}
		imgp_effective_free_(trees, n);
		if (rc || p->effective)
			return rc;
	}
	return imgp_patch_load_dtb_file_(patch, "boot", dt->path);
}

/* ------------------------------------------------------ the overlay */

/* The label of path in the tree's __symbols__; NULL when it has none. */
static const char *label_of(const void *fdt, const char *path)
{
	int sym = fdt_path_offset(fdt, "/__symbols__"), off;

	if (sym < 0)
		return NULL;
	fdt_for_each_property_offset(off, fdt, sym) {
		const char *name;
		int len;
		const char *v = fdt_getprop_by_offset(fdt, off, &name, &len);

		if (v && len > 0 && v[len - 1] == '\0' && strcmp(v, path) == 0)
			return name;
	}
	return NULL;
}

/* Edits [from, to) are property sets: one fragment per node, in order. */
static int build_overlay(const void *base, const struct dt_edit *e, size_t n,
			 struct imgp_buf *out)
{
	size_t size = 4096, nfrag = 0;
	const char **nodes = calloc(n ? n : 1, sizeof(*nodes));
	const char **labels = calloc(n ? n : 1, sizeof(*labels));
	void *fdt = NULL;
	int rc = 0;

	if (!nodes || !labels) {
		free(nodes);
		free(labels);
		return imgp_fail(ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		size += strlen(e[i].node) * 2 + strlen(e[i].prop) + e[i].data.len + 128;
		while (k < nfrag && strcmp(nodes[k], e[i].node))
			k++;
		if (k == nfrag) {
			nodes[nfrag] = e[i].node;
			labels[nfrag++] = label_of(base, e[i].node);
		}
	}
	fdt = calloc(1, size);
	rc = fdt ? fdt_create(fdt, (int)size) : -FDT_ERR_NOSPACE;
	if (!rc)
		rc = fdt_finish_reservemap(fdt);
	if (!rc)
		rc = fdt_begin_node(fdt, "");
	for (size_t k = 0; !rc && k < nfrag; k++) {
		char name[32];

		snprintf(name, sizeof(name), "fragment@%zu", k);
		rc = fdt_begin_node(fdt, name);
		if (!rc && labels[k])
			rc = fdt_property_u32(fdt, "target", 0xffffffffu);
		else if (!rc)
			rc = fdt_property_string(fdt, "target-path", nodes[k]);
		if (!rc)
			rc = fdt_begin_node(fdt, "__overlay__");
		/* A property set twice: its last value, where it was first set. */
		for (size_t i = 0; !rc && i < n; i++) {
			const struct dt_edit *last = &e[i];
			bool first = true;

			if (strcmp(e[i].node, nodes[k]))
				continue;
			for (size_t j = 0; j < n; j++)
				if (!strcmp(e[j].node, nodes[k]) && !strcmp(e[j].prop, e[i].prop)) {
					first &= j >= i;
					last = &e[j];
				}
			if (first)
				rc = fdt_property(fdt, e[i].prop, last->data.data,
						  (int)last->data.len);
		}
		if (!rc)
			rc = fdt_end_node(fdt);
		if (!rc)
			rc = fdt_end_node(fdt);
	}
	if (!rc) {
		bool any = false;

		for (size_t k = 0; k < nfrag; k++)
			any |= labels[k] != NULL;
		if (any)
			rc = fdt_begin_node(fdt, "__fixups__");
		for (size_t k = 0; any && !rc && k < nfrag; k++) {
			char where[48];

			if (!labels[k])
				continue;
			snprintf(where, sizeof(where), "/fragment@%zu:target:0", k);
			rc = fdt_property_string(fdt, labels[k], where);
		}
		if (any && !rc)
			rc = fdt_end_node(fdt);
	}
	if (!rc)
		rc = fdt_end_node(fdt);
	if (!rc)
		rc = fdt_finish(fdt);
	if (!rc && imgp_buf_append(out, fdt, fdt_totalsize(fdt)))
		rc = -FDT_ERR_NOSPACE;
	free(fdt);
	free(nodes);
	free(labels);
	return rc ? imgp_fail(EINVAL, "cannot build the overlay: %s", fdt_strerror(rc)) : 0;
}

static bool name_ok(const char *name)
{
	if (!*name || *name == '.' || strlen(name) > 64)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_.+-", *p)))
			return false;
	return true;
}

/* An overlay file's name: its base name without .dtbo. */
static int unit_name_from(const char *file, char *out, size_t outlen)
{
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".dtbo") == 0)
		n -= 5;
	snprintf(out, outlen, "%.*s", (int)n, base);
	if (!name_ok(out))
		return imgp_fail(EINVAL, "overlay %s: '%s' cannot name an overlay (letters, digits, '_', '.', '+', '-')",
				 file, out);
	return 0;
}

/* "NAME-" and the first 8 hex digits of the bytes' SHA-256: same edits, same name. */
static void unit_name_hash(struct unit *u, const char *prefix)
{
	uint8_t d[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, u->bytes.len, u->bytes.data);
	sha256_digest(&ctx, sizeof(d), d);
	snprintf(u->name, sizeof(u->name), "%s-%02x%02x%02x%02x", prefix, d[0],
		 d[1], d[2], d[3]);
}

static void units_free(struct unit *u, size_t n)
{
	for (size_t i = 0; i < n; i++)
		imgp_buf_free(&u[i].bytes);
	free(u);
}

/*
 * The overlays the edits become, in order: each --overlay file as it is,
 * each run of property sets as one generated overlay (named name, else
 * "imgpatch-HASH").
 */
static int make_units(const struct imgp_patch *patch, const char *name,
		      struct unit **out, size_t *nout)
{
	const struct imgp_dt_plan *p = patch->dt_plan;
	struct unit *u = calloc(p->n ? p->n : 1, sizeof(*u));
	size_t n = 0;
	int rc = 0;

	if (!u)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < p->n;) {
		const struct dt_edit *e = &p->e[i];
		size_t run = 0;

		switch (e->kind) {
		case IMGP_DT_EDIT_OVERLAY:
			rc = unit_name_from(e->name, u[n].name, sizeof(u[n].name));
			if (!rc && imgp_buf_append(&u[n].bytes, e->data.data, e->data.len))
				rc = imgp_fail(ENOMEM, "out of memory");
			n++;
			i++;
			break;
		case IMGP_DT_EDIT_SET:
			while (i + run < p->n && p->e[i + run].kind == IMGP_DT_EDIT_SET)
				run++;
			rc = build_overlay(patch->dtb_source.fdt, e, run, &u[n].bytes);
			if (!rc && name && !name_ok(name))
				rc = imgp_fail(EINVAL, "'%s' cannot name an overlay (letters, digits, '_', '.', '+', '-')",
					       name);
			if (!rc && name && n == 0)
				snprintf(u[n].name, sizeof(u[n].name), "%s", name);
			else if (!rc)
				unit_name_hash(&u[n], name ? name : "imgpatch");
			n++;
			i += run;
			break;
		case IMGP_DT_EDIT_ADD_NODE:
			rc = imgp_fail(EINVAL, "--via overlay: adding node %s is no overlay imgpatch makes: use --via file",
				       e->node);
			break;
		default:
			rc = imgp_fail(EINVAL, "--via overlay: an overlay cannot delete %s%s%s: use --via file to edit the tree file in place",
				       e->prop ? e->prop : "node ", e->prop ? " of " : "",
				       e->node);
		}
	}
	if (rc) {
		units_free(u, n);
		return rc;
	}
	*out = u;
	*nout = n;
	return 0;
}

/* Applying the overlays to the tree as loaded must give the edited tree. */
static int check_units(struct imgp_patch *patch, const struct unit *u, size_t n)
{
	const struct imgp_survey *sv = imgp_patch_survey_(patch);
	/* Where the loader bounds each overlay's room, each new one must fit it. */
	unsigned long room = sv && sv->bootpath ? sv->bootpath->overlay_room : 0;
	struct imgp_buf want = { 0 }, got = { 0 };
	struct imgp_dtb t;
	const void *blob;
	size_t size;
	int rc;

	rc = imgp_dtb_finish_(&patch->dtb_source, &blob, &size);
	if (!rc)
		rc = imgp_dtb_load_(&t, blob, size);
	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < n; i++) {
		rc = room ? imgp_dt_apply_overlay_in_(&t, u[i].bytes.data, u[i].bytes.len,
						     imgp_uboot_fdt_room_(imgp_dt_used_(&t), room)) :
		     imgp_dt_apply_overlay_(&t, u[i].bytes.data, u[i].bytes.len);
		if (rc == -ENOSPC)
			imgp_fail_ctx(rc, "--via overlay: overlay %s would not take effect, the loader gives each overlay %lu bytes of room (use --via file)",
				      u[i].name, room);
		else if (rc)
			imgp_fail_ctx(rc, "overlay %s", u[i].name);
	}
	if (!rc)
		rc = imgp_dt_to_dts_(&t, &got);
	if (!rc)
		rc = imgp_dt_to_dts_(&patch->dtb, &want);
	if (!rc && (got.len != want.len || memcmp(got.data, want.data, got.len)))
		rc = imgp_fail(EINVAL, "the overlays do not give the edited tree (edits in an order an overlay cannot keep): use --via file");
	imgp_buf_free(&want);
	imgp_buf_free(&got);
	imgp_dtb_free_(&t);
	return rc;
}

/*
 * The partition holding u-boot-update's settings: the root, which is the
 * boot partition too unless /boot is a partition of its own.
 */
static const struct imgp_part *generator_part(struct imgp_patch *patch,
					      const struct imgp_uboot_menu *gen)
{
	return gen->boot_part ? imgp_patch_survey_(patch)->root : patch->boot_part;
}

/*
 * extlinux.conf as Debian's u-boot-update writes it, with its settings on
 * a root filesystem imgpatch writes (ext): it writes the file anew at the
 * next kernel, from /etc/default/u-boot, so a new overlay goes where it
 * looks for overlays (on the /boot partition, when there is one) and its
 * name into U_BOOT_FDT_OVERLAYS as well (see uboot-menu.c). What it
 * reads, as the survey read it; NULL when the path has no generator.
 */
static const struct imgp_uboot_menu *generator_of(struct imgp_patch *patch)
{
	struct imgp_survey *sv = imgp_patch_survey_(patch);
	const struct imgp_part *part = patch->boot_part;

	if (!sv || !sv->generator || !part || part != sv->boot)
		return NULL;
	part = generator_part(patch, sv->generator);
	if (!part || strncmp(part->fstype, "ext", 3))
		return NULL;
	return sv->generator;
}

/* Plans one overlay file; one of that name with other bytes is not ours. */
static int plan_overlay_file(struct imgp_patch *patch, const struct imgp_overlay_site *h,
			     const struct unit *u, const char *note)
{
	const struct imgp_part *part = patch->boot_part;
	struct imgp_buf old = { 0 };
	char level[sizeof(h->folder)];
	bool existed;
	int rc = 0;

	/* Each missing level, as mkdir -p (a /boot partition's "/boot/dtbo"). */
	for (size_t i = 1, n = strlen(h->folder); !rc && n && i <= n; i++) {
		if (i < n && h->folder[i] != '/')
			continue;
		snprintf(level, sizeof(level), "%.*s", (int)i, h->folder);
		rc = imgp_patch_mkdir_(patch, part, level, h->folder_why);
	}
	if (!rc)
		rc = imgp_patch_read_(patch, part, h->file, IMGP_DTB_MAX, &old, &existed);
	if (!rc && existed && (old.len != u->bytes.len ||
			       memcmp(old.data, u->bytes.data, old.len)))
		rc = imgp_fail(EEXIST, IMGP_PART_FMT " (%s): %s: exists with other content: not replacing an overlay imgpatch did not make (give the overlay another name)",
			       part->number, part->fstype, h->file);
	if (!rc)
		rc = imgp_patch_write_(patch, part, h->file, u->bytes.data,
				      u->bytes.len, false, note);
	imgp_buf_free(&old);
	return rc;
}

/* The file u-boot-menu ships, all its settings commented: where a line goes when there is none. */
static const char uboot_defaults[] =
	"## /etc/default/u-boot - configuration file for u-boot-update(8)\n\n";

/* Sourced last by u-boot-update, so what it sets wins. */
static const char admin_confd_file[] = "/etc/u-boot-menu/conf.d/imgpatch.conf";

/*
 * The file U_BOOT_FDT_OVERLAYS is written to: the one that sets it, unless
 * that is a package's own (/usr/share/u-boot-menu/conf.d), which dpkg
 * replaces at the package's next upgrade; then a file of the
 * administrator's conf.d, read after it.
 */
static const char *generator_file(const struct imgp_uboot_menu *gen)
{
	if (!gen->overlays_file)
		return "/etc/default/u-boot";
	if (!strncmp(gen->overlays_file, "/usr/", 5))
		return admin_confd_file;
	return gen->overlays_file;
}

/*
 * name.dtbo into the U_BOOT_FDT_OVERLAYS that counts (/etc/default/u-boot,
 * made when absent, or the conf.d file that sets it). Unset, the variable
 * meant every *.dtbo of the folder: those there now are named first, so
 * the next extlinux.conf lists what this one does, the new one last.
 */
static int register_generator(struct imgp_patch *patch, const struct imgp_uboot_menu *gen,
			      const char *name)
{
	const char *file = generator_file(gen);
	const struct imgp_part *part = generator_part(patch, gen);
	const char *spec = gen->boot_part ? "root" : "boot";
	struct imgp_buf old = { 0 }, word = { 0 }, own = { 0 };
	bool existed = false;
	int rc;

	rc = imgp_patch_read_(patch, part, file, IMGP_TEXT_MAX, &old, &existed);
	if (!rc && !existed && !strcmp(file, admin_confd_file)) {
		rc = imgp_patch_mkdir_(patch, part, "/etc/u-boot-menu",
				      "sourced by u-boot-update after the package's conf.d");
		if (!rc)
			rc = imgp_patch_mkdir_(patch, part, "/etc/u-boot-menu/conf.d",
					      "sourced by u-boot-update after the package's conf.d");
		if (!rc)
			rc = imgp_buf_printf(&own, "# U_BOOT_FDT_OVERLAYS of %s, which its package\n"
					     "# replaces at its next upgrade, with imgpatch's overlays added.\n"
					     "U_BOOT_FDT_OVERLAYS=\"%s\"\n", gen->overlays_file,
					     gen->overlays ? gen->overlays : "");
		if (!rc)
			rc = imgp_patch_write_(patch, part, file, own.data, own.len, true,
					      "the package's own conf.d file is replaced when it is upgraded");
	} else if (!rc && !existed) {
		rc = imgp_patch_write_(patch, part, file, uboot_defaults,
				      sizeof(uboot_defaults) - 1, true,
				      "made as Debian's u-boot-menu ships it, for U_BOOT_FDT_OVERLAYS");
	}
	for (size_t i = 0; !rc && !gen->overlays && i < gen->npresent; i++)
		rc = imgp_patch_list_add_(patch, spec, file, "U_BOOT_FDT_OVERLAYS",
					 gen->present[i], NULL);
	if (!rc)
		rc = imgp_buf_printf(&word, "%s.dtbo", name);
	if (!rc)
		rc = imgp_patch_list_add_(patch, spec, file, "U_BOOT_FDT_OVERLAYS",
					 (char *)word.data, NULL);
	imgp_buf_free(&old);
	imgp_buf_free(&word);
	imgp_buf_free(&own);
	return rc;
}

/* The plan's words on what the next u-boot-update does with the overlay. */
static int generator_note(const struct imgp_uboot_menu *gen, const char *name,
			  struct imgp_buf *note)
{
	const char *file = generator_file(gen);
	int rc = imgp_buf_printf(note, "and as '%s.dtbo' in %s U_BOOT_FDT_OVERLAYS: u-boot-update, which writes extlinux.conf anew at every kernel install or removal, lists it again\n",
				 name, file);

	if (!rc && !gen->overlays)
		rc = imgp_buf_printf(note, "U_BOOT_FDT_OVERLAYS was unset (every *.dtbo of %s%s): %s%s; a .dtbo put there later needs its name added\n",
				     gen->dir, gen->boot_part ? " on the /boot partition" : "", gen->npresent ? "it names the ones there first, this one last: " :
				     "it names this one", gen->npresent ? "the order extlinux.conf has" : "");
	return rc ? -ENOMEM : 0;
}

static int write_overlays(struct imgp_patch *patch, const char *why,
			  const char *name)
{
	struct imgp_survey *sv = imgp_patch_survey_(patch);
	const struct imgp_dt_plan *p = patch->dt_plan;
	struct unit *u = NULL;
	struct imgp_buf note = { 0 }, sections = { 0 };
	const struct imgp_uboot_menu *gen = generator_of(patch);
	size_t n = 0;
	int rc;

	if (!p || !p->n)
		return imgp_fail(EINVAL, "no device tree edits to make an overlay of");
	/*
	 * config.txt is read by every model: the new dtoverlay= line goes under
	 * the filters that hold for the boards of this tree alone ([pi4] would
	 * reach the 400 and the CM4 too).
	 */
	rc = sv->bootpath->overlay_filters ?
		sv->bootpath->overlay_filters(p->tree->path, &sections) : 0;
	if (rc == -ENOENT) {
		imgp_errclear_();
		rc = imgp_fail(EINVAL, "--via overlay: %s: no config.txt filter holds for the boards of this tree alone: use --via file",
			       p->tree->path);
	}
	if (!rc)
		rc = make_units(patch, name, &u, &n);
	if (!rc)
		rc = check_units(patch, u, n);
	for (size_t i = 0; !rc && i < n; i++) {
		struct imgp_overlay_site h = { 0 };
		struct imgp_boot_view boot;
		char target[1200];

		imgp_patch_boot_view_(patch, &boot);
		rc = sv->bootpath->overlay_site(&boot, p->tree, u[i].name, gen, &h);
		if (rc)
			break;
		note.len = 0;
		snprintf(target, sizeof(target), "%s with %s applied", p->tree->path,
			 h.file);
		/* The first overlay carries why and the diff of the tree it makes. */
		if (i == 0)
			rc = imgp_patch_dt_note_(patch, why, target, &note);
		else
			rc = imgp_buf_printf(&note, "overlay %s, applied after %s\n",
					     h.file, u[i - 1].name) ? -ENOMEM : 0;
		if (!rc)
			rc = imgp_buf_printf(&note, "registered as '%s' in %s %s\n",
					     h.word, h.list, h.key) ? -ENOMEM : 0;
		for (const char *f = (const char *)sections.data; !rc && f && *f;
		     f += strcspn(f, "\n") + 1)
			rc = imgp_buf_printf(&note, "under [%.*s]\n", (int)strcspn(f, "\n"), f) ?
				-ENOMEM : 0;
		if (!rc && gen)
			rc = generator_note(gen, u[i].name, &note);
		if (!rc)
			rc = plan_overlay_file(patch, &h, &u[i], (char *)note.data);
		if (!rc)
			rc = imgp_patch_list_add_(patch, "boot", h.list, h.key, h.word,
						 sections.len ? (const char *)sections.data : NULL);
		if (!rc && gen)
			rc = register_generator(patch, gen, u[i].name);
	}
	imgp_buf_free(&sections);
	imgp_buf_free(&note);
	units_free(u, n);
	return rc;
}

/*
 * The edited tree also where the distribution's update copies the tree
 * from at the next kernel (flash-kernel's /etc/flash-kernel/dtbs/NAME, on
 * the root; its folder made when absent): the edit then outlives the
 * kernel, as a copy of today's tree that a new kernel's does not update.
 */
static int write_kept(struct imgp_patch *patch, const char *path)
{
	const struct imgp_part *root = imgp_patch_part_(patch, "root");
	const char *slash = strrchr(path, '/');
	struct imgp_fs *fs;
	char folder[512];
	const void *blob;
	size_t size;
	int rc;

	if (!root)
		return -ENOENT;
	snprintf(folder, sizeof(folder), "%.*s", slash ? (int)(slash - path) : 0, path);
	rc = imgp_dtb_finish_(&patch->dtb, &blob, &size);
	fs = imgp_survey_fs_(imgp_patch_survey_(patch), root);
	if (!rc && *folder && (!fs || imgp_fs_exists_(fs, folder) != 1))
		rc = imgp_patch_mkdir_(patch, root, folder,
				      "where the distribution's update looks for a tree first");
	if (!rc)
		rc = imgp_patch_write_(patch, root, path, blob, size, false,
				      "the edited tree, where the distribution's update copies it from at every kernel install (in preference to the new kernel's): it outlives the kernel, as a copy of today's tree");
	return rc;
}

/*
 * The tree file edited in place. Where u-boot-update regenerates the
 * configuration it keeps naming the file, but a kernel upgrade brings a
 * new kernel's trees without the edit: the plan says so.
 */
static int write_file(struct imgp_patch *patch, const char *why)
{
	const struct imgp_dt_plan *p = patch->dt_plan;
	char *said = NULL;
	int rc;

	if (generator_of(patch)) {
		if (asprintf(&said, "%s%snot carried over by a kernel upgrade: u-boot-update then names the new kernel's trees, which lack this edit (--via overlay survives it)",
			     why ? why : "", why ? "\n" : "") < 0)
			return imgp_fail(ENOMEM, "out of memory");
	}
	/* What the boot hangs on besides the tree (a setting that loads another one) is said with it. */
	for (size_t i = 0; i < p->tree->nnotes; i++) {
		char *more;

		if (asprintf(&more, "%s%s%s", said ? said : why ? why : "",
			     said || why ? "\n" : "", p->tree->notes[i]) < 0) {
			free(said);
			return imgp_fail(ENOMEM, "out of memory");
		}
		free(said);
		said = more;
	}
	rc = imgp_patch_write_dtb_note_(patch, p->tree->path, said ? said : why);
	free(said);
	if (!rc && p->tree->kept_in)
		rc = write_kept(patch, p->tree->kept_in);
	return rc;
}

int imgp_patch_write_via_(struct imgp_patch *patch, enum imgp_via via,
			 const char *why, const char *name)
{
	const struct imgp_dt_plan *p = patch->dt_plan;

	if (!patch->have_dtb)
		return imgp_fail(EINVAL, "no device tree loaded");
	if (!p || !p->tree)
		return imgp_fail(EINVAL, "the tree did not come from the boot path");
	if (via == IMGP_VIA_OVERLAY)
		return write_overlays(patch, why, name);
	return write_file(patch, why);
}
