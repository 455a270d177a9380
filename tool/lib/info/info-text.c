// SPDX-License-Identifier: MIT
/* imgpatch info: the collected facts as text, a section at a time. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "info.h"
#include "table.h"

static const char *const hash_text[] = { "-", "ok", "BAD", "unsupported" };

/* "64.0M": binary units with one decimal, as partitioning tools show sizes. */
static void human_size(uint64_t bytes, char *out, size_t outlen)
{
	static const char units[] = "KMGTPE";
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 1024) {
		snprintf(out, outlen, "%uB", (unsigned)bytes);
		return;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < sizeof(units) - 1) {
		v /= 1024;
		u++;
	}
	snprintf(out, outlen, "%.1f%c", v, units[u]);
}

unsigned imgp_info_sector_size_(const struct imgp_info *in)
{
	unsigned size = imgp_disk_table_(in->disk)->sector_size;

	return size ? size : 512;
}

static void text_partitions(struct imgp_info *in)
{
	const struct imgp_table *tab = imgp_disk_table_(in->disk);
	struct imgp_text_table t = {
		.ncols = 9,
		.head = { "Num", "Boot", "Start(sector)", "Size", "Type", "Name",
			  "FS", "Label", "UUID" },
		.right = 1u << 0 | 1u << 2,
		.optional = 1u << 1 | 1u << 5 | 1u << 7 | 1u << 8,
	};

	imgp_put_text_(in->out, in->path);
	fprintf(in->out, ": %llu bytes, %s, disk ", (unsigned long long)imgp_disk_size_(in->disk),
	       tab->label);
	imgp_put_text_(in->out, tab->id);
	fprintf(in->out, "; sector size %u%s\n", imgp_info_sector_size_(in),
	       tab->used_backup ? "; primary GPT header damaged, backup header used" : "");
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];
		char num[16], start[24], size[16];
		const char *cells[9];

		snprintf(num, sizeof(num), "%d", p->number);
		snprintf(start, sizeof(start), "%llu",
			 (unsigned long long)(p->start / imgp_info_sector_size_(in)));
		human_size(p->size, size, sizeof(size));
		cells[0] = num;
		cells[1] = p->bootable ? "*" : "";
		cells[2] = start;
		cells[3] = size;
		cells[4] = p->type_name ? p->type_name : p->type;
		cells[5] = p->name;
		cells[6] = p->fstype[0] ? p->fstype : "-";
		cells[7] = p->fslabel;
		cells[8] = p->fsuuid;
		imgp_text_table_row_(&t, cells);
	}
	if (imgp_text_table_print_(in->out, &t, ""))
		in->failed = true;
	for (size_t i = 0; i < tab->nparts; i++) {
		const char *error = imgp_survey_fs_error_(in->sv, i);

		if (!error)
			continue;
		fputs("error: ", in->out);
		imgp_put_text_(in->out, error);
		fputc('\n', in->out);
	}
}

/* After "no partition has X": the partitions that could not be searched. */
static void text_unreadable(struct imgp_info *in)
{
	for (size_t i = 0; i < imgp_disk_table_(in->disk)->nparts; i++)
		if (imgp_survey_fs_error_(in->sv, i))
			fprintf(in->out, "; " IMGP_PART_FMT " unreadable (see above)",
			       imgp_disk_table_(in->disk)->parts[i].number);
}

/* " (model M)", unless the tree's file already says it (as doctor). */
static void text_model(struct imgp_info *in, const struct imgp_entry_view *dt)
{
	if (!dt->model || strstr(dt->path, dt->model))
		return;
	fputs(" (model ", in->out);
	imgp_put_text_(in->out, dt->model);
	fputc(')', in->out);
}

/*
 * The way the board picks its tree, and each tree it can boot with the
 * overlays it lists: "  tree: BASE + OVERLAY + ... (model M)", written
 * as doctor's "tree:" and cat --dtb's "//" line write the tree booted,
 * so that the two compare entry by entry (a Raspberry Pi entry holds
 * commas of its own).
 */
/*
 * "  cmdline: LINE" (with the model where they differ), then where it is
 * kept and what the loader adds, as cat --cmdline's comment line says.
 */
static void text_cmdline(struct imgp_info *in)
{
	if (in->cmdline_error) {
		fputs("  cmdline: (", in->out);
		imgp_put_text_(in->out, in->cmdline_error);
		fprintf(in->out, "%s\n", ")");
		return;
	}
	for (size_t i = 0; i < in->ncmdlines; i++) {
		const struct imgp_info_cmdline *c = &in->cmdlines[i];

		fputs("  cmdline", in->out);
		if (c->model) {
			fputs(" (", in->out);
			imgp_put_text_(in->out, c->model);
			fputc(')', in->out);
		}
		fputs(": ", in->out);
		imgp_put_text_(in->out, c->line.len ? (char *)c->line.data : "(empty)");
		fputs("\n    kept in: ", in->out);
		imgp_put_text_(in->out, (char *)c->where.data);
		if (c->loader.len) {
			fputs("\n    loader: ", in->out);
			imgp_put_text_(in->out, (char *)c->loader.data);
		}
		fputc('\n', in->out);
	}
}

/*
 * Where U-Boot picks one of many trees by a variable: how many, which
 * variable, and the tree the image's own U-Boot picks, in one line (the
 * trees' list is --json's, one tree in full --model's).
 */
static void text_brief(struct imgp_info *in)
{
	struct imgp_entry_view dt;
	bool picked = false;

	if (!in->brief)
		return;
	for (size_t i = 0; !imgp_survey_get_entry_(in->sv, i, &dt); i++)
		picked |= dt.uboot_default;
	fprintf(in->out, "  trees: %zu, U-Boot picks one by its ", in->v.nentries);
	imgp_put_text_(in->out, in->v.chooser);
	if (picked) {
		fputs(": the image's U-Boot picks the tree below", in->out);
	} else {
		fputs(", and the image does not say which (no U-Boot before its first "
		      "partition names one)", in->out);
	}
	fprintf(in->out, "; imgpatch info %s --model TREE for %s, --json lists them all\n",
	       in->path, picked ? "another" : "one");
}

static void text_bootpath(struct imgp_info *in)
{
	const struct imgp_survey_view *v = &in->v;
	struct imgp_entry_view dt;

	fputs("boot path: ", in->out);
	if (!v->bootpath) {
		fprintf(in->out, "%s\n", "none recognised");
		return;
	}
	imgp_put_text_(in->out, v->summary ? v->summary : v->bootpath);
	fprintf(in->out, " (" IMGP_PART_FMT ")\n", v->boot);
	if (v->bootpath_rc) {
		fputs("error: ", in->out);
		imgp_put_text_(in->out, v->bootpath_error);
		fputc('\n', in->out);
	}
	if (v->updates) {
		fputs("  updates: ", in->out);
		imgp_put_text_(in->out, v->updates);
		fputc('\n', in->out);
	}
	text_brief(in);
	for (size_t i = 0; !imgp_survey_get_entry_(in->sv, i, &dt); i++) {
		if (!imgp_info_shows_(in, i, &dt))
			continue;
		fputs("  tree: ", in->out);
		imgp_put_text_(in->out, dt.path);
		for (size_t k = 0; k < dt.noverlays; k++) {
			fputs(" + ", in->out);
			imgp_put_text_(in->out, dt.overlays[k]);
		}
		text_model(in, &dt);
		fputc('\n', in->out);
	}
	text_cmdline(in);
}

/*
 * The image's own U-Boot, before the first partition: "boot loader:
 * U-Boot 2023.01, fdtfile=rockchip/rk3399-rockpro64.dtb (u-boot.itb at
 * sector 16384 (Rockchip))".
 */
static void text_bootloader(struct imgp_info *in)
{
	const struct imgp_uboot *ub = imgp_survey_uboot_(in->sv);

	if (!ub->where)
		return;
	fputs("boot loader: U-Boot", in->out);
	if (ub->version) {
		fputc(' ', in->out);
		imgp_put_text_(in->out, ub->version);
	}
	if (ub->fdtfile) {
		fputs(", fdtfile=", in->out);
		imgp_put_text_(in->out, ub->fdtfile);
	} else if (ub->tree) {
		fputs(", ", in->out);
		imgp_put_text_(in->out, ub->tree_from);
		fputs(" = ", in->out);
		imgp_put_text_(in->out, ub->tree);
	} else {
		fputs(", no fdtfile", in->out);
	}
	fputs(" (", in->out);
	imgp_put_text_(in->out, ub->where);
	fprintf(in->out, "%s\n", ")");
}

static void text_fit(struct imgp_info *in)
{
	const struct imgp_fit_view *fit = &in->fit;
	struct imgp_fit_image_view img;
	struct imgp_fit_conf_view c;
	struct imgp_text_table images = {
		.ncols = 8,
		.head = { "#", "Image", "Type", "Compression", "Size", "Hash",
			  "Verify", "Description" },
		.right = 1u << 0 | 1u << 4,
		.optional = 1u << 7,
	};
	struct imgp_text_table confs = {
		.ncols = 5,
		.head = { "Configuration", "Default", "Kernel", "FDT",
			  "Description" },
		.optional = 1u << 4,
	};

	fputs("fit: ", in->out);
	if (imgp_info_fit_missing_(in)) {
		imgp_put_text_(in->out, fit->error);
		text_unreadable(in);
		fputc('\n', in->out);
		return;
	}
	if (fit->rc) {
		fputs("error: ", in->out);
		imgp_put_text_(in->out, fit->error);
		fputc('\n', in->out);
		return;
	}
	fprintf(in->out, IMGP_PART_FMT " ", fit->part);
	imgp_put_text_(in->out, in->v.fit_path);
	fprintf(in->out, ", %zu bytes, %zu images, %zu configurations\n", fit->size,
	       fit->nimages, fit->nconfs);
	for (size_t i = 0; !imgp_survey_get_fit_image_(in->sv, i, &img); i++) {
		char idx[16], size[24];
		const char *cells[8];

		snprintf(idx, sizeof(idx), "%d", img.index);
		snprintf(size, sizeof(size), "%zu", img.size);
		cells[0] = idx;
		cells[1] = img.name;
		cells[2] = img.type;
		cells[3] = img.compression;
		cells[4] = size;
		cells[5] = img.hash_algos[0] ? img.hash_algos : "-";
		cells[6] = hash_text[img.hash];
		cells[7] = img.description;
		imgp_text_table_row_(&images, cells);
	}
	if (fit->nimages)
		if (imgp_text_table_print_(in->out, &images, "  "))
			in->failed = true;
	for (size_t i = 0; !imgp_survey_get_fit_image_(in->sv, i, &img); i++) {
		if (!img.hash_error)
			continue;
		fputs(img.hash == IMGP_HASH_BAD ? "error: " : "warning: ", in->out);
		imgp_put_text_(in->out, img.hash_error);
		fputc('\n', in->out);
	}
	for (size_t i = 0; !imgp_survey_get_fit_conf_(in->sv, i, &c); i++) {
		const char *cells[5] = {
			c.name, c.is_default ? "yes" : "",
			c.kernel ? c.kernel : "-", c.fdt ? c.fdt : "-",
			c.description,
		};

		imgp_text_table_row_(&confs, cells);
	}
	if (fit->nconfs)
		if (imgp_text_table_print_(in->out, &confs, "  "))
			in->failed = true;
}

static void text_script(struct imgp_info *in)
{
	const struct imgp_script_view *s = &in->script;

	fputs("boot script: ", in->out);
	if (imgp_info_script_missing_(in)) {
		imgp_put_text_(in->out, s->error);
		text_unreadable(in);
	} else if (s->rc) {
		fputs("error: ", in->out);
		imgp_put_text_(in->out, s->error);
	} else {
		fprintf(in->out, IMGP_PART_FMT " %s (\"", s->part, s->path);
		imgp_put_text_(in->out, s->name);
		fprintf(in->out, "\"), CRCs ok, loads %s: %s", IMGP_OVERRIDE_NAME,
		       imgp_info_script_loads_override_(in) ? "yes" : "no");
	}
	fputc('\n', in->out);

	fprintf(in->out, "%s: ", IMGP_OVERRIDE_NAME);
	if (imgp_info_override_missing_(in)) {
		imgp_put_text_(in->out, s->override_error);
	} else if (s->override_rc && s->override_rc != -ENOENT) {
		fputs("error: ", in->out);
		imgp_put_text_(in->out, s->override_error);
	} else if (s->override_exists) {
		fprintf(in->out, IMGP_PART_FMT " " IMGP_OVERRIDE_PATH ", %zu bytes",
		       s->override_part, s->override_size);
	} else {
		fprintf(in->out, "not on " IMGP_PART_FMT, s->override_part);
	}
	fputc('\n', in->out);
}

bool imgp_info_is_uhs_blocker_(const char *prop)
{
	return strcmp(prop, "no-1-8-v") == 0;
}

/* After a tree's name: its state, or its SD/eMMC controllers, a line each. */
static void text_controllers(struct imgp_info *in, const struct imgp_tree_view *dt)
{
	struct imgp_fit_image_view img;

	switch (dt->state) {
	case IMGP_TREE_COMPRESSED:
		imgp_survey_get_fit_image_(in->sv, (size_t)dt->image, &img);
		fprintf(in->out, "compressed (");
		imgp_put_text_(in->out, img.compression);
		fprintf(in->out, "), not inspected\n");
		return;
	case IMGP_TREE_SKIPPED:
		fputs("not inspected: ", in->out);
		imgp_put_text_(in->out, dt->error);
		fputc('\n', in->out);
		return;
	case IMGP_TREE_ERROR:
	case IMGP_TREE_MISSING:
		/* Not there is no failure to read: no "error:", not a problem. */
		fputs(dt->state == IMGP_TREE_ERROR ? "error: " : "", in->out);
		imgp_put_text_(in->out, dt->error);
		fputc('\n', in->out);
		return;
	case IMGP_TREE_OK:
		break;
	}
	if (!dt->nmmc) {
		fprintf(in->out, "%s\n", "no SD/eMMC controller nodes");
		return;
	}
	fprintf(in->out, "%zu SD/eMMC controller%s\n", dt->nmmc, dt->nmmc == 1 ? "" : "s");
	for (size_t i = 0; i < dt->nmmc; i++) {
		const struct imgp_dt_mmc *m = &dt->mmc[i];

		fputs("  ", in->out);
		imgp_put_text_(in->out, m->path);
		fputc(' ', in->out);
		imgp_put_text_(in->out, m->status);
		for (size_t k = 0; k < m->nprops; k++) {
			fputs(k ? ", " : ": ", in->out);
			imgp_put_text_(in->out, m->props[k].name);
			if (m->props[k].value[0]) {
				fputc('=', in->out);
				imgp_put_text_(in->out, m->props[k].value);
			}
			if (imgp_info_is_uhs_blocker_(m->props[k].name))
				fputs(" (UHS-I blocked)", in->out);
		}
		fputc('\n', in->out);
	}
}

static void text_dt(struct imgp_info *in, const struct imgp_tree_view *dt)
{
	struct imgp_fit_image_view img;

	if (dt->image >= 0) {
		imgp_survey_get_fit_image_(in->sv, (size_t)dt->image, &img);
		fputs("fdt '", in->out);
		imgp_put_text_(in->out, img.name);
		fprintf(in->out, "' (#%d): ", img.index);
	} else {
		fprintf(in->out, "%s (" IMGP_PART_FMT "): ", IMGP_OVERRIDE_NAME,
		       in->script.override_part);
	}
	text_controllers(in, dt);
}

/*
 * The tree a boot path's entry boots, named as its "tree:" line with the
 * entries that took effect: "effective tree BASE + OVERLAY (model M): ...",
 * then its warnings (as cat --dtb gives them).
 */
static void text_effective(struct imgp_info *in, const struct imgp_entry_view *dt,
			   const struct imgp_effective_view *e)
{
	const char *warning;

	fputs("effective tree ", in->out);
	imgp_put_text_(in->out, e->booted);
	text_model(in, dt);
	fputs(": ", in->out);
	text_controllers(in, &e->tree);
	for (size_t k = 0; (warning = imgp_info_warning_(in, e, k)); k++) {
		fputs("warning: ", in->out);
		imgp_put_text_(in->out, warning);
		fputc('\n', in->out);
	}
}

/* The boot path's effective trees, else the survey's; else none. */
static void text_trees(struct imgp_info *in)
{
	struct imgp_effective_view e;
	struct imgp_entry_view dt;
	struct imgp_tree_view tree;
	size_t shown = in->v.ntrees;

	for (size_t i = 0; !imgp_survey_get_entry_(in->sv, i, &dt); i++) {
		if (!imgp_info_effective_(in, i, &e) || !imgp_info_shows_(in, i, &dt))
			continue;
		text_effective(in, &dt, &e);
		shown++;
	}
	for (size_t i = 0; !imgp_survey_get_tree_(in->sv, i, &tree); i++)
		if (imgp_info_shows_tree_(in, &tree))
			text_dt(in, &tree);
	if (!shown && in->brief)
		fprintf(in->out, "effective tree: none shown (U-Boot picks one of %zu by its %s; --model TREE names one)\n",
		       in->v.nentries, in->v.chooser);
	else if (!shown)
		fprintf(in->out, "device trees: none to inspect (no FIT fdt, no %s)\n", IMGP_OVERRIDE_NAME);
}

static void text_fstab(struct imgp_info *in)
{
	const struct imgp_fstab_view *f = &in->fstab;
	const struct imgp_fstab_entry *e = f->root;

	fputs("root fstab: ", in->out);
	if (imgp_info_fstab_missing_(in)) {
		imgp_put_text_(in->out, in->v.root_error);
		if (in->root_subvol) {
			fputs("; the kernel mounts the subvolume rootflags= names: ", stdout);
			imgp_put_text_(in->out, in->root_subvol);
		} else if (in->root_subvol_known) {
			fputs("; the kernel mounts its default subvolume (rootflags= names none)", stdout);
		}
		if (in->root_opens) {
			fputs(in->root_opens_other ?
			      "; the command line opens another container: " :
			      "; the command line opens it: ", stdout);
			imgp_put_text_(in->out, in->root_opens);
		}
		text_unreadable(in);
	} else if (imgp_info_fstab_error_(in)) {
		fputs("error: ", in->out);
		imgp_put_text_(in->out, imgp_info_fstab_error_(in));
	} else if (f->root_rc) {
		fprintf(in->out, IMGP_PART_FMT " " IMGP_FSTAB_PATH ": ", f->part);
		imgp_put_text_(in->out, f->root_error);
	} else {
		fprintf(in->out, IMGP_PART_FMT " " IMGP_FSTAB_PATH " line %d: ", f->part,
		       e->line);
		imgp_put_text_(in->out, e->spec);
		fputc(' ', in->out);
		imgp_put_text_(in->out, e->file);
		fputc(' ', in->out);
		imgp_put_text_(in->out, e->vfstype);
		fputc(' ', in->out);
		imgp_put_text_(in->out, e->options);
		fprintf(in->out, " %d %d", e->freq, e->passno);
	}
	fputc('\n', in->out);
}

int imgp_info_print_text_(struct imgp_info *in)
{
	text_partitions(in);
	fputc('\n', in->out);
	text_bootloader(in);
	text_bootpath(in);
	text_fit(in);
	fputc('\n', in->out);
	text_script(in);
	fputc('\n', in->out);
	text_trees(in);
	fputc('\n', in->out);
	text_fstab(in);
	if (in->failed)
		return imgp_fail(ENOMEM, "out of memory");
	return fflush(in->out) || ferror(in->out) ? -EIO : 0;
}
