// SPDX-License-Identifier: MIT
/*
 * One survey of an image (imgpatch.h has the rules): every filesystem is
 * opened once, each fact is looked up once, and a fact that cannot be read
 * keeps its cause instead of stopping the others. The boot paths
 * (bootpath-*.c) recognise themselves here, in the order of the table.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "text/text.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"
#include "disk/disk.h"

/* Upper bounds for files read into memory (the FIT is read piecewise). */
#define SCRIPT_MAX ((size_t)1 << 20)

const char *const imgp_bootscr_paths_[] = { "/boot.scr.uimg", "/boot.scr" };
const size_t imgp_nbootscr_paths_ =
	sizeof(imgp_bootscr_paths_) / sizeof(imgp_bootscr_paths_[0]);
/*
 * Where U-Boot's distro boot looks for the script on the boot partition:
 * each of its boot_prefixes ("/ /boot/") with each name, prefix first. A
 * single root keeps it in /boot/ (Armbian's /boot/boot.scr).
 */
static const char *const script_paths[] = {
	"/boot.scr.uimg", "/boot.scr", "/boot/boot.scr.uimg", "/boot/boot.scr",
};

/*
 * The ways of booting, most specific first; extlinux before the scripts,
 * as U-Boot's distro boot scans a partition, and Armbian's script (known
 * by its armbianEnv.txt) and BeagleBone's /boot/uEnv.txt before any other.
 * The Raspberry Pi firmware runs before any U-Boot it loads, and its tree
 * is the one booted unless a script loads another (bootpath-rpi.c).
 * U-Boot's distro boot tries EFI after extlinux and scripts: its EFI boot
 * of an ESP that holds trees (bootpath-efi.c), then the UEFI loaders'
 * configurations (Boot Loader Specification entries, then GRUB's
 * grub.cfg) for an ESP that holds none.
 */
static const struct imgp_bootpath *const bootpaths[] = {
	&imgp_bootpath_fit_,
	&imgp_bootpath_extlinux_,
	&imgp_bootpath_armbian_,
	&imgp_bootpath_uenv_,
	&imgp_bootpath_rpi_,
	&imgp_bootpath_flash_kernel_,
	&imgp_bootpath_script_,
	&imgp_bootpath_efi_,
	&imgp_bootpath_bls_,
	&imgp_bootpath_grub_,
};

const struct imgp_bootpath *imgp_bootpath_at_(size_t i)
{
	return i < sizeof(bootpaths) / sizeof(bootpaths[0]) ? bootpaths[i] : NULL;
}

const struct imgp_bootpath *imgp_bootpath_named_(const char *name)
{
	for (size_t i = 0; name && i < sizeof(bootpaths) / sizeof(bootpaths[0]); i++)
		if (!strcmp(bootpaths[i]->name, name))
			return bootpaths[i];
	return NULL;
}

const struct imgp_bootpath *imgp_bootpath_loading_(const char *path, const char **pattern)
{
	for (size_t i = 0; i < sizeof(bootpaths) / sizeof(bootpaths[0]); i++)
		for (const char *const *p = bootpaths[i]->loads; p && *p; p++)
			if (fnmatch(*p, path, FNM_CASEFOLD) == 0) {
				*pattern = *p;
				return bootpaths[i];
			}
	return NULL;
}

/* Files that mark a boot partition whose way of booting is no method yet. */
static const char *const boot_markers[] = {
	"/config.txt", "/extlinux/extlinux.conf",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int imgp_survey_keep_(int rc, char **error)
{
	const char *msg = imgp_errmsg();

	free(*error);
	*error = strdup(*msg ? msg : strerror(rc < 0 ? -rc : rc));
	return *error ? rc : imgp_fail(ENOMEM, "out of memory");
}

/*
 * Records a fact's failure: *rcp = rc and the current message in *error.
 * Returns 0, or -ENOMEM when the message cannot be kept.
 */
static int note(int *rcp, char **error, int rc)
{
	*rcp = rc;
	return imgp_survey_keep_(rc, error) == -ENOMEM && !*error ? -ENOMEM : 0;
}

int imgp_survey_fail_(int rc, const char *error)
{
	return imgp_fail(rc < 0 ? -rc : rc, "%s", error ? error : strerror(-rc));
}

static size_t part_index(const struct imgp_survey *sv,
			 const struct imgp_part *part)
{
	return (size_t)(part - sv->disk->tab.parts);
}

struct imgp_ctx *imgp_survey_ctx_(const struct imgp_survey *sv)
{
	return sv->disk ? sv->disk->img.ctx : NULL;
}

struct imgp_fs *imgp_survey_fs_(const struct imgp_survey *sv,
			       const struct imgp_part *part)
{
	size_t i = part_index(sv, part);

	if (i >= sv->disk->tab.nparts || !sv->fs_open[i]) {
		imgp_fail(ENOTSUP, IMGP_PART_FMT " (%s): no filesystem imgpatch reads",
			  part->number, part->fstype);
		return NULL;
	}
	return &sv->fs[i];
}

int imgp_survey_find_(struct imgp_survey *sv, const char *path,
		     const struct imgp_part **part, char **error)
{
	const struct imgp_table *tab = &sv->disk->tab;
	struct imgp_buf searched = { 0 };
	const struct imgp_part *failed = NULL;
	char *failure = NULL;
	size_t broken = tab->nparts;
	int rc = 0, failed_rc = 0;

	*part = NULL;
	for (size_t i = 0; i < tab->nparts && !*part; i++) {
		const struct imgp_part *p = &tab->parts[i];

		if (!sv->fs_open[i] && !sv->fs_rc[i])
			continue;
		imgp_buf_printf(&searched, "%s" IMGP_PART_FMT " (%s)",
				searched.len ? ", " : "", p->number, p->fstype);
		if (!sv->fs_open[i]) {
			broken = broken < i ? broken : i;
			continue;
		}
		rc = imgp_fs_exists_(&sv->fs[i], path);
		if (rc > 0)
			*part = p;
		else if (rc < 0 && !failed) {
			/* A lookup that failed must not hide the file elsewhere. */
			failed = p;
			failed_rc = imgp_survey_keep_(rc, &failure);
			if (failed_rc == -ENOMEM && !failure)
				break;
		}
	}
	if (*part) {
		rc = 0;
		imgp_errclear_();
	} else if (failed && failure) {
		/* Where the file may be and could not be looked for: the news. */
		*part = failed;
		rc = imgp_survey_fail_(failed_rc, failure);
	} else if (failed) {
		rc = -ENOMEM;
	} else if (broken < tab->nparts) {
		rc = imgp_fail(ENOENT, "%s (while looking for %s)",
			       sv->fs_error[broken], path);
	} else {
		rc = imgp_fail(ENOENT, "no partition has %s (searched %s)", path,
			       searched.len ? (char *)searched.data :
					      "no supported filesystem");
	}
	free(failure);
	imgp_buf_free(&searched);
	if (rc && imgp_survey_keep_(rc, error) == -ENOMEM && !*error)
		return -ENOMEM;
	return rc;
}

int imgp_survey_read_file_(struct imgp_fs *fs, const char *path, size_t max,
			  struct imgp_buf *out)
{
	struct imgp_buf target = { 0 };
	char *why;
	int rc;

	rc = imgp_fs_read_file_(fs, path, max, out);
	if (rc != -ENOENT)
		return rc;
	why = strdup(imgp_errmsg());
	if (imgp_fs_readlink_(fs, path, &target) == 0)
		rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: dangling symbolic link to %s",
			       fs->part->number, fs->part->fstype, path,
			       (char *)target.data);
	else
		rc = imgp_fail(ENOENT, "%s", why ? why : "not found");
	imgp_buf_free(&target);
	free(why);
	return rc;
}

int imgp_disk_read_file(struct imgp_disk *disk, const char *part, const char *path,
			size_t max, struct imgp_buf *out)
{
	const struct imgp_part *p = imgp_table_find_(imgp_disk_table_(disk), part);
	struct imgp_fs *fs;
	int rc;

	if (!p)
		return -ENOENT;
	rc = imgp_fs_new_(&fs, imgp_disk_image_(disk), p);
	if (rc)
		return rc;
	rc = imgp_survey_read_file_(fs, path, max, out);
	imgp_fs_free_(fs);
	return rc;
}

/* -------------------------------------------------------------- gathering */

/* A filesystem that does not open (dirty, larger than its partition) is kept as such. */
static int survey_fs(struct imgp_survey *sv)
{
	const struct imgp_table *tab = &sv->disk->tab;
	size_t n = tab->nparts ? tab->nparts : 1;
	int rc;

	sv->fs = calloc(n, sizeof(*sv->fs));
	sv->fs_open = calloc(n, sizeof(*sv->fs_open));
	sv->fs_rc = calloc(n, sizeof(*sv->fs_rc));
	sv->fs_error = calloc(n, sizeof(*sv->fs_error));
	if (!sv->fs || !sv->fs_open || !sv->fs_rc || !sv->fs_error)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *part = &tab->parts[i];

		if (part->container || !part->fstype[0])
			continue;
		rc = imgp_fs_open_(&sv->fs[i], &sv->disk->img, part);
		if (rc == -ENOTSUP) {
			imgp_errclear_();
			continue;
		}
		if (rc) {
			if (note(&sv->fs_rc[i], &sv->fs_error[i], rc))
				return -ENOMEM;
			imgp_debug(imgp_survey_ctx_(sv), "%s: %s", sv->disk->img.path,
				   sv->fs_error[i]);
			continue;
		}
		sv->fs_open[i] = true;
	}
	return 0;
}

/* The boot path that recognises itself, else a partition with a marker. */
static int survey_boot(struct imgp_survey *sv)
{
	struct imgp_buf names = { 0 };
	int rc = 0;

	for (size_t i = 0; i < COUNT(bootpaths) && !sv->boot; i++) {
		rc = bootpaths[i]->probe(sv);
		if (rc < 0)
			return rc;
		if (rc > 0)
			sv->bootpath = bootpaths[i];
	}
	if (!sv->boot) {
		rc = imgp_survey_probe_paths_(sv, boot_markers, COUNT(boot_markers));
		if (rc < 0)
			return rc;
	}
	sv->bootpath_name = sv->bootpath ? sv->bootpath->name : NULL;
	if (sv->boot) {
		sv->boot_rc = 0;
		free(sv->boot_error);
		sv->boot_error = NULL;
		return 0;
	}
	/* A lookup that failed on the way is the reason there is none. */
	if (sv->boot_rc)
		return 0;
	/* "no partition has /image.fit, /boot.scr.uimg, ... or /extlinux/extlinux.conf" */
	rc = imgp_buf_printf(&names, "%s", sv->fit_path);
	for (size_t i = 0; !rc && i < imgp_nbootscr_paths_; i++)
		rc = imgp_buf_printf(&names, ", %s", imgp_bootscr_paths_[i]);
	for (size_t i = 0; !rc && i + 1 < COUNT(boot_markers); i++)
		rc = imgp_buf_printf(&names, ", %s", boot_markers[i]);
	if (!rc)
		rc = imgp_fail(ENOENT, "no boot partition: no partition has %s or %s",
			       (char *)names.data, boot_markers[COUNT(boot_markers) - 1]);
	imgp_buf_free(&names);
	return rc == -ENOENT ? note(&sv->boot_rc, &sv->boot_error, rc) :
			       imgp_fail(ENOMEM, "out of memory");
}

int imgp_survey_boot_cause_(struct imgp_survey *sv, int rc, const char *error)
{
	if (rc == -ENOENT || sv->boot_rc)
		return 0;
	sv->boot_error = strdup(error);
	if (!sv->boot_error)
		return imgp_fail(ENOMEM, "out of memory");
	sv->boot_rc = rc;
	return 0;
}

int imgp_survey_probe_paths_(struct imgp_survey *sv, const char *const *paths,
			    size_t n)
{
	char *error = NULL;
	int rc = 0;

	for (size_t i = 0; i < n && !sv->boot; i++) {
		const struct imgp_part *part;

		rc = imgp_survey_find_(sv, paths[i], &part, &error);
		if (rc == -ENOMEM && !error)
			return rc;
		if (!rc)
			sv->boot = part;
		else
			rc = imgp_survey_boot_cause_(sv, rc, error);
		if (rc)
			break;
	}
	free(error);
	return rc < 0 ? rc : sv->boot != NULL;
}

/*
 * No filesystem imgpatch reads has /etc/fstab: the root is then likely on
 * one it cannot read (btrfs on Fedora and openSUSE, xfs, f2fs, a squashfs
 * read-only root, inside LUKS), and saying so beats "no partition has it".
 * Still -ENOENT: the root is not there to read, which is no error.
 */
static int survey_root_unread(struct imgp_survey *sv)
{
	const struct imgp_table *tab = &sv->disk->tab;

	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];
		char *error;

		if (sv->fs_open[i] || p->container || !imgp_fs_may_hold_root_(p->fstype))
			continue;
		sv->root_unread = p;
		if (asprintf(&error, "%s: " IMGP_PART_FMT " (%s) is likely the root, and %s (%s)",
			     IMGP_FSTAB_PATH, p->number, p->fstype,
			     imgp_fs_encrypted_(p->fstype) ?
			     "it is encrypted: imgpatch opens no LUKS container" :
			     "imgpatch reads and writes only FAT and ext2/3/4",
			     sv->root_error) < 0)
			return imgp_fail(ENOMEM, "out of memory");
		free(sv->root_error);
		sv->root_error = error;
		return 0;
	}
	return 0;
}

static int survey_root(struct imgp_survey *sv)
{
	const struct imgp_part *part;
	int rc = imgp_survey_find_(sv, IMGP_FSTAB_PATH, &part, &sv->root_error);

	if (rc == -ENOMEM && !sv->root_error)
		return rc;
	/* The first with /etc/fstab, as the recipes' "root" has always been. */
	sv->root_rc = rc;
	sv->root = rc ? NULL : part;
	sv->fstab.part = part;
	return rc == -ENOENT ? survey_root_unread(sv) : 0;
}

/* The FIT's structure; its payloads are read when asked for. */
static int survey_fit(struct imgp_survey *sv)
{
	struct imgp_fs *fs;
	int rc;

	if (sv->fit.rc || !sv->fit.part)
		return 0;
	fs = imgp_survey_fs_(sv, sv->fit.part);
	rc = fs ? imgp_fit_load_file_(&sv->fit.fit, fs, sv->fit_path) : -ENOTSUP;
	if (rc)
		return note(&sv->fit.rc, &sv->fit.error, rc);
	sv->fit.parsed = true;
	return 0;
}

static int script_fail(struct imgp_survey *sv, int rc)
{
	return note(&sv->script.rc, &sv->script.error, rc);
}

/*
 * The boot script of the boot partition: U-Boot's order of names. Read
 * once: a boot path's probe may have read it for the partition it tried.
 */
static int survey_script(struct imgp_survey *sv)
{
	const struct imgp_part *part = sv->boot;
	struct imgp_buf buf = { 0 };
	struct imgp_fs *fs;
	int rc = 0;

	if (part && sv->script.part == part)
		return 0;
	if (sv->script.parsed)
		imgp_bootscr_free_(&sv->script.scr);
	free(sv->script.error);
	memset(&sv->script, 0, sizeof(sv->script));
	sv->script.part = part;
	if (!part) {
		sv->script.rc = imgp_fail(ENOENT, "no partition has %s or %s",
					  imgp_bootscr_paths_[0], imgp_bootscr_paths_[1]);
		return script_fail(sv, sv->script.rc);
	}
	fs = imgp_survey_fs_(sv, part);
	if (!fs)
		return script_fail(sv, -ENOTSUP);
	for (size_t i = 0; i < COUNT(script_paths) && !sv->script.path; i++) {
		rc = imgp_fs_exists_(fs, script_paths[i]);
		if (rc < 0)
			return script_fail(sv, rc);
		if (rc > 0)
			sv->script.path = script_paths[i];
	}
	if (!sv->script.path) {
		/* Without a boot path, no partition has one (it would have been one). */
		if (sv->bootpath == &imgp_bootpath_fit_)
			rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s) has no %s or %s next to %s",
				       part->number, part->fstype, imgp_bootscr_paths_[0],
				       imgp_bootscr_paths_[1], sv->fit_path);
		else
			rc = imgp_fail(ENOENT, "no partition has %s or %s",
				       imgp_bootscr_paths_[0], imgp_bootscr_paths_[1]);
		return script_fail(sv, rc);
	}
	rc = imgp_survey_read_file_(fs, sv->script.path, SCRIPT_MAX, &buf);
	if (rc) {
		imgp_buf_free(&buf);
		return script_fail(sv, rc);
	}
	sv->script.size = buf.len;
	rc = imgp_bootscr_parse_(&sv->script.scr, buf.data, buf.len);
	imgp_buf_free(&buf);
	sv->script.parse_rc = rc;
	if (rc)
		return script_fail(sv, imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s",
						     part->number, part->fstype,
						     sv->script.path));
	sv->script.parsed = true;
	sv->script.loads_override = imgp_bootscr_mentions_(&sv->script.scr,
							  IMGP_OVERRIDE_NAME);
	return 0;
}

static int override_fail(struct imgp_survey *sv, int rc)
{
	return note(&sv->override.rc, &sv->override.error, rc);
}

/*
 * The hook file on the boot path's partition; with no boot path (nothing
 * that would load it), wherever it is, so that a tree written there is
 * still shown.
 */
static int survey_override(struct imgp_survey *sv, bool read)
{
	struct imgp_fs *fs;
	int rc;

	bool honours = sv->bootpath && sv->bootpath->hook;

	sv->override.part = honours ? sv->boot : NULL;
	if (!honours) {
		rc = imgp_survey_find_(sv, IMGP_OVERRIDE_PATH, &sv->override.part,
				      &sv->override.error);
		if (rc == -ENOMEM && !sv->override.error)
			return rc;
		sv->override.rc = rc;
		if (rc == -ENOENT)
			sv->override.part = NULL;
		else if (!rc)
			sv->override.exists = true;
	} else {
		fs = imgp_survey_fs_(sv, sv->boot);
		rc = fs ? imgp_fs_exists_(fs, IMGP_OVERRIDE_PATH) : -ENOTSUP;
		if (rc < 0)
			return override_fail(sv, rc);
		sv->override.exists = rc > 0;
		if (!sv->override.exists)
			return override_fail(sv, imgp_fail(ENOENT, "not on " IMGP_PART_FMT,
							   sv->boot->number));
	}
	if (!sv->override.exists || !read)
		return 0;
	fs = imgp_survey_fs_(sv, sv->override.part);
	rc = fs ? imgp_survey_read_file_(fs, IMGP_OVERRIDE_PATH, IMGP_DTB_MAX,
					&sv->override.data) : -ENOTSUP;
	if (rc) {
		imgp_buf_free(&sv->override.data);
		return override_fail(sv, rc);
	}
	return 0;
}

/* ------------------------------------------------------------------ trees */

/* Each payload is read once to verify its hashes: one in memory at a time. */
static int survey_hashes(struct imgp_survey *sv)
{
	struct imgp_fit *fit = &sv->fit.fit;

	sv->fit.hash = calloc(fit->nimages ? fit->nimages : 1, sizeof(*sv->fit.hash));
	if (!sv->fit.hash)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < fit->nimages; i++) {
		struct imgp_survey_hash *h = &sv->fit.hash[i];
		int rc;

		if (!fit->images[i].hash_algos[0])
			continue;
		rc = imgp_fit_verify_(fit, &fit->images[i]);
		if (!rc) {
			h->state = IMGP_HASH_OK;
			continue;
		}
		/* -ENOTSUP: not known to be bad. */
		h->state = rc == -ENOTSUP ? IMGP_HASH_UNSUPPORTED : IMGP_HASH_BAD;
		if (note(&rc, &h->error, rc))
			return -ENOMEM;
	}
	return 0;
}

static int tree_fail(struct imgp_survey_tree *t, int rc)
{
	int ignored;

	t->state = IMGP_TREE_ERROR;
	return note(&ignored, &t->error, rc);
}

static int tree_list_mmc(struct imgp_survey *sv, struct imgp_survey_tree *t,
			 const struct imgp_dtb *dtb)
{
	struct imgp_buf warnings = { 0 };
	int rc = imgp_dt_list_mmc_(dtb, &t->mmc, &t->nmmc, &warnings);

	imgp_warn_lines_(imgp_survey_ctx_(sv), (const char *)warnings.data);
	imgp_buf_free(&warnings);
	return rc ? tree_fail(t, rc) : 0;
}

static int tree_mmc(struct imgp_survey *sv, struct imgp_survey_tree *t, const void *blob,
		    size_t size)
{
	struct imgp_dtb dtb;
	int rc;

	rc = imgp_dtb_load_(&dtb, blob, size);
	if (rc)
		return tree_fail(t, rc);
	rc = tree_list_mmc(sv, t, &dtb);
	imgp_dtb_free_(&dtb);
	return rc;
}

static int tree_fit(struct imgp_survey *sv, struct imgp_survey_tree *t, size_t i)
{
	const struct imgp_fit_image *img = &sv->fit.fit.images[i];
	const struct imgp_survey_hash *h = &sv->fit.hash[i];
	const uint8_t *data;
	size_t size;
	int rc;

	t->image = img;
	if (strcmp(img->compression, "none") != 0) {
		t->state = IMGP_TREE_COMPRESSED;
		return 0;
	}
	/* Already reported with the image: counting it twice would mislead. */
	if (h->state == IMGP_HASH_BAD || h->state == IMGP_HASH_UNSUPPORTED) {
		t->state = IMGP_TREE_SKIPPED;
		t->error = strdup(h->error);
		return t->error ? 0 : imgp_fail(ENOMEM, "out of memory");
	}
	rc = imgp_fit_payload_(&sv->fit.fit, img, &data, &size);
	if (rc)
		return tree_fail(t, rc);
	return tree_mmc(sv, t, data, size);
}

static int survey_trees(struct imgp_survey *sv)
{
	const struct imgp_fit *fit = &sv->fit.fit;
	bool override = sv->override.exists && !sv->override.rc;
	size_t n = 0;
	int rc = 0;

	if (sv->fit.parsed)
		for (size_t i = 0; i < fit->nimages; i++)
			n += strcmp(fit->images[i].type, "flat_dt") == 0;
	n += override;
	sv->trees = calloc(n ? n : 1, sizeof(*sv->trees));
	if (!sv->trees)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; sv->fit.parsed && !rc && i < fit->nimages; i++)
		if (strcmp(fit->images[i].type, "flat_dt") == 0)
			rc = tree_fit(sv, &sv->trees[sv->ntrees++], i);
	if (!rc && override)
		rc = tree_mmc(sv, &sv->trees[sv->ntrees++], sv->override.data.data,
			      sv->override.data.len);
	return rc;
}

/*
 * The trees the board boots (effective.c), each with the warnings met
 * building it (a report shows them where they belong; a command logs those
 * of the trees it touches); with the controllers, each one's, or why the
 * boot ends with no tree.
 */
static int survey_effective(struct imgp_survey *sv, bool controllers)
{
	int rc = imgp_effective_build_(sv, &sv->effective, &sv->neffective);

	if (rc || !controllers)
		return rc;
	sv->effective_trees = calloc(sv->neffective ? sv->neffective : 1,
				     sizeof(*sv->effective_trees));
	if (!sv->effective_trees)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < sv->neffective; i++) {
		const struct imgp_effective *e = &sv->effective[i];
		struct imgp_survey_tree *t = &sv->effective_trees[i];

		t->image = e->image;
		if (e->dtb.fdt) {
			rc = tree_list_mmc(sv, t, &e->dtb);
			continue;
		}
		t->state = e->rc == -ENOENT && !e->failed ? IMGP_TREE_MISSING :
							    IMGP_TREE_ERROR;
		t->error = strdup(e->error ? e->error : strerror(-e->rc));
		if (!t->error)
			rc = imgp_fail(ENOMEM, "out of memory");
	}
	return rc;
}

/* ------------------------------------------------------------------ fstab */

static int fstab_fail(struct imgp_survey *sv, int rc)
{
	return note(&sv->fstab.rc, &sv->fstab.error, rc);
}

static int survey_fstab(struct imgp_survey *sv)
{
	struct imgp_buf buf = { 0 };
	struct imgp_fs *fs;
	size_t len;
	int rc;

	/* Read once: a boot path may have asked for it first. */
	if (sv->fstab.text || sv->fstab.rc)
		return 0;
	if (!sv->root) {
		imgp_fail(-sv->root_rc, "%s", sv->root_error);
		return fstab_fail(sv, sv->root_rc);
	}
	fs = imgp_survey_fs_(sv, sv->root);
	rc = fs ? imgp_survey_read_file_(fs, IMGP_FSTAB_PATH, IMGP_TEXT_MAX, &buf) :
		  -ENOTSUP;
	if (rc) {
		imgp_buf_free(&buf);
		return fstab_fail(sv, rc);
	}
	sv->fstab.text = (char *)imgp_buf_steal_(&buf, &len);
	sv->fstab.len = len;
	imgp_buf_free(&buf);
	if (!sv->fstab.text)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_fstab_get_(sv->fstab.text, sv->fstab.len, "/", &sv->fstab.root);
	sv->fstab.root_rc = rc;
	if (rc && rc != -ENOENT)
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): " IMGP_FSTAB_PATH,
			      sv->root->number, sv->root->fstype);
	return rc ? note(&sv->fstab.root_rc, &sv->fstab.root_error, rc) : 0;
}

const struct imgp_part *imgp_survey_spec_part_(const struct imgp_survey *sv, const char *spec)
{
	static const char *const keys[] = { "LABEL=", "UUID=", "PARTUUID=", "PARTLABEL=" };
	const struct imgp_table *tab = &sv->disk->tab;

	for (size_t k = 0; k < COUNT(keys); k++) {
		const char *v = spec + strlen(keys[k]);

		if (strncmp(spec, keys[k], strlen(keys[k])) != 0)
			continue;
		for (size_t i = 0; i < tab->nparts; i++) {
			const struct imgp_part *p = &tab->parts[i];
			const char *have[] = { p->fslabel, p->fsuuid, p->uuid, p->name };

			if (*have[k] && strcasecmp(v, have[k]) == 0)
				return p;
		}
	}
	return NULL;
}

int imgp_survey_script_(struct imgp_survey *sv)
{
	return survey_script(sv);
}

int imgp_survey_boot_mounted_(struct imgp_survey *sv)
{
	struct imgp_fstab_entry e = { 0 };
	bool mounted;
	int rc;

	if (!sv->boot || !sv->root || sv->boot == sv->root)
		return 0;
	rc = survey_fstab(sv);
	if (rc || !sv->fstab.text)
		return rc;
	rc = imgp_fstab_get_(sv->fstab.text, sv->fstab.len, "/boot", &e);
	if (rc) {
		imgp_errclear_();
		return 0;
	}
	mounted = imgp_survey_spec_part_(sv, e.spec) == sv->boot;
	imgp_fstab_entry_free_(&e);
	return mounted;
}

/* ------------------------------------------------------------------- api */

int imgp_survey_open_(struct imgp_survey *sv, struct imgp_disk *disk,
		     const struct imgp_survey_opts *opts)
{
	unsigned what = opts ? opts->what : 0;
	int rc;

	memset(sv, 0, sizeof(*sv));
	sv->disk = disk;
	sv->fit_path = opts && opts->fit_path ? opts->fit_path : IMGP_FIT_PATH;
	if (what & (IMGP_SURVEY_TREES | IMGP_SURVEY_EFFECTIVE))
		what |= IMGP_SURVEY_BOOT;
	rc = survey_fs(sv);
	/* The root first: a probe may ask whether it mounts the boot partition. */
	if (!rc)
		rc = survey_root(sv);
	if (!rc)
		rc = survey_boot(sv);
	if (!rc && (what & IMGP_SURVEY_BOOT)) {
		rc = imgp_uboot_read_(&disk->img, &disk->tab, &sv->uboot);
		if (!rc)
			rc = survey_fit(sv);
		if (!rc)
			rc = survey_script(sv);
		if (!rc)
			rc = survey_override(sv, what & IMGP_SURVEY_TREES);
		sv->hook = sv->bootpath && sv->bootpath->hook ?
				   sv->bootpath->hook(sv) : NULL;
		sv->hook_loaded = sv->hook && sv->script.parsed &&
				  imgp_bootscr_mentions_(&sv->script.scr, sv->hook);
		if (!rc && sv->bootpath && sv->bootpath->describe)
			rc = sv->bootpath->describe(sv, &sv->bootinfo);
	}
	if (!rc && (what & IMGP_SURVEY_TREES) && sv->fit.parsed)
		rc = survey_hashes(sv);
	if (!rc && (what & IMGP_SURVEY_TREES))
		rc = survey_trees(sv);
	if (!rc && (what & IMGP_SURVEY_EFFECTIVE))
		rc = survey_effective(sv, what & IMGP_SURVEY_TREES);
	if (!rc && (what & IMGP_SURVEY_FSTAB))
		rc = survey_fstab(sv);
	if (rc) {
		imgp_survey_close_(sv);
		/* Else a broken overlay (effective.c): nothing to survey there. */
		return rc == -ENOMEM ? imgp_fail(ENOMEM, "out of memory") : rc;
	}
	imgp_errclear_();
	return 0;
}

void imgp_survey_close_(struct imgp_survey *sv)
{
	size_t nparts = sv->disk ? sv->disk->tab.nparts : 0;

	for (size_t i = 0; i < sv->ntrees; i++) {
		free(sv->trees[i].error);
		free(sv->trees[i].mmc);
	}
	free(sv->trees);
	for (size_t i = 0; sv->effective_trees && i < sv->neffective; i++) {
		free(sv->effective_trees[i].error);
		free(sv->effective_trees[i].mmc);
	}
	free(sv->effective_trees);
	imgp_effective_free_(sv->effective, sv->neffective);
	imgp_bootinfo_free_(&sv->bootinfo);
	if (sv->generator)
		imgp_uboot_menu_free_(sv->generator);
	free(sv->generator);
	imgp_uboot_free_(&sv->uboot);
	if (sv->fit.hash)
		for (size_t i = 0; i < sv->fit.fit.nimages; i++)
			free(sv->fit.hash[i].error);
	free(sv->fit.hash);
	if (sv->fit.parsed)
		imgp_fit_free_(&sv->fit.fit);
	free(sv->fit.error);
	if (sv->script.parsed)
		imgp_bootscr_free_(&sv->script.scr);
	free(sv->script.error);
	imgp_buf_free(&sv->override.data);
	free(sv->override.error);
	free(sv->fstab.error);
	free(sv->fstab.text);
	if (!sv->fstab.root_rc && sv->fstab.text)
		imgp_fstab_entry_free_(&sv->fstab.root);
	free(sv->fstab.root_error);
	free(sv->boot_error);
	free(sv->root_error);
	for (size_t i = 0; i < nparts; i++) {
		if (sv->fs_open && sv->fs_open[i])
			imgp_fs_close_(&sv->fs[i]);
		if (sv->fs_error)
			free(sv->fs_error[i]);
	}
	free(sv->fs);
	free(sv->fs_open);
	free(sv->fs_rc);
	free(sv->fs_error);
	memset(sv, 0, sizeof(*sv));
}

int imgp_survey_new(struct imgp_survey **sv, struct imgp_disk *disk,
		    const struct imgp_survey_opts *opts)
{
	int rc;

	*sv = calloc(1, sizeof(**sv));
	if (!*sv)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_survey_open_(*sv, disk, opts);
	if (rc) {
		free(*sv);
		*sv = NULL;
	}
	return rc;
}

void imgp_survey_free(struct imgp_survey *sv)
{
	if (!sv)
		return;
	imgp_survey_close_(sv);
	free(sv);
}
