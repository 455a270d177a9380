// SPDX-License-Identifier: MIT
/*
 * Image access: regular files and block devices, bounds-checked positional
 * I/O. Messages leave the path out: callers print it as the outer context.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "core/io.h"

int imgp_image_fill_(const struct imgp_image *img, uint64_t off, uint64_t len)
{
	if (!img->fill || !len)
		return 0;
	if (off > img->size || len > img->size - off)
		len = off > img->size ? 0 : img->size - off;
	return img->fill(img->fill_ctx, off, len, false);
}

/* Makes img of the open file fd (closed on failure), filled by fill when set. */
static int image_adopt(struct imgp_image *img, int fd, const char *path,
		       bool writable, imgp_fill_fn fill, void *fill_ctx)
{
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0) {
		err = errno;
		close(fd);
		return imgp_fail(err, "cannot stat: %s", strerror(err));
	}
	if (S_ISBLK(st.st_mode)) {
		uint64_t size = 0;

		if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
			err = errno;
			close(fd);
			return imgp_fail(err, "cannot get device size: %s",
					 strerror(err));
		}
		img->size = size;
		img->is_blockdev = true;
	} else if (S_ISREG(st.st_mode)) {
		img->size = (uint64_t)st.st_size;
		img->fill = fill;
		img->fill_ctx = fill ? fill_ctx : NULL;
	} else {
		close(fd);
		return imgp_fail(EINVAL, "not a regular file or block device");
	}
	if (img->size == 0) {
		close(fd);
		return imgp_fail(EINVAL, "empty image");
	}
	img->path = strdup(path);
	if (!img->path) {
		close(fd);
		return imgp_fail(ENOMEM, "out of memory");
	}
	img->fd = fd;
	img->writable = writable;
	return 0;
}

static int image_open(struct imgp_image *img, const char *path, bool writable,
		      imgp_fill_fn fill, void *fill_ctx)
{
	int fd, err;

	memset(img, 0, sizeof(*img));
	img->fd = -1;
	if (writable) {
		int rc = imgp_blockdev_check_unmounted(path);

		if (rc)
			return rc;
	}
	/*
	 * O_EXCL on a block device fails while it is mounted or held by
	 * another exclusive user; on a regular file it is ignored here.
	 */
	fd = open(path, (writable ? O_RDWR | O_EXCL : O_RDONLY) | O_CLOEXEC);
	if (fd < 0 && writable && errno == EEXIST)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == EBUSY)
			return imgp_fail(err, "the device is in use (mounted, or opened by another program)");
		return imgp_fail(err, "cannot open: %s", strerror(err));
	}
	return image_adopt(img, fd, path, writable, fill, fill_ctx);
}

int imgp_image_open_(struct imgp_image *img, const char *path, bool writable)
{
	return image_open(img, path, writable, NULL, NULL);
}

int imgp_image_open_filled_(struct imgp_image *img, const char *path,
			   imgp_fill_fn fill, void *ctx)
{
	return image_open(img, path, false, fill, ctx);
}

void imgp_image_inherit_fill_(struct imgp_image *img, const struct imgp_image *from)
{
	if (img->is_blockdev || !from->fill)
		return;
	img->fill = from->fill;
	img->fill_ctx = from->fill_ctx;
}

int imgp_image_open_fd_(struct imgp_image *img, int fd, const char *path)
{
	int dup_fd;

	memset(img, 0, sizeof(*img));
	img->fd = -1;
	/* A duplicate: the image closes its own, the caller keeps fd. */
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0) {
		int err = errno;

		return imgp_fail(err, "cannot open: %s", strerror(err));
	}
	return image_adopt(img, dup_fd, path, false, NULL, NULL);
}

void imgp_image_close_(struct imgp_image *img)
{
	if (img->fd >= 0)
		close(img->fd);
	img->fd = -1;
	free(img->path);
	img->path = NULL;
}

static int image_check_range(const struct imgp_image *img, uint64_t off,
			     size_t len)
{
	if (off > img->size || len > img->size - off)
		return imgp_fail(ERANGE,
				 "read of %zu bytes at offset %llu is past the end of the image (%llu bytes): truncated image?",
				 len, (unsigned long long)off,
				 (unsigned long long)img->size);
	return 0;
}

int imgp_image_read_(const struct imgp_image *img, uint64_t off, void *buf,
		    size_t len)
{
	ssize_t n;
	int rc = image_check_range(img, off, len);

	if (!rc && img->fill)
		rc = img->fill(img->fill_ctx, off, len, false);
	if (rc)
		return rc;
	n = imgp_read_all_(img->fd, buf, len, (off_t)off);
	if (n < 0)
		return imgp_fail((int)-n, "read error at offset %llu: %s",
				 (unsigned long long)off, strerror((int)-n));
	if ((size_t)n < len)
		return imgp_fail(EIO, "unexpected end of file at offset %llu",
				 (unsigned long long)(off + (uint64_t)n));
	return 0;
}

int imgp_image_write_(struct imgp_image *img, uint64_t off, const void *buf,
		     size_t len)
{
	int rc;

	if (!img->writable)
		return imgp_fail(EBADF, "opened read-only");
	img->writes++;
	rc = image_check_range(img, off, len);
	if (!rc && img->fill)
		rc = img->fill(img->fill_ctx, off, len, true);
	if (rc)
		return rc;
	rc = imgp_write_all_(img->fd, buf, len, (off_t)off);
	if (rc)
		return imgp_fail(-rc, "write error at offset %llu: %s",
				 (unsigned long long)off, strerror(-rc));
	return 0;
}

bool imgp_image_same_file_(const struct imgp_image *a, const struct imgp_image *b)
{
	struct stat sa, sb;

	return fstat(a->fd, &sa) == 0 && fstat(b->fd, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int imgp_image_sync_(struct imgp_image *img)
{
	if (fsync(img->fd) < 0) {
		int err = errno;

		return imgp_fail(err, "fsync: %s", strerror(err));
	}
	return 0;
}
