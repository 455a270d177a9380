/* SPDX-License-Identifier: MIT */
/*
 * boot/: U-Boot boot scripts and environment, and the survey's filesystems.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_BOOT_H
#define IMGP_BOOT_H

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "text/text.h"

/* The tree a boot script loads instead of the FIT's when it is there. */
#define IMGP_OVERRIDE_NAME "user-override.dtb"
#define IMGP_OVERRIDE_PATH "/" IMGP_OVERRIDE_NAME
#define IMGP_FSTAB_PATH "/etc/fstab"

/* ----------------------------------------------------------- survey-view.c */

/*
 * A survey is read through views: plain records that imgp_survey_get_*()
 * fill, whose strings and arrays stay the survey's. A fact that could not
 * be read keeps why: its rc is 0 when it was found (and read), -ENOENT when
 * it is not there, another -errno when looking or reading failed; error
 * holds the library's message for any non-zero rc. A partition is named
 * by its number (0: none). The getters of item i return 0, or -ENOENT
 * past the last.
 */
struct imgp_survey_view {
	const char *fit_path;
	int boot, boot_rc;       /* the boot partition */
	const char *boot_error;
	int root, root_rc;       /* the root partition: the first with /etc/fstab */
	const char *root_error;
	/* No root: the first partition imgpatch cannot read that a root may be on; else NULL. */
	const struct imgp_part *root_unread;
	/* IMGP_SURVEY_BOOT: the boot path ("fit", "extlinux", ...; NULL: none recognised) */
	const char *bootpath;
	const char *summary;     /* "U-Boot script /boot/boot.scr (Armbian), fdtfile ..."; NULL */
	int bootpath_rc;         /* reading its configuration failed */
	const char *bootpath_error;
	const char *updates;     /* what the distribution's update does to it; NULL: nothing known */
	const char *chooser;     /* the U-Boot variable that picks one of its trees; NULL: none */
	size_t nentries;         /* the trees it boots: imgp_survey_get_entry_() */
	size_t ntrees;           /* IMGP_SURVEY_TREES: the FIT's fdt images, then the hook file's */
	size_t neffective;       /* IMGP_SURVEY_EFFECTIVE: the trees the board boots */
};
void imgp_survey_get_(const struct imgp_survey *sv, struct imgp_survey_view *out);
/* Why partition i (in table order) does not open; NULL: it does, or no backend reads it. */
const char *imgp_survey_fs_error_(const struct imgp_survey *sv, size_t i);

/* A tree the boot path boots, and the overlays it applies to it. */
struct imgp_entry_view {
	const char *model;       /* the boards it is for ("pi4"); NULL: the board */
	const char *path;        /* the tree, on the boot path's partition */
	/* Where the distribution's update takes it from at the next kernel; NULL: none. */
	const char *kept_in;
	size_t noverlays;        /* in the order applied (a Raspberry Pi's with its params) */
	const char *const *overlays;
	bool uboot_default;      /* the one the image's own U-Boot picks, where it picks */
};
int imgp_survey_get_entry_(const struct imgp_survey *sv, size_t i,
			  struct imgp_entry_view *out);

/* The U-Boot an image carries before its first partition, read, never run. */
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
/* IMGP_SURVEY_BOOT: the image's own U-Boot. */
const struct imgp_uboot *imgp_survey_uboot_(const struct imgp_survey *sv);

enum imgp_hash_state { IMGP_HASH_NONE, IMGP_HASH_OK, IMGP_HASH_BAD, IMGP_HASH_UNSUPPORTED };

/* The FIT at fit_path (part 0: no partition has it). */
struct imgp_fit_view {
	int part, rc;
	const char *error;
	size_t size;             /* of the FIT file */
	size_t nimages, nconfs;
};
void imgp_survey_get_fit_(const struct imgp_survey *sv, struct imgp_fit_view *out);
struct imgp_fit_image_view {
	int index;               /* position among /images children (dumpimage -p) */
	const char *name, *type, *description, *compression;
	const char *hash_algos;  /* "sha1" or "crc32,sha1"; "" when none */
	size_t size;
	bool external;           /* data-offset / data-position rather than data */
	enum imgp_hash_state hash; /* IMGP_SURVEY_TREES */
	const char *hash_error;  /* why the hashes do not verify */
};
int imgp_survey_get_fit_image_(const struct imgp_survey *sv, size_t i,
			      struct imgp_fit_image_view *out);
struct imgp_fit_conf_view {
	const char *name, *description;
	const char *kernel, *fdt; /* image node names; NULL when absent */
	bool is_default;
};
int imgp_survey_get_fit_conf_(const struct imgp_survey *sv, size_t i,
			     struct imgp_fit_conf_view *out);

/* The boot script of the boot partition (part 0: there is none), and the hook file. */
struct imgp_script_view {
	int part, rc;
	const char *error;
	const char *path;        /* NULL: none */
	int parse_rc;            /* -EBADMSG: a CRC does not match */
	bool parsed;
	size_t size;
	const char *name;        /* its image name; NULL: not parsed */
	bool loads_override;     /* it mentions IMGP_OVERRIDE_NAME */
	/* IMGP_OVERRIDE_PATH, on the boot path's partition (part 0: looked for nowhere) */
	int override_part, override_rc;
	const char *override_error;
	bool override_exists;
	size_t override_size;    /* IMGP_SURVEY_TREES */
};
void imgp_survey_get_script_(const struct imgp_survey *sv, struct imgp_script_view *out);

/* MISSING: an effective tree's base tree is not there (not a failure to read). */
enum imgp_tree_state {
	IMGP_TREE_OK, IMGP_TREE_COMPRESSED, IMGP_TREE_SKIPPED, IMGP_TREE_ERROR,
	IMGP_TREE_MISSING,
};

/* A device tree with its SD/eMMC controllers (IMGP_SURVEY_TREES). */
struct imgp_tree_view {
	long image;              /* its FIT image (imgp_survey_get_fit_image_); -1: a file */
	enum imgp_tree_state state;
	const char *error;       /* SKIPPED, ERROR, MISSING: why */
	size_t nmmc;
	const struct imgp_dt_mmc *mmc;
};
/* Tree i: the FIT's fdt images, then the hook file IMGP_OVERRIDE_PATH. */
int imgp_survey_get_tree_(const struct imgp_survey *sv, size_t i,
			 struct imgp_tree_view *out);

/*
 * A tree the board really boots (IMGP_SURVEY_EFFECTIVE, effective.c): the
 * boot path's base tree with its overlays applied in order, as its loader
 * applies them, one per tree the boot path boots; for a FIT the override
 * file the boot script loads when it is there, else each fdt image. When
 * an overlay fails the tree is what the board then boots (the base alone,
 * or none: dtb NULL), and rc and error say why.
 */
struct imgp_effective_view {
	const char *name;        /* its model, else its FIT image's name, else its path */
	const char *provenance;  /* "boot path armbian: /boot/dtb/x.dtb + /boot/dtb/overlay/y.dtbo" */
	const char *booted;      /* in provenance, after "boot path NAME: " */
	long entry;              /* its boot path's entry (imgp_survey_get_entry_); -1: a FIT's */
	long image;              /* the base's FIT image; -1: a file */
	const struct imgp_dtb *dtb; /* the tree booted; NULL: none */
	int rc;
	const char *error;       /* its message, with what the loader does then */
	size_t nwarnings;        /* with IMGP_SURVEY_TREES: the warnings met building it */
	const char *const *warnings;
	struct imgp_tree_view tree; /* with IMGP_SURVEY_TREES: its controllers */
};
int imgp_survey_get_effective_(const struct imgp_survey *sv, size_t i,
			      struct imgp_effective_view *out);
/*
 * The effective tree named model (*i): its model, its FIT image's name, or
 * its path as patch --model takes it (whole, its file name, or its tail
 * such as "rockchip/x.dtb"); with model NULL, the only tree. -ENOENT "no
 * tree 'x' (have: a, b)", -EEXIST "N trees (a, b): name one" when model is
 * NULL and there are several, or when model names several, -ENOENT "no
 * tree" when there is none. For an option (a --model), the errors name it
 * and past a dozen trees one naming none is "no such tree among the N" (a
 * name error: imgp_err_is_name) rather than a list of names.
 */
int imgp_survey_pick_(const struct imgp_survey *sv, const char *model, bool option,
		     size_t *i);

/* The root partition's /etc/fstab (part: the root, or where looking failed). */
struct imgp_fstab_view {
	int part, rc;
	const char *error;
	int root_rc;             /* the "/" entry: 0, -ENOENT (not a problem), -EINVAL */
	const char *root_error;
	const struct imgp_fstab_entry *root; /* NULL: not read */
};
void imgp_survey_get_fstab_(const struct imgp_survey *sv, struct imgp_fstab_view *out);

/* Makes a recorded failure (rc, error) the current one again; returns rc. */
int imgp_survey_fail_(int rc, const char *error);


/* --------------------------------------------------------------- bootscr.c */

/* A U-Boot legacy image (uImage) holding a script. */
struct imgp_bootscr {
	char name[33];
	uint32_t time;
	uint8_t os, arch, type, comp;
	char *text;              /* the script (first part), NUL-terminated, owned */
	size_t text_len;
};

/*
 * Parses a legacy image: magic, header CRC, data size against len, data
 * CRC, type "script", no compression. Returns 0 or -EINVAL/-EBADMSG.
 */
int imgp_bootscr_parse_(struct imgp_bootscr *scr, const void *data, size_t len);
void imgp_bootscr_free_(struct imgp_bootscr *scr);
/* True when the script text mentions word (e.g. "user-override.dtb"). */
bool imgp_bootscr_mentions_(const struct imgp_bootscr *scr, const char *word);
/*
 * Makes a legacy script image from text, byte-identical to
 * "mkimage -A ARCH -O linux -T script -C none -n NAME -d FILE" run with
 * SOURCE_DATE_EPOCH=time. arch: "arm64", "arm", "riscv", "x86_64", ...
 * name may be NULL (no -n). out is emptied first and receives the image.
 * Returns 0, or -EINVAL for an unknown arch, a name over 32 bytes or an
 * empty script (which mkimage and U-Boot refuse too).
 */
int imgp_bootscr_make_(const char *text, size_t len, const char *name,
		      const char *arch, uint32_t time, struct imgp_buf *out);

/* ------------------------------------- the survey (survey.c, bootpath-*.c) */

/*
 * What a survey holds, as the library's own files read it; a client reads
 * it through the views of imgpatch.h.
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

struct imgp_survey_hash {
	enum imgp_hash_state state;
	char *error;             /* why the hashes do not verify */
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
struct imgp_survey_script_ {
	const struct imgp_part *part; /* the boot partition; NULL: there is none */
	const char *path;        /* imgp_bootscr_paths_, or under /boot/; NULL: none */
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
	struct imgp_survey_script_ script;
	/* The file the boot script must load for a fixed tree to count; NULL: none. */
	const char *hook;
	bool hook_loaded;        /* the boot script mentions hook */
	struct imgp_survey_override override;
	/* IMGP_SURVEY_TREES: the FIT's fdt images, then the hook file's tree. */
	size_t ntrees;
	struct imgp_survey_tree *trees;
	/*
	 * IMGP_SURVEY_EFFECTIVE: the trees the board boots, as
	 * imgp_effective_build_() makes them; with IMGP_SURVEY_TREES also
	 * effective_trees[i], the controllers of effective[i] (when the boot
	 * ends with no tree, IMGP_TREE_MISSING or IMGP_TREE_ERROR and why);
	 * each keeps the warnings met building it, not logged.
	 */
	size_t neffective;
	struct imgp_effective *effective;
	struct imgp_survey_tree *effective_trees;
	/* IMGP_SURVEY_FSTAB */
	struct imgp_survey_fstab fstab;
};

/*
 * Surveys an opened disk into sv (only read): every filesystem is opened
 * and kept open until imgp_survey_close_(); what opts->what asks for is
 * read. Returns 0 with every fact's failure recorded in sv, or -ENOMEM.
 */
int imgp_survey_open_(struct imgp_survey *sv, struct imgp_disk *disk,
		     const struct imgp_survey_opts *opts);
/* Closes the filesystems and frees what the survey holds (not the disk, nor sv). */
void imgp_survey_close_(struct imgp_survey *sv);

/* ------------------------------------------------------------ boot-files.c */

/* What the board loads from a file: nothing, a device tree, something else. */
enum imgp_boot_file { IMGP_BOOT_FILE_NONE, IMGP_BOOT_FILE_TREE, IMGP_BOOT_FILE_OTHER };
/*
 * What the board loads from path on part, asked before a device tree is
 * written there: the survey's findings (the FIT, the boot script, the boot
 * path's trees, their overlays, the scripts it sources, its command line
 * file), then the names every boot path's loader reads (its loads
 * patterns). what (len bytes) says which for a message ("the FIT the boot
 * script loads"); "" for NONE. Names are compared whatever their case on
 * FAT. Returns an IMGP_BOOT_FILE_*.
 */
int imgp_survey_boot_file_(const struct imgp_survey *sv, const struct imgp_part *part,
			  const char *path, char *what, size_t len);

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
 * keeps its failure in its rc/error, and each the warnings met building it
 * (logged by imgp_effective_warn_). Returns 0, or -ENOMEM.
 */
int imgp_effective_build_(struct imgp_survey *sv, struct imgp_effective **trees,
			 size_t *n);
/*
 * Logs to ctx the warnings kept by the n trees a command touches: one line
 * per distinct problem, where N trees have it the tree's path left out and
 * "(N trees)" added.
 */
void imgp_effective_warn_(struct imgp_ctx *ctx, const struct imgp_effective *trees,
			 size_t n);
void imgp_effective_free_(struct imgp_effective *trees, size_t n);
/* The name a tree is shown by: its model, else its FIT image's name, else its path. */
const char *imgp_effective_name_(const struct imgp_effective *t);
/*
 * The tree named model (its model, its FIT image's name, or its path as
 * patch --model takes it: whole, its file name, or its tail such as
 * "rockchip/x.dtb"); with model NULL, the only tree. -ENOENT "no tree
 * 'x' (have: a, b)", -EEXIST "N trees (a, b): name one" when model is
 * NULL and there are several, or when model names several, -ENOENT "no
 * tree" when there is none.
 */
int imgp_effective_pick_(const struct imgp_effective *trees, size_t n,
			const char *model, const struct imgp_effective **out);
/*
 * imgp_effective_pick_ for a --model option: its errors name the option;
 * past a dozen trees one naming none is "no such tree among the
 * N" (a name error: imgp_err_is_name) rather than a list of names.
 */
int imgp_effective_pick_model_(const struct imgp_effective *trees, size_t n,
			      const char *model, const struct imgp_effective **out);

/* -------------------------------------------------- survey.c, bootpath-*.c */

/* The boot script names, in the order U-Boot's distro boot tries them. */
extern const char *const imgp_bootscr_paths_[];
extern const size_t imgp_nbootscr_paths_;

/*
 * Looks for U-Boot in img before the first partition of tab, at the places
 * each board family's documentation puts it (Rockchip, Allwinner, i.MX),
 * and reads its version and default environment into ub (ub->where NULL
 * when there is none). Reads at most a few MiB; never fails on what it
 * reads. Returns 0, or -ENOMEM.
 */
int imgp_uboot_read_(const struct imgp_image *img, const struct imgp_table *tab,
		    struct imgp_uboot *ub);
void imgp_uboot_free_(struct imgp_uboot *ub);

/* The open filesystem of part; NULL with -ENOTSUP's message when there is none. */
struct imgp_fs *imgp_survey_fs_(const struct imgp_survey *sv,
			       const struct imgp_part *part);
/*
 * imgp_fs_read_file_(), except that a symbolic link whose target does not
 * exist says so ("dangling symbolic link to X"), not "not
 * found": what the survey and every command read a file with.
 */
int imgp_survey_read_file_(struct imgp_fs *fs, const char *path, size_t max,
			  struct imgp_buf *out);
/* The context its image was opened with: where its warnings go (NULL: none, or no disk). */
struct imgp_ctx *imgp_survey_ctx_(const struct imgp_survey *sv);

/* ------------------------------------------------------------- effective.c */

/*
 * Whether the FIT's boot script loads the override file and it is there,
 * so that it replaces every tree of the FIT.
 */
bool imgp_effective_override_loaded_(const struct imgp_survey *sv);
/*
 * For the doctor's --fdt: the effective tree of one fdt image of sv's
 * FIT, as imgp_effective_build_() makes it. Returns 0 (a failure kept in
 * t->rc) or -ENOMEM.
 */
int imgp_effective_fit_image_(struct imgp_survey *sv, const struct imgp_fit_image *img,
			     struct imgp_effective *t);

#endif /* IMGP_BOOT_H */
