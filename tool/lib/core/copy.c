// SPDX-License-Identifier: MIT
/* Sparse copies of whole images (for -o), with progress for long copies. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "core/io.h"

/* Large sequential I/O. */
#define COPY_CHUNK ((size_t)1 << 20)

int imgp_progress_(struct imgp_ctx *ctx, const char *what, uint64_t done, uint64_t total)
{
	struct timespec now, *last;

	if (!ctx)
		return 0;
	if (ctx->interrupt && *ctx->interrupt)
		return imgp_fail(EINTR, "interrupted");
	if (!ctx->progress)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	last = &ctx->last_progress;
	/* At most four updates a second, but always the final one. */
	if (done < total && (now.tv_sec - last->tv_sec) * 1000000000L +
				    (now.tv_nsec - last->tv_nsec) < 250000000L)
		return 0;
	*last = now;
	ctx->progress(what, done, total, ctx->progress_data);
	return 0;
}

static int copy_out(int fd, const char *dst, const uint8_t *buf, size_t len,
		    uint64_t off)
{
	int rc = imgp_write_all_(fd, buf, len, (off_t)off);

	if (rc)
		return imgp_fail(-rc, "%s: write error: %s", dst, strerror(-rc));
	return 0;
}

static int copy_range(struct imgp_ctx *ctx, int in, int out, const char *src,
		      const char *dst, uint64_t start, uint64_t end, uint64_t total,
		      uint8_t *buf)
{
	uint64_t off = start;

	while (off < end) {
		size_t want = end - off < COPY_CHUNK ? (size_t)(end - off) : COPY_CHUNK;
		ssize_t n = imgp_read_all_(in, buf, want, (off_t)off);
		int rc;

		if (n <= 0) {
			int err = n < 0 ? (int)-n : EIO;

			return imgp_fail(err, "%s: read error at offset %llu: %s",
					 src, (unsigned long long)off,
					 strerror(err));
		}
		rc = copy_out(out, dst, buf, (size_t)n, off);
		if (rc)
			return rc;
		off += (uint64_t)n;
		rc = imgp_progress_(ctx, "copying", off, total);
		if (rc)
			return rc;
	}
	return 0;
}

int imgp_copy_sparse(struct imgp_ctx *ctx, const char *src, const char *dst)
{
	struct imgp_image img;
	uint8_t *buf = NULL;
	uint64_t off = 0;
	int out = -1, rc, err;

	rc = imgp_image_open_(&img, src, false);
	if (rc)
		return imgp_fail_ctx(rc, "%s", src);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		err = errno;
		rc = imgp_fail(err, "%s: cannot create: %s", dst, strerror(err));
		goto done;
	}
	imgp_test_pause_("copy");
	buf = malloc(COPY_CHUNK);
	if (!buf) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto done;
	}
	/* Holes in the source are skipped without reading them (SEEK_DATA). */
	while (off < img.size) {
		off_t data = lseek(img.fd, (off_t)off, SEEK_DATA);
		off_t hole;

		if (data < 0 && errno == ENXIO)
			break;
		if (data < 0) {
			/* No SEEK_DATA (block device, old filesystem): copy it all. */
			rc = copy_range(ctx, img.fd, out, src, dst, off, img.size,
					img.size, buf);
			goto sized;
		}
		hole = lseek(img.fd, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > img.size)
			hole = (off_t)img.size;
		rc = copy_range(ctx, img.fd, out, src, dst, (uint64_t)data,
				(uint64_t)hole, img.size, buf);
		if (rc)
			goto done;
		off = (uint64_t)hole;
	}
	rc = 0;
sized:
	if (!rc && ftruncate(out, (off_t)img.size) < 0) {
		err = errno;
		rc = imgp_fail(err, "%s: cannot set size: %s", dst, strerror(err));
	}
	if (!rc)
		imgp_progress_(ctx, "copying", img.size, img.size);
done:
	if (out >= 0 && close(out) < 0 && !rc) {
		err = errno;
		rc = imgp_fail(err, "%s: %s", dst, strerror(err));
	}
	free(buf);
	imgp_image_close_(&img);
	return rc;
}
