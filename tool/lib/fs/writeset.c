// SPDX-License-Identifier: MIT
/*
 * A write set: the bytes a commit will write into an image, captured in
 * memory before anything is written, so that the original bytes of exactly
 * those regions can be saved to the undo journal first. Kept per 512-byte
 * sector; partial writes are merged over what the image (or an earlier
 * write) holds there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs.h"

#define SECTOR 512u
#define BUCKETS 4096u

struct sector {
	uint64_t index;
	struct sector *next;
	uint8_t data[SECTOR];
};

struct imgp_writeset {
	const struct imgp_image *img;
	struct sector *buckets[BUCKETS];
	size_t nsectors;
	/* Bounds the memory a runaway capture can take. */
	size_t max_sectors;
};

int imgp_writeset_new_(struct imgp_writeset **out, const struct imgp_image *img)
{
	struct imgp_writeset *ws = calloc(1, sizeof(*ws));

	if (!ws)
		return imgp_fail(ENOMEM, "out of memory");
	ws->img = img;
	ws->max_sectors = (size_t)(1024u << 20) / SECTOR;
	*out = ws;
	return 0;
}

void imgp_writeset_free_(struct imgp_writeset *ws)
{
	if (!ws)
		return;
	for (size_t i = 0; i < BUCKETS; i++) {
		struct sector *s = ws->buckets[i];

		while (s) {
			struct sector *next = s->next;

			free(s);
			s = next;
		}
	}
	free(ws);
}

static struct sector *ws_find(const struct imgp_writeset *ws, uint64_t index)
{
	struct sector *s = ws->buckets[index % BUCKETS];

	while (s && s->index != index)
		s = s->next;
	return s;
}

/* The sector as the image will hold it: captured, else read from the image. */
static int ws_sector(struct imgp_writeset *ws, uint64_t index, bool create,
		     struct sector **out, uint8_t *copy)
{
	struct sector *s = ws_find(ws, index);
	int rc;

	if (s || !create) {
		*out = s;
		if (s && copy)
			memcpy(copy, s->data, SECTOR);
		if (!s && copy)
			return imgp_image_read_(ws->img, index * SECTOR, copy, SECTOR);
		return 0;
	}
	if (ws->nsectors >= ws->max_sectors)
		return imgp_fail(EFBIG, "a commit may write at most %zu MiB",
				 ws->max_sectors * SECTOR >> 20);
	s = malloc(sizeof(*s));
	if (!s)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_image_read_(ws->img, index * SECTOR, s->data, SECTOR);
	if (rc) {
		free(s);
		return rc;
	}
	s->index = index;
	s->next = ws->buckets[index % BUCKETS];
	ws->buckets[index % BUCKETS] = s;
	ws->nsectors++;
	*out = s;
	return 0;
}

int imgp_writeset_write_(struct imgp_writeset *ws, uint64_t off,
			const void *data, size_t len)
{
	const uint8_t *p = data;

	if (off > ws->img->size || len > ws->img->size - off)
		return imgp_fail(ERANGE, "write of %zu bytes at %llu is past the end of the image",
				 len, (unsigned long long)off);
	while (len) {
		uint64_t index = off / SECTOR;
		size_t in = (size_t)(off % SECTOR);
		size_t n = SECTOR - in < len ? SECTOR - in : len;
		struct sector *s = NULL;
		int rc = ws_sector(ws, index, true, &s, NULL);

		if (rc)
			return rc;
		memcpy(s->data + in, p, n);
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int imgp_writeset_read_(struct imgp_writeset *ws, uint64_t off, void *buf,
		       size_t len)
{
	uint8_t *p = buf;
	int rc;

	/* The image first, in one large read; then captured sectors on top. */
	rc = imgp_image_read_(ws->img, off, buf, len);
	if (rc || !ws->nsectors)
		return rc;
	for (uint64_t index = off / SECTOR; index * SECTOR < off + len; index++) {
		struct sector *s = ws_find(ws, index);
		uint64_t start = index * SECTOR;
		size_t from, to;

		if (!s)
			continue;
		from = start < off ? (size_t)(off - start) : 0;
		to = start + SECTOR > off + len ? (size_t)(off + len - start) : SECTOR;
		memcpy(p + (start + from - off), s->data + from, to - from);
	}
	return 0;
}

static int cmp_sector(const void *a, const void *b)
{
	const struct sector *x = *(const struct sector *const *)a;
	const struct sector *y = *(const struct sector *const *)b;

	return x->index < y->index ? -1 : x->index > y->index;
}

int imgp_writeset_ranges_(const struct imgp_writeset *ws,
			 struct imgp_range **out, size_t *n)
{
	struct sector **all = NULL;
	struct imgp_range *ranges = NULL;
	size_t k = 0, nr = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!ws->nsectors)
		return 0;
	all = malloc(ws->nsectors * sizeof(*all));
	ranges = calloc(ws->nsectors, sizeof(*ranges));
	if (!all || !ranges) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < BUCKETS; i++)
		for (struct sector *s = ws->buckets[i]; s; s = s->next)
			all[k++] = s;
	qsort(all, k, sizeof(*all), cmp_sector);
	/* Contiguous sectors become one range: fewer, larger writes. */
	for (size_t i = 0; i < k;) {
		size_t j = i + 1;

		while (j < k && all[j]->index == all[j - 1]->index + 1)
			j++;
		ranges[nr].off = all[i]->index * SECTOR;
		ranges[nr].len = (j - i) * SECTOR;
		ranges[nr].data = malloc(ranges[nr].len);
		if (!ranges[nr].data) {
			rc = imgp_fail(ENOMEM, "out of memory");
			goto fail;
		}
		for (size_t m = i; m < j; m++)
			memcpy(ranges[nr].data + (m - i) * SECTOR, all[m]->data, SECTOR);
		nr++;
		i = j;
	}
	free(all);
	*out = ranges;
	*n = nr;
	return 0;
fail:
	for (size_t i = 0; ranges && i < nr; i++)
		free(ranges[i].data);
	free(ranges);
	free(all);
	return rc;
}

void imgp_ranges_free_(struct imgp_range *ranges, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ranges[i].data);
	free(ranges);
}
