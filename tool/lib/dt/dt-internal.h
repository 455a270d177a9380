// SPDX-License-Identifier: MIT
/*
 * What the device tree files share. Not part of any API: the device tree
 * operations are declared in imgpatch-internal.h.
 */
#ifndef IMGP_DT_INTERNAL_H
#define IMGP_DT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "imgpatch-internal.h"

/* Deleting only shrinks a tree; the slack is for edits that add bytes. */
#define DT_SLACK 65536

/* dt-lookup.c: name is base with or without a unit address */
bool imgp_dt_base_eq(const char *name, const char *base, size_t len);
/* dt-lookup.c: -EINVAL "broken device tree" for a libfdt walk error */
int imgp_dt_walk_error(int rc);
/* dt-mmc.c: node is an SD/eMMC controller (by name or compatible) */
bool imgp_dt_is_mmc(const void *fdt, int node);
/* dt-value.c: dtc's guess that a property without type markers is strings */
bool imgp_dt_looks_like_strings(const uint8_t *p, int len);

#endif
