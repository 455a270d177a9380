// SPDX-License-Identifier: MIT
/*
 * ext2/3/4 backend on libext2fs: reads files and rewrites them in place
 * inside a partition of the image, without mounting it. Paths and symlinks
 * are resolved inside the filesystem only, never on the host.
 *
 * This file: libext2fs's errors, opening and closing, and the operations of
 * struct imgp_fs_ops. The checks made before a write are in
 * fs-ext-damage.c, the path walk in fs-ext-path.c, the changes to inodes
 * in fs-ext-write.c, removal in fs-ext-remove.c.
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

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "core/epoch.h"
#include "fs/fs-ext-internal.h"
#include "fs/io-capture.h"

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
const char *imgp_ext_why_(errcode_t err, char *buf, size_t size)
{
	size_t n;

	snprintf(buf, size, "%s", error_message(err));
	n = strlen(buf);
	if (n && buf[n - 1] == '.')
		buf[n - 1] = '\0';
	return buf;
}

/* Records libext2fs's text for err and returns the matching -errno. */
int imgp_ext_err_(errcode_t err)
{
	char why[256];

	return imgp_fail(ext_errno(err), "%s", imgp_ext_why_(err, why, sizeof(why)));
}

/* Records "<context>: <libext2fs text>" and returns the matching -errno. */
int imgp_ext_fail_(errcode_t err, const char *fmt, ...)
{
	char ctx[512], why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	return imgp_fail(ext_errno(err), "%s: %s", ctx,
			 imgp_ext_why_(err, why, sizeof(why)));
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
	int rc = imgp_source_date_epoch_(&v);

	*out = rc || v < 0 ? 0 : (time_t)v;
	return rc;
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

static int ext_open(struct imgp_fs *fs)
{
	const struct imgp_part *part = fs->part;
	const char *type;
	int flags = EXT2_FLAG_64BITS;
	ext2_filsys efs = NULL;
	struct imgp_writeset *reads = NULL;
	struct ext_priv *priv;
	unsigned int bsize;
	char opts[96];
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
		/* MMP is checked by imgp_ext_check_writable_, through the partition's offset. */
		flags |= EXT2_FLAG_RW | EXT2_FLAG_SKIP_MMP;
		rc = ext_epoch(&epoch);
		if (rc)
			return rc;
	} else {
		/*
		 * A read-only open reads through an empty write set: every read
		 * then goes through imgp_image_read_, and closing never writes.
		 */
		rc = imgp_writeset_new_(&reads, fs->img);
		if (rc)
			return rc;
	}
	/* Writes land in the write set, never in the image. */
	rc = imgp_capture_io_options_(opts, sizeof(opts), fs->capture ? fs->capture : reads,
				     part->start);
	if (rc) {
		imgp_writeset_free_(reads);
		return rc;
	}
	err = ext2fs_open2(fs->img->path, opts, flags, 0, 0,
			   imgp_capture_io_manager_, &efs);
	if (err) {
		imgp_writeset_free_(reads);
		return imgp_ext_fail_(err, "cannot open filesystem");
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
	rc = imgp_ext_check_clean_(efs, type);
	if (!rc && fs->capture)
		rc = imgp_ext_check_writable_(efs, type);
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
	imgp_writeset_free_(reads);
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
		imgp_warn(fs->img->ctx, "%s: closing the filesystem: %s", priv->type,
			  imgp_ext_why_(err, why, sizeof(why)));
	imgp_writeset_free_(priv->reads);
	free(priv);
	fs->priv = NULL;
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

	rc = imgp_ext_check_path_(path);
	if (!rc)
		rc = imgp_ext_lookup_(efs, path, &ino, &inode);
	if (!rc)
		rc = imgp_ext_check_regular_(&inode);
	if (rc)
		return rc;
	/* libext2fs would hand back ciphertext. */
	if (inode.i_flags & EXT4_ENCRYPT_FL)
		return imgp_fail(ENOTSUP, "file is encrypted");
	size = EXT2_I_SIZE(&inode);
	if (size > max)
		return imgp_fail(EFBIG, "file is %" PRIu64 " bytes, more than the %zu allowed",
				 size, max);
	rc = imgp_buf_reserve_(out, (size_t)size);
	if (rc)
		return imgp_fail(ENOMEM, "out of memory");
	err = ext2fs_file_open(efs, ino, 0, &file);
	if (err)
		return imgp_ext_fail_(err, "cannot open");
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
		return imgp_ext_fail_(err, "read error");
	if (got != size)
		return imgp_fail(EIO, "short read (%zu of %" PRIu64 " bytes)",
				 got, size);
	if (err2)
		return imgp_ext_fail_(err2, "cannot close");
	out->len = old_len + got;
	out->data[out->len] = '\0';
	return 0;
}

/* The checks every change makes first; the filesystem as a whole was checked at open. */
static int ext_check_change(struct imgp_fs *fs, const char *path)
{
	struct ext_priv *priv = ext_priv(fs);
	int rc;

	rc = imgp_ext_check_path_(path);
	if (rc)
		return rc;
	if (!fs->capture || !(priv->fs->flags & EXT2_FLAG_RW))
		return imgp_fail(EROFS, "filesystem is opened read-only");
	return imgp_ext_check_dirs_(priv->fs, priv->type, path);
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
	imgp_ext_usage_(efs, &before);
	rc = imgp_ext_resolve_(efs, path, true, &ino);
	if (!rc) {
		err = ext2fs_read_inode(efs, ino, &inode);
		if (err)
			return imgp_ext_fail_(err, "cannot read inode %u", ino);
		rc = imgp_ext_rewrite_(efs, ino, &inode, data, len, &modified);
	} else if (rc == -ENOENT) {
		imgp_errclear_();
		rc = imgp_ext_create_(efs, fs->img->ctx, path, data, len, &modified);
	} else {
		return rc;
	}
	if (!modified)
		return rc;
	return imgp_ext_finish_change_(efs, priv->type, &before, rc);
}

/*
 * Sets path's own inode's permission bits (mode >= 0) or owner (uid >= 0:
 * uid and gid). The kernel refuses both on an immutable inode, and has no
 * lchmod: a link's own bits are never looked at.
 */
static int ext_set_attr(struct imgp_fs *fs, const char *path, long mode,
			long uid, long gid)
{
	ext2_filsys efs = ext_priv(fs)->fs;
	struct ext2_inode inode;
	ext2_ino_t ino;
	bool changed = false;
	errcode_t err;
	int rc;

	rc = ext_check_change(fs, path);
	if (!rc)
		rc = imgp_ext_lookup_nofollow_(efs, path, &ino, &inode);
	if (rc)
		return rc;
	if (inode.i_flags & (EXT2_IMMUTABLE_FL | EXT2_APPEND_FL))
		return imgp_fail(EPERM, "is immutable or append-only: clear the flag with chattr -ia first");
	if (mode >= 0 && LINUX_S_ISLNK(inode.i_mode))
		return imgp_fail(EINVAL, "is a symbolic link, which has no mode of its own");
	if (mode >= 0 && (inode.i_mode & 07777) != (mode & 07777)) {
		inode.i_mode = (uint16_t)((inode.i_mode & ~07777u) | (mode & 07777));
		changed = true;
	}
	if (uid >= 0 && (inode_uid(inode) != uid || inode_gid(inode) != gid)) {
		inode.i_uid = (__u16)uid;
		inode.i_gid = (__u16)gid;
		ext2fs_set_i_uid_high(inode, (unsigned long)uid >> 16);
		ext2fs_set_i_gid_high(inode, (unsigned long)gid >> 16);
		changed = true;
	}
	if (!changed)
		return 0;
	err = ext2fs_write_inode(efs, ino, &inode);
	return err ? imgp_ext_fail_(err, "cannot write inode %u", ino) : 0;
}

static int ext_set_mode(struct imgp_fs *fs, const char *path, unsigned mode)
{
	return ext_set_attr(fs, path, (long)(mode & 07777), -1, -1);
}

/* As lchown: a link's own inode, not its target's. */
static int ext_set_owner(struct imgp_fs *fs, const char *path, unsigned uid,
			 unsigned gid)
{
	return ext_set_attr(fs, path, -1, (long)uid, (long)gid);
}

static int ext_stat(struct imgp_fs *fs, const char *path, struct imgp_fs_stat_ *st)
{
	struct ext2_inode inode;
	ext2_ino_t ino;
	int rc;

	rc = imgp_ext_check_path_(path);
	if (!rc)
		rc = imgp_ext_lookup_nofollow_(ext_priv(fs)->fs, path, &ino, &inode);
	if (rc == -ENOENT || rc == -ENOTDIR) {
		imgp_errclear_();
		return imgp_fail(ENOENT, "no such file or folder");
	}
	if (rc)
		return rc;
	st->type = LINUX_S_ISREG(inode.i_mode) ? IMGP_FS_REG :
		   LINUX_S_ISDIR(inode.i_mode) ? IMGP_FS_DIR :
		   LINUX_S_ISLNK(inode.i_mode) ? IMGP_FS_LNK : IMGP_FS_OTHER;
	st->mode = inode.i_mode & 07777;
	st->uid = inode_uid(inode);
	st->gid = inode_gid(inode);
	st->size = EXT2_I_SIZE(&inode);
	return 0;
}

static int ext_remove(struct imgp_fs *fs, const char *path)
{
	struct ext_priv *priv = ext_priv(fs);
	struct ext_usage before;
	int rc;

	rc = ext_check_change(fs, path);
	if (rc)
		return rc;
	imgp_ext_usage_(priv->fs, &before);
	rc = imgp_ext_remove_(priv->fs, fs->img->ctx, path);
	return imgp_ext_finish_change_(priv->fs, priv->type, &before, rc);
}

static int ext_exists(struct imgp_fs *fs, const char *path)
{
	ext2_filsys efs = ext_priv(fs)->fs;
	ext2_ino_t ino;
	int rc;

	rc = imgp_ext_check_path_(path);
	if (rc)
		return rc;
	/* Like lstat: a symlink exists even when its target does not. */
	rc = imgp_ext_resolve_(efs, path, false, &ino);
	if (rc == -ENOENT || rc == -ENOTDIR) {
		imgp_errclear_();
		return 0;
	}
	return rc ? rc : 1;
}

static int ext_readlink(struct imgp_fs *fs, const char *path,
			struct imgp_buf *out)
{
	ext2_filsys efs = ext_priv(fs)->fs;
	struct ext2_inode inode;
	ext2_ino_t ino;
	int rc;

	rc = imgp_ext_check_path_(path);
	if (!rc)
		rc = imgp_ext_lookup_nofollow_(efs, path, &ino, &inode);
	if (rc)
		return rc;
	if (!LINUX_S_ISLNK(inode.i_mode))
		return imgp_fail(EINVAL, "not a symbolic link");
	return imgp_ext_link_target_(efs, ino, &inode, out);
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
	imgp_ext_usage_(efs, &before);
	rc = imgp_ext_make_symlink_(efs, fs->img->ctx, path, target, &modified);
	if (!modified)
		return rc;
	return imgp_ext_finish_change_(efs, priv->type, &before, rc);
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
		rc = imgp_ext_parent_(efs, path, &parent, &name, &dir);
	if (rc)
		goto out;
	rc = imgp_ext_name_free_(efs, parent, name, dir, &ino);
	if (rc == 1) {
		err = ext2fs_read_inode(efs, ino, &inode);
		rc = err ? imgp_ext_fail_(err, "cannot read inode %u", ino) :
		     LINUX_S_ISDIR(inode.i_mode) ? 0 :
		     imgp_fail(EEXIST, "exists and is not a directory");
		goto out;
	}
	if (rc)
		goto out;
	/* Its first block, one more if the parent grows. */
	rc = imgp_ext_check_space_(efs, efs->blocksize, 0, 1);
	if (rc)
		goto out;
	imgp_ext_usage_(efs, &before);
	err = ext2fs_mkdir(efs, parent, 0, name);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(efs, parent);
		if (!err)
			err = ext2fs_mkdir(efs, parent, 0, name);
	}
	if (err)
		rc = imgp_ext_fail_(err, "cannot create directory '%s'", path);
	if (!rc)
		rc = ext2fs_lookup(efs, parent, name, (int)strlen(name), NULL, &ino) ?
			     imgp_fail(EIO, "directory '%s' not found after creating it", path) : 0;
	if (!rc)
		rc = imgp_ext_set_times_(efs, ino, EXT_TIME_ALL);
	if (!rc)
		rc = imgp_ext_set_times_(efs, parent, EXT_TIME_MTIME);
	rc = imgp_ext_finish_change_(efs, priv->type, &before, rc);
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
	l->rc = imgp_fs_names_add_(l->names, l->n, dirent->name,
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

	rc = imgp_ext_lookup_(efs, dir, &ino, &inode);
	if (rc == -ENOENT)
		return imgp_fail(ENOENT, "%s: no such directory", dir);
	if (rc)
		return rc;
	if (!LINUX_S_ISDIR(inode.i_mode))
		return imgp_fail(ENOTDIR, "%s: not a directory", dir);
	err = ext2fs_dir_iterate2(efs, ino, 0, NULL, ext_list_entry, &l);
	if (l.rc)
		return l.rc;
	return err ? imgp_ext_fail_(err, "%s: cannot read the directory", dir) : 0;
}

const struct imgp_fs_ops imgp_fs_ext_ = {
	.name = "ext",
	.handles = ext_handles,
	.open = ext_open,
	.close = ext_close,
	.read_file = ext_read_file,
	.write_file = ext_write_file,
	.set_mode = ext_set_mode,
	.set_owner = ext_set_owner,
	.stat = ext_stat,
	.remove = ext_remove,
	.exists = ext_exists,
	.symlink = ext_symlink,
	.readlink = ext_readlink,
	.list = ext_list,
	.mkdir = ext_mkdir,
};
