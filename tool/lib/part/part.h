/* SPDX-License-Identifier: MIT */
/*
 * part/: partition tables read from an image.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h; imgpatch-internal.h includes this header.
 */
#ifndef IMGP_PART_H
#define IMGP_PART_H

#include "imgpatch.h"
#include "core/core.h"

/* ----------------------------------------------- part.c, part-mbr.c, part-gpt.c */

/*
 * Reads the partition table. Returns 0, -ENOENT "no partition table (neither
 * GPT nor MBR)", -EINVAL for a table that is present but broken (bad CRC in
 * both GPT headers, entries outside the image, overlapping partitions, an
 * EBR loop), or an I/O error.
 */
int imgp_table_read(const struct imgp_image *img, struct imgp_table *tab);
void imgp_table_free(struct imgp_table *tab);
/* Identifies the filesystem of every partition (libblkid). Returns 0 or -errno. */
int imgp_table_probe_fs(const struct imgp_image *img, struct imgp_table *tab);

/* ------------------------------------------------------------------ disk.c */

/* A disk (imgpatch.h): the image and its partition table. */
struct imgp_disk {
	struct imgp_image img;
	struct imgp_table tab;
};

/*
 * Finds the first partition, in table order, whose filesystem (any supported
 * backend) has a file at path. Returns it, or NULL with -ENOENT's message
 * "no partition has /image.fit (searched p1 (vfat), p2 (ext4))", or the
 * message of a lookup that failed (a corrupt directory block) when no
 * other partition has it. A survey (below) finds files by the same rule.
 */
const struct imgp_part *imgp_disk_find_file(struct imgp_disk *disk,
					    const char *path);

#endif /* IMGP_PART_H */
