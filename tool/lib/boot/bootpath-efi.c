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
 * The loader applies no overlay list. What it reads is the knowledge of
 * the paths of its configuration (struct imgp_efi_loader: boot loader
 * entries, then GRUB's grub.cfg, in the survey's order):
 *
 *  - the kernel command line is the loader's: the one the entry it boots
 *    hands over, where that path keeps it (GRUB's grub.cfg on the root,
 *    which the ESP's /EFI/debian/grub.cfg stub loads with configfile);
 *  - an entry with a devicetree line replaces the tree U-Boot handed over:
 *    GRUB's devicetree command (grub-core/loader/efi/fdt.c) loads the file
 *    and installs it as the EFI FDT configuration table before the kernel
 *    starts, as systemd-boot's devicetree key does (src/boot/efi/
 *    devicetree.c). That image is then the loader's path's, which the
 *    survey tries next. Not modelled: under UEFI Secure Boot GRUB's
 *    lockdown disables its devicetree command (U-Boot boards seldom
 *    enforce it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "boot/boot.h"
#include "boot/bootpath.h"

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
	struct imgp_fs *fs = imgp_survey_fs_(t->sv, t->sv->boot);
	struct imgp_buf dir = { 0 }, rel = { 0 }, path = { 0 };
	char **names = NULL;
	size_t n = 0;
	int rc;

	rc = imgp_buf_printf(&dir, "%s%s", prefix, sub) ? -ENOMEM : 0;
	if (!rc)
		rc = fs ? imgp_fs_list_(fs, (char *)dir.data, &names, &n) : -ENOTSUP;
	if (rc == -ENOENT || rc == -ENOTDIR) {
		imgp_errclear_();
		rc = 0;
	} else if (rc && rc != -ENOMEM) {
		t->bi->rc = rc;
		rc = imgp_survey_keep_(rc, &t->bi->error) == -ENOMEM && !t->bi->error ? -ENOMEM : 0;
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
	imgp_fs_list_free_(names, n);
	imgp_buf_free(&path);
	imgp_buf_free(&rel);
	imgp_buf_free(&dir);
	return rc;
}

/* The EFI loaders' configurations, in the order the survey tries their paths. */
static const struct imgp_efi_loader *const loaders[] = {
	&imgp_efi_loader_bls_,
	&imgp_efi_loader_grub_,
};
#define NLOADERS (sizeof(loaders) / sizeof(loaders[0]))

/* The configuration the ESP's loader reads: 1 with *loader and *part, 0: none, -ENOMEM. */
static int loader_of(struct imgp_survey *sv, const struct imgp_efi_loader **loader,
		     const struct imgp_part **part)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < NLOADERS; i++) {
		rc = loaders[i]->find(sv, part);
		*loader = loaders[i];
	}
	return rc;
}

/*
 * The ESP's removable-media loader, with a tree U-Boot would load from one
 * of the prefixes. An ESP with none leaves the tree to the loader it starts
 * (boot loader entries, grub.cfg), tried after this way, and so does one
 * whose loader boots an entry with its own devicetree line.
 */
static int efi_probe(struct imgp_survey *sv)
{
	static const char *const paths[] = { EFI_LOADER };
	struct imgp_survey_bootinfo scratch = { 0 };
	struct trees t = { .sv = sv, .bi = &scratch };
	const struct imgp_efi_loader *loader;
	const struct imgp_part *part;
	char *dt = NULL;
	int rc = imgp_survey_probe_paths_(sv, paths, 1), own = 0;

	for (size_t i = 0; rc == 1 && i < NPREFIXES; i++)
		if (scan(&t, prefixes[i], "") == -ENOMEM)
			rc = -ENOMEM;
	if (rc == 1 && (t.n || scratch.rc)) {
		own = loader_of(sv, &loader, &part);
		if (own == 1)
			own = loader->devicetree(sv, part, &dt);
		if (own < 0)
			rc = own;
	}
	if (rc == 1 && ((!t.n && !scratch.rc) || own == 1)) {
		imgp_debug(imgp_survey_ctx_(sv), "boot path efi: %s%s",
			   own == 1 ? "the loader's entry names its own devicetree " :
			   "no tree on the ESP", own == 1 ? dt : "");
		sv->boot = NULL;
		rc = 0;
	}
	free(dt);
	for (size_t i = 0; i < t.n; i++) {
		free(t.f[i].rel);
		free(t.f[i].path);
	}
	free(t.f);
	free(scratch.error);
	return rc;
}

/* What rewrites the configuration of the loader the ESP starts. 0 or -ENOMEM. */
static int describe_updates(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	const struct imgp_efi_loader *loader;
	const struct imgp_part *part;
	int rc = loader_of(sv, &loader, &part);

	if (rc <= 0)
		return rc;
	if (asprintf(&bi->updates, "the EFI loader's kernel command line (%s, " IMGP_PART_FMT "): %s",
		     loader->name, part->number, loader->updates) < 0) {
		bi->updates = NULL;
		return -ENOMEM;
	}
	return 0;
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
		if (!rc && imgp_bootinfo_exists_(sv, (char *)path.data))
			rc = note_tree(&t, fdtfile, (char *)path.data);
		imgp_buf_free(&path);
	}
	for (size_t i = 0; !rc && i < t.n; i++) {
		struct imgp_survey_bootdt *dt = imgp_bootinfo_add_dt_(bi, NULL, t.f[i].path);

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
		rc = describe_updates(sv, bi);
	if (!rc)
		rc = imgp_bootinfo_summary_(bi, "U-Boot EFI boot of " EFI_LOADER ", tree ${fdtfile} from the last of / /dtb/ /dtb/current/ that has it (%zu tree%s), no overlay list; %s%s%s%s",
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

/* The kernel command line of the entry the ESP's loader boots, where its path keeps it. */
static int efi_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		       struct imgp_cmdline_site *site)
{
	const struct imgp_efi_loader *loader;
	const struct imgp_part *part;
	int rc = loader_of(sv, &loader, &part);

	(void)dt;
	if (rc == 0)
		return imgp_fail(ENOENT, "boot path efi: the kernel command line is the EFI loader's (" EFI_LOADER "), and no partition has a boot loader entry or GRUB's grub.cfg");
	if (rc < 0)
		return rc;
	rc = loader->cmdline(sv, part, site);
	return rc == -ENOMEM ? rc : rc ? imgp_fail_ctx(rc, "boot path efi: %s", loader->name) : 0;
}

/* The EFI binaries the firmware starts, and their folder. */
static const char *const efi_loads[] = {
	"*.efi", "*/EFI/*", NULL,
};

const struct imgp_bootpath imgp_bootpath_efi_ = {
	.name = "efi",
	.loads = efi_loads,
	.probe = efi_probe,
	.describe = efi_describe,
	.cmdline = efi_cmdline,
};
