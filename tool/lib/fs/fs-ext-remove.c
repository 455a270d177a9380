// SPDX-License-Identifier: MIT
/*
 * ext backend: removing a file, a symbolic link or a folder with all it
 * holds (rm -rf). Every inode of the tree is found and checked before
 * anything changes; then the entry goes from its parent (a folder's ".."
 * link with it), each inode loses a link and, with its last, its blocks,
 * its xattr block share and itself. e2fsck -fn then finds nothing, and the
 * free counts are what they were before the removed files were made.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs-ext-internal.h"

/* The inodes a removal drops a link to: the top one first, then what folders hold. */
struct rm_tree {
	ext2_filsys efs;
	ext2_ino_t *ino;
	size_t n, cap;
	ext2fs_inode_bitmap dirs;  /* the folders met: each is reached once */
	int rc;
};

/*
 * The kernel refuses to unlink these, or to remove entries from them; one
 * not in use would be freed twice.
 */
static int rm_check_inode(ext2_filsys efs, const struct ext2_inode *inode,
			  ext2_ino_t ino)
{
	if (!ext2fs_test_inode_bitmap2(efs->inode_map, ino))
		return imgp_fail(EUCLEAN, "a folder names inode %u, which is not in use: run e2fsck -f",
				 ino);
	if (inode->i_flags & (EXT2_IMMUTABLE_FL | EXT2_APPEND_FL))
		return imgp_fail(EPERM, "holds an immutable or append-only inode (%u): clear the flag with chattr -ia first",
				 ino);
	return 0;
}

static int rm_add(struct rm_tree *t, ext2_ino_t ino)
{
	/* Every inode once, hard links aside: more is a loop of folders. */
	if (t->n >= (size_t)t->efs->super->s_inodes_count * 2)
		return imgp_fail(EUCLEAN, "the folder tree loops: run e2fsck -f");
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		ext2_ino_t *grown = realloc(t->ino, cap * sizeof(*grown));

		if (!grown)
			return imgp_fail(ENOMEM, "out of memory");
		t->ino = grown;
		t->cap = cap;
	}
	t->ino[t->n++] = ino;
	return 0;
}

static int rm_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent,
		    int offset, int blocksize, char *buf, void *priv)
{
	struct rm_tree *t = priv;
	int len = ext2fs_dirent_name_len(dirent);

	(void)dir;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE ||
	    (len == 1 && dirent->name[0] == '.') ||
	    (len == 2 && dirent->name[0] == '.' && dirent->name[1] == '.'))
		return 0;
	if (!dirent->inode || dirent->inode > t->efs->super->s_inodes_count) {
		t->rc = imgp_fail(EUCLEAN, "folder inode %u names inode %u, which is not one: run e2fsck -f",
				  dir, dirent->inode);
		return DIRENT_ABORT;
	}
	t->rc = rm_add(t, dirent->inode);
	return t->rc ? DIRENT_ABORT : 0;
}

/* Finds and checks every inode under top (itself included), breadth first. */
static int rm_collect(struct rm_tree *t, ext2_ino_t top)
{
	struct ext2_inode inode;
	errcode_t err;
	int rc = rm_add(t, top);

	for (size_t i = 0; !rc && i < t->n; i++) {
		ext2_ino_t ino = t->ino[i];

		err = ext2fs_read_inode(t->efs, ino, &inode);
		if (err)
			return imgp_ext_fail_(err, "cannot read inode %u", ino);
		rc = rm_check_inode(t->efs, &inode, ino);
		if (rc || !LINUX_S_ISDIR(inode.i_mode))
			continue;
		if (ino == EXT2_ROOT_INO || ext2fs_test_inode_bitmap2(t->dirs, ino))
			return imgp_fail(EUCLEAN, "folder inode %u is reached twice: run e2fsck -f",
					 ino);
		ext2fs_mark_inode_bitmap2(t->dirs, ino);
		/* An inline folder's entries too: libext2fs walks them when blocks fail. */
		err = ext2fs_dir_iterate2(t->efs, ino, 0, NULL, rm_entry, t);
		rc = t->rc;
		if (!rc && err)
			rc = imgp_ext_fail_(err, "cannot read folder inode %u", ino);
	}
	return rc;
}

/* The folder that holds path's last name, not followed past it. */
static int rm_parent(ext2_filsys efs, const char *path, ext2_ino_t *parent,
		     struct ext2_inode *pinode, const char **name)
{
	const char *end = path + strlen(path);
	char *dir;
	int rc;

	while (end > path && end[-1] == '/')
		end--;
	*name = end;
	while (*name > path && (*name)[-1] != '/')
		(*name)--;
	dir = *name == path ? strdup("/") : strndup(path, (size_t)(*name - path));
	if (!dir)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_ext_lookup_(efs, dir, parent, pinode);
	free(dir);
	if (rc == -ENOENT || rc == -ENOTDIR)
		return imgp_fail(ENOENT, "no such file or folder");
	if (rc)
		return rc;
	if (!LINUX_S_ISDIR(pinode->i_mode))
		return imgp_fail(ENOENT, "no such file or folder");
	/* As for a new file (fs-ext-path.c): an inline folder's change is a path not trusted. */
	if (pinode->i_flags & EXT4_INLINE_DATA_FL)
		return imgp_fail(ENOTSUP, "its folder is stored inline in its inode (inline_data), which is not supported");
	return rm_check_inode(efs, pinode, *parent);
}

/* The parent's link from a removed folder's "..", as rmdir drops it. */
static int rm_parent_link(ext2_filsys efs, ext2_ino_t parent)
{
	struct ext2_inode inode;
	errcode_t err = ext2fs_read_inode(efs, parent, &inode);

	if (err)
		return imgp_ext_fail_(err, "cannot read inode %u", parent);
	/* 1 is dir_nlink's "too many to count": it stays (checked before). */
	if (inode.i_links_count <= 2)
		return 0;
	inode.i_links_count--;
	err = ext2fs_write_inode(efs, parent, &inode);
	return err ? imgp_ext_fail_(err, "cannot write inode %u", parent) : 0;
}

int imgp_ext_remove_(ext2_filsys efs, struct imgp_ctx *ctx, const char *path)
{
	struct rm_tree t = { .efs = efs };
	struct ext2_inode pinode, inode;
	ext2_ino_t parent, top;
	const char *name;
	size_t namelen;
	errcode_t err;
	int rc;

	rc = rm_parent(efs, path, &parent, &pinode, &name);
	if (rc)
		return rc;
	namelen = strcspn(name, "/");
	err = ext2fs_lookup(efs, parent, name, (int)namelen, NULL, &top);
	if (err == EXT2_ET_FILE_NOT_FOUND)
		return imgp_fail(ENOENT, "no such file or folder");
	if (err)
		return imgp_ext_fail_(err, "cannot search its folder");
	if (top == EXT2_ROOT_INO)
		return imgp_fail(EPERM, "is the root folder");
	err = ext2fs_allocate_inode_bitmap(efs, "folders removed", &t.dirs);
	if (err)
		return imgp_ext_fail_(err, "cannot allocate a bitmap");
	rc = rm_collect(&t, top);
	if (!rc) {
		err = ext2fs_read_inode(efs, top, &inode);
		rc = err ? imgp_ext_fail_(err, "cannot read inode %u", top) : 0;
	}
	/* A folder in it counts a link of its parent: at least 3 then, or dir_nlink's 1. */
	if (!rc && LINUX_S_ISDIR(inode.i_mode) && pinode.i_links_count == 2)
		rc = imgp_fail(EUCLEAN, "folder inode %u counts fewer links than it has folders: run e2fsck -f",
			       parent);
	/* Nothing has changed so far: from here the inodes are changed. */
	if (!rc) {
		char *one = strndup(name, namelen);

		err = one ? ext2fs_unlink(efs, parent, one, top, 0) : EXT2_ET_NO_MEMORY;
		free(one);
		rc = err ? imgp_ext_fail_(err, "cannot remove its entry") : 0;
	}
	if (!rc && LINUX_S_ISDIR(inode.i_mode))
		rc = rm_parent_link(efs, parent);
	/* Folders are freed whole; the rest lose one link each (hard links stay). */
	for (size_t i = t.n; !rc && i-- > 0;) {
		err = ext2fs_read_inode(efs, t.ino[i], &inode);
		if (err)
			rc = imgp_ext_fail_(err, "cannot read inode %u", t.ino[i]);
		else if (LINUX_S_ISDIR(inode.i_mode))
			imgp_ext_forget_(efs, ctx, path, t.ino[i]);
		else
			rc = imgp_ext_unref_(efs, ctx, path, t.ino[i]);
	}
	if (!rc)
		rc = imgp_ext_set_times_(efs, parent, EXT_TIME_MTIME);
	ext2fs_free_inode_bitmap(t.dirs);
	free(t.ino);
	return rc;
}
