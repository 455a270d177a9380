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
	imgp_json_kv_string(j, key, s && *s ? s : NULL);
}

static void info_json_partitions(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_table *tab = imgp_disk_table(in->disk);
	unsigned ss = imgp_info_sector_size(in);

	imgp_json_key(j, "image");
	imgp_json_object_begin(j);
	imgp_json_kv_string(j, "path", in->path);
	imgp_json_kv_uint(j, "size", imgp_disk_size(in->disk));
	imgp_json_object_end(j);

	imgp_json_key(j, "table");
	imgp_json_object_begin(j);
	imgp_json_kv_string(j, "label", tab->label);
	imgp_json_kv_string(j, "id", tab->id);
	imgp_json_kv_uint(j, "sector_size", ss);
	imgp_json_kv_bool(j, "used_backup", tab->used_backup);
	imgp_json_object_end(j);

	imgp_json_key(j, "partitions");
	imgp_json_array_begin(j);
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];

		imgp_json_object_begin(j);
		imgp_json_kv_int(j, "number", p->number);
		imgp_json_kv_uint(j, "start", p->start);
		imgp_json_kv_uint(j, "start_sector", p->start / ss);
		imgp_json_kv_uint(j, "size", p->size);
		imgp_json_kv_uint(j, "size_sectors", p->size / ss);
		imgp_json_kv_string(j, "type", p->type);
		imgp_json_kv_string(j, "type_name", p->type_name);
		info_json_opt(j, "name", p->name);
		info_json_opt(j, "uuid", p->uuid);
		imgp_json_kv_bool(j, "bootable", p->bootable);
		imgp_json_kv_bool(j, "logical", p->logical);
		imgp_json_kv_bool(j, "container", p->container);
		info_json_opt(j, "fstype", p->fstype);
		info_json_opt(j, "fslabel", p->fslabel);
		info_json_opt(j, "fsuuid", p->fsuuid);
		imgp_json_kv_string(j, "fs_error", imgp_survey_fs_error(in->sv, i));
		imgp_json_object_end(j);
	}
	imgp_json_array_end(j);
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
	imgp_json_kv_string(j, "status", dt_state_json[dt->state]);
	imgp_json_kv_string(j, "error", dt->error);
	imgp_json_key(j, "controllers");
	imgp_json_array_begin(j);
	for (size_t k = 0; k < dt->nmmc; k++) {
		const struct imgp_dt_mmc *m = &dt->mmc[k];
		bool blocked = false;

		imgp_json_object_begin(j);
		imgp_json_kv_string(j, "path", m->path);
		imgp_json_kv_string(j, "status", m->status);
		imgp_json_key(j, "properties");
		imgp_json_object_begin(j);
		for (size_t p = 0; p < m->nprops; p++) {
			imgp_json_kv_string(j, m->props[p].name, m->props[p].value);
			blocked |= imgp_info_is_uhs_blocker(m->props[p].name);
		}
		imgp_json_object_end(j);
		imgp_json_kv_bool(j, "uhs_blocked", blocked);
		imgp_json_object_end(j);
	}
	imgp_json_array_end(j);
}

/* The image's own U-Boot (before the first partition); null when none. */
static void info_json_bootloader(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_uboot *ub = imgp_survey_uboot(in->sv);

	imgp_json_key(j, "boot_loader");
	if (!ub->where) {
		imgp_json_null(j);
		return;
	}
	imgp_json_object_begin(j);
	imgp_json_kv_string(j, "name", "U-Boot");
	imgp_json_kv_string(j, "version", ub->version);
	imgp_json_kv_string(j, "where", ub->where);
	imgp_json_kv_uint(j, "offset", ub->offset);
	imgp_json_kv_string(j, "fdtfile", ub->fdtfile);
	imgp_json_kv_string(j, "board", ub->board);
	imgp_json_kv_string(j, "board_name", ub->board_name);
	imgp_json_kv_string(j, "soc", ub->soc);
	imgp_json_kv_string(j, "vendor", ub->vendor);
	imgp_json_kv_string(j, "tree", ub->tree);
	imgp_json_object_end(j);
}

/* "cmdline": { "error", "lines": [ { "model", "line", "where", "loader" } ] } */
static void info_json_cmdline(struct imgp_json *j, const struct imgp_info *in)
{
	imgp_json_key(j, "cmdline");
	imgp_json_object_begin(j);
	imgp_json_kv_string(j, "error", in->cmdline_error);
	imgp_json_key(j, "lines");
	imgp_json_array_begin(j);
	for (size_t i = 0; !in->cmdline_error && i < in->ncmdlines; i++) {
		const struct imgp_info_cmdline *c = &in->cmdlines[i];

		imgp_json_object_begin(j);
		imgp_json_kv_string(j, "model", c->model);
		imgp_json_kv_string(j, "line", (char *)c->line.data);
		imgp_json_kv_string(j, "where", (char *)c->where.data);
		imgp_json_kv_string(j, "loader", c->loader.len ? (char *)c->loader.data : NULL);
		imgp_json_object_end(j);
	}
	imgp_json_array_end(j);
	imgp_json_object_end(j);
}

static void info_json_bootpath(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_survey_view *v = &in->v;
	struct imgp_effective_view e;
	struct imgp_entry_view dt;

	imgp_json_key(j, "boot_path");
	if (!v->bootpath) {
		imgp_json_null(j);
		return;
	}
	imgp_json_object_begin(j);
	imgp_json_kv_string(j, "name", v->bootpath);
	imgp_json_kv_int(j, "partition", v->boot);
	imgp_json_kv_string(j, "summary", v->summary);
	imgp_json_kv_string(j, "error", v->bootpath_rc ? v->bootpath_error : NULL);
	imgp_json_kv_string(j, "updates", v->updates);
	imgp_json_kv_string(j, "chooser", v->chooser);
	imgp_json_kv_uint(j, "tree_count", v->nentries);
	imgp_json_key(j, "trees");
	imgp_json_array_begin(j);
	for (size_t i = 0; !imgp_survey_get_entry(in->sv, i, &dt); i++) {
		if (!imgp_info_shows(in, i, &dt))
			continue;
		imgp_json_object_begin(j);
		imgp_json_kv_string(j, "model", dt.model);
		imgp_json_kv_string(j, "path", dt.path);
		imgp_json_kv_string(j, "kept_in", dt.kept_in);
		imgp_json_key(j, "overlays");
		imgp_json_array_begin(j);
		for (size_t k = 0; k < dt.noverlays; k++)
			imgp_json_string(j, dt.overlays[k]);
		imgp_json_array_end(j);
		/* The effective tree: the entries that took effect, its warnings. */
		if (imgp_info_effective(in, i, &e)) {
			const char *warning;

			imgp_json_kv_string(j, "booted", e.booted);
			imgp_json_key(j, "warnings");
			imgp_json_array_begin(j);
			for (size_t k = 0; (warning = imgp_info_warning(in, &e, k)); k++)
				imgp_json_string(j, warning);
			imgp_json_array_end(j);
			info_json_tree(j, &e.tree);
		}
		imgp_json_object_end(j);
	}
	imgp_json_array_end(j);
	info_json_cmdline(j, in);
	imgp_json_object_end(j);
}

static void info_json_fit(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_fit_view *f = &in->fit;
	struct imgp_fit_image_view img;
	struct imgp_fit_conf_view c;

	imgp_json_key(j, "fit");
	if (imgp_info_fit_missing(in)) {
		imgp_json_null(j);
		return;
	}
	imgp_json_object_begin(j);
	imgp_json_kv_int(j, "partition", f->part);
	imgp_json_kv_string(j, "path", in->v.fit_path);
	imgp_json_kv_string(j, "error", f->rc ? f->error : NULL);
	if (f->rc) {
		imgp_json_object_end(j);
		return;
	}
	imgp_json_kv_uint(j, "size", f->size);
	imgp_json_key(j, "images");
	imgp_json_array_begin(j);
	for (size_t i = 0; !imgp_survey_get_fit_image(in->sv, i, &img); i++) {
		const char *algo = img.hash_algos;

		imgp_json_object_begin(j);
		imgp_json_kv_int(j, "index", img.index);
		imgp_json_kv_string(j, "name", img.name);
		imgp_json_kv_string(j, "type", img.type);
		imgp_json_kv_string(j, "description", img.description);
		imgp_json_kv_string(j, "compression", img.compression);
		imgp_json_kv_uint(j, "size", img.size);
		imgp_json_kv_bool(j, "external", img.external);
		imgp_json_key(j, "hash_algos");
		imgp_json_array_begin(j);
		while (*algo) {
			size_t n = strcspn(algo, ",");

			imgp_json_string_len(j, algo, n);
			algo += n + (algo[n] == ',');
		}
		imgp_json_array_end(j);
		imgp_json_kv_string(j, "hash_status", hash_json[img.hash]);
		imgp_json_kv_string(j, "hash_error", img.hash_error);
		imgp_json_object_end(j);
	}
	imgp_json_array_end(j);
	imgp_json_key(j, "configurations");
	imgp_json_array_begin(j);
	for (size_t i = 0; !imgp_survey_get_fit_conf(in->sv, i, &c); i++) {
		imgp_json_object_begin(j);
		imgp_json_kv_string(j, "name", c.name);
		imgp_json_kv_string(j, "description", c.description);
		imgp_json_kv_string(j, "kernel", c.kernel);
		imgp_json_kv_string(j, "fdt", c.fdt);
		imgp_json_kv_bool(j, "default", c.is_default);
		imgp_json_object_end(j);
	}
	imgp_json_array_end(j);
	imgp_json_object_end(j);
}

static void info_json_script(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_script_view *s = &in->script;

	imgp_json_key(j, "boot_script");
	if (imgp_info_script_missing(in)) {
		imgp_json_null(j);
	} else {
		imgp_json_object_begin(j);
		/* Both null when looking for it failed. */
		if (s->path) {
			imgp_json_kv_int(j, "partition", s->part);
			imgp_json_kv_string(j, "path", s->path);
		} else {
			imgp_json_kv_null(j, "partition");
			imgp_json_kv_null(j, "path");
		}
		imgp_json_kv_string(j, "error", s->rc ? s->error : NULL);
		imgp_json_key(j, "crc_ok");
		if (s->parsed || s->parse_rc == -EBADMSG)
			imgp_json_bool(j, s->parsed);
		else
			imgp_json_null(j);
		if (s->parsed) {
			imgp_json_kv_uint(j, "size", s->size);
			imgp_json_kv_string(j, "name", s->name);
			imgp_json_kv_bool(j, "loads_user_override",
				     imgp_info_script_loads_override(in));
		}
		imgp_json_object_end(j);
	}

	imgp_json_key(j, "user_override");
	if (imgp_info_override_missing(in)) {
		imgp_json_null(j);
		return;
	}
	imgp_json_object_begin(j);
	imgp_json_kv_int(j, "partition", s->override_part);
	imgp_json_kv_string(j, "path", IMGP_OVERRIDE_PATH);
	imgp_json_kv_bool(j, "exists", s->override_exists);
	if (s->override_exists && !s->override_rc)
		imgp_json_kv_uint(j, "size", s->override_size);
	imgp_json_kv_string(j, "error", s->override_rc && s->override_rc != -ENOENT ?
				   s->override_error : NULL);
	imgp_json_object_end(j);
}

static void info_json_dts(struct imgp_json *j, const struct imgp_info *in)
{
	struct imgp_fit_image_view img;
	struct imgp_tree_view dt;

	imgp_json_key(j, "device_trees");
	imgp_json_array_begin(j);
	for (size_t i = 0; !imgp_survey_get_tree(in->sv, i, &dt); i++) {
		if (!imgp_info_shows_tree(in, &dt))
			continue;
		imgp_json_object_begin(j);
		if (dt.image >= 0 && !imgp_survey_get_fit_image(in->sv, (size_t)dt.image, &img)) {
			imgp_json_kv_string(j, "source", "fit");
			imgp_json_kv_string(j, "image", img.name);
			imgp_json_kv_int(j, "index", img.index);
			imgp_json_kv_string(j, "description", img.description);
		} else {
			imgp_json_kv_string(j, "source", IMGP_OVERRIDE_NAME);
			imgp_json_kv_int(j, "partition", in->script.override_part);
			imgp_json_kv_string(j, "path", IMGP_OVERRIDE_PATH);
		}
		info_json_tree(j, &dt);
		imgp_json_object_end(j);
	}
	imgp_json_array_end(j);
}

static void info_json_fstab(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_fstab_view *f = &in->fstab;
	const struct imgp_fstab_entry *e = f->root;
	const char *error = imgp_info_fstab_error(in);

	imgp_json_key(j, "fstab");
	if (imgp_info_fstab_missing(in)) {
		imgp_json_null(j);
		return;
	}
	imgp_json_object_begin(j);
	imgp_json_kv_int(j, "partition", f->part);
	imgp_json_kv_string(j, "path", IMGP_FSTAB_PATH);
	imgp_json_kv_string(j, "error", error);
	imgp_json_key(j, "root");
	if (!error && !f->root_rc) {
		imgp_json_object_begin(j);
		imgp_json_kv_int(j, "line", e->line);
		imgp_json_kv_string(j, "spec", e->spec);
		imgp_json_kv_string(j, "file", e->file);
		imgp_json_kv_string(j, "vfstype", e->vfstype);
		imgp_json_kv_string(j, "options", e->options);
		imgp_json_kv_int(j, "freq", e->freq);
		imgp_json_kv_int(j, "passno", e->passno);
		imgp_json_object_end(j);
	} else {
		imgp_json_null(j);
	}
	imgp_json_kv_string(j, "no_root", !error && f->root_rc == -ENOENT ?
				     f->root_error : NULL);
	imgp_json_object_end(j);
}

/* The likely root on a filesystem imgpatch cannot read; absent when none. */
static void info_json_root_unread(struct imgp_json *j, const struct imgp_info *in)
{
	const struct imgp_part *p = in->v.root_unread;

	if (in->v.root || !p)
		return;
	imgp_json_key(j, "root_unread");
	imgp_json_object_begin(j);
	imgp_json_kv_int(j, "partition", p->number);
	imgp_json_kv_string(j, "fstype", p->fstype);
	imgp_json_kv_string(j, "error", in->v.root_error);
	if (in->root_subvol_known)
		imgp_json_kv_string(j, "subvol", in->root_subvol);
	imgp_json_object_end(j);
}

int imgp_info_print_json(const struct imgp_info *in)
{
	struct imgp_json j;
	int rc;

	imgp_json_init(&j, in->out);
	imgp_json_object_begin(&j);
	imgp_json_kv_uint(&j, "schema_version", 1);
	info_json_partitions(&j, in);
	info_json_bootloader(&j, in);
	info_json_bootpath(&j, in);
	info_json_fit(&j, in);
	info_json_script(&j, in);
	info_json_dts(&j, in);
	info_json_fstab(&j, in);
	info_json_root_unread(&j, in);
	imgp_json_kv_int(&j, "problems", in->problems);
	imgp_json_object_end(&j);
	rc = imgp_json_finish(&j);
	if (rc == -EINVAL)
		return imgp_fail(EINVAL, "internal error: malformed JSON output");
	return rc;
}
