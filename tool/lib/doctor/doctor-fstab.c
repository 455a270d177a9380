// SPDX-License-Identifier: MIT
/*
 * /etc/fstab of the root partition: mount options that cost flash
 * performance (online discard, access-time writes), swap on the card, and
 * whether fstrim.timer trims it instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"
#include "boot/bootpath.h"
#include "disk/disk.h"

#define FSTRIM_WANTS "/etc/systemd/system/timers.target.wants/fstrim.timer"

static const char *const flash_fs[] = {
	"ext2", "ext3", "ext4", "f2fs", "btrfs", "xfs", "vfat", "exfat",
};

static const char swap_cost[] =
	"paging does small random writes, the slowest thing a card does (often under 1 MB/s), and wears it";

static const char *const fstrim_units[] = {
	"/lib/systemd/system/fstrim.timer", "/usr/lib/systemd/system/fstrim.timer",
};

static bool is_flash_fs(const char *type)
{
	for (size_t i = 0; i < sizeof(flash_fs) / sizeof(flash_fs[0]); i++)
		if (strcmp(type, flash_fs[i]) == 0)
			return true;
	return false;
}

/*
 * True when the comma list opts holds name: alone or as name=anything when
 * value is NULL, else exactly name=value.
 */
static bool has_opt(const char *opts, const char *name, const char *value)
{
	size_t n = strlen(name);

	for (const char *p = opts; *p;) {
		size_t len = strcspn(p, ",");

		if (len >= n && strncmp(p, name, n) == 0) {
			if (len == n && !value)
				return true;
			if (len > n && p[n] == '=' &&
			    (!value || (len - n - 1 == strlen(value) &&
					strncmp(p + n + 1, value, len - n - 1) == 0)))
				return true;
		}
		p += len + (p[len] == ',');
	}
	return false;
}

/* Online discard: "discard", or btrfs's "discard=sync" (its async mode batches). */
static bool has_discard(const char *opts)
{
	return has_opt(opts, "discard", NULL) && !has_opt(opts, "discard", "async");
}

/* Entries on the card: a partition of the image, /dev/mmcblk*, or the root. */
static bool on_card(const struct doctor *d, const struct imgp_fstab_entry *e)
{
	return imgp_survey_spec_part_(&d->sv, e->spec) ||
	       strncmp(e->spec, "/dev/mmcblk", 11) == 0 || strcmp(e->file, "/") == 0;
}

static struct imgp_finding *fstab_finding(struct doctor *d,
					  enum doctor_finding_id id,
					  const struct imgp_fstab_entry *e,
					  const char *prop)
{
	struct imgp_finding *f = imgp_doctor_add_(d, id);
	int rc;

	if (!f)
		return NULL;
	f->partition = d->sv.root->number;
	f->line = e->line;
	rc = imgp_doctor_set_(&f->file, IMGP_FSTAB_PATH);
	if (!rc && prop)
		rc = imgp_doctor_set_(&f->property, "%s", prop);
	return rc ? NULL : f;
}

/* fstab-noatime needs the root's fstrim.timer unit to link to. */
static int fstrim_unit(struct doctor *d)
{
	int rc = 0;

	for (size_t i = 0; i < sizeof(fstrim_units) / sizeof(fstrim_units[0]) && !rc; i++)
		rc = imgp_doctor_exists_(d, d->sv.root, fstrim_units[i]);
	return rc;
}

static int recipe_noatime(struct doctor *d, struct imgp_finding *f,
			  const struct imgp_fstab_entry *e)
{
	int rc;

	if (strcmp(e->file, "/") != 0)
		return 0;
	rc = fstrim_unit(d);
	if (rc <= 0)
		return rc;
	f->recipe = "fstab-noatime";
	return imgp_doctor_set_(&f->recipe_args, "%s", "");
}

static int fstab_edit(struct imgp_finding *f, const struct imgp_fstab_entry *e,
		      const char *ops)
{
	struct imgp_buf b = { 0 };
	char *arg;
	int rc;

	if (asprintf(&arg, "%s:%s", e->file, ops) < 0)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_buf_printf(&b, "--fstab ");
	if (!rc)
		rc = imgp_shell_quote_(&b, arg);
	if (!rc)
		rc = imgp_doctor_set_(&f->patch_args, "%s", (char *)b.data);
	free(arg);
	imgp_buf_free(&b);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

static int check_discard(struct doctor *d, const struct imgp_fstab_entry *e)
{
	struct imgp_finding *f;
	int rc;

	if (!is_flash_fs(e->vfstype) || !on_card(d, e) || !has_discard(e->options))
		return 0;
	f = fstab_finding(d, DOCTOR_FSTAB_DISCARD, e, "discard");
	if (!f)
		return -ENOMEM;
	rc = imgp_doctor_set_(&f->title, "%s (%s) is mounted with discard: a TRIM for every delete",
			e->file, e->vfstype);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "every delete waits for the card to erase: slow deletes and unpacks, write stalls on SD cards and eMMC");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "drop discard from %s and trim weekly with fstrim.timer instead",
				e->file);
	if (!rc)
		rc = fstab_edit(f, e, "-discard");
	if (!rc)
		rc = recipe_noatime(d, f, e);
	return rc;
}

static int check_atime(struct doctor *d, const struct imgp_fstab_entry *e)
{
	struct imgp_finding *f;
	int rc;

	if (strcmp(e->file, "/") != 0 || !is_flash_fs(e->vfstype) ||
	    has_opt(e->options, "noatime", NULL) || has_opt(e->options, "relatime", NULL) ||
	    has_opt(e->options, "lazytime", NULL))
		return 0;
	f = fstab_finding(d, DOCTOR_FSTAB_ATIME, e, NULL);
	if (!f)
		return -ENOMEM;
	rc = imgp_doctor_set_(&f->title, "/ (%s) makes no access-time choice (%s)", e->vfstype,
			e->options);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, has_opt(e->options, "strictatime", NULL) ?
				"strictatime: every file read writes its inode" :
				"the kernel default (relatime) still writes an inode on the first read after a change, and daily");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "mount / with noatime");
	if (!rc)
		rc = fstab_edit(f, e, "+noatime");
	if (!rc)
		rc = recipe_noatime(d, f, e);
	return rc;
}

static int check_swap(struct doctor *d, const struct imgp_fstab_entry *e)
{
	const struct imgp_part *p = imgp_survey_spec_part_(&d->sv, e->spec);
	struct imgp_finding *f;
	int rc;

	if (strcmp(e->vfstype, "swap") != 0)
		return 0;
	f = fstab_finding(d, DOCTOR_SWAP_ON_SD, e, NULL);
	if (!f)
		return -ENOMEM;
	if (p)
		rc = imgp_doctor_set_(&f->title, "swap on the card: %s (" IMGP_PART_FMT ")",
				e->spec, p->number);
	else
		rc = imgp_doctor_set_(&f->title, "swap on the card: %s", e->spec);
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "%s", swap_cost);
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "remove the swap line from /etc/fstab; use zram (compressed swap in RAM) instead");
	return rc;
}

/* A swap partition no fstab line mentions may still be activated (systemd's gpt-auto). */
static int check_swap_parts(struct doctor *d, bool fstab_swap)
{
	const struct imgp_table *tab = imgp_disk_table_(d->sv.disk);
	int rc = 0;

	for (size_t i = 0; i < tab->nparts && !rc && !fstab_swap; i++) {
		const struct imgp_part *p = &tab->parts[i];
		struct imgp_finding *f;

		if (strcmp(p->fstype, "swap") != 0)
			continue;
		f = imgp_doctor_add_(d, DOCTOR_SWAP_ON_SD);
		if (!f)
			return -ENOMEM;
		f->partition = p->number;
		rc = imgp_doctor_set_(&f->title, "swap partition " IMGP_PART_FMT " on the card", p->number);
		if (!rc)
			rc = imgp_doctor_set_(&f->cost, "%s", swap_cost);
		if (!rc)
			rc = imgp_doctor_set_(&f->hint, "do not activate it; use zram (compressed swap in RAM) instead");
	}
	return rc;
}

static int check_fstrim(struct doctor *d, const struct imgp_fstab_entry *root)
{
	struct imgp_finding *f;
	int rc;

	if (!root || has_discard(root->options))
		return 0;
	rc = fstrim_unit(d);
	if (rc <= 0)
		return rc;     /* no systemd unit to enable */
	rc = imgp_doctor_exists_(d, d->sv.root, FSTRIM_WANTS);
	if (rc)
		return rc < 0 ? rc : 0;
	f = imgp_doctor_add_(d, DOCTOR_FSTRIM_TIMER_OFF);
	if (!f)
		return -ENOMEM;
	f->partition = d->sv.root->number;
	rc = imgp_doctor_set_(&f->file, FSTRIM_WANTS);
	if (!rc)
		rc = imgp_doctor_set_(&f->title, "fstrim.timer is not enabled and / has no discard: the card is never trimmed");
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "the card does not learn which blocks are free: writes slow down as it fills (garbage collection)");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "enable fstrim.timer (a link in timers.target.wants)");
	if (!rc) {
		f->recipe = "fstab-noatime";
		rc = imgp_doctor_set_(&f->recipe_args, "%s", "");
	}
	return rc;
}

int imgp_doctor_check_fstab_(struct doctor *d)
{
	struct imgp_fstab_entry *e, *root = NULL;
	bool swap = false;
	size_t n;
	int rc;

	if (!d->sv.fstab.text)
		return check_swap_parts(d, false);
	rc = imgp_fstab_list_(d->sv.fstab.text, d->sv.fstab.len, &e, &n);
	if (rc)
		return imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): /etc/fstab", d->sv.root->number,
				     d->sv.root->fstype);
	for (size_t i = 0; i < n && !rc; i++) {
		rc = check_discard(d, &e[i]);
		if (!rc)
			rc = check_atime(d, &e[i]);
		if (!rc)
			rc = check_swap(d, &e[i]);
		swap |= strcmp(e[i].vfstype, "swap") == 0;
		/* mount(8) lets a later line win. */
		if (strcmp(e[i].file, "/") == 0)
			root = &e[i];
	}
	if (!rc)
		rc = check_swap_parts(d, swap);
	if (!rc)
		rc = check_fstrim(d, root);
	imgp_fstab_list_free_(e, n);
	return rc;
}
