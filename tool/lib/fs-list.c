// SPDX-License-Identifier: MIT
/*
 * Directory listings, until the filesystem backends have a list operation
 * of their own: ext through a second, read-only libext2fs handle on the
 * same partition, FAT through "mdir -b". Only filesystems opened without
 * capture are listed (the doctor reads, it never plans writes).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

#include "imgpatch.h"

/* A directory of a boot partition or /lib/modules holds far fewer. */
#define LIST_MAX 4096

static const char *const list_mtools_env[] = {
	"MTOOLS_SKIP_CHECK=1",
	"MTOOLSRC=/dev/null",
	NULL,
};

struct list {
	char **names;
	size_t n;
	int rc;
};

static int list_add(struct list *l, const char *name, size_t len)
{
	char **grown;

	if (len == 0 || (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (l->n == LIST_MAX)
		return imgp_fail(EFBIG, "more than %d directory entries", LIST_MAX);
	grown = realloc(l->names, (l->n + 1) * sizeof(*grown));
	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	l->names = grown;
	l->names[l->n] = strndup(name, len);
	if (!l->names[l->n])
		return imgp_fail(ENOMEM, "out of memory");
	l->n++;
	return 0;
}

static int list_ext_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent,
			  int offset, int blocksize, char *buf, void *priv)
{
	struct list *l = priv;

	(void)dir;
	(void)entry;
	(void)offset;
	(void)blocksize;
	(void)buf;
	l->rc = list_add(l, dirent->name, (size_t)ext2fs_dirent_name_len(dirent));
	return l->rc ? DIRENT_ABORT : 0;
}

static int list_ext(struct imgp_fs *fs, const char *dir, struct list *l)
{
	ext2_filsys efs = NULL;
	ext2_ino_t ino;
	errcode_t err;
	char opts[64];

	snprintf(opts, sizeof(opts), "offset=%" PRIu64, fs->part->start);
	err = ext2fs_open2(fs->img->path, opts, EXT2_FLAG_64BITS, 0, 0,
			   unix_io_manager, &efs);
	if (err)
		return imgp_fail(EIO, "cannot open filesystem: %s", error_message(err));
	/* Links are followed inside the filesystem: /lib may be usr/lib. */
	err = ext2fs_namei_follow(efs, EXT2_ROOT_INO, EXT2_ROOT_INO, dir, &ino);
	if (!err)
		err = ext2fs_check_directory(efs, ino);
	if (!err)
		err = ext2fs_dir_iterate2(efs, ino, 0, NULL, list_ext_entry, l);
	ext2fs_close_free(&efs);
	if (l->rc)
		return l->rc;
	if (err == EXT2_ET_FILE_NOT_FOUND)
		return imgp_fail(ENOENT, "%s: no such directory", dir);
	if (err == EXT2_ET_NO_DIRECTORY)
		return imgp_fail(ENOTDIR, "%s: not a directory", dir);
	if (err)
		return imgp_fail(EIO, "%s: %s", dir, error_message(err));
	return 0;
}

/* mdir -b prints "::/dir/name" per entry, "::/dir/sub/" for a directory. */
static int list_fat(struct imgp_fs *fs, const char *dir, struct list *l)
{
	char drive[4200], target[4200];
	const char *argv[] = { "mdir", "-b", "-a", "-i", drive, target, NULL };
	struct imgp_buf out = { 0 };
	size_t tlen;
	int n, rc;

	if (strstr(fs->img->path, "@@"))
		return imgp_fail(EINVAL, "image path contains '@@', which mtools cannot take");
	n = snprintf(drive, sizeof(drive), "%s@@%" PRIu64, fs->img->path,
		     fs->part->start);
	if (n < 0 || (size_t)n >= sizeof(drive))
		return imgp_fail(ENAMETOOLONG, "image path too long");
	dir += strspn(dir, "/");
	n = snprintf(target, sizeof(target), "::/%s%s", dir, *dir ? "/" : "");
	if (n < 0 || (size_t)n >= sizeof(target))
		return imgp_fail(ENAMETOOLONG, "path too long");
	tlen = (size_t)n;
	rc = imgp_run(argv, list_mtools_env, &out);
	if (rc) {
		imgp_buf_free(&out);
		if (strstr(imgp_errmsg(), "not found"))
			return imgp_fail(ENOENT, "/%s: no such directory", dir);
		return rc;
	}
	for (char *line = (char *)out.data, *eol; line && *line && !rc; line = eol) {
		size_t len;

		eol = strchr(line, '\n');
		len = eol ? (size_t)(eol - line) : strlen(line);
		if (eol)
			eol++;
		/* A file named like the directory prints as itself, without '/'. */
		if (len + 1 == tlen && strncasecmp(line, target, len) == 0) {
			rc = imgp_fail(ENOTDIR, "/%s: not a directory", dir);
			break;
		}
		if (len <= tlen || strncasecmp(line, target, tlen) != 0)
			continue;
		if (line[len - 1] == '/')
			len--;
		rc = list_add(l, line + tlen, len - tlen);
	}
	imgp_buf_free(&out);
	return rc;
}

int imgp_fs_list(struct imgp_fs *fs, const char *dir, char ***names, size_t *n)
{
	struct list l = { 0 };
	int rc;

	*names = NULL;
	*n = 0;
	if (fs->capture)
		return imgp_fail(EINVAL, "cannot list a directory of a filesystem opened for writing");
	if (fs->ops == &imgp_fs_ext)
		rc = list_ext(fs, dir, &l);
	else if (fs->ops == &imgp_fs_fat)
		rc = list_fat(fs, dir, &l);
	else
		rc = imgp_fail(ENOTSUP, "cannot list directories of %s filesystems",
			       fs->ops->name);
	if (rc) {
		imgp_fs_list_free(l.names, l.n);
		return rc;
	}
	*names = l.names;
	*n = l.n;
	return 0;
}

void imgp_fs_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
