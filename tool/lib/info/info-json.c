// SPDX-License-Identifier: MIT
/* imgpatch info: the collected facts as one JSON document (schema_version 1). */
#include <errno.h>
#include <string.h>

#include "info.h"
#include "text/json.h"

static const char *const hash_json[] = { "none", "ok", "bad", "unsupported" };

/* A string field that is null when empty. */
static void info_json_opt(struct imgp_json *j, const char *key, const char *s)
{
	imgp_json_kv_string_(j, key, s && *s ? s : NULL);
}

static void info_json_partitions(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_table *tab = imgp_disk_table_(in->disk);
	unsigned ss = imgp_info_sector_size_(in);

	imgp_json_key_(j, "image");
	imgp_json_object_begin_(j);
	imgp_json_kv_string_(j, "path", in->path);
	imgp_json_kv_uint_(j, "size", imgp_disk_size_(in->disk));
	imgp_json_object_end_(j);

	imgp_json_key_(j, "table");
	imgp_json_object_begin_(j);
	imgp_json_kv_string_(j, "label", tab->label);
	imgp_json_kv_string_(j, "id", tab->id);
	imgp_json_kv_uint_(j, "sector_size", ss);
	imgp_json_kv_bool_(j, "used_backup", tab->used_backup);
	imgp_json_object_end_(j);

	imgp_json_key_(j, "partitions");
	imgp_json_array_begin_(j);
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];

		imgp_json_object_begin_(j);
		imgp_json_kv_int_(j, "number", p->number);
		imgp_json_kv_uint_(j, "start", p->start);
		imgp_json_kv_uint_(j, "start_sector", p->start / ss);
		imgp_json_kv_uint_(j, "size", p->size);
		imgp_json_kv_uint_(j, "size_sectors", p->size / ss);
		imgp_json_kv_string_(j, "type", p->type);
		imgp_json_kv_string_(j, "type_name", p->type_name);
		info_json_opt(j, "name", p->name);
		info_json_opt(j, "uuid", p->uuid);
		imgp_json_kv_bool_(j, "bootable", p->bootable);
		imgp_json_kv_bool_(j, "logical", p->logical);
		imgp_json_kv_bool_(j, "container", p->container);
		info_json_opt(j, "fstype", p->fstype);
		info_json_opt(j, "fslabel", p->fslabel);
		info_json_opt(j, "fsuuid", p->fsuuid);
		imgp_json_kv_string_(j, "fs_error", imgp_survey_fs_error_(in->sv, i));
		imgp_json_object_end_(j);
	}
	imgp_json_array_end_(j);
}

static const char *const dt_state_json[] = {
	[IMGP_TREE_OK] = "ok",
	[IMGP_TREE_COMPRESSED] = "compressed",
	[IMGP_TREE_SKIPPED] = "skipped",
	[IMGP_TREE_ERROR] = "error",
	[IMGP_TREE_MISSING] = "missing",
};

/* A tree's "status", "error" and "controllers". */
static void info_json_tree(struct imgp_json *j, const struct imgp_tree_view *dt)
{
	imgp_json_kv_string_(j, "status", dt_state_json[dt->state]);
	imgp_json_kv_string_(j, "error", dt->error);
	imgp_json_key_(j, "controllers");
	imgp_json_array_begin_(j);
	for (size_t k = 0; k < dt->nmmc; k++) {
		const struct imgp_dt_mmc *m = &dt->mmc[k];
		bool blocked = false;

		imgp_json_object_begin_(j);
		imgp_json_kv_string_(j, "path", m->path);
		imgp_json_kv_string_(j, "status", m->status);
		imgp_json_key_(j, "properties");
		imgp_json_object_begin_(j);
		for (size_t p = 0; p < m->nprops; p++) {
			imgp_json_kv_string_(j, m->props[p].name, m->props[p].value);
			blocked |= imgp_info_is_uhs_blocker_(m->props[p].name);
		}
		imgp_json_object_end_(j);
		imgp_json_kv_bool_(j, "uhs_blocked", blocked);
		imgp_json_object_end_(j);
	}
	imgp_json_array_end_(j);
}

/* The image's own U-Boot (before the first partition); null when none. */
static void info_json_bootloader(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_uboot *ub = imgp_survey_uboot_(in->sv);

	imgp_json_key_(j, "boot_loader");
	if (!ub->where) {
		imgp_json_null_(j);
		return;
	}
	imgp_json_object_begin_(j);
	imgp_json_kv_string_(j, "name", "U-Boot");
	imgp_json_kv_string_(j, "version", ub->version);
	imgp_json_kv_string_(j, "where", ub->where);
	imgp_json_kv_uint_(j, "offset", ub->offset);
	imgp_json_kv_string_(j, "fdtfile", ub->fdtfile);
	imgp_json_kv_string_(j, "board", ub->board);
	imgp_json_kv_string_(j, "board_name", ub->board_name);
	imgp_json_kv_string_(j, "soc", ub->soc);
	imgp_json_kv_string_(j, "vendor", ub->vendor);
	imgp_json_kv_string_(j, "tree", ub->tree);
	imgp_json_object_end_(j);
}

/* "cmdline": { "error", "lines": [ { "model", "line", "where", "loader" } ] } */
static void info_json_cmdline(struct imgp_json *j, const struct imgp_info *in)
{
	imgp_json_key_(j, "cmdline");
	imgp_json_object_begin_(j);
	imgp_json_kv_string_(j, "error", in->cmdline_error);
	imgp_json_key_(j, "lines");
	imgp_json_array_begin_(j);
	for (size_t i = 0; !in->cmdline_error && i < in->ncmdlines; i++) {
		const struct imgp_info_cmdline *c = &in->cmdlines[i];

		imgp_json_object_begin_(j);
		imgp_json_kv_string_(j, "model", c->model);
		imgp_json_kv_string_(j, "line", (char *)c->line.data);
		imgp_json_kv_string_(j, "where", (char *)c->where.data);
		imgp_json_kv_string_(j, "loader", c->loader.len ? (char *)c->loader.data : NULL);
		imgp_json_object_end_(j);
	}
	imgp_json_array_end_(j);
	imgp_json_object_end_(j);
}

static void info_json_bootpath(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_survey_view *v = &in->v;
	struct imgp_effective_view e;
	struct imgp_entry_view dt;

	imgp_json_key_(j, "boot_path");
	if (!v->bootpath) {
		imgp_json_null_(j);
		return;
	}
	imgp_json_object_begin_(j);
	imgp_json_kv_string_(j, "name", v->bootpath);
	imgp_json_kv_int_(j, "partition", v->boot);
	imgp_json_kv_string_(j, "summary", v->summary);
	imgp_json_kv_string_(j, "error", v->bootpath_rc ? v->bootpath_error : NULL);
	imgp_json_kv_string_(j, "updates", v->updates);
	imgp_json_kv_string_(j, "chooser", v->chooser);
	imgp_json_kv_uint_(j, "tree_count", v->nentries);
	imgp_json_key_(j, "trees");
	imgp_json_array_begin_(j);
	for (size_t i = 0; !imgp_survey_get_entry_(in->sv, i, &dt); i++) {
		if (!imgp_info_shows_(in, i, &dt))
			continue;
		imgp_json_object_begin_(j);
		imgp_json_kv_string_(j, "model", dt.model);
		imgp_json_kv_string_(j, "path", dt.path);
		imgp_json_kv_string_(j, "kept_in", dt.kept_in);
		imgp_json_key_(j, "overlays");
		imgp_json_array_begin_(j);
		for (size_t k = 0; k < dt.noverlays; k++)
			imgp_json_string_(j, dt.overlays[k]);
		imgp_json_array_end_(j);
		/* The effective tree: the entries that took effect, its warnings. */
		if (imgp_info_effective_(in, i, &e)) {
			const char *warning;

			imgp_json_kv_string_(j, "booted", e.booted);
			imgp_json_key_(j, "warnings");
			imgp_json_array_begin_(j);
			for (size_t k = 0; (warning = imgp_info_warning_(in, &e, k)); k++)
				imgp_json_string_(j, warning);
			imgp_json_array_end_(j);
			info_json_tree(j, &e.tree);
		}
		imgp_json_object_end_(j);
	}
	imgp_json_array_end_(j);
	info_json_cmdline(j, in);
	imgp_json_object_end_(j);
}

static void info_json_fit(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_fit_view *f = &in->fit;
	struct imgp_fit_image_view img;
	struct imgp_fit_conf_view c;

	imgp_json_key_(j, "fit");
	if (imgp_info_fit_missing_(in)) {
		imgp_json_null_(j);
		return;
	}
	imgp_json_object_begin_(j);
	imgp_json_kv_int_(j, "partition", f->part);
	imgp_json_kv_string_(j, "path", in->v.fit_path);
	imgp_json_kv_string_(j, "error", f->rc ? f->error : NULL);
	if (f->rc) {
		imgp_json_object_end_(j);
		return;
	}
	imgp_json_kv_uint_(j, "size", f->size);
	imgp_json_key_(j, "images");
	imgp_json_array_begin_(j);
	for (size_t i = 0; !imgp_survey_get_fit_image_(in->sv, i, &img); i++) {
		const char *algo = img.hash_algos;

		imgp_json_object_begin_(j);
		imgp_json_kv_int_(j, "index", img.index);
		imgp_json_kv_string_(j, "name", img.name);
		imgp_json_kv_string_(j, "type", img.type);
		imgp_json_kv_string_(j, "description", img.description);
		imgp_json_kv_string_(j, "compression", img.compression);
		imgp_json_kv_uint_(j, "size", img.size);
		imgp_json_kv_bool_(j, "external", img.external);
		imgp_json_key_(j, "hash_algos");
		imgp_json_array_begin_(j);
		while (*algo) {
			size_t n = strcspn(algo, ",");

			imgp_json_string_len_(j, algo, n);
			algo += n + (algo[n] == ',');
		}
		imgp_json_array_end_(j);
		imgp_json_kv_string_(j, "hash_status", hash_json[img.hash]);
		imgp_json_kv_string_(j, "hash_error", img.hash_error);
		imgp_json_object_end_(j);
	}
	imgp_json_array_end_(j);
	imgp_json_key_(j, "configurations");
	imgp_json_array_begin_(j);
	for (size_t i = 0; !imgp_survey_get_fit_conf_(in->sv, i, &c); i++) {
		imgp_json_object_begin_(j);
		imgp_json_kv_string_(j, "name", c.name);
		imgp_json_kv_string_(j, "description", c.description);
		imgp_json_kv_string_(j, "kernel", c.kernel);
		imgp_json_kv_string_(j, "fdt", c.fdt);
		imgp_json_kv_bool_(j, "default", c.is_default);
		imgp_json_object_end_(j);
	}
	imgp_json_array_end_(j);
	imgp_json_object_end_(j);
}

static void info_json_script(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_script_view *s = &in->script;

	imgp_json_key_(j, "boot_script");
	if (imgp_info_script_missing_(in)) {
		imgp_json_null_(j);
	} else {
		imgp_json_object_begin_(j);
		/* Both null when looking for it failed. */
		if (s->path) {
			imgp_json_kv_int_(j, "partition", s->part);
			imgp_json_kv_string_(j, "path", s->path);
		} else {
			imgp_json_kv_null_(j, "partition");
			imgp_json_kv_null_(j, "path");
		}
		imgp_json_kv_string_(j, "error", s->rc ? s->error : NULL);
		imgp_json_key_(j, "crc_ok");
		if (s->parsed || s->parse_rc == -EBADMSG)
			imgp_json_bool_(j, s->parsed);
		else
			imgp_json_null_(j);
		if (s->parsed) {
			imgp_json_kv_uint_(j, "size", s->size);
			imgp_json_kv_string_(j, "name", s->name);
			imgp_json_kv_bool_(j, "loads_user_override",
				     imgp_info_script_loads_override_(in));
		}
		imgp_json_object_end_(j);
	}

	imgp_json_key_(j, "user_override");
	if (imgp_info_override_missing_(in)) {
		imgp_json_null_(j);
		return;
	}
	imgp_json_object_begin_(j);
	imgp_json_kv_int_(j, "partition", s->override_part);
	imgp_json_kv_string_(j, "path", IMGP_OVERRIDE_PATH);
	imgp_json_kv_bool_(j, "exists", s->override_exists);
	if (s->override_exists && !s->override_rc)
		imgp_json_kv_uint_(j, "size", s->override_size);
	imgp_json_kv_string_(j, "error", s->override_rc && s->override_rc != -ENOENT ?
				   s->override_error : NULL);
	imgp_json_object_end_(j);
}

static void info_json_dts(struct imgp_json *j, const struct imgp_info *in)
{
	struct imgp_fit_image_view img;
	struct imgp_tree_view dt;

	imgp_json_key_(j, "device_trees");
	imgp_json_array_begin_(j);
	for (size_t i = 0; !imgp_survey_get_tree_(in->sv, i, &dt); i++) {
		if (!imgp_info_shows_tree_(in, &dt))
			continue;
		imgp_json_object_begin_(j);
		if (dt.image >= 0 && !imgp_survey_get_fit_image_(in->sv, (size_t)dt.image, &img)) {
			imgp_json_kv_string_(j, "source", "fit");
			imgp_json_kv_string_(j, "image", img.name);
			imgp_json_kv_int_(j, "index", img.index);
			imgp_json_kv_string_(j, "description", img.description);
		} else {
			imgp_json_kv_string_(j, "source", IMGP_OVERRIDE_NAME);
			imgp_json_kv_int_(j, "partition", in->script.override_part);
			imgp_json_kv_string_(j, "path", IMGP_OVERRIDE_PATH);
		}
		info_json_tree(j, &dt);
		imgp_json_object_end_(j);
	}
	imgp_json_array_end_(j);
}

static void info_json_fstab(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_fstab_view *f = &in->fstab;
	const struct imgp_fstab_entry *e = f->root;
	const char *error = imgp_info_fstab_error_(in);

	imgp_json_key_(j, "fstab");
	if (imgp_info_fstab_missing_(in)) {
		imgp_json_null_(j);
		return;
	}
	imgp_json_object_begin_(j);
	imgp_json_kv_int_(j, "partition", f->part);
	imgp_json_kv_string_(j, "path", IMGP_FSTAB_PATH);
	imgp_json_kv_string_(j, "error", error);
	imgp_json_key_(j, "root");
	if (!error && !f->root_rc) {
		imgp_json_object_begin_(j);
		imgp_json_kv_int_(j, "line", e->line);
		imgp_json_kv_string_(j, "spec", e->spec);
		imgp_json_kv_string_(j, "file", e->file);
		imgp_json_kv_string_(j, "vfstype", e->vfstype);
		imgp_json_kv_string_(j, "options", e->options);
		imgp_json_kv_int_(j, "freq", e->freq);
		imgp_json_kv_int_(j, "passno", e->passno);
		imgp_json_object_end_(j);
	} else {
		imgp_json_null_(j);
	}
	imgp_json_kv_string_(j, "no_root", !error && f->root_rc == -ENOENT ?
				     f->root_error : NULL);
	imgp_json_object_end_(j);
}

/* The likely root on a filesystem imgpatch cannot read; absent when none. */
static void info_json_root_unread(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_part *p = in->v.root_unread;

	if (in->v.root || !p)
		return;
	imgp_json_key_(j, "root_unread");
	imgp_json_object_begin_(j);
	imgp_json_kv_int_(j, "partition", p->number);
	imgp_json_kv_string_(j, "fstype", p->fstype);
	imgp_json_kv_string_(j, "error", in->v.root_error);
	if (in->root_subvol_known)
		imgp_json_kv_string_(j, "subvol", in->root_subvol);
	imgp_json_object_end_(j);
}

int imgp_info_print_json_(const struct imgp_info *in)
{
	struct imgp_json j;
	int rc;

	imgp_json_init_(&j, in->out);
	imgp_json_object_begin_(&j);
	imgp_json_kv_uint_(&j, "schema_version", 1);
	info_json_partitions(&j, in);
	info_json_bootloader(&j, in);
	info_json_bootpath(&j, in);
	info_json_fit(&j, in);
	info_json_script(&j, in);
	info_json_dts(&j, in);
	info_json_fstab(&j, in);
	info_json_root_unread(&j, in);
	imgp_json_kv_int_(&j, "problems", in->problems);
	imgp_json_object_end_(&j);
	rc = imgp_json_finish_(&j);
	if (rc == -EINVAL)
		return imgp_fail(EINVAL, "internal error: malformed JSON output");
	return rc;
}
