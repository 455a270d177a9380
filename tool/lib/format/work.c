// SPDX-License-Identifier: MIT
/*
 * The working image (imgpatch.h, imgp_work_*): whatever file a command is
 * given becomes a raw image to open, and is written back in the format
 * asked for. The choice of the block-wise .xz path is made here, so every
 * caller of the library gets it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "disk/disk.h"
#include "format/format.h"
#include "format/formats.h"

/*
 * The image is opened here once, and that open file is what the format is
 * read from and what imgp_work_disk_open_() reads a raw image through.
 */
int imgp_work_probe_(struct imgp_work **out, struct imgp_ctx *ctx, const char *image)
{
	struct imgp_work *w = calloc(1, sizeof(*w));
	struct stat st;
	int err, rc;

	*out = w;
	if (!w)
		return imgp_fail(ENOMEM, "out of memory");
	w->image = image;
	w->path = image;
	w->ctx = ctx;
	w->format = IMGP_FMT_RAW;
	w->fd = open(image, O_RDONLY | O_CLOEXEC);
	if (w->fd < 0) {
		err = errno;
		rc = imgp_fail(err, "cannot open: %s", strerror(err));
		goto fail;
	}
	/* A card is a raw image; its content is not probed for a format. */
	if (fstat(w->fd, &st) == 0 && S_ISBLK(st.st_mode))
		return 0;
	rc = imgp_format_detect_fd_(image, w->fd, &w->format);
	if (!rc)
		return 0;
fail:
	imgp_work_close_(w);
	*out = NULL;
	return rc;
}

int imgp_work_disk_open_(struct imgp_work *w, struct imgp_disk **disk)
{
	if (w->fd >= 0 && w->path == w->image)
		return imgp_disk_open_fd_(disk, w->ctx, w->fd, w->path);
	if (w->xz)
		return imgp_disk_open_filled_(disk, w->ctx, w->path, imgp_xz_image_fill_, w->xz);
	return imgp_disk_open(disk, w->ctx, w->path, false);
}

/*
 * Block-wise only when the result is an .xz again with the input's own
 * filters (a --level asks for others), and no bmap needs the whole image.
 */
static bool block_wise(const struct imgp_work *w, const struct imgp_work_opts *o)
{
	return w->format == IMGP_FMT_XZ && o->out && o->out->format == IMGP_FMT_XZ &&
	       o->out->level < 0 && !o->whole;
}

int imgp_work_unpack_(struct imgp_work *w, const char *copy,
		     const struct imgp_work_opts *opts)
{
	int rc = 0;

	if (w->format == IMGP_FMT_RAW)
		return 0;
	if (block_wise(w, opts)) {
		rc = imgp_xz_image_open_(&w->xz, w->image, copy,
					(unsigned)opts->out->threads);
		/* One block, mixed checks...: unpacked whole instead. */
		if (rc == -ENOTSUP) {
			imgp_errclear_();
			rc = 0;
		}
	}
	if (!rc && !w->xz)
		rc = imgp_unpack_(w->ctx, w->image, copy, opts->zero_holes);
	if (!rc)
		w->path = copy;
	return rc;
}

/* The block-wise .xz into dst, synced. */
static int xz_write(struct imgp_xz_image *xz, struct imgp_ctx *ctx, const char *dst)
{
	int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), rc;

	if (fd < 0)
		return imgp_fail(errno, "%s: %s", dst, strerror(errno));
	rc = imgp_xz_image_write_(xz, ctx, fd);
	if (!rc && fsync(fd) < 0)
		rc = imgp_fail(errno, "%s: fsync: %s", dst, strerror(errno));
	if (close(fd) < 0 && !rc)
		rc = imgp_fail(errno, "%s: %s", dst, strerror(errno));
	return rc;
}

int imgp_work_pack_(struct imgp_work *w, const char *dst,
		   const struct imgp_pack_opts *opts)
{
	if (w->xz && opts->format == IMGP_FMT_XZ)
		return xz_write(w->xz, w->ctx, dst);
	return imgp_pack_(w->ctx, w->path, dst, opts);
}

void imgp_work_close_(struct imgp_work *w)
{
	if (!w)
		return;
	imgp_xz_image_close_(w->xz);
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}

enum imgp_format imgp_work_format_(const struct imgp_work *w)
{
	return w->format;
}

const char *imgp_work_path_(const struct imgp_work *w)
{
	return w->path;
}

void imgp_work_set_path_(struct imgp_work *w, const char *path)
{
	w->path = path;
}

int imgp_work_lock_(const struct imgp_work *w)
{
	return imgp_lock_fd_(w->fd, w->image);
}

bool imgp_work_xz_blocks_(const struct imgp_work *w, size_t *changed, size_t *nblocks)
{
	if (!w->xz)
		return false;
	*changed = imgp_xz_image_changed_(w->xz, nblocks);
	return true;
}
