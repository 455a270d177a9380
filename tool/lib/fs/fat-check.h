// SPDX-License-Identifier: MIT
/*
 * The FAT damage check (fat-check.c), for the FAT backend and its tests:
 * what fsck.fat would report in the cluster chains, found before mtools
 * reads or writes anything.
 */
#ifndef IMGP_FS_FAT_CHECK_H
#define IMGP_FS_FAT_CHECK_H

#include <stddef.h>

#include "core/core.h"
#include "part/part.h"

/*
 * fat-check.c: the damage fsck.fat reports in cluster chains, found by
 * reading the FAT and every folder: a chain that loops, leaves the data
 * area, holds a free, reserved or bad cluster, is shared, or does not
 * match its file's size. Each finding is about one file or folder.
 */
struct imgp_fat_finding {
	char *path;              /* as fsck.fat names it: long names, else 8.3 */
	char *alias;             /* the same path in 8.3 names */
	char *why;               /* "<path>: circular cluster chain (...)" */
};

/* Findings kept; a FAT with more is refused whatever is read of it. */
#define IMGP_FAT_FINDINGS_MAX 64

struct imgp_fat_damage {
	struct imgp_fat_finding *f;
	size_t n;
	size_t more;             /* findings past IMGP_FAT_FINDINGS_MAX, not kept */
};

/*
 * Checks every chain of the FAT in part: out holds the findings (none on a
 * healthy FAT). 0; -EINVAL or -EUCLEAN when the boot sector or the FAT's
 * size is inconsistent, -EIO, -ENOMEM.
 */
int imgp_fat_check_(const struct imgp_image *img, const struct imgp_part *part,
		   struct imgp_fat_damage *out);
void imgp_fat_damage_free_(struct imgp_fat_damage *d);
/*
 * The finding about path (a file or folder, by long or 8.3 names, any
 * case) or a folder on the way to it; with findings not kept, the first
 * one. NULL when reading path depends on no damage found.
 */
const struct imgp_fat_finding *imgp_fat_damage_find_(const struct imgp_fat_damage *d,
						    const char *path);

#endif
