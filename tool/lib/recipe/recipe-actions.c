// SPDX-License-Identifier: MIT
/*
 * The action table: every step a recipe can take, its options, how
 * describe shows it and the patch operation that runs it. A new step is
 * one run function and one line in recipe_actions[].
 */
#include <errno.h>
#include <string.h>

#include "recipe-internal.h"

/* ------------------------------------------------------------ actions */

int recipe_run_fdt_from_fit(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_load_fdt(patch, st->val[OP_FIT], st->val[OP_FDT]);
}

static int run_dtb_from_file(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_load_dtb_file(patch, st->val[OP_PART], st->val[OP_PATH]);
}

static int run_dt_delete(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_dt_delete(patch, st->val[OP_NODE], st->val[OP_PROPERTY]);
}

static int run_dt_set(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_dt_set(patch, st->val[OP_NODE], st->val[OP_PROPERTY],
				 st->val[OP_VALUE]);
}

static int run_dt_add_node(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_dt_add_node(patch, st->val[OP_PATH]);
}

static int run_dt_delete_node(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_dt_delete_node(patch, st->val[OP_NODE]);
}

static int run_dt_overlay(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_buf dtbo = { 0 };
	int rc;

	rc = recipe_read_whole(st->local, LOCAL_MAX, true, &dtbo);
	if (!rc)
		rc = imgp_patch_dt_overlay(patch, dtbo.data, dtbo.len,
					   st->val[OP_OVERLAY]);
	imgp_buf_free(&dtbo);
	return rc;
}

static int run_write_dtb(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_write_dtb(patch, st->val[OP_PATH]);
}

static int run_boot_hook(struct imgp_patch *patch, const struct recipe_step *st)
{
	int rc = imgp_patch_boot_hook(patch, st->val[OP_WORD]);

	/* 0: no hook; the message says which script lacks it. */
	if (rc == 0)
		return -ENOENT;
	return rc < 0 ? rc : 0;
}

static int run_fstab(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_fstab(patch, st->val[OP_PART], st->val[OP_MOUNTPOINT],
				st->val[OP_OPTIONS]);
}

/* The inline text of opt, or the content of the step's local file. */
static int step_text(const struct recipe_step *st, enum opt opt,
		     struct imgp_buf *out)
{
	if (st->val[opt])
		return imgp_buf_append(out, st->val[opt], strlen(st->val[opt])) ?
			imgp_fail(ENOMEM, "out of memory") : 0;
	return recipe_read_whole(st->local, LOCAL_MAX, true, out);
}

static int run_write_file(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_buf data = { 0 };
	int rc = step_text(st, OP_CONTENT, &data);

	if (!rc)
		rc = imgp_patch_put_file(patch, st->val[OP_PART], st->val[OP_PATH],
					 data.data, data.len);
	imgp_buf_free(&data);
	return rc;
}

static int run_set_line(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_line_set(patch, st->val[OP_PART], st->val[OP_PATH],
				   st->val[OP_KEY], st->val[OP_VALUE],
				   st->val[OP_SECTION]);
}

static int run_remove_line(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_line_remove(patch, st->val[OP_PART], st->val[OP_PATH],
				      st->val[OP_KEY]);
}

static int run_set_token(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_token_set(patch, st->val[OP_PART], st->val[OP_PATH],
				    st->val[OP_TOKEN]);
}

static int run_remove_token(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_token_remove(patch, st->val[OP_PART], st->val[OP_PATH],
				       st->val[OP_KEY]);
}

static int run_symlink(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_symlink(patch, st->val[OP_PART], st->val[OP_PATH],
				  st->val[OP_TARGET]);
}

static int run_boot_script(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_buf text = { 0 };
	int rc = step_text(st, OP_SCRIPT, &text);

	if (!rc)
		rc = imgp_patch_bootscr(patch, st->val[OP_PART], st->val[OP_PATH],
					(const char *)text.data, text.len,
					st->val[OP_NAME], st->val[OP_ARCH]);
	imgp_buf_free(&text);
	return rc;
}

#define PART_PATH { OP_PART, K_PART, REQ }, { OP_PATH, K_FSPATH, REQ }

const struct action recipe_actions[] = {
	{ "fdt-from-fit", DT_LOAD,
	  "take the device tree[ '{fdt}'] from the FIT {fit}", recipe_run_fdt_from_fit,
	  { { OP_FIT, K_FSPATH, REQ }, { OP_FDT, K_WORD, OPT } } },
	{ "dtb-from-file", DT_LOAD, "take the device tree from {part}:{path}",
	  run_dtb_from_file, { PART_PATH } },
	{ "dt-delete-property", DT_EDIT, "delete property '{property}' of node {node}",
	  run_dt_delete,
	  { { OP_NODE, K_WORD, REQ }, { OP_PROPERTY, K_NOSPACE, REQ } } },
	{ "dt-set-property", DT_EDIT,
	  "set property '{property}' of node {node} to {value}", run_dt_set,
	  { { OP_NODE, K_WORD, REQ }, { OP_PROPERTY, K_NOSPACE, REQ },
	    { OP_VALUE, K_DTVALUE, REQ } } },
	{ "dt-add-node", DT_EDIT, "add node {path}", run_dt_add_node,
	  { { OP_PATH, K_DTPATH, REQ } } },
	{ "dt-delete-node", DT_EDIT, "delete node {node}", run_dt_delete_node,
	  { { OP_NODE, K_WORD, REQ } } },
	{ "dt-overlay", DT_CHECK, "apply the overlay {overlay}", run_dt_overlay,
	  { { OP_OVERLAY, K_LOCAL, REQ } } },
	{ "write-dtb", DT_WRITE,
	  "write the device tree to {path} on the partition it came from",
	  run_write_dtb, { { OP_PATH, K_FSPATH, REQ } } },
	{ "require-boot-hook", DT_NONE,
	  "require the boot script to load '{word}'", run_boot_hook,
	  { { OP_WORD, K_WORD, REQ } } },
	{ "fstab", DT_NONE,
	  "change the options of {mountpoint} in [{part}:]/etc/fstab: {options}",
	  run_fstab,
	  { { OP_MOUNTPOINT, K_NOSPACE, REQ }, { OP_OPTIONS, K_FSTABOPS, REQ },
	    { OP_PART, K_PART, OPT } } },
	{ "write-file", DT_NONE,
	  "write {part}:{path} from [the file {file}][{?content}inline text]",
	  run_write_file,
	  { PART_PATH, { OP_CONTENT, K_TEXT, ALT }, { OP_FILE, K_LOCAL, ALT } } },
	{ "set-line", DT_NONE,
	  "set '{key}={value}' in {part}:{path}[ (section '{section}')]",
	  run_set_line,
	  { PART_PATH, { OP_KEY, K_NOSPACE, REQ }, { OP_VALUE, K_LINE, REQ },
	    { OP_SECTION, K_NOSPACE, OPT } } },
	{ "remove-line", DT_NONE, "remove the '{key}=' lines of {part}:{path}",
	  run_remove_line, { PART_PATH, { OP_KEY, K_NOSPACE, REQ } } },
	{ "set-token", DT_NONE, "set token '{token}' in {part}:{path}",
	  run_set_token, { PART_PATH, { OP_TOKEN, K_NOSPACE, REQ } } },
	{ "remove-token", DT_NONE, "remove token '{key}' from {part}:{path}",
	  run_remove_token, { PART_PATH, { OP_KEY, K_NOSPACE, REQ } } },
	{ "symlink", DT_NONE, "link {part}:{path} -> {target}", run_symlink,
	  { PART_PATH, { OP_TARGET, K_WORD, REQ } } },
	{ "boot-script", DT_NONE,
	  "write the U-Boot script image {part}:{path} from [the file {file}][{?script}inline text][, name '{name}'][, arch {arch}]",
	  run_boot_script,
	  { PART_PATH, { OP_SCRIPT, K_TEXT, ALT }, { OP_FILE, K_LOCAL, ALT },
	    { OP_NAME, K_SCRNAME, OPT }, { OP_ARCH, K_ARCH, OPT } } },
};

#define NACTIONS (sizeof(recipe_actions) / sizeof(recipe_actions[0]))

const size_t recipe_nactions = NACTIONS;

const struct action *recipe_find_action(const char *name)
{
	for (size_t i = 0; i < NACTIONS; i++)
		if (!strcmp(recipe_actions[i].name, name))
			return &recipe_actions[i];
	return NULL;
}

const struct action_opt *recipe_action_opt(const struct action *a, enum opt o)
{
	for (const struct action_opt *ao = a->opts; ao->flags; ao++)
		if (ao->opt == o)
			return ao;
	return NULL;
}
