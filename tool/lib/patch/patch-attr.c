// SPDX-License-Identifier: MIT
/*
 * The plan's modes, owners and deletions, and what a path is as the plan
 * leaves it: a file, folder or link planned (with its planned mode and
 * owner), one deleted gone, else the image's. A DELETE drops what was
 * planned at or under its path before it, so that a file planned and then
 * deleted leaves no trace; changes apply in plan order at the commit.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "patch/patch.h"

/* The length of path without its trailing slashes ("/" keeps its one). */
static size_t path_len(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

/* Whether path is top or lies under it. */
static bool at_or_under(const char *path, const char *top)
{
	size_t len = path_len(top);

	if (len == 1 && top[0] == '/')
		return path[0] == '/';
	return !strncmp(path, top, len) && (!path[len] || path[len] == '/');
}

bool imgp_patch_gone_(const struct imgp_patch *patch, const struct imgp_part *part,
		     const char *path)
{
	for (size_t i = 0; i < patch->nchanges; i++) {
		const struct imgp_change *c = &patch->changes[i];

		if (c->kind == IMGP_CHANGE_DELETE && c->part == part &&
		    at_or_under(path, c->path))
			return true;
	}
	return false;
}

/* What is at path in the image (not followed); *exists false when nothing. */
static int image_stat(struct imgp_patch *patch, const struct imgp_part *part,
		      const char *path, struct imgp_fs_stat_ *st, bool *exists)
{
	struct imgp_fs *fs;
	int rc;

	*exists = false;
	rc = imgp_patch_fs_(patch, part, &fs);
	if (!rc)
		rc = imgp_fs_stat_(fs, path, st);
	if (rc == -ENOENT) {
		imgp_errclear_();
		return 0;
	}
	*exists = !rc;
	return rc;
}

/* What the change's path was before the patch, or what a new one gets. */
static int change_was(struct imgp_patch *patch, struct imgp_change *c)
{
	bool exists = false;
	int rc = 0;

	if (c->have_was)
		return 0;
	memset(&c->was, 0, sizeof(c->was));
	if (c->existed)
		rc = image_stat(patch, c->part, c->path, &c->was, &exists);
	if (rc)
		return rc;
	if (!exists) {
		/* As the backends make them: a file 0644, a folder 0755, root's. */
		c->was.type = c->kind == IMGP_CHANGE_DIR ? IMGP_FS_DIR :
			      c->kind == IMGP_CHANGE_SYMLINK ? IMGP_FS_LNK : IMGP_FS_REG;
		c->was.mode = c->kind == IMGP_CHANGE_DIR ? 0755 :
			      c->kind == IMGP_CHANGE_SYMLINK ? 0777 : 0644;
	}
	c->have_was = true;
	return 0;
}

bool imgp_change_attr_pending_(const struct imgp_change *c)
{
	if (!c->have_was)
		return false;
	return (c->set_mode && c->mode != c->was.mode) ||
	       (c->set_owner && (c->uid != c->was.uid || c->gid != c->was.gid));
}

/* "deleted (file, N bytes)", "(folder)", "(symbolic link -> T)". */
static int describe_delete(const struct imgp_change *c, struct imgp_buf *out)
{
	switch (c->was.type) {
	case IMGP_FS_REG:
		return imgp_buf_printf(out, "deleted (file, %llu bytes)",
				       (unsigned long long)c->was.size);
	case IMGP_FS_DIR:
		return imgp_buf_printf(out, "deleted (folder)");
	case IMGP_FS_LNK:
		return imgp_buf_printf(out, "deleted (symbolic link -> %s)",
				       c->old.len ? (char *)c->old.data : "?");
	default:
		return imgp_buf_printf(out, "deleted (special file)");
	}
}

int imgp_change_describe_attr_(const struct imgp_change *c, struct imgp_buf *out)
{
	int rc = 0;

	if (c->kind == IMGP_CHANGE_DELETE)
		return describe_delete(c, out);
	if (!c->have_was || (!c->set_mode && !c->set_owner))
		return 0;
	if (!c->existed) {
		unsigned mode = c->set_mode ? c->mode : c->was.mode;

		/* A new one: its mode and owner when not what it gets by default. */
		if (c->was.type != IMGP_FS_LNK && mode != c->was.mode)
			rc = imgp_buf_printf(out, ", mode %04o", mode);
		if (!rc && c->set_owner && (c->uid || c->gid))
			rc = imgp_buf_printf(out, ", owner %u:%u", c->uid, c->gid);
		return rc;
	}
	if (c->set_mode && c->mode != c->was.mode)
		rc = imgp_buf_printf(out, ", mode %04o -> %04o", c->was.mode, c->mode);
	if (!rc && c->set_owner && (c->uid != c->was.uid || c->gid != c->was.gid))
		rc = imgp_buf_printf(out, ", owner %u:%u -> %u:%u", c->was.uid,
				     c->was.gid, c->uid, c->gid);
	return rc;
}

int imgp_patch_stat_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *path, struct imgp_fs_stat_ *st, bool *exists)
{
	struct imgp_change *c = imgp_patch_find_(patch, part, path);
	int rc;

	memset(st, 0, sizeof(*st));
	*exists = false;
	if (!c)
		return imgp_patch_gone_(patch, part, path) ? 0 :
		       image_stat(patch, part, path, st, exists);
	rc = change_was(patch, c);
	if (rc)
		return rc;
	*st = c->was;
	if (c->kind == IMGP_CHANGE_FILE || c->kind == IMGP_CHANGE_SYMLINK) {
		st->type = c->kind == IMGP_CHANGE_FILE && c->was.type != IMGP_FS_LNK ?
			   IMGP_FS_REG : c->was.type;
		st->size = c->new.len;
	}
	if (c->set_mode)
		st->mode = c->mode;
	if (c->set_owner) {
		st->uid = c->uid;
		st->gid = c->gid;
	}
	*exists = true;
	return 0;
}

/* FAT keeps neither: refused while planning, naming what was asked. */
static int attr_supported(struct imgp_patch *patch, const struct imgp_part *part,
			  const char *path, bool mode, bool owner)
{
	struct imgp_fs *fs;
	int rc = imgp_patch_fs_(patch, part, &fs);
	const char *what;

	if (rc)
		return rc;
	what = !strcmp(fs->ops->name, "vfat") ? "FAT" : part->fstype;
	if (mode && !fs->ops->set_mode)
		return imgp_fail(ENOTSUP, IMGP_PART_FMT " (%s): %s: %s has no permissions",
				 part->number, part->fstype, path, what);
	if (owner && !fs->ops->set_owner)
		return imgp_fail(ENOTSUP, IMGP_PART_FMT " (%s): %s: %s has no owners",
				 part->number, part->fstype, path, what);
	return 0;
}

/* An id chown takes: -1 (kept) or up to 2^32 - 2 ((uid_t)-1 means "none"). */
static bool id_bad(long id)
{
	return id < -1 || (id > 0 && (unsigned long)id > 0xfffffffeUL);
}

int imgp_patch_attr_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *path, int mode, long uid, long gid)
{
	struct imgp_change *c;
	struct imgp_fs_stat_ st;
	bool exists;
	int rc;

	if (mode < -1 || mode > 07777)
		return imgp_fail(EINVAL, IMGP_PART_FMT " (%s): %s: mode %d is out of range (0 to 07777)",
				 part->number, part->fstype, path, mode);
	if (id_bad(uid) || id_bad(gid))
		return imgp_fail(EINVAL, IMGP_PART_FMT " (%s): %s: owner %ld:%ld is out of range (0 to 4294967294)",
				 part->number, part->fstype, path, uid, gid);
	if (mode == -1 && uid == -1 && gid == -1)
		return 0;
	rc = attr_supported(patch, part, path, mode != -1, uid != -1 || gid != -1);
	if (!rc)
		rc = imgp_patch_stat_(patch, part, path, &st, &exists);
	if (rc)
		return rc;
	if (!exists)
		return imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file or folder",
				 part->number, part->fstype, path);
	/* Linux has no lchmod: a link's own bits are never looked at. */
	if (mode != -1 && st.type == IMGP_FS_LNK)
		return imgp_fail(EINVAL, IMGP_PART_FMT " (%s): %s: is a symbolic link, which has no mode of its own: give its target's path",
				 part->number, part->fstype, path);
	rc = imgp_patch_change_(patch, IMGP_CHANGE_ATTR, part, path, &c);
	if (!rc)
		rc = change_was(patch, c);
	if (rc)
		return rc;
	if (mode != -1) {
		c->set_mode = true;
		c->mode = (unsigned)mode;
	}
	if (uid != -1 || gid != -1) {
		/* One of them asked: the other stays what it is planned to be. */
		c->uid = uid != -1 ? (unsigned)uid : st.uid;
		c->gid = gid != -1 ? (unsigned)gid : st.gid;
		c->set_owner = true;
	}
	return 0;
}

/* Drops the changes planned at or under path: they never happen. */
static void drop_under(struct imgp_patch *patch, const struct imgp_part *part,
		       const char *path)
{
	size_t kept = 0;

	for (size_t i = 0; i < patch->nchanges; i++) {
		struct imgp_change *c = &patch->changes[i];

		if (c->part == part && at_or_under(c->path, path))
			imgp_change_free_(c);
		else
			patch->changes[kept++] = *c;
	}
	patch->nchanges = kept;
}

int imgp_patch_delete_(struct imgp_patch *patch, const struct imgp_part *part,
		      const char *path)
{
	struct imgp_buf target = { 0 };
	struct imgp_change *c;
	struct imgp_fs_stat_ st;
	struct imgp_fs *fs;
	bool exists = false, above = false;
	int rc;

	rc = imgp_fs_remove_check_(path);
	if (rc)
		return imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
				     part->fstype, path);
	rc = imgp_patch_fs_(patch, part, &fs);
	if (rc)
		return rc;
	/*
	 * What is there once the changes at or under path are dropped: the
	 * image's, unless a DELETE of a folder above took it. Read before
	 * anything is dropped, so that an error leaves the plan as it was.
	 */
	for (size_t i = 0; i < patch->nchanges; i++) {
		const struct imgp_change *d = &patch->changes[i];

		above |= d->kind == IMGP_CHANGE_DELETE && d->part == part &&
			 at_or_under(path, d->path) && !at_or_under(d->path, path);
	}
	if (!above)
		rc = image_stat(patch, part, path, &st, &exists);
	if (!rc && exists && st.type == IMGP_FS_LNK)
		rc = imgp_fs_readlink_(fs, path, &target);
	if (!rc)
		drop_under(patch, part, path);
	if (!rc && exists)
		rc = imgp_patch_append_(patch, IMGP_CHANGE_DELETE, part, path,
				       path_len(path), &c);
	if (rc || !exists) {
		imgp_buf_free(&target);
		return rc;
	}
	c->existed = true;
	c->have_was = true;
	c->was = st;
	c->old = target;
	return 0;
}

void imgp_patch_secret_(struct imgp_patch *patch, const struct imgp_part *part,
		       const char *path)
{
	struct imgp_change *c = imgp_patch_find_(patch, part, path);

	if (c && c->kind == IMGP_CHANGE_FILE)
		c->secret = true;
}

/* The name of path right inside folder dir (dlen bytes), else NULL. */
static const char *child_name(const char *path, const char *dir, size_t dlen)
{
	const char *name;

	if (dlen == 1 && dir[0] == '/')
		name = path + 1;
	else if (!strncmp(path, dir, dlen) && path[dlen] == '/')
		name = path + dlen + 1;
	else
		return NULL;
	return *name && !strchr(name, '/') ? name : NULL;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds name unless it is in the list already. */
static int list_add_once(char ***names, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return 0;
	return imgp_fs_names_add_(names, n, name, strlen(name));
}

/* The image's names in dir, less those a DELETE took (a name remade is added back after). */
static int list_image(struct imgp_patch *patch, const struct imgp_part *part,
		      const char *dir, size_t dlen, char ***names, size_t *n)
{
	struct imgp_buf child = { 0 };
	struct imgp_fs *fs;
	size_t kept = 0;
	int rc;

	rc = imgp_patch_fs_(patch, part, &fs);
	if (!rc)
		rc = imgp_fs_list_(fs, dir, names, n);
	for (size_t i = 0; !rc && i < *n; i++) {
		child.len = 0;
		rc = imgp_buf_printf(&child, "%.*s/%s", dlen == 1 ? 0 : (int)dlen, dir,
				     (*names)[i]);
		if (rc)
			rc = imgp_fail(ENOMEM, "out of memory");
		else if (imgp_patch_gone_(patch, part, (char *)child.data))
			free((*names)[i]);
		else
			(*names)[kept++] = (*names)[i];
	}
	if (!rc)
		*n = kept;
	imgp_buf_free(&child);
	return rc;
}

int imgp_patch_list_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *dir, char ***names, size_t *n)
{
	struct imgp_change *c;
	struct imgp_fs_stat_ st;
	size_t dlen = path_len(dir);
	char *top = strndup(dir, dlen);
	bool exists;
	int rc;

	*names = NULL;
	*n = 0;
	if (!top)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_patch_stat_(patch, part, top, &st, &exists);
	if (!rc && !exists)
		rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such folder",
			       part->number, part->fstype, top);
	else if (!rc && st.type != IMGP_FS_DIR && st.type != IMGP_FS_LNK)
		rc = imgp_fail(ENOTDIR, IMGP_PART_FMT " (%s): %s: not a folder",
			       part->number, part->fstype, top);
	c = rc ? NULL : imgp_patch_find_(patch, part, top);
	/* A folder planned new (or made again after a DELETE) holds only what is planned in it. */
	if (!rc && !(c && c->kind == IMGP_CHANGE_DIR && !c->existed))
		rc = list_image(patch, part, top, dlen, names, n);
	for (size_t i = 0; !rc && i < patch->nchanges; i++) {
		const struct imgp_change *p = &patch->changes[i];
		const char *name = p->part == part && p->kind != IMGP_CHANGE_DELETE ?
				   child_name(p->path, top, dlen) : NULL;

		if (name)
			rc = list_add_once(names, n, name);
	}
	if (!rc && *n)
		qsort(*names, *n, sizeof(**names), name_cmp);
	if (rc) {
		imgp_fs_list_free_(*names, *n);
		*names = NULL;
		*n = 0;
	}
	free(top);
	return rc;
}
