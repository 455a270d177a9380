// SPDX-License-Identifier: MIT
/*
 * What dt-rpi-params.c and dt-rpi-overlay.c share: the Raspberry Pi
 * firmware's way of applying dtoverlay= and dtparam= lines works on trees
 * that grow as it edits them. Not part of any API: the entry points are
 * declared in dt.h.
 */
#ifndef IMGP_DT_RPI_H
#define IMGP_DT_RPI_H

#include "imgpatch.h"

/*
 * A positive return of the parameter engine: the firmware ignores what
 * the current message describes (a parameter the trees do not name, a
 * value that does not parse) and goes on; so does the engine, with a
 * warning.
 */
#define RPI_IGNORED 1

/* A tree being edited in a buffer of its own, grown as edits need room. */
struct rpi_tree {
	void *fdt;
	size_t size;             /* of the buffer */
	const char *what;        /* "the base tree", "overlay sdio": for messages */
};

/*
 * Copies the blob of len bytes into t (checked, with room to grow).
 * Returns 0 or -EINVAL/-EFBIG/-ENOMEM.
 */
int imgp_rpi_tree_load_(struct rpi_tree *t, const void *blob, size_t len,
		  const char *what);
/* An independent copy of src in dst. 0 or -ENOMEM. */
int imgp_rpi_tree_copy_(struct rpi_tree *dst, const struct rpi_tree *src);
void imgp_rpi_tree_free_(struct rpi_tree *t);
/* imgp_fail() for libfdt's err on t: -EINVAL ("<what>: <libfdt text>"). */
int imgp_rpi_tree_fail_(const struct rpi_tree *t, int err);

/*
 * libfdt's writes, growing t while they lack room. val must not point into
 * t (growing moves it). They return 0 (imgp_rpi_add_subnode_: the new node's
 * offset), or -errno with imgp_fail().
 */
int imgp_rpi_setprop_(struct rpi_tree *t, int node, const char *name,
		const void *val, int len);
int imgp_rpi_delprop_(struct rpi_tree *t, int node, const char *name);
int imgp_rpi_add_subnode_(struct rpi_tree *t, int parent, const char *name, int len);
int imgp_rpi_set_name_(struct rpi_tree *t, int node, const char *name);

/* The largest phandle of the tree; 0 when it has none. */
uint32_t imgp_rpi_max_phandle_(const void *fdt);

/*
 * Applies the comma-separated "name[=value]" list params (NULL: none) as
 * the firmware does: each name from ovl's __overrides__ (ovl may be NULL),
 * else from base's. A parameter the firmware ignores is skipped with a
 * warning into warnings (NULL: dropped) that starts with what
 * ("dtoverlay=sdio"). Returns 0 or -errno.
 */
int imgp_rpi_params_apply_(struct rpi_tree *ovl, struct rpi_tree *base,
		     const char *params, const char *what,
		     struct imgp_buf *warnings);

#endif
