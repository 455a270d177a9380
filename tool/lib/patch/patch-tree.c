// SPDX-License-Identifier: MIT
/*
 * Where an edited tree goes, decided once for the CLI's patch and the
 * recipes alike. A FIT's tree goes to the override file the boot script
 * loads, else back into the FIT; a tree the boot path names as a file
 * goes into a new overlay in its list, or into the file itself
 * (imgp_patch_via_choose_). The way is chosen when the tree is loaded,
 * before the edits: edits made in place judge an absent property apart.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "boot/boot.h"
#include "patch/patch.h"

/* What bytes a tree would replace, when not a device tree the board loads as one; NULL: that. */
static const char *not_a_tree(const void *data, size_t len)
{
	int node;

	/* An empty file holds nothing to lose. */
	if (!len)
		return NULL;
	if (fdt_check_full(data, len) != 0)
		return "a file that is no device tree";
	if (fdt_path_offset(data, "/images") >= 0)
		return "a FIT image";
	fdt_for_each_subnode(node, data, 0)
		if (fdt_subnode_offset(data, node, "__overlay__") >= 0)
			return "a device tree overlay";
	return NULL;
}

int imgp_patch_tree_dest_check_(struct imgp_patch *patch, const char *path,
			       const char *option, bool trees_too)
{
	const struct imgp_part *part = patch->boot_part;
	struct imgp_survey *sv = imgp_patch_survey_(patch);
	struct imgp_buf old = { 0 };
	const char *held = NULL;
	char what[4200];
	bool existed = false;
	int rc, kind;

	if (!sv)
		return -ENOMEM;
	rc = imgp_fs_path_check_(part, path);
	if (rc) {
		snprintf(what, sizeof(what), "%s", imgp_errmsg());
		return imgp_fail(-rc, IMGP_PART_FMT " (%s): %s: %s %s", part->number,
				 part->fstype, path, option, what);
	}
	/* A FIT other than the survey's (--fit): compared whatever the case, as FAT does. */
	if (patch->fit_path && sv->fit_path && strcasecmp(patch->fit_path, sv->fit_path) &&
	    !strcasecmp(path, patch->fit_path)) {
		snprintf(what, sizeof(what), "the FIT the tree comes from");
		kind = IMGP_BOOT_FILE_OTHER;
	} else {
		kind = imgp_survey_boot_file_(sv, part, path, what, sizeof(what));
	}
	if (kind == IMGP_BOOT_FILE_OTHER || (kind == IMGP_BOOT_FILE_TREE && trees_too))
		return imgp_fail(EPERM, IMGP_PART_FMT " (%s): %s: %s would replace %s",
				 part->number, part->fstype, path, option, what);
	/* The hook file is the tree the script loads, even when what is there now is broken. */
	if (!strcasecmp(path, IMGP_OVERRIDE_PATH))
		return 0;
	/* Its bytes say the rest, whatever name reaches it (a FAT short alias, a link). */
	rc = imgp_patch_read_(patch, part, path, IMGP_DTB_MAX, &old, &existed);
	if (rc == -EISDIR)
		rc = imgp_fail(EISDIR, IMGP_PART_FMT " (%s): %s: %s names a folder, not a file",
			       part->number, part->fstype, path, option);
	else if (rc == -EFBIG)
		rc = imgp_fail(EPERM, IMGP_PART_FMT " (%s): %s: %s would replace a file of more than %zu MiB, which is no device tree",
			       part->number, part->fstype, path, option, IMGP_DTB_MAX >> 20);
	else if (!rc && existed && (held = not_a_tree(old.data, old.len)))
		rc = imgp_fail(EPERM, IMGP_PART_FMT " (%s): %s: %s would replace %s",
			       part->number, part->fstype, path, option, held);
	imgp_buf_free(&old);
	return rc;
}

/* Whose the tree is: --fit and --fdt make it a FIT's, else the boot path says. */
static bool tree_is_fit(struct imgp_patch *patch, const struct imgp_tree_opts *o)
{
	if (o->from != IMGP_TREE_ANY)
		return o->from == IMGP_TREE_FIT;
	return !imgp_patch_boots_files_(patch);
}

/* A FIT's tree: the override file when the boot script loads one (or asked), else the FIT. */
static int begin_fit(struct imgp_patch *patch, const struct imgp_tree_opts *o)
{
	const char *fit = o->fit_path ? o->fit_path : IMGP_FIT_PATH;
	enum imgp_via via = o->via;
	int rc;

	if (via == IMGP_VIA_OVERLAY || via == IMGP_VIA_FILE)
		return imgp_fail(EINVAL, "--via %s: the tree is a FIT's (%s): use --via override or fit",
				 imgp_via_name_(via), fit);
	if (o->model)
		return imgp_fail(EINVAL, "--model: the tree is a FIT's (%s): pick it with --fdt", fit);
	rc = imgp_patch_load_fdt_(patch, fit, o->fdt);
	if (rc || o->load_only)
		return rc;
	if (via == IMGP_VIA_DEFAULT) {
		rc = imgp_patch_boot_hook(patch, IMGP_OVERRIDE_NAME);
		if (rc < 0)
			return rc;
		imgp_errclear_();
		via = rc ? IMGP_VIA_OVERRIDE : IMGP_VIA_FIT;
	}
	patch->tree_override = strdup(o->override ? o->override : IMGP_OVERRIDE_PATH);
	if (!patch->tree_override)
		return imgp_fail(ENOMEM, "out of memory");
	/* Checked before the edits: --force is for a file the script ignores, not for this. */
	if (via == IMGP_VIA_OVERRIDE) {
		rc = imgp_patch_tree_dest_check_(patch, patch->tree_override,
						o->override ? "--dtb-out" : "the override file",
						true);
		if (rc)
			return rc;
	}
	if (o->via != IMGP_VIA_DEFAULT)
		rc = asprintf(&patch->tree_why, "via %s: %s", imgp_via_name_(via),
			      o->asked_by ? o->asked_by : via == IMGP_VIA_FIT ? "--via fit" :
			      "--via override");
	else if (via == IMGP_VIA_FIT)
		rc = asprintf(&patch->tree_why, "via fit: the boot script loads no override file");
	else
		rc = asprintf(&patch->tree_why, "via override: the boot script loads %s",
			      IMGP_OVERRIDE_PATH);
	if (rc < 0) {
		patch->tree_why = NULL;
		return imgp_fail(ENOMEM, "out of memory");
	}
	patch->tree_via = via;
	patch->dt_in_place = via == IMGP_VIA_FIT;
	return 0;
}

/* A tree the boot path names: a new overlay in its list, or the file in place. */
static int begin_booted(struct imgp_patch *patch, const struct imgp_tree_opts *o)
{
	enum imgp_via via = IMGP_VIA_DEFAULT;
	const char *why = NULL;
	int rc = 0;

	/* A tree loaded only to be read goes nowhere: no way to choose. */
	if (!o->load_only)
		rc = imgp_patch_via_choose_(patch, o->via, o->deletes, &via, &why);
	if (!rc)
		rc = imgp_patch_load_booted_(patch, o->model);
	if (rc || o->load_only)
		return rc;
	patch->tree_why = strdup(why);
	if (o->name)
		patch->tree_name = strdup(o->name);
	if (!patch->tree_why || (o->name && !patch->tree_name))
		return imgp_fail(ENOMEM, "out of memory");
	patch->tree_via = via;
	return 0;
}

int imgp_patch_tree_begin(struct imgp_patch *patch, const struct imgp_tree_opts *opts)
{
	/* A later tree (another recipe's) goes its own way. */
	patch->tree_via = IMGP_VIA_DEFAULT;
	free(patch->tree_why);
	free(patch->tree_override);
	free(patch->tree_name);
	patch->tree_why = patch->tree_override = patch->tree_name = NULL;
	return tree_is_fit(patch, opts) ? begin_fit(patch, opts) : begin_booted(patch, opts);
}

int imgp_patch_tree_finish(struct imgp_patch *patch)
{
	switch (patch->tree_via) {
	case IMGP_VIA_FIT:
		return imgp_patch_write_fit_(patch, patch->tree_why);
	case IMGP_VIA_OVERRIDE:
		return imgp_patch_write_dtb_note_(patch, patch->tree_override, patch->tree_why);
	case IMGP_VIA_OVERLAY:
	case IMGP_VIA_FILE:
		return imgp_patch_write_via_(patch, patch->tree_via, patch->tree_why,
					    patch->tree_name);
	default:
		if (!patch->have_dtb)
			return imgp_fail(EINVAL, "no device tree loaded");
		return imgp_fail(EINVAL, "the tree did not come from the boot path");
	}
}
