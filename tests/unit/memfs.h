/* SPDX-License-Identifier: MIT */
/*
 * A filesystem in memory behind struct imgp_fs_ops, and a survey made over
 * such filesystems: what the boot paths read, without an image. Shared by
 * the boot path unit tests (tests/unit/test-bootpath*.c) and the boot path
 * fuzzer (tests/fuzz/fuzz-bootpath.c).
 *
 * A folder is any prefix of a file's path up to a '/'; there are no
 * symbolic links and nothing is written.
 */
#ifndef IMGP_MEMFS_H
#define IMGP_MEMFS_H

#include <stddef.h>
#include <stdint.h>

#include "disk/disk.h"
#include "fs/fs.h"
#include "boot/boot.h"
#include "boot/bootpath.h"

struct memfs_file {
	char *path;
	uint8_t *data;           /* exactly len bytes: a read past them is caught */
	size_t len;
};

/* The files of one partition; zeroed is empty. */
struct memfs {
	struct memfs_file *files;
	size_t n;
};

/* The backend: a struct imgp_fs whose priv is a struct memfs. */
extern const struct imgp_fs_ops memfs_ops;

/* Adds a copy of len bytes of data as path (one already there is replaced). 0 or -ENOMEM. */
int memfs_add(struct memfs *m, const char *path, const void *data, size_t len);
/* memfs_add() of a string, without its NUL. */
int memfs_add_text(struct memfs *m, const char *path, const char *text);
/* The file at path; NULL: none. */
const struct memfs_file *memfs_find(const struct memfs *m, const char *path);
/* Frees every file; m is empty again. */
void memfs_clear(struct memfs *m);

/*
 * Surveys disk (its table's partitions, fs[i] the files of partition i,
 * NULL: no filesystem) into sv, which the caller zeroes and may preset
 * (sv->uboot, sv->fit_path), as imgp_survey_open_ does with
 * IMGP_SURVEY_BOOT: the root (the first with /etc/fstab), the first of the
 * npaths boot paths whose probe answers, the boot script, the hook file
 * and the path's describe. The image's own U-Boot is not read. Returns 0,
 * or the first failure (-ENOMEM); sv is then still for imgp_survey_close_.
 * The filesystems must outlive sv.
 */
int memfs_survey(struct imgp_survey *sv, struct imgp_disk *disk, struct memfs *const *fs,
		 const struct imgp_bootpath *const *paths, size_t npaths);

#endif
