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

unsigned info_sector_size(const struct info *in)
{
	unsigned size = imgp_disk_table(in->disk)->sector_size;

	return size ? size : 512;
}

static void text_partitions(const struct info *in)
{
	const struct imgp_table *tab = imgp_disk_table(in->disk);
	struct table t = {
		.ncols = 9,
		.head = { "Num", "Boot", "Start(sector)", "Size", "Type", "Name",
			  "FS", "Label", "UUID" },
		.right = 1u << 0 | 1u << 2,
		.optional = 1u << 1 | 1u << 5 | 1u << 7 | 1u << 8,
	};

	table_put_text(in->path);
	printf(": %llu bytes, %s, disk ", (unsigned long long)imgp_disk_size(in->disk),
	       tab->label);
	table_put_text(tab->id);
	printf("; sector size %u%s\n", info_sector_size(in),
	       tab->used_backup ? "; primary GPT header damaged, backup header used" : "");
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];
		char num[16], start[24], size[16];
		const char *cells[9];

		snprintf(num, sizeof(num), "%d", p->number);
		snprintf(start, sizeof(start), "%llu",
			 (unsigned long long)(p->start / info_sector_size(in)));
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
		table_row(&t, cells);
	}
	table_print(&t, "");
	for (size_t i = 0; i < tab->nparts; i++) {
		const char *error = imgp_survey_fs_error(in->sv, i);

		if (!error)
			continue;
		fputs("error: ", stdout);
		table_put_text(error);
		putchar('\n');
	}
}

/* After "no partition has X": the partitions that could not be searched. */
static void text_unreadable(const struct info *in)
{
	for (size_t i = 0; i < imgp_disk_table(in->disk)->nparts; i++)
		if (imgp_survey_fs_error(in->sv, i))
			printf("; " IMGP_PART_FMT " unreadable (see above)",
			       imgp_disk_table(in->disk)->parts[i].number);
}

/* " (model M)", unless the tree's file already says it (as doctor). */
static void text_model(const struct imgp_entry_view *dt)
{
	if (!dt->model || strstr(dt->path, dt->model))
		return;
	fputs(" (model ", stdout);
	table_put_text(dt->model);
	putchar(')');
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
static void text_cmdline(const struct info *in)
{
	if (in->cmdline_error) {
		fputs("  cmdline: (", stdout);
		table_put_text(in->cmdline_error);
		puts(")");
		return;
	}
	for (size_t i = 0; i < in->ncmdlines; i++) {
		const struct info_cmdline *c = &in->cmdlines[i];

		fputs("  cmdline", stdout);
		if (c->model) {
			fputs(" (", stdout);
			table_put_text(c->model);
			putchar(')');
		}
		fputs(": ", stdout);
		table_put_text(c->line.len ? (char *)c->line.data : "(empty)");
		fputs("\n    kept in: ", stdout);
		table_put_text((char *)c->where.data);
		if (c->loader.len) {
			fputs("\n    loader: ", stdout);
			table_put_text((char *)c->loader.data);
		}
		putchar('\n');
	}
}

/*
 * Where U-Boot picks one of many trees by a variable: how many, which
 * variable, and the tree the image's own U-Boot picks, in one line (the
 * trees' list is --json's, one tree in full --model's).
 */
static void text_brief(const struct info *in)
{
	struct imgp_entry_view dt;
	bool picked = false;

	if (!in->brief)
		return;
	for (size_t i = 0; !imgp_survey_get_entry(in->sv, i, &dt); i++)
		picked |= dt.uboot_default;
	printf("  trees: %zu, U-Boot picks one by its ", in->v.nentries);
	table_put_text(in->v.chooser);
	if (picked) {
		fputs(": the image's U-Boot picks the tree below", stdout);
	} else {
		fputs(", and the image does not say which (no U-Boot before its first "
		      "partition names one)", stdout);
	}
	printf("; imgpatch info %s --model TREE for %s, --json lists them all\n",
	       in->path, picked ? "another" : "one");
}

static void text_bootpath(const struct info *in)
{
	const struct imgp_survey_view *v = &in->v;
	struct imgp_entry_view dt;

	fputs("boot path: ", stdout);
	if (!v->bootpath) {
		puts("none recognised");
		return;
	}
	table_put_text(v->summary ? v->summary : v->bootpath);
	printf(" (" IMGP_PART_FMT ")\n", v->boot);
	if (v->bootpath_rc) {
		fputs("error: ", stdout);
		table_put_text(v->bootpath_error);
		putchar('\n');
	}
	if (v->updates) {
		fputs("  updates: ", stdout);
		table_put_text(v->updates);
		putchar('\n');
	}
	text_brief(in);
	for (size_t i = 0; !imgp_survey_get_entry(in->sv, i, &dt); i++) {
		if (!info_shows(in, i, &dt))
			continue;
		fputs("  tree: ", stdout);
		table_put_text(dt.path);
		for (size_t k = 0; k < dt.noverlays; k++) {
			fputs(" + ", stdout);
			table_put_text(dt.overlays[k]);
		}
		text_model(&dt);
		putchar('\n');
	}
	text_cmdline(in);
}

/*
 * The image's own U-Boot, before the first partition: "boot loader:
 * U-Boot 2023.01, fdtfile=rockchip/rk3399-rockpro64.dtb (u-boot.itb at
 * sector 16384 (Rockchip))".
 */
static void text_bootloader(const struct info *in)
{
	const struct imgp_uboot *ub = imgp_survey_uboot(in->sv);

	if (!ub->where)
		return;
	fputs("boot loader: U-Boot", stdout);
	if (ub->version) {
		putchar(' ');
		table_put_text(ub->version);
	}
	if (ub->fdtfile) {
		fputs(", fdtfile=", stdout);
		table_put_text(ub->fdtfile);
	} else if (ub->tree) {
		fputs(", ", stdout);
		table_put_text(ub->tree_from);
		fputs(" = ", stdout);
		table_put_text(ub->tree);
	} else {
		fputs(", no fdtfile", stdout);
	}
	fputs(" (", stdout);
	table_put_text(ub->where);
	puts(")");
}

static void text_fit(const struct info *in)
{
	const struct imgp_fit_view *fit = &in->fit;
	struct imgp_fit_image_view img;
	struct imgp_fit_conf_view c;
	struct table images = {
		.ncols = 8,
		.head = { "#", "Image", "Type", "Compression", "Size", "Hash",
			  "Verify", "Description" },
		.right = 1u << 0 | 1u << 4,
		.optional = 1u << 7,
	};
	struct table confs = {
		.ncols = 5,
		.head = { "Configuration", "Default", "Kernel", "FDT",
			  "Description" },
		.optional = 1u << 4,
	};

	fputs("fit: ", stdout);
	if (info_fit_missing(in)) {
		table_put_text(fit->error);
		text_unreadable(in);
		putchar('\n');
		return;
	}
	if (fit->rc) {
		fputs("error: ", stdout);
		table_put_text(fit->error);
		putchar('\n');
		return;
	}
	printf(IMGP_PART_FMT " ", fit->part);
	table_put_text(in->v.fit_path);
	printf(", %zu bytes, %zu images, %zu configurations\n", fit->size,
	       fit->nimages, fit->nconfs);
	for (size_t i = 0; !imgp_survey_get_fit_image(in->sv, i, &img); i++) {
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
		table_row(&images, cells);
	}
	if (fit->nimages)
		table_print(&images, "  ");
	for (size_t i = 0; !imgp_survey_get_fit_image(in->sv, i, &img); i++) {
		if (!img.hash_error)
			continue;
		fputs(img.hash == IMGP_HASH_BAD ? "error: " : "warning: ", stdout);
		table_put_text(img.hash_error);
		putchar('\n');
	}
	for (size_t i = 0; !imgp_survey_get_fit_conf(in->sv, i, &c); i++) {
		const char *cells[5] = {
			c.name, c.is_default ? "yes" : "",
			c.kernel ? c.kernel : "-", c.fdt ? c.fdt : "-",
			c.description,
		};

		table_row(&confs, cells);
	}
	if (fit->nconfs)
		table_print(&confs, "  ");
}

static void text_script(const struct info *in)
{
	const struct imgp_script_view *s = &in->script;

	fputs("boot script: ", stdout);
	if (info_script_missing(in)) {
		table_put_text(s->error);
		text_unreadable(in);
	} else if (s->rc) {
		fputs("error: ", stdout);
		table_put_text(s->error);
	} else {
		printf(IMGP_PART_FMT " %s (\"", s->part, s->path);
		table_put_text(s->name);
		printf("\"), CRCs ok, loads %s: %s", IMGP_OVERRIDE_NAME,
		       info_script_loads_override(in) ? "yes" : "no");
	}
	putchar('\n');

	printf("%s: ", IMGP_OVERRIDE_NAME);
	if (info_override_missing(in)) {
		table_put_text(s->override_error);
	} else if (s->override_rc && s->override_rc != -ENOENT) {
		fputs("error: ", stdout);
		table_put_text(s->override_error);
	} else if (s->override_exists) {
		printf(IMGP_PART_FMT " " IMGP_OVERRIDE_PATH ", %zu bytes",
		       s->override_part, s->override_size);
	} else {
		printf("not on " IMGP_PART_FMT, s->override_part);
	}
	putchar('\n');
}

bool info_is_uhs_blocker(const char *prop)
{
	return strcmp(prop, "no-1-8-v") == 0;
}

/* After a tree's name: its state, or its SD/eMMC controllers, a line each. */
static void text_controllers(const struct info *in, const struct imgp_tree_view *dt)
{
	struct imgp_fit_image_view img;

	switch (dt->state) {
	case IMGP_TREE_COMPRESSED:
		imgp_survey_get_fit_image(in->sv, (size_t)dt->image, &img);
		printf("compressed (");
		table_put_text(img.compression);
		printf("), not inspected\n");
		return;
	case IMGP_TREE_SKIPPED:
		fputs("not inspected: ", stdout);
		table_put_text(dt->error);
		putchar('\n');
		return;
	case IMGP_TREE_ERROR:
	case IMGP_TREE_MISSING:
		/* Not there is no failure to read: no "error:", not a problem. */
		fputs(dt->state == IMGP_TREE_ERROR ? "error: " : "", stdout);
		table_put_text(dt->error);
		putchar('\n');
		return;
	case IMGP_TREE_OK:
		break;
	}
	if (!dt->nmmc) {
		puts("no SD/eMMC controller nodes");
		return;
	}
	printf("%zu SD/eMMC controller%s\n", dt->nmmc, dt->nmmc == 1 ? "" : "s");
	for (size_t i = 0; i < dt->nmmc; i++) {
		const struct imgp_dt_mmc *m = &dt->mmc[i];

		fputs("  ", stdout);
		table_put_text(m->path);
		putchar(' ');
		table_put_text(m->status);
		for (size_t k = 0; k < m->nprops; k++) {
			fputs(k ? ", " : ": ", stdout);
			table_put_text(m->props[k].name);
			if (m->props[k].value[0]) {
				putchar('=');
				table_put_text(m->props[k].value);
			}
			if (info_is_uhs_blocker(m->props[k].name))
				fputs(" (UHS-I blocked)", stdout);
		}
		putchar('\n');
	}
}

static void text_dt(const struct info *in, const struct imgp_tree_view *dt)
{
	struct imgp_fit_image_view img;

	if (dt->image >= 0) {
		imgp_survey_get_fit_image(in->sv, (size_t)dt->image, &img);
		fputs("fdt '", stdout);
		table_put_text(img.name);
		printf("' (#%d): ", img.index);
	} else {
		printf("%s (" IMGP_PART_FMT "): ", IMGP_OVERRIDE_NAME,
		       in->script.override_part);
	}
	text_controllers(in, dt);
}

/*
 * The tree a boot path's entry boots, named as its "tree:" line with the
 * entries that took effect: "effective tree BASE + OVERLAY (model M): ...",
 * then its warnings (as cat --dtb gives them).
 */
static void text_effective(const struct info *in, const struct imgp_entry_view *dt,
			   const struct imgp_effective_view *e)
{
	const char *warning;

	fputs("effective tree ", stdout);
	table_put_text(e->booted);
	text_model(dt);
	fputs(": ", stdout);
	text_controllers(in, &e->tree);
	for (size_t k = 0; (warning = info_warning(in, e, k)); k++) {
		fputs("warning: ", stdout);
		table_put_text(warning);
		putchar('\n');
	}
}

/* The boot path's effective trees, else the survey's; else none. */
static void text_trees(const struct info *in)
{
	struct imgp_effective_view e;
	struct imgp_entry_view dt;
	struct imgp_tree_view tree;
	size_t shown = in->v.ntrees;

	for (size_t i = 0; !imgp_survey_get_entry(in->sv, i, &dt); i++) {
		if (!info_effective(in, i, &e) || !info_shows(in, i, &dt))
			continue;
		text_effective(in, &dt, &e);
		shown++;
	}
	for (size_t i = 0; !imgp_survey_get_tree(in->sv, i, &tree); i++)
		if (info_shows_tree(in, &tree))
			text_dt(in, &tree);
	if (!shown && in->brief)
		printf("effective tree: none shown (U-Boot picks one of %zu by its %s; --model TREE names one)\n",
		       in->v.nentries, in->v.chooser);
	else if (!shown)
		printf("device trees: none to inspect (no FIT fdt, no %s)\n", IMGP_OVERRIDE_NAME);
}

static void text_fstab(const struct info *in)
{
	const struct imgp_fstab_view *f = &in->fstab;
	const struct imgp_fstab_entry *e = f->root;

	fputs("root fstab: ", stdout);
	if (info_fstab_missing(in)) {
		table_put_text(in->v.root_error);
		if (in->root_subvol) {
			fputs("; the kernel mounts the subvolume rootflags= names: ", stdout);
			table_put_text(in->root_subvol);
		} else if (in->root_subvol_known) {
			fputs("; the kernel mounts its default subvolume (rootflags= names none)", stdout);
		}
		if (in->root_opens) {
			fputs(in->root_opens_other ?
			      "; the command line opens another container: " :
			      "; the command line opens it: ", stdout);
			table_put_text(in->root_opens);
		}
		text_unreadable(in);
	} else if (info_fstab_error(in)) {
		fputs("error: ", stdout);
		table_put_text(info_fstab_error(in));
	} else if (f->root_rc) {
		printf(IMGP_PART_FMT " " IMGP_FSTAB_PATH ": ", f->part);
		table_put_text(f->root_error);
	} else {
		printf(IMGP_PART_FMT " " IMGP_FSTAB_PATH " line %d: ", f->part,
		       e->line);
		table_put_text(e->spec);
		putchar(' ');
		table_put_text(e->file);
		putchar(' ');
		table_put_text(e->vfstype);
		putchar(' ');
		table_put_text(e->options);
		printf(" %d %d", e->freq, e->passno);
	}
	putchar('\n');
}

void info_print_text(const struct info *in)
{
	text_partitions(in);
	putchar('\n');
	text_bootloader(in);
	text_bootpath(in);
	text_fit(in);
	putchar('\n');
	text_script(in);
	putchar('\n');
	text_trees(in);
	putchar('\n');
	text_fstab(in);
}
