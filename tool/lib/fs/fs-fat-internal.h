// SPDX-License-Identifier: MIT
/*
 * What the FAT backend's files (fs-fat.c, fat-map.c) share. Not part of
 * any API: the backend is reached through imgp_fs_fat_'s operations.
 */
#ifndef IMGP_FS_FAT_INTERNAL_H
#define IMGP_FS_FAT_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "imgpatch.h"
#include "fs/fs.h"
#include "fat-check.h"

/*
 * Every path of a FAT as "mdir -/ -b -a ::/" lists it, one a line, folders
 * ending in "/". Kept by the handle while neither imgpatch nor mtools
 * wrote to the image file (its identity, size and time stamp, the
 * partition's offset and the image's write count are the key): lookups and the folder list of a
 * commit then cost no mtools run. Not kept for block devices, whose time
 * stamp says nothing.
 */
struct fat_listing {
	uint64_t start;          /* the partition's offset in the image */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t writes;
	char *text;
	/* Every folder's clusters, when a file's mapping listed them too. */
	struct imgp_fat_ranges dir_chains;
	bool have_dir_chains;
};

/*
 * mtools is handed the image and the private copy as descriptors it
 * inherits, "/proc/self/fd/N@@OFFSET": it reads the name given to -i up to
 * its first "@@" and past a '|', and has a shell expand one with '$', '('
 * or '`' in it, so no name of the user's may reach it.
 */
struct fat_priv {
	char drive[64];          /* "-i" argument: the image's, or the private copy's */
	char src[64];            /* the image's own "-i" argument */
	struct imgp_fat_geom geom;
	int img_fd;              /* the image, for mtools */
	int copy_fd;             /* capture mode: the private copy (in memory), else -1 */
	struct imgp_fat_ranges filled; /* capture mode: what the copy holds of the image */
	char **dirs;             /* capture mode: mtools names of every directory */
	size_t ndirs;
	char **written;          /* capture mode: mtools names of the files written */
	size_t nwritten;
	struct fat_listing listing;
	/* The damage check's findings, kept while the image is not written. */
	struct imgp_fat_damage damage;
	uint64_t damage_writes;
	bool have_damage;
};

/* Chunk of the comparison after a capture. */
#define FAT_CHUNK ((size_t)1 << 20)
#define FAT_SECTOR 512
/* Names given to one mshowfat run, to keep argv short. */
#define FAT_DIRS_PER_RUN 256
/* A folder larger than this is not read for a file's size (mdir is asked). */
#define FAT_DIR_MAX ((uint64_t)4 << 20)
/* FAT32 has more clusters than this (the specification's bound). */
#define FAT16_MAX_CLUSTERS 65524

/* mtools must not read a user's ~/.mtoolsrc, nor refuse odd geometries. */
extern const char *const imgp_fat_mtools_env_[];

/*
 * Runs an mtools program (imgp_run_) whose -i argument is priv's drive or
 * src: it inherits their descriptors, and its message names the image or
 * the private copy, not a descriptor.
 */
int imgp_fat_run_(struct imgp_fs *fs, const char *const argv[],
		 const char *const env[], struct imgp_buf *out);
/* Runs mshowfat on one drive for names; their chains appended to out. */
int imgp_fat_chains_(struct imgp_fs *fs, const char *drive, char **names,
		    size_t n, struct imgp_fat_ranges *out);
/* The cached listing (struct fat_listing), made by one mdir run when stale. */
int imgp_fat_list_(struct imgp_fs *fs, const char **text);
/*
 * Refuses (-EUCLEAN, the finding named) to read path when the damage check
 * found its chain or a folder's on the way to it damaged; path NULL, for a
 * write: any finding refuses. Checked once while the image is not written.
 */
int imgp_fat_refuse_damage_(struct imgp_fs *fs, const char *path);
/* "::/path" as mtools names files on the -i drive. */
int imgp_fat_target_(const char *path, char *out, size_t outlen);
/* What the mtools name target is: 1 a file, 2 a folder, 0 missing, or -errno. */
int imgp_fat_kind_(struct imgp_fs *fs, const char *target);
/* The remove operation (fat-remove.c): mdel a file, mdeltree a folder. */
int imgp_fat_remove_(struct imgp_fs *fs, const char *path);
/* The map_file operation (fat-map.c): a file's clusters as image extents. */
int imgp_fat_map_file_(struct imgp_fs *fs, const char *path, struct imgp_file_map *out);

#endif
