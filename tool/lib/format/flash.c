// SPDX-License-Identifier: MIT
/*
 * Writing an image to a card (imgp_flash): only the blocks of a map, then a
 * sync, then every written block read back past the page cache and
 * compared, because a card that loses writes still reports them done.
 * O_DIRECT reads the device itself; a file standing in for a card has its
 * cache dropped after the sync instead. A failure says at which offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "format/format.h"
#include "core/io.h"

#define CHUNK ((size_t)1 << 20)
#define PROBE 4096           /* a refused chunk is retried in these, to say where */
#define ALIGN 4096           /* O_DIRECT buffers and lengths */

struct flash {
	const char *image, *target;
	const struct imgp_fsmap *map;
	imgp_flash_progress_fn progress;
	void *ctx;
	uint64_t *written, *bad;
	uint8_t *want, *got;
	size_t next_outside;     /* the first of map->outside not yet passed */
};

static int fail_at(struct flash *f, uint64_t off, int err, const char *fmt, ...)
	IMGP_PRINTF(4, 5);

static int fail_at(struct flash *f, uint64_t off, int err, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	*f->bad = off;
	return imgp_fail(err, "%s", msg);
}

/* Bytes [from, from + len) of a chunk the card refused, retried block by block to find where. */
static int write_refused(struct flash *f, int dst, size_t from, size_t len, uint64_t off, int err)
{
	for (size_t at = from; at < from + len; at += PROBE) {
		size_t n = from + len - at < PROBE ? from + len - at : PROBE;
		int rc = imgp_write_all_(dst, f->want + at, n, (off_t)(off + at));

		if (rc)
			return fail_at(f, off + at, -rc, "write error at offset %llu: %s",
				       (unsigned long long)(off + at), strerror(-rc));
	}
	return fail_at(f, off + from, err, "write error at offset %llu: %s",
		       (unsigned long long)(off + from), strerror(err));
}

static int read_image(struct flash *f, int src, uint64_t off, size_t n)
{
	ssize_t got = imgp_read_all_(src, f->want, n, (off_t)off);

	if (got == (ssize_t)n)
		return 0;
	return imgp_fail(got < 0 ? (int)-got : EIO, "%s: read error at offset %llu",
			 f->image, (unsigned long long)off);
}

/* A reader of the card that does not see the page cache. */
static int open_verify(const char *target, int dst, bool *direct)
{
	struct stat st;
	int fd = -1;

	*direct = false;
	if (fstat(dst, &st) == 0 && S_ISBLK(st.st_mode)) {
		fd = open(target, O_RDONLY | O_DIRECT | O_CLOEXEC);
		*direct = fd >= 0;
	}
	if (fd < 0) {
		posix_fadvise(dst, 0, 0, POSIX_FADV_DONTNEED);
		fd = open(target, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	return fd;
}

/*
 * The length of the chunk at off, up to end: at most CHUNK, and all of it
 * either outside the partitions (*outside) or not.
 */
static size_t chunk_at(struct flash *f, uint64_t off, uint64_t end, bool *outside)
{
	const struct imgp_fsmap *m = f->map;
	uint64_t lim = end - off < CHUNK ? end : off + CHUNK;

	while (f->next_outside < m->noutside && m->outside[f->next_outside].end <= off)
		f->next_outside++;
	*outside = false;
	if (f->next_outside < m->noutside) {
		const struct imgp_span *o = &m->outside[f->next_outside];

		if (o->start <= off) {
			*outside = true;
			if (o->end < lim)
				lim = o->end;
		} else if (o->start < lim) {
			lim = o->start;
		}
	}
	return (size_t)(lim - off);
}

static int write_chunk(struct flash *f, int dst, size_t at, size_t n, uint64_t off)
{
	int rc = imgp_write_all_(dst, f->want + at, n, (off_t)(off + at));

	if (rc)
		return write_refused(f, dst, at, n, off, -rc);
	*f->written += n;
	return 0;
}

static size_t block_len(size_t at, size_t n)
{
	return n - at < PROBE ? n - at : PROBE;
}

/* The card already holds the block at f->want + at (of a chunk of n bytes). */
static bool block_held(const struct flash *f, size_t at, size_t n)
{
	return !memcmp(f->want + at, f->got + at, block_len(at, n));
}

/*
 * Writes of the chunk in f->want only the 4 KiB blocks the card does not
 * already hold, read past the page cache. Outside the partitions a fresh
 * card (or a sparse file) holds the image's zeros already, while a reused
 * one may hold an old boot loader the SoC would still boot: that one is
 * overwritten. A chunk the card does not read back whole is written whole.
 */
static int write_differing_blocks(struct flash *f, int held, bool direct, int dst,
				  uint64_t off, size_t n)
{
	size_t rn = direct ? (n + ALIGN - 1) / ALIGN * ALIGN : n;
	ssize_t got = held >= 0 ? imgp_read_all_(held, f->got, rn, (off_t)off) : -EIO;
	int rc;

	if (got < (ssize_t)n)
		return write_chunk(f, dst, 0, n, off);
	for (size_t at = 0, len; at < n; at += len) {
		while (at < n && block_held(f, at, n))
			at += block_len(at, n);
		for (len = 0; at + len < n && !block_held(f, at + len, n);)
			len += block_len(at + len, n);
		if (len && (rc = write_chunk(f, dst, at, len, off)))
			return rc;
	}
	return 0;
}

static int write_ranges(struct flash *f, int src, int dst)
{
	bool direct = false, outside;
	/* Not fatal: without it the outside ranges are written whole. */
	int held = f->map->noutside ? open_verify(f->target, dst, &direct) : -1, rc = 0;

	f->next_outside = 0;
	for (size_t i = 0; !rc && i < f->map->n; i++) {
		const struct imgp_span *r = &f->map->r[i];
		size_t n;

		for (uint64_t off = r->start; !rc && off < r->end; off += n) {
			n = chunk_at(f, off, r->end, &outside);
			rc = read_image(f, src, off, n);
			if (!rc)
				rc = outside ? write_differing_blocks(f, held, direct, dst, off, n)
					     : write_chunk(f, dst, 0, n, off);
			if (!rc && f->progress)
				f->progress(n, f->ctx);
		}
	}
	if (held >= 0)
		close(held);
	if (!rc && fsync(dst) < 0)
		rc = imgp_fail(errno, "cannot sync: %s", strerror(errno));
	return rc;
}

static int verify_ranges(struct flash *f, int src, int dst)
{
	bool direct;
	int fd = open_verify(f->target, dst, &direct), rc = 0;

	if (fd < 0)
		return imgp_fail(errno, "cannot read back: %s", strerror(errno));
	for (size_t i = 0; !rc && i < f->map->n; i++) {
		const struct imgp_span *r = &f->map->r[i];

		for (uint64_t off = r->start; !rc && off < r->end; off += CHUNK) {
			size_t n = r->end - off < CHUNK ? (size_t)(r->end - off) : CHUNK;
			/* O_DIRECT reads whole aligned blocks; the image ends on a sector. */
			size_t rn = direct ? (n + ALIGN - 1) / ALIGN * ALIGN : n;
			ssize_t got;

			rc = read_image(f, src, off, n);
			if (rc)
				break;
			got = imgp_read_all_(fd, f->got, rn, (off_t)off);
			if (got < (ssize_t)n) {
				rc = fail_at(f, off, got < 0 ? (int)-got : EIO,
					     "verify: read error at offset %llu: %s",
					     (unsigned long long)off,
					     got < 0 ? strerror((int)-got) : "short read");
				break;
			}
			if (memcmp(f->want, f->got, n)) {
				size_t at = 0;

				while (f->want[at] == f->got[at])
					at++;
				rc = fail_at(f, off + at, EIO,
					     "verify: the card differs at offset %llu (wrote 0x%02x, read 0x%02x)",
					     (unsigned long long)(off + at), f->want[at], f->got[at]);
				break;
			}
			if (f->progress)
				f->progress(n, f->ctx);
		}
	}
	close(fd);
	return rc;
}

int imgp_flash(const char *image, const struct imgp_fsmap *map, const char *target,
	       imgp_flash_progress_fn progress, void *ctx,
	       uint64_t *written, uint64_t *bad)
{
	struct flash f = { image, target, map, progress, ctx, written, bad, NULL, NULL, 0 };
	int src = -1, dst = -1, rc;
	struct stat st;

	*written = 0;
	*bad = UINT64_MAX;
	src = open(image, O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return imgp_fail(errno, "%s: %s", image, strerror(errno));
	/* Exclusive on a device: no mount, and no other writer, while we write. */
	dst = open(target, O_WRONLY | O_CLOEXEC |
		   (stat(target, &st) == 0 && S_ISBLK(st.st_mode) ? O_EXCL : 0));
	if (dst < 0) {
		rc = imgp_fail(errno, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (posix_memalign((void **)&f.want, ALIGN, CHUNK) ||
	    posix_memalign((void **)&f.got, ALIGN, CHUNK)) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = write_ranges(&f, src, dst);
	/* Test builds: a pause in which a test can change the card behind our back. */
	if (!rc)
		imgp_test_pause_("flash-verify");
	if (!rc)
		rc = verify_ranges(&f, src, dst);
out:
	free(f.got);
	free(f.want);
	if (dst >= 0)
		close(dst);
	close(src);
	return rc;
}
