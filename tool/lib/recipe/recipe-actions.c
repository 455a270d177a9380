// SPDX-License-Identifier: MIT
/*
 * The action table: every step a recipe can take, its options, how
 * describe shows it and the patch operation that runs it. A new step is
 * one run function and one line in imgp_recipe_actions_[].
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recipe-internal.h"

/* ------------------------------------------------------------ actions */

static int run_dt_delete(struct imgp_patch *patch, const struct recipe_step *st);
static int run_dt_delete_node(struct imgp_patch *patch, const struct recipe_step *st);

void imgp_patch_set_via(struct imgp_patch *patch, enum imgp_via via)
{
	patch->via_asked = via;
}

/*
 * A load step begins the tree the way its write-tree step goes: the one
 * the caller asks (apply --via), else the step's, else the boot path's
 * (imgp_patch_tree_begin). A tree no step writes is only loaded.
 */
static int begin_tree(struct imgp_patch *patch, const struct recipe_step *st,
		      struct imgp_tree_opts *t)
{
	const struct recipe_step *w = st->writer;
	int rc = 0;

	t->via = (enum imgp_via)patch->via_asked;
	t->load_only = !w;
	t->deletes = st->deletes;
	if (w && t->via == IMGP_VIA_DEFAULT && w->val[OP_VIA]) {
		rc = imgp_via_parse(w->val[OP_VIA], &t->via);
		t->asked_by = "the recipe says so";
	}
	if (w)
		t->name = w->val[OP_NAME];
	return rc ? rc : imgp_patch_tree_begin(patch, t);
}

int imgp_recipe_run_fdt_from_fit_(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_tree_opts t = {
		.from = IMGP_TREE_FIT,
		.fit_path = st->val[OP_FIT],
		.fdt = st->val[OP_FDT],
	};

	return begin_tree(patch, st, &t);
}

static int run_dt_from_boot(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_tree_opts t = { .from = IMGP_TREE_BOOTED, .model = st->val[OP_MODEL] };

	return begin_tree(patch, st, &t);
}

/* The tree goes the way its load step chose. */
static int run_write_tree(struct imgp_patch *patch, const struct recipe_step *st)
{
	(void)st;
	return imgp_patch_tree_finish(patch);
}

static int run_add_to_list(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_list_add_(patch, st->val[OP_PART], st->val[OP_PATH],
				   st->val[OP_KEY], st->val[OP_WORD], NULL);
}

/* A module list (/etc/modules) has no key; every other list needs one. */
static const char *check_add_to_list(const char *const *v)
{
	bool modules = imgp_list_keyless_(v[OP_PATH]);

	if (modules && v[OP_KEY])
		return "a list of kernel modules (/etc/modules, modules-load.d/*.conf) has one name a line: no 'key'";
	if (!modules && !v[OP_KEY])
		return "missing 'key' (only /etc/modules and modules-load.d/*.conf, one module a line, take none)";
	return NULL;
}

const char *imgp_recipe_check_step_(const struct action *a, const char *const *v)
{
	if (a->run == run_add_to_list)
		return check_add_to_list(v);
	return NULL;
}

bool imgp_recipe_is_write_tree_(const struct recipe_step *st)
{
	return st->action->run == run_write_tree;
}

bool imgp_recipe_is_delete_(const struct recipe_step *st)
{
	return st->action->run == run_dt_delete || st->action->run == run_dt_delete_node;
}

static int run_dtb_from_file(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_load_dtb_file_(patch, st->val[OP_PART], st->val[OP_PATH]);
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
	return imgp_patch_dt_add_node_(patch, st->val[OP_PATH]);
}

static int run_dt_delete_node(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_dt_delete_node(patch, st->val[OP_NODE]);
}

static int run_dt_overlay(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_buf dtbo = { 0 };
	int rc;

	rc = imgp_read_local_(st->local, LOCAL_MAX, true, &dtbo);
	if (!rc)
		rc = imgp_patch_dt_overlay(patch, dtbo.data, dtbo.len,
					   st->val[OP_OVERLAY]);
	imgp_buf_free(&dtbo);
	return rc;
}

static int run_write_dtb(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_write_dtb_(patch, st->val[OP_PATH]);
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
	return imgp_read_local_(st->local, LOCAL_MAX, true, out);
}

static int run_write_file(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_buf data = { 0 };
	int rc = step_text(st, OP_CONTENT, &data);

	/* The value was checked when it was bound (K_MODE). */
	if (!rc)
		rc = imgp_patch_put_file_mode_(patch, st->val[OP_PART], st->val[OP_PATH],
					      data.data, data.len,
					      st->val[OP_MODE] ? (unsigned)strtoul(st->val[OP_MODE], NULL, 8) : 0);
	imgp_buf_free(&data);
	return rc;
}

static int run_set_line(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_line_set_(patch, st->val[OP_PART], st->val[OP_PATH],
				   st->val[OP_KEY], st->val[OP_VALUE],
				   st->val[OP_SECTION]);
}

static int run_set_fields(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_fields_set_(patch, st->val[OP_PART], st->val[OP_PATH],
				     st->val[OP_KEY], st->val[OP_VALUE]);
}

static int run_remove_line(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_line_remove_(patch, st->val[OP_PART], st->val[OP_PATH],
				      st->val[OP_KEY]);
}

static int run_set_token(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_token_set_(patch, st->val[OP_PART], st->val[OP_PATH],
				    st->val[OP_TOKEN]);
}

static int run_remove_token(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_token_remove_(patch, st->val[OP_PART], st->val[OP_PATH],
				       st->val[OP_KEY]);
}

static int run_set_yaml_key(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_yaml_key_(patch, st->val[OP_PART], st->val[OP_PATH],
				   st->val[OP_HEADER], st->val[OP_KEY],
				   st->val[OP_CONTENT]);
}

static int run_remove_yaml_key(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_yaml_key_(patch, st->val[OP_PART], st->val[OP_PATH],
				   st->val[OP_HEADER], st->val[OP_KEY], NULL);
}

static int run_cmdline(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_cmdline(patch, st->val[OP_MODEL], st->val[OP_EDITS]);
}

static int run_symlink(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_symlink_(patch, st->val[OP_PART], st->val[OP_PATH],
				  st->val[OP_TARGET]);
}

/*
 * With a marker, the script at the step's path is replaced only when it is
 * absent or its text carries the marker: a script the owner wrote (or
 * another package installed) is never overwritten behind their back. The
 * new text must carry the marker too, or a second run would refuse.
 */
static int check_script_owner(struct imgp_patch *patch,
			      const struct recipe_step *st,
			      const struct imgp_buf *text)
{
	const char *marker = st->val[OP_MARKER];
	const struct imgp_part *part;
	struct imgp_buf old = { 0 };
	struct imgp_bootscr scr;
	bool existed, ours;
	int rc;

	if (!marker)
		return 0;
	if (!memmem(text->data, text->len, marker, strlen(marker)))
		return imgp_fail(EINVAL, "%s: the script does not carry its marker '%s'",
				 st->val[OP_FILE] ? st->val[OP_FILE] : "script",
				 marker);
	part = imgp_patch_part_(patch, st->val[OP_PART]);
	if (!part)
		return -ENOENT;
	rc = imgp_patch_read_(patch, part, st->val[OP_PATH], IMGP_TEXT_MAX, &old,
			     &existed);
	if (rc || !existed)
		goto out;
	ours = imgp_bootscr_parse_(&scr, old.data, old.len) == 0;
	if (ours) {
		ours = memmem(scr.text, scr.text_len, marker, strlen(marker)) != NULL;
		imgp_bootscr_free_(&scr);
	}
	imgp_errclear_();
	if (!ours)
		rc = imgp_fail(EEXIST, IMGP_PART_FMT " (%s): %s: exists and was not written by this recipe (no '%s' in it): merge its commands by hand, or move it away and apply again",
			       part->number, part->fstype, st->val[OP_PATH], marker);
out:
	imgp_buf_free(&old);
	return rc;
}

/*
 * U-Boot's source command runs a script as a C string: a NUL in the file
 * would end it there on the board, the rest never run. Refused, with its line.
 */
static int check_script_nul(const struct recipe_step *st, const struct imgp_buf *text)
{
	const uint8_t *nul = memchr(text->data, '\0', text->len);
	size_t line = 1;

	if (!nul)
		return 0;
	for (const uint8_t *p = text->data; p < nul; p++)
		line += *p == '\n';
	return imgp_fail(EINVAL, "%s:%zu: a NUL byte in the script: U-Boot would stop reading it there",
			 st->val[OP_FILE] ? st->val[OP_FILE] : "script", line);
}

static int run_boot_script(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_buf text = { 0 };
	int rc = step_text(st, OP_SCRIPT, &text);

	if (!rc)
		rc = check_script_nul(st, &text);
	if (!rc)
		rc = check_script_owner(patch, st, &text);
	if (!rc)
		rc = imgp_patch_bootscr_(patch, st->val[OP_PART], st->val[OP_PATH],
					(const char *)text.data, text.len,
					st->val[OP_NAME], st->val[OP_ARCH]);
	imgp_buf_free(&text);
	return rc;
}

#define PART_PATH { OP_PART, K_PART, REQ }, { OP_PATH, K_FSPATH, REQ }

const struct action imgp_recipe_actions_[] = {
	{ "fdt-from-fit", DT_LOAD,
	  "take the device tree[ '{fdt}'] from the FIT {fit}", imgp_recipe_run_fdt_from_fit_,
	  { { OP_FIT, K_FSPATH, REQ }, { OP_FDT, K_WORD, OPT } } },
	{ "dtb-from-file", DT_LOAD, "take the device tree from {part}:{path}",
	  run_dtb_from_file, { PART_PATH } },
	{ "dt-from-boot", DT_LOAD,
	  "take the device tree the boot path boots[ (model {model})]",
	  run_dt_from_boot, { { OP_MODEL, K_NOSPACE, OPT } } },
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
	{ "write-tree", DT_WRITE,
	  "write the device tree the way the boot path honours[ (via {via})][, as overlay '{name}']",
	  run_write_tree,
	  { { OP_VIA, K_NOSPACE, OPT }, { OP_NAME, K_NOSPACE, OPT } } },
	{ "require-boot-hook", DT_NONE,
	  "require the boot script to load '{word}'", run_boot_hook,
	  { { OP_WORD, K_WORD, REQ } } },
	{ "fstab", DT_NONE,
	  "change the options of {mountpoint} in [{part}:]/etc/fstab: {options}",
	  run_fstab,
	  { { OP_MOUNTPOINT, K_NOSPACE, REQ }, { OP_OPTIONS, K_FSTABOPS, REQ },
	    { OP_PART, K_PART, OPT } } },
	{ "write-file", DT_NONE,
	  "write {part}:{path} from [the file {file}][{?content}inline text][, mode {mode}]",
	  run_write_file,
	  { PART_PATH, { OP_CONTENT, K_TEXT, ALT }, { OP_FILE, K_LOCAL, ALT },
	    { OP_MODE, K_MODE, OPT } } },
	{ "set-line", DT_NONE,
	  "set '{key}={value}' in {part}:{path}[ (section '{section}')]",
	  run_set_line,
	  { PART_PATH, { OP_KEY, K_NOSPACE, REQ }, { OP_VALUE, K_LINE, REQ },
	    { OP_SECTION, K_NOSPACE, OPT } } },
	{ "add-to-list", DT_NONE,
	  "add '{word}' to [the {key} list of ]{part}:{path}, keeping its entries",
	  run_add_to_list,
	  { PART_PATH, { OP_KEY, K_NOSPACE, OPT }, { OP_WORD, K_NOSPACE, REQ } } },
	{ "set-fields", DT_NONE,
	  "set the fields after '{key}' in {part}:{path} to '{value}' (where that line is)",
	  run_set_fields,
	  { PART_PATH, { OP_KEY, K_NOSPACE, REQ }, { OP_VALUE, K_LINE, REQ } } },
	{ "remove-line", DT_NONE, "remove the '{key}=' lines of {part}:{path}",
	  run_remove_line, { PART_PATH, { OP_KEY, K_NOSPACE, REQ } } },
	{ "set-token", DT_NONE, "set token '{token}' in {part}:{path}",
	  run_set_token, { PART_PATH, { OP_TOKEN, K_NOSPACE, REQ } } },
	{ "remove-token", DT_NONE, "remove token '{key}' from {part}:{path}",
	  run_remove_token, { PART_PATH, { OP_KEY, K_NOSPACE, REQ } } },
	{ "set-yaml-key", DT_NONE,
	  "set the top-level YAML entry '{key}' of {part}:{path}[ (a '{header}' file)]",
	  run_set_yaml_key,
	  { PART_PATH, { OP_KEY, K_NOSPACE, REQ }, { OP_CONTENT, K_YAML, REQ },
	    { OP_HEADER, K_WORD, OPT } } },
	{ "remove-yaml-key", DT_NONE,
	  "remove the top-level YAML entry '{key}' of {part}:{path}[ (a '{header}' file)]",
	  run_remove_yaml_key,
	  { PART_PATH, { OP_KEY, K_NOSPACE, REQ }, { OP_HEADER, K_WORD, OPT } } },
	{ "cmdline", DT_NONE,
	  "edit the kernel command line where the boot path keeps it: {edits}[ (model {model})]",
	  run_cmdline, { { OP_EDITS, K_CMDLINE, REQ }, { OP_MODEL, K_NOSPACE, OPT } } },
	{ "symlink", DT_NONE, "link {part}:{path} -> {target}", run_symlink,
	  { PART_PATH, { OP_TARGET, K_WORD, REQ } } },
	{ "boot-script", DT_NONE,
	  "write the U-Boot script image {part}:{path} from [the file {file}][{?script}inline text][, name '{name}'][, arch {arch}][; an existing one only if it has '{marker}']",
	  run_boot_script,
	  { PART_PATH, { OP_SCRIPT, K_TEXT, ALT }, { OP_FILE, K_LOCAL, ALT },
	    { OP_NAME, K_SCRNAME, OPT }, { OP_ARCH, K_ARCH, OPT },
	    { OP_MARKER, K_WORD, OPT } } },
};

#define NACTIONS (sizeof(imgp_recipe_actions_) / sizeof(imgp_recipe_actions_[0]))

const size_t imgp_recipe_nactions_ = NACTIONS;

const struct action *imgp_recipe_find_action_(const char *name)
{
	for (size_t i = 0; i < NACTIONS; i++)
		if (!strcmp(imgp_recipe_actions_[i].name, name))
			return &imgp_recipe_actions_[i];
	return NULL;
}

const struct action_opt *imgp_recipe_action_opt_(const struct action *a, enum opt o)
{
	for (const struct action_opt *ao = a->opts; ao->flags; ao++)
		if (ao->opt == o)
			return ao;
	return NULL;
}
