// SPDX-License-Identifier: MIT
/*
 * ext backend: the changes a write makes to inodes: file data and times,
 * new files and symbolic links, freeing an inode nothing links to, and the
 * end of a change (the quota check, the metadata into the write set).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ext2fs/ext2fs.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs-ext-internal.h"

static time_t ext_now(ext2_filsys efs)
{
	return efs->now ? efs->now : time(NULL);
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

int imgp_ext_set_times_(ext2_filsys efs, ext2_ino_t ino, unsigned int what)
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
		return imgp_ext_fail_(err, "cannot read inode %u", ino);
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
		return imgp_ext_fail_(err, "cannot write inode %u", ino);
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
		return imgp_ext_fail_(err, "cannot open for writing");
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
		return imgp_ext_fail_(err, "write error");
	if (err2)
		return imgp_ext_fail_(err2, "write error");
	return 0;
}

/*
 * Refuses up front a write that cannot fit, so that the common failure
 * does not leave a half-written file behind. owned: blocks the file has.
 */
int imgp_ext_check_space_(ext2_filsys efs, size_t len, blk64_t owned,
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
int imgp_ext_rewrite_(ext2_filsys efs, ext2_ino_t ino, struct ext2_inode *inode,
		     const void *data, size_t len, bool *modified)
{
	blk64_t owned;
	int rc;

	rc = imgp_ext_check_regular_(inode);
	if (!rc)
		rc = ext_check_flags(inode);
	if (rc)
		return rc;
	/* libext2fs fixed bugs in rewriting inline data after 1.47.0: not trusted. */
	if (inode->i_flags & EXT4_INLINE_DATA_FL)
		return imgp_fail(ENOTSUP, "file is stored inline in its inode (inline_data): rewriting such a file is not supported");
	owned = ext2fs_get_stat_i_blocks(efs, inode) /
		(EXT2_BLOCK_SIZE(efs->super) / 512);
	rc = imgp_ext_check_space_(efs, len, owned, 0);
	if (rc)
		return rc;
	*modified = true;
	rc = ext_write_data(efs, ino, data, len);
	if (!rc)
		rc = imgp_ext_set_times_(efs, ino, EXT_TIME_MTIME);
	return rc;
}

/*
 * Frees an inode nothing links to any more: its blocks, its share of an
 * xattr block and the inode itself (a half-made file, a replaced symlink,
 * a removed one); a folder's is counted off its group's folders too.
 */
void imgp_ext_forget_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path,
		     ext2_ino_t ino)
{
	struct ext2_inode inode;
	__u32 refs = 0;
	blk64_t ea;
	char why[256];
	bool dir = false;
	errcode_t err;

	err = ext2fs_read_inode(efs, ino, &inode);
	if (!err)
		dir = LINUX_S_ISDIR(inode.i_mode);
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
		ext2fs_inode_alloc_stats2(efs, ino, -1, dir);
	else
		imgp_warn(ctx, "'%s': cannot free inode %u: %s: run e2fsck -f",
			  path, ino, imgp_ext_why_(err, why, sizeof(why)));
}

static int ext_new_inode(ext2_filsys efs, ext2_ino_t parent, ext2_ino_t *ino)
{
	struct ext2_inode inode;
	ext2_extent_handle_t handle = NULL;
	time_t now = ext_now(efs);
	errcode_t err;

	err = ext2fs_new_inode(efs, parent, LINUX_S_IFREG | 0644, NULL, ino);
	if (err)
		return imgp_ext_fail_(err, "cannot allocate an inode");
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | 0644;
	inode.i_links_count = 1;
	inode.i_atime = inode.i_ctime = inode.i_mtime = (__u32)now;
	if (ext2fs_has_feature_extents(efs->super)) {
		/* Opening an extent handle on an empty inode sets up the tree root. */
		err = ext2fs_extent_open2(efs, *ino, &inode, &handle);
		if (err)
			return imgp_ext_fail_(err, "cannot set up extents");
		ext2fs_extent_free(handle);
	}
	err = ext2fs_write_new_inode(efs, *ino, &inode);
	if (err)
		return imgp_ext_fail_(err, "cannot write inode %u", *ino);
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
			return imgp_ext_fail_(err, "cannot grow directory '%s'", dir);
		err = ext2fs_link(efs, parent, name, ino, ftype);
	}
	if (err)
		return imgp_ext_fail_(err, "cannot add an entry to directory '%s'", dir);
	return 0;
}

/* Creates a missing file (mode 0644, owned by root) in an existing directory. */
int imgp_ext_create_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path,
		    const void *data, size_t len, bool *modified)
{
	struct ext2_inode other_inode;
	ext2_ino_t parent, ino, other;
	const char *name;
	char *dir, why[256];
	errcode_t err;
	int rc;

	rc = imgp_ext_parent_(efs, path, &parent, &name, &dir);
	if (rc)
		goto out;
	/* The name may be there as a symlink whose target is missing. */
	rc = imgp_ext_name_free_(efs, parent, name, dir, &other);
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
	rc = imgp_ext_check_space_(efs, len, 0, 1);
	if (rc)
		goto out;

	*modified = true;
	rc = ext_new_inode(efs, parent, &ino);
	if (rc)
		goto out;
	rc = ext_link(efs, dir, parent, name, ino, EXT2_FT_REG_FILE);
	if (rc) {
		imgp_ext_forget_(efs, ctx, path, ino);
		goto out;
	}
	rc = ext_write_data(efs, ino, data, len);
	if (!rc)
		rc = imgp_ext_set_times_(efs, ino, EXT_TIME_ALL);
	if (rc) {
		err = ext2fs_unlink(efs, parent, name, ino, 0);
		if (err)
			imgp_warn(ctx, "'%s': cannot remove the entry after a failed write: %s: run e2fsck -f",
				  path, imgp_ext_why_(err, why, sizeof(why)));
		else
			imgp_ext_forget_(efs, ctx, path, ino);
		goto out;
	}
	/* As the kernel does: a new entry changes the directory. */
	rc = imgp_ext_set_times_(efs, parent, EXT_TIME_MTIME);
out:
	free(dir);
	return rc;
}

void imgp_ext_usage_(ext2_filsys efs, struct ext_usage *u)
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
	imgp_ext_usage_(efs, &after);
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
int imgp_ext_finish_change_(ext2_filsys efs, const char *type,
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
	return err ? imgp_ext_fail_(err, "cannot write the filesystem metadata") : 0;
}

int imgp_ext_unref_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path,
		     ext2_ino_t ino)
{
	struct ext2_inode inode;
	errcode_t err;

	err = ext2fs_read_inode(efs, ino, &inode);
	if (err)
		return imgp_ext_fail_(err, "cannot read inode %u", ino);
	if (inode.i_links_count > 1) {
		inode.i_links_count--;
		err = ext2fs_write_inode(efs, ino, &inode);
		if (err)
			return imgp_ext_fail_(err, "cannot write inode %u", ino);
		return imgp_ext_set_times_(efs, ino, EXT_TIME_MTIME);
	}
	imgp_ext_forget_(efs, ctx, path, ino);
	return 0;
}

/*
 * Takes back a symlink inode that ext2fs_symlink() may have left half
 * made: accounted for (then freed like any inode) or only written.
 */
static void ext_symlink_undo(ext2_filsys efs, struct imgp_ctx *ctx, const char *path,
			     ext2_ino_t ino)
{
	struct ext2_inode zero;
	char why[256];
	errcode_t err;

	if (ext2fs_test_inode_bitmap2(efs->inode_map, ino)) {
		imgp_ext_forget_(efs, ctx, path, ino);
		return;
	}
	memset(&zero, 0, sizeof(zero));
	err = ext2fs_write_inode(efs, ino, &zero);
	if (err)
		imgp_warn(ctx, "'%s': cannot clear inode %u: %s: run e2fsck -f", path,
			  ino, imgp_ext_why_(err, why, sizeof(why)));
}

/*
 * Creates path -> target. An existing symlink is replaced by a new inode
 * (its entry is swapped in place, so the name never disappears for good);
 * anything else at path is left alone.
 */
int imgp_ext_make_symlink_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path,
			  const char *target, bool *modified)
{
	struct imgp_buf old_target = { 0 };
	struct ext2_inode inode;
	ext2_ino_t parent, ino, old = 0;
	const char *name;
	char *dir, why[256];
	errcode_t err;
	int rc;

	rc = imgp_ext_parent_(efs, path, &parent, &name, &dir);
	if (rc)
		goto out;
	err = ext2fs_lookup(efs, parent, name, (int)strlen(name), NULL, &old);
	if (!err) {
		err = ext2fs_read_inode(efs, old, &inode);
		if (err) {
			rc = imgp_ext_fail_(err, "cannot read inode %u", old);
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
		rc = imgp_ext_link_target_(efs, old, &inode, &old_target);
		if (!rc && !strcmp((const char *)old_target.data, target))
			goto out;
		imgp_errclear_();
		rc = 0;
	} else if (err != EXT2_ET_FILE_NOT_FOUND) {
		rc = imgp_ext_fail_(err, "cannot search directory '%s'", dir);
		goto out;
	} else {
		old = 0;
	}
	if (!efs->super->s_free_inodes_count) {
		rc = imgp_fail(ENOSPC, "cannot create: no free inodes");
		goto out;
	}
	/* A data block for a long target, one more if the directory grows. */
	rc = imgp_ext_check_space_(efs, strlen(target), 0, 1);
	if (rc)
		goto out;

	*modified = true;
	err = ext2fs_new_inode(efs, parent, LINUX_S_IFLNK | 0777, NULL, &ino);
	if (err) {
		rc = imgp_ext_fail_(err, "cannot allocate an inode");
		goto out;
	}
	/* No name: linking is ours, so that a full directory can grow. */
	err = ext2fs_symlink(efs, parent, ino, NULL, target);
	if (err) {
		ext_symlink_undo(efs, ctx, path, ino);
		rc = imgp_ext_fail_(err, "cannot create the symbolic link");
		goto out;
	}
	if (old) {
		err = ext2fs_unlink(efs, parent, name, old, 0);
		if (err) {
			imgp_ext_forget_(efs, ctx, path, ino);
			rc = imgp_ext_fail_(err, "cannot remove the old symbolic link");
			goto out;
		}
	}
	rc = ext_link(efs, dir, parent, name, ino, EXT2_FT_SYMLINK);
	if (rc) {
		imgp_ext_forget_(efs, ctx, path, ino);
		err = old ? ext2fs_link(efs, parent, name, old, EXT2_FT_SYMLINK) : 0;
		if (err)
			imgp_warn(ctx, "'%s': cannot put the old symbolic link back: %s: run e2fsck -f",
				  path, imgp_ext_why_(err, why, sizeof(why)));
		goto out;
	}
	if (old)
		rc = imgp_ext_unref_(efs, ctx, path, old);
	if (!rc)
		rc = imgp_ext_set_times_(efs, ino, EXT_TIME_ALL);
	/* As the kernel does: a changed entry changes the directory. */
	if (!rc)
		rc = imgp_ext_set_times_(efs, parent, EXT_TIME_MTIME);
out:
	imgp_buf_free(&old_target);
	free(dir);
	return rc;
}
