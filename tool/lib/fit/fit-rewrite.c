// SPDX-License-Identifier: MIT
/*
 * Rewriting a FIT with one flat_dt image's tree replaced, for boot paths
 * that load the FIT's tree and nothing else. U-Boot checks every hash-*
 * node of an image it loads, so the image's hashes are recomputed; the
 * external payloads after it move when its size changes, and their
 * data-offset / data-position follow. A signature cannot be recomputed
 * without the key, so a signed FIT is refused rather than left broken.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fit/fit.h"

/* Room for the node's growth besides the new tree. */
#define REWRITE_SLACK 1024

static uint64_t align4(uint64_t v)
{
	return (v + 3) & ~(uint64_t)3;
}

static int fdt_err(int err, const char *what)
{
	return imgp_fail(EINVAL, "%s: %s", what, fdt_strerror(err));
}

/* A signature node in any child of parent ("/images", "/configurations"). */
static int refuse_signed(const void *fdt, const char *parent)
{
	int top = fdt_path_offset(fdt, parent), node, sub;

	if (top < 0)
		return 0;
	fdt_for_each_subnode(node, fdt, top) {
		fdt_for_each_subnode(sub, fdt, node) {
			const char *name = fdt_get_name(fdt, sub, NULL);

			if (name && strncmp(name, "signature", 9) == 0)
				return imgp_fail(EPERM,
						 "the FIT is signed (%s/%s/%s): re-signing needs the key; use --via override where the boot script loads one",
						 parent, fdt_get_name(fdt, node, NULL),
						 name);
		}
	}
	return 0;
}

/* Recomputes every hash-* node of node over data. */
static int rehash(void *fdt, int node, const char *image, const uint8_t *data,
		  size_t len)
{
	uint8_t digest[IMGP_FIT_HASH_MAX];
	int sub, n, rc, alen;

	fdt_for_each_subnode(sub, fdt, node) {
		const char *name = fdt_get_name(fdt, sub, NULL);
		const char *algo;

		if (!name || strncmp(name, "hash", 4) != 0)
			continue;
		algo = fdt_getprop(fdt, sub, "algo", &alen);
		if (!algo || alen < 1 || algo[alen - 1] != '\0')
			return imgp_fail(EBADMSG, "image '%s': %s has no algo",
					 image, name);
		n = imgp_fit_hash_(algo, data, len, digest);
		if (n < 0)
			return imgp_fail_ctx(n, "image '%s'", image);
		/* Same size as before: the structure does not move. */
		rc = fdt_setprop(fdt, sub, "value", digest, n);
		if (rc)
			return fdt_err(rc, name);
	}
	return 0;
}

/*
 * Where an external payload at old position pos lies in the new file:
 * shifted by the structure's growth, and by the tree's growth when it lies
 * after the tree.
 */
struct layout {
	uint64_t old_base, new_base; /* first byte after each structure, aligned */
	uint64_t tree_start, tree_end; /* the replaced payload, old file */
	uint64_t tail;               /* old: where the payloads after it start */
	int64_t tail_shift;          /* their shift besides the structure's */
	bool external;
};

static int new_position(const struct layout *l, const struct imgp_fit_image *img,
			uint64_t *out)
{
	int64_t shift = (int64_t)l->new_base - (int64_t)l->old_base;

	if (l->external && img->pos < l->tree_end && img->pos + img->size > l->tree_start)
		return imgp_fail(ENOTSUP,
				 "image '%s' shares payload bytes with the tree being replaced",
				 img->name);
	if (img->pos < l->old_base)
		return imgp_fail(ENOTSUP, "image '%s': external payload inside the FIT structure",
				 img->name);
	if (l->external && img->pos >= l->tree_end)
		shift += l->tail_shift;
	*out = (uint64_t)((int64_t)img->pos + shift);
	if (*out + img->size > UINT32_MAX)
		return imgp_fail(EFBIG, "image '%s' would lie beyond 4 GiB", img->name);
	return 0;
}

/* Points every external payload's data-offset / data-position at its new place. */
static int relocate(void *fdt, const struct imgp_fit *fit, const struct layout *l,
		    const struct imgp_fit_image *tree_img)
{
	int images = fdt_path_offset(fdt, "/images");

	for (size_t i = 0; i < fit->nimages; i++) {
		const struct imgp_fit_image *img = &fit->images[i];
		uint64_t pos = 0;
		int node, rc;

		if (!img->external)
			continue;
		if (img == tree_img)
			pos = l->tree_start + (l->new_base - l->old_base);
		else if ((rc = new_position(l, img, &pos)))
			return rc;
		node = fdt_subnode_offset(fdt, images, img->name);
		if (node < 0)
			return fdt_err(node, img->name);
		if (fdt_getprop(fdt, node, "data-position", NULL))
			rc = fdt_setprop_inplace_u32(fdt, node, "data-position",
						     (uint32_t)pos);
		else
			rc = fdt_setprop_inplace_u32(fdt, node, "data-offset",
						     (uint32_t)(pos - l->new_base));
		if (rc)
			return fdt_err(rc, img->name);
	}
	return 0;
}

/* The room the new structure may take: the old one, its growth and an embedded tree. */
static size_t structure_room(const struct imgp_fit *fit,
			     const struct imgp_fit_image *img, size_t tree_size)
{
	return fit->totalsize + REWRITE_SLACK + (img->external ? 0 : tree_size);
}

/*
 * Builds the new structure at the start of fdt (room bytes): the image's
 * data or data-size, and its hashes; packed.
 */
static int new_structure(const struct imgp_fit *fit,
			 const struct imgp_fit_image *img, const void *tree,
			 size_t tree_size, void *fdt, size_t room)
{
	int node, rc;

	rc = fdt_open_into(fit->blob, fdt, (int)room);
	node = rc ? rc : fdt_path_offset(fdt, "/images");
	if (node >= 0)
		node = fdt_subnode_offset(fdt, node, img->name);
	if (rc || node < 0)
		return fdt_err(rc ? rc : node, img->name);
	if (img->external)
		rc = fdt_setprop_u32(fdt, node, "data-size", (uint32_t)tree_size);
	else
		rc = fdt_setprop(fdt, node, "data", tree, (int)tree_size);
	if (rc)
		return fdt_err(rc, img->name);
	rc = rehash(fdt, node, img->name, tree, tree_size);
	if (!rc && (rc = fdt_pack(fdt)))
		rc = fdt_err(rc, "pack");
	return rc;
}

static int append_zeros(struct imgp_buf *b, size_t n)
{
	static const uint8_t zeros[4];

	return imgp_buf_append(b, zeros, n);
}

int imgp_fit_rewrite_(const struct imgp_fit *fit, const char *image,
		     const void *tree, size_t tree_size, struct imgp_buf *out)
{
	const struct imgp_fit_image *img = NULL;
	struct layout l = { 0 };
	size_t room;
	void *fdt;
	uint32_t total;
	int rc;

	out->len = 0;
	if (fit->rd.read)
		return imgp_fail(EINVAL, "the FIT must be read whole to be rewritten");
	for (size_t i = 0; i < fit->nimages; i++)
		if (strcmp(fit->images[i].name, image) == 0)
			img = &fit->images[i];
	if (!img)
		return imgp_fail(ENOENT, "image '%s' not found", image);
	if (tree_size > UINT32_MAX / 2)
		return imgp_fail(EFBIG, "tree too large");
	rc = refuse_signed(fit->blob, "/images");
	if (!rc)
		rc = refuse_signed(fit->blob, "/configurations");
	if (rc)
		return rc;
	l.external = img->external;
	l.old_base = align4(fit->totalsize);
	if (l.old_base > fit->size)
		l.old_base = fit->size;
	/*
	 * The new file is built in out alone, the structure in place at its
	 * start: room for all of it at once, so that no copy of a large
	 * embedded payload is made on the way (each alignment adds 3 at most).
	 */
	room = structure_room(fit, img, tree_size);
	if (imgp_buf_reserve_(out, room + 3 + (fit->size - l.old_base) +
				  (img->external ? tree_size + 3 : 0)))
		return imgp_fail(ENOMEM, "out of memory");
	fdt = out->data;
	rc = new_structure(fit, img, tree, tree_size, fdt, room);
	if (rc) {
		imgp_buf_free(out);
		return rc;
	}
	total = fdt_totalsize(fdt);
	out->len = total;
	l.new_base = align4(total);
	if (img->external) {
		uint64_t new_end;

		l.tree_start = img->pos;
		l.tree_end = img->pos + img->size;
		l.tail = align4(l.tree_end) < fit->size ? align4(l.tree_end) : fit->size;
		/* Payloads follow each other 4-byte aligned, as mkimage -E lays them. */
		new_end = l.tree_start + tree_size;
		if (l.tail < fit->size || l.tail > l.tree_end)
			new_end = align4(new_end);
		l.tail_shift = (int64_t)new_end - (int64_t)l.tail;
		if (l.tree_start < l.old_base)
			rc = imgp_fail(ENOTSUP, "image '%s': external payload inside the FIT structure",
				       image);
	}
	if (!rc)
		rc = relocate(fdt, fit, &l, img);
	/* After the structure, the bytes after it with the tree's spliced in. */
	if (!rc && l.old_base < fit->size)
		rc = append_zeros(out, l.new_base - total);
	if (!rc && img->external) {
		rc = imgp_buf_append(out, fit->blob + l.old_base,
				     l.tree_start - l.old_base);
		if (!rc)
			rc = imgp_buf_append(out, tree, tree_size);
		if (!rc)
			rc = append_zeros(out, (size_t)(l.tail + l.tail_shift -
							l.tree_start - tree_size));
		if (!rc)
			rc = imgp_buf_append(out, fit->blob + l.tail, fit->size - l.tail);
	} else if (!rc) {
		rc = imgp_buf_append(out, fit->blob + l.old_base, fit->size - l.old_base);
	}
	if (rc) {
		imgp_buf_free(out);
		return rc == -ENOMEM ? imgp_fail(ENOMEM, "out of memory") : rc;
	}
	return 0;
}
