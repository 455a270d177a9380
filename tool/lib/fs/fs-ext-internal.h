// SPDX-License-Identifier: MIT
/*
 * What the ext backend's files (fs-ext*.c) share. Not part of any API: the
 * backend is reached through imgp_fs_ext_'s operations. Every function that
 * fails records its message (imgp_fail) and returns a negative errno.
 */
#ifndef IMGP_FS_EXT_INTERNAL_H
#define IMGP_FS_EXT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <ext2fs/ext2fs.h>

#include "imgpatch.h"
#include "core/core.h"

/* libext2fs reads and writes files through an unsigned int count. */
#define EXT_IO_CHUNK (1u << 20)

/* What imgp_ext_set_times_ sets. */
#define EXT_TIME_MTIME 1u        /* mtime and ctime: content changed */
#define EXT_TIME_ALL   2u        /* also atime and crtime: a new inode */

/* The usage a write changes, for the quota check. */
struct ext_usage {
	blk64_t free_blocks;
	ext2_ino_t free_inodes;
};

/* -------------------------------------------------- fs-ext.c: errors */

/* libext2fs's text for err in buf, without the full stop some of it ends in. */
const char *imgp_ext_why_(errcode_t err, char *buf, size_t size);
/* Records libext2fs's text for err and returns the matching -errno. */
int imgp_ext_err_(errcode_t err);
/* Records "<context>: <libext2fs text>" and returns the matching -errno. */
int imgp_ext_fail_(errcode_t err, const char *fmt, ...) IMGP_PRINTF(2, 3);

/* ------------------------------------------------------ fs-ext-damage.c */

/* Refuses a filesystem that needs recovery or has errors (-EUCLEAN). */
int imgp_ext_check_clean_(ext2_filsys efs, const char *type);
/* Once, when opened for writing: MMP, the bitmaps, the damage check. */
int imgp_ext_check_writable_(ext2_filsys efs, const char *type);
/* The directories on path: each must read and name only inodes in use. */
int imgp_ext_check_dirs_(ext2_filsys efs, const char *type, const char *path);

/* ------------------------------------------------------- fs-ext-tree.c */

/*
 * The directories in use (dirs) form a tree from /: each reached by one
 * entry, "." and ".." right. What is wrong goes into finding (size bytes,
 * "" when nothing), as e2fsck words it; returns 0, or -errno when the check
 * itself cannot run.
 */
int imgp_ext_check_tree_(ext2_filsys efs, ext2fs_inode_bitmap dirs,
			char *finding, size_t size);

/* -------------------------------------------------------- fs-ext-path.c */

/* -EINVAL for an empty path. */
int imgp_ext_check_path_(const char *path);
/*
 * path's inode, looked up name by name from the root: a symbolic link on
 * the way (the last name's too when follow) is replaced by its target, at
 * most 40 in all. 0, -ENOENT ("not found"), -ENOTDIR, -ELOOP or -errno.
 */
int imgp_ext_resolve_(ext2_filsys efs, const char *path, bool follow,
		     ext2_ino_t *ino);
/* path's inode, every symlink followed (stat). */
int imgp_ext_lookup_(ext2_filsys efs, const char *path, ext2_ino_t *ino,
		    struct ext2_inode *inode);
/* path's own inode, a symlink not followed (lstat). */
int imgp_ext_lookup_nofollow_(ext2_filsys efs, const char *path,
			     ext2_ino_t *ino, struct ext2_inode *inode);
/* -EISDIR or -EINVAL unless inode is a regular file. */
int imgp_ext_check_regular_(const struct ext2_inode *inode);
/* The existing directory to hold path's last name; *dir malloc'd. */
int imgp_ext_parent_(ext2_filsys efs, const char *path, ext2_ino_t *parent,
		    const char **name, char **dir);
/* 0: name can be created in parent; 1: it is there (*found); or -errno. */
int imgp_ext_name_free_(ext2_filsys efs, ext2_ino_t parent, const char *name,
		       const char *dir, ext2_ino_t *found);
/* Appends a symbolic link's target to out. */
int imgp_ext_link_target_(ext2_filsys efs, ext2_ino_t ino,
			 struct ext2_inode *inode, struct imgp_buf *out);

/* ------------------------------------------------------- fs-ext-write.c */

/* Sets ino's times (EXT_TIME_*) to now or SOURCE_DATE_EPOCH. */
int imgp_ext_set_times_(ext2_filsys efs, ext2_ino_t ino, unsigned int what);
/* -ENOSPC unless len bytes (plus extra blocks) fit, owned blocks reused. */
int imgp_ext_check_space_(ext2_filsys efs, size_t len, blk64_t owned,
			 blk64_t extra);
/* Replaces an existing file's content; *modified once anything changed. */
int imgp_ext_rewrite_(ext2_filsys efs, ext2_ino_t ino, struct ext2_inode *inode,
		     const void *data, size_t len, bool *modified);
/*
 * Creates a missing file; *modified once anything changed. What a failure
 * leaves for e2fsck is a warning to ctx, as for the symlink below.
 */
int imgp_ext_create_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path,
		    const void *data, size_t len, bool *modified);
/* Creates or replaces the symlink path -> target; *modified likewise. */
int imgp_ext_make_symlink_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path,
			  const char *target, bool *modified);
/*
 * Frees an inode nothing links to (blocks, xattr block share, the inode;
 * a folder's counted off its group); what fails is a warning to ctx
 * naming path, for e2fsck.
 */
void imgp_ext_forget_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path,
		     ext2_ino_t ino);
/* Drops one link to an inode that lost its directory entry, freeing it with its last. */
int imgp_ext_unref_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path,
		   ext2_ino_t ino);
/* The free blocks and inodes now, before a change. */
void imgp_ext_usage_(ext2_filsys efs, struct ext_usage *u);
/* Ends a change begun at usage before: rc 0 flushes, else drops. */
int imgp_ext_finish_change_(ext2_filsys efs, const char *type,
			   const struct ext_usage *before, int rc);

/* ------------------------------------------------------ fs-ext-remove.c */

/*
 * Removes path (not followed: a link itself), a folder with everything in
 * it, as rm -rf. 0, -ENOENT, -EPERM (an immutable or append-only inode, or
 * the root), -ENOTSUP (a parent stored inline), or -errno.
 */
int imgp_ext_remove_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path);

#endif
