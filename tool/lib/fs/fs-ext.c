// SPDX-License-Identifier: MIT
/*
 * ext2/3/4 backend on libext2fs: reads files and rewrites them in place
 * inside a partition of the image, without mounting it. Paths and symlinks
 * are resolved inside the filesystem only, never on the host.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

#include "imgpatch-internal.h"
#include "core/epoch.h"
#include "fs/io-capture.h"

/* libext2fs reads and writes files through an unsigned int count. */
#define EXT_IO_CHUNK (1u << 20)

struct ext_priv {
	ext2_filsys fs;
	char type[16];           /* "ext4" etc., for messages */
	struct imgp_writeset *reads; /* read-only opens: an empty write set to read through */
};

/* libext2fs mixes plain errno values (from the I/O layer) with com_err codes. */
static int ext_errno(errcode_t err)
{
	if (err > 0 && err < 4096)
		return (int)err;
	switch (err) {
	case EXT2_ET_NO_MEMORY:
		return ENOMEM;
	case EXT2_ET_FILE_NOT_FOUND:
		return ENOENT;
	case EXT2_ET_NO_DIRECTORY:
		return ENOTDIR;
	case EXT2_ET_SYMLINK_LOOP:
		return ELOOP;
	case EXT2_ET_FILE_EXISTS:
		return EEXIST;
	case EXT2_ET_RO_FILSYS:
		return EROFS;
	case EXT2_ET_FILE_TOO_BIG:
		return EFBIG;
	case EXT2_ET_DIR_NO_SPACE:
	case EXT2_ET_DIR_NO_SPACE_FOR_CSUM:
	case EXT2_ET_BLOCK_ALLOC_FAIL:
	case EXT2_ET_INODE_ALLOC_FAIL:
		return ENOSPC;
	case EXT2_ET_BAD_MAGIC:
	case EXT2_ET_SB_CSUM_INVALID:
	case EXT2_ET_CORRUPT_SUPERBLOCK:
	case EXT2_ET_UNSUPP_FEATURE:
	case EXT2_ET_RO_UNSUPP_FEATURE:
		return EINVAL;
	default:
		return EIO;
	}
}

static pthread_once_t ext_et_once = PTHREAD_ONCE_INIT;

static void ext_et_init(void)
{
	initialize_ext2_error_table();
}

/* libext2fs's text for err, without the full stop some of it ends in. */
static const char *ext_why(errcode_t err, char *buf, size_t size)
{
	size_t n;

	snprintf(buf, size, "%s", error_message(err));
	n = strlen(buf);
	if (n && buf[n - 1] == '.')
		buf[n - 1] = '\0';
	return buf;
}

/* Records libext2fs's text for err and returns the matching -errno. */
static int ext_err(errcode_t err)
{
	char why[256];

	return imgp_fail(ext_errno(err), "%s", ext_why(err, why, sizeof(why)));
}

/* Records "<context>: <libext2fs text>" and returns the matching -errno. */
static int ext_fail(errcode_t err, const char *fmt, ...) IMGP_PRINTF(2, 3);
static int ext_fail(errcode_t err, const char *fmt, ...)
{
	char ctx[512], why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	return imgp_fail(ext_errno(err), "%s: %s", ctx,
			 ext_why(err, why, sizeof(why)));
}

static bool ext_handles(const char *fstype)
{
	return !strcmp(fstype, "ext2") || !strcmp(fstype, "ext3") ||
	       !strcmp(fstype, "ext4");
}

static struct ext_priv *ext_priv(const struct imgp_fs *fs)
{
	return fs->priv;
}

/* SOURCE_DATE_EPOCH pins every time we write, for reproducible images. */
static int ext_epoch(time_t *out)
{
	int64_t v;
	int rc = imgp_source_date_epoch(&v);

	*out = rc || v < 0 ? 0 : (time_t)v;
	return rc;
}

static time_t ext_now(ext2_filsys efs)
{
	return efs->now ? efs->now : time(NULL);
}

/* The name blkid would give: part->fstype when probed, else from the features. */
static const char *ext_type(const struct imgp_part *part, ext2_filsys efs)
{
	struct ext2_super_block *sb = efs->super;

	if (part->fstype[0])
		return part->fstype;
	if (ext2fs_has_feature_extents(sb) || ext2fs_has_feature_64bit(sb) ||
	    ext2fs_has_feature_flex_bg(sb) || ext2fs_has_feature_huge_file(sb) ||
	    ext2fs_has_feature_metadata_csum(sb))
		return "ext4";
	return ext2fs_has_feature_journal(sb) ? "ext3" : "ext2";
}

static int ext_check_clean(ext2_filsys efs, const char *type)
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
				 type, ext_why(err, why, sizeof(why)));
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
		rc = ext_fail(err, "cannot read the MMP block");
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
	ext2_ino_t ino;
	char finding[160];
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
			  ext_why(err, why, sizeof(why)));
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
			  ext_why(err, why, sizeof(why)));
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
		err = ext2fs_open_inode_scan(efs, 0, &scan);
	if (err) {
		rc = ext_fail(err, "cannot check the filesystem before writing");
		goto out;
	}
	/* Inodes first: what they claim names a problem better than a count. */
	ext_claim_layout(&sv);
	while (!sv.finding[0]) {
		err = ext2fs_get_next_inode_full(scan, &ino, &inode, sizeof(inode));
		if (err) {
			ext_found(&sv, "inode table: %s", ext_why(err, why, sizeof(why)));
			break;
		}
		if (!ino)
			break;
		if (ext_inode_used(efs, ino, &inode))
			ext_survey_inode(&sv, ino, &inode);
	}
	if (!sv.finding[0])
		ext_survey_counts(&sv);
	if (sv.finding[0])
		rc = imgp_fail(EUCLEAN, "%s filesystem has errors (%s): run e2fsck -f first",
			       type, sv.finding);
out:
	ext2fs_close_inode_scan(scan);
	if (sv.shared)
		ext2fs_free_block_bitmap(sv.shared);
	if (sv.claimed)
		ext2fs_free_block_bitmap(sv.claimed);
	return rc;
}

/* Checks what a write depends on, once, when opened for writing. */
static int ext_check_writable(ext2_filsys efs, const char *type)
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
				 type, ext_why(err, why, sizeof(why)));
	return ext_check_damage(efs, type);
}

static int ext_open(struct imgp_fs *fs)
{
	const struct imgp_part *part = fs->part;
	const char *type;
	int flags = EXT2_FLAG_64BITS;
	ext2_filsys efs = NULL;
	struct imgp_writeset *reads = NULL;
	struct ext_priv *priv;
	unsigned int bsize;
	char opts[64];
	time_t epoch = 0;
	errcode_t err;
	int rc;

	/* error_message() only knows libext2fs codes once the table is in. */
	pthread_once(&ext_et_once, ext_et_init);
	fs->priv = NULL;
	if (part->start > fs->img->size || part->size > fs->img->size - part->start)
		return imgp_fail(ERANGE, "partition (%" PRIu64 " bytes at %" PRIu64 ") is past the end of the image (%" PRIu64 " bytes): truncated image?",
				 part->size, part->start, fs->img->size);
	if (fs->capture) {
		/* MMP is checked by ext_check_mmp, through the partition's offset. */
		flags |= EXT2_FLAG_RW | EXT2_FLAG_SKIP_MMP;
		rc = ext_epoch(&epoch);
		if (rc)
			return rc;
	} else {
		/*
		 * A read-only open reads through an empty write set: every read
		 * then goes through imgp_image_read, and closing never writes.
		 */
		rc = imgp_writeset_new(&reads, fs->img);
		if (rc)
			return rc;
	}
	snprintf(opts, sizeof(opts), "offset=%" PRIu64, part->start);
	/* Writes land in the write set, never in the image. */
	imgp_capture_io_target(fs->capture ? fs->capture : reads);
	err = ext2fs_open2(fs->img->path, opts, flags, 0, 0,
			   imgp_capture_io_manager, &efs);
	imgp_capture_io_target(NULL);
	if (err) {
		imgp_writeset_free(reads);
		return ext_fail(err, "cannot open filesystem");
	}

	type = ext_type(part, efs);
	/* Anything past the partition belongs to someone else. */
	bsize = EXT2_BLOCK_SIZE(efs->super);
	if (ext2fs_blocks_count(efs->super) > part->size / bsize) {
		rc = imgp_fail(EINVAL, "%s filesystem (%llu blocks of %u bytes) is larger than its partition (%" PRIu64 " bytes): truncated image or wrong partition table?",
			       type,
			       (unsigned long long)ext2fs_blocks_count(efs->super),
			       bsize, part->size);
		goto fail;
	}
	/* Reading a dirty filesystem could return stale data, so refuse both ways. */
	rc = ext_check_clean(efs, type);
	if (!rc && fs->capture)
		rc = ext_check_writable(efs, type);
	if (rc)
		goto fail;
	if (epoch)
		efs->now = epoch;
	priv = calloc(1, sizeof(*priv));
	if (!priv) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto fail;
	}
	priv->fs = efs;
	priv->reads = reads;
	snprintf(priv->type, sizeof(priv->type), "%s", type);
	fs->priv = priv;
	return 0;
fail:
	ext2fs_close_free(&efs);
	imgp_writeset_free(reads);
	return rc;
}

static void ext_close(struct imgp_fs *fs)
{
	struct ext_priv *priv = ext_priv(fs);
	char why[256];
	errcode_t err;

	if (!priv)
		return;
	/* Each change flushed itself or was dropped: this only frees. */
	err = ext2fs_close_free(&priv->fs);
	if (err)
		imgp_warn("%s: closing the filesystem: %s", priv->type,
			  ext_why(err, why, sizeof(why)));
	imgp_writeset_free(priv->reads);
	free(priv);
	fs->priv = NULL;
}

static int ext_check_path(const char *path)
{
	if (!path || !*path)
		return imgp_fail(EINVAL, "empty path");
	return 0;
}

/*
 * Looks up a path and reads its inode; follow: also the last component when
 * it is a symlink (stat), else not (lstat).
 */
static int ext_lookup_at(ext2_filsys efs, const char *path, bool follow,
			 ext2_ino_t *ino, struct ext2_inode *inode)
{
	errcode_t err;

	err = follow ? ext2fs_namei_follow(efs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, ino)
		     : ext2fs_namei(efs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, ino);
	if (err == EXT2_ET_FILE_NOT_FOUND)
		return imgp_fail(ENOENT, "not found");
	if (err)
		return ext_err(err);
	err = ext2fs_read_inode(efs, *ino, inode);
	if (err)
		return ext_fail(err, "cannot read inode %u", *ino);
	return 0;
}

/* Looks up a path (following symlinks, also the last one) and its inode. */
static int ext_lookup(ext2_filsys efs, const char *path, ext2_ino_t *ino,
		      struct ext2_inode *inode)
{
	return ext_lookup_at(efs, path, true, ino, inode);
}

static int ext_check_regular(const struct ext2_inode *inode)
{
	if (LINUX_S_ISDIR(inode->i_mode))
		return imgp_fail(EISDIR, "is a directory");
	if (!LINUX_S_ISREG(inode->i_mode))
		return imgp_fail(EINVAL, "not a regular file");
	return 0;
}

static int ext_read_file(struct imgp_fs *fs, const char *path, size_t max,
			 struct imgp_buf *out)
{
	ext2_filsys efs = ext_priv(fs)->fs;
	struct ext2_inode inode;
	size_t old_len = out->len, got = 0;
	ext2_file_t file;
	ext2_ino_t ino;
	uint64_t size;
	errcode_t err, err2;
	int rc;

	rc = ext_check_path(path);
	if (!rc)
		rc = ext_lookup(efs, path, &ino, &inode);
	if (!rc)
		rc = ext_check_regular(&inode);
	if (rc)
		return rc;
	/* libext2fs would hand back ciphertext. */
	if (inode.i_flags & EXT4_ENCRYPT_FL)
		return imgp_fail(ENOTSUP, "file is encrypted");
	size = EXT2_I_SIZE(&inode);
	if (size > max)
		return imgp_fail(EFBIG, "file is %" PRIu64 " bytes, more than the %zu allowed",
				 size, max);
	rc = imgp_buf_reserve(out, (size_t)size);
	if (rc)
		return imgp_fail(ENOMEM, "out of memory");
	err = ext2fs_file_open(efs, ino, 0, &file);
	if (err)
		return ext_fail(err, "cannot open");
	while (got < size) {
		size_t want = size - got > EXT_IO_CHUNK ? EXT_IO_CHUNK : size - got;
		unsigned int n = 0;

		err = ext2fs_file_read(file, out->data + old_len + got,
				       (unsigned int)want, &n);
		if (err || n == 0)
			break;
		got += n;
	}
	err2 = ext2fs_file_close(file);
	if (err)
		return ext_fail(err, "read error");
	if (got != size)
		return imgp_fail(EIO, "short read (%zu of %" PRIu64 " bytes)",
				 got, size);
	if (err2)
		return ext_fail(err2, "cannot close");
	out->len = old_len + got;
	out->data[out->len] = '\0';
	return 0;
}

/* Stores a time in an inode field pair (seconds + "extra" epoch bits). */
static void ext_time_set(__u32 *sec, __u32 *extra, time_t t)
{
	int64_t v = (int64_t)t;

	*sec = (__u32)v;
	/* The two low bits of the extra field extend the range past 2038. */
	if (extra)
		*extra = (__u32)(((uint64_t)(v - (int32_t)(uint32_t)v) >> 32) & 3);
}

#define EXT_TIME_MTIME 1u        /* mtime and ctime: content changed */
#define EXT_TIME_ALL   2u        /* also atime and crtime: a new inode */

static int ext_set_times(ext2_filsys efs, ext2_ino_t ino, unsigned int what)
{
	struct ext2_inode_large inode;
	size_t isize = EXT2_INODE_SIZE(efs->super);
	time_t now = ext_now(efs);
	bool extra;
	errcode_t err;

	if (isize > sizeof(inode))
		isize = sizeof(inode);
	memset(&inode, 0, sizeof(inode));
	err = ext2fs_read_inode_full(efs, ino, (struct ext2_inode *)&inode,
				     (int)isize);
	if (err)
		return ext_fail(err, "cannot read inode %u", ino);
	extra = isize > EXT2_GOOD_OLD_INODE_SIZE &&
		EXT2_GOOD_OLD_INODE_SIZE + (size_t)inode.i_extra_isize >=
			offsetof(struct ext2_inode_large, i_crtime_extra) +
				sizeof(inode.i_crtime_extra);
	ext_time_set(&inode.i_mtime, extra ? &inode.i_mtime_extra : NULL, now);
	ext_time_set(&inode.i_ctime, extra ? &inode.i_ctime_extra : NULL, now);
	if (what == EXT_TIME_ALL) {
		ext_time_set(&inode.i_atime, extra ? &inode.i_atime_extra : NULL, now);
		if (extra)
			ext_time_set(&inode.i_crtime, &inode.i_crtime_extra, now);
	}
	err = ext2fs_write_inode_full(efs, ino, (struct ext2_inode *)&inode,
				      (int)isize);
	if (err)
		return ext_fail(err, "cannot write inode %u", ino);
	return 0;
}

/* Writes data from offset 0 and cuts the file to len, freeing any tail. */
static int ext_write_data(ext2_filsys efs, ext2_ino_t ino, const void *data,
			  size_t len)
{
	const char *p = data;
	ext2_file_t file;
	size_t done = 0;
	errcode_t err, err2;

	err = ext2fs_file_open(efs, ino, EXT2_FILE_WRITE, &file);
	if (err)
		return ext_fail(err, "cannot open for writing");
	while (!err && done < len) {
		size_t want = len - done > EXT_IO_CHUNK ? EXT_IO_CHUNK : len - done;
		unsigned int n = 0;

		err = ext2fs_file_write(file, p + done, (unsigned int)want, &n);
		if (!err && n == 0)
			err = EXT2_ET_SHORT_WRITE;
		done += n;
	}
	if (!err)
		err = ext2fs_file_set_size2(file, len);
	err2 = ext2fs_file_close(file);
	if (err)
		return ext_fail(err, "write error");
	if (err2)
		return ext_fail(err2, "write error");
	return 0;
}

/*
 * Refuses up front a write that cannot fit, so that the common failure
 * does not leave a half-written file behind. owned: blocks the file has.
 */
static int ext_check_space(ext2_filsys efs, size_t len, blk64_t owned,
			   blk64_t extra)
{
	blk64_t bsize = EXT2_BLOCK_SIZE(efs->super);
	blk64_t need = len / bsize + (len % bsize != 0) + extra;
	blk64_t avail = ext2fs_free_blocks_count(efs->super);

	if (need > owned && need - owned > avail)
		return imgp_fail(ENOSPC, "not enough free space (%llu blocks needed, %llu free)",
				 (unsigned long long)(need - owned),
				 (unsigned long long)avail);
	return 0;
}

/* The kernel would refuse these writes; so do we. */
static int ext_check_flags(const struct ext2_inode *inode)
{
	if (inode->i_flags & (EXT2_IMMUTABLE_FL | EXT2_APPEND_FL))
		return imgp_fail(EPERM, "file is immutable or append-only: clear the flag with chattr -ia first");
	if (inode->i_flags & (EXT4_ENCRYPT_FL | EXT4_VERITY_FL))
		return imgp_fail(ENOTSUP, "file is encrypted or verity-protected");
	return 0;
}

/* Replaces the content of an existing file, keeping its inode. */
static int ext_rewrite(ext2_filsys efs, ext2_ino_t ino, struct ext2_inode *inode,
		       const void *data, size_t len, bool *modified)
{
	blk64_t owned;
	int rc;

	rc = ext_check_regular(inode);
	if (!rc)
		rc = ext_check_flags(inode);
	if (rc)
		return rc;
	/* libext2fs fixed bugs in rewriting inline data after 1.47.0: not trusted. */
	if (inode->i_flags & EXT4_INLINE_DATA_FL)
		return imgp_fail(ENOTSUP, "file is stored inline in its inode (inline_data): rewriting such a file is not supported");
	owned = ext2fs_get_stat_i_blocks(efs, inode) /
		(EXT2_BLOCK_SIZE(efs->super) / 512);
	rc = ext_check_space(efs, len, owned, 0);
	if (rc)
		return rc;
	*modified = true;
	rc = ext_write_data(efs, ino, data, len);
	if (!rc)
		rc = ext_set_times(efs, ino, EXT_TIME_MTIME);
	return rc;
}

/*
 * Frees an inode nothing links to any more: its blocks, its share of an
 * xattr block and the inode itself (a half-made file, a replaced symlink).
 */
static void ext_forget(ext2_filsys efs, const char *path, ext2_ino_t ino)
{
	struct ext2_inode inode;
	__u32 refs = 0;
	blk64_t ea;
	char why[256];
	errcode_t err;

	err = ext2fs_read_inode(efs, ino, &inode);
	/* A fast symlink keeps its target in i_block: those are not block numbers. */
	if (!err && (ext2fs_inode_has_valid_blocks2(efs, &inode) ||
		     (inode.i_flags & EXT4_INLINE_DATA_FL)))
		err = ext2fs_punch(efs, ino, NULL, NULL, 0, ~(blk64_t)0);
	if (!err)
		err = ext2fs_read_inode(efs, ino, &inode);
	ea = err ? 0 : ext2fs_file_acl_block(efs, &inode);
	if (ea) {
		err = ext2fs_adjust_ea_refcount3(efs, ea, NULL, -1, &refs, ino);
		if (!err && refs == 0)
			ext2fs_block_alloc_stats2(efs, ea, -1);
		ext2fs_file_acl_block_set(efs, &inode, 0);
	}
	if (!err) {
		inode.i_links_count = 0;
		inode.i_size = 0;
		inode.i_size_high = 0;
		inode.i_dtime = (__u32)ext_now(efs);
		err = ext2fs_write_inode(efs, ino, &inode);
	}
	if (!err)
		ext2fs_inode_alloc_stats2(efs, ino, -1, 0);
	else
		imgp_warn("'%s': cannot free inode %u: %s: run e2fsck -f",
			  path, ino, ext_why(err, why, sizeof(why)));
}

static int ext_new_inode(ext2_filsys efs, ext2_ino_t parent, ext2_ino_t *ino)
{
	struct ext2_inode inode;
	ext2_extent_handle_t handle = NULL;
	time_t now = ext_now(efs);
	errcode_t err;

	err = ext2fs_new_inode(efs, parent, LINUX_S_IFREG | 0644, NULL, ino);
	if (err)
		return ext_fail(err, "cannot allocate an inode");
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | 0644;
	inode.i_links_count = 1;
	inode.i_atime = inode.i_ctime = inode.i_mtime = (__u32)now;
	if (ext2fs_has_feature_extents(efs->super)) {
		/* Opening an extent handle on an empty inode sets up the tree root. */
		err = ext2fs_extent_open2(efs, *ino, &inode, &handle);
		if (err)
			return ext_fail(err, "cannot set up extents");
		ext2fs_extent_free(handle);
	}
	err = ext2fs_write_new_inode(efs, *ino, &inode);
	if (err)
		return ext_fail(err, "cannot write inode %u", *ino);
	ext2fs_inode_alloc_stats2(efs, *ino, +1, 0);
	return 0;
}

/* Adds a directory entry (ftype EXT2_FT_*), growing a full directory. */
static int ext_link(ext2_filsys efs, const char *dir, ext2_ino_t parent,
		    const char *name, ext2_ino_t ino, int ftype)
{
	errcode_t err;

	err = ext2fs_link(efs, parent, name, ino, ftype);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(efs, parent);
		if (err)
			return ext_fail(err, "cannot grow directory '%s'", dir);
		err = ext2fs_link(efs, parent, name, ino, ftype);
	}
	if (err)
		return ext_fail(err, "cannot add an entry to directory '%s'", dir);
	return 0;
}

/*
 * Splits path into its last name and the directory that is to hold it,
 * which must exist (symlinks followed). *dir is malloc'd, also on failure.
 */
static int ext_parent(ext2_filsys efs, const char *path, ext2_ino_t *parent,
		      const char **name, char **dir)
{
	const char *slash = strrchr(path, '/');
	struct ext2_inode dinode;
	size_t namelen;
	int rc;

	*dir = NULL;
	*name = slash ? slash + 1 : path;
	namelen = strlen(*name);
	if (!namelen || !strcmp(*name, ".") || !strcmp(*name, ".."))
		return imgp_fail(EINVAL, "does not name a file");
	if (namelen > EXT2_NAME_LEN)
		return imgp_fail(ENAMETOOLONG, "file name longer than %d bytes",
				 EXT2_NAME_LEN);
	if (!slash)
		*dir = strdup("/");
	else
		*dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!*dir)
		return imgp_fail(ENOMEM, "out of memory");

	rc = ext_lookup(efs, *dir, parent, &dinode);
	if (rc == -ENOENT)
		return imgp_fail(ENOENT, "cannot create: directory '%s' not found",
				 *dir);
	if (rc)
		return imgp_fail_ctx(rc, "cannot create: directory '%s'", *dir);
	if (!LINUX_S_ISDIR(dinode.i_mode))
		return imgp_fail(ENOTDIR, "cannot create: '%s' is not a directory",
				 *dir);
	if (dinode.i_flags & EXT4_ENCRYPT_FL)
		return imgp_fail(ENOTSUP, "cannot create: directory '%s' is encrypted",
				 *dir);
	/* As for files: adding to an inline directory is a path not trusted. */
	if (dinode.i_flags & EXT4_INLINE_DATA_FL)
		return imgp_fail(ENOTSUP, "cannot create: directory '%s' is stored inline in its inode (inline_data), which is not supported",
				 *dir);
	return 0;
}

/*
 * Whether name can be created in directory parent (dir its path): 0 when
 * it is not there and an inode is free, 1 when it is there (*found its
 * inode), or -errno.
 */
static int ext_name_free(ext2_filsys efs, ext2_ino_t parent, const char *name,
			 const char *dir, ext2_ino_t *found)
{
	errcode_t err = ext2fs_lookup(efs, parent, name, (int)strlen(name), NULL, found);

	if (!err)
		return 1;
	if (err != EXT2_ET_FILE_NOT_FOUND)
		return ext_fail(err, "cannot search directory '%s'", dir);
	if (!efs->super->s_free_inodes_count)
		return imgp_fail(ENOSPC, "cannot create: no free inodes");
	return 0;
}

/* Creates a missing file (mode 0644, owned by root) in an existing directory. */
static int ext_create(ext2_filsys efs, const char *path, const void *data,
		      size_t len, bool *modified)
{
	struct ext2_inode other_inode;
	ext2_ino_t parent, ino, other;
	const char *name;
	char *dir, why[256];
	errcode_t err;
	int rc;

	rc = ext_parent(efs, path, &parent, &name, &dir);
	if (rc)
		goto out;
	/* The name may be there as a symlink whose target is missing. */
	rc = ext_name_free(efs, parent, name, dir, &other);
	if (rc == 1) {
		err = ext2fs_read_inode(efs, other, &other_inode);
		if (!err && LINUX_S_ISLNK(other_inode.i_mode))
			rc = imgp_fail(ENOENT, "symlink to a missing file: write to its target instead");
		else
			rc = imgp_fail(EEXIST, "exists but cannot be resolved");
	}
	if (rc)
		goto out;
	/* One more block in case the directory has to grow. */
	rc = ext_check_space(efs, len, 0, 1);
	if (rc)
		goto out;

	*modified = true;
	rc = ext_new_inode(efs, parent, &ino);
	if (rc)
		goto out;
	rc = ext_link(efs, dir, parent, name, ino, EXT2_FT_REG_FILE);
	if (rc) {
		ext_forget(efs, path, ino);
		goto out;
	}
	rc = ext_write_data(efs, ino, data, len);
	if (!rc)
		rc = ext_set_times(efs, ino, EXT_TIME_ALL);
	if (rc) {
		err = ext2fs_unlink(efs, parent, name, ino, 0);
		if (err)
			imgp_warn("'%s': cannot remove the entry after a failed write: %s: run e2fsck -f",
				  path, ext_why(err, why, sizeof(why)));
		else
			ext_forget(efs, path, ino);
		goto out;
	}
	/* As the kernel does: a new entry changes the directory. */
	rc = ext_set_times(efs, parent, EXT_TIME_MTIME);
out:
	free(dir);
	return rc;
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
static int ext_check_dirs(ext2_filsys efs, const char *type, const char *path)
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
		err = ext2fs_namei_follow(efs, EXT2_ROOT_INO, EXT2_ROOT_INO, dir, &ino);
		if (err == EXT2_ET_FILE_NOT_FOUND || err == EXT2_ET_NO_DIRECTORY)
			break;
		if (!err)
			err = ext2fs_read_inode(efs, ino, &inode);
		if (!err && !LINUX_S_ISDIR(inode.i_mode))
			break;
		if (!err)
			err = ext2fs_dir_iterate2(efs, ino, 0, NULL, ext_check_entry, &dc);
		if (err)
			rc = imgp_fail(EUCLEAN, "%s filesystem has errors (directory '%s': %s): run e2fsck -f first",
				       type, dir, ext_why(err, why, sizeof(why)));
		else if (dc.bad)
			rc = imgp_fail(EUCLEAN, "%s filesystem has errors (directory '%s' names inode %u, which is not in use): run e2fsck -f first",
				       type, dir, dc.bad);
	}
	free(dir);
	return rc;
}

/* The usage a write changes, for the quota check. */
struct ext_usage {
	blk64_t free_blocks;
	ext2_ino_t free_inodes;
};

static void ext_usage(ext2_filsys efs, struct ext_usage *u)
{
	u->free_blocks = ext2fs_free_blocks_count(efs->super);
	u->free_inodes = efs->super->s_free_inodes_count;
}

/*
 * Quota files record each owner's blocks and inodes. The libext2fs of
 * Debian 12 ships no quota API to update them, so a write that changes
 * the usage is refused instead of leaving quota stale; one that keeps the
 * file's size in blocks (most edits) goes ahead.
 */
static int ext_check_quota(ext2_filsys efs, const char *type,
			   const struct ext_usage *before)
{
	struct ext_usage after;

	if (!ext2fs_has_feature_quota(efs->super))
		return 0;
	ext_usage(efs, &after);
	if (after.free_blocks == before->free_blocks &&
	    after.free_inodes == before->free_inodes)
		return 0;
	return imgp_fail(ENOTSUP, "%s filesystem has quota, and this change would %s (%+lld blocks, %+lld inodes) and updating the quota files is not supported: turn quota off first (tune2fs -O ^quota) and on again afterwards, which recounts it",
			 type,
			 after.free_inodes != before->free_inodes ? "create a file" : "change the space used",
			 (long long)before->free_blocks - (long long)after.free_blocks,
			 (long long)before->free_inodes - (long long)after.free_inodes);
}

/*
 * Ends a change: on success the metadata goes into the write set now
 * (close() cannot report errors); after a failure nothing more is written,
 * since the commit that captured it is abandoned.
 */
static int ext_finish_change(ext2_filsys efs, const char *type,
			     const struct ext_usage *before, int rc)
{
	errcode_t err;

	if (!rc)
		rc = ext_check_quota(efs, type, before);
	if (rc) {
		efs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY | EXT2_FLAG_IB_DIRTY);
		return rc;
	}
	err = ext2fs_flush(efs);
	return err ? ext_fail(err, "cannot write the filesystem metadata") : 0;
}

/* The checks every change makes first; the filesystem as a whole was checked at open. */
static int ext_check_change(struct imgp_fs *fs, const char *path)
{
	struct ext_priv *priv = ext_priv(fs);
	int rc;

	rc = ext_check_path(path);
	if (rc)
		return rc;
	if (!fs->capture || !(priv->fs->flags & EXT2_FLAG_RW))
		return imgp_fail(EROFS, "filesystem is opened read-only");
	return ext_check_dirs(priv->fs, priv->type, path);
}

static int ext_write_file(struct imgp_fs *fs, const char *path,
			  const void *data, size_t len)
{
	struct ext_priv *priv = ext_priv(fs);
	ext2_filsys efs = priv->fs;
	struct ext2_inode inode;
	struct ext_usage before;
	bool modified = false;
	ext2_ino_t ino;
	errcode_t err;
	int rc;

	rc = ext_check_change(fs, path);
	if (rc)
		return rc;
	ext_usage(efs, &before);
	err = ext2fs_namei_follow(efs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino);
	if (!err) {
		err = ext2fs_read_inode(efs, ino, &inode);
		if (err)
			return ext_fail(err, "cannot read inode %u", ino);
		rc = ext_rewrite(efs, ino, &inode, data, len, &modified);
	} else if (err == EXT2_ET_FILE_NOT_FOUND) {
		rc = ext_create(efs, path, data, len, &modified);
	} else {
		return ext_err(err);
	}
	if (!modified)
		return rc;
	return ext_finish_change(efs, priv->type, &before, rc);
}

static int ext_set_mode(struct imgp_fs *fs, const char *path, unsigned mode)
{
	ext2_filsys efs = ext_priv(fs)->fs;
	struct ext2_inode inode;
	ext2_ino_t ino;
	errcode_t err;
	int rc;

	rc = ext_check_change(fs, path);
	if (rc)
		return rc;
	err = ext2fs_namei(efs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino);
	if (!err)
		err = ext2fs_read_inode(efs, ino, &inode);
	if (err)
		return ext_err(err);
	if ((inode.i_mode & 07777) == (mode & 07777))
		return 0;
	inode.i_mode = (uint16_t)((inode.i_mode & ~07777u) | (mode & 07777));
	err = ext2fs_write_inode(efs, ino, &inode);
	return err ? ext_fail(err, "cannot write inode %u", ino) : 0;
}

static int ext_exists(struct imgp_fs *fs, const char *path)
{
	ext2_filsys efs = ext_priv(fs)->fs;
	ext2_ino_t ino;
	errcode_t err;
	int rc;

	rc = ext_check_path(path);
	if (rc)
		return rc;
	/* Like lstat: a symlink exists even when its target does not. */
	err = ext2fs_namei(efs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino);
	if (!err)
		return 1;
	if (err == EXT2_ET_FILE_NOT_FOUND || err == EXT2_ET_NO_DIRECTORY)
		return 0;
	return ext_err(err);
}

/* The target of a symbolic link: in i_block, inline data or a data block. */
static int ext_link_target(ext2_filsys efs, ext2_ino_t ino,
			   struct ext2_inode *inode, struct imgp_buf *out)
{
	uint64_t size = EXT2_I_SIZE(inode);
	size_t old_len = out->len;
	unsigned int got = 0;
	ext2_file_t file;
	errcode_t err, err2;

	if (inode->i_flags & EXT4_ENCRYPT_FL)
		return imgp_fail(ENOTSUP, "symbolic link is encrypted");
	/* The kernel keeps a target and its NUL within one block. */
	if (size == 0 || size >= efs->blocksize)
		return imgp_fail(EUCLEAN, "symbolic link of %" PRIu64 " bytes is corrupt: run e2fsck -f",
				 size);
	if (imgp_buf_reserve(out, (size_t)size))
		return imgp_fail(ENOMEM, "out of memory");
	if (!(inode->i_flags & EXT4_INLINE_DATA_FL) &&
	    ext2fs_is_fast_symlink(inode)) {
		memcpy(out->data + old_len, inode->i_block, (size_t)size);
		got = (unsigned int)size;
	} else {
		/* The file layer reads inline data and mapped blocks alike. */
		err = ext2fs_file_open2(efs, ino, inode, 0, &file);
		if (err)
			return ext_fail(err, "cannot open the symbolic link");
		err = ext2fs_file_read(file, out->data + old_len,
				       (unsigned int)size, &got);
		err2 = ext2fs_file_close(file);
		if (err || err2)
			return ext_fail(err ? err : err2, "cannot read the symbolic link");
	}
	if (got != size || memchr(out->data + old_len, '\0', got))
		return imgp_fail(EUCLEAN, "symbolic link target is corrupt: run e2fsck -f");
	out->len = old_len + got;
	out->data[out->len] = '\0';
	return 0;
}

/* The inode of path itself, a symlink not followed (lstat). */
static int ext_lookup_nofollow(ext2_filsys efs, const char *path,
			       ext2_ino_t *ino, struct ext2_inode *inode)
{
	return ext_lookup_at(efs, path, false, ino, inode);
}

static int ext_readlink(struct imgp_fs *fs, const char *path,
			struct imgp_buf *out)
{
	ext2_filsys efs = ext_priv(fs)->fs;
	struct ext2_inode inode;
	ext2_ino_t ino;
	int rc;

	rc = ext_check_path(path);
	if (!rc)
		rc = ext_lookup_nofollow(efs, path, &ino, &inode);
	if (rc)
		return rc;
	if (!LINUX_S_ISLNK(inode.i_mode))
		return imgp_fail(EINVAL, "not a symbolic link");
	return ext_link_target(efs, ino, &inode, out);
}

/* Drops one link to an inode that lost its directory entry. */
static int ext_unref(ext2_filsys efs, const char *path, ext2_ino_t ino)
{
	struct ext2_inode inode;
	errcode_t err;

	err = ext2fs_read_inode(efs, ino, &inode);
	if (err)
		return ext_fail(err, "cannot read inode %u", ino);
	if (inode.i_links_count > 1) {
		inode.i_links_count--;
		err = ext2fs_write_inode(efs, ino, &inode);
		if (err)
			return ext_fail(err, "cannot write inode %u", ino);
		return ext_set_times(efs, ino, EXT_TIME_MTIME);
	}
	ext_forget(efs, path, ino);
	return 0;
}

/*
 * Takes back a symlink inode that ext2fs_symlink() may have left half
 * made: accounted for (then freed like any inode) or only written.
 */
static void ext_symlink_undo(ext2_filsys efs, const char *path, ext2_ino_t ino)
{
	struct ext2_inode zero;
	char why[256];
	errcode_t err;

	if (ext2fs_test_inode_bitmap2(efs->inode_map, ino)) {
		ext_forget(efs, path, ino);
		return;
	}
	memset(&zero, 0, sizeof(zero));
	err = ext2fs_write_inode(efs, ino, &zero);
	if (err)
		imgp_warn("'%s': cannot clear inode %u: %s: run e2fsck -f", path,
			  ino, ext_why(err, why, sizeof(why)));
}

/*
 * Creates path -> target. An existing symlink is replaced by a new inode
 * (its entry is swapped in place, so the name never disappears for good);
 * anything else at path is left alone.
 */
static int ext_make_symlink(ext2_filsys efs, const char *path,
			    const char *target, bool *modified)
{
	struct imgp_buf old_target = { 0 };
	struct ext2_inode inode;
	ext2_ino_t parent, ino, old = 0;
	const char *name;
	char *dir, why[256];
	errcode_t err;
	int rc;

	rc = ext_parent(efs, path, &parent, &name, &dir);
	if (rc)
		goto out;
	err = ext2fs_lookup(efs, parent, name, (int)strlen(name), NULL, &old);
	if (!err) {
		err = ext2fs_read_inode(efs, old, &inode);
		if (err) {
			rc = ext_fail(err, "cannot read inode %u", old);
			goto out;
		}
		if (!LINUX_S_ISLNK(inode.i_mode)) {
			rc = imgp_fail(EEXIST, "exists and is not a symbolic link");
			goto out;
		}
		if (inode.i_flags & (EXT2_IMMUTABLE_FL | EXT2_APPEND_FL)) {
			rc = imgp_fail(EPERM, "symbolic link is immutable or append-only: clear the flag with chattr -ia first");
			goto out;
		}
		/* Already right: leave the inode and its times alone. */
		rc = ext_link_target(efs, old, &inode, &old_target);
		if (!rc && !strcmp((const char *)old_target.data, target))
			goto out;
		imgp_errclear();
		rc = 0;
	} else if (err != EXT2_ET_FILE_NOT_FOUND) {
		rc = ext_fail(err, "cannot search directory '%s'", dir);
		goto out;
	} else {
		old = 0;
	}
	if (!efs->super->s_free_inodes_count) {
		rc = imgp_fail(ENOSPC, "cannot create: no free inodes");
		goto out;
	}
	/* A data block for a long target, one more if the directory grows. */
	rc = ext_check_space(efs, strlen(target), 0, 1);
	if (rc)
		goto out;

	*modified = true;
	err = ext2fs_new_inode(efs, parent, LINUX_S_IFLNK | 0777, NULL, &ino);
	if (err) {
		rc = ext_fail(err, "cannot allocate an inode");
		goto out;
	}
	/* No name: linking is ours, so that a full directory can grow. */
	err = ext2fs_symlink(efs, parent, ino, NULL, target);
	if (err) {
		ext_symlink_undo(efs, path, ino);
		rc = ext_fail(err, "cannot create the symbolic link");
		goto out;
	}
	if (old) {
		err = ext2fs_unlink(efs, parent, name, old, 0);
		if (err) {
			ext_forget(efs, path, ino);
			rc = ext_fail(err, "cannot remove the old symbolic link");
			goto out;
		}
	}
	rc = ext_link(efs, dir, parent, name, ino, EXT2_FT_SYMLINK);
	if (rc) {
		ext_forget(efs, path, ino);
		err = old ? ext2fs_link(efs, parent, name, old, EXT2_FT_SYMLINK) : 0;
		if (err)
			imgp_warn("'%s': cannot put the old symbolic link back: %s: run e2fsck -f",
				  path, ext_why(err, why, sizeof(why)));
		goto out;
	}
	if (old)
		rc = ext_unref(efs, path, old);
	if (!rc)
		rc = ext_set_times(efs, ino, EXT_TIME_ALL);
	/* As the kernel does: a changed entry changes the directory. */
	if (!rc)
		rc = ext_set_times(efs, parent, EXT_TIME_MTIME);
out:
	imgp_buf_free(&old_target);
	free(dir);
	return rc;
}

static int ext_symlink(struct imgp_fs *fs, const char *path, const char *target)
{
	struct ext_priv *priv = ext_priv(fs);
	ext2_filsys efs = priv->fs;
	struct ext_usage before;
	bool modified = false;
	size_t len;
	int rc;

	rc = ext_check_change(fs, path);
	if (rc)
		return rc;
	len = target ? strlen(target) : 0;
	/* The kernel refuses empty targets and ones that fill a block. */
	if (!len)
		return imgp_fail(EINVAL, "empty symbolic link target");
	if (len >= efs->blocksize)
		return imgp_fail(ENAMETOOLONG, "symbolic link target of %zu bytes is longer than the %u allowed",
				 len, efs->blocksize - 1);
	ext_usage(efs, &before);
	rc = ext_make_symlink(efs, path, target, &modified);
	if (!modified)
		return rc;
	return ext_finish_change(efs, priv->type, &before, rc);
}

/* Creates the directory path (mode 0755, root), its parent existing; one there is kept. */
static int ext_mkdir(struct imgp_fs *fs, const char *path)
{
	struct ext_priv *priv = ext_priv(fs);
	ext2_filsys efs = priv->fs;
	struct ext_usage before;
	struct ext2_inode inode;
	ext2_ino_t parent, ino;
	const char *name;
	char *dir = NULL;
	errcode_t err;
	int rc;

	rc = ext_check_change(fs, path);
	if (!rc)
		rc = ext_parent(efs, path, &parent, &name, &dir);
	if (rc)
		goto out;
	rc = ext_name_free(efs, parent, name, dir, &ino);
	if (rc == 1) {
		err = ext2fs_read_inode(efs, ino, &inode);
		rc = err ? ext_fail(err, "cannot read inode %u", ino) :
		     LINUX_S_ISDIR(inode.i_mode) ? 0 :
		     imgp_fail(EEXIST, "exists and is not a directory");
		goto out;
	}
	if (rc)
		goto out;
	/* Its first block, one more if the parent grows. */
	rc = ext_check_space(efs, efs->blocksize, 0, 1);
	if (rc)
		goto out;
	ext_usage(efs, &before);
	err = ext2fs_mkdir(efs, parent, 0, name);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(efs, parent);
		if (!err)
			err = ext2fs_mkdir(efs, parent, 0, name);
	}
	if (err)
		rc = ext_fail(err, "cannot create directory '%s'", path);
	if (!rc)
		rc = ext2fs_lookup(efs, parent, name, (int)strlen(name), NULL, &ino) ?
			     imgp_fail(EIO, "directory '%s' not found after creating it", path) : 0;
	if (!rc)
		rc = ext_set_times(efs, ino, EXT_TIME_ALL);
	if (!rc)
		rc = ext_set_times(efs, parent, EXT_TIME_MTIME);
	rc = ext_finish_change(efs, priv->type, &before, rc);
out:
	free(dir);
	return rc;
}

struct ext_listing {
	char ***names;
	size_t *n;
	int rc;
};

static int ext_list_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent,
			  int offset, int blocksize, char *buf, void *priv)
{
	struct ext_listing *l = priv;

	(void)dir;
	(void)entry;
	(void)offset;
	(void)blocksize;
	(void)buf;
	l->rc = imgp_fs_names_add(l->names, l->n, dirent->name,
				  (size_t)ext2fs_dirent_name_len(dirent));
	return l->rc ? DIRENT_ABORT : 0;
}

/* Links are followed inside the filesystem: /lib may be usr/lib. */
static int ext_list(struct imgp_fs *fs, const char *dir, char ***names, size_t *n)
{
	ext2_filsys efs = ext_priv(fs)->fs;
	struct ext_listing l = { names, n, 0 };
	struct ext2_inode inode;
	ext2_ino_t ino;
	errcode_t err;
	int rc;

	rc = ext_lookup(efs, dir, &ino, &inode);
	if (rc == -ENOENT)
		return imgp_fail(ENOENT, "%s: no such directory", dir);
	if (rc)
		return rc;
	if (!LINUX_S_ISDIR(inode.i_mode))
		return imgp_fail(ENOTDIR, "%s: not a directory", dir);
	err = ext2fs_dir_iterate2(efs, ino, 0, NULL, ext_list_entry, &l);
	if (l.rc)
		return l.rc;
	return err ? ext_fail(err, "%s: cannot read the directory", dir) : 0;
}

const struct imgp_fs_ops imgp_fs_ext = {
	.name = "ext",
	.handles = ext_handles,
	.open = ext_open,
	.close = ext_close,
	.read_file = ext_read_file,
	.write_file = ext_write_file,
	.set_mode = ext_set_mode,
	.exists = ext_exists,
	.symlink = ext_symlink,
	.readlink = ext_readlink,
	.list = ext_list,
	.mkdir = ext_mkdir,
};
