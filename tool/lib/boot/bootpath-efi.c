// SPDX-License-Identifier: MIT
/*
 * Boot path "efi": U-Boot's distro boot starts the EFI removable-media
 * loader /EFI/BOOT/BOOTAA64.EFI (GRUB, systemd-boot) and hands it a
 * device tree read from the same partition. U-Boot 2023.01's
 * include/config_distro_bootcmd.h, scan_dev_for_efi:
 *
 *   setenv efi_fdtfile ${fdtfile};
 *   for prefix in ${efi_dtb_prefixes}; do       (efi_dtb_prefixes=/ /dtb/ /dtb/current/)
 *     if test -e ... ${prefix}${efi_fdtfile}; then run load_efi_dtb; fi;
 *   done;
 *
 * with load_efi_dtb loading ${prefix}${efi_fdtfile} to ${fdt_addr_r}:
 * every prefix that has the file is loaded to the same address, so the
 * tree handed over is the one of the LAST prefix that has it. With none,
 * "fdt addr -q ${fdt_addr_r}" fails and bootefi hands over U-Boot's own
 * control tree, which is not in the image. (The 2023.01 bootmeth_efi of
 * standard boot loads no tree at all: it passes the control tree too.)
 *
 * ${fdtfile} is the board's: the image's U-Boot's default environment
 * when the image carries U-Boot (uboot-env.c), else --model names it; the
 * 32-bit fallback ${soc}-${board}${boardver}.dtb does not apply to arm64.
 * Distributions copy the kernel's tree folder to the ESP's /dtb/ (vendor
 * subfolders: fdtfile "rockchip/rk3399-rockpro64.dtb"), as FreedomBox's
 * freedom-maker does for its generic arm64 images.
 *
 * The loader applies no overlay list. The kernel command line belongs to
 * the EFI loader (GRUB's grub.cfg, boot loader entries): this path names
 * where and leaves it to it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imgpatch-internal.h"

#define EFI_LOADER "/EFI/BOOT/BOOTAA64.EFI"

/* efi_dtb_prefixes, in the order the loop loads them. */
static const char *const prefixes[] = { "/", "/dtb/", "/dtb/current/" };
#define NPREFIXES (sizeof(prefixes) / sizeof(prefixes[0]))

/* A tree name (relative to the prefixes) and the file U-Boot loads last. */
struct found {
	char *rel;
	char *path;
};

struct trees {
	struct imgp_survey *sv;
	struct imgp_survey_bootinfo *bi;
	size_t n;
	struct found *f;
};


/* Records rel as found under path; a later prefix replaces an earlier one. */
static int note_tree(struct trees *t, const char *rel, const char *path)
{
	struct found *grown;
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->f[i].rel, rel)) {
			free(t->f[i].path);
			t->f[i].path = p;
			return 0;
		}
	grown = realloc(t->f, (t->n + 1) * sizeof(*t->f));
	if (!grown) {
		free(p);
		return -ENOMEM;
	}
	t->f = grown;
	t->f[t->n].path = p;
	t->f[t->n].rel = strdup(rel);
	if (!t->f[t->n].rel) {
		free(p);
		return -ENOMEM;
	}
	t->n++;
	return 0;
}

/*
 * The *.dtb of prefix and of its vendor folders (sub: "" or "rockchip/").
 * The root's own dtb and EFI folders are not vendor folders. A folder
 * that is not there holds none; one that does not list is kept in bi.
 */
static int scan(struct trees *t, const char *prefix, const char *sub)
{
	struct imgp_fs *fs = imgp_survey_fs(t->sv, t->sv->boot);
	struct imgp_buf dir = { 0 }, rel = { 0 }, path = { 0 };
	char **names = NULL;
	size_t n = 0;
	int rc;

	rc = imgp_buf_printf(&dir, "%s%s", prefix, sub) ? -ENOMEM : 0;
	if (!rc)
		rc = fs ? imgp_fs_list(fs, (char *)dir.data, &names, &n) : -ENOTSUP;
	if (rc == -ENOENT || rc == -ENOTDIR) {
		imgp_errclear();
		rc = 0;
	} else if (rc && rc != -ENOMEM) {
		t->bi->rc = rc;
		rc = imgp_survey_keep(rc, &t->bi->error) == -ENOMEM && !t->bi->error ? -ENOMEM : 0;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		size_t len = strlen(names[i]);

		rel.len = path.len = 0;
		rc = imgp_buf_printf(&rel, "%s%s", sub, names[i]) ? -ENOMEM : 0;
		if (!rc && len > 4 && !strcmp(names[i] + len - 4, ".dtb")) {
			rc = imgp_buf_printf(&path, "%s%s", prefix, (char *)rel.data) ? -ENOMEM : 0;
			if (!rc)
				rc = note_tree(t, (char *)rel.data, (char *)path.data);
		} else if (!rc && !*sub && !strchr(names[i], '.') &&
			   !(!strcmp(prefix, "/") && (!strcasecmp(names[i], "dtb") ||
						       !strcasecmp(names[i], "efi")))) {
			rc = imgp_buf_printf(&rel, "/") ? -ENOMEM : 0;
			if (!rc)
				rc = scan(t, prefix, (char *)rel.data);
		}
	}
	imgp_fs_list_free(names, n);
	imgp_buf_free(&path);
	imgp_buf_free(&rel);
	imgp_buf_free(&dir);
	return rc;
}

/*
 * The ESP's removable-media loader, with a tree U-Boot would load from one
 * of the prefixes. An ESP with none leaves the tree to the loader it starts
 * (boot loader entries, grub.cfg), tried after this way. Not modelled: a
 * grub.cfg or entry whose own devicetree line replaces the ESP's tree.
 */
static int efi_probe(struct imgp_survey *sv)
{
	static const char *const paths[] = { EFI_LOADER };
	struct imgp_survey_bootinfo scratch = { 0 };
	struct trees t = { .sv = sv, .bi = &scratch };
	int rc = imgp_survey_probe_paths(sv, paths, 1);

	for (size_t i = 0; rc == 1 && i < NPREFIXES; i++)
		if (scan(&t, prefixes[i], "") == -ENOMEM)
			rc = -ENOMEM;
	if (rc == 1 && !t.n && !scratch.rc) {
		sv->boot = NULL;
		rc = 0;
	}
	for (size_t i = 0; i < t.n; i++) {
		free(t.f[i].rel);
		free(t.f[i].path);
	}
	free(t.f);
	free(scratch.error);
	return rc;
}

static int efi_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	const char *fdtfile = sv->uboot.fdtfile && *sv->uboot.fdtfile ? sv->uboot.fdtfile : NULL;
	struct trees t = { .sv = sv, .bi = bi };
	const char *picked = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && i < NPREFIXES; i++)
		rc = scan(&t, prefixes[i], "");
	/* A fdtfile deeper than a vendor folder is looked up as U-Boot does. */
	for (size_t i = 0; !rc && fdtfile && i < NPREFIXES; i++) {
		struct imgp_buf path = { 0 };

		rc = imgp_buf_printf(&path, "%s%s", prefixes[i], fdtfile) ? -ENOMEM : 0;
		if (!rc && imgp_bootinfo_exists(sv, (char *)path.data))
			rc = note_tree(&t, fdtfile, (char *)path.data);
		imgp_buf_free(&path);
	}
	for (size_t i = 0; !rc && i < t.n; i++) {
		struct imgp_survey_bootdt *dt = imgp_bootinfo_add_dt(bi, NULL, t.f[i].path);

		if (!dt)
			rc = -ENOMEM;
		else if (fdtfile && !strcmp(t.f[i].rel, fdtfile)) {
			dt->uboot_default = true;
			picked = dt->path;
		}
	}
	if (!rc)
		bi->chooser = "fdtfile";
	if (!rc)
		rc = imgp_bootinfo_summary(bi, "U-Boot EFI boot of " EFI_LOADER ", tree ${fdtfile} from the last of / /dtb/ /dtb/current/ that has it (%zu tree%s), no overlay list; %s%s%s%s",
					   t.n, t.n == 1 ? "" : "s",
					   fdtfile ? "the image's U-Boot: fdtfile " : "fdtfile: the board's U-Boot's (none in the image)",
					   fdtfile ? fdtfile : "",
					   fdtfile && picked ? " -> " : fdtfile ? " (not there: U-Boot hands over its own tree)" : "",
					   fdtfile && picked ? picked : "");
	for (size_t i = 0; i < t.n; i++) {
		free(t.f[i].rel);
		free(t.f[i].path);
	}
	free(t.f);
	return rc == -ENOMEM ? imgp_fail(ENOMEM, "out of memory") : rc;
}

/*
 * The EFI loader's files that keep the kernel command line: GRUB's (on the
 * ESP a stub that reads the root's), boot loader entries (systemd-boot).
 */
static const char *const loader_files[] = {
	"/EFI/debian/grub.cfg", "/EFI/ubuntu/grub.cfg", "/EFI/BOOT/grub.cfg",
	"/boot/grub/grub.cfg", "/grub/grub.cfg", "/loader/entries", "/boot/loader/entries",
};

static int efi_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		       struct imgp_cmdline_site *site)
{
	struct imgp_buf where = { 0 };
	int rc = 0;

	(void)dt;
	(void)site;
	for (size_t i = 0; !rc && i < sizeof(loader_files) / sizeof(loader_files[0]); i++) {
		const struct imgp_part *part;
		char *error = NULL;

		if (imgp_survey_find(sv, loader_files[i], &part, &error) == 0)
			rc = imgp_buf_printf(&where, "%s" IMGP_PART_FMT ":%s", where.len ? ", " : "",
					     part->number, loader_files[i]) ? -ENOMEM : 0;
		free(error);
	}
	imgp_errclear();
	if (!rc)
		rc = imgp_fail(ENOTSUP, "boot path efi: the kernel command line is the EFI loader's (" EFI_LOADER "), not U-Boot's: %s%s%s",
			       where.len ? "edit it where the loader keeps it (" : "no GRUB configuration or boot loader entry found",
			       where.len ? (char *)where.data : "",
			       where.len ? "; Debian's grub.cfg is made by update-grub from GRUB_CMDLINE_LINUX in /etc/default/grub)" : "");
	else
		rc = imgp_fail(ENOMEM, "out of memory");
	imgp_buf_free(&where);
	return rc;
}

const struct imgp_bootpath imgp_bootpath_efi = {
	.name = "efi",
	.probe = efi_probe,
	.describe = efi_describe,
	.cmdline = efi_cmdline,
};
