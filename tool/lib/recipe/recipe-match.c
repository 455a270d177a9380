// SPDX-License-Identifier: MIT
/*
 * Matching: checks a recipe's match rules against an image (partition
 * labels, files, FIT configurations, compatible strings).
 */
#include <errno.h>
#include <libfdt.h>
#include <stdlib.h>
#include <string.h>

#include "recipe-internal.h"
#include "boot/bootpath.h"
#include "disk/disk.h"

/* ------------------------------------------------------------ matching */

/* "p1 'system-boot' (vfat), p2 'writable' (ext4)" */
static int list_parts(const struct imgp_table *tab, struct imgp_buf *b)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];
		const char *label = p->fslabel[0] ? p->fslabel : p->name;

		if (p->container)
			continue;
		rc = imgp_buf_printf(b, "%s" IMGP_PART_FMT, b->len ? ", " : "",
				     p->number);
		if (!rc && label[0])
			rc = imgp_buf_printf(b, " '%s'", label);
		if (!rc && p->name[0] && p->fslabel[0] && strcmp(p->name, p->fslabel))
			rc = imgp_buf_printf(b, " (GPT name '%s')", p->name);
		if (!rc)
			rc = imgp_buf_printf(b, " (%s)", p->fstype[0] ? p->fstype : "unknown");
	}
	return rc;
}

static int match_label(struct imgp_patch *patch, const char *label)
{
	const struct imgp_table *tab = imgp_disk_table_(patch->disk);
	struct imgp_buf have = { 0 };
	int rc;

	for (size_t i = 0; i < tab->nparts; i++)
		if (!strcmp(tab->parts[i].fslabel, label) ||
		    !strcmp(tab->parts[i].name, label))
			return 0;
	rc = list_parts(tab, &have);
	if (!rc)
		rc = imgp_fail(ENOENT, "expected a partition labelled '%s', found: %s",
			       label, have.len ? (char *)have.data : "no partitions");
	imgp_buf_free(&have);
	return rc;
}

/*
 * The survey's open filesystem of part, or the -errno and message of why it
 * did not open (as the survey recorded them).
 */
static int survey_part_fs(struct imgp_survey *sv, const struct imgp_part *part,
			  struct imgp_fs **fs)
{
	size_t i = (size_t)(part - imgp_disk_table_(sv->disk)->parts);

	*fs = NULL;
	if (i < imgp_disk_table_(sv->disk)->nparts && sv->fs_rc[i])
		return imgp_survey_fail_(sv->fs_rc[i], sv->fs_error[i]);
	*fs = imgp_survey_fs_(sv, part);
	return *fs ? 0 : -ENOTSUP;
}

static int match_file(struct imgp_patch *patch, const char *spec)
{
	const char *colon = strchr(spec, ':');
	const struct imgp_part *part;
	struct imgp_survey *sv;
	struct imgp_fs *fs;
	char pspec[256];
	int rc;

	snprintf(pspec, sizeof(pspec), "%.*s", (int)(colon - spec), spec);
	part = imgp_patch_part_(patch, pspec);
	if (!part)
		return imgp_fail_ctx(-ENOENT, "expected %s, found", spec);
	/* Through the survey's filesystems, as the other rules read the image. */
	sv = imgp_patch_survey_(patch);
	if (!sv)
		return -ENOMEM;
	rc = survey_part_fs(sv, part, &fs);
	if (rc)
		return imgp_fail_ctx(rc, "expected %s, found", spec);
	rc = imgp_fs_exists_(fs, colon + 1);
	if (rc < 0)
		return imgp_fail_ctx(rc, "expected %s", spec);
	if (rc == 0)
		return imgp_fail(ENOENT, "expected %s, found: no such file on "
				 IMGP_PART_FMT " (%s)", spec, part->number,
				 part->fstype);
	return 0;
}

/* The FIT the rules and the load step read, parsed once for both. */
struct match_fit {
	const char *path;
	struct imgp_fit *fit;    /* the patch's; NULL until loaded */
};

static int fit_get(struct imgp_patch *patch, struct match_fit *mf)
{
	const struct imgp_part *part;
	struct imgp_survey *sv;
	char *error = NULL;
	int rc;

	if (mf->fit)
		return 0;
	/* Found as patch's fdt-from-fit finds it: the survey's one rule. */
	sv = imgp_patch_survey_(patch);
	if (!sv)
		return -ENOMEM;
	rc = imgp_survey_find_(sv, mf->path, &part, &error);
	free(error);
	if (rc)
		return rc;
	return imgp_patch_load_fit_(patch, part, mf->path, &mf->fit);
}

static int match_fit_fdt(struct imgp_patch *patch, struct match_fit *mf,
			 const char *name)
{
	struct imgp_buf have = { 0 };
	int rc = fit_get(patch, mf);

	if (rc)
		return imgp_fail_ctx(rc, "expected FIT fdt '%s', found", name);
	for (size_t i = 0; i < mf->fit->nimages; i++)
		if (!strcmp(mf->fit->images[i].type, "flat_dt") &&
		    !strcmp(mf->fit->images[i].name, name))
			return 0;
	for (size_t i = 0; !rc && i < mf->fit->nimages; i++)
		if (!strcmp(mf->fit->images[i].type, "flat_dt"))
			rc = imgp_buf_printf(&have, "%s%s", have.len ? ", " : "",
					     mf->fit->images[i].name);
	if (!rc)
		rc = imgp_fail(ENOENT, "expected FIT fdt '%s' in %s (have: %s)", name,
			       mf->path, have.len ? (char *)have.data : "no fdt images");
	imgp_buf_free(&have);
	return rc;
}

/* The tree the first load step would load, without loading it into patch. */
static int load_tree(struct imgp_patch *patch, const struct recipe_step *st,
		     struct match_fit *mf, struct imgp_dtb *dtb)
{
	if (st->action->run == imgp_recipe_run_fdt_from_fit_) {
		const struct imgp_fit_image *img = NULL;
		const uint8_t *data;
		size_t size;
		int rc = fit_get(patch, mf);

		if (!rc && st->val[OP_FDT]) {
			rc = imgp_fit_find_fdt_(mf->fit, st->val[OP_FDT], &img);
		} else if (!rc) {
			for (size_t i = 0; i < mf->fit->nimages; i++) {
				if (strcmp(mf->fit->images[i].type, "flat_dt"))
					continue;
				if (img)
					return imgp_fail(EINVAL, "the FIT has several fdt images: the fdt-from-fit step must name one");
				img = &mf->fit->images[i];
			}
			if (!img)
				rc = imgp_fail(ENOENT, "the FIT has no fdt image");
		}
		if (!rc)
			rc = imgp_fit_payload_(mf->fit, img, &data, &size);
		if (!rc)
			rc = imgp_dtb_load_(dtb, data, size);
		return rc;
	} else {
		/* dt-from-boot: the tree the boot path boots, on the boot partition. */
		const struct imgp_survey_bootdt *booted = NULL;
		const struct imgp_part *part;
		const char *path = st->val[OP_PATH];
		struct imgp_buf raw = { 0 };
		bool existed;
		int rc;

		if (!path && (rc = imgp_patch_find_booted_(patch, st->val[OP_MODEL], &booted)))
			return rc;
		path = path ? path : booted->path;
		part = imgp_patch_part_(patch, booted ? "boot" : st->val[OP_PART]);
		if (!part)
			return -ENOENT;
		rc = imgp_patch_read_(patch, part, path, IMGP_DTB_MAX,
				     &raw, &existed);
		if (!rc && !existed)
			rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file",
				       part->number, part->fstype, path);
		if (!rc)
			rc = imgp_dtb_load_(dtb, raw.data, raw.len);
		imgp_buf_free(&raw);
		return rc;
	}
}

static int match_compat(const struct imgp_dtb *dtb, const char *want)
{
	struct imgp_buf have = { 0 };
	const char *prop;
	int len, rc = 0;

	prop = fdt_getprop(dtb->fdt, 0, "compatible", &len);
	if (prop && len > 0 && fdt_stringlist_contains(prop, len, want))
		return 0;
	for (int off = 0; prop && off < len && !rc;) {
		size_t n = strnlen(prop + off, (size_t)(len - off));

		rc = imgp_buf_printf(&have, "%s'%.*s'", have.len ? ", " : "",
				     (int)n, prop + off);
		off += (int)n + 1;
	}
	if (!rc)
		rc = imgp_fail(ENOENT, "expected root compatible '%s', found: %s",
			       want, have.len ? (char *)have.data : "none");
	imgp_buf_free(&have);
	return rc;
}

int imgp_recipe_match(const struct imgp_recipe *r, struct imgp_patch *patch)
{
	const struct recipe_step *load = imgp_recipe_first_dt_load_(r);
	struct match_fit mf = { IMGP_FIT_PATH, NULL };
	struct imgp_dtb dtb = { 0 };
	bool have_dtb = false;
	int rc = imgp_recipe_check_bound_(r);

	if (load && load->action->run == imgp_recipe_run_fdt_from_fit_)
		mf.path = load->val[OP_FIT];
	for (int k = 0; !rc && k < R_COUNT; k++) {
		for (size_t i = 0; !rc && i < r->nrules; i++) {
			const struct match_rule *rule = &r->rules[i];

			if (rule->kind != (enum rule_kind)k)
				continue;
			switch (rule->kind) {
			case R_LABEL:
				rc = match_label(patch, rule->val);
				break;
			case R_PART:
				/* As a step finds it: boot, root, nocloud, a label. */
				if (!imgp_patch_part_(patch, rule->val))
					rc = imgp_fail_ctx(-ENOENT, "expected partition '%s', found",
							   rule->val);
				break;
			case R_FILE:
				rc = match_file(patch, rule->val);
				break;
			case R_FITFDT:
				rc = match_fit_fdt(patch, &mf, rule->val);
				break;
			case R_COMPAT:
				if (!have_dtb) {
					rc = load_tree(patch, load, &mf, &dtb);
					if (rc) {
						imgp_fail_ctx(rc, "expected root compatible '%s', found", rule->val);
						break;
					}
					have_dtb = true;
				}
				rc = match_compat(&dtb, rule->val);
				break;
			case R_COUNT:
				break;
			}
		}
	}
	if (have_dtb)
		imgp_dtb_free_(&dtb);
	if (rc && r->bound)
		imgp_fail_ctx(rc, "recipe '%s' does not match this image", r->name);
	return rc;
}
