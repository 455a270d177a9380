// SPDX-License-Identifier: MIT
/*
 * Applying a device tree overlay, with the reason named when it does not
 * apply.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "dt-internal.h"
#include "dt/dt.h"

/* ------------------------------------------------------------- overlays */

/*
 * A tree without a single fragment would "apply" as a silent no-op. One
 * whose fragments are all __dormant__ is a parameter-only overlay (Raspberry
 * Pi's): its fragments take effect only when a parameter of the firmware's
 * dtoverlay= enables them, so recompiling it would not help.
 */
static int dt_check_fragments(const void *ovl)
{
	int frag, dormant = 0;

	fdt_for_each_subnode(frag, ovl, 0) {
		if (fdt_subnode_offset(ovl, frag, "__overlay__") >= 0)
			return 0;
		if (fdt_subnode_offset(ovl, frag, "__dormant__") >= 0)
			dormant++;
	}
	if (dormant)
		return imgp_fail(EINVAL, "overlay has only dormant fragments (__dormant__): a parameter enables them when the firmware applies it (dtoverlay=NAME,PARAM in config.txt); applied as it is, it would change nothing");
	return imgp_fail(EINVAL, "not an overlay: no fragment has an __overlay__ node (compile it from a /plugin/; source)");
}

/*
 * The fragment whose __overlay__ node carries a phandle of its own (its label
 * is referenced, as Raspberry Pi overlays' __overrides__ do): libfdt cannot
 * merge such a node and says only FDT_ERR_NOTFOUND. NULL when there is none.
 */
static const char *dt_overlay_with_phandle(const void *ovl)
{
	int frag, node;

	fdt_for_each_subnode(frag, ovl, 0) {
		node = fdt_subnode_offset(ovl, frag, "__overlay__");
		if (node >= 0 && (fdt_getprop(ovl, node, "phandle", NULL) ||
				  fdt_getprop(ovl, node, "linux,phandle", NULL)))
			return fdt_get_name(ovl, frag, NULL);
	}
	return NULL;
}

/* After a failed apply: a target-path the base lacks is the usual reason. */
static int dt_explain_overlay(const void *base, const void *ovl, int err)
{
	const char *path, *name;
	int frag, len;

	fdt_for_each_subnode(frag, ovl, 0) {
		path = fdt_getprop(ovl, frag, "target-path", &len);
		if (!path || len < 2 || path[len - 1] != '\0')
			continue;
		if (imgp_dt_path_offset_(base, path, len - 1) >= 0)
			continue;
		name = fdt_get_name(ovl, frag, NULL);
		return imgp_fail(ENOENT, "overlay %s: target-path '%s' is not in the base tree",
				 name ? name : "?", path);
	}
	name = err == -FDT_ERR_NOTFOUND ? dt_overlay_with_phandle(ovl) : NULL;
	if (name)
		return imgp_fail(EINVAL, "cannot apply the overlay: the __overlay__ node of %s has a phandle of its own (a label that __overrides__ or another node refers to), which libfdt cannot merge; the Raspberry Pi firmware applies such overlays through dtoverlay= in config.txt",
				 name);
	return imgp_fail(EINVAL, "cannot apply the overlay: %s", fdt_strerror(err));
}

/* Where the tree's data ends: the room it needs (libfdt's layout, strings last). */
static size_t dt_used(const void *fdt)
{
	return (size_t)fdt_off_dt_strings(fdt) + fdt_size_dt_strings(fdt);
}

/*
 * The overlay applied into a tree of *total bytes (0: as much room as it
 * needs, *total then the size used), as U-Boot applies it in place.
 */
static int dt_apply_overlay(struct imgp_dtb *dtb, const void *overlay,
			    size_t len, size_t *total)
{
	void *ovl = NULL, *ovl_work = NULL, *base = NULL, *packed = NULL;
	const void *src = dtb->fdt;
	size_t olen, size;
	int rc, tries;

	if (len < sizeof(struct fdt_header))
		return imgp_fail(EINVAL, "overlay is not a device tree blob: only %zu bytes",
				 len);
	if (len > INT_MAX / 4)
		return imgp_fail(EFBIG, "overlay is too large (%zu bytes)", len);
	/* libfdt wants 8-byte alignment; the caller's bytes may lack it. */
	ovl = malloc(len);
	if (!ovl)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(ovl, overlay, len);
	rc = fdt_check_header(ovl);
	if (rc) {
		rc = imgp_fail(EINVAL, "overlay is not a device tree blob: %s",
			       fdt_strerror(rc));
		goto out;
	}
	olen = fdt_totalsize(ovl);
	if (olen > len) {
		rc = imgp_fail(EINVAL, "overlay is %zu bytes but only %zu are there (truncated?)",
			       olen, len);
		goto out;
	}
	rc = imgp_fdt_check_full_(ovl, olen);
	if (rc) {
		rc = imgp_fail(EINVAL, "broken overlay: %s", fdt_strerror(rc));
		goto out;
	}
	rc = dt_check_fragments(ovl);
	if (!rc)
		rc = imgp_dt_overlay_check_(dtb->fdt, ovl);
	if (rc)
		goto out;

	/*
	 * fdt_overlay_apply() changes both trees and leaves them corrupt when
	 * it fails, so it works on copies; room for the whole overlay is
	 * nearly always enough, more is tried a few times.
	 */
	size = *total ? *total : fdt_totalsize(dtb->fdt) + olen + DT_SLACK;
	if (*total && *total < dt_used(dtb->fdt)) {
		rc = imgp_fail(ENOSPC, "the tree has no room left: %zu bytes of %zu used",
			       dt_used(dtb->fdt), *total);
		goto out;
	}
	if (*total) {
		/* Its total size as U-Boot has it, not this buffer's. */
		packed = malloc(dtb->bufsize);
		if (!packed) {
			rc = imgp_fail(ENOMEM, "out of memory");
			goto out;
		}
		memcpy(packed, dtb->fdt, dtb->bufsize);
		fdt_pack(packed);
		src = packed;
	}
	ovl_work = malloc(olen);
	if (!ovl_work) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (tries = 0;; tries++) {
		if (size > INT_MAX) {
			rc = imgp_fail(EFBIG, "device tree would grow past %d bytes",
				       INT_MAX);
			goto out;
		}
		base = malloc(size);
		if (!base) {
			rc = imgp_fail(ENOMEM, "out of memory");
			goto out;
		}
		rc = fdt_open_into(src, base, (int)size);
		if (rc) {
			rc = imgp_fail(EINVAL, "cannot open device tree: %s",
				       fdt_strerror(rc));
			goto out;
		}
		memcpy(ovl_work, ovl, olen);
		rc = fdt_overlay_apply(base, ovl_work);
		if (rc != -FDT_ERR_NOSPACE || tries == 3 || *total)
			break;
		free(base);
		base = NULL;
		size *= 2;
	}
	if (rc == -FDT_ERR_NOSPACE && *total) {
		/* What it would need: the same overlay with room to spare. */
		struct imgp_dtb probe = { 0 };
		size_t need = 0;

		probe.fdt = malloc(dtb->bufsize);
		probe.bufsize = dtb->bufsize;
		rc = probe.fdt ? 0 : imgp_fail(ENOMEM, "out of memory");
		if (!rc) {
			memcpy(probe.fdt, dtb->fdt, dtb->bufsize);
			rc = dt_apply_overlay(&probe, overlay, len, &need);
		}
		imgp_dtb_free_(&probe);
		if (!rc)
			rc = imgp_fail(ENOSPC, "does not fit (FDT_ERR_NOSPACE): the tree needs %zu bytes, the loader gives it %zu (%zu more)",
				       need, *total, need - *total);
		goto out;
	}
	if (rc) {
		rc = dt_explain_overlay(dtb->fdt, ovl, rc);
		goto out;
	}
	if (!*total)
		*total = dt_used(base);
	free(dtb->fdt);
	dtb->fdt = base;
	dtb->bufsize = size;
	base = NULL;
out:
	free(packed);
	free(base);
	free(ovl_work);
	free(ovl);
	return rc;
}

int imgp_dt_apply_overlay_(struct imgp_dtb *dtb, const void *overlay, size_t len)
{
	size_t total = 0;

	return dt_apply_overlay(dtb, overlay, len, &total);
}

int imgp_dt_apply_overlay_in_(struct imgp_dtb *dtb, const void *overlay, size_t len,
			     size_t total)
{
	return dt_apply_overlay(dtb, overlay, len, &total);
}

size_t imgp_dt_used_(const struct imgp_dtb *dtb)
{
	return dt_used(dtb->fdt);
}
