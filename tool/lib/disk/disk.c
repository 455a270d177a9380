// SPDX-License-Identifier: MIT
/* An image opened with its partition table and filesystems identified. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "disk/disk.h"

/*
 * The partition table and filesystems of disk->img, which opened with rc:
 * *out is disk then, or NULL with disk freed.
 */
static int disk_identify(struct imgp_disk *disk, struct imgp_ctx *ctx, int rc,
			 struct imgp_disk **out)
{
	/* Its warnings (a damaged GPT, conflicting signatures) go to ctx from here on. */
	disk->img.ctx = ctx;
	if (!rc)
		rc = imgp_table_read_(&disk->img, &disk->tab);
	if (!rc)
		rc = imgp_fs_identify_(&disk->img, &disk->tab);
	if (rc) {
		imgp_disk_close(disk);
		disk = NULL;
	}
	*out = disk;
	return rc;
}

int imgp_disk_open(struct imgp_disk **out, struct imgp_ctx *ctx, const char *path,
		   bool writable)
{
	struct imgp_disk *disk = calloc(1, sizeof(*disk));

	*out = NULL;
	if (!disk)
		return imgp_fail(ENOMEM, "out of memory");
	return disk_identify(disk, ctx, imgp_image_open_(&disk->img, path, writable), out);
}

int imgp_disk_open_filled_(struct imgp_disk **out, struct imgp_ctx *ctx, const char *path,
			  imgp_fill_fn fill, void *fill_ctx)
{
	struct imgp_disk *disk = calloc(1, sizeof(*disk));

	*out = NULL;
	if (!disk)
		return imgp_fail(ENOMEM, "out of memory");
	return disk_identify(disk, ctx, imgp_image_open_filled_(&disk->img, path, fill, fill_ctx),
			     out);
}

int imgp_disk_open_fd_(struct imgp_disk **out, struct imgp_ctx *ctx, int fd, const char *path)
{
	struct imgp_disk *disk = calloc(1, sizeof(*disk));

	*out = NULL;
	if (!disk)
		return imgp_fail(ENOMEM, "out of memory");
	return disk_identify(disk, ctx, imgp_image_open_fd_(&disk->img, fd, path), out);
}

void imgp_disk_close(struct imgp_disk *disk)
{
	if (!disk)
		return;
	imgp_table_free_(&disk->tab);
	imgp_image_close_(&disk->img);
	free(disk);
}

const struct imgp_table *imgp_disk_table_(const struct imgp_disk *disk)
{
	return &disk->tab;
}

struct imgp_image *imgp_disk_image_(struct imgp_disk *disk)
{
	return &disk->img;
}

const char *imgp_disk_path_(const struct imgp_disk *disk)
{
	return disk->img.path;
}

uint64_t imgp_disk_size_(const struct imgp_disk *disk)
{
	return disk->img.size;
}

const struct imgp_part *imgp_disk_find_file_(struct imgp_disk *disk,
					    const char *path)
{
	struct imgp_buf searched = { 0 };
	const struct imgp_part *found = NULL;
	char *broken = NULL, *failed = NULL;
	int broken_rc = 0, failed_rc = 0;

	for (size_t i = 0; i < disk->tab.nparts && !found; i++) {
		const struct imgp_part *part = &disk->tab.parts[i];
		struct imgp_fs fs;
		int rc;

		if (part->container || !part->fstype[0])
			continue;
		rc = imgp_fs_open_(&fs, &disk->img, part);
		if (rc == -ENOTSUP)
			continue;
		imgp_buf_printf(&searched, "%s" IMGP_PART_FMT " (%s)",
				searched.len ? ", " : "", part->number,
				part->fstype);
		if (rc) {
			/*
			 * A broken filesystem must not hide the file elsewhere;
			 * when it is nowhere else, the broken one is the news.
			 */
			if (!broken) {
				broken = strdup(imgp_errmsg());
				broken_rc = rc;
			}
			imgp_debug(disk->img.ctx, "%s: %s", disk->img.path, imgp_errmsg());
			continue;
		}
		rc = imgp_fs_exists_(&fs, path);
		if (rc > 0)
			found = part;
		else if (rc < 0 && !failed) {
			/* A lookup that failed keeps its cause (a corrupt directory block). */
			failed = strdup(imgp_errmsg());
			failed_rc = rc;
		}
		imgp_fs_close_(&fs);
	}
	if (!found && failed)
		imgp_fail(-failed_rc, "%s", failed);
	else if (!found && broken)
		imgp_fail(-broken_rc, "%s (while looking for %s)", broken, path);
	else if (!found)
		imgp_fail(ENOENT, "no partition has %s (searched %s)", path,
			  searched.len ? (char *)searched.data : "no supported filesystem");
	else
		imgp_errclear_();
	free(broken);
	free(failed);
	imgp_buf_free(&searched);
	return found;
}
