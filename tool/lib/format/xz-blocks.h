/* SPDX-License-Identifier: MIT */
/*
 * Block-wise access to .xz files (xz-blocks.c): read the index, decode
 * single blocks, and write a new file in which only the changed blocks are
 * compressed again while every other block is copied byte for byte.
 *
 * This pays off for files made by "xz -T N", which cuts the input into
 * independent blocks (3 x the dictionary size each, 24 MiB at the default
 * -6) and records every block in the index.
 */
#ifndef IMGP_XZ_BLOCKS_H
#define IMGP_XZ_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct imgp_ctx;

/* Larger blocks are not handled block-wise: each one is a buffer in memory. */
#define IMGP_XZ_BLOCK_MAX ((uint64_t)1 << 30)

/* An opened .xz file and its block table. */
struct imgp_xz;

/*
 * Opens path read-only and reads the footer, index and stream padding of
 * every stream, then every block header. Returns 0 and *out, or:
 *  -EINVAL when path is not an .xz file or its headers, index or footer are
 *   corrupt or do not fit the file (truncated);
 *  -ENOTSUP when the file is valid but cannot be patched block by block:
 *   fewer than two blocks, streams with different check types, a check type
 *   or filter liblzma cannot compute or encode, or a block larger than
 *   IMGP_XZ_BLOCK_MAX (the caller then falls back to streaming);
 *  -ENOMEM, or -errno when the file cannot be opened or read.
 * Messages do not repeat the path.
 */
int imgp_xz_open_(struct imgp_xz **out, const char *path);

/* Closes the file and frees the table; NULL is allowed. */
void imgp_xz_close_(struct imgp_xz *xz);

/* The uncompressed size of the whole file (all streams). */
uint64_t imgp_xz_size_(const struct imgp_xz *xz);

/* The number of blocks (of all streams together). */
size_t imgp_xz_nblocks_(const struct imgp_xz *xz);

/* The uncompressed offset and size of block i (i < imgp_xz_nblocks_()). */
void imgp_xz_block_range_(const struct imgp_xz *xz, size_t i, uint64_t *off,
			 uint64_t *size);

/* The block holding uncompressed offset off (off < imgp_xz_size_()). */
size_t imgp_xz_block_at_(const struct imgp_xz *xz, uint64_t off);

/*
 * Decodes block i into buf (imgp_xz_block_range_()'s size bytes) and
 * verifies its sizes and check. Only reads the file, so several threads may
 * decode at once. Returns 0, -EIO naming the block when its data is corrupt
 * or the check does not match, -ENOMEM, or -errno of a read.
 */
int imgp_xz_decode_block_(struct imgp_xz *xz, size_t i, void *buf);

/*
 * Writes a complete .xz file to fd, sequentially from its current position
 * (a pipe will do): one stream with the input's check type, holding the
 * blocks of every input stream in order, then a new index and footer.
 *
 * changed has imgp_xz_nblocks_() entries, or is NULL when nothing changed
 * (fill is then not called). A block with changed[i] false is copied byte
 * for byte (header, data, padding and check). For a changed block,
 * fill(ctx, i, buf) puts its new content into buf (the block's uncompressed
 * size, which cannot change) and returns 0 or a negative errno with a
 * message; the block is then compressed with its own filter chain: the
 * same filters and dictionary size in the header, lc/lp/pb taken from its
 * LZMA2 data, and the preset that goes with the dictionary size (-6 for
 * 8 MiB), since nothing records the preset. Its header records both sizes,
 * as "xz -T" does.
 *
 * fill is called on the calling thread, in block order; compression runs
 * on up to threads worker threads (0: one per CPU), with at most that many
 * changed blocks in memory at once. Progress goes to run (NULL: nowhere):
 * imgp_progress_("compressing", uncompressed bytes written, imgp_xz_size_()).
 * Returns 0, fill's error, -EIO/-errno of a read or write, or -ENOMEM. On
 * failure fd holds an incomplete file.
 */
int imgp_xz_rewrite_(struct imgp_xz *xz, int fd, const bool *changed,
		    int (*fill)(void *ctx, size_t block, void *buf), void *ctx,
		    unsigned threads, struct imgp_ctx *run);

#endif
