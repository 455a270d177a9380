/* SPDX-License-Identifier: MIT */
/*
 * dt/: device-tree blobs: loading, lookup, values, edits, overlays, SD/eMMC controllers.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_DT_H
#define IMGP_DT_H

#include "imgpatch.h"

/* -------------------------------------------------------------------- dt.c */

/* A device tree blob in a buffer that can grow. */
struct imgp_dtb {
	void *fdt;
	size_t bufsize;
};

/*
 * The tree as dtc -I dtb -O dts would print it (same layout, so that two
 * renderings diff line by line). Returns 0 or -errno.
 */
int imgp_dt_to_dts_(const struct imgp_dtb *dtb, struct imgp_buf *out);

/* SD/eMMC controller nodes and the properties that limit their speed. */
struct imgp_dt_mmc_prop {
	char name[32];
	char value[128];         /* formatted; "" for an empty (boolean) property */
};
/* What a controller's slot holds, as the binding properties tell. */
enum imgp_dt_mmc_kind {
	IMGP_DT_MMC_SD,          /* a removable card slot */
	IMGP_DT_MMC_EMMC,        /* a soldered eMMC */
	IMGP_DT_MMC_SDIO,        /* an SDIO function (Wi-Fi, Bluetooth) */
};
struct imgp_dt_mmc {
	char path[256];
	char status[16];         /* "okay" when absent */
	enum imgp_dt_mmc_kind kind;
	size_t nprops;
	struct imgp_dt_mmc_prop *props;  /* every speed property the node has (nprops) */
};

/* Copies and checks (fdt_check_full) a blob. Returns 0 or -EINVAL. */
int imgp_dtb_load_(struct imgp_dtb *dtb, const void *blob, size_t size);
void imgp_dtb_free_(struct imgp_dtb *dtb);
/* Packs the tree (fdt_pack) and returns its bytes and size. */
int imgp_dtb_finish_(struct imgp_dtb *dtb, const void **blob, size_t *size);
/*
 * Resolves a node spec: "/abs/path", "name@unit", "name" (any unit address)
 * or "&label" (via __symbols__). Returns the node offset, -ENOENT when none
 * matches or -EEXIST when several do; both messages list candidate paths.
 */
int imgp_dt_find_node_(const struct imgp_dtb *dtb, const char *spec);
/*
 * The node at path (len bytes) as libfdt's fdt_path_offset_namelen() finds
 * it, but through an alias only when the alias's value is a path from the
 * root: libfdt 1.6.1 follows an alias naming an alias until its stack runs
 * out, and trees come from images. Every path read from an image is
 * looked up here. Returns the offset or a libfdt error: -FDT_ERR_BADVALUE
 * for such an alias.
 */
int imgp_dt_path_offset_(const void *fdt, const char *path, int len);
/* Full path of a node into out. Returns 0 or -ENAMETOOLONG. */
int imgp_dt_node_path_(const struct imgp_dtb *dtb, int node, char *out,
		      size_t outlen);
/* Deletes a property. Returns 0 when deleted, 1 when it was absent. */
int imgp_dt_delete_prop_(struct imgp_dtb *dtb, int node, const char *prop);
/* Whether the node at path has prop; false when there is no such node. */
bool imgp_dt_has_prop_(const struct imgp_dtb *dtb, const char *path,
		      const char *prop);
/*
 * Whether the node has another property of a name close to prop (another
 * case, or an edit distance of at most 2): a name the node lacks is then
 * a typo, not one an earlier run deleted.
 */
bool imgp_dt_prop_is_typo_(const struct imgp_dtb *dtb, int node, const char *prop);
/*
 * -ENOENT for a property the node lacks, the message naming the ones it has
 * with a close name (a typo, another case), or else all it has.
 */
int imgp_dt_prop_not_found_(const struct imgp_dtb *dtb, int node,
			   const char *prop);
/*
 * Formats a property value as dtc would print it ("<0x01 0x02>", "\"a\", \"b\"",
 * "[01 02]", "" for empty) into out. Returns 0 or -ENOSPC (truncated).
 */
int imgp_dt_format_value_(const void *val, int len, char *out, size_t outlen);

/*
 * Parses a property value written as in dtc source: "<1 0x2>" u32 cells,
 * "\"a\", \"b\"" strings, "[01 02]" bytes, "" (empty); a bare number
 * ("150000000", "0x20") is one u32 cell and any other bare word one string
 * ("okay"). Returns 0 or -EINVAL naming the problem.
 */
int imgp_dt_parse_value_(const char *text, struct imgp_buf *out);
/* Creates or replaces a property, growing the buffer. Returns 0 or -errno. */
int imgp_dt_set_prop_(struct imgp_dtb *dtb, int node, const char *prop,
		     const void *val, size_t len);
/*
 * Finds or creates the node at an absolute path, creating missing parents.
 * Returns its offset or -errno.
 */
int imgp_dt_add_node_(struct imgp_dtb *dtb, const char *path);
/* Deletes a node and its subtree. Returns 0 or -errno. */
int imgp_dt_delete_node_(struct imgp_dtb *dtb, int node);
/*
 * Applies a compiled overlay (.dtbo) with fdt_overlay_apply, on copies so
 * that a failure leaves dtb as it was. An overlay that refers to labels
 * (__fixups__) needs a base with __symbols__: -EINVAL "the base tree has no
 * __symbols__ (compile it with dtc -@)"; a label the base lacks: -EINVAL
 * "unresolved label 'x' (overlay fragment@0)". Returns 0 or -errno.
 */
int imgp_dt_apply_overlay_(struct imgp_dtb *dtb, const void *overlay,
			  size_t len);
/*
 * The same, with the room U-Boot's fdt apply has: the tree's total size is
 * total bytes, and an overlay that needs more fails as libfdt's
 * FDT_ERR_NOSPACE does there: -ENOSPC "does not fit ...: the tree needs N
 * bytes, the loader gives it M". Returns 0 or -errno.
 */
int imgp_dt_apply_overlay_in_(struct imgp_dtb *dtb, const void *overlay, size_t len,
			     size_t total);
/* The bytes of the tree's blocks (header to the end of its strings). */
size_t imgp_dt_used_(const struct imgp_dtb *dtb);

/*
 * Lists SD/eMMC host controllers (nodes with registers whose compatible
 * names a host driver; a node named mmc or sdhci without any compatible)
 * with what their slot holds and the properties no-1-8-v, max-frequency,
 * bus-width, sd-uhs-*, mmc-hs200-*, mmc-hs400-*: every one, in *out
 * (malloc'd, free() it: the properties live in the same block; NULL
 * when none) and their number in *n, as many controllers and properties
 * as the tree has. A property name longer than a name field holds is a
 * warning into warnings (imgp_warn_into_(); NULL: dropped). Returns 0 or
 * -errno.
 */
int imgp_dt_list_mmc_(const struct imgp_dtb *dtb, struct imgp_dt_mmc **out, size_t *n,
		     struct imgp_buf *warnings);
/* What the slot of controller node holds; its name "sd", "emmc", "sdio". */
enum imgp_dt_mmc_kind imgp_dt_mmc_kind_of_(const void *fdt, int node);
const char *imgp_dt_mmc_kind_name_(enum imgp_dt_mmc_kind kind);

/* --------------------------------------------------------- mmc-hosts.c */

/* Whether a host controller can do a bus mode. */
enum imgp_mmc_cap { IMGP_MMC_CAP_UNKNOWN, IMGP_MMC_CAP_NO, IMGP_MMC_CAP_YES };

/* What an SD/eMMC host controller can do, and who says so. */
struct imgp_mmc_host {
	const char *compatible;
	bool sdhci;              /* also reads its modes from capability registers */
	enum imgp_mmc_cap uhs;   /* UHS-I (1.8 V) modes of SD cards */
	enum imgp_mmc_cap hs200;
	enum imgp_mmc_cap hs400;
	unsigned max_hz;         /* the SoC tree's clock for it; 0: unknown */
	const char *source;      /* the driver file (Linux 6.1) or tree that says so */
};
/* The table's entry for node's compatible list, or NULL. */
const struct imgp_mmc_host *imgp_mmc_host_find_(const void *fdt, int node);

/* ------------------------------------------------------------- dt-blob.c */

/*
 * fdt_check_header and fdt_check_full of a blob (bufsize bytes, aligned
 * for libfdt), safe with every libfdt: before 1.7.0 (Debian 12 has 1.6.1)
 * fdt_next_tag() adds a property's length to an int, so a length near
 * 4 GiB steps back onto the same tag and fdt_check_full() never returns.
 * Returns 0 or a libfdt error (-FDT_ERR_*) for fdt_strerror().
 */
int imgp_fdt_check_full_(const void *fdt, size_t bufsize);

/* --------------------------------------- dt-rpi-params.c, dt-rpi-overlay.c */

/*
 * The Raspberry Pi firmware's dtparam= line: the comma-separated
 * "name[=value]" list params applied through the __overrides__ of the tree
 * in *fdt (*size bytes; replaced by a new malloc'd buffer on success, left
 * unchanged on failure). A parameter the firmware ignores (unknown name,
 * value that does not parse) is skipped with a warning into warnings
 * (imgp_warn_into_(); NULL: dropped), starting with what (NULL: "dtparam").
 * Returns 0, or -EINVAL (broken tree or __overrides__), -ENOMEM, -EFBIG.
 */
int imgp_rpi_dtparam_(void **fdt, size_t *size, const char *params,
		     const char *what, struct imgp_buf *warnings);
/*
 * The firmware's dtoverlay=name,params line: the overlay blob (len bytes)
 * resolved against the tree in *fdt, its parameters (the overlay's
 * __overrides__ first, then the base's) applied, its active fragments
 * merged, all as dtmerge does. *fdt, what (NULL: "dtoverlay=name") and
 * warnings as for imgp_rpi_dtparam_(). Returns 0, or -ENOENT (a label,
 * target or target-path the base lacks), -EINVAL, -ENOMEM, -EFBIG.
 */
int imgp_rpi_dtoverlay_(void **fdt, size_t *size, const void *overlay,
		       size_t len, const char *name, const char *params,
		       const char *what, struct imgp_buf *warnings);

#endif /* IMGP_DT_H */
