/* SPDX-License-Identifier: MIT */
/*
 * boot/: U-Boot boot scripts and environment, and the survey's filesystems.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h; imgpatch-internal.h includes this header.
 */
#ifndef IMGP_BOOT_H
#define IMGP_BOOT_H

#include "imgpatch.h"

/* --------------------------------------------------------------- bootscr.c */

/*
 * Parses a legacy image: magic, header CRC, data size against len, data
 * CRC, type "script", no compression. Returns 0 or -EINVAL/-EBADMSG.
 */
int imgp_bootscr_parse(struct imgp_bootscr *scr, const void *data, size_t len);
void imgp_bootscr_free(struct imgp_bootscr *scr);
/* True when the script text mentions word (e.g. "user-override.dtb"). */
bool imgp_bootscr_mentions(const struct imgp_bootscr *scr, const char *word);
/*
 * Makes a legacy script image from text, byte-identical to
 * "mkimage -A ARCH -O linux -T script -C none -n NAME -d FILE" run with
 * SOURCE_DATE_EPOCH=time. arch: "arm64", "arm", "riscv", "x86_64", ...
 * name may be NULL (no -n). out is emptied first and receives the image.
 * Returns 0, or -EINVAL for an unknown arch, a name over 32 bytes or an
 * empty script (which mkimage and U-Boot refuse too).
 */
int imgp_bootscr_make(const char *text, size_t len, const char *name,
		      const char *arch, uint32_t time, struct imgp_buf *out);

/* ---------------------------------------------------- survey.c, bootpath-*.c */

/* The boot script names, in the order U-Boot's distro boot tries them. */
extern const char *const imgp_bootscr_paths[];
extern const size_t imgp_nbootscr_paths;

/*
 * Looks for U-Boot in img before the first partition of tab, at the places
 * each board family's documentation puts it (Rockchip, Allwinner, i.MX),
 * and reads its version and default environment into ub (ub->where NULL
 * when there is none). Reads at most a few MiB; never fails on what it
 * reads. Returns 0, or -ENOMEM.
 */
int imgp_uboot_read(const struct imgp_image *img, const struct imgp_table *tab,
		    struct imgp_uboot *ub);
void imgp_uboot_free(struct imgp_uboot *ub);

/* The open filesystem of part; NULL with -ENOTSUP's message when there is none. */
struct imgp_fs *imgp_survey_fs(const struct imgp_survey *sv,
			       const struct imgp_part *part);

#endif /* IMGP_BOOT_H */
