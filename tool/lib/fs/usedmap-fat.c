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

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
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

/* Runs of used clusters, each added to the map as one range. */
struct fat_runs {
	const struct imgp_used *m;
	uint64_t data;           /* image offset of cluster 2 */
	uint64_t cluster_bytes;
	uint64_t run_start;      /* first cluster of the open run */
	bool in_run;
};

static int runs_next(struct fat_runs *r, uint64_t c, bool used)
{
	int rc = 0;

	if (used && !r->in_run)
		r->run_start = c;
	if (!used && r->in_run)
		rc = r->m->add(r->m->ctx, r->data + (r->run_start - 2) * r->cluster_bytes,
				    r->data + (c - 2) * r->cluster_bytes);
	r->in_run = used;
	return rc;
}

/*
 * The FAT is read a window at a time, so that a large FAT32 (or one whose
 * boot sector claims one) costs no more than a window of memory. FAT12 and
 * FAT16 tables are small and read whole (a FAT12 entry may straddle bytes).
 */
#define FAT32_WINDOW_ENTRIES ((uint64_t)1 << 18)

int imgp_usedmap_fat_(const struct imgp_image *img, const struct imgp_part *part,
		     const struct imgp_used *m)
{
	struct imgp_fat_geom g;
	struct fat_runs runs = { .m = m };
	uint64_t fat_off, fat_len, need, window, end;
	uint8_t bs[512], *fat = NULL;
	unsigned bits;
	int rc;

	rc = imgp_part_read_(img, part, 0, bs, sizeof(bs));
	if (!rc)
		rc = imgp_fat_geometry_(bs, part->size, &g);
	if (rc)
		return rc;
	fat_off = (uint64_t)get_le16(bs + 14) * get_le16(bs + 11);
	fat_len = (uint64_t)(get_le16(bs + 22) ? get_le16(bs + 22) : get_le32(bs + 36)) *
		  get_le16(bs + 11);
	bits = g.nclusters <= FAT12_MAX_CLUSTERS ? 12 :
	       g.nclusters <= FAT16_MAX_CLUSTERS ? 16 : 32;
	/* Entries 0 and 1 are reserved; data clusters are numbered from 2. */
	end = g.nclusters + 2;
	need = bits == 12 ? end * 3 / 2 + 1 : end * bits / 8;
	/* A FAT12's last entry may share its last byte with nothing. */
	if (need > fat_len + 1)
		return imgp_fail(EINVAL, "FAT of %llu bytes cannot hold %llu clusters",
				 (unsigned long long)fat_len, (unsigned long long)g.nclusters);
	window = bits == 32 ? FAT32_WINDOW_ENTRIES : end;
	fat = calloc(1, bits == 32 ? window * 4 : need);
	if (!fat)
		return imgp_fail(ENOMEM, "out of memory");
	runs.data = part->start + g.meta_end;
	runs.cluster_bytes = g.cluster_bytes;
	rc = m->add(m->ctx, part->start, part->start + g.meta_end);
	for (uint64_t first = 0; !rc && first < end; first += window) {
		uint64_t n = end - first < window ? end - first : window;
		uint64_t off = bits == 32 ? first * 4 : 0;
		uint64_t len = bits == 32 ? n * 4 : (need < fat_len ? need : fat_len);

		rc = imgp_part_read_(img, part, fat_off + off, fat, len);
		for (uint64_t i = first ? 0 : 2; !rc && i < n; i++)
			rc = runs_next(&runs, first + i, fat_entry(fat, i, bits) != 0);
	}
	if (!rc)
		rc = runs_next(&runs, end, false);
	free(fat);
	return rc;
}
