// SPDX-License-Identifier: MIT
/*
 * Patch operations on a device tree: load it from a FIT or a .dtb file,
 * edit it in memory, plan writing it back. The plan shows the change as a
 * diff of the decompiled tree before and after.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "text/text.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

/* A boot script is a few kilobytes; the bound keeps a hostile one cheap. */
#define BOOTSCR_MAX ((size_t)1 << 20)

/* Makes blob the tree being edited; origin names it in messages. */
static int patch_take_dtb(struct imgp_patch *patch, const struct imgp_part *part,
			  const void *blob, size_t size, const char *origin)
{
	int rc;

	rc = imgp_dtb_load_(&patch->dtb, blob, size);
	if (rc)
		return rc;
	rc = imgp_dtb_load_(&patch->dtb_source, blob, size);
	if (rc) {
		imgp_dtb_free_(&patch->dtb);
		return rc;
	}
	patch->have_dtb = true;
	patch->boot_part = part;
	patch->dtb_origin = strdup(origin);
	rc = patch->dtb_origin ? imgp_dt_to_dts_(&patch->dtb, &patch->dtb_before)
			       : imgp_fail(ENOMEM, "out of memory");
	return rc;
}

int imgp_patch_load_dtb_blob_(struct imgp_patch *patch, const struct imgp_part *part,
			     const void *blob, size_t size, const char *origin)
{
	if (patch->have_dtb)
		return imgp_fail(EINVAL, "a device tree is already loaded");
	return patch_take_dtb(patch, part, blob, size, origin);
}

/* The only flat_dt image of a FIT, or a message listing them all. */
static int fit_only_fdt(const struct imgp_fit *fit,
			const struct imgp_fit_image **out)
{
	struct imgp_buf names = { 0 };
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < fit->nimages; i++) {
		if (strcmp(fit->images[i].type, "flat_dt"))
			continue;
		*out = &fit->images[i];
		imgp_buf_printf(&names, "%s%d %s", n ? ", " : "", (*out)->index,
				(*out)->name);
		n++;
	}
	if (n != 1) {
		*out = NULL;
		rc = imgp_fail(EINVAL, n ? "the FIT has %zu fdt images: choose one with --fdt (have: %s)"
					 : "the FIT has %zu fdt images%s",
			       n, names.len ? (char *)names.data : "");
	}
	imgp_buf_free(&names);
	return rc;
}

int imgp_patch_load_fdt_(struct imgp_patch *patch, const char *fit_path,
			const char *spec)
{
	const struct imgp_part *part;
	const struct imgp_fit_image *fimg = NULL;
	struct imgp_fit *fit;
	struct imgp_survey *sv;
	const uint8_t *payload;
	char *origin = NULL, *error = NULL;
	size_t size;
	int rc;

	if (patch->have_dtb)
		return imgp_fail(EINVAL, "a device tree is already loaded");
	sv = imgp_patch_survey_(patch);
	if (!sv)
		return -ENOMEM;
	/* Any FIT path (--fit, a recipe's) is found by the survey's one rule. */
	rc = imgp_survey_find_(sv, fit_path, &part, &error);
	free(error);
	if (rc)
		return rc;
	/* Load errors already name the partition and the file. */
	rc = imgp_patch_load_fit_(patch, part, fit_path, &fit);
	if (rc)
		return rc;
	if (!rc)
		rc = spec ? imgp_fit_find_fdt_(fit, spec, &fimg)
			  : fit_only_fdt(fit, &fimg);
	/* Payload errors name the image themselves; the tree's do not. */
	if (!rc)
		rc = imgp_fit_payload_(fit, fimg, &payload, &size);
	if (!rc && asprintf(&origin, "%s in " IMGP_PART_FMT " %s", fimg->name,
			    part->number, fit_path) < 0) {
		origin = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	if (!rc) {
		rc = patch_take_dtb(patch, part, payload, size, origin);
		if (rc)
			imgp_fail_ctx(rc, "%s", fimg->name);
	}
	if (!rc) {
		patch->fit_path = strdup(fit_path);
		patch->fit_image = strdup(fimg->name);
		if (!patch->fit_path || !patch->fit_image)
			rc = imgp_fail(ENOMEM, "out of memory");
	}
	if (rc)
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
			      part->fstype, fit_path);
	free(origin);
	return rc;
}

int imgp_patch_load_dtb_file_(struct imgp_patch *patch, const char *part_spec,
			     const char *path)
{
	const struct imgp_part *part;
	struct imgp_buf raw = { 0 };
	char *origin = NULL;
	bool existed;
	int rc;

	if (patch->have_dtb)
		return imgp_fail(EINVAL, "a device tree is already loaded");
	part = imgp_patch_part_(patch, part_spec);
	if (!part)
		return -ENOENT;
	rc = imgp_patch_read_(patch, part, path, IMGP_DTB_MAX, &raw, &existed);
	if (rc) {
		imgp_buf_free(&raw);
		return rc;
	}
	if (!existed)
		rc = imgp_fail(ENOENT, "no such file");
	if (!rc && asprintf(&origin, IMGP_PART_FMT " %s", part->number, path) < 0) {
		origin = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	if (!rc)
		rc = patch_take_dtb(patch, part, raw.data, raw.len, origin);
	if (!rc && !(patch->dtb_file = strdup(path)))
		rc = imgp_fail(ENOMEM, "out of memory");
	if (rc)
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
			      part->fstype, path);
	free(origin);
	imgp_buf_free(&raw);
	return rc;
}

/* Resolves NODE in the loaded tree and gives its path for the plan. */
static int patch_node(struct imgp_patch *patch, const char *node, char *path,
		      size_t pathlen)
{
	int off, rc;

	if (!patch->have_dtb)
		return imgp_fail(EINVAL, "no device tree loaded (a recipe needs an fdt-from-fit or dtb-from-file step first)");
	off = imgp_dt_find_node_(&patch->dtb, node);
	if (off < 0)
		return imgp_fail_ctx(off, "%s", patch->dtb_origin);
	rc = imgp_dt_node_path_(&patch->dtb, off, path, pathlen);
	return rc ? rc : off;
}

static int dt_note(struct imgp_patch *patch, const char *fmt, const char *a,
		   const char *b)
{
	int rc = imgp_buf_printf(&patch->dtb_notes, fmt, a, b);

	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_patch_dt_delete(struct imgp_patch *patch, const char *node,
			 const char *prop)
{
	char path[1024];
	int off, rc;

	off = patch_node(patch, node, path, sizeof(path));
	if (off < 0)
		return off;
	rc = imgp_dt_delete_prop_(&patch->dtb, off, prop);
	/*
	 * Absent from the tree file but there in the tree the board boots: an
	 * overlay of the boot path sets it, and deleting it here does nothing.
	 */
	if (rc == 1 && !imgp_dt_has_prop_(&patch->dtb_source, path, prop)) {
		char *where = NULL;
		int set = imgp_dt_plan_effective_has_(patch, path, prop, &where);

		if (set > 0)
			rc = imgp_fail(EINVAL, "%s is not in the tree file but the board boots it: an overlay sets it (%s); take that overlay out of the boot path's list rather than edit the file",
				       prop, where);
		else if (set < 0)
			rc = set;
		free(where);
	}
	/*
	 * Absent from the tree as loaded too: a typo, or the wrong tree. An
	 * edit in place (--via file, fit) may meet its own earlier run: a name
	 * close to one the node has is a typo, and so is any other unless the
	 * package that shipped the tree shows that the file lost it since.
	 */
	if (rc == 1 && !imgp_dt_has_prop_(&patch->dtb_source, path, prop)) {
		int before = 0;

		if (patch->dt_in_place && !imgp_dt_prop_is_typo_(&patch->dtb, off, prop))
			before = imgp_patch_dt_deleted_before_(patch, path, prop);
		rc = before < 0 ? before : before ? 1 :
		     imgp_dt_prop_not_found_(&patch->dtb, off, prop);
	}
	if (rc < 0)
		return imgp_fail_ctx(rc, "%s: %s: delete %s", patch->dtb_origin,
				     path, prop);
	if (imgp_dt_plan_record_(patch, IMGP_DT_EDIT_DELETE, path, prop, NULL, 0, NULL))
		return -ENOMEM;
	return dt_note(patch, rc == 1 ? "%s: already without %s\n"
				      : "%s: delete %s\n", path, prop);
}

int imgp_patch_dt_set(struct imgp_patch *patch, const char *node,
		      const char *prop, const char *value)
{
	struct imgp_buf val = { 0 };
	char path[1024], what[1200];
	int off, rc;

	off = patch_node(patch, node, path, sizeof(path));
	if (off < 0)
		return off;
	rc = imgp_dt_parse_value_(value, &val);
	if (!rc)
		rc = imgp_dt_set_prop_(&patch->dtb, off, prop, val.data, val.len);
	if (!rc)
		rc = imgp_dt_plan_record_(patch, IMGP_DT_EDIT_SET, path, prop,
					 val.data, val.len, NULL);
	imgp_buf_free(&val);
	if (rc)
		return imgp_fail_ctx(rc, "%s: %s: set %s", patch->dtb_origin, path,
				     prop);
	snprintf(what, sizeof(what), "%s = %s", prop, *value ? value : "(empty)");
	return dt_note(patch, "%s: set %s\n", path, what);
}

int imgp_patch_dt_add_node_(struct imgp_patch *patch, const char *path)
{
	int rc;

	if (!patch->have_dtb)
		return imgp_fail(EINVAL, "no device tree loaded");
	rc = imgp_dt_add_node_(&patch->dtb, path);
	if (rc < 0)
		return imgp_fail_ctx(rc, "%s: add node %s", patch->dtb_origin, path);
	if (imgp_dt_plan_record_(patch, IMGP_DT_EDIT_ADD_NODE, path, NULL, NULL, 0, NULL))
		return -ENOMEM;
	return dt_note(patch, "%s: add node%s\n", path, "");
}

int imgp_patch_dt_delete_node(struct imgp_patch *patch, const char *node)
{
	char path[1024];
	int off, rc;

	off = patch_node(patch, node, path, sizeof(path));
	if (off < 0)
		return off;
	rc = imgp_dt_delete_node_(&patch->dtb, off);
	if (rc)
		return imgp_fail_ctx(rc, "%s: delete node %s", patch->dtb_origin, path);
	if (imgp_dt_plan_record_(patch, IMGP_DT_EDIT_DELETE_NODE, path, NULL, NULL, 0, NULL))
		return -ENOMEM;
	return dt_note(patch, "%s: delete node%s\n", path, "");
}

int imgp_patch_dt_overlay(struct imgp_patch *patch, const void *dtbo,
			  size_t len, const char *name)
{
	int rc;

	if (!patch->have_dtb)
		return imgp_fail(EINVAL, "no device tree loaded");
	rc = imgp_dt_apply_overlay_(&patch->dtb, dtbo, len);
	if (rc)
		return imgp_fail_ctx(rc, "%s: overlay %s", patch->dtb_origin, name);
	if (imgp_dt_plan_record_(patch, IMGP_DT_EDIT_OVERLAY, NULL, NULL, dtbo, len, name))
		return -ENOMEM;
	return dt_note(patch, "apply overlay %s%s\n", name, "");
}

/*
 * The plan's note for the edited tree: why it goes where it goes, where it
 * came from, the edits, and the decompiled tree before and after as a diff.
 */
int imgp_patch_dt_note_(struct imgp_patch *patch, const char *why,
		       const char *target, struct imgp_buf *note)
{
	struct imgp_buf after = { 0 };
	int rc = 0;

	if (why)
		rc = imgp_buf_printf(note, "%s\n", why);
	if (!rc)
		rc = imgp_buf_printf(note, "from %s\n", patch->dtb_origin);
	if (!rc)
		rc = imgp_buf_append(note, patch->dtb_notes.data,
				     patch->dtb_notes.len);
	if (!rc)
		rc = imgp_dt_to_dts_(&patch->dtb, &after);
	if (!rc)
		rc = imgp_diff_unified_((char *)patch->dtb_before.data,
				       patch->dtb_before.len, (char *)after.data,
				       after.len, patch->dtb_origin, target, note);
	imgp_buf_free(&after);
	return rc;
}

int imgp_patch_write_dtb_(struct imgp_patch *patch, const char *path)
{
	int rc;

	if (!patch->have_dtb)
		return imgp_fail(EINVAL, "no device tree loaded");
	/* A tree written over a tree file is the step's job; over anything else it is not. */
	rc = imgp_patch_tree_dest_check_(patch, path, "the tree", false);
	return rc ? rc : imgp_patch_write_dtb_note_(patch, path, NULL);
}

int imgp_patch_write_dtb_note_(struct imgp_patch *patch, const char *path,
			      const char *why)
{
	struct imgp_buf note = { 0 };
	const void *blob;
	size_t size;
	int rc;

	if (!patch->have_dtb)
		return imgp_fail(EINVAL, "no device tree loaded");
	rc = imgp_dtb_finish_(&patch->dtb, &blob, &size);
	if (!rc)
		rc = imgp_patch_dt_note_(patch, why, path, &note);
	if (!rc)
		rc = imgp_patch_write_(patch, patch->boot_part, path, blob, size,
				      false, (char *)note.data);
	imgp_buf_free(&note);
	return rc;
}

int imgp_patch_write_fit_(struct imgp_patch *patch, const char *why)
{
	const struct imgp_part *part = patch->boot_part;
	struct imgp_buf raw = { 0 }, note = { 0 }, out = { 0 };
	struct imgp_fit fit = { 0 };
	char target[1200];
	const void *blob;
	size_t size, len;
	bool existed;
	uint8_t *whole;
	int rc;

	if (!patch->have_dtb)
		return imgp_fail(EINVAL, "no device tree loaded");
	if (!patch->fit_path)
		return imgp_fail(EINVAL, "%s: the tree is no FIT image: nothing to rewrite",
				 patch->dtb_origin);
	rc = imgp_dtb_finish_(&patch->dtb, &blob, &size);
	if (rc)
		return rc;
	/* Whole: every payload after the tree may move. */
	rc = imgp_patch_read_(patch, part, patch->fit_path, IMGP_FIT_MAX, &raw,
			     &existed);
	if (!rc && !existed)
		rc = imgp_fail(ENOENT, "no such file");
	if (!rc) {
		whole = imgp_buf_steal_(&raw, &len);
		rc = whole ? imgp_fit_parse_(&fit, whole, len)
			   : imgp_fail(EINVAL, "empty file");
	}
	if (!rc)
		rc = imgp_fit_rewrite_(&fit, patch->fit_image, blob, size, &out);
	snprintf(target, sizeof(target), "%s in " IMGP_PART_FMT " %s (rewritten)",
		 patch->fit_image, part->number, patch->fit_path);
	if (!rc)
		rc = imgp_patch_dt_note_(patch, why, target, &note);
	if (!rc)
		rc = imgp_patch_write_(patch, part, patch->fit_path, out.data,
				      out.len, false, (char *)note.data);
	else
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
			      part->fstype, patch->fit_path);
	imgp_fit_free_(&fit);
	imgp_buf_free(&raw);
	imgp_buf_free(&note);
	imgp_buf_free(&out);
	return rc;
}

/* 1 when the script at path loads word, else 0 with the message saying so. */
static int hook_answer(const struct imgp_part *part, const char *path,
		       bool loads, const char *word)
{
	if (!loads)
		imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s does not load %s: the board will ignore it",
			  part->number, part->fstype, path, word);
	return loads;
}

/*
 * The survey's script when the patch leaves it as it was; else read through
 * the patch: a script an earlier step planned is the one the board will run.
 */
int imgp_patch_boot_hook(struct imgp_patch *patch, const char *word)
{
	const struct imgp_part *part = imgp_patch_part_(patch, "boot");
	const struct imgp_survey_script_ *known;
	struct imgp_buf raw = { 0 };
	struct imgp_bootscr scr;
	const char *path = NULL;
	bool existed = false;
	int rc = 0;

	if (!part)
		return -ENOENT;
	known = imgp_patch_surveyed_script_(patch, part);
	if (known)
		return hook_answer(part, known->path, strcmp(word, IMGP_OVERRIDE_NAME) ?
				   imgp_bootscr_mentions_(&known->scr, word) :
				   known->loads_override, word);
	for (size_t i = 0; !rc && !existed && i < imgp_nbootscr_paths_; i++) {
		path = imgp_bootscr_paths_[i];
		rc = imgp_patch_read_(patch, part, path, BOOTSCR_MAX, &raw, &existed);
	}
	if (!rc && existed) {
		rc = imgp_bootscr_parse_(&scr, raw.data, raw.len);
		if (rc)
			imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
				      part->fstype, path);
	}
	if (!rc && existed) {
		rc = hook_answer(part, path, imgp_bootscr_mentions_(&scr, word), word);
		imgp_bootscr_free_(&scr);
	}
	if (!rc && !existed)
		imgp_fail(ENOENT, IMGP_PART_FMT " (%s): no boot script (%s or %s) to load %s: the board will ignore it",
			  part->number, part->fstype, imgp_bootscr_paths_[0],
			  imgp_bootscr_paths_[1], word);
	imgp_buf_free(&raw);
	return rc;
}
