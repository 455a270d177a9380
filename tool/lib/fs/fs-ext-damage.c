// SPDX-License-Identifier: MIT
/*
 * ext backend: what a write depends on, checked before the first one. A
 * filesystem marked clean may still be damaged: the superblock's state,
 * multi-mount protection, every inode's blocks against the bitmaps and the
 * group counters, the directory tree (fs-ext-tree.c), and the directories
 * on the path to be written.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs-ext-internal.h"

int imgp_ext_check_clean_(ext2_filsys efs, const char *type)
{
	struct ext2_super_block *sb = efs->super;
	char why[256];
	errcode_t err;

	if (ext2fs_has_feature_journal_needs_recovery(sb))
		return imgp_fail(EUCLEAN, "%s filesystem needs journal recovery (it was not cleanly unmounted): run e2fsck -fy on it first",
				 type);
	if ((sb->s_state & EXT2_ERROR_FS) || !(sb->s_state & EXT2_VALID_FS))
		return imgp_fail(EUCLEAN, "%s filesystem has errors: run e2fsck -f first",
				 type);
	/* Bitmaps and inode tables must lie inside their groups before we write. */
	err = ext2fs_check_desc(efs);
	if (err)
		return imgp_fail(EUCLEAN, "%s filesystem has errors (%s): run e2fsck -f first",
				 type, imgp_ext_why_(err, why, sizeof(why)));
	return 0;
}

/*
 * Multi-mount protection: the MMP block records whether a node has the
 * filesystem in use. libext2fs would read it by reopening the image path
 * without the partition offset and wait out the update interval, so it is
 * read here through the I/O channel instead, and a filesystem that is not
 * marked clean is refused rather than waited for.
 */
static int ext_check_mmp(ext2_filsys efs, const char *type)
{
	blk64_t blk = efs->super->s_mmp_block;
	struct mmp_struct *mmp;
	uint32_t seq;
	errcode_t err;
	int rc = 0;

	if (!ext2fs_has_feature_mmp(efs->super))
		return 0;
	if (blk <= efs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(efs->super))
		return imgp_fail(EUCLEAN, "%s filesystem has errors (MMP block %llu is outside the filesystem): run e2fsck -f first",
				 type, (unsigned long long)blk);
	mmp = malloc(efs->blocksize);
	if (!mmp)
		return imgp_fail(ENOMEM, "out of memory");
	err = io_channel_read_blk64(efs->io, blk, 1, mmp);
	if (err) {
		rc = imgp_ext_fail_(err, "cannot read the MMP block");
		goto out;
	}
	seq = ext2fs_le32_to_cpu(mmp->mmp_seq);
	if (ext2fs_le32_to_cpu(mmp->mmp_magic) != EXT4_MMP_MAGIC ||
	    !ext2fs_mmp_csum_verify(efs, mmp))
		rc = imgp_fail(EUCLEAN, "%s filesystem has errors (the MMP block is corrupt): run e2fsck -f first",
			       type);
	else if (seq == EXT4_MMP_SEQ_FSCK)
		rc = imgp_fail(EBUSY, "%s filesystem is being checked by e2fsck (MMP block says so); if no e2fsck runs, run e2fsck -f on it first",
			       type);
	else if (seq != EXT4_MMP_SEQ_CLEAN)
		rc = imgp_fail(EBUSY, "%s filesystem is in use or was not cleanly unmounted (MMP sequence %#x): run e2fsck -f on it first",
			       type, seq);
out:
	free(mmp);
	return rc;
}

/* What the damage check has found so far; the first finding stops it. */
struct ext_survey {
	ext2_filsys efs;
	ext2fs_block_bitmap claimed; /* blocks some inode or the layout owns */
	ext2fs_block_bitmap shared;  /* xattr blocks, which inodes may share */
	ext2fs_inode_bitmap dirs;    /* the directories in use, for the tree check */
	ext2_ino_t ino;
	char finding[1024];          /* paths of the tree check too */
};

static void ext_found(struct ext_survey *sv, const char *fmt, ...) IMGP_PRINTF(2, 3);
static void ext_found(struct ext_survey *sv, const char *fmt, ...)
{
	va_list ap;

	if (sv->finding[0])
		return;
	va_start(ap, fmt);
	vsnprintf(sv->finding, sizeof(sv->finding), fmt, ap);
	va_end(ap);
}

/*
 * Claims one block for sv->ino: it must lie in the filesystem, belong to
 * no one else and be marked in use, or an allocation could hand it out.
 */
static bool ext_claim(struct ext_survey *sv, blk64_t blk)
{
	ext2_filsys efs = sv->efs;

	if (blk < efs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(efs->super)) {
		ext_found(sv, "inode %u claims block %llu, outside the filesystem",
			  sv->ino, (unsigned long long)blk);
		return false;
	}
	/* bigalloc: blocks of one cluster map to one bit; only the bitmap is checked. */
	if (!ext2fs_has_feature_bigalloc(efs->super) &&
	    ext2fs_test_block_bitmap2(sv->claimed, blk)) {
		ext_found(sv, "block %llu is claimed twice (inode %u and another owner)",
			  (unsigned long long)blk, sv->ino);
		return false;
	}
	if (!ext2fs_test_block_bitmap2(efs->block_map, blk)) {
		ext_found(sv, "inode %u uses block %llu, which the block bitmap marks free",
			  sv->ino, (unsigned long long)blk);
		return false;
	}
	ext2fs_mark_block_bitmap2(sv->claimed, blk);
	return true;
}

static int ext_claim_block(ext2_filsys efs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			   blk64_t ref_blk, int ref_offset, void *priv)
{
	(void)efs;
	(void)blockcnt;
	(void)ref_blk;
	(void)ref_offset;
	return ext_claim(priv, *blocknr) ? 0 : BLOCK_ABORT;
}

/* The blocks of the layout: superblocks, descriptors, bitmaps, inode tables. */
static void ext_claim_layout(struct ext_survey *sv)
{
	ext2_filsys efs = sv->efs;

	for (dgrp_t g = 0; g < efs->group_desc_count && !sv->finding[0]; g++) {
		blk64_t itable = ext2fs_inode_table_loc(efs, g);

		ext2fs_reserve_super_and_bgd(efs, g, sv->claimed);
		ext_claim(sv, ext2fs_block_bitmap_loc(efs, g));
		ext_claim(sv, ext2fs_inode_bitmap_loc(efs, g));
		for (blk64_t b = 0; b < efs->inode_blocks_per_group && !sv->finding[0]; b++)
			ext_claim(sv, itable + b);
	}
	if (ext2fs_has_feature_mmp(efs->super) && !sv->finding[0])
		ext_claim(sv, efs->super->s_mmp_block);
}

/* An inode counts as used when linked, or reserved and holding blocks. */
static bool ext_inode_used(ext2_filsys efs, ext2_ino_t ino,
			   const struct ext2_inode *inode)
{
	if (inode->i_links_count)
		return true;
	return ino < EXT2_FIRST_INO(efs->super) &&
	       ext2fs_inode_data_blocks2(efs, (struct ext2_inode *)inode);
}

/*
 * Walks an extent tree node by node (ext2fs_block_iterate3 does not report
 * a corrupt tree), claiming the tree's own blocks and every mapped block.
 */
static void ext_survey_extents(struct ext_survey *sv, ext2_ino_t ino,
			       struct ext2_inode *inode)
{
	struct ext2fs_extent extent;
	ext2_extent_handle_t handle = NULL;
	int op = EXT2_EXTENT_ROOT;
	char why[256];
	errcode_t err;

	err = ext2fs_extent_open2(sv->efs, ino, inode, &handle);
	while (!err && !sv->finding[0]) {
		err = ext2fs_extent_get(handle, op, &extent);
		op = EXT2_EXTENT_NEXT;
		if (err)
			break;
		if (!(extent.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			/* An index entry: e_pblk is the node below, visited next. */
			if (!(extent.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT))
				ext_claim(sv, extent.e_pblk);
			continue;
		}
		for (__u32 i = 0; i < extent.e_len && !sv->finding[0]; i++)
			ext_claim(sv, extent.e_pblk + i);
	}
	if (err && err != EXT2_ET_EXTENT_NO_NEXT)
		ext_found(sv, "inode %u: its extent tree is corrupt (%s)", ino,
			  imgp_ext_why_(err, why, sizeof(why)));
	if (handle)
		ext2fs_extent_free(handle);
}

static void ext_survey_inode(struct ext_survey *sv, ext2_ino_t ino,
			     struct ext2_inode *inode)
{
	ext2_filsys efs = sv->efs;
	blk64_t ea = ext2fs_file_acl_block(efs, inode);
	char why[256];
	errcode_t err;

	sv->ino = ino;
	if (ino >= EXT2_FIRST_INO(efs->super) &&
	    !ext2fs_test_inode_bitmap2(efs->inode_map, ino)) {
		ext_found(sv, "inode %u is in use, but the inode bitmap marks it free",
			  ino);
		return;
	}
	/* An xattr block may be shared: claimed once, by its first owner. */
	if (ea && (ea < efs->super->s_first_data_block ||
		   ea >= ext2fs_blocks_count(efs->super) ||
		   !ext2fs_test_block_bitmap2(sv->shared, ea))) {
		if (!ext_claim(sv, ea))
			return;
		ext2fs_mark_block_bitmap2(sv->shared, ea);
	}
	if (ino == EXT2_RESIZE_INO) {
		/* Its blocks are the reserved descriptor blocks, claimed with the layout. */
		if (inode->i_block[EXT2_DIND_BLOCK])
			ext_claim(sv, inode->i_block[EXT2_DIND_BLOCK]);
		return;
	}
	if (!ext2fs_inode_has_valid_blocks2(efs, inode))
		return;
	if (inode->i_flags & EXT4_EXTENTS_FL) {
		ext_survey_extents(sv, ino, inode);
		return;
	}
	err = ext2fs_block_iterate3(efs, ino, BLOCK_FLAG_READ_ONLY, NULL,
				    ext_claim_block, sv);
	if (err)
		ext_found(sv, "inode %u: its block map is corrupt (%s)", ino,
			  imgp_ext_why_(err, why, sizeof(why)));
}

/* Each group's free counts must match its bitmaps: allocation trusts both. */
static void ext_survey_counts(struct ext_survey *sv)
{
	ext2_filsys efs = sv->efs;
	ext2_ino_t ipg = efs->super->s_inodes_per_group;

	for (dgrp_t g = 0; g < efs->group_desc_count && !sv->finding[0]; g++) {
		blk64_t first = ext2fs_group_first_block2(efs, g);
		blk64_t last = ext2fs_group_last_block2(efs, g);
		blk64_t used = 0;
		ext2_ino_t free_inodes = 0;

		if (ext2fs_has_group_desc_csum(efs) &&
		    !ext2fs_group_desc_csum_verify(efs, g)) {
			ext_found(sv, "group %u: its descriptor checksum does not match", g);
			return;
		}
		if (ext2fs_count_used_clusters(efs, first, last, &used)) {
			ext_found(sv, "group %u: cannot count its used blocks", g);
			return;
		}
		if (EXT2FS_NUM_B2C(efs, last - first + 1) - used !=
		    ext2fs_bg_free_blocks_count(efs, g)) {
			ext_found(sv, "group %u: its free blocks count (%u) does not match its bitmap (%llu)",
				  g, ext2fs_bg_free_blocks_count(efs, g),
				  (unsigned long long)(EXT2FS_NUM_B2C(efs, last - first + 1) - used));
			return;
		}
		for (ext2_ino_t i = 1; i <= ipg; i++)
			free_inodes += !ext2fs_test_inode_bitmap2(efs->inode_map,
								  g * ipg + i);
		if (free_inodes != ext2fs_bg_free_inodes_count(efs, g))
			ext_found(sv, "group %u: its free inodes count (%u) does not match its bitmap (%u)",
				  g, ext2fs_bg_free_inodes_count(efs, g), free_inodes);
	}
}

/*
 * Before a write: every inode in use is read and its block map or extent
 * tree walked, so that no block it owns can be handed out again, no block
 * is owned twice and the bitmaps and group counters agree. Most damaged
 * filesystems are marked clean; this finds what a write depends on.
 */
static int ext_check_damage(ext2_filsys efs, const char *type)
{
	struct ext_survey sv = { .efs = efs };
	struct ext2_inode inode;
	ext2_inode_scan scan = NULL;
	ext2_ino_t ino;
	char why[256];
	errcode_t err;
	int rc = 0;

	err = ext2fs_allocate_block_bitmap(efs, "claimed", &sv.claimed);
	if (!err)
		err = ext2fs_allocate_block_bitmap(efs, "shared", &sv.shared);
	if (!err)
		err = ext2fs_allocate_inode_bitmap(efs, "directories", &sv.dirs);
	if (!err)
		err = ext2fs_open_inode_scan(efs, 0, &scan);
	if (err) {
		rc = imgp_ext_fail_(err, "cannot check the filesystem before writing");
		goto out;
	}
	/* Inodes first: what they claim names a problem better than a count. */
	ext_claim_layout(&sv);
	while (!sv.finding[0]) {
		err = ext2fs_get_next_inode_full(scan, &ino, &inode, sizeof(inode));
		if (err) {
			ext_found(&sv, "inode table: %s", imgp_ext_why_(err, why, sizeof(why)));
			break;
		}
		if (!ino)
			break;
		if (!ext_inode_used(efs, ino, &inode))
			continue;
		ext_survey_inode(&sv, ino, &inode);
		if (LINUX_S_ISDIR(inode.i_mode) &&
		    (ino == EXT2_ROOT_INO || ino >= EXT2_FIRST_INO(efs->super)))
			ext2fs_mark_inode_bitmap2(sv.dirs, ino);
	}
	if (!sv.finding[0])
		rc = imgp_ext_check_tree_(efs, sv.dirs, sv.finding, sizeof(sv.finding));
	if (!rc && !sv.finding[0])
		ext_survey_counts(&sv);
	if (!rc && sv.finding[0])
		rc = imgp_fail(EUCLEAN, "%s filesystem has errors (%s): run e2fsck -f first",
			       type, sv.finding);
out:
	ext2fs_close_inode_scan(scan);
	if (sv.dirs)
		ext2fs_free_inode_bitmap(sv.dirs);
	if (sv.shared)
		ext2fs_free_block_bitmap(sv.shared);
	if (sv.claimed)
		ext2fs_free_block_bitmap(sv.claimed);
	return rc;
}

/* Checks what a write depends on, once, when opened for writing. */
int imgp_ext_check_writable_(ext2_filsys efs, const char *type)
{
	char why[256];
	errcode_t err;
	int rc;

	rc = ext_check_mmp(efs, type);
	if (rc)
		return rc;
	err = ext2fs_read_bitmaps(efs);
	if (err)
		return imgp_fail(EUCLEAN, "%s filesystem has errors (cannot read the allocation bitmaps: %s): run e2fsck -f first",
				 type, imgp_ext_why_(err, why, sizeof(why)));
	return ext_check_damage(efs, type);
}

struct ext_dir_check {
	ext2_filsys efs;
	ext2_ino_t bad;          /* an entry's inode that is out of range or free */
};

static int ext_check_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent,
			   int offset, int blocksize, char *buf, void *priv)
{
	struct ext_dir_check *dc = priv;
	ext2_ino_t ino = dirent->inode;
	struct ext2_inode inode;

	(void)dir;
	(void)entry;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (ino > dc->efs->super->s_inodes_count ||
	    (ino >= EXT2_FIRST_INO(dc->efs->super) &&
	     (!ext2fs_test_inode_bitmap2(dc->efs->inode_map, ino) ||
	      ext2fs_read_inode(dc->efs, ino, &inode) ||
	      !inode.i_links_count))) {
		dc->bad = ino;
		return DIRENT_ABORT;
	}
	return 0;
}

/*
 * The directories on the path, which the write looks up and may add an
 * entry to: each must read without error and name only inodes in use.
 */
int imgp_ext_check_dirs_(ext2_filsys efs, const char *type, const char *path)
{
	struct ext_dir_check dc = { .efs = efs };
	size_t len = strlen(path);
	char *dir = malloc(len + 2);
	char why[256];
	int rc = 0;

	if (!dir)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t end = 0; !rc && end < len; end++) {
		struct ext2_inode inode;
		ext2_ino_t ino;
		errcode_t err;

		if (path[end] != '/' && end)
			continue;
		if (end && path[end - 1] == '/')
			continue;
		/* "/" for the root, else the path up to this slash. */
		if (end)
			memcpy(dir, path, end);
		else
			dir[0] = '/';
		dir[end ? end : 1] = '\0';
		rc = imgp_ext_resolve_(efs, dir, true, &ino);
		if (rc == -ENOENT || rc == -ENOTDIR) {
			imgp_errclear_();
			rc = 0;
			break;
		}
		if (rc) {
			rc = imgp_fail_ctx(rc, "directory '%s'", dir);
			break;
		}
		err = ext2fs_read_inode(efs, ino, &inode);
		if (!err && !LINUX_S_ISDIR(inode.i_mode))
			break;
		if (!err)
			err = ext2fs_dir_iterate2(efs, ino, 0, NULL, ext_check_entry, &dc);
		if (err)
			rc = imgp_fail(EUCLEAN, "%s filesystem has errors (directory '%s': %s): run e2fsck -f first",
				       type, dir, imgp_ext_why_(err, why, sizeof(why)));
		else if (dc.bad)
			rc = imgp_fail(EUCLEAN, "%s filesystem has errors (directory '%s' names inode %u, which is not in use): run e2fsck -f first",
				       type, dir, dc.bad);
	}
	free(dir);
	return rc;
}
