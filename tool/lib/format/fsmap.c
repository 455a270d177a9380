// SPDX-License-Identifier: MIT
/*
 * The block map of an image made from its filesystems (imgp_fsmap_build):
 * what a card needs written, so that flashing skips what no filesystem
 * will read. The partition table says where each filesystem is; what lies
 * outside partitions (tables, boot loaders, the GPT backup) is always
 * mapped (and listed apart, for imgp_flash to compare before it writes),
 * and so is every partition whose filesystem imgpatch cannot read the
 * allocation of. Blocks are 4 KiB, as in a bmap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "format/format.h"
#include "disk/disk.h"

#define FSMAP_BLOCK 4096

int imgp_fsmap_add_(struct imgp_fsmap *m, uint64_t start, uint64_t end)
{
	if (end <= start)
		return 0;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct imgp_span *r = realloc(m->r, cap * sizeof(*r));

		if (!r)
			return imgp_fail(ENOMEM, "out of memory");
		m->r = r;
		m->cap = cap;
	}
	m->r[m->n].start = start;
	m->r[m->n].end = end;
	m->n++;
	return 0;
}

static void fsmap_clear(struct imgp_fsmap *m)
{
	free(m->outside);
	free(m->r);
	memset(m, 0, sizeof(*m));
}

static int range_cmp(const void *a, const void *b)
{
	const struct imgp_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Widens every range to whole blocks inside the image, sorts and merges them. */
static void fsmap_normalize(struct imgp_fsmap *m)
{
	size_t out = 0;

	for (size_t i = 0; i < m->n; i++) {
		m->r[i].start -= m->r[i].start % FSMAP_BLOCK;
		m->r[i].end = (m->r[i].end + FSMAP_BLOCK - 1) / FSMAP_BLOCK * FSMAP_BLOCK;
		if (m->r[i].end > m->size)
			m->r[i].end = m->size;
	}
	if (m->n)
		qsort(m->r, m->n, sizeof(*m->r), range_cmp);
	m->mapped = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (m->r[i].start >= m->r[i].end)
			continue;
		if (out && m->r[i].start <= m->r[out - 1].end) {
			if (m->r[i].end > m->r[out - 1].end)
				m->r[out - 1].end = m->r[i].end;
			continue;
		}
		m->r[out++] = m->r[i];
	}
	m->n = out;
	for (size_t i = 0; i < m->n; i++)
		m->mapped += m->r[i].end - m->r[i].start;
}

static bool is_fat(const char *fstype)
{
	return !strcmp(fstype, "vfat") || !strcmp(fstype, "msdos");
}

static bool is_ext(const char *fstype)
{
	return !strcmp(fstype, "ext2") || !strcmp(fstype, "ext3") || !strcmp(fstype, "ext4");
}

static int fsmap_add_used(void *ctx, uint64_t start, uint64_t end)
{
	return imgp_fsmap_add_(ctx, start, end);
}

/* One partition: its used blocks, or all of it when they cannot be told. */
static int map_part(const struct imgp_image *img, const struct imgp_part *part,
		    struct imgp_fsmap *m)
{
	const struct imgp_used used = { fsmap_add_used, m };
	size_t before = m->n;
	int rc = -ENOTSUP;

	if (is_fat(part->fstype))
		rc = imgp_usedmap_fat_(img, part, &used);
	else if (is_ext(part->fstype))
		rc = imgp_usedmap_ext_(img, part, &used);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		/* A filesystem we cannot read the allocation of is needed whole. */
		if (rc != -ENOTSUP)
			imgp_debug(img->ctx, "p%d (%s): mapped whole: %s", part->number,
				   part->fstype, imgp_errmsg());
		imgp_errclear_();
		m->n = before;
		rc = imgp_fsmap_add_(m, part->start, part->start + part->size);
	}
	return rc;
}

/* Everything outside the partitions that hold a filesystem. */
static int map_outside(const struct imgp_table *tab, struct imgp_fsmap *m)
{
	struct imgp_fsmap parts = { 0 };
	uint64_t at = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < tab->nparts; i++)
		if (!tab->parts[i].container)
			rc = imgp_fsmap_add_(&parts, tab->parts[i].start,
					    tab->parts[i].start + tab->parts[i].size);
	if (parts.n)
		qsort(parts.r, parts.n, sizeof(*parts.r), range_cmp);
	for (size_t i = 0; !rc && i < parts.n; i++) {
		if (parts.r[i].start > at)
			rc = imgp_fsmap_add_(m, at, parts.r[i].start);
		if (parts.r[i].end > at)
			at = parts.r[i].end;
	}
	if (!rc && at < m->size)
		rc = imgp_fsmap_add_(m, at, m->size);
	fsmap_clear(&parts);
	return rc;
}

/* Fills the empty map out. */
static int fsmap_build(struct imgp_ctx *ctx, const char *path, struct imgp_fsmap *out)
{
	struct imgp_fsmap outside = { 0 };
	struct imgp_disk *disk;
	int rc;

	rc = imgp_disk_open(&disk, ctx, path, false);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		struct imgp_image img;

		/* No partition table we read: the image is needed whole. */
		imgp_errclear_();
		rc = imgp_image_open_(&img, path, false);
		if (rc)
			return imgp_fail_ctx(rc, "%s", path);
		out->size = img.size;
		imgp_image_close_(&img);
		rc = imgp_fsmap_add_(out, 0, out->size);
		fsmap_normalize(out);
		return rc;
	}
	out->size = outside.size = disk->img.size;
	rc = map_outside(&disk->tab, &outside);
	if (!rc) {
		fsmap_normalize(&outside);
		for (size_t i = 0; !rc && i < outside.n; i++)
			rc = imgp_fsmap_add_(out, outside.r[i].start, outside.r[i].end);
	}
	for (size_t i = 0; !rc && i < disk->tab.nparts; i++) {
		const struct imgp_part *part = &disk->tab.parts[i];

		if (part->container || part->start >= out->size)
			continue;
		rc = map_part(&disk->img, part, out);
	}
	imgp_disk_close(disk);
	if (rc) {
		fsmap_clear(&outside);
		return rc;
	}
	fsmap_normalize(out);
	out->outside = outside.r;
	out->noutside = outside.n;
	return 0;
}

int imgp_fsmap_build(struct imgp_ctx *ctx, const char *path, struct imgp_fsmap **out)
{
	int rc;

	*out = calloc(1, sizeof(**out));
	if (!*out)
		return imgp_fail(ENOMEM, "out of memory");
	rc = fsmap_build(ctx, path, *out);
	if (rc) {
		imgp_fsmap_free(*out);
		*out = NULL;
	}
	return rc;
}

uint64_t imgp_fsmap_mapped(const struct imgp_fsmap *m)
{
	return m->mapped;
}

void imgp_fsmap_free(struct imgp_fsmap *m)
{
	if (!m)
		return;
	fsmap_clear(m);
	free(m);
}
