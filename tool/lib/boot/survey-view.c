// SPDX-License-Identifier: MIT
/*
 * A survey as a client reads it: plain views filled from the survey's own
 * records (survey.c), so that what a survey holds stays the library's to
 * change. A view's strings and arrays point into the survey; a partition
 * is named by its number; a FIT image or boot path entry by its position.
 */
#include <errno.h>
#include <string.h>

#include "part/part.h"
#include "fit/fit.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "disk/disk.h"

static int part_number(const struct imgp_part *part)
{
	return part ? part->number : 0;
}

static long fit_image_index(const struct imgp_survey *sv, const struct imgp_fit_image *img)
{
	return img ? (long)(img - sv->fit.fit.images) : -1;
}

void imgp_survey_get_(const struct imgp_survey *sv, struct imgp_survey_view *out)
{
	const struct imgp_survey_bootinfo *bi = &sv->bootinfo;

	*out = (struct imgp_survey_view){
		.fit_path = sv->fit_path,
		.boot = part_number(sv->boot),
		.boot_rc = sv->boot_rc,
		.boot_error = sv->boot_error,
		.root = part_number(sv->root),
		.root_rc = sv->root_rc,
		.root_error = sv->root_error,
		.root_unread = sv->root_unread,
		.bootpath = sv->bootpath ? sv->bootpath_name : NULL,
		.summary = bi->summary,
		.bootpath_rc = bi->rc,
		.bootpath_error = bi->error,
		.updates = bi->updates,
		.chooser = bi->chooser,
		.nentries = bi->ndts,
		.ntrees = sv->ntrees,
		.neffective = sv->neffective,
	};
}

const char *imgp_survey_fs_error_(const struct imgp_survey *sv, size_t i)
{
	return i < imgp_disk_table_(sv->disk)->nparts ? sv->fs_error[i] : NULL;
}

int imgp_survey_get_entry_(const struct imgp_survey *sv, size_t i,
			  struct imgp_entry_view *out)
{
	const struct imgp_survey_bootdt *dt;

	if (i >= sv->bootinfo.ndts)
		return -ENOENT;
	dt = &sv->bootinfo.dts[i];
	*out = (struct imgp_entry_view){
		.model = dt->model,
		.path = dt->path,
		.kept_in = dt->kept_in,
		.noverlays = dt->noverlays,
		.overlays = (const char *const *)dt->overlays,
		.uboot_default = dt->uboot_default,
	};
	return 0;
}

const struct imgp_uboot *imgp_survey_uboot_(const struct imgp_survey *sv)
{
	return &sv->uboot;
}

void imgp_survey_get_fit_(const struct imgp_survey *sv, struct imgp_fit_view *out)
{
	const struct imgp_survey_fit *f = &sv->fit;

	*out = (struct imgp_fit_view){
		.part = part_number(f->part),
		.rc = f->rc,
		.error = f->error,
		.size = f->parsed ? f->fit.size : 0,
		.nimages = f->parsed ? f->fit.nimages : 0,
		.nconfs = f->parsed ? f->fit.nconfs : 0,
	};
}

int imgp_survey_get_fit_image_(const struct imgp_survey *sv, size_t i,
			      struct imgp_fit_image_view *out)
{
	const struct imgp_survey_fit *f = &sv->fit;
	const struct imgp_fit_image *img;

	if (!f->parsed || i >= f->fit.nimages)
		return -ENOENT;
	img = &f->fit.images[i];
	*out = (struct imgp_fit_image_view){
		.index = img->index,
		.name = img->name,
		.type = img->type,
		.description = img->description,
		.compression = img->compression,
		.hash_algos = img->hash_algos,
		.size = img->size,
		.external = img->external,
		.hash = f->hash ? f->hash[i].state : IMGP_HASH_NONE,
		.hash_error = f->hash ? f->hash[i].error : NULL,
	};
	return 0;
}

int imgp_survey_get_fit_conf_(const struct imgp_survey *sv, size_t i,
			     struct imgp_fit_conf_view *out)
{
	const struct imgp_survey_fit *f = &sv->fit;
	const struct imgp_fit_conf *c;

	if (!f->parsed || i >= f->fit.nconfs)
		return -ENOENT;
	c = &f->fit.confs[i];
	*out = (struct imgp_fit_conf_view){
		.name = c->name,
		.description = c->description,
		.kernel = c->kernel,
		.fdt = c->fdt,
		.is_default = c->is_default,
	};
	return 0;
}

void imgp_survey_get_script_(const struct imgp_survey *sv, struct imgp_script_view *out)
{
	const struct imgp_survey_script_ *s = &sv->script;
	const struct imgp_survey_override *o = &sv->override;

	*out = (struct imgp_script_view){
		.part = part_number(s->part),
		.rc = s->rc,
		.error = s->error,
		.path = s->path,
		.parse_rc = s->parse_rc,
		.parsed = s->parsed,
		.size = s->size,
		.name = s->parsed ? s->scr.name : NULL,
		.loads_override = s->loads_override,
		.override_part = part_number(o->part),
		.override_rc = o->rc,
		.override_error = o->error,
		.override_exists = o->exists,
		.override_size = o->data.len,
	};
}

static void tree_view(const struct imgp_survey *sv, const struct imgp_survey_tree *t,
		      struct imgp_tree_view *out)
{
	*out = (struct imgp_tree_view){
		.image = fit_image_index(sv, t->image),
		.state = t->state,
		.error = t->error,
		.nmmc = t->nmmc,
		.mmc = t->mmc,
	};
}

int imgp_survey_get_tree_(const struct imgp_survey *sv, size_t i,
			 struct imgp_tree_view *out)
{
	if (i >= sv->ntrees)
		return -ENOENT;
	tree_view(sv, &sv->trees[i], out);
	return 0;
}

int imgp_survey_get_effective_(const struct imgp_survey *sv, size_t i,
			      struct imgp_effective_view *out)
{
	const struct imgp_effective *e;

	if (i >= sv->neffective)
		return -ENOENT;
	e = &sv->effective[i];
	*out = (struct imgp_effective_view){
		.name = imgp_effective_name_(e),
		.provenance = e->provenance,
		.booted = e->booted,
		.entry = e->bootdt ? (long)(e->bootdt - sv->bootinfo.dts) : -1,
		.image = fit_image_index(sv, e->image),
		.dtb = e->dtb.fdt ? &e->dtb : NULL,
		.rc = e->rc,
		.error = e->error,
		.nwarnings = e->nwarnings,
		.warnings = (const char *const *)e->warnings,
	};
	if (sv->effective_trees)
		tree_view(sv, &sv->effective_trees[i], &out->tree);
	else
		out->tree.image = out->image;
	return 0;
}

int imgp_survey_pick_(const struct imgp_survey *sv, const char *model, bool option,
		     size_t *i)
{
	const struct imgp_effective *t;
	int rc = option ? imgp_effective_pick_model_(sv->effective, sv->neffective, model, &t) :
			  imgp_effective_pick_(sv->effective, sv->neffective, model, &t);

	if (!rc)
		*i = (size_t)(t - sv->effective);
	return rc;
}

void imgp_survey_get_fstab_(const struct imgp_survey *sv, struct imgp_fstab_view *out)
{
	const struct imgp_survey_fstab *f = &sv->fstab;

	*out = (struct imgp_fstab_view){
		.part = part_number(f->part),
		.rc = f->rc,
		.error = f->error,
		.root_rc = f->root_rc,
		.root_error = f->root_error,
		.root = f->text && !f->root_rc ? &f->root : NULL,
	};
}
