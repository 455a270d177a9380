/* SPDX-License-Identifier: MIT */
/*
 * fs/: files in a partition's filesystem.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_FS_H
#define IMGP_FS_H

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"

/* ------------------------------------------------ fs.c, fs-fat.c, fs-ext.c */

/*
 * Opens the filesystem of a partition read-only, with the backend that
 * handles part->fstype, into a new handle (*fs; img must stay open while
 * it is used). -ENOTSUP when no backend does, -ENOMEM; errors carry
 * "pN (type): " context. imgp_fs_free_() closes and frees it (NULL: none).
 */
int imgp_fs_new_(struct imgp_fs **fs, struct imgp_image *img,
		const struct imgp_part *part);
void imgp_fs_free_(struct imgp_fs *fs);

struct imgp_fs_ops;
struct imgp_writeset;

struct imgp_fs {
	const struct imgp_fs_ops *ops;
	struct imgp_image *img;
	const struct imgp_part *part;
	/*
	 * Set for writing (imgp_fs_open_capture_()): writes go into this write
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
int imgp_fs_open_(struct imgp_fs *fs, struct imgp_image *img,
		 const struct imgp_part *part);
void imgp_fs_close_(struct imgp_fs *fs);

int imgp_fs_read_file_(struct imgp_fs *fs, const char *path, size_t max,
		      struct imgp_buf *out);
/* Writes a whole file; path must be a file name (imgp_fs_path_check_). */
int imgp_fs_write_file_(struct imgp_fs *fs, const char *path, const void *data,
		       size_t len);
/*
 * Whether path can name a file to write on part: 0; -EISDIR when it names
 * a folder ("", "/", a trailing "/", a last part "." or ".."); -EINVAL
 * when a part is "." or ".." or empty ("//"), which would name another
 * file than it spells, or is a name part's filesystem cannot hold (its
 * backend's name_check). Fails with a message saying which.
 */
int imgp_fs_path_check_(const struct imgp_part *part, const char *path);
int imgp_fs_exists_(struct imgp_fs *fs, const char *path);
/*
 * Sets the permission bits (07777) of an existing file or folder; -EINVAL
 * for a symbolic link, -ENOTSUP on FAT.
 */
int imgp_fs_set_mode_(struct imgp_fs *fs, const char *path, unsigned mode);

enum imgp_fs_type { IMGP_FS_REG, IMGP_FS_DIR, IMGP_FS_LNK, IMGP_FS_OTHER };

struct imgp_fs_stat_ {
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
int imgp_fs_stat_(struct imgp_fs *fs, const char *path, struct imgp_fs_stat_ *st);
/* Sets the owner of path, a symbolic link's own (lchown); -ENOTSUP on FAT. */
int imgp_fs_set_owner_(struct imgp_fs *fs, const char *path, unsigned uid,
		      unsigned gid);
/*
 * Removes a file, a symbolic link (not followed) or a folder with all it
 * holds, as rm -rf; -ENOENT when path is not there, -EPERM for the root
 * folder, -EINVAL for a path with an empty, "." or ".." part.
 */
int imgp_fs_remove_(struct imgp_fs *fs, const char *path);
/*
 * Whether path may be removed: not the root (-EPERM), no part "." or ".."
 * (-EINVAL), which would remove another file than the one it spells.
 * Fails with a message saying which, without the path.
 */
int imgp_fs_remove_check_(const char *path);
int imgp_fs_symlink_(struct imgp_fs *fs, const char *path, const char *target);
int imgp_fs_readlink_(struct imgp_fs *fs, const char *path, struct imgp_buf *out);
/* Creates a directory whose parent exists (one there is kept); -ENOTSUP where not supported. */
int imgp_fs_mkdir_(struct imgp_fs *fs, const char *path);
/*
 * The names in directory dir of an open filesystem (not "." or ".."), in
 * directory order, at most 4096. Returns 0, -ENOENT when dir is missing,
 * -ENOTDIR when it is no directory, -ENOTSUP where the backend cannot list.
 */
int imgp_fs_list_(struct imgp_fs *fs, const char *dir, char ***names, size_t *n);
void imgp_fs_list_free_(char **names, size_t n);


/*
 * What a message about a filesystem, or a path on it, starts with:
 * "pN (type)", "pN (type): path". Backends name neither; fs.c's wrappers
 * add both.
 */
#define IMGP_FS_CTX(fs) "p%d (%s)", (fs)->part->number, (fs)->part->fstype
#define IMGP_FS_PATH_CTX(fs, path) "p%d (%s): %s", (fs)->part->number, \
	(fs)->part->fstype, (path)

/* --------------------------------------------------------------- fs-probe.c */

/*
 * Identifies the filesystem of every partition of tab (libblkid, then the
 * magic table): fstype, fslabel, fsuuid. Returns 0 or -errno.
 */
int imgp_fs_identify_(const struct imgp_image *img, struct imgp_table *tab);

/* ---------------------------------- fs.c, fs-fat.c, fs-ext.c: the backends */

/*
 * Where a regular file's bytes lie in the image, so that parts of a large
 * file are read without reading it whole: extents in file order.
 */
struct imgp_extent {
	uint64_t file_off;
	uint64_t img_off;        /* bytes from the start of the image */
	uint64_t len;
};

struct imgp_file_map {
	uint64_t size;           /* of the file */
	size_t n;
	struct imgp_extent *ext;
};

/* One filesystem backend (genimage style); registered in fs.c. */
struct imgp_fs_ops {
	const char *name;        /* "vfat", "ext" */
	/* Returns true when this backend handles a blkid type ("vfat", "ext4"). */
	bool (*handles)(const char *fstype);
	/*
	 * Opens fs->part of fs->img; read-only unless fs->capture. Refuses a
	 * filesystem that is larger than its partition, has errors or needs
	 * journal recovery (-EUCLEAN), and for writing one with the damage a
	 * write would depend on (-EUCLEAN, the problem named). Sets fs->priv.
	 */
	int (*open)(struct imgp_fs *fs);
	void (*close)(struct imgp_fs *fs);
	/*
	 * Reads a whole regular file (following symlinks inside the filesystem,
	 * bounded) into out. -ENOENT when missing, -EISDIR for a directory,
	 * -EFBIG when larger than max bytes.
	 */
	int (*read_file)(struct imgp_fs *fs, const char *path, size_t max,
			 struct imgp_buf *out);
	/*
	 * Replaces a file's content, creating it (mode 0644, root) when missing.
	 * An existing file keeps its identity (ext: inode number, mode, owner,
	 * xattrs; FAT: one directory entry, never old and new side by side).
	 */
	int (*write_file)(struct imgp_fs *fs, const char *path, const void *data,
			  size_t len);
	/*
	 * Whether name (one part of a path, len bytes) can name a file or
	 * folder written here: 0, or -EINVAL with the reason. NULL: any.
	 */
	int (*name_check)(const char *name, size_t len);
	/* Returns 1 when path exists (any type), 0 when not, <0 on error. */
	int (*exists)(struct imgp_fs *fs, const char *path);
	/*
	 * Sets the permission bits of a file or folder (not followed: a
	 * symbolic link is refused); NULL where the filesystem has none.
	 */
	int (*set_mode)(struct imgp_fs *fs, const char *path, unsigned mode);
	/*
	 * Sets the owner of path, a symbolic link's own (lchown); NULL where
	 * the filesystem has none (FAT).
	 */
	int (*set_owner)(struct imgp_fs *fs, const char *path, unsigned uid,
			 unsigned gid);
	/*
	 * What path is (lstat: the last name's link not followed); -ENOENT.
	 * FAT: a file (0644) or a folder (0755), owned by root.
	 */
	int (*stat)(struct imgp_fs *fs, const char *path, struct imgp_fs_stat_ *st);
	/*
	 * Removes path, a folder with everything in it (rm -rf); -ENOENT when
	 * it is not there. Never called for the root (the wrapper refuses it).
	 */
	int (*remove)(struct imgp_fs *fs, const char *path);
	/*
	 * Creates the symbolic link path -> target (the parent directory must
	 * exist), or replaces an existing symbolic link; -EEXIST when path is
	 * something else; -ENOTSUP where the filesystem has no links (FAT).
	 */
	int (*symlink)(struct imgp_fs *fs, const char *path, const char *target);
	/*
	 * Reads the target of the symbolic link path (not followed) into out.
	 * -ENOENT when missing, -EINVAL when path is not a symbolic link.
	 */
	int (*readlink)(struct imgp_fs *fs, const char *path, struct imgp_buf *out);
	/*
	 * Completes the writes made so far (in capture mode: every byte they
	 * changed is in fs->capture afterwards). Returns 0 or -errno.
	 */
	int (*finish)(struct imgp_fs *fs);
	/*
	 * Optional: maps a regular file's bytes (see struct imgp_file_map).
	 * -ENOENT, -EISDIR as read_file; -ENOTSUP where the file cannot be
	 * mapped (NULL op: never).
	 */
	int (*map_file)(struct imgp_fs *fs, const char *path,
			struct imgp_file_map *out);
	/*
	 * Optional: the names in directory dir (not "." or ".."), added with
	 * imgp_fs_names_add_(). -ENOENT, -ENOTDIR (NULL op: -ENOTSUP).
	 */
	int (*list)(struct imgp_fs *fs, const char *dir, char ***names, size_t *n);
	/*
	 * Optional: creates the directory path (mode 0755, root; its parent
	 * must exist); one already there is left. -EEXIST when path is
	 * something else (NULL op: -ENOTSUP).
	 */
	int (*mkdir)(struct imgp_fs *fs, const char *path);
};

extern const struct imgp_fs_ops imgp_fs_fat_;
extern const struct imgp_fs_ops imgp_fs_ext_;

/*
 * fs.c's table of filesystems imgpatch names but neither reads nor writes
 * (btrfs, xfs, f2fs, squashfs, LUKS, swap). imgp_fs_magic_type_() returns
 * the type whose superblock magic the partition carries, or NULL;
 * imgp_fs_may_hold_root_() is true for one of them a root may be on,
 * imgp_fs_encrypted_() for an encrypted container (LUKS), whose messages
 * say so rather than call it a filesystem.
 */
const char *imgp_fs_magic_type_(const struct imgp_image *img,
			       const struct imgp_part *part);
bool imgp_fs_may_hold_root_(const char *fstype);
bool imgp_fs_encrypted_(const char *fstype);

/*
 * Opens a partition's filesystem for writing in capture mode: the changes
 * are computed against the image but land in ws; imgp_fs_finish_() completes
 * them. The image may be read-only. seen (NULL: none) is a handle open
 * read-only on the same partition, of img's file or another: what it
 * read that still holds for img is not read again.
 */
int imgp_fs_open_capture_(struct imgp_fs *fs, const struct imgp_fs *seen,
			 struct imgp_image *img, const struct imgp_part *part,
			 struct imgp_writeset *ws);
int imgp_fs_finish_(struct imgp_fs *fs);

/* For backends: adds a name to a listing, skipping "." and "..". */
int imgp_fs_names_add_(char ***names, size_t *n, const char *name, size_t len);

/*
 * fs-fat.c: what imgpatch itself parses of a FAT, the boot sector and what
 * mtools prints; pure, so that tests/fuzz/fuzz-fat.c reaches it.
 */
struct imgp_fat_geom {
	uint64_t meta_end;       /* reserved sectors, FATs, FAT12/16 root directory */
	uint64_t cluster_bytes;
	uint64_t nclusters;      /* data clusters, numbered from 2 */
};

/* Byte ranges of the partition: file_off is the partition offset, img_off unused. */
struct imgp_fat_ranges {
	struct imgp_extent *r;
	size_t n;
};

/* Adds [off, off+len) to set, sorted, merged with the ranges it touches. 0 or -ENOMEM. */
int imgp_fat_ranges_add_(struct imgp_fat_ranges *set, uint64_t off, uint64_t len);
/* Checks a 512-byte boot sector against a partition of part_size bytes. 0 or -EINVAL. */
int imgp_fat_geometry_(const uint8_t *bs, uint64_t part_size, struct imgp_fat_geom *g);
/* Appends the clusters of one line of mshowfat to out. 0, -EIO (outside g) or -ENOMEM. */
int imgp_fat_parse_chain_(const struct imgp_fat_geom *g, const char *line,
			 struct imgp_fat_ranges *out);
/* In a listing ("mdir -/ -b -a ::/"): 1 file, 2 folder, 0 missing, -ENOENT when it cannot tell. */
int imgp_fat_listing_find_(const char *text, const char *target);
/* The mtools names of the folders of a listing, "::/" first. 0 or -ENOMEM. */
int imgp_fat_listing_dirs_(const char *text, char ***out, size_t *n);
/*
 * The size of the file whose chain starts at cluster, from the directory
 * entries in dir (fat32: entries hold the cluster's high half). 0, -EISDIR
 * for a folder's entry, -ENOENT for no entry or more than one (no message).
 */
int imgp_fat_dirent_size_(const uint8_t *dir, size_t len, uint32_t cluster,
			 bool fat32, uint64_t *size);
/* The names right inside the folder whose lines start with prefix ("::/dir/"). 0 or -ENOMEM. */
int imgp_fat_listing_children_(const char *text, const char *prefix, char ***names,
			      size_t *n);
/* The size of file target from what "mdir -a target" printed. 0, -EISDIR or -EIO. */
int imgp_fat_parse_size_(const char *text, const char *target, uint64_t *size);
/* See imgp_fs_ops.map_file; -ENOTSUP from backends that cannot map. */
int imgp_fs_map_file_(struct imgp_fs *fs, const char *path,
		     struct imgp_file_map *out);
void imgp_file_map_free_(struct imgp_file_map *map);
/*
 * A reader (see fit.c) of a mapped file in img, taking over the map: the
 * image must stay open while the reader is used.
 */
int imgp_file_map_reader_(const struct imgp_image *img, struct imgp_file_map *map,
			 struct imgp_reader *rd);

/* -------------------------------------------------------------- writeset.c */

/* The bytes a commit will write, captured before any is written. */
struct imgp_writeset;
struct imgp_range {
	uint64_t off;            /* bytes from the start of the image */
	size_t len;
	uint8_t *data;
};

/* A new empty write set over img (read for partial sectors). */
int imgp_writeset_new_(struct imgp_writeset **out, const struct imgp_image *img);
void imgp_writeset_free_(struct imgp_writeset *ws);
/* Records a write; -ERANGE outside the image, -EFBIG past 1 GiB in all. */
int imgp_writeset_write_(struct imgp_writeset *ws, uint64_t off,
			const void *data, size_t len);
/* Reads as the image will be once the write set is applied. */
int imgp_writeset_read_(struct imgp_writeset *ws, uint64_t off, void *buf,
		       size_t len);
/* The captured writes as sorted, merged ranges (freed with imgp_ranges_free_). */
int imgp_writeset_ranges_(const struct imgp_writeset *ws,
			 struct imgp_range **out, size_t *n);
void imgp_ranges_free_(struct imgp_range *ranges, size_t n);

/* -------------------------------------------- usedmap-fat.c, usedmap-ext.c */

/* Where a used map puts each range [start, end) of the image it finds in use. */
struct imgp_used {
	int (*add)(void *ctx, uint64_t start, uint64_t end);  /* 0 or -errno */
	void *ctx;
};

/*
 * The used part of one partition's filesystem, handed to m as image
 * offsets (in any order): 0, -EINVAL when it does not read as that
 * filesystem (the caller then maps the partition whole), -ENOMEM.
 */
int imgp_usedmap_fat_(const struct imgp_image *img, const struct imgp_part *part,
		     const struct imgp_used *m);
int imgp_usedmap_ext_(const struct imgp_image *img, const struct imgp_part *part,
		     const struct imgp_used *m);

#endif /* IMGP_FS_H */
