/* SPDX-License-Identifier: MIT */
/*
 * fs/: files in a partition's filesystem.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h; imgpatch-internal.h includes this header.
 */
#ifndef IMGP_FS_H
#define IMGP_FS_H

#include "imgpatch.h"
#include "core/core.h"

/* -------------------------------------------------- fs.c, fs-fat.c, fs-ext.c */

/*
 * Opens the filesystem of a partition read-only, with the backend that
 * handles part->fstype, into a new handle (*fs; img must stay open while
 * it is used). -ENOTSUP when no backend does, -ENOMEM; errors carry
 * "pN (type): " context. imgp_fs_free() closes and frees it (NULL: none).
 */
int imgp_fs_new(struct imgp_fs **fs, struct imgp_image *img,
		const struct imgp_part *part);
void imgp_fs_free(struct imgp_fs *fs);

struct imgp_fs_ops;
struct imgp_writeset;

struct imgp_fs {
	const struct imgp_fs_ops *ops;
	struct imgp_image *img;
	const struct imgp_part *part;
	/*
	 * Set for writing (imgp_fs_open_capture()): writes go into this write
	 * set, the image is never written. NULL: opened read-only.
	 */
	struct imgp_writeset *capture;
	/*
	 * While a capture opens: a handle open read-only on the same
	 * partition, whose caches (a FAT's listing) it may take. NULL: none.
	 */
	const struct imgp_fs *seen;
	void *priv;
};

/*
 * Opens the filesystem of a partition with the backend that handles
 * part->fstype. -ENOTSUP when none does. Errors carry "pN (type): " context.
 */
int imgp_fs_open(struct imgp_fs *fs, struct imgp_image *img,
		 const struct imgp_part *part);
void imgp_fs_close(struct imgp_fs *fs);

int imgp_fs_read_file(struct imgp_fs *fs, const char *path, size_t max,
		      struct imgp_buf *out);
/* Writes a whole file; path must be a file name (imgp_fs_path_check). */
int imgp_fs_write_file(struct imgp_fs *fs, const char *path, const void *data,
		       size_t len);
/*
 * Whether path can name a file to write on part: 0; -EISDIR when it names
 * a folder ("", "/", a trailing "/", a last part "." or ".."); -EINVAL
 * when a part is "." or ".." or empty ("//"), which would name another
 * file than it spells, or is a name part's filesystem cannot hold (its
 * backend's name_check). Fails with a message saying which.
 */
int imgp_fs_path_check(const struct imgp_part *part, const char *path);
int imgp_fs_exists(struct imgp_fs *fs, const char *path);
/*
 * Sets the permission bits (07777) of an existing file or folder; -EINVAL
 * for a symbolic link, -ENOTSUP on FAT.
 */
int imgp_fs_set_mode(struct imgp_fs *fs, const char *path, unsigned mode);

enum imgp_fs_type { IMGP_FS_REG, IMGP_FS_DIR, IMGP_FS_LNK, IMGP_FS_OTHER };

struct imgp_fs_stat {
	enum imgp_fs_type type;
	unsigned mode;           /* permission bits, 07777 */
	unsigned uid, gid;
	uint64_t size;
};

/*
 * What path is, the last name's symbolic link not followed (lstat).
 * -ENOENT "no such file or folder" (a name after a file's too). FAT: a
 * file (0644) or a folder (0755), owned by root.
 */
int imgp_fs_stat(struct imgp_fs *fs, const char *path, struct imgp_fs_stat *st);
/* Sets the owner of path, a symbolic link's own (lchown); -ENOTSUP on FAT. */
int imgp_fs_set_owner(struct imgp_fs *fs, const char *path, unsigned uid,
		      unsigned gid);
/*
 * Removes a file, a symbolic link (not followed) or a folder with all it
 * holds, as rm -rf; -ENOENT when path is not there, -EPERM for the root
 * folder, -EINVAL for a path with an empty, "." or ".." part.
 */
int imgp_fs_remove(struct imgp_fs *fs, const char *path);
/*
 * Whether path may be removed: not the root (-EPERM), no part "." or ".."
 * (-EINVAL), which would remove another file than the one it spells.
 * Fails with a message saying which, without the path.
 */
int imgp_fs_remove_check(const char *path);
int imgp_fs_symlink(struct imgp_fs *fs, const char *path, const char *target);
int imgp_fs_readlink(struct imgp_fs *fs, const char *path, struct imgp_buf *out);
/* Creates a directory whose parent exists (one there is kept); -ENOTSUP where not supported. */
int imgp_fs_mkdir(struct imgp_fs *fs, const char *path);
/*
 * The names in directory dir of an open filesystem (not "." or ".."), in
 * directory order, at most 4096. Returns 0, -ENOENT when dir is missing,
 * -ENOTDIR when it is no directory, -ENOTSUP where the backend cannot list.
 */
int imgp_fs_list(struct imgp_fs *fs, const char *dir, char ***names, size_t *n);
void imgp_fs_list_free(char **names, size_t n);

/*
 * Opens the FIT at path piecewise where the backend maps files (only its
 * structure is read now, a payload when asked for; fs->img must stay open
 * while fit is used), else read whole. Errors carry "pN (type): path";
 * -ENOENT when there is no such file.
 */
int imgp_fs_load_fit(struct imgp_fs *fs, const char *path, struct imgp_fit *fit);

#endif /* IMGP_FS_H */
