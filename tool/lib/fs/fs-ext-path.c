// SPDX-License-Identifier: MIT
/*
 * ext backend: paths resolved inside the filesystem, never on the host:
 * lookups (a symlink followed or not), the directory that is to hold a new
 * name, and the target of a symbolic link.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs-ext-internal.h"

int imgp_ext_check_path_(const char *path)
{
	if (!path || !*path)
		return imgp_fail(EINVAL, "empty path");
	return 0;
}

/*
 * Symbolic links one lookup follows at most, in all, as Linux counts them
 * (MAXSYMLINKS). libext2fs's namei bounds only how deeply links nest: links
 * of many names each, nested 8 deep, would keep it walking for ever.
 */
#define EXT_LINKS_MAX 40

/* The next name of walk from *pos on (past slashes); its length, 0 at the end. */
static size_t ext_next_name(const struct imgp_buf *walk, size_t *pos)
{
	const char *name, *slash;

	while (*pos < walk->len && walk->data[*pos] == '/')
		(*pos)++;
	if (*pos == walk->len)
		return 0;
	name = (const char *)walk->data + *pos;
	slash = memchr(name, '/', walk->len - *pos);
	return slash ? (size_t)(slash - name) : walk->len - *pos;
}

int imgp_ext_resolve_(ext2_filsys efs, const char *path, bool follow,
		     ext2_ino_t *found)
{
	struct imgp_buf walk = { 0 }, next = { 0 }, swap;
	ext2_ino_t dir = EXT2_ROOT_INO, ino = EXT2_ROOT_INO;
	struct ext2_inode inode;
	unsigned int links = 0;
	size_t pos = 0, len;
	errcode_t err;
	int rc = imgp_buf_append(&walk, path, strlen(path));

	while (!rc && (len = ext_next_name(&walk, &pos)) > 0) {
		err = ext2fs_lookup(efs, dir, (const char *)walk.data + pos, (int)len,
				    NULL, &ino);
		pos += len;
		/* As libext2fs's namei words them (ENOTDIR: a name after a file's). */
		if (err == EXT2_ET_FILE_NOT_FOUND)
			rc = imgp_fail(ENOENT, "not found");
		else if (err)
			rc = imgp_ext_err_(err);
		/* The last name (no slash after it) of a lookup that does not follow it. */
		if (rc || (pos == walk.len && !follow))
			break;
		err = ext2fs_read_inode(efs, ino, &inode);
		if (err) {
			rc = imgp_ext_fail_(err, "cannot read inode %u", ino);
			break;
		}
		if (!LINUX_S_ISLNK(inode.i_mode)) {
			dir = ino;
			continue;
		}
		if (++links > EXT_LINKS_MAX) {
			rc = imgp_ext_err_(EXT2_ET_SYMLINK_LOOP);
			break;
		}
		/* The link's target takes its place: the rest is walked after it. */
		next.len = 0;
		rc = imgp_ext_link_target_(efs, ino, &inode, &next);
		if (!rc)
			rc = imgp_buf_append(&next, walk.data + pos, walk.len - pos);
		swap = walk;
		walk = next;
		next = swap;
		pos = 0;
		if (!rc && walk.data[0] == '/')
			dir = ino = EXT2_ROOT_INO;
		else
			ino = dir;
	}
	imgp_buf_free(&walk);
	imgp_buf_free(&next);
	if (!rc)
		*found = ino;
	return rc;
}

/*
 * Looks up a path and reads its inode; follow: also the last component when
 * it is a symlink (stat), else not (lstat).
 */
static int ext_lookup_at(ext2_filsys efs, const char *path, bool follow,
			 ext2_ino_t *ino, struct ext2_inode *inode)
{
	errcode_t err;
	int rc = imgp_ext_resolve_(efs, path, follow, ino);

	if (rc)
		return rc;
	err = ext2fs_read_inode(efs, *ino, inode);
	if (err)
		return imgp_ext_fail_(err, "cannot read inode %u", *ino);
	return 0;
}

/* Looks up a path (following symlinks, also the last one) and its inode. */
int imgp_ext_lookup_(ext2_filsys efs, const char *path, ext2_ino_t *ino,
		    struct ext2_inode *inode)
{
	return ext_lookup_at(efs, path, true, ino, inode);
}

int imgp_ext_check_regular_(const struct ext2_inode *inode)
{
	if (LINUX_S_ISDIR(inode->i_mode))
		return imgp_fail(EISDIR, "is a directory");
	if (!LINUX_S_ISREG(inode->i_mode))
		return imgp_fail(EINVAL, "not a regular file");
	return 0;
}

/*
 * Splits path into its last name and the directory that is to hold it,
 * which must exist (symlinks followed). *dir is malloc'd, also on failure.
 */
int imgp_ext_parent_(ext2_filsys efs, const char *path, ext2_ino_t *parent,
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

	rc = imgp_ext_lookup_(efs, *dir, parent, &dinode);
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
int imgp_ext_name_free_(ext2_filsys efs, ext2_ino_t parent, const char *name,
		       const char *dir, ext2_ino_t *found)
{
	errcode_t err = ext2fs_lookup(efs, parent, name, (int)strlen(name), NULL, found);

	if (!err)
		return 1;
	if (err != EXT2_ET_FILE_NOT_FOUND)
		return imgp_ext_fail_(err, "cannot search directory '%s'", dir);
	if (!efs->super->s_free_inodes_count)
		return imgp_fail(ENOSPC, "cannot create: no free inodes");
	return 0;
}

/* The target of a symbolic link: in i_block, inline data or a data block. */
int imgp_ext_link_target_(ext2_filsys efs, ext2_ino_t ino,
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
	if (imgp_buf_reserve_(out, (size_t)size))
		return imgp_fail(ENOMEM, "out of memory");
	if (!(inode->i_flags & EXT4_INLINE_DATA_FL) &&
	    ext2fs_is_fast_symlink(inode)) {
		memcpy(out->data + old_len, inode->i_block, (size_t)size);
		got = (unsigned int)size;
	} else {
		/* The file layer reads inline data and mapped blocks alike. */
		err = ext2fs_file_open2(efs, ino, inode, 0, &file);
		if (err)
			return imgp_ext_fail_(err, "cannot open the symbolic link");
		err = ext2fs_file_read(file, out->data + old_len,
				       (unsigned int)size, &got);
		err2 = ext2fs_file_close(file);
		if (err || err2)
			return imgp_ext_fail_(err ? err : err2, "cannot read the symbolic link");
	}
	if (got != size || memchr(out->data + old_len, '\0', got))
		return imgp_fail(EUCLEAN, "symbolic link target is corrupt: run e2fsck -f");
	out->len = old_len + got;
	out->data[out->len] = '\0';
	return 0;
}

/* The inode of path itself, a symlink not followed (lstat). */
int imgp_ext_lookup_nofollow_(ext2_filsys efs, const char *path,
			     ext2_ino_t *ino, struct ext2_inode *inode)
{
	return ext_lookup_at(efs, path, false, ino, inode);
}
