/* SPDX-License-Identifier: MIT */
/*
 * format/: compression and archive formats: unpacking, packing, block-wise .xz.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_FORMAT_H
#define IMGP_FORMAT_H

#include "imgpatch.h"
#include "core/core.h"

/* ------------------------------------------------------------ xz-image.c */

/* A multi-block .xz image patched block-wise. */
struct imgp_xz_image;
/* How many blocks were written to, and (*nblocks) how many there are. */
size_t imgp_xz_image_changed_(const struct imgp_xz_image *xi, size_t *nblocks);
/*
 * Opens src for block-wise patching through work, an existing file made
 * the image's size (sparse) and filled on demand: an image opened on work
 * with imgp_xz_image_fill_() and xi as its filler reads through src.
 * threads: decoders and encoders (0: all cores). -ENOTSUP when src cannot
 * be patched block-wise (a single block, mixed checks...): then unpack it
 * whole.
 */
int imgp_xz_image_open_(struct imgp_xz_image **out, const char *src,
		       const char *work, unsigned threads);
/* The imgp_fill_fn of work, its ctx the struct imgp_xz_image. */
int imgp_xz_image_fill_(void *ctx, uint64_t off, uint64_t len, bool write);
/* Writes the patched .xz to fd: written blocks re-encoded, the others copied. */
int imgp_xz_image_write_(struct imgp_xz_image *xi, struct imgp_ctx *ctx, int fd);

void imgp_xz_image_close_(struct imgp_xz_image *xi);

/* ------------------------------------------------- unpack.c, pack.c, bmap.c */

/*
 * Every format is one entry of the registry in format/formats.c: its name,
 * --compress names, output suffix, how it is recognised and read, and how
 * it is written (levels, threads).
 */
/* True for a compressed stream imgpatch can also write (not raw, no archive). */
bool imgp_format_is_compressed_(enum imgp_format fmt);
/*
 * The output format a file name asks for: ".xz" XZ, ".gz" GZIP, ".zst"
 * ZSTD, ".bz2" BZIP2, ".lz4" LZ4, anything else RAW.
 */
enum imgp_format imgp_format_from_name_(const char *path);
/*
 * Detects the format of a file from its first bytes (magic numbers, via
 * libarchive's bidders). Returns 0 or -errno.
 */
int imgp_format_detect_(const char *path, enum imgp_format *fmt);
/*
 * Decompresses / extracts the one disk image in path into dst, with
 * progress. With zero_holes, runs of zero blocks become holes (a smaller
 * file, but one whose holes no longer tell "unused" from "zero": do not
 * make a bmap of it). An archive with no file or several files is -EINVAL
 * naming its entries. Returns 0 or -errno.
 */
int imgp_unpack_(struct imgp_ctx *ctx, const char *path, const char *dst, bool zero_holes);

/* Compresses the raw image src into dst, with progress. Returns 0 or -errno. */
int imgp_pack_(struct imgp_ctx *ctx, const char *src, const char *dst,
	      const struct imgp_pack_opts *opts);

/* ------------------------------------------------------ work.c, bmap.c */

/*
 * Any image imgpatch reads (raw, compressed, archived, a block device) as
 * a raw working image, and the working image written back. A raw image is
 * worked on as it is; anything else is unpacked into a working copy the
 * caller names (and removes), block-wise when it is a multi-block .xz that
 * will be written back as .xz (only the blocks read are decoded, only those
 * written re-encoded).
 */
struct imgp_work;

struct imgp_work_opts {
	/* How the result is written back; NULL: only read (never block-wise). */
	const struct imgp_pack_opts *out;
	bool whole;                 /* unpack whole: a bmap of the output needs it */
	bool zero_holes;            /* see imgp_unpack_() */
};

/*
 * Opens image read-only (until imgp_work_close_()) into a new *w and detects
 * its format (a block device is not read: RAW). Then imgp_work_unpack_() is
 * needed unless it is RAW. Returns 0 or -errno (*w NULL).
 */
int imgp_work_probe_(struct imgp_work **w, struct imgp_ctx *ctx, const char *image);
/* The format of image, by content (a device: RAW). */
enum imgp_format imgp_work_format_(const struct imgp_work *w);
/* The raw image to open: image, or its working copy (unpacked, or set). */
const char *imgp_work_path_(const struct imgp_work *w);
/* A raw image's working copy, which packing then reads (path must outlive w). */
void imgp_work_set_path_(struct imgp_work *w, const char *path);
/* imgp_lock_() on the file the probe opened (-EAGAIN: image names another now). */
int imgp_work_lock_(const struct imgp_work *w);
/*
 * imgp_disk_open() of the raw image read-only: a raw image through the
 * file the probe opened (not opened again), a working copy by its name.
 * Returns 0 or -errno.
 */
int imgp_work_disk_open_(struct imgp_work *w, struct imgp_disk **disk);
/*
 * Unpacks a compressed or archived image into copy (a file the caller
 * made), block-wise for a multi-block .xz written back as .xz with the
 * default level; the working copy is copy then. Returns 0 or -errno.
 */
int imgp_work_unpack_(struct imgp_work *w, const char *copy,
		     const struct imgp_work_opts *opts);
/*
 * Writes the working image into dst (created or truncated) as opts asks:
 * a block-wise .xz re-encodes only the blocks written to, other formats
 * compress it whole, RAW copies it sparse. Synced. Returns 0 or -errno.
 */
int imgp_work_pack_(struct imgp_work *w, const char *dst,
		   const struct imgp_pack_opts *opts);
/* True for a multi-block .xz patched block-wise: how many of its *nblocks changed. */
bool imgp_work_xz_blocks_(const struct imgp_work *w, size_t *changed, size_t *nblocks);
/* Closes and frees w (NULL: nothing; the copy itself stays the caller's). */
void imgp_work_close_(struct imgp_work *w);

/*
 * Writes a bmaptool 2.0 block map of the raw image at path (block size
 * 4096, mapped ranges from SEEK_DATA/SEEK_HOLE, a SHA256 per range and of
 * the map itself) to bmap_path. Returns 0 or -errno.
 */
int imgp_bmap_write_(struct imgp_ctx *ctx, const char *path, const char *bmap_path);
/*
 * The same, with the mapped ranges from the image's filesystems
 * (imgp_fsmap_build): for an image unpacked from a compressed stream, whose
 * unused blocks are not holes. Returns 0 or -errno.
 */
int imgp_bmap_write_fs_(struct imgp_ctx *ctx, const char *path, const char *bmap_path);

/* A working image. */
struct imgp_work {
	const char *image;          /* as given */
	enum imgp_format format;    /* of image, by content (a device: RAW) */
	const char *path;           /* the raw image to open: image, or the copy */
	struct imgp_xz_image *xz;   /* the block-wise .xz, or NULL */
	int fd;                     /* image, open read-only since the probe; -1 none */
	struct imgp_ctx *ctx;       /* the probe's: its disks and long work report there */
};

/* ----------------------------------------------------------------- fsmap.c */

/* Bytes [start, end) of an image. */
struct imgp_span {
	uint64_t start, end;
};

/* The blocks of an image that a card needs, sorted and merged. */
struct imgp_fsmap {
	struct imgp_span *r;     /* 4 KiB aligned; the last may end at size */
	size_t n, cap;
	uint64_t size;           /* the image's size */
	uint64_t mapped;         /* bytes in r */
	/* The part of r outside the partitions (tables, boot loaders, the
	 * GPT backup), sorted: imgp_flash writes there only what differs. */
	struct imgp_span *outside;
	size_t noutside;
};

/* Adds bytes [start, end) to m (in any order; imgp_fsmap_build sorts). */
int imgp_fsmap_add_(struct imgp_fsmap *m, uint64_t start, uint64_t end);

#endif /* IMGP_FORMAT_H */
