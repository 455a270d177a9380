// SPDX-License-Identifier: MIT
/*
 * Images as they leave: a raw image compressed into one xz, gzip, zstd,
 * bzip2 or lz4 stream with libarchive (its "raw" format: no container), or
 * copied sparse when the output is raw.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "format/format.h"
#include "format/formats.h"

/* The unit of reading the image and of feeding the compressor. */
#define PACK_CHUNK ((size_t)1 << 20)
/* liblzma fails to set up far beyond this; no machine needs more. */
#define MAX_THREADS 1024

static int pack_fail(struct archive *a, const char *dst)
{
	const char *msg = archive_error_string(a);
	int err = archive_errno(a) > 0 ? archive_errno(a) : EIO;

	return imgp_fail(err, "%s: %s", dst, msg && *msg ? msg : strerror(err));
}

/*
 * xz's memory per thread, in MiB, by level: its encoder's (xz(1)) plus the
 * two buffers of three dictionaries each that a thread of the
 * multi-threaded encoder keeps.
 */
static const unsigned xz_thread_mib[10] = {
	3 + 6, 9 + 6, 17 + 12, 32 + 24, 48 + 24,
	94 + 48, 94 + 48, 186 + 96, 370 + 192, 674 + 384,
};

/*
 * "All cores": the online CPUs, but for xz no more threads than fit in a
 * quarter of the memory, as xz itself limits them (-9 needs 1 GiB each).
 */
static int auto_threads(const struct imgp_format_entry_ *p, int level)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	long n = cpus > 0 ? cpus : 1;

	if (p->fmt == IMGP_FMT_XZ && pages > 0 && page > 0) {
		unsigned long long mib = (unsigned long long)pages *
					 (unsigned long long)page >> 20;
		unsigned long long fit = mib / 4 / xz_thread_mib[level < 0 ? 6 : level];

		if ((unsigned long long)n > fit)
			n = fit ? (long)fit : 1;
	}
	return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static int set_option(struct archive *a, const char *key, int value,
		      const char *dst)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", value);
	if (archive_write_set_filter_option(a, NULL, key, text) != ARCHIVE_OK)
		return pack_fail(a, dst);
	return 0;
}

static int writer_setup(struct archive *a, const struct imgp_format_entry_ *p,
			const struct imgp_pack_opts *opts, const char *dst)
{
	int rc;

	if (archive_write_set_format_raw(a) != ARCHIVE_OK ||
	    archive_write_add_filter_by_name(a, p->writer) != ARCHIVE_OK)
		return pack_fail(a, dst);
	/* No blocking: a padded last block would be trailing garbage to gzip. */
	if (archive_write_set_bytes_per_block(a, (int)PACK_CHUNK) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK)
		return pack_fail(a, dst);
	if (opts->level >= 0) {
		rc = set_option(a, "compression-level", opts->level, dst);
		if (rc)
			return rc;
	}
	if (p->threads) {
		rc = set_option(a, "threads", opts->threads ? opts->threads :
				auto_threads(p, opts->level), dst);
		if (rc)
			return rc;
	}
	/* Same input, same bytes: no time stamp in the gzip header. */
	if (p->fmt == IMGP_FMT_GZIP &&
	    archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK)
		return pack_fail(a, dst);
	return 0;
}

static int feed(struct archive *a, const uint8_t *buf, size_t len,
		const char *dst)
{
	while (len) {
		la_ssize_t n = archive_write_data(a, buf, len);

		if (n <= 0)
			return pack_fail(a, dst);
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Feeds [off, end) of the image: read when data, zeroes when a hole. */
static int feed_range(struct archive *a, const struct imgp_image *img,
		      uint64_t off, uint64_t end, bool hole, uint8_t *buf,
		      const uint8_t *zero, const char *dst)
{
	while (off < end) {
		size_t n = end - off < PACK_CHUNK ? (size_t)(end - off) : PACK_CHUNK;
		int rc;

		if (!hole) {
			rc = imgp_image_read_(img, off, buf, n);
			if (rc)
				return imgp_fail_ctx(rc, "%s", img->path);
		}
		rc = feed(a, hole ? zero : buf, n, dst);
		if (rc)
			return rc;
		off += n;
		rc = imgp_progress_(img->ctx, "compressing", off, img->size);
		if (rc)
			return rc;
	}
	return 0;
}

/* The whole image in order; holes (SEEK_HOLE) are not read from disk. */
static int feed_image(struct archive *a, const struct imgp_image *img,
		      const char *dst)
{
	uint8_t *buf = malloc(PACK_CHUNK), *zero = calloc(1, PACK_CHUNK);
	uint64_t off = 0;
	int rc = 0;

	if (!buf || !zero) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	while (off < img->size && !rc) {
		off_t data = lseek(img->fd, (off_t)off, SEEK_DATA);
		off_t hole;

		if (data < 0 && errno == ENXIO)
			data = (off_t)img->size;
		else if (data < 0 || (uint64_t)data < off)
			data = (off_t)off;    /* no SEEK_DATA: all of it is data */
		if ((uint64_t)data > img->size)
			data = (off_t)img->size;
		rc = feed_range(a, img, off, (uint64_t)data, true, buf, zero, dst);
		if (rc || (uint64_t)data >= img->size)
			break;
		hole = lseek(img->fd, data, SEEK_HOLE);
		if (hole <= data || (uint64_t)hole > img->size)
			hole = (off_t)img->size;
		rc = feed_range(a, img, (uint64_t)data, (uint64_t)hole, false,
				buf, zero, dst);
		off = (uint64_t)hole;
	}
out:
	free(zero);
	free(buf);
	return rc;
}

static int compress(const struct imgp_format_entry_ *p, const struct imgp_pack_opts *opts,
		    struct imgp_ctx *ctx, const char *src, const char *dst)
{
	struct archive_entry *e = NULL;
	struct archive *a = NULL;
	struct imgp_image img;
	int fd = -1, rc, err;

	rc = imgp_image_open_(&img, src, false);
	if (rc)
		return imgp_fail_ctx(rc, "%s", src);
	img.ctx = ctx;
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = errno;
		rc = imgp_fail(err, "%s: cannot create: %s", dst, strerror(err));
		goto out;
	}
	a = archive_write_new();
	e = archive_entry_new();
	if (!a || !e) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = writer_setup(a, p, opts, dst);
	if (rc)
		goto out;
	/* The fd stays ours: libarchive neither closes nor syncs it. */
	if (archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		rc = pack_fail(a, dst);
		goto out;
	}
	archive_entry_set_pathname(e, "data");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)img.size);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		rc = pack_fail(a, dst);
		goto out;
	}
	rc = feed_image(a, &img, dst);
	if (rc)
		goto out;
	/* Close flushes the compressor: its errors are write errors. */
	if (archive_write_close(a) != ARCHIVE_OK) {
		rc = pack_fail(a, dst);
		goto out;
	}
	if (fsync(fd) < 0) {
		err = errno;
		rc = imgp_fail(err, "%s: cannot sync: %s", dst, strerror(err));
	}
out:
	archive_write_free(a);
	archive_entry_free(e);
	if (fd >= 0 && close(fd) < 0 && !rc) {
		err = errno;
		rc = imgp_fail(err, "%s: %s", dst, strerror(err));
	}
	imgp_image_close_(&img);
	return rc;
}

static int sync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0 || fsync(fd) < 0) {
		err = errno;
		if (fd >= 0)
			close(fd);
		return imgp_fail(err, "%s: cannot sync: %s", path, strerror(err));
	}
	close(fd);
	return 0;
}

int imgp_pack_(struct imgp_ctx *ctx, const char *src, const char *dst,
	      const struct imgp_pack_opts *opts)
{
	const struct imgp_format_entry_ *p;
	char list[128];
	int rc;

	if (opts->format == IMGP_FMT_RAW) {
		rc = imgp_copy_sparse(ctx, src, dst);
		return rc ? rc : sync_path(dst);
	}
	p = imgp_format_entry_(opts->format);
	if (!p || !p->writer)
		return imgp_fail(ENOTSUP, "cannot write %s output (use %s)",
				 imgp_format_name(opts->format),
				 imgp_format_list_(list, sizeof(list), false, "raw"));
	/* libarchive calls a bad level an "undefined option": say what it is. */
	if (opts->level != -1 &&
	    (opts->level < p->min_level || opts->level > p->max_level))
		return imgp_fail(EINVAL, "compression level %d is out of range for %s (%d-%d)",
				 opts->level, p->name, p->min_level, p->max_level);
	if (opts->threads < 0 || opts->threads > MAX_THREADS)
		return imgp_fail(EINVAL, "thread count %d is out of range (0-%d)",
				 opts->threads, MAX_THREADS);
	return compress(p, opts, ctx, src, dst);
}
