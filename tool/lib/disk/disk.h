/* SPDX-License-Identifier: MIT */
/*
 * disk/: an image opened with its partition table read and the filesystem
 * of each partition identified (imgpatch.h's struct imgp_disk), above
 * part/ and fs/, which it brings together.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_DISK_H
#define IMGP_DISK_H

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"

/* The image's path and size. */
const char *imgp_disk_path_(const struct imgp_disk *disk);
uint64_t imgp_disk_size_(const struct imgp_disk *disk);
/* Its partition table, and its image (what imgp_fs_new_() opens). */
const struct imgp_table *imgp_disk_table_(const struct imgp_disk *disk);
struct imgp_image *imgp_disk_image_(struct imgp_disk *disk);

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
 * other partition has it. A survey finds files by the same rule.
 */
const struct imgp_part *imgp_disk_find_file_(struct imgp_disk *disk,
					    const char *path);

/*
 * imgp_disk_open() read-only of the file open as fd (path names it),
 * through a duplicate of fd, which the caller keeps; and of a regular
 * file filled on demand, as imgp_image_open_fd_() and
 * imgp_image_open_filled_() open its image. Return 0 or -errno.
 */
int imgp_disk_open_fd_(struct imgp_disk **disk, struct imgp_ctx *ctx, int fd, const char *path);
int imgp_disk_open_filled_(struct imgp_disk **disk, struct imgp_ctx *ctx, const char *path,
			  imgp_fill_fn fill, void *fill_ctx);

#endif /* IMGP_DISK_H */
