/* SPDX-License-Identifier: MIT */
/*
 * imgpatch library internals: the contracts between the library's own
 * files (partition-label and filesystem backends, the write set a commit
 * captures, the undo journal's writing side, external programs, the FIT
 * skeleton, image fillers). Callers of the library include imgpatch.h
 * only; a backend or a white-box test includes this header.
 */
#ifndef IMGPATCH_INTERNAL_H
#define IMGPATCH_INTERNAL_H

#include "imgpatch.h"

/* What each folder shares with the rest of the library, in dependency order. */
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "boot/boot.h"
#include "text/text.h"
#include "format/format.h"
#include "patch/patch.h"
#include "job/job.h"

/* --------------------------------------------------------------- image.c */

/*
 * External programs (mtools, libblkid) read the file itself, so whoever
 * hands them a range of an image filled on demand calls this first: makes
 * [off, off+len) of the file hold the image's bytes (see imgp_fill_fn).
 */
int imgp_image_fill(const struct imgp_image *img, uint64_t off, uint64_t len);
/*
 * imgp_image_open() read-only of the file open as fd (path names it), and
 * imgp_disk_open() likewise: through a duplicate of fd, which the caller
 * keeps. Return 0 or -errno.
 */
int imgp_image_open_fd(struct imgp_image *img, int fd, const char *path);
int imgp_disk_open_fd(struct imgp_disk **disk, struct imgp_ctx *ctx, int fd, const char *path);
/*
 * imgp_image_open() and imgp_disk_open() read-only of a regular file filled
 * on demand: every read goes through fill (with ctx) first. The handle
 * passes it on to no other: a commit of a plan made on it writes through
 * it (imgp_image_inherit_fill()). Return 0 or -errno.
 */
int imgp_image_open_filled(struct imgp_image *img, const char *path,
			   imgp_fill_fn fill, void *ctx);
int imgp_disk_open_filled(struct imgp_disk **disk, struct imgp_ctx *ctx, const char *path,
			  imgp_fill_fn fill, void *fill_ctx);
/* img, open on from's file, reads and writes through from's filler too. */
void imgp_image_inherit_fill(struct imgp_image *img, const struct imgp_image *from);

/* ---------------------------------------- part.c, part-mbr.c, part-gpt.c */

/* One partition-label driver (libfdisk style); registered in part.c. */
struct imgp_label_ops {
	const char *name;
	/* Returns 1 when the label is present, 0 when not, <0 on I/O error. */
	int (*probe)(const struct imgp_image *img);
	/* Fills tab (label, id, sector_size, parts); returns 0 or -errno. */
	int (*read)(const struct imgp_image *img, struct imgp_table *tab);
};

extern const struct imgp_label_ops imgp_label_gpt;
extern const struct imgp_label_ops imgp_label_mbr;

/* Reads inside a partition, bounds-checked against it. Returns 0 or -ERANGE/-EIO. */
int imgp_part_read(const struct imgp_image *img, const struct imgp_part *part,
		   uint64_t off, void *buf, size_t len);

/* ------------------------------------------------------------------- crc.c */

/* CRC-32 (IEEE 802.3, as zlib, GPT, FIT and U-Boot legacy images use it). */
uint32_t imgp_crc32(uint32_t crc, const void *data, size_t len);

/* ---------------------------------------------- fs.c, fs-fat.c, fs-ext.c */

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
	int (*stat)(struct imgp_fs *fs, const char *path, struct imgp_fs_stat *st);
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
	 * imgp_fs_names_add(). -ENOENT, -ENOTDIR (NULL op: -ENOTSUP).
	 */
	int (*list)(struct imgp_fs *fs, const char *dir, char ***names, size_t *n);
	/*
	 * Optional: creates the directory path (mode 0755, root; its parent
	 * must exist); one already there is left. -EEXIST when path is
	 * something else (NULL op: -ENOTSUP).
	 */
	int (*mkdir)(struct imgp_fs *fs, const char *path);
};

extern const struct imgp_fs_ops imgp_fs_fat;
extern const struct imgp_fs_ops imgp_fs_ext;

/*
 * fs.c's table of filesystems imgpatch names but neither reads nor writes
 * (btrfs, xfs, f2fs, squashfs, LUKS, swap). imgp_fs_magic_type() returns
 * the type whose superblock magic the partition carries, or NULL;
 * imgp_fs_may_hold_root() is true for one of them a root may be on,
 * imgp_fs_encrypted() for an encrypted container (LUKS), whose messages
 * say so rather than call it a filesystem.
 */
const char *imgp_fs_magic_type(const struct imgp_image *img,
			       const struct imgp_part *part);
bool imgp_fs_may_hold_root(const char *fstype);
bool imgp_fs_encrypted(const char *fstype);

/*
 * Opens a partition's filesystem for writing in capture mode: the changes
 * are computed against the image but land in ws; imgp_fs_finish() completes
 * them. The image may be read-only. seen (NULL: none) is a handle open
 * read-only on the same partition, of img's file or another: what it
 * read that still holds for img is not read again.
 */
int imgp_fs_open_capture(struct imgp_fs *fs, const struct imgp_fs *seen,
			 struct imgp_image *img, const struct imgp_part *part,
			 struct imgp_writeset *ws);
int imgp_fs_finish(struct imgp_fs *fs);

/* For backends: adds a name to a listing, skipping "." and "..". */
int imgp_fs_names_add(char ***names, size_t *n, const char *name, size_t len);

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
int imgp_fat_ranges_add(struct imgp_fat_ranges *set, uint64_t off, uint64_t len);
/* Checks a 512-byte boot sector against a partition of part_size bytes. 0 or -EINVAL. */
int imgp_fat_geometry(const uint8_t *bs, uint64_t part_size, struct imgp_fat_geom *g);
/* Appends the clusters of one line of mshowfat to out. 0, -EIO (outside g) or -ENOMEM. */
int imgp_fat_parse_chain(const struct imgp_fat_geom *g, const char *line,
			 struct imgp_fat_ranges *out);
/* In a listing ("mdir -/ -b -a ::/"): 1 file, 2 folder, 0 missing, -ENOENT when it cannot tell. */
int imgp_fat_listing_find(const char *text, const char *target);
/* The mtools names of the folders of a listing, "::/" first. 0 or -ENOMEM. */
int imgp_fat_listing_dirs(const char *text, char ***out, size_t *n);
/*
 * The size of the file whose chain starts at cluster, from the directory
 * entries in dir (fat32: entries hold the cluster's high half). 0, -EISDIR
 * for a folder's entry, -ENOENT for no entry or more than one (no message).
 */
int imgp_fat_dirent_size(const uint8_t *dir, size_t len, uint32_t cluster,
			 bool fat32, uint64_t *size);
/* The names right inside the folder whose lines start with prefix ("::/dir/"). 0 or -ENOMEM. */
int imgp_fat_listing_children(const char *text, const char *prefix, char ***names,
			      size_t *n);
/* The size of file target from what "mdir -a target" printed. 0, -EISDIR or -EIO. */
int imgp_fat_parse_size(const char *text, const char *target, uint64_t *size);
/* See imgp_fs_ops.map_file; -ENOTSUP from backends that cannot map. */
int imgp_fs_map_file(struct imgp_fs *fs, const char *path,
		     struct imgp_file_map *out);
void imgp_file_map_free(struct imgp_file_map *map);
/*
 * A reader (see fit.c) of a mapped file in img, taking over the map: the
 * image must stay open while the reader is used.
 */
int imgp_file_map_reader(const struct imgp_image *img, struct imgp_file_map *map,
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
int imgp_writeset_new(struct imgp_writeset **out, const struct imgp_image *img);
void imgp_writeset_free(struct imgp_writeset *ws);
/* Records a write; -ERANGE outside the image, -EFBIG past 1 GiB in all. */
int imgp_writeset_write(struct imgp_writeset *ws, uint64_t off,
			const void *data, size_t len);
/* Reads as the image will be once the write set is applied. */
int imgp_writeset_read(struct imgp_writeset *ws, uint64_t off, void *buf,
		       size_t len);
/* The captured writes as sorted, merged ranges (freed with imgp_ranges_free). */
int imgp_writeset_ranges(const struct imgp_writeset *ws,
			 struct imgp_range **out, size_t *n);
void imgp_ranges_free(struct imgp_range *ranges, size_t n);

/* ------------------------------------------------------------- journal.c */

/*
 * 1 when the journal at path is that of a run on img that finished (not
 * undone) and wrote a byte of one of the n ranges (img_off, len); else 0
 * (no journal, another image's, damaged). Never an error.
 */
int imgp_journal_touched(const char *path, const struct imgp_image *img,
			 const struct imgp_extent *ext, size_t n);
/*
 * Saves the old bytes of every range about to be written (read from img),
 * syncs, and marks the journal ready. Only then may the image be written.
 */
int imgp_journal_begin(const char *path, const struct imgp_image *img,
		       const struct imgp_range *ranges, size_t n,
		       struct imgp_journal **out);
/*
 * 0 when there is no journal at path or its run on image finished (its
 * mark, or every region holding its new bytes, says so; image NULL: the
 * mark alone); -EBUSY "an
 * interrupted imgpatch run left ..." when a run died before finishing.
 */
int imgp_journal_check(const char *path, const char *image);
/* imgp_journal_undo() by a caller that holds the image's lock. */
int imgp_journal_restore(const char *path, const char *image, bool force,
			 size_t *restored, uint64_t *bytes);
/* Marks the journal done (every write is in the image and synced); frees it. */
int imgp_journal_done(struct imgp_journal *j);
/* Frees a journal left unfinished (after a failed write). */
void imgp_journal_abandon(struct imgp_journal *j);

/* Test builds: the place where a simulated crash may strike after a write. */
void imgp_fault_point(void);
/*
 * Test builds: IMGPATCH_TEST_PAUSE=POINT:FILE makes the run create FILE on
 * reaching POINT and wait there while FILE exists (at most a minute), so a
 * test can act (a signal, a second run) at a known step. A no-op otherwise.
 */
void imgp_test_pause(const char *point);

/* ------------------------------------------------------------------- run.c */

/*
 * Path of an external program: $IMGPATCH_<NAME> (upper case, '-' as '_')
 * when set, else the first executable "name" in $PATH, into buf (size
 * bytes; a longer one is cut): buf, or NULL with a failure message when
 * not found.
 */
const char *imgp_tool_path(const char *name, char *buf, size_t size);
/*
 * Runs argv[0] (a bare program name resolved with imgp_tool_path) with the
 * given argv, no shell, a clean environment (PATH, LC_ALL=C, TZ=UTC and the
 * variables in extra_env, each "K=V"), stdin from /dev/null, stdout captured
 * into out (may be NULL to discard). Returns 0 when the program exits 0;
 * otherwise -EIO with the program's first stderr line as the message.
 */
int imgp_run(const char *const argv[], const char *const extra_env[],
	     struct imgp_buf *out);
/*
 * As imgp_run, the program also keeping the descriptors keep_fds[0..nkeep)
 * (each 3 or more, close-on-exec here), which it opens as /proc/self/fd/N:
 * a file handed over this way never has its name parsed by the program.
 * -EINVAL for a descriptor below 3.
 */
int imgp_run_fds(const char *const argv[], const char *const extra_env[],
		 struct imgp_buf *out, const int *keep_fds, size_t nkeep);

/* --------------------------------------------------------- mmc-hosts.c */

/* Whether a host controller can do a bus mode. */
enum imgp_mmc_cap { IMGP_MMC_CAP_UNKNOWN, IMGP_MMC_CAP_NO, IMGP_MMC_CAP_YES };

/* What an SD/eMMC host controller can do, and who says so. */
struct imgp_mmc_host {
	const char *compatible;
	bool sdhci;              /* also reads its modes from capability registers */
	enum imgp_mmc_cap uhs;   /* UHS-I (1.8 V) modes of SD cards */
	enum imgp_mmc_cap hs200;
	enum imgp_mmc_cap hs400;
	unsigned max_hz;         /* the SoC tree's clock for it; 0: unknown */
	const char *source;      /* the driver file (Linux 6.1) or tree that says so */
};
/* The table's entry for node's compatible list, or NULL. */
const struct imgp_mmc_host *imgp_mmc_host_find(const void *fdt, int node);

/* -------------------------------------------------------- fit-skeleton.c */

/* A property value left out of a FIT skeleton, and where it lies in the file. */
struct imgp_fit_elided {
	int node;                /* node offset in the skeleton */
	char *prop;
	uint64_t off;
	uint32_t len;
};

/*
 * Builds the structure of the flattened tree rd holds with every property
 * value longer than keep_max bytes left empty (recorded in *el instead),
 * reading only the tree's headers, strings and kept values. *totalsize is
 * the original tree's. Returns 0; -EINVAL for a broken tree; -ENOTSUP for
 * a header version before 17; -EFBIG past 32 MiB of structure.
 */
int imgp_fit_skeleton(const struct imgp_reader *rd, size_t keep_max,
		      void **fdt, uint32_t *totalsize,
		      struct imgp_fit_elided **el, size_t *nel);
void imgp_fit_elided_free(struct imgp_fit_elided *el, size_t n);

/* ------------------------------------------------------------- dt-blob.c */

/*
 * fdt_check_header and fdt_check_full of a blob (bufsize bytes, aligned
 * for libfdt), safe with every libfdt: before 1.7.0 (Debian 12 has 1.6.1)
 * fdt_next_tag() adds a property's length to an int, so a length near
 * 4 GiB steps back onto the same tag and fdt_check_full() never returns.
 * Returns 0 or a libfdt error (-FDT_ERR_*) for fdt_strerror().
 */
int imgp_fdt_check_full(const void *fdt, size_t bufsize);

/* ------------------------------------------ dt-rpi-params.c, dt-rpi-overlay.c */

/*
 * The Raspberry Pi firmware's dtparam= line: the comma-separated
 * "name[=value]" list params applied through the __overrides__ of the tree
 * in *fdt (*size bytes; replaced by a new malloc'd buffer on success, left
 * unchanged on failure). A parameter the firmware ignores (unknown name,
 * value that does not parse) is skipped with a warning into warnings
 * (imgp_warn_into(); NULL: dropped), starting with what (NULL: "dtparam").
 * Returns 0, or -EINVAL (broken tree or __overrides__), -ENOMEM, -EFBIG.
 */
int imgp_rpi_dtparam(void **fdt, size_t *size, const char *params,
		     const char *what, struct imgp_buf *warnings);
/*
 * The firmware's dtoverlay=name,params line: the overlay blob (len bytes)
 * resolved against the tree in *fdt, its parameters (the overlay's
 * __overrides__ first, then the base's) applied, its active fragments
 * merged, all as dtmerge does. *fdt, what (NULL: "dtoverlay=name") and
 * warnings as for imgp_rpi_dtparam(). Returns 0, or -ENOENT (a label,
 * target or target-path the base lacks), -EINVAL, -ENOMEM, -EFBIG.
 */
int imgp_rpi_dtoverlay(void **fdt, size_t *size, const void *overlay,
		       size_t len, const char *name, const char *params,
		       const char *what, struct imgp_buf *warnings);

/*
 * How many tree names a message lists before "... N in all": a boot path
 * may offer a kernel's every tree (Debian's arm64 kernel has about 576).
 */
#define IMGP_NAMES_SHOWN 12

/* --------------------------------------------------------- cmdline-site.c */

/* The bytes of a kernel command line in the file that keeps it. */
struct imgp_cmdline_span {
	size_t start, end;
	bool found;              /* false: none there; a new one goes at start (== end) */
	char head[64], tail[8];  /* written around a new one ("extraargs=", "\n") */
	/*
	 * A shell value (sh): its quotes ('"', '\''), which the line must stay
	 * within; 0: a plain word, which it must stay.
	 */
	bool sh;
	char quote;
};

/*
 * Where a boot path keeps the kernel command line it hands over (its
 * cmdline op fills it): a file on part and, in it, the line locate()
 * finds, so that the patch finds it again in a file it has edited.
 */
struct imgp_cmdline_site {
	const struct imgp_part *part;
	char *path;              /* the file */
	char *what;              /* "extraargs=", "label 'l0', append": for messages */
	char *loader;            /* what the loader adds itself; NULL: nothing known */
	char *arg;               /* for locate(): a key, a label; may be NULL */
	/*
	 * The file is a U-Boot script image (mkimage -T script): the line is
	 * in its script, which may be absent (then empty); base is the line
	 * in force where the script does not set it (the boot script's).
	 */
	bool script;
	char *base;
	/*
	 * Another setting of the file (locate() finds it with it as arg) whose
	 * words the loader puts before the line's (BeagleBoard's optargs=):
	 * they count as the line's, an edit of one of them is made there and
	 * a new word goes to the line. NULL: none.
	 */
	char *lead;
	/*
	 * Finds the line in text (len bytes). 0, -ENOENT or -EINVAL (what
	 * cannot be edited safely), each with a message; -ENOMEM.
	 */
	int (*locate)(const struct imgp_cmdline_site *site, const char *text, size_t len,
		      struct imgp_cmdline_span *span);
	/*
	 * The setting the distribution's generator makes the line from when it
	 * writes the file anew (update-grub: GRUB_CMDLINE_LINUX of
	 * /etc/default/grub), edited too so that the edit outlives it; NULL:
	 * none; a file not there is made. source_lost: why such a setting
	 * cannot be edited, for the plan.
	 */
	struct imgp_cmdline_site *source;
	char *source_lost;
	/* Bytes the line may not hold, and why (the loader's quoting); NULL: any. */
	const char *bad;
	const char *bad_why;
};
void imgp_cmdline_site_free(struct imgp_cmdline_site *site);
/*
 * The site of the command line of the tree model names (NULL: the boot
 * path's, which must be the same for each of its trees, else -EINVAL
 * listing them). -ENOENT (no boot path, no such tree), -ENOTSUP (the
 * path keeps none it can edit), -ENOMEM; each with its message.
 */
int imgp_cmdline_site_get(struct imgp_survey *sv, const char *model,
			  struct imgp_cmdline_site *site);
/*
 * The text site->locate() reads from the file's bytes (raw, len; existed:
 * the file is there): the file itself, or the script of a script image
 * (empty when there is none). 0, -EINVAL or -EBADMSG (a script image that
 * does not parse; the message names path), -ENOMEM.
 */
int imgp_cmdline_site_text(const struct imgp_cmdline_site *site, const void *raw,
			   size_t len, bool existed, struct imgp_buf *text);
/*
 * The line as the loader takes it from text (len bytes): site->lead's
 * words (*lead its span, found false when unset or no lead), a blank,
 * then the line's (*span), into out (emptied, NUL-terminated). Returns
 * 0, or locate()'s error, or -ENOMEM.
 */
int imgp_cmdline_site_line(const struct imgp_cmdline_site *site, const char *text,
			   size_t len, struct imgp_cmdline_span *span,
			   struct imgp_cmdline_span *lead, struct imgp_buf *out);
/* Sets site's strings (each may be NULL; copied). 0 or -ENOMEM. */
int imgp_cmdline_site_set(struct imgp_cmdline_site *site, const struct imgp_part *part,
			  const char *path, const char *what, const char *loader,
			  const char *arg);
/*
 * locate() for a "KEY=VALUE" setting U-Boot's env import -t reads (site->arg
 * the key): the last line of KEY wins; a new one goes at the end.
 */
int imgp_cmdline_locate_env(const struct imgp_cmdline_site *site, const char *text,
			    size_t len, struct imgp_cmdline_span *span);
/*
 * locate() for a shell assignment KEY="VALUE" (site->arg the key) of a file
 * sh sources: the last one wins; its value double- or single-quoted without
 * expansions, or a plain word, else -EINVAL naming the line. A new one goes
 * at the end, double-quoted.
 */
int imgp_cmdline_locate_sh(const struct imgp_cmdline_site *site, const char *text,
			   size_t len, struct imgp_cmdline_span *span);
/* Whether value can go into span's quotes as it is: 0, or -EINVAL with a message. */
int imgp_cmdline_span_fits(const struct imgp_cmdline_span *span, const char *value);
/*
 * The lines of a U-Boot script that set bootargs ("setenv bootargs ..."),
 * "LINE: text" each, joined by "; ", into out (emptied): 1 when there is
 * one, 0 when not, -ENOMEM.
 */
int imgp_cmdline_script_lines(const char *script, struct imgp_buf *out);
/*
 * For a boot path whose U-Boot script sets bootargs itself: -ENOTSUP naming
 * the script's lines that do (hook_note, may be NULL, added), or saying
 * that it sets none.
 */
int imgp_cmdline_script_refusal(struct imgp_survey *sv, const char *hook_note);

/* --------------------------------------------------------- bootpath-*.c */

struct imgp_uboot_menu;
struct imgp_overlay_site;

/*
 * One way the board boots and picks its device tree, in the shape of
 * U-Boot's boot/bootmeth_*.c: each is one file ending in one of these,
 * listed in survey.c's table and tried in that order.
 */
struct imgp_bootpath {
	const char *name;
	/*
	 * Recognises the method in sv (its filesystems open): 1 when the image
	 * boots this way, with sv->boot set; 0 when not. What it looked for,
	 * and why looking failed, stays in sv; <0 only when out of memory.
	 */
	int (*probe)(struct imgp_survey *sv);
	/*
	 * The file the boot script must load for a fixed device tree to take
	 * effect ("user-override.dtb"); NULL when this way has none. A method
	 * without hook honours no hook file: the survey then shows the hook
	 * file wherever it is, as with no boot path.
	 */
	const char *(*hook)(const struct imgp_survey *sv);
	/*
	 * Fills bi: one line naming the way and what it picks, the trees it
	 * can boot and the overlays applied to each, in order. A file that
	 * cannot be read is kept in bi->rc/error. Returns 0 or -ENOMEM.
	 */
	int (*describe)(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi);
	/*
	 * Applies entry i of dt->overlays to the tree in *fdt (*size bytes,
	 * which it may grow with realloc) as this way's loader does (the
	 * Raspberry Pi firmware's dtoverlay/dtparam with parameters, ...).
	 * NULL: the entry names an overlay file on sv->boot, applied as
	 * U-Boot's "fdt apply" does. Its warnings go into warnings, a line
	 * each (NULL: dropped). Returns 0, or -errno with imgp_fail().
	 */
	int (*apply)(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		     size_t i, void **fdt, size_t *size, struct imgp_buf *warnings);
	/*
	 * The room its loader gives each overlay of its list (the bytes
	 * fdt_shrink_to_minimum adds: sysboot's 8192); 0: what it needs.
	 */
	unsigned long overlay_room;
	/*
	 * Where the kernel command line this way hands over for dt (NULL:
	 * it names no tree) is kept: fills site. -ENOTSUP with the reason
	 * when it is not kept where imgpatch can edit it (a script line that
	 * sets bootargs itself), -ENOMEM. NULL: this way keeps none.
	 */
	int (*cmdline)(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		       struct imgp_cmdline_site *site);
	/*
	 * Where a new overlay named name (no ".dtbo") for dt goes and the
	 * list entry that names it, filled in site; gen: Debian's u-boot-update
	 * when it rewrites the list (NULL: none). Returns 0 or -errno with
	 * imgp_fail(). NULL: this way applies no list of overlays imgpatch can
	 * add to, and a changed tree is its file edited in place.
	 */
	int (*overlay_site)(struct imgp_patch *patch, const struct imgp_survey_bootdt *dt,
			    const char *name,
			    const struct imgp_uboot_menu *gen, struct imgp_overlay_site *site);
	/*
	 * The section filters (one per line) under which a new list entry for
	 * tree goes because every board reads the list (config.txt); -ENOENT
	 * when none holds for tree's boards alone. NULL: the list has none.
	 */
	int (*overlay_filters)(const char *tree, struct imgp_buf *out);
	unsigned flags;          /* IMGP_BOOTPATHF_* */
	/*
	 * The files its loader reads by names of their own (its configuration,
	 * scripts, kernel, initrd, firmware), as fnmatch patterns over a whole
	 * path ("*" spans "/" too), matched whatever their case as on FAT; a
	 * device tree written there would replace one. NULL-terminated; NULL:
	 * none. imgp_survey_boot_file() asks every boot path's, not only the
	 * recognised one's: the board's firmware may try them all.
	 */
	const char *const *loads;
	/* What its loader does when the base tree it names is not there; NULL: the script's load fails. */
	const char *on_missing_tree;
	/* How to make room when an overlay needs more than its loader gives; NULL: "fdt resize". */
	const char *on_no_room;
	/* How to keep an overlay its generator drops (doctor's overlay-not-durable). */
	const char *keep_overlay;
};

/* The boot path named name ("extlinux"); NULL when none is. */
const struct imgp_bootpath *imgp_bootpath_named(const char *name);
/* The first boot path whose loads patterns match path (*pattern: which); NULL: none. */
const struct imgp_bootpath *imgp_bootpath_loading(const char *path, const char **pattern);

/* The trees are a FIT's images: picked with --fdt, changed through the FIT or an override. */
#define IMGP_BOOTPATHF_FIT 0x1u

/* Where a boot path keeps a new overlay and the list entry that names it. */
struct imgp_overlay_site {
	char file[1024];         /* the overlay on the boot partition */
	char list[1024];         /* the file holding the list */
	const char *key;         /* the list's key in it */
	char word[1024];         /* the entry, as the list names the overlay */
	/* The overlay's folder when the distribution's tool makes it on first use; "": none. */
	char folder[1024];
	const char *folder_why;
};

extern const struct imgp_bootpath imgp_bootpath_fit;
extern const struct imgp_bootpath imgp_bootpath_extlinux;
extern const struct imgp_bootpath imgp_bootpath_script;
extern const struct imgp_bootpath imgp_bootpath_flash_kernel;
extern const struct imgp_bootpath imgp_bootpath_armbian;
extern const struct imgp_bootpath imgp_bootpath_uenv;
extern const struct imgp_bootpath imgp_bootpath_rpi;
extern const struct imgp_bootpath imgp_bootpath_bls;
extern const struct imgp_bootpath imgp_bootpath_grub;
extern const struct imgp_bootpath imgp_bootpath_efi;

/*
 * The configuration a UEFI loader reads, for the boot path that starts it
 * (bootpath-efi.c), kept by the path that knows it (bootpath-bls.c,
 * bootpath-grub.c) and read on the partition that holds it, which need
 * not be sv->boot.
 */
struct imgp_efi_loader {
	const char *name;        /* "GRUB" */
	const char *updates;     /* what rewrites it (bi->updates) */
	/* The partition that holds it: 1 with *part, 0 when none does, -ENOMEM. */
	int (*find)(struct imgp_survey *sv, const struct imgp_part **part);
	/*
	 * 1 when the entry it boots names its own device tree (*path, owned),
	 * which replaces the firmware's; 0 when not or unreadable; -ENOMEM.
	 */
	int (*devicetree)(struct imgp_survey *sv, const struct imgp_part *part, char **path);
	/* Where the entry it boots keeps the kernel command line: as a bootpath's cmdline op. */
	int (*cmdline)(struct imgp_survey *sv, const struct imgp_part *part,
		       struct imgp_cmdline_site *site);
};
extern const struct imgp_efi_loader imgp_efi_loader_bls;
extern const struct imgp_efi_loader imgp_efi_loader_grub;
/*
 * Whether every board the Raspberry Pi tree file dtb (a name in the FAT
 * root, "bcm2710-rpi-3-b.dtb") serves sees the config.txt model filter
 * ("pi3"), by Raspberry Pi's table of model filters. False for a name the
 * firmware does not load for a board.
 */
bool imgp_rpi_tree_sees(const char *dtb, const char *filter);
/*
 * The config.txt filters ("pi400", "board-type=0x11"; one a line in out)
 * that together hold for exactly the boards the Raspberry Pi tree dtb (a
 * path or a name, "/bcm2711-rpi-4-b.dtb") serves: a model filter covering
 * those boards and no other, else [board-type=N] for each. 0, -ENOENT for
 * a tree no filter singles out (or no tree of a board), -ENOMEM.
 */
int imgp_rpi_own_filters(const char *dtb, struct imgp_buf *out);

/*
 * uboot-shell.c: U-Boot's script language (hush with cmd/test.c's test,
 * U-Boot 2023.01), for the boot paths that read boot scripts.
 */
struct imgp_ushell;
struct imgp_ushell_ops {
	/* A variable the script has not set: the board's value, or NULL (unset). */
	const char *(*board)(void *ctx, const char *name);
	/* Any command but if/test/setenv/printenv/true/false: *status its status. */
	int (*run)(void *ctx, struct imgp_ushell *sh, int argc, char **argv, int *status);
};
/* A shell with no variables set; NULL: out of memory. */
struct imgp_ushell *imgp_ushell_new(const struct imgp_ushell_ops *ops, void *ctx);
void imgp_ushell_free(struct imgp_ushell *sh);
/* Runs a script's text (a sourced one too, on the same variables). 0 or -errno. */
int imgp_ushell_run(struct imgp_ushell *sh, const char *text);
/* Sets (value NULL: unsets) a variable; 0 or -errno. */
int imgp_ushell_setvar(struct imgp_ushell *sh, const char *name, const char *value);
const char *imgp_ushell_getvar(struct imgp_ushell *sh, const char *name);
/* The variables a test or printenv read while neither script nor board set them. */
size_t imgp_ushell_unset(const struct imgp_ushell *sh, const char *const **names);
/* cmd/test.c: 0 (true) or 1 (false) for "test ARGS" (argv[0] "test"). */
int imgp_uboot_test(int argc, const char *const *argv);
/* simple_strtol(s, NULL, 0): sign, 0x hex, 0 octal, else decimal, up to a non-digit. */
long imgp_uboot_strtol(const char *s);
/*
 * fdt_shrink_to_minimum(fdt, extra) on a tree at a 4 KiB boundary whose
 * blocks take used bytes: its new total size (used, five reserve entries
 * and extra, rounded up to 4 KiB).
 */
size_t imgp_uboot_fdt_room(size_t used, unsigned long extra);
/*
 * Runs one "fdt set|rm|mknode ..." (argv[0] "fdt") on dtb as U-Boot's
 * cmd/fdt.c does; the subcommands that do not edit the tree do nothing.
 * One imgpatch does not model is a warning into warnings (NULL: dropped).
 * Returns the command's status (0, 1), or -ENOMEM.
 */
int imgp_uboot_fdt_cmd(struct imgp_dtb *dtb, int argc, char *const *argv,
		       struct imgp_buf *warnings);

/*
 * survey.c, for describe(): a text file of part, NUL-terminated, in *text
 * (owned). Returns 0, or -errno with the failure kept in bi.
 */
int imgp_bootinfo_read(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
		       const struct imgp_part *part, const char *path, char **text);
/* Appends a tree (model may be NULL); NULL: out of memory. */
struct imgp_survey_bootdt *imgp_bootinfo_add_dt(struct imgp_survey_bootinfo *bi,
						const char *model, const char *path);
/* Appends an overlay to dt; 0 or -ENOMEM. */
int imgp_bootinfo_add_overlay(struct imgp_survey_bootdt *dt, const char *path);
/*
 * Appends an overlay that U-Boot applies in a bounded room: room >= 0 is
 * an fdt_shrink_to_minimum(room) just before it ("fdt resize", sysboot's
 * 8 KiB), -1 none. 0 or -ENOMEM.
 */
int imgp_bootinfo_add_overlay_room(struct imgp_survey_bootdt *dt, const char *path,
				   long room);
/*
 * Whether model names dt, as --model takes it (patch and cat alike): its
 * model, its path (with or without the leading '/'), its file name, or
 * the tail of its path ("rockchip/rk3399-rockpro64.dtb").
 */
bool imgp_bootdt_named(const struct imgp_survey_bootdt *dt, const char *model);
/* Frees what dt holds (not the labels after it) and zeroes it. */
void imgp_bootdt_clear(struct imgp_survey_bootdt *dt);
/* Frees what bi holds: its trees with the labels after each, and its lines. */
void imgp_bootinfo_free(struct imgp_survey_bootinfo *bi);
/* Appends a note on what dt's boot depends on that the image does not hold. */
int imgp_bootinfo_add_note(struct imgp_survey_bootdt *dt, const char *note);
/* A script the loader sources after the overlays, and a variable it sees. 0 or -ENOMEM. */
int imgp_bootinfo_add_script(struct imgp_survey_bootdt *dt, const char *path);
int imgp_bootinfo_add_script_var(struct imgp_survey_bootdt *dt, const char *name_value);
/* Each blank-separated NAME of list, as prefix NAME suffix, onto dt; 0 or -ENOMEM. */
int imgp_bootinfo_add_overlays(struct imgp_survey_bootdt *dt, const char *prefix,
			       const char *list, const char *suffix);
/* Replaces bi->summary with the printf result; 0 or -ENOMEM. */
int imgp_bootinfo_summary(struct imgp_survey_bootinfo *bi, const char *fmt, ...)
	IMGP_PRINTF(2, 3);
/*
 * The next line of *text (advanced past it), blanks around it and a
 * comment from '#' cut; NULL at the end. Writes into the text.
 */
char *imgp_bootinfo_line(char **text);
/* The value of a "key=value" line (env import -t's format); NULL: another key. */
const char *imgp_bootinfo_value(const char *line, const char *key);
/* Whether the boot partition has path (a failed lookup counts as no). */
bool imgp_bootinfo_exists(struct imgp_survey *sv, const char *path);

/*
 * survey.c, for the boot paths: the first partition (table order) whose
 * filesystem has path. Returns 0 with *part, or -ENOENT, or the -errno of
 * a lookup that failed (*part: where) when no other partition has it; the
 * message is kept in *error (owned, replaced) for any non-zero return.
 */
int imgp_survey_find(struct imgp_survey *sv, const char *path,
		     const struct imgp_part **part, char **error);
/*
 * Keeps the current message (or strerror(-rc)) in *error (replacing it);
 * returns rc, or -ENOMEM (*error NULL) when it cannot be kept.
 */
int imgp_survey_keep(int rc, char **error);
/*
 * A probe's lookup that failed with a cause (rc not -ENOENT): the first is
 * kept as the reason when no partition turns out to be the boot partition.
 * Returns 0 or -ENOMEM.
 */
int imgp_survey_boot_cause(struct imgp_survey *sv, int rc, const char *error);
/*
 * The partition of the image an fstab spec names (LABEL=, UUID=,
 * PARTUUID=, PARTLABEL=); NULL: another device, or none.
 */
const struct imgp_part *imgp_survey_spec_part(const struct imgp_survey *sv, const char *spec);
/*
 * 1 when the boot partition is not the root and the root's /etc/fstab
 * mounts it at /boot (a /boot partition: what the system writes to /boot
 * lands at its top), else 0; -ENOMEM. Reads the fstab once for the survey.
 */
int imgp_survey_boot_mounted(struct imgp_survey *sv);
/*
 * Reads sv->script, the boot script of sv->boot, once per partition (a
 * probe may read it before the survey does). Failures are kept in
 * sv->script; returns 0 or -ENOMEM.
 */
int imgp_survey_script(struct imgp_survey *sv);
/*
 * A probe by marker files: the first partition (in table order) that has
 * paths[0], else paths[1], ... becomes sv->boot. Returns 1 when one does,
 * 0 when none (a failed lookup kept as the cause), or -ENOMEM.
 */
int imgp_survey_probe_paths(struct imgp_survey *sv, const char *const *paths,
			    size_t n);
/*
 * effective.c, for the doctor's --fdt: the effective tree of one fdt image
 * of sv's FIT, as imgp_effective_build() makes it. Returns 0 (a failure
 * kept in t->rc) or -ENOMEM.
 */
/*
 * effective.c: whether the FIT's boot script loads the override file and
 * it is there, so that it replaces every tree of the FIT.
 */
bool imgp_effective_override_loaded(const struct imgp_survey *sv);
int imgp_effective_fit_image(struct imgp_survey *sv, const struct imgp_fit_image *img,
			     struct imgp_effective *t);
/* patch.c: the patch's survey of its disk (its boot path read), made when first asked; NULL: ENOMEM. */
struct imgp_survey *imgp_patch_survey(struct imgp_patch *patch);
/*
 * patch.c: refuses a change of path (NULL: not known) on the root the
 * survey could not read (root_unread), naming the partition and its
 * filesystem, then alternative ("": none), or (NULL) cloud-init's seed
 * when the image has one. Returns -EROFS, or -ENOMEM.
 */
int imgp_patch_refuse_root(struct imgp_patch *patch, const struct imgp_part *root,
			   const char *path, const char *alternative);
/*
 * The survey's boot script of part (/boot.scr.uimg or /boot.scr), when it
 * is the one the patch would read and no step planned a change to it; NULL
 * otherwise (then it is read through the patch).
 */
const struct imgp_survey_script *
imgp_patch_surveyed_script(struct imgp_patch *patch, const struct imgp_part *part);

/* ---------------------------------------------------------- uboot-menu.c */

/*
 * What Debian's u-boot-update (u-boot-menu) reads from a root filesystem
 * when it writes extlinux.conf anew, and the fdtoverlays it then writes.
 */
struct imgp_uboot_menu {
	bool defaults;           /* /etc/default/u-boot is there */
	/* /boot is a partition of its own: dir and the entries are paths on it. */
	bool boot_part;
	char *dir;               /* U_BOOT_FDT_OVERLAYS_DIR as it uses it ("/boot/dtbo") */
	char *overlays;          /* U_BOOT_FDT_OVERLAYS; NULL: unset or empty (every *.dtbo) */
	char *overlays_file;     /* the file whose U_BOOT_FDT_OVERLAYS counts; NULL: none sets it */
	char *params_file;       /* the file whose U_BOOT_PARAMETERS counts; NULL: none sets it */
	bool kernel_cmdline;     /* /etc/kernel/cmdline is there (read when U_BOOT_PARAMETERS is unset) */
	bool dir_exists;
	size_t npresent;         /* the *.dtbo of dir, in glob order */
	char **present;
	size_t nwords;           /* the fdtoverlays entries it writes, in order */
	char **words;
};
/* Whether an extlinux.conf starts with the header u-boot-update 4.2.2 writes. */
bool imgp_uboot_menu_made(const char *text, size_t len);
/*
 * Reads a root as u-boot-update would: its settings from root, its
 * overlay folder from boot, the partition the root mounts at /boot (NULL:
 * / and /boot are one filesystem). Returns 0 or -ENOMEM.
 */
int imgp_uboot_menu_read(struct imgp_fs *root, struct imgp_fs *boot,
			 struct imgp_uboot_menu *m);
void imgp_uboot_menu_free(struct imgp_uboot_menu *m);
/* out = "/a/b" with repeated '/' collapsed, as the shell finds it (b may be NULL). */
int imgp_uboot_menu_path(const char *a, const char *b, struct imgp_buf *out);

/* ------------------------------------------- patch-dt.c, patch-via.c */

enum imgp_dt_edit_kind {
	IMGP_DT_EDIT_SET, IMGP_DT_EDIT_DELETE, IMGP_DT_EDIT_DELETE_NODE,
	IMGP_DT_EDIT_ADD_NODE, IMGP_DT_EDIT_OVERLAY,
};
/* Records an edit made to the loaded tree (node: its full path). 0 or -ENOMEM. */
int imgp_dt_plan_record(struct imgp_patch *patch, enum imgp_dt_edit_kind kind,
			const char *node, const char *prop, const void *data,
			size_t len, const char *name);
void imgp_dt_plan_free(struct imgp_dt_plan *p);
/*
 * 1 when the effective tree of the boot path's tree being edited (its
 * overlays applied) has the property at node path, with *where (malloc'd)
 * naming that tree; 0 when it has not, or there is no such tree (a FIT's);
 * -ENOMEM.
 */
int imgp_dt_plan_effective_has(struct imgp_patch *patch, const char *path,
			       const char *prop, char **where);
/* Loads blob (the tree a boot path builds) as the tree to edit; origin names it. */
int imgp_patch_load_dtb_blob(struct imgp_patch *patch, const struct imgp_part *part,
			     const void *blob, size_t size, const char *origin);
/*
 * The plan's note for the edited tree: why, where it came from, the edits,
 * the decompiled tree before and after (target names the after) as a diff.
 */
int imgp_patch_dt_note(struct imgp_patch *patch, const char *why,
		       const char *target, struct imgp_buf *note);

/* ------------------------------------------------------- patch-list.c */

/*
 * Whether no config.txt filter is in force at the end of text: it has no
 * "[filter]" line, or "[all]" is the last and no include line follows it.
 * (textedit.c)
 */
bool imgp_config_ends_unfiltered(const char *text, size_t len);

enum imgp_list_style {
	IMGP_LIST_WORDS,         /* key=a b c (armbianEnv.txt) */
	IMGP_LIST_EXTLINUX,      /* fdtoverlays of the label U-Boot boots */
	IMGP_LIST_LINES,         /* config.txt: one key=word line each */
	IMGP_LIST_SHELL,         /* KEY="a b c", a file a shell sources (/etc/default/u-boot) */
	IMGP_LIST_BLS,           /* "devicetree-overlay a b", a Boot Loader Specification entry */
	IMGP_LIST_MODULES,       /* one kernel module a line, no key (/etc/modules) */
};
/* The list style of key (NULL: none) in the file at path: by its name, then the key. */
enum imgp_list_style imgp_list_style_of(const char *path, const char *key);
/*
 * out = text with word added to the list (see imgpatch.h,
 * imgp_patch_list_add); sections as there. Returns 1 when it changed, 0
 * when the word was there, -EINVAL for a word that cannot be a list entry,
 * -ENOENT for an extlinux.conf without a label, -ENOMEM.
 */
int imgp_list_add(const char *text, size_t len, enum imgp_list_style style,
		  const char *key, const char *word, const char *sections,
		  struct imgp_buf *out);

/* ------------------------------------------------- fsmap.c, usedmap-*.c */

/* Bytes [start, end) of an image. */
struct imgp_span {
	uint64_t start, end;
};

/* The blocks of an image that a card needs, sorted and merged. */
struct imgp_fsmap {
	struct imgp_span *r;     /* 4 KiB aligned; the last may end at size */
	size_t n, cap;
	uint64_t size;           /* the image's size */
	uint64_t mapped;         /* bytes in r */
	/* The part of r outside the partitions (tables, boot loaders, the
	 * GPT backup), sorted: imgp_flash writes there only what differs. */
	struct imgp_span *outside;
	size_t noutside;
};

/* Adds bytes [start, end) to m (in any order; imgp_fsmap_build sorts). */
int imgp_fsmap_add(struct imgp_fsmap *m, uint64_t start, uint64_t end);
/*
 * The used part of one partition's filesystem, added to m as image
 * offsets: 0, -EINVAL when it does not read as that filesystem (the caller
 * then maps the partition whole), -ENOMEM.
 */
int imgp_usedmap_fat(const struct imgp_image *img, const struct imgp_part *part,
		     struct imgp_fsmap *m);
int imgp_usedmap_ext(const struct imgp_image *img, const struct imgp_part *part,
		     struct imgp_fsmap *m);

#endif /* IMGPATCH_INTERNAL_H */
