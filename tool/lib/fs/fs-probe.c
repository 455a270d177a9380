// SPDX-License-Identifier: MIT
/*
 * Which filesystem each partition holds, through libblkid, and by fs.c's
 * magic table for the filesystems libblkid names but imgpatch does not
 * read.
 */
#include <blkid.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"

/*
 * libblkid ignores a FAT whose geometry is broken. A boot sector that still
 * says it is FAT (a jump, "FAT" in the file-system-type field, 0x55aa) is
 * then called vfat anyway, so that the FAT backend's own checks can say
 * what is wrong with it instead of the partition looking empty.
 */
static void fs_guess_broken_fat(const struct imgp_image *img, struct imgp_part *p)
{
	uint8_t bs[512];

	if (p->size < sizeof(bs) || imgp_part_read_(img, p, 0, bs, sizeof(bs)))
		return;
	imgp_errclear_();
	if ((bs[0] == 0xeb || bs[0] == 0xe9) && bs[510] == 0x55 && bs[511] == 0xaa &&
	    (!memcmp(bs + 0x36, "FAT", 3) || !memcmp(bs + 0x52, "FAT32", 5)))
		snprintf(p->fstype, sizeof(p->fstype), "vfat");
}

static int fs_identify_part(const struct imgp_image *img, struct imgp_part *p)
{
	const char *val;
	blkid_probe pr;
	int rc;

	p->fstype[0] = p->fslabel[0] = p->fsuuid[0] = '\0';
	/*
	 * libblkid reads the file itself: an image unpacked on demand must hold
	 * where superblocks lie, the start of the partition and its end.
	 */
	rc = imgp_image_fill_(img, p->start, p->size < IMGP_PROBE_SPAN ? p->size : IMGP_PROBE_SPAN);
	if (!rc && p->size > IMGP_PROBE_SPAN)
		rc = imgp_image_fill_(img, p->start + p->size - IMGP_PROBE_SPAN, IMGP_PROBE_SPAN);
	if (rc)
		return imgp_fail_ctx(rc, IMGP_PART_FMT, p->number);
	pr = blkid_new_probe();
	if (!pr)
		return imgp_fail(ENOMEM, IMGP_PART_FMT ": out of memory", p->number);
	if (blkid_probe_set_device(pr, img->fd, (blkid_loff_t)p->start,
				   (blkid_loff_t)p->size)) {
		blkid_free_probe(pr);
		return imgp_fail(EIO, IMGP_PART_FMT ": libblkid cannot use the image",
				 p->number);
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID);
	blkid_probe_enable_partitions(pr, 0);
	errno = 0;
	rc = blkid_do_safeprobe(pr);
	if (rc == -1) {
		int err = errno ? errno : EIO;

		blkid_free_probe(pr);
		return imgp_fail(err, IMGP_PART_FMT ": cannot identify the filesystem: %s",
				 p->number, strerror(err));
	}
	if (rc == -2) {
		/* Several signatures: guessing could patch the wrong filesystem. */
		imgp_warn(img->ctx, "%s: " IMGP_PART_FMT ": conflicting filesystem signatures; treating the filesystem as unknown (see wipefs)",
			  img->path, p->number);
	} else if (rc == 0) {
		if (!blkid_probe_lookup_value(pr, "TYPE", &val, NULL))
			imgp_copy_utf8_(p->fstype, sizeof(p->fstype), val);
		if (!blkid_probe_lookup_value(pr, "LABEL", &val, NULL))
			imgp_copy_utf8_(p->fslabel, sizeof(p->fslabel), val);
		if (!blkid_probe_lookup_value(pr, "UUID", &val, NULL))
			imgp_copy_utf8_(p->fsuuid, sizeof(p->fsuuid), val);
	} else {
		const char *type = imgp_fs_magic_type_(img, p);

		if (type)
			snprintf(p->fstype, sizeof(p->fstype), "%s", type);
		else
			fs_guess_broken_fat(img, p);
	}
	blkid_free_probe(pr);
	return 0;
}

int imgp_fs_identify_(const struct imgp_image *img, struct imgp_table *tab)
{
	for (size_t i = 0; i < tab->nparts; i++) {
		struct imgp_part *p = &tab->parts[i];
		int rc;

		/* An extended container holds EBRs, not a filesystem. */
		if (p->container)
			continue;
		rc = fs_identify_part(img, p);
		if (rc)
			return rc;
	}
	return 0;
}
