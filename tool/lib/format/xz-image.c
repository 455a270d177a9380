// SPDX-License-Identifier: MIT
/*
 * A multi-block .xz image patched block-wise: the working file is a sparse
 * file of the image's size, filled block by block from the .xz only where
 * imgpatch reads or writes (the partition table, the FAT partition mtools
 * works on, the ext4 blocks libext2fs touches). The output then takes the
 * blocks written to from the working file, re-encoded, and every other
 * block's compressed bytes as they were (xz-blocks.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "format/format.h"
#include "core/io.h"
#include "format/xz-blocks.h"

/* Zero runs of a decoded block are left as holes of the working file. */
#define XZI_PAGE 4096

struct imgp_xz_image {
	struct imgp_xz *xz;
	int work_fd;
	size_t nblocks;
	bool *have;              /* block decoded into the working file */
	bool *changed;           /* block written to */
	unsigned threads;
};

static bool page_is_zero(const uint8_t *p, size_t n)
{
	return p[0] == 0 && memcmp(p, p + 1, n - 1) == 0;
}

/* Writes the non-zero pages of a decoded block into the working file. */
static int xzi_store(int fd, const uint8_t *buf, uint64_t off, uint64_t size)
{
	for (uint64_t i = 0; i < size;) {
		size_t n = size - i < XZI_PAGE ? (size_t)(size - i) : XZI_PAGE;
		uint64_t run = i;
		int rc;

		while (run < size && !page_is_zero(buf + run, n)) {
			run += n;
			n = size - run < XZI_PAGE ? (size_t)(size - run) : XZI_PAGE;
		}
		rc = imgp_write_all_(fd, buf + i, (size_t)(run - i), (off_t)(off + i));
		if (rc)
			return imgp_fail(-rc, "working copy: write error: %s", strerror(-rc));
		i = run;
		while (i < size) {
			n = size - i < XZI_PAGE ? (size_t)(size - i) : XZI_PAGE;
			if (!page_is_zero(buf + i, n))
				break;
			i += n;
		}
	}
	return 0;
}

struct xzi_job {
	struct imgp_xz_image *xi;
	size_t *list;            /* blocks to decode */
	size_t n;
	size_t next;
	int rc;
	char msg[512];
	pthread_mutex_t lock;
};

/* One decoding thread: takes the next block of the list until none is left. */
static void *xzi_worker(void *arg)
{
	struct xzi_job *job = arg;
	uint8_t *buf = NULL;
	uint64_t cap = 0;

	for (;;) {
		uint64_t off, size;
		size_t b;
		int rc;

		pthread_mutex_lock(&job->lock);
		if (job->rc || job->next == job->n) {
			pthread_mutex_unlock(&job->lock);
			break;
		}
		b = job->list[job->next++];
		pthread_mutex_unlock(&job->lock);
		imgp_xz_block_range_(job->xi->xz, b, &off, &size);
		if (size > cap) {
			free(buf);
			buf = malloc(size ? size : 1);
			cap = buf ? size : 0;
		}
		rc = buf ? imgp_xz_decode_block_(job->xi->xz, b, buf)
			 : imgp_fail(ENOMEM, "out of memory");
		if (!rc)
			rc = xzi_store(job->xi->work_fd, buf, off, size);
		if (rc) {
			pthread_mutex_lock(&job->lock);
			if (!job->rc) {
				job->rc = rc;
				snprintf(job->msg, sizeof(job->msg), "%s", imgp_errmsg());
			}
			pthread_mutex_unlock(&job->lock);
			break;
		}
	}
	free(buf);
	return NULL;
}

/* Decodes the listed blocks on up to xi->threads threads. */
static int xzi_decode(struct imgp_xz_image *xi, size_t *list, size_t n)
{
	struct xzi_job job = { .xi = xi, .list = list, .n = n };
	pthread_t tid[16];
	unsigned nt = xi->threads < 16 ? xi->threads : 16, started = 0;

	if (nt > n)
		nt = (unsigned)n;
	pthread_mutex_init(&job.lock, NULL);
	for (unsigned t = 1; t < nt; t++)
		if (pthread_create(&tid[started], NULL, xzi_worker, &job) == 0)
			started++;
	xzi_worker(&job);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_mutex_destroy(&job.lock);
	if (job.rc)
		return imgp_fail(-job.rc, "%s", job.msg);
	for (size_t i = 0; i < n; i++)
		xi->have[list[i]] = true;
	return 0;
}

int imgp_xz_image_fill_(void *ctx, uint64_t off, uint64_t len, bool write)
{
	struct imgp_xz_image *xi = ctx;
	size_t first, last, n = 0, *list;
	int rc;

	if (!len || off >= imgp_xz_size_(xi->xz))
		return 0;
	first = imgp_xz_block_at_(xi->xz, off);
	last = imgp_xz_block_at_(xi->xz, off + len - 1 < imgp_xz_size_(xi->xz)
					   ? off + len - 1 : imgp_xz_size_(xi->xz) - 1);
	list = malloc((last - first + 1) * sizeof(*list));
	if (!list)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t b = first; b <= last; b++) {
		if (!xi->have[b])
			list[n++] = b;
		if (write)
			xi->changed[b] = true;
	}
	rc = n ? xzi_decode(xi, list, n) : 0;
	free(list);
	return rc;
}

int imgp_xz_image_open_(struct imgp_xz_image **out, const char *src,
		       const char *work, unsigned threads)
{
	struct imgp_xz_image *xi;
	int rc;

	*out = NULL;
	xi = calloc(1, sizeof(*xi));
	if (!xi)
		return imgp_fail(ENOMEM, "out of memory");
	xi->work_fd = -1;
	xi->threads = threads ? threads : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	if (xi->threads < 1)
		xi->threads = 1;
	rc = imgp_xz_open_(&xi->xz, src);
	if (rc)
		goto fail;
	xi->nblocks = imgp_xz_nblocks_(xi->xz);
	xi->have = calloc(xi->nblocks, sizeof(*xi->have));
	xi->changed = calloc(xi->nblocks, sizeof(*xi->changed));
	if (!xi->have || !xi->changed) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto fail;
	}
	xi->work_fd = open(work, O_RDWR | O_CLOEXEC);
	if (xi->work_fd < 0) {
		rc = imgp_fail(errno, "%s: %s", work, strerror(errno));
		goto fail;
	}
	if (ftruncate(xi->work_fd, (off_t)imgp_xz_size_(xi->xz)) < 0) {
		rc = imgp_fail(errno, "%s: %s", work, strerror(errno));
		goto fail;
	}
	*out = xi;
	return 0;
fail:
	imgp_xz_image_close_(xi);
	return rc;
}

/* The new content of a changed block: the working file's bytes. */
static int xzi_block(void *ctx, size_t block, void *buf)
{
	struct imgp_xz_image *xi = ctx;
	uint64_t off, size;
	ssize_t n;

	imgp_xz_block_range_(xi->xz, block, &off, &size);
	n = imgp_read_all_(xi->work_fd, buf, size, (off_t)off);
	if (n < 0 || (uint64_t)n < size)
		return imgp_fail(n < 0 ? (int)-n : EIO, "working copy: read error");
	return 0;
}

int imgp_xz_image_write_(struct imgp_xz_image *xi, struct imgp_ctx *ctx, int fd)
{
	return imgp_xz_rewrite_(xi->xz, fd, xi->changed, xzi_block, xi, xi->threads, ctx);
}

size_t imgp_xz_image_changed_(const struct imgp_xz_image *xi, size_t *nblocks)
{
	size_t n = 0;

	for (size_t i = 0; i < xi->nblocks; i++)
		n += xi->changed[i];
	*nblocks = xi->nblocks;
	return n;
}

void imgp_xz_image_close_(struct imgp_xz_image *xi)
{
	if (!xi)
		return;
	if (xi->work_fd >= 0)
		close(xi->work_fd);
	imgp_xz_close_(xi->xz);
	free(xi->have);
	free(xi->changed);
	free(xi);
}
