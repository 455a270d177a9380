// SPDX-License-Identifier: MIT
/*
 * ext backend: the directories must form a tree before a write, as
 * e2fsck's passes 2 and 3 check. Each directory in use is reached from /
 * by one entry alone, its "." names itself and its ".." the directory
 * holding it. An entry naming a directory reached already is a loop (a
 * link back to an ancestor) or a second parent (a hard link to a
 * directory): lookups through it never end, and a write would build on it.
 * Walked breadth first from a queue, never by recursion, each directory
 * once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "imgpatch.h"
#include "fs/fs-ext-internal.h"

/* A directory reached from /: its inode, its parent's index, its name there. */
struct tree_dir {
	ext2_ino_t ino;
	size_t parent;
	char *name;
};

struct tree_walk {
	ext2_filsys efs;
	ext2fs_inode_bitmap dirs;    /* the directories in use */
	ext2fs_inode_bitmap reached;
	struct imgp_buf queue;       /* every directory reached, in order (q, n) */
	struct tree_dir *q;
	size_t n;
	size_t cur;                  /* the one being read */
	char *finding;
	size_t size;
	int rc;
};

static void tree_found(struct tree_walk *w, const char *fmt, ...) IMGP_PRINTF(2, 3);
static void tree_found(struct tree_walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->finding, w->size, fmt, ap);
	va_end(ap);
}

/* A name as a message shows it: control bytes as \xNN, so it stays one line. */
static int tree_name(struct imgp_buf *out, const char *name, size_t len)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		rc = c < 0x20 || c == 0x7f ? imgp_buf_printf(out, "\\x%02x", c)
					   : imgp_buf_append(out, &name[i], 1);
	}
	return rc;
}

/* The path of the directory q[i], "/" for the root. */
static int tree_path(const struct tree_walk *w, size_t i, struct imgp_buf *out)
{
	size_t depth = 0, *chain;
	int rc = 0;

	out->len = 0;
	for (size_t j = i; j; j = w->q[j].parent)
		depth++;
	if (!depth)
		return imgp_buf_append(out, "/", 1);
	chain = calloc(depth, sizeof(*chain));
	if (!chain)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t j = i, k = depth; j; j = w->q[j].parent)
		chain[--k] = j;
	for (size_t k = 0; !rc && k < depth; k++) {
		rc = imgp_buf_append(out, "/", 1);
		if (!rc)
			rc = tree_name(out, w->q[chain[k]].name, strlen(w->q[chain[k]].name));
	}
	free(chain);
	return rc;
}

/* The index of the directory ino reached already; w->n when it was not. */
static size_t tree_index(const struct tree_walk *w, ext2_ino_t ino)
{
	size_t i = 0;

	while (i < w->n && w->q[i].ino != ino)
		i++;
	return i;
}

static int tree_add(struct tree_walk *w, ext2_ino_t ino, const char *name, size_t len)
{
	struct tree_dir d = { ino, w->cur, strndup(name, len) };

	if (!d.name || imgp_buf_append(&w->queue, &d, sizeof(d))) {
		free(d.name);
		return imgp_fail(ENOMEM, "out of memory");
	}
	w->q = (struct tree_dir *)w->queue.data;
	w->n++;
	ext2fs_mark_inode_bitmap2(w->reached, ino);
	return 0;
}

/*
 * Words what is wrong with the entry name (len bytes) of the directory
 * being read, as e2fsck does: "." not itself, ".." not its parent (want),
 * another name a directory reached before.
 */
static int tree_report(struct tree_walk *w, const char *name, size_t len,
		       ext2_ino_t ino, ext2_ino_t want)
{
	struct imgp_buf here = { 0 }, entry = { 0 }, there = { 0 }, should = { 0 };
	const struct tree_dir *cur = &w->q[w->cur];
	bool dot = len == 1 && name[0] == '.';
	bool dotdot = len == 2 && name[0] == '.' && name[1] == '.';
	size_t at = tree_index(w, ino);
	int rc;

	rc = tree_path(w, w->cur, &here);
	if (!rc)
		rc = tree_name(&entry, name, len);
	if (!rc && at < w->n)
		rc = tree_path(w, at, &there);
	else if (!rc)
		rc = imgp_buf_printf(&there, "inode %u", ino);
	if (!rc && dotdot)
		rc = tree_path(w, cur->ino == EXT2_ROOT_INO ? 0 : cur->parent, &should);
	if (!rc && dot)
		tree_found(w, "'.' in %s (%u) is %s (%u), should be itself",
			   (char *)here.data, cur->ino, (char *)there.data, ino);
	else if (!rc && dotdot)
		tree_found(w, "'..' in %s (%u) is %s (%u), should be %s (%u)",
			   (char *)here.data, cur->ino, (char *)there.data, ino,
			   (char *)should.data, want);
	else if (!rc)
		tree_found(w, "entry '%s' in %s (%u) is a link to %s %s (%u)",
			   (char *)entry.data, (char *)here.data, cur->ino,
			   ino == EXT2_ROOT_INO ? "the root directory" : "directory",
			   (char *)there.data, ino);
	imgp_buf_free(&here);
	imgp_buf_free(&entry);
	imgp_buf_free(&there);
	imgp_buf_free(&should);
	return rc;
}

static int tree_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent,
		      int offset, int blocksize, char *buf, void *priv)
{
	struct tree_walk *w = priv;
	const struct tree_dir *cur = &w->q[w->cur];
	const char *name = dirent->name;
	size_t len = (size_t)ext2fs_dirent_name_len(dirent);
	ext2_ino_t ino = dirent->inode, parent;

	(void)dir;
	(void)entry;
	(void)offset;
	(void)blocksize;
	(void)buf;
	parent = cur->ino == EXT2_ROOT_INO ? EXT2_ROOT_INO : w->q[cur->parent].ino;
	if (len == 1 && name[0] == '.') {
		if (ino != cur->ino)
			w->rc = tree_report(w, name, len, ino, cur->ino);
	} else if (len == 2 && name[0] == '.' && name[1] == '.') {
		if (ino != parent)
			w->rc = tree_report(w, name, len, ino, parent);
	} else if (ino <= w->efs->super->s_inodes_count &&
		   ext2fs_test_inode_bitmap2(w->dirs, ino)) {
		/* (An entry naming no directory in use is the inode checks' to judge.) */
		if (ext2fs_test_inode_bitmap2(w->reached, ino))
			w->rc = tree_report(w, name, len, ino, 0);
		else
			w->rc = tree_add(w, ino, name, len);
	}
	return w->rc || w->finding[0] ? DIRENT_ABORT : 0;
}

int imgp_ext_check_tree_(ext2_filsys efs, ext2fs_inode_bitmap dirs,
			char *finding, size_t size)
{
	struct tree_walk w = { .efs = efs, .dirs = dirs, .finding = finding, .size = size };
	struct imgp_buf path = { 0 };
	char why[256];
	errcode_t err;

	finding[0] = '\0';
	err = ext2fs_allocate_inode_bitmap(efs, "reached", &w.reached);
	if (err)
		return imgp_ext_fail_(err, "cannot check the directories");
	w.rc = tree_add(&w, EXT2_ROOT_INO, "", 0);
	for (w.cur = 0; !w.rc && !finding[0] && w.cur < w.n; w.cur++) {
		err = ext2fs_dir_iterate2(efs, w.q[w.cur].ino, 0, NULL, tree_entry, &w);
		if (err && !w.rc && !finding[0]) {
			w.rc = tree_path(&w, w.cur, &path);
			if (!w.rc)
				tree_found(&w, "directory %s (%u): %s", (char *)path.data,
					   w.q[w.cur].ino, imgp_ext_why_(err, why, sizeof(why)));
		}
	}
	/* A directory in use that no entry reaches: a loop of its own, cut off. */
	for (uint64_t ino = 1; !w.rc && !finding[0] && ino <= efs->super->s_inodes_count; ino++)
		if (ext2fs_test_inode_bitmap2(dirs, (ext2_ino_t)ino) &&
		    !ext2fs_test_inode_bitmap2(w.reached, (ext2_ino_t)ino))
			tree_found(&w, "directory inode %u is not reached from / (unconnected)",
				   (ext2_ino_t)ino);
	for (size_t i = 0; i < w.n; i++)
		free(w.q[i].name);
	imgp_buf_free(&w.queue);
	imgp_buf_free(&path);
	ext2fs_free_inode_bitmap(w.reached);
	return w.rc;
}
