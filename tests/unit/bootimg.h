/* SPDX-License-Identifier: MIT */
/*
 * What the boot path tests (test-bootpath-*.c) share: an image of one or
 * two partitions whose files are in memory (memfs.h), surveyed with every
 * boot path of the registry as imgp_survey_open_ tries them, and checks of
 * what a path answers (unit.h's CHECK lines).
 */
#ifndef IMGP_BOOTIMG_H
#define IMGP_BOOTIMG_H

#include <stdbool.h>
#include <stddef.h>

#include "imgpatch.h"
#include "part/part.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "memfs.h"

/* The registry's names, in the survey's order (survey.c). */
#define BOOTIMG_NPATHS 10
extern const char *const bootimg_paths[BOOTIMG_NPATHS];

/* p1 FAT "BOOT" and p2 ext4 "rootfs" (a test may change either), with their files. */
struct bootimg {
	struct memfs fs[2];
	struct imgp_part parts[2];
	struct imgp_disk disk;
	struct imgp_survey *sv;  /* the last bootimg_survey()'s */
};

/* An image of nparts (1 or 2) empty partitions. */
void bootimg_init(struct bootimg *im, size_t nparts);
/* Frees its files and its survey. */
void bootimg_free(struct bootimg *im);
/* Adds text as path on partition part (1 or 2); one there is replaced. */
void bootimg_put(struct bootimg *im, int part, const char *path, const char *text);
/* text as a script image at path, as mkimage -A arm64 -T script -n NAME makes it. */
void bootimg_put_script(struct bootimg *im, int part, const char *path, const char *name,
			const char *text);
/* Surveys im anew with every boot path of the registry (im->sv); memfs_survey's rc. */
int bootimg_survey(struct bootimg *im);

/* The path that claimed the image and its partition: "extlinux p1", "(none) p0". */
const char *bootimg_claimed(const struct bootimg *im);
/* describe()'s summary; "(none)". */
const char *bootimg_summary(const struct bootimg *im);
/* Tree i's path; "(no tree)". */
const char *bootimg_tree(const struct bootimg *im, size_t i);
/* Tree i's overlays, joined by blanks (storage reused by the next call). */
const char *bootimg_overlays(const struct bootimg *im, size_t i);

/*
 * Checks the kernel command line of model's tree (NULL: the path's) and
 * where it is kept, as cat --cmdline reads them (imgp_survey_cmdline).
 */
void bootimg_expect_cmdline(struct bootimg *im, const char *model, const char *line,
			    const char *where, const char *name);
/* Checks that imgp_survey_cmdline refuses with want (-errno) and message msg. */
void bootimg_expect_cmdline_refused(struct bootimg *im, const char *model, int want,
				    const char *msg, const char *name);
/*
 * Where the path puts a new overlay called name for tree i (its
 * overlay_site, as patch --via overlay asks), into site, and its list
 * file as imgp_patch_list_add_ then plans it with the entry, under
 * sections (NULL: none), NUL-terminated in list. 0 or the failure
 * (-ENOTSUP: the path has no overlay list, or no tree i).
 */
int bootimg_overlay_site(struct bootimg *im, size_t i, const char *name, const char *sections,
			 struct imgp_overlay_site *site, struct imgp_buf *list);

#endif
