/* SPDX-License-Identifier: MIT */
/*
 * imgpatch library: read and patch SD-card disk images offline.
 *
 * Conventions (as in libfdt and genimage):
 *  - functions return 0 (or a documented non-negative value) on success and a
 *    negative errno on failure; they never exit and never print;
 *  - on failure the reason is kept in a thread-local message (imgp_errmsg()),
 *    innermost detail first set by imgp_fail(), then wrapped outwards with
 *    imgp_fail_ctx() so the final text reads outermost context first:
 *      "p1 (vfat): image.fit: fdt 'x' not found (have: a, b)";
 *  - warnings and progress go through the log hook (log.c), never stdio.
 */
#ifndef IMGPATCH_H
#define IMGPATCH_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IMGP_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ------------------------------------------------------------------ log.c */

enum imgp_log_level {
	IMGP_LOG_ERROR,
	IMGP_LOG_WARNING,
	IMGP_LOG_INFO,
	IMGP_LOG_DEBUG,
};

typedef void (*imgp_log_fn)(enum imgp_log_level level, const char *msg,
			    void *ctx);

/* Installs the log hook; NULL drops every message (the default). */
void imgp_log_set_handler(imgp_log_fn fn, void *ctx);

/*
 * Records a failure: the message replaces any earlier one.
 * Returns -err (err is a positive errno value, e.g. EINVAL).
 */
int imgp_fail(int err, const char *fmt, ...) IMGP_PRINTF(2, 3);
/*
 * Prefixes "context: " to the current message (or to strerror(-rc) when
 * there is none) and returns rc unchanged, so callers can write
 *   return imgp_fail_ctx(rc, "p%d", n);
 */
int imgp_fail_ctx(int rc, const char *fmt, ...) IMGP_PRINTF(2, 3);
bool imgp_err_is_name(void);
/* The current failure message; "" when there is none. */
const char *imgp_errmsg(void);
void imgp_errclear(void);

/* ------------------------------------------------------------------ buf.c */

/* A growable byte buffer; data is always NUL-terminated (not counted). */
struct imgp_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

int imgp_buf_append(struct imgp_buf *b, const void *data, size_t len);
int imgp_buf_printf(struct imgp_buf *b, const char *fmt, ...) IMGP_PRINTF(2, 3);
void imgp_buf_free(struct imgp_buf *b);

/* ---------------------------------------------------------------- image.c */

/*
 * Makes [off, off+len) of an image file hold the image's bytes before they
 * are read or written through its fd (an image unpacked on demand); write
 * says the range is about to change. Returns 0 or -errno with a message.
 */
typedef int (*imgp_fill_fn)(void *ctx, uint64_t off, uint64_t len, bool write);

struct imgp_image {
	char *path;
	int fd;
	bool writable;
	bool is_blockdev;
	uint64_t size;
	imgp_fill_fn fill;       /* NULL for a plain file or device */
	void *fill_ctx;
	/* Writes to the file through it, or by a commit of a plan made on it: caches compare it. */
	uint64_t writes;
};

/*
 * Opens a regular file or block device. Writable block devices are opened
 * exclusively and refused while mounted (-EBUSY). Returns 0, or -errno
 * (-ENOENT, -EACCES, -EINVAL for an empty file); messages never repeat the
 * path.
 */
int imgp_image_open(struct imgp_image *img, const char *path, bool writable);
void imgp_image_close(struct imgp_image *img);
/*
 * Refuses (-EBUSY "... is mounted on /media/x") a block device that is
 * mounted or has a mounted partition; 0 for anything else.
 */
int imgp_blockdev_check_unmounted(const char *path);

/* ----------------------------------------------- part.c, part-mbr.c, part-gpt.c */

#define IMGP_GPT_NAME_MAX 108 /* 36 UTF-16 code units as UTF-8, worst case */

struct imgp_part {
	int number;              /* 1-based; MBR logical partitions from 5 */
	uint64_t start;          /* bytes from the start of the image */
	uint64_t size;           /* bytes */
	char type[40];           /* MBR "0x0c"; GPT type GUID, lower case */
	const char *type_name;   /* "W95 FAT32 (LBA)", "Linux filesystem", or NULL */
	char name[IMGP_GPT_NAME_MAX + 1]; /* GPT partition name, "" on MBR */
	char uuid[40];           /* GPT unique partition GUID; MBR "DISKID-NN" */
	bool bootable;           /* MBR active flag / GPT legacy BIOS bootable */
	bool logical;            /* MBR logical partition inside an extended one */
	bool container;          /* MBR extended partition (holds no filesystem) */
	/* Filled by imgp_table_probe_fs(): */
	char fstype[16];         /* "vfat", "ext4", ...; "" when unknown */
	char fslabel[64];
	char fsuuid[40];
};

struct imgp_table {
	const char *label;       /* "gpt" or "dos" */
	char id[40];             /* disk GUID, or MBR disk identifier "0x1234abcd" */
	unsigned sector_size;
	bool used_backup;        /* GPT: primary header bad, backup header used */
	size_t nparts;
	struct imgp_part *parts; /* in table order */
};

/*
 * Finds a partition by number ("2"), GPT name or filesystem label, in that
 * order. Returns it, or NULL with a failure message listing the partitions.
 */
const struct imgp_part *imgp_table_find(const struct imgp_table *tab,
					const char *spec);
/* Short name used in messages: "p2". */
#define IMGP_PART_FMT "p%d"

/* -------------------------------------------------- fs.c, fs-fat.c, fs-ext.c */

/* An open filesystem of one partition (its backend's state): opaque. */
struct imgp_fs;
struct imgp_reader;

/*
 * Opens the filesystem of a partition read-only, with the backend that
 * handles part->fstype, into a new handle (*fs; img must stay open while
 * it is used). -ENOTSUP when no backend does, -ENOMEM; errors carry
 * "pN (type): " context. imgp_fs_free() closes and frees it (NULL: none).
 */
int imgp_fs_new(struct imgp_fs **fs, struct imgp_image *img,
		const struct imgp_part *part);
void imgp_fs_free(struct imgp_fs *fs);
struct imgp_fit;

/* --------------------------------------------------------------- journal.c */

struct imgp_journal;

/*
 * 0 when there is no journal at path or it is finished; -EBUSY "an
 * interrupted imgpatch run left ..." when a run died before finishing.
 */
int imgp_journal_check(const char *path);
/*
 * Puts the old bytes of the journal at path back into img and checks each
 * region's SHA-256. After a finished patch, a region that holds neither the
 * old nor the patched bytes is refused (-EEXIST) unless force. Returns 0
 * and the regions and bytes restored, or -errno.
 */
int imgp_journal_undo(const char *path, struct imgp_image *img, bool force,
		      size_t *restored, uint64_t *bytes);

/* ------------------------------------------------------------------ lock.c */

/*
 * Takes an exclusive lock on the image for the whole run (flock), so two
 * runs cannot interleave. -EBUSY "locked by another imgpatch run (pid N)"
 * when someone holds it. Returns an fd to keep open (the lock lives as long
 * as it) or -errno.
 */
int imgp_lock(const char *path);
/*
 * The same lock, taken on the file already open as fd (path names it):
 * -EAGAIN when path no longer names that file. Returns a new fd to keep
 * open, or -errno.
 */
int imgp_lock_fd(int fd, const char *path);
void imgp_unlock(int fd);

/* ------------------------------------------------------------------- fit.c */

/*
 * Reads byte ranges of one file (a file inside a partition, a buffer):
 * read() returns 0 or -errno with a message; close() (may be NULL) frees ctx.
 */
struct imgp_reader {
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
	void (*close)(void *ctx);
	void *ctx;
	uint64_t size;
};

struct imgp_fit_elided;

struct imgp_fit_image {
	char *name;              /* node name under /images */
	int index;               /* position among /images children (dumpimage -p) */
	int node;                /* its node's offset in the FIT's structure */
	char *type;              /* "kernel", "ramdisk", "flat_dt", ... */
	char *description;       /* may be "" */
	char *compression;       /* "none", "gzip", ... */
	char *hash_algos;        /* "sha1" or "crc32,sha1"; "" when none */
	bool external;           /* data-offset / data-position rather than data */
	/* Inside the FIT blob (bounds-checked), or NULL until imgp_fit_payload() */
	const uint8_t *data;
	size_t size;
	uint64_t pos;            /* where a payload still NULL lies in the FIT file */
	uint8_t *loaded;         /* the payload, when read piecewise (owned) */
};

struct imgp_fit_conf {
	char *name;
	char *description;
	char *kernel;            /* image node names; NULL when absent */
	char *fdt;
	bool is_default;
};

struct imgp_fit {
	/* The whole FIT file, or its skeleton when read piecewise (owned). */
	uint8_t *blob;
	size_t size;             /* of the FIT file */
	uint32_t totalsize;      /* of the FIT structure in the file */
	struct imgp_reader rd;   /* piecewise: the file (owned); else read NULL */
	struct imgp_fit_elided *elided;
	size_t nelided;
	size_t nimages;
	struct imgp_fit_image *images;
	size_t nconfs;
	struct imgp_fit_conf *confs;
};

/* -------------------------------------------------------------------- dt.c */

/* A device tree blob in a buffer that can grow. */
struct imgp_dtb {
	void *fdt;
	size_t bufsize;
};

/*
 * The tree as dtc -I dtb -O dts would print it (same layout, so that two
 * renderings diff line by line). Returns 0 or -errno.
 */
int imgp_dt_to_dts(const struct imgp_dtb *dtb, struct imgp_buf *out);

/* SD/eMMC controller nodes and the properties that limit their speed. */
struct imgp_dt_mmc_prop {
	char name[32];
	char value[128];         /* formatted; "" for an empty (boolean) property */
};
/* What a controller's slot holds, as the binding properties tell. */
enum imgp_dt_mmc_kind {
	IMGP_DT_MMC_SD,          /* a removable card slot */
	IMGP_DT_MMC_EMMC,        /* a soldered eMMC */
	IMGP_DT_MMC_SDIO,        /* an SDIO function (Wi-Fi, Bluetooth) */
};
struct imgp_dt_mmc {
	char path[256];
	char status[16];         /* "okay" when absent */
	enum imgp_dt_mmc_kind kind;
	size_t nprops;
	struct imgp_dt_mmc_prop props[16];
};

/* --------------------------------------------------------------- bootscr.c */

/* A U-Boot legacy image (uImage) holding a script. */
struct imgp_bootscr {
	char name[33];
	uint32_t time;
	uint8_t os, arch, type, comp;
	char *text;              /* the script (first part), NUL-terminated, owned */
	size_t text_len;
};

/* ----------------------------------------------------------------- fstab.c */

struct imgp_fstab_entry {
	int line;                /* 1-based line number */
	char *spec, *file, *vfstype, *options; /* unescaped fields, owned */
	int freq, passno;
};

/* --------------------------------------------------------------- cmdline.c */

/*
 * Kernel command line edits. edits is a list of "+WORD" (added when no word
 * has its name), "+KEY=VALUE" (the first word named KEY takes it, later
 * ones are dropped; appended when there is none), "++WORD" (added unless
 * that very word is there, other words of its name kept: console= counts
 * each time it is given), "-KEY" (drops every word named KEY, with or
 * without a value) and "-KEY=VALUE" (drops that word), joined by commas: a
 * comma before '+' or '-' outside double quotes starts the next edit, so
 * values keep theirs ("+console=ttyS2,1500000"). An added word followed by
 * " before KEY" goes before the first word named KEY instead of at the end
 * ("++console=serial0,115200 before root", as raspi-config puts it).
 * Words split as the kernel splits them (double quotes group blanks); no
 * edit looks past "--", and a new word goes before it.
 */
/* Checks an edit list. 0 or -EINVAL naming the edit at fault. */
int imgp_cmdline_check(const char *edits);
/*
 * The value of the first word named key ("rootflags" in "rootflags=a,b":
 * "a,b", NUL-terminated) before "--". Returns 1 when found, 0 when no
 * word has that name and a value, -ENOMEM.
 */
int imgp_cmdline_get(const char *line, size_t len, const char *key,
		     struct imgp_buf *value);

/* ------------------------------------------------------------------ disk.c */

/* An opened image with its partition table and identified filesystems. */
struct imgp_disk {
	struct imgp_image img;
	struct imgp_table tab;
};

/*
 * Opens an image, reads its partition table and probes every partition's
 * filesystem. Returns 0 or -errno; the message does not repeat the path
 * (callers print "imgpatch: PATH: message").
 */
int imgp_disk_open(struct imgp_disk *disk, const char *path, bool writable);
void imgp_disk_close(struct imgp_disk *disk);

/* ---------------------------------------------------- survey.c, bootpath-*.c */

/*
 * One survey of an image, read once with one set of rules: the partitions'
 * filesystems, the boot and the root partition, how the board picks its
 * device tree (its boot path: a FIT, the boot script and the hook file the
 * script honours; one file per way of booting, bootpath-*.c), the trees
 * there are and the root fstab. info prints a survey, doctor judges one,
 * patch and the recipes resolve "boot" and "root" through one; nothing else
 * looks these things up.
 *
 * A fact that could not be read keeps why: its rc is 0 when it was found
 * (and read), -ENOENT when it is not there, another -errno when looking or
 * reading failed (a corrupt directory block, a dangling link, a bad CRC);
 * error holds the library's message for any non-zero rc.
 *
 * The rules: the boot partition is the one of the first boot path that
 * recognises itself (the FIT's partition, else the first with an
 * extlinux.conf, else the first with Armbian's /armbianEnv.txt or
 * /boot/armbianEnv.txt, else the first with /boot.scr.uimg, else the first
 * with /boot.scr, else the first with the Raspberry Pi firmware's
 * /config.txt beside its trees or firmware), else the first with
 * /config.txt or /extlinux/extlinux.conf. The boot script is looked for
 * on the boot partition only, and so is the hook file when a boot path
 * was recognised (else on the first partition that has it); the root
 * partition is the first with /etc/fstab. "First" is in table order; a filesystem that
 * does not open or a lookup that fails does not hide a file elsewhere.
 */
#define IMGP_FIT_PATH "/image.fit"
/* The tree a boot script loads instead of the FIT's when it is there. */
#define IMGP_OVERRIDE_NAME "user-override.dtb"
#define IMGP_OVERRIDE_PATH "/" IMGP_OVERRIDE_NAME
#define IMGP_FSTAB_PATH "/etc/fstab"

/* What a survey reads beyond the filesystems and the boot and root partitions. */
#define IMGP_SURVEY_BOOT  (1u << 0) /* FIT structure, boot script, hook file, the boot path's trees */
#define IMGP_SURVEY_TREES (1u << 1) /* + every FIT hash verified, each tree's SD/eMMC controllers */
#define IMGP_SURVEY_FSTAB (1u << 2) /* the root's /etc/fstab and its "/" entry */
/* + the effective trees (effective.c); with TREES each one's controllers, and its warnings kept, not logged */
#define IMGP_SURVEY_EFFECTIVE (1u << 3)

struct imgp_survey_opts {
	const char *fit_path;    /* NULL: IMGP_FIT_PATH */
	unsigned what;           /* IMGP_SURVEY_* */
};

enum imgp_hash_state { IMGP_HASH_NONE, IMGP_HASH_OK, IMGP_HASH_BAD, IMGP_HASH_UNSUPPORTED };

struct imgp_survey_hash {
	enum imgp_hash_state state;
	char *error;             /* why the hashes do not verify */
};

/* MISSING: an effective tree's base tree is not there (not a failure to read). */
enum imgp_tree_state {
	IMGP_TREE_OK, IMGP_TREE_COMPRESSED, IMGP_TREE_SKIPPED, IMGP_TREE_ERROR,
	IMGP_TREE_MISSING,
};

/* A device tree there is, with its SD/eMMC controllers. */
struct imgp_survey_tree {
	/* NULL: the hook file IMGP_OVERRIDE_PATH (in trees), a file (in effective_trees) */
	const struct imgp_fit_image *image;
	enum imgp_tree_state state;
	char *error;             /* SKIPPED, ERROR: why */
	size_t nmmc;
	struct imgp_dt_mmc *mmc;
};

/* The FIT at the survey's fit_path. */
struct imgp_survey_fit {
	const struct imgp_part *part; /* where it is, or where looking failed */
	int rc;
	char *error;
	bool parsed;
	struct imgp_fit fit;
	struct imgp_survey_hash *hash; /* IMGP_SURVEY_TREES: one per image */
};

/* The boot script of the boot partition. */
struct imgp_survey_script {
	const struct imgp_part *part; /* the boot partition; NULL: there is none */
	const char *path;        /* imgp_bootscr_paths, or under /boot/; NULL: none */
	int rc;
	char *error;
	int parse_rc;            /* -EBADMSG: a CRC does not match */
	size_t size;
	bool parsed;
	/* It mentions IMGP_OVERRIDE_NAME: the one answer info, doctor and patch use. */
	bool loads_override;
	struct imgp_bootscr scr;
};

/* IMGP_OVERRIDE_PATH on the boot path's partition (with none: the first that has it). */
struct imgp_survey_override {
	const struct imgp_part *part; /* where it was looked for; NULL: nowhere */
	int rc;
	char *error;
	bool exists;
	struct imgp_buf data;    /* IMGP_SURVEY_TREES: its bytes */
};

/* The root partition's /etc/fstab. */
struct imgp_survey_fstab {
	const struct imgp_part *part; /* the root, or where looking failed */
	int rc;
	char *error;
	char *text;              /* NUL-terminated; NULL when not read */
	size_t len;
	int root_rc;             /* the "/" entry: 0, -ENOENT (not a problem), -EINVAL */
	char *root_error;
	struct imgp_fstab_entry root;
};

/* A device tree a boot path can boot, and the overlays it applies to it. */
struct imgp_survey_bootdt {
	char *model;             /* the boards it is for ("pi4"); NULL: the board */
	char *path;              /* the tree, on the boot path's partition */
	size_t noverlays;
	/*
	 * In the order applied: overlay files; on a Raspberry Pi a file with
	 * its ",param=value" list, or the base tree's own dtparam= list.
	 */
	char **overlays;
	/*
	 * Where U-Boot bounds the tree's room (fdt apply in place): before
	 * overlay i, room[i] >= 0 shrinks the tree to its blocks plus room[i]
	 * bytes (fdt_shrink_to_minimum: "fdt resize", sysboot's 8 KiB), -1
	 * leaves its size. NULL: the loader gives what an overlay needs.
	 */
	long *room;
	/* What the result hangs on that the image does not hold (a board variable). */
	size_t nnotes;
	char **notes;
	/*
	 * U-Boot scripts the loader sources after the overlays, whose fdt
	 * commands edit the tree (Armbian's fixup.scr), and the variables they
	 * see ("name=value", the last of a name wins: env import -t).
	 */
	size_t nscripts;
	char **scripts;
	size_t nscript_vars;
	char **script_vars;
	/* The file its kernel command line is read from, where that differs by tree; NULL: the path's. */
	char *cmdline;
	/*
	 * Where the distribution's update takes this tree from at the next
	 * kernel, on the root (flash-kernel's /etc/flash-kernel/dtbs/NAME): an
	 * edit in place is written there too. NULL: none.
	 */
	char *kept_in;
	char *label;             /* the extlinux label that boots it; NULL: none */
	char *append;            /* that label's kernel arguments; NULL: none */
	/*
	 * The label sysboot boots when this one fails (boot_unattempted_labels:
	 * the next in the file that loads), with its tree for the same board
	 * (path NULL: U-Boot's own); NULL: none, the boot ends there.
	 */
	struct imgp_survey_bootdt *next;
	/*
	 * The one the image's own U-Boot picks where the boot path leaves the
	 * choice to it (sv->uboot.tree): without --model, this one.
	 */
	bool uboot_default;
};

/* How the recognised boot path picks its tree (IMGP_SURVEY_BOOT). */
struct imgp_survey_bootinfo {
	char *summary;           /* "U-Boot script /boot/boot.scr (Armbian), fdtfile ..." */
	int rc;                  /* reading its configuration failed */
	char *error;
	size_t ndts;
	struct imgp_survey_bootdt *dts;
	/*
	 * The U-Boot variable that picks one of dts at boot ("fdtfile": an
	 * extlinux fdtdir); NULL: the boot path names each tree itself.
	 */
	const char *chooser;
	/*
	 * What the distribution's own update does to the boot configuration
	 * ("extlinux.conf is regenerated by u-boot-update ..."); NULL: nothing
	 * known rewrites it.
	 */
	char *updates;
	/* The overlays the booted entry lists that such an update drops. */
	size_t ndropped;
	char **dropped;
};

/*
 * The U-Boot an image carries before its first partition (uboot-env.c),
 * read, never run: its version and what its default environment says.
 */
struct imgp_uboot {
	const char *where;       /* "u-boot.itb at sector 16384 (Rockchip)"; NULL: none found */
	uint64_t offset;         /* where that is, in bytes */
	char *version;           /* "2023.01+dfsg-2+deb12u3"; NULL: no version string */
	size_t nenv;             /* settings in its default environment */
	char *fdtfile, *board, *board_name, *soc, *vendor; /* as set there; NULL: unset */
	/*
	 * The tree U-Boot loads where the boot path leaves the choice to it:
	 * fdtfile (not "undefined"), else ${soc}-${board}.dtb as its extlinux
	 * code makes it; NULL: its environment names none.
	 */
	char *tree;
	const char *tree_from;   /* "fdtfile" or "${soc}-${board}.dtb" */
};

struct imgp_bootpath;
struct imgp_uboot_menu;

struct imgp_survey {
	struct imgp_disk *disk;
	const char *fit_path;
	/* Per partition: its filesystem, opened once, open while the survey lives. */
	struct imgp_fs *fs;
	bool *fs_open;
	int *fs_rc;              /* why it does not open (0: open, or not supported) */
	char **fs_error;
	const struct imgp_bootpath *bootpath; /* NULL: no boot path recognised */
	const char *bootpath_name; /* "fit", "extlinux", "script", "armbian", "rpi", "efi"; NULL */
	struct imgp_survey_bootinfo bootinfo; /* IMGP_SURVEY_BOOT, with a boot path */
	/* What the generator of the boot configuration reads (bootinfo.updates); NULL: none. */
	struct imgp_uboot_menu *generator;
	struct imgp_uboot uboot; /* IMGP_SURVEY_BOOT: the image's own U-Boot */
	const struct imgp_part *boot;
	int boot_rc;
	char *boot_error;
	const struct imgp_part *root;
	int root_rc;
	char *root_error;
	/*
	 * No root: the first partition whose filesystem imgpatch cannot read
	 * and a root may be on (btrfs, xfs, f2fs, squashfs, LUKS); root_error
	 * then names it. NULL otherwise.
	 */
	const struct imgp_part *root_unread;
	/* IMGP_SURVEY_BOOT (the FIT is looked for always: it marks the boot partition) */
	struct imgp_survey_fit fit;
	struct imgp_survey_script script;
	/* The file the boot script must load for a fixed tree to count; NULL: none. */
	const char *hook;
	bool hook_loaded;        /* the boot script mentions hook */
	struct imgp_survey_override override;
	/* IMGP_SURVEY_TREES: the FIT's fdt images, then the hook file's tree. */
	size_t ntrees;
	struct imgp_survey_tree *trees;
	/*
	 * IMGP_SURVEY_EFFECTIVE: the trees the board boots, as
	 * imgp_effective_build() makes them; with IMGP_SURVEY_TREES also
	 * effective_trees[i], the controllers of effective[i] (when the boot
	 * ends with no tree, IMGP_TREE_MISSING or IMGP_TREE_ERROR and why),
	 * and the warnings met building each in its warnings, not logged.
	 */
	size_t neffective;
	struct imgp_effective *effective;
	struct imgp_survey_tree *effective_trees;
	/* IMGP_SURVEY_FSTAB */
	struct imgp_survey_fstab fstab;
};

/*
 * Surveys an opened disk (only read): every filesystem is opened and kept
 * open until imgp_survey_free(); what opts->what asks for is read. Returns
 * 0 with every fact's failure recorded in sv, or -ENOMEM.
 */
int imgp_survey_open(struct imgp_survey *sv, struct imgp_disk *disk,
		     const struct imgp_survey_opts *opts);
/* Closes the filesystems and frees what the survey holds (not the disk). */
void imgp_survey_free(struct imgp_survey *sv);
/*
 * imgp_fs_read_file(), except that a symbolic link whose target does not
 * exist says so ("dangling symbolic link to X"), not "not
 * found": what the survey and every command read a file with.
 */
int imgp_survey_read_file(struct imgp_fs *fs, const char *path, size_t max,
			  struct imgp_buf *out);
/* Makes a recorded failure (rc, error) the current one again; returns rc. */
int imgp_survey_fail(int rc, const char *error);
/*
 * The kernel command line the boot path keeps for the tree model names
 * (NULL: that of its trees, the same for each): into line (NUL-terminated;
 * empty when none is set), where it is kept into where ("p1 (vfat):
 * /cmdline.txt, the first line"), and what the loader adds itself into
 * loader (empty: nothing known). Returns 0, or -ENOENT (no boot path, no
 * such tree, no such file), -ENOTSUP (kept where imgpatch cannot edit
 * it: the message names the script line), -EINVAL (its trees differ:
 * the message lists them), -ENOMEM.
 */
int imgp_survey_cmdline(struct imgp_survey *sv, const char *model, struct imgp_buf *line,
			struct imgp_buf *where, struct imgp_buf *loader);

/* ----------------------------------------------------------- effective.c */

/*
 * The tree the board really boots, built from a survey (IMGP_SURVEY_BOOT):
 * the boot path's base tree with its overlays applied in order, as its
 * loader applies them. One per tree the boot path can boot (one per model
 * where it boots several). For a FIT: the boot script's override file
 * when the script loads it and it is there (it replaces every FIT tree),
 * else each fdt image of the FIT.
 *
 * When an overlay fails, the tree is what the board then boots, and rc
 * and error say why: a missing overlay file is skipped (every loader
 * guards its load); one that does not apply makes Armbian's boot.scr
 * reload the base tree (no overlay at all), the Raspberry Pi firmware
 * skip it, and U-Boot's "fdt apply" (extlinux FDTOVERLAYS, a user.scr)
 * leave no valid tree, since libfdt erases a tree's magic when an apply
 * fails: the boot fails there (dtb.fdt NULL). A parameter line (the
 * Raspberry Pi's dtparam=) takes the boot path's own apply method; without
 * one it is left out. A survey with IMGP_SURVEY_EFFECTIVE holds them
 * (sv->effective), for every reader of that survey.
 */
struct imgp_effective {
	char *model;             /* the boards it is for ("pi4", a FIT configuration); NULL: the board */
	const char *boot_path;   /* the survey's bootpath_name: "fit", "armbian", ... */
	char *provenance;        /* "boot path armbian: /boot/dtb/x.dtb + /boot/dtb/overlay/y.dtbo" */
	const char *booted;      /* in provenance, after "boot path NAME: ": the tree and the entries applied */
	const struct imgp_part *part; /* where the base tree and its overlays are */
	char *path;              /* the base tree's file; for a FIT tree the FIT's path */
	const struct imgp_fit_image *image; /* the base's FIT image; NULL: a file */
	const struct imgp_survey_bootdt *bootdt; /* the boot path's entry; NULL for a FIT */
	/* Whose tree dtb is: bootdt, or the label sysboot went on to when it failed. */
	const struct imgp_survey_bootdt *ran;
	size_t napplied;         /* overlays in the tree */
	bool reverted;           /* a failure made the loader boot the base tree alone, or the next label */
	size_t fdt_total;        /* the base tree's total size as loaded (its header's) */
	struct imgp_dtb dtb;     /* the tree booted; fdt NULL: none (rc says why) */
	/*
	 * 0, or the failure (-errno): with failed set, -ENOENT when that
	 * overlay file is not there, another when it does not read or apply
	 * (which wins over a missing one); with failed NULL, the base tree's.
	 */
	int rc;
	char *error;             /* its message, with what the loader does then */
	char *failed;            /* the overlay that failed; NULL: the base tree did */
	size_t nwarnings;        /* built for a survey: the warnings met building it */
	char **warnings;
};

/*
 * Builds the effective trees of sv into *trees (*n of them; none when the
 * boot path names no tree, or there is none). A tree that cannot be built
 * keeps its failure in its rc/error. Returns 0, or -ENOMEM.
 */
int imgp_effective_build(struct imgp_survey *sv, struct imgp_effective **trees,
			 size_t *n);
void imgp_effective_free(struct imgp_effective *trees, size_t n);
/* The name a tree is shown by: its model, else its FIT image's name, else its path. */
const char *imgp_effective_name(const struct imgp_effective *t);
/*
 * The tree named model (its model, its FIT image's name, or its path as
 * patch --model takes it: whole, its file name, or its tail such as
 * "rockchip/x.dtb"); with model NULL, the only tree. -ENOENT "no tree
 * 'x' (have: a, b)", -EEXIST "N trees (a, b): name one" when model is
 * NULL and there are several, or when model names several, -ENOENT "no
 * tree" when there is none.
 */
int imgp_effective_pick(const struct imgp_effective *trees, size_t n,
			const char *model, const struct imgp_effective **out);
/*
 * imgp_effective_pick for a --model option: its errors name the option;
 * past a dozen trees one naming none is "no such tree among the
 * N" (a name error: imgp_err_is_name) rather than a list of names.
 */
int imgp_effective_pick_model(const struct imgp_effective *trees, size_t n,
			      const char *model, const struct imgp_effective **out);

/* ---------------------------------------------------------------- copy.c */

/* Progress of long work: done of total bytes; called at most a few times a second. */
typedef void (*imgp_progress_fn)(const char *what, uint64_t done,
				 uint64_t total, void *ctx);
void imgp_progress_set_handler(imgp_progress_fn fn, void *ctx);
/*
 * Long work (unpacking, copying, packing, checksumming) stops, failing
 * with -EINTR "interrupted", at its next progress once *flag is non-zero
 * (a caller's signal handler sets it); NULL: never.
 */
void imgp_interrupt_set(const volatile sig_atomic_t *flag);

/*
 * Copies the file or device src to dst (created with mode 0644, or
 * truncated), keeping src's holes: ranges that are holes in src stay
 * unwritten in dst. Zero blocks that src really stores are copied, because
 * a bmap made from dst must still map them (an unused GPT entry or a free
 * FAT sector is data a card needs). Returns 0 or -errno.
 */
int imgp_copy_sparse(const char *src, const char *dst);

/* ------------------------------------------------------------ tempfiles.c */

/* Removes the temporary file path and takes it off the list. */
void imgp_temp_remove(const char *path);
/*
 * Puts the temporary file tmp in place as final, durably: syncs tmp,
 * renames it, takes it off the list, syncs final's folder. 0 or -errno.
 */
int imgp_temp_commit(const char *tmp, const char *final);
/*
 * Removes every temporary file this process has on the list. Only unlink()
 * and atomic operations: safe in a signal handler and at exit.
 */
void imgp_temp_remove_all(void);
/* $TMPDIR, or /tmp. */
const char *imgp_tmpdir(void);
/*
 * Creates "DIR/.BASE.PID.XXXXXX" (PID: this process) with imgp_temp_create
 * and keeps it locked until it is renamed or removed; *path is malloc'd.
 * Returns the open fd or -errno with a message (*path NULL).
 */
int imgp_temp_make(const char *dir, const char *base, char **path);
/*
 * Removes from dir the temporary files that imgp_temp_make made for base
 * (any base when NULL) whose process is gone and that nobody holds locked:
 * what a killed run left. Appends "DIR/NAME" of each, comma-separated, to
 * removed (may be NULL); returns how many were removed.
 */
int imgp_temp_sweep(const char *dir, const char *base, struct imgp_buf *removed);

/* ----------------------------------------------------------------- patch.c */

/*
 * A patch is planned first and written once: every operation below reads
 * the image (or the content an earlier operation planned for the same file)
 * and records whole-file replacements; nothing touches the image until
 * imgp_patch_commit(). The CLI's patch options and recipe steps both call
 * these operations.
 */
/* Bounds on what a patch reads into memory. */
#define IMGP_FIT_MAX ((size_t)1 << 30)
#define IMGP_DTB_MAX ((size_t)64 << 20)

struct imgp_dt_plan;

struct imgp_patch {
	struct imgp_disk *disk;
	/* The device tree being edited, loaded by imgp_patch_load_fdt(). */
	struct imgp_dtb dtb;
	bool have_dtb;
	const struct imgp_part *boot_part;
	char *dtb_origin;        /* "fdt-x.dtb in p1 /image.fit" */
	char *fit_path;          /* the FIT the tree came from; NULL: a .dtb file */
	char *fit_image;         /* its image node */
	/*
	 * The edits go back where the tree came from (the FIT rewritten): a
	 * property already absent may be an earlier run's work, not a typo.
	 */
	bool dt_in_place;
	/* The way a recipe's tree goes, as the caller asked (imgp_patch_set_via; 0: the recipe's). */
	unsigned via_asked;
	struct imgp_buf dtb_notes;
	struct imgp_buf dtb_before; /* the loaded tree as DTS, for the plan's diff */
	struct imgp_dtb dtb_source; /* the tree as loaded, before this run's edits */
	size_t nchanges;
	struct imgp_change *changes;
	/* The device tree edits as made, and the tree the boot path boots (patch-via.c). */
	struct imgp_dt_plan *dt_plan;
	/* Where "boot", "root" and the FIT are: surveyed once, when first asked. */
	struct imgp_survey *survey;
	/* FITs loaded other than the survey's (imgp_patch_load_fit). */
	struct imgp_fit **fits;
	size_t nfits;
};

void imgp_patch_init(struct imgp_patch *patch, struct imgp_disk *disk);
void imgp_patch_free(struct imgp_patch *patch);
/*
 * Loads the fdt image spec (name or dumpimage index; NULL: the only fdt)
 * from the FIT at fit_path, found on whichever partition has it, verifying
 * its hashes. That partition becomes the boot partition.
 */
int imgp_patch_load_fdt(struct imgp_patch *patch, const char *fit_path,
			const char *spec);
/* Deletes NODE's property in the loaded tree; an absent one is noted. */
int imgp_patch_dt_delete(struct imgp_patch *patch, const char *node,
			 const char *prop);
/* The same, why (may be NULL) heading the plan's note. */
int imgp_patch_write_dtb_note(struct imgp_patch *patch, const char *path,
			      const char *why);
/*
 * Plans rewriting the FIT the tree came from with the edited tree (see
 * imgp_fit_rewrite); why (may be NULL) heads the plan's note ("via fit:
 * ..."). -EINVAL when the tree came from a .dtb file.
 */
int imgp_patch_write_fit(struct imgp_patch *patch, const char *why);
/*
 * Checks that the boot partition's boot script (/boot.scr.uimg or
 * /boot.scr), as the patch would leave it, mentions word. Returns 1 when
 * it does, 0 when it does not or there is no boot script (the message says
 * which), <0 on a script that cannot be read or parsed.
 */
int imgp_patch_boot_hook(struct imgp_patch *patch, const char *word);
/*
 * Applies fstab option edits to the entry at mountpoint in /etc/fstab of
 * the root partition (root: a partition spec, or NULL for the first
 * partition that has /etc/fstab).
 */
int imgp_patch_fstab(struct imgp_patch *patch, const char *root,
		     const char *mountpoint, const char *ops);
/* Sets NODE's property from a dtc-style value ("<1 2>", "\"s\"", "[00]", ""). */
int imgp_patch_dt_set(struct imgp_patch *patch, const char *node,
		      const char *prop, const char *value);
/* Deletes a node (any NODE spec) and its subtree. */
int imgp_patch_dt_delete_node(struct imgp_patch *patch, const char *node);
/* Applies a compiled overlay to the loaded tree; name is for messages. */
int imgp_patch_dt_overlay(struct imgp_patch *patch, const void *dtbo,
			  size_t len, const char *name);
/*
 * Applies kernel command line edits (see imgp_cmdline_edit) to the line
 * the boot path keeps for the tree model names (NULL: its trees' line):
 * the plan shows it before and after. Errors as imgp_survey_cmdline(),
 * and -EINVAL for an edit list that does not parse.
 */
int imgp_patch_cmdline(struct imgp_patch *patch, const char *model, const char *edits);

/*
 * How an edited tree reaches the board (patch-via.c): an override file a
 * boot script loads, the FIT rewritten, a new overlay in the boot path's
 * list, or the tree file edited in place.
 */
enum imgp_via {
	IMGP_VIA_DEFAULT,        /* chosen from the boot path */
	IMGP_VIA_OVERRIDE,
	IMGP_VIA_FIT,
	IMGP_VIA_OVERLAY,
	IMGP_VIA_FILE,
};
/*
 * The way a recipe's write-tree step sends its tree, whatever the recipe
 * says (apply --via); IMGP_VIA_DEFAULT: the recipe's own, else the boot
 * path's.
 */
void imgp_patch_set_via(struct imgp_patch *patch, enum imgp_via via);
/*
 * The tree's edits go back where it came from (a FIT rewritten in place):
 * deleting a property already absent is then no typo but may be an
 * earlier run's work.
 */
void imgp_patch_set_dt_in_place(struct imgp_patch *patch, bool in_place);
/* Parses one of those four names. Returns 0 or -EINVAL. */
int imgp_via_parse(const char *name, enum imgp_via *out);
/*
 * True when the image's recognised boot path names plain tree files
 * (extlinux, Armbian, Raspberry Pi, a boot script), not a FIT; false also
 * when no boot path is recognised.
 */
bool imgp_patch_boots_files(struct imgp_patch *patch);
/*
 * Loads the tree the recognised boot path boots (not a FIT's: extlinux,
 * Armbian, Raspberry Pi...) as the tree to edit; model picks one of
 * several (a model filter "pi4", the file name or its path). -ENOENT when
 * the path names no tree, -EINVAL when it boots several and model is NULL
 * (the message lists them).
 */
int imgp_patch_load_booted(struct imgp_patch *patch, const char *model);
/*
 * The way for the tree imgp_patch_load_booted() loads: asked, or by
 * default a new overlay where the path applies a list of them and no
 * edit deletes (an overlay cannot), else the tree file in place. *why is
 * the plan's line saying so. -EINVAL naming the alternative when asked
 * cannot work (override and fit need a FIT; overlay cannot delete or
 * needs a list).
 */
int imgp_patch_via_choose(struct imgp_patch *patch, enum imgp_via asked,
			  bool deletes, enum imgp_via *via, const char **why);
/*
 * Plans the edited tree the way via (IMGP_VIA_OVERLAY or IMGP_VIA_FILE)
 * says: each --overlay file and each run of property sets a new overlay
 * (name, else "imgpatch-HASH") registered in the path's list, checked to
 * give the edited tree when applied; or the tree file rewritten.
 */
int imgp_patch_write_via(struct imgp_patch *patch, enum imgp_via via,
			 const char *why, const char *name);

/* Number of planned changes that really change a file. */
size_t imgp_patch_pending(const struct imgp_patch *patch);
/*
 * Appends the human-readable plan (before/after of each change) to out.
 * Returns 0, -ENOMEM, or -EINVAL when SOURCE_DATE_EPOCH is not a number of
 * seconds (checked here, so that a bad value stops a run before its plan).
 */
int imgp_patch_describe(const struct imgp_patch *patch, struct imgp_buf *out);
/*
 * What imgp_patch_commit() checks before it writes, with nothing written:
 * every pending change is made in memory on the planned-on image (an ext
 * filesystem checked for damage first) and dropped. For --dry-run, so that
 * it refuses what the real run refuses. Returns 0 or the commit's -errno.
 */
int imgp_patch_check(struct imgp_patch *patch);
/*
 * Writes every pending change into the image at path, which must have the
 * same layout as the one planned on (the image itself, or a copy of it).
 * Every write is first captured in memory; with a journal path the old bytes
 * of those regions are saved there (see journal.c) before the first byte of
 * the image is written. Returns 0 or -errno.
 */
int imgp_patch_commit(struct imgp_patch *patch, const char *path,
		      const char *journal);

/* ---------------------------------------------------------------- recipe.c */

/*
 * A recipe is a named, documented patch in a file (recipes/README.md has
 * the format). imgp_recipe_load() checks everything that needs no image;
 * imgp_recipe_bind() fixes the parameters; imgp_recipe_match() checks the
 * image before anything is planned; imgp_recipe_apply() runs the steps
 * through the patch operations above, so a recipe can do nothing that the
 * patch command cannot.
 */
struct imgp_recipe;

struct imgp_recipe_param {
	const char *name;
	const char *description;
	bool is_int;             /* type = "int" */
	bool has_min, has_max;
	long min, max;
	size_t nvalues;          /* allowed values; 0: any value of the type */
	const char *const *values;
	size_t naliases;         /* other names for values: --set NAME=GIVEN */
	const char *const *alias_given, *const *alias_value;  /* binds the value */
	const char *def;         /* default, or NULL */
	const char *pattern;     /* extended regex the whole value matches, or NULL */
	const char *pattern_text;  /* what the pattern means, for messages, or NULL */
	bool required;
	bool secret;             /* a password or key: reports show "set", never the value */
	const char *value;       /* the bound value; NULL while unbound */
};

/*
 * Parses and validates a recipe file. A recipe without required
 * parameters comes back bound to its defaults. Returns 0, or -ENOENT /
 * -EACCES for the file and -EINVAL for its content, with "FILE:LINE: ..."
 * messages.
 */
int imgp_recipe_load(const char *path, struct imgp_recipe **out);
void imgp_recipe_free(struct imgp_recipe *r);
/*
 * Resolves a recipe: a path (it contains '/', or ends in .recipe and
 * exists), else NAME.recipe in each of dirs (NULL-terminated) in order.
 * *path_out is malloc'd. Returns 0 or -ENOENT "no recipe 'x' (searched:
 * ...)".
 */
int imgp_recipe_find(const char *name_or_path, const char *const *dirs,
		     char **path_out);
/*
 * Loads every *.recipe in dirs (NULL-terminated; missing ones are skipped),
 * sorted by name; of two files with the same name the first dir's wins. A
 * recipe that fails to load is left out with a warning through the log
 * hook. Returns 0 or -errno.
 */
int imgp_recipe_list(const char *const *dirs, struct imgp_recipe ***out,
		     size_t *n);
void imgp_recipe_list_free(struct imgp_recipe **list, size_t n);

/* The file it was loaded from, and its texts ("" for absent optional ones). */
const char *imgp_recipe_path(const struct imgp_recipe *r);
const char *imgp_recipe_name(const struct imgp_recipe *r);
const char *imgp_recipe_summary(const struct imgp_recipe *r);
const char *imgp_recipe_description(const struct imgp_recipe *r);
const char *imgp_recipe_source(const struct imgp_recipe *r);
const char *imgp_recipe_risks(const struct imgp_recipe *r);
const char *imgp_recipe_undo(const struct imgp_recipe *r);
/* How many steps the recipe has. */
size_t imgp_recipe_nsteps(const struct imgp_recipe *r);
/*
 * Step i: its action's name, and what it does in one line (as "recipes
 * show" prints it) appended to text. -ERANGE, -ENOMEM.
 */
int imgp_recipe_step(const struct imgp_recipe *r, size_t i, const char **action,
		     struct imgp_buf *text);
/* Its parameters in file order; returns how many. */
size_t imgp_recipe_params(const struct imgp_recipe *r,
			  const struct imgp_recipe_param **params);
/*
 * Appends the text of "imgpatch recipes show": name, summary, description,
 * parameters, match rules, one line per step, source, risks, undo.
 */
int imgp_recipe_describe(const struct imgp_recipe *r, struct imgp_buf *out);
/*
 * Binds the parameters from "NAME=VALUE" strings, fills in defaults and
 * checks every step again with the values in place. -EINVAL for an unknown
 * parameter, a value out of its list or bounds, a missing required one or a
 * step the values make invalid; the recipe then keeps its earlier binding.
 */
int imgp_recipe_bind(struct imgp_recipe *r, const char *const *sets,
		     size_t nsets);
/*
 * Checks the match rules against the image of patch, planning nothing:
 * partition labels, files, fdt images in the FIT, and the root compatible
 * of the tree the first device tree step loads. Returns 0, -ENOENT
 * "expected X, found: Y" when the image does not fit, or another -errno.
 */
int imgp_recipe_match(const struct imgp_recipe *r, struct imgp_patch *patch);
/*
 * Runs the steps in order into patch (nothing is written before
 * imgp_patch_commit). Failures read "step 3 (dt-delete-property): ...".
 */
int imgp_recipe_apply(const struct imgp_recipe *r, struct imgp_patch *patch);

/* ------------------------------------------------------------ xz-image.c */

/* A multi-block .xz image patched block-wise (see xz-image.c). */
struct imgp_xz_image;
/* How many blocks were written to, and (*nblocks) how many there are. */
size_t imgp_xz_image_changed(const struct imgp_xz_image *xi, size_t *nblocks);

/* ------------------------------------------------- unpack.c, pack.c, bmap.c */

/* Container/compression of an image file, detected by content. */
enum imgp_format {
	IMGP_FMT_RAW,
	IMGP_FMT_XZ,
	IMGP_FMT_GZIP,
	IMGP_FMT_ZSTD,
	IMGP_FMT_BZIP2,
	IMGP_FMT_LZ4,
	IMGP_FMT_ZIP,            /* archives: must hold exactly one disk image */
	IMGP_FMT_7Z,
	IMGP_FMT_TAR,            /* tar, possibly compressed (.tar.xz, ...) */
};

/*
 * Every format is one entry of the registry in format/formats.c: its name,
 * --compress names, output suffix, how it is recognised and read, and how
 * it is written (levels, threads).
 */
/* "raw", "xz", "gzip", ... */
const char *imgp_format_name(enum imgp_format fmt);
/*
 * A format asked for by name ("xz", "gz" or "gzip", "none" or "raw"): only
 * those imgpatch can write. Returns 0 or -EINVAL.
 */
int imgp_format_parse(const char *name, enum imgp_format *fmt);
/* What imgp_format_parse() takes, for messages: "xz, gz, zst, bz2, lz4 or none". */
const char *imgp_format_choices(void);
/* True for a compressed stream imgpatch can also write (not raw, no archive). */
bool imgp_format_is_compressed(enum imgp_format fmt);

struct imgp_pack_opts {
	enum imgp_format format;   /* RAW (sparse copy), XZ, GZIP, ZSTD, BZIP2, LZ4 */
	int level;                 /* -1: the compressor's default */
	int threads;               /* 0: all cores (xz, zstd) */
};
/*
 * The output format a file name asks for: ".xz" XZ, ".gz" GZIP, ".zst"
 * ZSTD, ".bz2" BZIP2, ".lz4" LZ4, anything else RAW.
 */
enum imgp_format imgp_format_from_name(const char *path);

/* ----------------------------------------------------------------- work.c */

/*
 * Any image imgpatch reads (raw, compressed, archived, a block device) as
 * a raw working image, and the working image written back. A raw image is
 * worked on as it is; anything else is unpacked into a working copy the
 * caller names (and removes), block-wise when it is a multi-block .xz that
 * will be written back as .xz (only the blocks read are decoded, only those
 * written re-encoded).
 */
struct imgp_work {
	const char *image;          /* as given */
	enum imgp_format format;    /* of image, by content (a device: RAW) */
	const char *path;           /* the raw image to open: image, or the copy */
	struct imgp_xz_image *xz;   /* the block-wise .xz, or NULL */
	int fd;                     /* image, open read-only since the probe; -1 none */
};

struct imgp_work_opts {
	/* How the result is written back; NULL: only read (never block-wise). */
	const struct imgp_pack_opts *out;
	bool whole;                 /* unpack whole: a bmap of the output needs it */
	bool zero_holes;            /* see imgp_unpack() */
};

/*
 * Opens image read-only (w->fd, until imgp_work_close()) and detects its
 * format (a block device is not read: RAW). Then imgp_work_unpack() is
 * needed unless it is RAW. Returns 0 or -errno.
 */
int imgp_work_probe(struct imgp_work *w, const char *image);
/*
 * imgp_disk_open() of w->path read-only: a raw image through the file the
 * probe opened (not opened again), a working copy by its name. Returns 0
 * or -errno.
 */
int imgp_work_disk_open(struct imgp_work *w, struct imgp_disk *disk);
/*
 * Unpacks a compressed or archived image into copy (a file the caller
 * made), block-wise for a multi-block .xz written back as .xz with the
 * default level; w->path is copy then. Returns 0 or -errno.
 */
int imgp_work_unpack(struct imgp_work *w, const char *copy,
		     const struct imgp_work_opts *opts);
/*
 * Writes the working image into dst (created or truncated) as opts asks:
 * a block-wise .xz re-encodes only the blocks written to, other formats
 * compress it whole, RAW copies it sparse. Synced. Returns 0 or -errno.
 */
int imgp_work_pack(struct imgp_work *w, const char *dst,
		   const struct imgp_pack_opts *opts);
/* Releases w (the copy itself stays the caller's). */
void imgp_work_close(struct imgp_work *w);

/*
 * Writes a bmaptool 2.0 block map of the raw image at path (block size
 * 4096, mapped ranges from SEEK_DATA/SEEK_HOLE, a SHA256 per range and of
 * the map itself) to bmap_path. Returns 0 or -errno.
 */
int imgp_bmap_write(const char *path, const char *bmap_path);
/*
 * The same, with the mapped ranges from the image's filesystems
 * (imgp_fsmap_build): for an image unpacked from a compressed stream, whose
 * unused blocks are not holes. Returns 0 or -errno.
 */
int imgp_bmap_write_fs(const char *path, const char *bmap_path);

/* ------------------------------------------------------------- doctor*.c */

/*
 * The storage-performance findings of an image, read-only: doctor.c gathers
 * what the checks share (boot and root partitions, FIT, boot script, the
 * device trees the board may boot, /etc/fstab) once, then runs one check
 * per area (doctor-mmc.c, doctor-fstab.c, doctor-boot.c, doctor-kernel.c,
 * doctor-rpi.c). Finding ids are stable: the man page documents them.
 */
enum imgp_severity {
	IMGP_SEVERITY_INFO,
	IMGP_SEVERITY_WARNING,
};

/* "info" or "warning". */
const char *imgp_severity_name(enum imgp_severity sev);
/* Parses "info" or "warning". Returns 0 or -EINVAL. */
int imgp_severity_parse(const char *name, enum imgp_severity *out);

/*
 * One finding. Every string is printable ASCII (other bytes read from the
 * image become '?'), so it can go to a terminal as it is.
 */
struct imgp_finding {
	const char *id;          /* stable: "uhs-blocked", "fstab-discard", ... */
	enum imgp_severity severity;
	char *title;             /* what is wrong, one line */
	char *cost;              /* what it costs */
	/* Evidence: where it was seen; NULL or 0 when it does not apply. */
	int partition;
	char *file;              /* path inside the partition */
	char *fdt;               /* FIT image node of the tree */
	char *node;              /* device-tree node path */
	char *property;          /* property, mount option or config key */
	int line;                /* 1-based line in file */
	/* A device-tree finding: the effective tree it was seen in (effective.c). */
	char *boot_path;         /* "fit", "armbian", ...; NULL: a .dtb file no boot path names */
	char *model;             /* the tree's model; NULL: the board */
	char *tree;              /* its provenance: "boot path armbian: /boot/dtb/x.dtb + ..." */
	bool tree_in_fit;        /* the tree is a FIT's image, named by file and fdt already */
	/* The fix; NULL where there is none. */
	const char *recipe;      /* a shipped recipe that fixes it */
	char *recipe_args;       /* its "--set NAME=VALUE" arguments, "" for none */
	char *patch_args;        /* "imgpatch patch IMAGE" + these, shell-quoted */
	char *hint;              /* the fix in words */
};

struct imgp_doctor_opts {
	const char *fit_path;    /* the FIT file; NULL: "/image.fit" */
	const char *fdt;         /* only this FIT fdt (name or index); NULL: all */
	/*
	 * Only the tree the boot path boots for this model (a model, a tree's
	 * file name or path, as cat --dtb takes it). NULL: where U-Boot picks
	 * among the trees and the image's own U-Boot names one, that one;
	 * else every tree.
	 */
	const char *model;
};

struct imgp_doctor {
	size_t n;
	struct imgp_finding *findings;
	/* The tree judged alone, when one was picked among several (owned); NULL: all. */
	char *picked;
	const char *picked_by;   /* "--model", or "the image's U-Boot (fdtfile)" */
	size_t ntrees;           /* trees the boot path offers */
	/* With no pick among several trees U-Boot chooses from: the variable that chooses. */
	const char *chooser;
	/*
	 * The root was not read (a filesystem imgpatch has no backend for):
	 * which partition, and the findings that need it, not judged (owned);
	 * NULL when the root was read or there is none to read.
	 */
	char *root_unread;
};

/*
 * Examines an opened disk (it is only read) and lists every finding in
 * out, in check order. Returns 0 (with or without findings), or -errno
 * when the image cannot be read: a filesystem that does not open, a
 * corrupt FIT, boot script or fstab, an --fdt that names no fdt.
 */
int imgp_doctor_run(struct imgp_disk *disk, const struct imgp_doctor_opts *opts,
		    struct imgp_doctor *out);
void imgp_doctor_free(struct imgp_doctor *doc);
/*
 * Appends arg to out as a POSIX shell word: as it is when it holds only
 * safe characters, else in single quotes. Returns 0 or -ENOMEM.
 */
int imgp_shell_quote(struct imgp_buf *out, const char *arg);

/* -------------------------------------------------------------- fsmap.c */

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

/*
 * Maps the raw image at path from its filesystems, as e2image and
 * partclone do: everything outside partitions, the metadata and the used
 * clusters of FAT, the metadata and the used blocks of ext2/3/4 (inode
 * tables, journal and bitmaps included), and every block of a partition
 * whose filesystem is not one of those, or does not read as one. An image
 * without a partition table is mapped whole. Returns 0 or -errno.
 */
int imgp_fsmap_build(const char *path, struct imgp_fsmap *out);
void imgp_fsmap_free(struct imgp_fsmap *m);

/* ---------------------------------------------------------------- csv.c */

/* A CSV table: row 0 is the header; every row has ncols cells. */
struct imgp_csv {
	size_t nrows, ncols;
	char **cells;            /* row by row */
	unsigned *lines;         /* the line each row starts on */
};

/*
 * Reads RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF, blank
 * lines skipped, spaces around an unquoted field or the quotes of a quoted
 * one dropped). Returns 0, -EINVAL "line N: ..." for a malformed record
 * or one whose field count differs from the header's, or -ENOMEM.
 */
int imgp_csv_parse(const char *text, size_t len, struct imgp_csv *out);
/* The line (1-based) row starts on, or 0 outside the table. */
unsigned imgp_csv_line(const struct imgp_csv *c, size_t row);
/* The cell at row, col, or NULL outside the table. */
const char *imgp_csv_cell(const struct imgp_csv *c, size_t row, size_t col);
void imgp_csv_free(struct imgp_csv *c);

/* -------------------------------------------------------------- flash.c */

struct imgp_flash_result {
	uint64_t written;        /* bytes written to the card (not those it held already) */
	bool has_offset;         /* the failure happened at offset */
	uint64_t offset;
};

/* Called as bytes are written, then again as they are verified. */
typedef void (*imgp_flash_progress_fn)(uint64_t bytes, void *ctx);

/*
 * Writes the ranges of map from the raw image to target (a block device,
 * opened exclusively, or a file), syncs, reads them back past the page
 * cache and compares. In the map's outside ranges it first reads what the
 * target holds and writes only the 4 KiB blocks that differ, so a fresh
 * card or a sparse file gets no writes there and an old boot loader on a
 * reused card is still overwritten. Returns 0 or -errno: "write error at offset N: ...",
 * "verify: the card differs at offset N (wrote 0x.., read 0x..)", with the
 * offset also in res.
 */
int imgp_flash(const char *image, const struct imgp_fsmap *map, const char *target,
	       imgp_flash_progress_fn progress, void *ctx,
	       struct imgp_flash_result *res);

#endif
