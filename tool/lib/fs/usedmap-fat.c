// SPDX-License-Identifier: MIT
/*
 * The used part of a FAT filesystem, read from the FAT itself: the reserved
 * sectors, every FAT and the FAT12/16 root directory always, then each data
 * cluster whose FAT entry is not zero (in a chain, end of chain or marked
 * bad). A free cluster's content is never read by a FAT driver or fsck, so
 * a card may keep whatever it held there.
 */
#include <errno.h>
#include <stdlib.h>

#include "imgpatch-internal.h"
#include "core/endian.h"

/* FAT types by cluster count, as the specification defines them. */
#define FAT12_MAX_CLUSTERS 4084
#define FAT16_MAX_CLUSTERS 65524

/* The entry of cluster c: 12, 16 or 28 bits (FAT32's top 4 are reserved). */
static uint32_t fat_entry(const uint8_t *fat, uint64_t c, unsigned bits)
{
	uint16_t v;

	if (bits == 32)
		return get_le32(fat + 4 * c) & 0x0fffffff;
	if (bits == 16)
		return get_le16(fat + 2 * c);
	v = get_le16(fat + c + c / 2);
	return c & 1 ? v >> 4 : v & 0xfff;
}

int imgp_usedmap_fat(const struct imgp_image *img, const struct imgp_part *part,
		     struct imgp_fsmap *m)
{
	struct imgp_fat_geom g;
	uint64_t fat_off, fat_len, need, run_start = 0;
	uint8_t bs[512], *fat = NULL;
	unsigned bits;
	bool in_run = false;
	int rc;

	rc = imgp_part_read(img, part, 0, bs, sizeof(bs));
	if (!rc)
		rc = imgp_fat_geometry(bs, part->size, &g);
	if (rc)
		return rc;
	fat_off = (uint64_t)get_le16(bs + 14) * get_le16(bs + 11);
	fat_len = (uint64_t)(get_le16(bs + 22) ? get_le16(bs + 22) : get_le32(bs + 36)) *
		  get_le16(bs + 11);
	bits = g.nclusters <= FAT12_MAX_CLUSTERS ? 12 :
	       g.nclusters <= FAT16_MAX_CLUSTERS ? 16 : 32;
	/* Entries 0 and 1 are reserved; data clusters are numbered from 2. */
	need = bits == 12 ? (g.nclusters + 2) * 3 / 2 + 1 : (g.nclusters + 2) * bits / 8;
	/* A FAT12's last entry may share its last byte with nothing. */
	if (need > fat_len + 1)
		return imgp_fail(EINVAL, "FAT of %llu bytes cannot hold %llu clusters",
				 (unsigned long long)fat_len, (unsigned long long)g.nclusters);
	fat = calloc(1, need);
	if (!fat)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_part_read(img, part, fat_off, fat, need < fat_len ? need : fat_len);
	if (!rc)
		rc = imgp_fsmap_add(m, part->start, part->start + g.meta_end);
	for (uint64_t c = 2; !rc && c < g.nclusters + 2; c++) {
		bool used = fat_entry(fat, c, bits) != 0;

		if (used && !in_run)
			run_start = c;
		if (!used && in_run)
			rc = imgp_fsmap_add(m, part->start + g.meta_end + (run_start - 2) * g.cluster_bytes,
					    part->start + g.meta_end + (c - 2) * g.cluster_bytes);
		in_run = used;
	}
	if (!rc && in_run)
		rc = imgp_fsmap_add(m, part->start + g.meta_end + (run_start - 2) * g.cluster_bytes,
				    part->start + g.meta_end + g.nclusters * g.cluster_bytes);
	free(fat);
	return rc;
}
