/* SPDX-License-Identifier: MIT */
/*
 * fit/: FIT images: the index, payloads, hashes and rewriting one tree.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_FIT_H
#define IMGP_FIT_H

#include "imgpatch.h"
#include "core/core.h"

/* ------------------------------------------------------------------- fit.c */

/* The largest FIT read into memory. */
#define IMGP_FIT_MAX ((size_t)1 << 30)

struct imgp_fit_elided;

struct imgp_fit_image {
	char *name;              /* node name under /images */
	int index;               /* position among /images children (dumpimage -p) */
	int node;                /* its node's offset in the FIT's structure */
	char *type;              /* "kernel", "ramdisk", "flat_dt", ... */
	char *description;       /* may be "" */
	char *compression;       /* "none", "gzip", ... */
	char *hash_algos;        /* "sha1" or "crc32,sha1"; "" when none */
	bool external;           /* data-offset / data-position rather than data */
	/* Inside the FIT blob (bounds-checked), or NULL until imgp_fit_payload_() */
	const uint8_t *data;
	size_t size;
	uint64_t pos;            /* where a payload still NULL lies in the FIT file */
	uint8_t *loaded;         /* the payload, when read piecewise (owned) */
};

struct imgp_fit_conf {
	char *name;
	char *description;
	char *kernel;            /* image node names; NULL when absent */
	char *fdt;
	bool is_default;
};

struct imgp_fit {
	/* The whole FIT file, or its skeleton when read piecewise (owned). */
	uint8_t *blob;
	size_t size;             /* of the FIT file */
	uint32_t totalsize;      /* of the FIT structure in the file */
	struct imgp_reader rd;   /* piecewise: the file (owned); else read NULL */
	struct imgp_fit_elided *elided;
	size_t nelided;
	size_t nimages;
	struct imgp_fit_image *images;
	size_t nconfs;
	struct imgp_fit_conf *confs;
};

/*
 * Parses a FIT file, taking ownership of data (malloc'd, size bytes).
 * Checks the structure with fdt_check_full and every payload's bounds.
 * Returns 0 or -EINVAL with a message (data is freed on failure too).
 */
int imgp_fit_parse_(struct imgp_fit *fit, uint8_t *data, size_t size);
/*
 * Parses a FIT through a reader, taking ownership of it (closed on failure
 * too): only the structure is read, payloads when asked for. Falls back to
 * reading the file whole for trees the piecewise reader does not take.
 */
int imgp_fit_load_(struct imgp_fit *fit, struct imgp_reader *rd);
void imgp_fit_free_(struct imgp_fit *fit);
/*
 * Selects a flat_dt image by node name or by dumpimage index ("6").
 * -ENOENT with "fdt 'x' not found (have: a, b)" when there is none;
 * -EINVAL when the index names an image that is not flat_dt.
 */
int imgp_fit_find_fdt_(const struct imgp_fit *fit, const char *spec,
		      const struct imgp_fit_image **out);
/*
 * Verifies every hash-* subnode of an image (crc32, md5, sha1, sha256,
 * sha384, sha512). Returns 0, -EBADMSG on mismatch, -ENOTSUP for an unknown
 * algorithm.
 */
int imgp_fit_verify_(const struct imgp_fit *fit, const struct imgp_fit_image *img);
/*
 * Returns the verified, uncompressed payload of an image, owned by the FIT
 * (read from the file first when the FIT is read piecewise). -ENOTSUP for
 * compressed payloads.
 */
int imgp_fit_payload_(struct imgp_fit *fit, const struct imgp_fit_image *img,
		     const uint8_t **data, size_t *size);
/* The largest digest a FIT hash node holds (sha512). */
#define IMGP_FIT_HASH_MAX 64
/*
 * Computes a FIT hash (crc32 as one big-endian cell, md5, sha1, sha256,
 * sha384, sha512) of data into out. Returns the digest size or -ENOTSUP.
 */
int imgp_fit_hash_(const char *algo, const uint8_t *data, size_t len,
		  uint8_t out[IMGP_FIT_HASH_MAX]);

/* ----------------------------------------------------------- fit-rewrite.c */

/*
 * Builds a new FIT file in out from fit (parsed whole: imgp_fit_parse_) with
 * the payload of the image named image replaced by tree: its data (embedded
 * "data", or the external payload with data-size), its hash-* nodes
 * recomputed, the offsets and positions of the external payloads after it
 * moved with it; every other property and payload byte-identical. The
 * whole file is held in memory (old and new: about twice its size).
 * -EPERM when an image or configuration carries a signature node (the
 * message names it: re-signing needs the key), -ENOTSUP for payloads that
 * overlap, -EINVAL for a FIT read piecewise.
 */
int imgp_fit_rewrite_(const struct imgp_fit *fit, const char *image,
		     const void *tree, size_t tree_size, struct imgp_buf *out);

/* -------------------------------------------------------- fit-skeleton.c */

/* A property value left out of a FIT skeleton, and where it lies in the file. */
struct imgp_fit_elided {
	int node;                /* node offset in the skeleton */
	char *prop;
	uint64_t off;
	uint32_t len;
};

/*
 * Builds the structure of the flattened tree rd holds with every property
 * value longer than keep_max bytes left empty (recorded in *el instead),
 * reading only the tree's headers, strings and kept values. *totalsize is
 * the original tree's. Returns 0; -EINVAL for a broken tree; -ENOTSUP for
 * a header version before 17; -EFBIG past 32 MiB of structure.
 */
int imgp_fit_skeleton_(const struct imgp_reader *rd, size_t keep_max,
		      void **fdt, uint32_t *totalsize,
		      struct imgp_fit_elided **el, size_t *nel);
void imgp_fit_elided_free_(struct imgp_fit_elided *el, size_t n);

/* --------------------------------------------------------------- fit-load.c */

/*
 * Opens the FIT at path of fs piecewise where the backend maps files (only
 * its structure is read now, a payload when asked for; fs->img must stay
 * open while fit is used), else read whole. Errors carry "pN (type):
 * path"; -ENOENT when there is no such file.
 */
int imgp_fit_load_file_(struct imgp_fit *fit, struct imgp_fs *fs, const char *path);

#endif /* IMGP_FIT_H */
