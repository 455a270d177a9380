/* SPDX-License-Identifier: MIT */
/*
 * format/: compression and archive formats: unpacking, packing, block-wise .xz.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h; imgpatch-internal.h includes this header.
 */
#ifndef IMGP_FORMAT_H
#define IMGP_FORMAT_H

#include "imgpatch.h"

/* ------------------------------------------------------------ xz-image.c */

/* A multi-block .xz image patched block-wise. */
struct imgp_xz_image;
/* How many blocks were written to, and (*nblocks) how many there are. */
size_t imgp_xz_image_changed(const struct imgp_xz_image *xi, size_t *nblocks);
/*
 * Opens src for block-wise patching through work, an existing file made
 * the image's size (sparse) and filled on demand: an image opened on work
 * with imgp_xz_image_fill() and xi as its filler reads through src.
 * threads: decoders and encoders (0: all cores). -ENOTSUP when src cannot
 * be patched block-wise (a single block, mixed checks...): then unpack it
 * whole.
 */
int imgp_xz_image_open(struct imgp_xz_image **out, const char *src,
		       const char *work, unsigned threads);
/* The imgp_fill_fn of work, its ctx the struct imgp_xz_image. */
int imgp_xz_image_fill(void *ctx, uint64_t off, uint64_t len, bool write);
/* Writes the patched .xz to fd: written blocks re-encoded, the others copied. */
int imgp_xz_image_write(struct imgp_xz_image *xi, struct imgp_ctx *ctx, int fd);

void imgp_xz_image_close(struct imgp_xz_image *xi);

/* ------------------------------------------------- unpack.c, pack.c, bmap.c */

/*
 * Detects the format of a file from its first bytes (magic numbers, via
 * libarchive's bidders). Returns 0 or -errno.
 */
int imgp_format_detect(const char *path, enum imgp_format *fmt);
/*
 * Decompresses / extracts the one disk image in path into dst, with
 * progress. With zero_holes, runs of zero blocks become holes (a smaller
 * file, but one whose holes no longer tell "unused" from "zero": do not
 * make a bmap of it). An archive with no file or several files is -EINVAL
 * naming its entries. Returns 0 or -errno.
 */
int imgp_unpack(struct imgp_ctx *ctx, const char *path, const char *dst, bool zero_holes);

/* Compresses the raw image src into dst, with progress. Returns 0 or -errno. */
int imgp_pack(struct imgp_ctx *ctx, const char *src, const char *dst,
	      const struct imgp_pack_opts *opts);

/* ----------------------------------------------------------------- work.c */

/* A working image (imgpatch.h). */
struct imgp_work {
	const char *image;          /* as given */
	enum imgp_format format;    /* of image, by content (a device: RAW) */
	const char *path;           /* the raw image to open: image, or the copy */
	struct imgp_xz_image *xz;   /* the block-wise .xz, or NULL */
	int fd;                     /* image, open read-only since the probe; -1 none */
	struct imgp_ctx *ctx;       /* the probe's: its disks and long work report there */
};


#endif /* IMGP_FORMAT_H */
