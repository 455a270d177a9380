// SPDX-License-Identifier: MIT
/* imgpatch info: the collected facts as one JSON document (schema_version 1). */
#include <errno.h>
#include <string.h>

#include "info.h"
#include "json.h"

static const char *const hash_json[] = { "none", "ok", "bad", "unsupported" };

/* A string field that is null when empty. */
static void info_json_opt(struct json *j, const char *key, const char *s)
{
	json_kv_string(j, key, s && *s ? s : NULL);
}

static void info_json_partitions(struct json *j, const struct info *in)
{
	const struct imgp_table *tab = imgp_disk_table(in->disk);
	unsigned ss = info_sector_size(in);

	json_key(j, "image");
	json_object_begin(j);
	json_kv_string(j, "path", in->path);
	json_kv_uint(j, "size", imgp_disk_size(in->disk));
	json_object_end(j);

	json_key(j, "table");
	json_object_begin(j);
	json_kv_string(j, "label", tab->label);
	json_kv_string(j, "id", tab->id);
	json_kv_uint(j, "sector_size", ss);
	json_kv_bool(j, "used_backup", tab->used_backup);
	json_object_end(j);

	json_key(j, "partitions");
	json_array_begin(j);
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];

		json_object_begin(j);
		json_kv_int(j, "number", p->number);
		json_kv_uint(j, "start", p->start);
		json_kv_uint(j, "start_sector", p->start / ss);
		json_kv_uint(j, "size", p->size);
		json_kv_uint(j, "size_sectors", p->size / ss);
		json_kv_string(j, "type", p->type);
		json_kv_string(j, "type_name", p->type_name);
		info_json_opt(j, "name", p->name);
		info_json_opt(j, "uuid", p->uuid);
		json_kv_bool(j, "bootable", p->bootable);
		json_kv_bool(j, "logical", p->logical);
		json_kv_bool(j, "container", p->container);
		info_json_opt(j, "fstype", p->fstype);
		info_json_opt(j, "fslabel", p->fslabel);
		info_json_opt(j, "fsuuid", p->fsuuid);
		json_kv_string(j, "fs_error", imgp_survey_fs_error(in->sv, i));
		json_object_end(j);
	}
	json_array_end(j);
}

static const char *const dt_state_json[] = {
	[IMGP_TREE_OK] = "ok",
	[IMGP_TREE_COMPRESSED] = "compressed",
	[IMGP_TREE_SKIPPED] = "skipped",
	[IMGP_TREE_ERROR] = "error",
	[IMGP_TREE_MISSING] = "missing",
};

/* A tree's "status", "error" and "controllers". */
static void info_json_tree(struct json *j, const struct imgp_tree_view *dt)
{
	json_kv_string(j, "status", dt_state_json[dt->state]);
	json_kv_string(j, "error", dt->error);
	json_key(j, "controllers");
	json_array_begin(j);
	for (size_t k = 0; k < dt->nmmc; k++) {
		const struct imgp_dt_mmc *m = &dt->mmc[k];
		bool blocked = false;

		json_object_begin(j);
		json_kv_string(j, "path", m->path);
		json_kv_string(j, "status", m->status);
		json_key(j, "properties");
		json_object_begin(j);
		for (size_t p = 0; p < m->nprops; p++) {
			json_kv_string(j, m->props[p].name, m->props[p].value);
			blocked |= info_is_uhs_blocker(m->props[p].name);
		}
		json_object_end(j);
		json_kv_bool(j, "uhs_blocked", blocked);
		json_object_end(j);
	}
	json_array_end(j);
}

/* The image's own U-Boot (before the first partition); null when none. */
static void info_json_bootloader(struct json *j, const struct info *in)
{
	const struct imgp_uboot *ub = imgp_survey_uboot(in->sv);

	json_key(j, "boot_loader");
	if (!ub->where) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_string(j, "name", "U-Boot");
	json_kv_string(j, "version", ub->version);
	json_kv_string(j, "where", ub->where);
	json_kv_uint(j, "offset", ub->offset);
	json_kv_string(j, "fdtfile", ub->fdtfile);
	json_kv_string(j, "board", ub->board);
	json_kv_string(j, "board_name", ub->board_name);
	json_kv_string(j, "soc", ub->soc);
	json_kv_string(j, "vendor", ub->vendor);
	json_kv_string(j, "tree", ub->tree);
	json_object_end(j);
}

/* "cmdline": { "error", "lines": [ { "model", "line", "where", "loader" } ] } */
static void info_json_cmdline(struct json *j, const struct info *in)
{
	json_key(j, "cmdline");
	json_object_begin(j);
	json_kv_string(j, "error", in->cmdline_error);
	json_key(j, "lines");
	json_array_begin(j);
	for (size_t i = 0; !in->cmdline_error && i < in->ncmdlines; i++) {
		const struct info_cmdline *c = &in->cmdlines[i];

		json_object_begin(j);
		json_kv_string(j, "model", c->model);
		json_kv_string(j, "line", (char *)c->line.data);
		json_kv_string(j, "where", (char *)c->where.data);
		json_kv_string(j, "loader", c->loader.len ? (char *)c->loader.data : NULL);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void info_json_bootpath(struct json *j, const struct info *in)
{
	const struct imgp_survey_view *v = &in->v;
	struct imgp_effective_view e;
	struct imgp_entry_view dt;

	json_key(j, "boot_path");
	if (!v->bootpath) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_string(j, "name", v->bootpath);
	json_kv_int(j, "partition", v->boot);
	json_kv_string(j, "summary", v->summary);
	json_kv_string(j, "error", v->bootpath_rc ? v->bootpath_error : NULL);
	json_kv_string(j, "updates", v->updates);
	json_kv_string(j, "chooser", v->chooser);
	json_kv_uint(j, "tree_count", v->nentries);
	json_key(j, "trees");
	json_array_begin(j);
	for (size_t i = 0; !imgp_survey_get_entry(in->sv, i, &dt); i++) {
		if (!info_shows(in, i, &dt))
			continue;
		json_object_begin(j);
		json_kv_string(j, "model", dt.model);
		json_kv_string(j, "path", dt.path);
		json_kv_string(j, "kept_in", dt.kept_in);
		json_key(j, "overlays");
		json_array_begin(j);
		for (size_t k = 0; k < dt.noverlays; k++)
			json_string(j, dt.overlays[k]);
		json_array_end(j);
		/* The effective tree: the entries that took effect, its warnings. */
		if (info_effective(in, i, &e)) {
			const char *warning;

			json_kv_string(j, "booted", e.booted);
			json_key(j, "warnings");
			json_array_begin(j);
			for (size_t k = 0; (warning = info_warning(in, &e, k)); k++)
				json_string(j, warning);
			json_array_end(j);
			info_json_tree(j, &e.tree);
		}
		json_object_end(j);
	}
	json_array_end(j);
	info_json_cmdline(j, in);
	json_object_end(j);
}

static void info_json_fit(struct json *j, const struct info *in)
{
	const struct imgp_fit_view *f = &in->fit;
	struct imgp_fit_image_view img;
	struct imgp_fit_conf_view c;

	json_key(j, "fit");
	if (info_fit_missing(in)) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_int(j, "partition", f->part);
	json_kv_string(j, "path", in->v.fit_path);
	json_kv_string(j, "error", f->rc ? f->error : NULL);
	if (f->rc) {
		json_object_end(j);
		return;
	}
	json_kv_uint(j, "size", f->size);
	json_key(j, "images");
	json_array_begin(j);
	for (size_t i = 0; !imgp_survey_get_fit_image(in->sv, i, &img); i++) {
		const char *algo = img.hash_algos;

		json_object_begin(j);
		json_kv_int(j, "index", img.index);
		json_kv_string(j, "name", img.name);
		json_kv_string(j, "type", img.type);
		json_kv_string(j, "description", img.description);
		json_kv_string(j, "compression", img.compression);
		json_kv_uint(j, "size", img.size);
		json_kv_bool(j, "external", img.external);
		json_key(j, "hash_algos");
		json_array_begin(j);
		while (*algo) {
			size_t n = strcspn(algo, ",");

			json_string_len(j, algo, n);
			algo += n + (algo[n] == ',');
		}
		json_array_end(j);
		json_kv_string(j, "hash_status", hash_json[img.hash]);
		json_kv_string(j, "hash_error", img.hash_error);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "configurations");
	json_array_begin(j);
	for (size_t i = 0; !imgp_survey_get_fit_conf(in->sv, i, &c); i++) {
		json_object_begin(j);
		json_kv_string(j, "name", c.name);
		json_kv_string(j, "description", c.description);
		json_kv_string(j, "kernel", c.kernel);
		json_kv_string(j, "fdt", c.fdt);
		json_kv_bool(j, "default", c.is_default);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void info_json_script(struct json *j, const struct info *in)
{
	const struct imgp_script_view *s = &in->script;

	json_key(j, "boot_script");
	if (info_script_missing(in)) {
		json_null(j);
	} else {
		json_object_begin(j);
		/* Both null when looking for it failed. */
		if (s->path) {
			json_kv_int(j, "partition", s->part);
			json_kv_string(j, "path", s->path);
		} else {
			json_kv_null(j, "partition");
			json_kv_null(j, "path");
		}
		json_kv_string(j, "error", s->rc ? s->error : NULL);
		json_key(j, "crc_ok");
		if (s->parsed || s->parse_rc == -EBADMSG)
			json_bool(j, s->parsed);
		else
			json_null(j);
		if (s->parsed) {
			json_kv_uint(j, "size", s->size);
			json_kv_string(j, "name", s->name);
			json_kv_bool(j, "loads_user_override",
				     info_script_loads_override(in));
		}
		json_object_end(j);
	}

	json_key(j, "user_override");
	if (info_override_missing(in)) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_int(j, "partition", s->override_part);
	json_kv_string(j, "path", IMGP_OVERRIDE_PATH);
	json_kv_bool(j, "exists", s->override_exists);
	if (s->override_exists && !s->override_rc)
		json_kv_uint(j, "size", s->override_size);
	json_kv_string(j, "error", s->override_rc && s->override_rc != -ENOENT ?
				   s->override_error : NULL);
	json_object_end(j);
}

static void info_json_dts(struct json *j, const struct info *in)
{
	struct imgp_fit_image_view img;
	struct imgp_tree_view dt;

	json_key(j, "device_trees");
	json_array_begin(j);
	for (size_t i = 0; !imgp_survey_get_tree(in->sv, i, &dt); i++) {
		if (!info_shows_tree(in, &dt))
			continue;
		json_object_begin(j);
		if (dt.image >= 0 && !imgp_survey_get_fit_image(in->sv, (size_t)dt.image, &img)) {
			json_kv_string(j, "source", "fit");
			json_kv_string(j, "image", img.name);
			json_kv_int(j, "index", img.index);
			json_kv_string(j, "description", img.description);
		} else {
			json_kv_string(j, "source", IMGP_OVERRIDE_NAME);
			json_kv_int(j, "partition", in->script.override_part);
			json_kv_string(j, "path", IMGP_OVERRIDE_PATH);
		}
		info_json_tree(j, &dt);
		json_object_end(j);
	}
	json_array_end(j);
}

static void info_json_fstab(struct json *j, const struct info *in)
{
	const struct imgp_fstab_view *f = &in->fstab;
	const struct imgp_fstab_entry *e = f->root;
	const char *error = info_fstab_error(in);

	json_key(j, "fstab");
	if (info_fstab_missing(in)) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_int(j, "partition", f->part);
	json_kv_string(j, "path", IMGP_FSTAB_PATH);
	json_kv_string(j, "error", error);
	json_key(j, "root");
	if (!error && !f->root_rc) {
		json_object_begin(j);
		json_kv_int(j, "line", e->line);
		json_kv_string(j, "spec", e->spec);
		json_kv_string(j, "file", e->file);
		json_kv_string(j, "vfstype", e->vfstype);
		json_kv_string(j, "options", e->options);
		json_kv_int(j, "freq", e->freq);
		json_kv_int(j, "passno", e->passno);
		json_object_end(j);
	} else {
		json_null(j);
	}
	json_kv_string(j, "no_root", !error && f->root_rc == -ENOENT ?
				     f->root_error : NULL);
	json_object_end(j);
}

/* The likely root on a filesystem imgpatch cannot read; absent when none. */
static void info_json_root_unread(struct json *j, const struct info *in)
{
	const struct imgp_part *p = in->v.root_unread;

	if (in->v.root || !p)
		return;
	json_key(j, "root_unread");
	json_object_begin(j);
	json_kv_int(j, "partition", p->number);
	json_kv_string(j, "fstype", p->fstype);
	json_kv_string(j, "error", in->v.root_error);
	if (in->root_subvol_known)
		json_kv_string(j, "subvol", in->root_subvol);
	json_object_end(j);
}

int info_print_json(const struct info *in)
{
	struct json j;
	int rc;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_uint(&j, "schema_version", 1);
	info_json_partitions(&j, in);
	info_json_bootloader(&j, in);
	info_json_bootpath(&j, in);
	info_json_fit(&j, in);
	info_json_script(&j, in);
	info_json_dts(&j, in);
	info_json_fstab(&j, in);
	info_json_root_unread(&j, in);
	json_kv_int(&j, "problems", in->problems);
	json_object_end(&j);
	rc = json_finish(&j);
	if (rc == -EINVAL)
		error("internal error: malformed JSON output");
	return rc;
}
