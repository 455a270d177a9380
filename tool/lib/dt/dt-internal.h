// SPDX-License-Identifier: MIT
/*
 * What the device tree files share. Not part of any API: the device tree
 * operations are declared in dt.h.
 */
#ifndef IMGP_DT_INTERNAL_H
#define IMGP_DT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "imgpatch.h"

/* Deleting only shrinks a tree; the slack is for edits that add bytes. */
#define DT_SLACK 65536

/* dt-lookup.c: name is base with or without a unit address */
bool imgp_dt_base_eq_(const char *name, const char *base, size_t len);
/* dt-lookup.c: -EINVAL "broken device tree" for a libfdt walk error */
int imgp_dt_walk_error_(int rc);
/* dt-mmc.c: node is an SD/eMMC controller (by name or compatible) */
bool imgp_dt_is_mmc_(const void *fdt, int node);
/* dt-value.c: dtc's guess that a property without type markers is strings */
bool imgp_dt_looks_like_strings_(const uint8_t *p, int len);

/* A "path:property:offset" entry of a fixup list, checked against its overlay. */
struct imgp_dt_fixup {
	int node;
	const char *name;        /* the property's name, namelen bytes */
	int namelen;
	uint32_t offset;         /* with 4 bytes for a phandle inside the property */
};
/*
 * Parses entry (NUL-terminated): a path from the root to a node of ovl, a
 * property it has, a decimal offset with room for a phandle there.
 * Returns 0 or -EBADMSG "entry '...': <what is wrong>".
 */
int imgp_dt_fixup_parse_(const void *ovl, const char *entry, struct imgp_dt_fixup *fx);
/*
 * What an overlay says of itself, checked before anything follows it:
 * nesting, every __fixups__ entry (imgp_dt_fixup_parse_), every
 * __local_fixups__ offset inside its property. Returns 0 or -EBADMSG
 * naming the entry.
 */
int imgp_dt_overlay_check_shape_(const void *ovl);
/*
 * The shape, then the overlay against the base libfdt applies it to:
 * each target-path an alias only to a path from the root (-EBADMSG), each
 * label in the base's __symbols__ with a node and phandle (-EINVAL
 * "unresolved label 'x' (overlay fragment@0)", "the base tree has no
 * __symbols__ ..."). Returns 0 or -errno.
 */
int imgp_dt_overlay_check_(const void *base, const void *ovl);

#endif
