// SPDX-License-Identifier: MIT
/* Filesystem backends: one file each, registered here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"

static const struct imgp_fs_ops *const fs_backends[] = {
	&imgp_fs_fat_,
	&imgp_fs_ext_,
};

/*
 * Filesystems imgpatch names but has no backend for, by the superblock magic
 * each is known by (libblkid names them first; this table also names one
 * whose superblock libblkid rejects, so that a refusal says what is there).
 * A root may live on any but swap: such a partition is where the survey
 * says the root is when no filesystem imgpatch reads has /etc/fstab.
 */
static const struct fs_named {
	const char *type;        /* as libblkid names it */
	uint64_t off;            /* of the magic, from the partition's start */
	const char *magic;
	size_t len;
	bool root;               /* may hold the root filesystem */
	bool encrypted;          /* a container, not a filesystem */
} fs_named[] = {
	{ "btrfs", 0x10040, "_BHRfS_M", 8, true, false }, /* superblock at 64 KiB */
	{ "xfs", 0, "XFSB", 4, true, false },
	{ "f2fs", 0x400, "\x10\x20\xf5\xf2", 4, true, false }, /* 0xF2F52010, LE */
	{ "squashfs", 0, "hsqs", 4, true, false },
	/*
	 * LUKS1 and LUKS2 alike; libblkid also finds a LUKS2 header whose
	 * primary copy is damaged by its secondary one (16 KiB on, by default).
	 */
	{ "crypto_LUKS", 0, "LUKS\xba\xbe", 6, true, true },
	/* Linux swap with 4 KiB pages: the magic ends the first page. */
	{ "swap", 4096 - 10, "SWAPSPACE2", 10, false, false },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct fs_named *named(const char *fstype)
{
	for (size_t i = 0; i < COUNT(fs_named); i++)
		if (!strcmp(fs_named[i].type, fstype))
			return &fs_named[i];
	return NULL;
}

bool imgp_fs_may_hold_root_(const char *fstype)
{
	const struct fs_named *n = named(fstype);

	return n && n->root;
}

bool imgp_fs_encrypted_(const char *fstype)
{
	const struct fs_named *n = named(fstype);

	return n && n->encrypted;
}

const char *imgp_fs_magic_type_(const struct imgp_image *img,
			       const struct imgp_part *part)
{
	uint8_t buf[16];

	for (size_t i = 0; i < COUNT(fs_named); i++) {
		const struct fs_named *n = &fs_named[i];

		if (part->size < n->off + n->len ||
		    imgp_part_read_(img, part, n->off, buf, n->len)) {
			imgp_errclear_();
			continue;
		}
		if (!memcmp(buf, n->magic, n->len))
			return n->type;
	}
	return NULL;
}


/* The backend for a partition's filesystem; NULL: none. */
static const struct imgp_fs_ops *fs_backend(const struct imgp_part *part)
{
	for (size_t i = 0; i < COUNT(fs_backends); i++)
		if (fs_backends[i]->handles(part->fstype))
			return fs_backends[i];
	return NULL;
}

/* Picks the backend for the partition's filesystem and opens it. */
static int fs_open(struct imgp_fs *fs)
{
	const struct imgp_part *part = fs->part;
	int rc;

	fs->ops = fs_backend(part);
	if (!fs->ops)
		return imgp_fail(ENOTSUP, "p%d: %s%s%s filesystem is not supported (FAT and ext2/3/4 are)",
				 part->number, part->fstype[0] ? "'" : "",
				 part->fstype[0] ? part->fstype : "unknown",
				 part->fstype[0] ? "'" : "");
	rc = fs->ops->open(fs);
	if (rc) {
		imgp_fail_ctx(rc, IMGP_FS_CTX(fs));
		fs->ops = NULL;
	}
	return rc;
}

int imgp_fs_open_(struct imgp_fs *fs, struct imgp_image *img,
		 const struct imgp_part *part)
{
	memset(fs, 0, sizeof(*fs));
	fs->img = img;
	fs->part = part;
	return fs_open(fs);
}

int imgp_fs_new_(struct imgp_fs **fs, struct imgp_image *img,
		const struct imgp_part *part)
{
	struct imgp_fs *f = malloc(sizeof(*f));
	int rc;

	*fs = NULL;
	if (!f)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_fs_open_(f, img, part);
	if (rc) {
		free(f);
		return rc;
	}
	*fs = f;
	return 0;
}

void imgp_fs_free_(struct imgp_fs *fs)
{
	if (!fs)
		return;
	imgp_fs_close_(fs);
	free(fs);
}

int imgp_fs_open_capture_(struct imgp_fs *fs, const struct imgp_fs *seen,
			 struct imgp_image *img, const struct imgp_part *part,
			 struct imgp_writeset *ws)
{
	int rc;

	memset(fs, 0, sizeof(*fs));
	fs->img = img;
	fs->part = part;
	fs->capture = ws;
	fs->seen = seen;
	rc = fs_open(fs);
	fs->seen = NULL;
	return rc;
}

int imgp_fs_finish_(struct imgp_fs *fs)
{
	int rc = fs->ops->finish ? fs->ops->finish(fs) : 0;

	return rc ? imgp_fail_ctx(rc, IMGP_FS_CTX(fs)) : 0;
}

void imgp_fs_close_(struct imgp_fs *fs)
{
	if (fs->ops)
		fs->ops->close(fs);
	fs->ops = NULL;
	fs->priv = NULL;
}

int imgp_fs_read_file_(struct imgp_fs *fs, const char *path, size_t max,
		      struct imgp_buf *out)
{
	int rc = fs->ops->read_file(fs, path, max, out);

	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

/* "." or "..": a part the tools resolve rather than name. */
static bool path_part_is_dots(const char *part, size_t len)
{
	return (len == 1 || len == 2) && !strncmp(part, "..", len);
}

int imgp_fs_path_check_(const struct imgp_part *part, const char *path)
{
	const struct imgp_fs_ops *ops = fs_backend(part);
	const char *name = path + (*path == '/');
	size_t len;
	int rc = 0;

	for (;; name += len + 1) {
		len = strcspn(name, "/");
		/* The last part: a folder's name, or none, is no file to write. */
		if (!name[len] && (!len || path_part_is_dots(name, len)))
			return imgp_fail(EISDIR, "names a folder, not a file");
		/* The tools would resolve it: the file written would not be the one named. */
		if (!len)
			return imgp_fail(EINVAL, "is not a file name: an empty part (//)");
		if (path_part_is_dots(name, len))
			return imgp_fail(EINVAL, "is not a file name: a part of it is \"%.*s\"",
					 (int)len, name);
		if (ops && ops->name_check)
			rc = ops->name_check(name, len);
		if (rc || !name[len])
			return rc;
	}
}

int imgp_fs_write_file_(struct imgp_fs *fs, const char *path, const void *data,
		       size_t len)
{
	int rc;

	if (!fs->capture)
		return imgp_fail(EBADF, "p%d (%s): %s: filesystem opened read-only",
				 fs->part->number, fs->part->fstype, path);
	rc = imgp_fs_path_check_(fs->part, path);
	if (!rc)
		rc = fs->ops->write_file(fs, path, data, len);
	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

int imgp_fs_set_mode_(struct imgp_fs *fs, const char *path, unsigned mode)
{
	int rc;

	if (!fs->capture)
		return imgp_fail(EBADF, "p%d (%s): %s: filesystem opened read-only",
				 fs->part->number, fs->part->fstype, path);
	if (!fs->ops->set_mode)
		return imgp_fail(ENOTSUP, "p%d (%s): %s: this filesystem keeps no permissions",
				 fs->part->number, fs->part->fstype, path);
	rc = fs->ops->set_mode(fs, path, mode);
	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

/* The changes below write: a handle opened read-only refuses them. */
static int fs_writable(struct imgp_fs *fs, const char *path)
{
	if (fs->capture)
		return 0;
	return imgp_fail(EBADF, "p%d (%s): %s: filesystem opened read-only",
			 fs->part->number, fs->part->fstype, path);
}

int imgp_fs_set_owner_(struct imgp_fs *fs, const char *path, unsigned uid,
		      unsigned gid)
{
	int rc = fs_writable(fs, path);

	if (rc)
		return rc;
	if (!fs->ops->set_owner)
		return imgp_fail(ENOTSUP, "p%d (%s): %s: this filesystem keeps no owners",
				 fs->part->number, fs->part->fstype, path);
	rc = fs->ops->set_owner(fs, path, uid, gid);
	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

int imgp_fs_stat_(struct imgp_fs *fs, const char *path, struct imgp_fs_stat_ *st)
{
	int rc;

	memset(st, 0, sizeof(*st));
	rc = fs->ops->stat ? fs->ops->stat(fs, path, st) :
			     imgp_fail(ENOTSUP, "cannot look at files of %s filesystems",
				       fs->ops->name);
	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

int imgp_fs_remove_check_(const char *path)
{
	const char *name = path;
	bool named = false;

	for (size_t len; *name; name += len) {
		name += strspn(name, "/");
		len = strcspn(name, "/");
		if (path_part_is_dots(name, len))
			return imgp_fail(EINVAL, "is not a file name: a part of it is \"%.*s\"",
					 (int)len, name);
		named |= len > 0;
	}
	return named ? 0 : imgp_fail(EPERM, "is the root folder, which cannot be removed");
}

int imgp_fs_remove_(struct imgp_fs *fs, const char *path)
{
	int rc = fs_writable(fs, path);

	if (rc)
		return rc;
	rc = imgp_fs_remove_check_(path);
	if (!rc)
		rc = fs->ops->remove ? fs->ops->remove(fs, path) :
				       imgp_fail(ENOTSUP, "imgpatch cannot remove files on %s",
						 fs->part->fstype);
	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

int imgp_fs_exists_(struct imgp_fs *fs, const char *path)
{
	int rc = fs->ops->exists(fs, path);

	return rc < 0 ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : rc;
}

int imgp_fs_symlink_(struct imgp_fs *fs, const char *path, const char *target)
{
	int rc;

	if (!fs->capture)
		return imgp_fail(EBADF, "p%d (%s): %s: filesystem opened read-only",
				 fs->part->number, fs->part->fstype, path);
	rc = fs->ops->symlink(fs, path, target);
	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

int imgp_fs_mkdir_(struct imgp_fs *fs, const char *path)
{
	int rc;

	if (!fs->capture)
		return imgp_fail(EBADF, "p%d (%s): %s: filesystem opened read-only",
				 fs->part->number, fs->part->fstype, path);
	rc = fs->ops->mkdir ? fs->ops->mkdir(fs, path) :
			      imgp_fail(ENOTSUP, "imgpatch cannot create folders on %s",
					fs->part->fstype);
	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

int imgp_fs_readlink_(struct imgp_fs *fs, const char *path, struct imgp_buf *out)
{
	int rc = fs->ops->readlink(fs, path, out);

	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

int imgp_fs_map_file_(struct imgp_fs *fs, const char *path,
		     struct imgp_file_map *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (fs->ops->map_file)
		rc = fs->ops->map_file(fs, path, out);
	else
		rc = imgp_fail(ENOTSUP, "%s files are read whole", fs->ops->name);
	if (rc)
		imgp_file_map_free_(out);
	return rc ? imgp_fail_ctx(rc, IMGP_FS_PATH_CTX(fs, path)) : 0;
}

void imgp_file_map_free_(struct imgp_file_map *map)
{
	free(map->ext);
	memset(map, 0, sizeof(*map));
}

struct map_reader {
	const struct imgp_image *img;
	struct imgp_file_map map;
};

/* Reads [off, off+len) of the file, extent by extent. */
static int map_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct map_reader *r = ctx;
	const struct imgp_file_map *map = &r->map;
	uint8_t *p = buf;
	size_t i = 0;
	int rc;

	if (off > map->size || len > map->size - off)
		return imgp_fail(ERANGE, "read of %zu bytes at %llu is past the end of the file (%llu bytes)",
				 len, (unsigned long long)off,
				 (unsigned long long)map->size);
	while (len) {
		const struct imgp_extent *e;
		uint64_t in;
		size_t n;

		while (i < map->n && map->ext[i].file_off + map->ext[i].len <= off)
			i++;
		if (i == map->n || map->ext[i].file_off > off)
			return imgp_fail(EIO, "file offset %llu is not mapped",
					 (unsigned long long)off);
		e = &map->ext[i];
		in = off - e->file_off;
		n = e->len - in < len ? (size_t)(e->len - in) : len;
		rc = imgp_image_read_(r->img, e->img_off + in, p, n);
		if (rc)
			return rc;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

static void map_close(void *ctx)
{
	struct map_reader *r = ctx;

	imgp_file_map_free_(&r->map);
	free(r);
}

int imgp_file_map_reader_(const struct imgp_image *img, struct imgp_file_map *map,
			 struct imgp_reader *rd)
{
	struct map_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return imgp_fail(ENOMEM, "out of memory");
	r->img = img;
	r->map = *map;
	memset(map, 0, sizeof(*map));
	rd->read = map_read;
	rd->close = map_close;
	rd->ctx = r;
	rd->size = r->map.size;
	return 0;
}

int imgp_fs_names_add_(char ***names, size_t *n, const char *name, size_t len)
{
	char **grown;

	if (len == 0 || (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	grown = realloc(*names, (*n + 1) * sizeof(*grown));
	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	*names = grown;
	grown[*n] = strndup(name, len);
	if (!grown[*n])
		return imgp_fail(ENOMEM, "out of memory");
	(*n)++;
	return 0;
}

int imgp_fs_list_(struct imgp_fs *fs, const char *dir, char ***names, size_t *n)
{
	int rc;

	*names = NULL;
	*n = 0;
	if (fs->ops->list)
		rc = fs->ops->list(fs, dir, names, n);
	else
		rc = imgp_fail(ENOTSUP, "cannot list directories of %s filesystems",
			       fs->ops->name);
	if (rc) {
		imgp_fs_list_free_(*names, *n);
		*names = NULL;
		*n = 0;
		return imgp_fail_ctx(rc, IMGP_FS_CTX(fs));
	}
	return 0;
}

void imgp_fs_list_free_(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
