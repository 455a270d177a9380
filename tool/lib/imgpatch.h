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
 *  - warnings and progress go to the hooks of the context (struct imgp_ctx)
 *    the handle was opened with, never to stdio.
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
			    void *data);
/* Progress of long work: done of total bytes; called at most a few times a second. */
typedef void (*imgp_progress_fn)(const char *what, uint64_t done,
				 uint64_t total, void *data);

/*
 * A run's context (ctx.c), as libfdisk's fdisk_context: the log hook, the
 * progress hook and the interrupt flag. Every opener takes one and its
 * handle keeps it; a NULL ctx means no hooks and never interrupted. Long
 * work (unpacking, copying, packing, checksumming) fails with -EINTR
 * "interrupted" at its next progress once *flag is non-zero (set by a
 * signal handler). A ctx is used by one thread at a time; new: 0 or -ENOMEM.
 */
struct imgp_ctx;
int imgp_ctx_new(struct imgp_ctx **ctx);
void imgp_ctx_free(struct imgp_ctx *ctx);
void imgp_ctx_set_log(struct imgp_ctx *ctx, imgp_log_fn fn, void *data);
void imgp_ctx_set_progress(struct imgp_ctx *ctx, imgp_progress_fn fn, void *data);
void imgp_ctx_set_interrupt(struct imgp_ctx *ctx, const volatile sig_atomic_t *flag);
/* The name hook: copy, a temporary file, now stands for name (NULL: copy is gone). */
typedef void (*imgp_names_fn)(const char *copy, const char *name, void *data);
void imgp_ctx_set_names(struct imgp_ctx *ctx, imgp_names_fn fn, void *data);

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
 * Refuses (-EBUSY "... is mounted on /media/x") a block device that is
 * mounted or has a mounted partition; 0 for anything else.
 */
int imgp_blockdev_check_unmounted(const char *path);

/* --------------------------------------------------------------- journal.c */

/*
 * The undo journal of an image patched in place: IMAGE.imgpatch-undo (a
 * card's NAME.imgpatch-undo in the current folder). malloc'd, NULL: no memory.
 */
char *imgp_journal_path(const char *image);
/*
 * Puts the old bytes of the journal at path back into the image file or
 * device image (locked and opened for writing) and checks each region's SHA-256.
 * After a finished patch, a region that holds neither the old nor the
 * patched bytes is refused (-EEXIST) unless force. Returns 0 and the
 * regions and bytes restored, or -errno.
 */
int imgp_journal_undo(const char *path, const char *image, bool force,
		      size_t *restored, uint64_t *bytes);

/* --------------------------------------------------------------- cmdline.c */

/*
 * Checks a kernel command line edit list (the language of patch --cmdline,
 * imgpatch(1); text/text.h has it). 0 or -EINVAL naming the edit at fault.
 */
int imgp_cmdline_check(const char *edits);

/* ------------------------------------------------------------------ disk.c */

/* An opened image with its partition table and identified filesystems (opaque). */
struct imgp_disk;

/*
 * Opens an image, reads its partition table and probes every partition's
 * filesystem, into a new *disk. Returns 0 or -errno; the message does not
 * repeat the path (callers print "imgpatch: PATH: message").
 */
int imgp_disk_open(struct imgp_disk **disk, struct imgp_ctx *ctx, const char *path,
		   bool writable);
/* Closes and frees the disk (NULL: nothing). */
void imgp_disk_close(struct imgp_disk *disk);
/*
 * Reads path from the filesystem of the partition part names (its number,
 * GPT name or filesystem label), at most max bytes, into out: what cat
 * PART:PATH prints. A symbolic link is followed; a dangling one says so.
 * Returns 0 or -errno, the message naming the partition ("p2 (ext4): ...").
 */
int imgp_disk_read_file(struct imgp_disk *disk, const char *part, const char *path,
			size_t max, struct imgp_buf *out);

/* ---------------------------------------------------- survey.c, bootpath-*.c */

/*
 * One survey of an image, read once with one set of rules (survey.c): the
 * filesystems, the boot and root partitions, the boot path and its trees,
 * the FIT, the boot script and its hook, the root fstab. info prints one,
 * doctor judges one, patch and recipes resolve "boot" and "root" by one.
 */
#define IMGP_FIT_PATH "/image.fit"

/* What a survey reads beyond the filesystems and the boot and root partitions. */
#define IMGP_SURVEY_BOOT  (1u << 0) /* FIT structure, boot script, hook file, the boot path's trees */
#define IMGP_SURVEY_TREES (1u << 1) /* + every FIT hash verified, each tree's SD/eMMC controllers */
#define IMGP_SURVEY_FSTAB (1u << 2) /* the root's /etc/fstab and its "/" entry */
/* + the effective trees; with TREES each one's controllers, and its warnings kept, not logged */
#define IMGP_SURVEY_EFFECTIVE (1u << 3)

struct imgp_survey_opts {
	const char *fit_path;    /* NULL: IMGP_FIT_PATH */
	unsigned what;           /* IMGP_SURVEY_* */
};

struct imgp_survey;

/*
 * Surveys an opened disk (only read) into a new survey (*sv): every
 * filesystem is opened and kept open until imgp_survey_free(); what
 * opts->what asks for is read. Returns 0 with every fact's failure
 * recorded in the survey, or -ENOMEM.
 */
int imgp_survey_new(struct imgp_survey **sv, struct imgp_disk *disk,
		    const struct imgp_survey_opts *opts);
/* Closes the filesystems and frees the survey (not the disk); NULL: none. */
void imgp_survey_free(struct imgp_survey *sv);

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
/*
 * The tree the boot path boots for model (NULL: its only tree), as DTS
 * after a "// PROVENANCE" line, into dts: what cat --dtb prints. Needs
 * IMGP_SURVEY_BOOT and IMGP_SURVEY_EFFECTIVE. When an overlay failed and
 * the board boots without it, warning gets why ("... (booting NAME)").
 * Returns 0, -ENOENT (no boot path, no tree, no such tree), -EEXIST (model
 * NULL among several trees), or another -errno.
 */
int imgp_survey_dts(struct imgp_survey *sv, const char *model, struct imgp_buf *dts,
		    struct imgp_buf *warning);

/* ---------------------------------------------------------------- info*.c */

struct imgp_info_opts {
	const char *name;        /* the image as its user named it */
	const char *model;       /* only the tree the boot path boots for it; NULL: all */
	bool json;               /* one JSON document (schema_version 1), not text tables */
};
/*
 * Writes what imgpatch info shows of a survey made with every
 * IMGP_SURVEY_* fact to out. *problems: the facts that could not be read
 * and the bad hashes. Returns 0, the error of a model that picks no one
 * tree (as imgp_survey_pick_), -EIO when writing failed, or -ENOMEM.
 */
int imgp_info_write(struct imgp_survey *sv, const struct imgp_info_opts *opts, FILE *out,
		    int *problems);

/* ---------------------------------------------------------------- copy.c */

/*
 * Copies the file or device src to dst (created with mode 0644, or
 * truncated), keeping src's holes: ranges that are holes in src stay
 * unwritten in dst. Zero blocks that src really stores are copied, because
 * a bmap made from dst must still map them (an unused GPT entry or a free
 * FAT sector is data a card needs). Returns 0 or -errno.
 */
int imgp_copy_sparse(struct imgp_ctx *ctx, const char *src, const char *dst);

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
/* Why new files cannot be made in the folder dir ("" when they can). */
const char *imgp_folder_problem(const char *dir);
/*
 * Creates "DIR/.BASE.PID.XXXXXX" (PID: this process) with imgp_temp_create_
 * and keeps it locked until it is renamed or removed; *path is malloc'd.
 * Returns the open fd or -errno with a message (*path NULL).
 */
int imgp_temp_make(const char *dir, const char *base, char **path);
/*
 * Removes from dir the temporary files imgp_temp_make made there for one of
 * bases (NULL-terminated) whose process is gone and that nobody holds
 * locked: what a killed run left. Names them in one line to ctx's log
 * (IMGP_LOG_INFO); returns how many were removed.
 */
int imgp_temp_sweep(struct imgp_ctx *ctx, const char *dir, const char *const *bases);

/* ----------------------------------------------------------------- patch.c */

/*
 * A patch (opaque) is planned first and written once: every operation below
 * reads the image (or the content an earlier operation planned for the same
 * file) and records whole-file replacements; nothing touches the image until
 * imgp_patch_commit(). The CLI's patch options and recipe steps both call
 * these operations.
 */
struct imgp_patch;
/* Bound on a device tree a patch reads into memory. */
#define IMGP_DTB_MAX ((size_t)64 << 20)

/* A new, empty plan on disk (which must outlive it). Returns 0 or -ENOMEM. */
int imgp_patch_new(struct imgp_patch **out, struct imgp_disk *disk);
/* Frees the plan and everything it loaded (NULL: nothing). */
void imgp_patch_free(struct imgp_patch *patch);
/* Deletes NODE's property in the loaded tree; an absent one is noted. */
int imgp_patch_dt_delete(struct imgp_patch *patch, const char *node,
			 const char *prop);
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
 * Applies kernel command line edits (as imgp_cmdline_check takes them) to the line
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
/* Parses one of those four names. Returns 0 or -EINVAL. */
int imgp_via_parse(const char *name, enum imgp_via *out);

/* Whose tree is edited. */
enum imgp_tree_from {
	IMGP_TREE_ANY,           /* the boot path's: a FIT's fdt image, or a tree file it names */
	IMGP_TREE_FIT,           /* a FIT's fdt image whatever the boot path (--fit, --fdt) */
	IMGP_TREE_BOOTED,        /* a tree file the boot path names */
};
struct imgp_tree_opts {
	enum imgp_tree_from from;
	enum imgp_via via;       /* asked; IMGP_VIA_DEFAULT: the boot path's way */
	const char *asked_by;    /* who asked, for the plan's line; NULL: "--via NAME" */
	const char *fit_path;    /* a FIT's tree: the FIT (NULL: IMGP_FIT_PATH) */
	const char *fdt;         /* its fdt image, a name or dumpimage index; NULL: the only one */
	const char *model;       /* a boot path's tree: a model, file name or path (NULL: the only one) */
	bool deletes;            /* an edit will delete: an overlay cannot */
	bool load_only;          /* loaded to be read (a compatible), never written: no way chosen */
	const char *override;    /* the override file (NULL: /user-override.dtb) */
	const char *name;        /* a new overlay's name (NULL: "imgpatch-HASH") */
};
/*
 * Loads the tree to edit and chooses, before the edits, where it goes
 * (patch-tree.c): a FIT's tree to the override file its boot script
 * loads, else back into the FIT; a tree file the boot path names into a
 * new overlay in the path's list when it applies one and nothing is
 * deleted, else into the file itself. The CLI's patch and a recipe's load
 * step both begin here. -EINVAL when the way asked cannot work (the
 * message names the one that can), -ENOENT and -EEXIST as a pick.
 */
int imgp_patch_tree_begin(struct imgp_patch *patch, const struct imgp_tree_opts *opts);
/* Plans writing the edited tree the way begin chose, the plan saying why. */
int imgp_patch_tree_finish(struct imgp_patch *patch);

/* Number of planned changes that really change a file. */
size_t imgp_patch_pending(const struct imgp_patch *patch);
/*
 * Appends the human-readable plan (before/after of each change) to out.
 * Returns 0, -ENOMEM, or -EINVAL when SOURCE_DATE_EPOCH is not a number of
 * seconds (checked here, so that a bad value stops a run before its plan).
 */
int imgp_patch_describe(const struct imgp_patch *patch, struct imgp_buf *out);
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
 * recipe that fails to load is left out with a warning through ctx's log
 * hook. Returns 0 or -errno.
 */
int imgp_recipe_list(struct imgp_ctx *ctx, const char *const *dirs,
		     struct imgp_recipe ***out, size_t *n);
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

/* ------------------------------------------------------------ custom.c */

/*
 * customize's settings (option names as virt-customize(1) has them, NULL
 * after the last), checked as given, planned in order the image's own way;
 * explain: "  SETTING: how (why)" lines; facts: "KEY<TAB>VALUE" lines.
 */
struct imgp_custom;
int imgp_custom_new(struct imgp_custom **out);
void imgp_custom_free(struct imgp_custom *c);
const char *imgp_custom_option(size_t i);
int imgp_custom_add(struct imgp_custom *c, const char *name, const char *value);
int imgp_custom_plan(struct imgp_custom *c, struct imgp_patch *patch);
const char *imgp_custom_explain(const struct imgp_custom *c);
const char *imgp_custom_facts(const struct imgp_custom *c);

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

/* "raw", "xz", "gzip", ... */
const char *imgp_format_name(enum imgp_format fmt);
/*
 * A format asked for by name ("xz", "gz" or "gzip", "none" or "raw"): only
 * those imgpatch can write. Returns 0 or -EINVAL.
 */
int imgp_format_parse(const char *name, enum imgp_format *fmt);
/* What imgp_format_parse() takes, for messages: "xz, gz, zst, bz2, lz4 or none". */
const char *imgp_format_choices(void);

struct imgp_pack_opts {
	enum imgp_format format;   /* RAW (sparse copy), XZ, GZIP, ZSTD, BZIP2, LZ4 */
	int level;                 /* -1: the compressor's default */
	int threads;               /* 0: all cores (xz, zstd) */
};

/* ----------------------------------------------- job-open.c, job-commit.c */

/*
 * The image a command was given (raw, compressed, archived, a card) as one
 * transaction (job/, whose files say how): a raw working image to plan on,
 * the result in place (locked, under an undo journal) or in an output made
 * under a temporary name and renamed when complete. The ctx's name hook
 * hears of each temporary copy; its log, of what a killed run left.
 */
struct imgp_job;

struct imgp_job_opts {
	const char *image;       /* as given */
	bool write;              /* a patch will be committed; else only read */
	const char *out;         /* the patched copy; NULL: the image itself */
	bool in_place;           /* over a compressed image: recompress it there */
	bool dry_run;            /* plan and check: nothing locked, made or written */
	const char *bmap;        /* a bmaptool block map of the output too */
	bool format_set;         /* pack.format as asked; else out's suffix, else the image's */
	struct imgp_pack_opts pack;
	const char *journal;     /* in place: the undo journal; NULL: imgp_journal_path() */
	bool recover;            /* in place: first undo what an interrupted run left */
	bool xz_whole;           /* never block-wise */
};

/* A new job on opts (whose strings must outlive it). 0 or -ENOMEM. */
int imgp_job_new(struct imgp_job **job, struct imgp_ctx *ctx, const struct imgp_job_opts *opts);
/*
 * Detects the image's format, checks the options against it and every
 * file the commit will write (folders, permissions), locks an image
 * patched in place and checks its journal (-EBUSY for an interrupted
 * run, unless recover undoes it), unpacks a compressed image. 0 or -errno.
 */
int imgp_job_open(struct imgp_job *job);
/* After a failure: the file it is about; *usage: the options do not fit the image. */
const char *imgp_job_failed(const struct imgp_job *job, bool *usage);
/* The journal recover undid (NULL: none), the regions and bytes it restored. */
const char *imgp_job_recovered(const struct imgp_job *job, size_t *regions, uint64_t *bytes);
/* imgp_disk_open() of the working image, read-only. */
int imgp_job_disk_open(struct imgp_job *job, struct imgp_disk **disk);
/* The image's format (by content; a card: RAW), and the raw image to open. */
enum imgp_format imgp_job_format(const struct imgp_job *job);
const char *imgp_job_path(const struct imgp_job *job);
/* Commits patch, planned on the job's disk, once; a dry run only checks it. 0 or -errno. */
int imgp_job_commit(struct imgp_job *job, struct imgp_patch *patch);
/* Where the commit writes (NULL: the image in place), and in which format. */
const char *imgp_job_output(const struct imgp_job *job);
enum imgp_format imgp_job_out_format(const struct imgp_job *job);
/* True for a block-wise .xz: how many of its *nblocks changed. */
bool imgp_job_xz_blocks(const struct imgp_job *job, size_t *changed, size_t *nblocks);
/* Removes the temporary files it still has, unlocks, frees (NULL: nothing). */
void imgp_job_free(struct imgp_job *job);

/* ------------------------------------------------------------- doctor*.c */

/*
 * The storage-performance findings of an image, read-only (doctor/).
 * Finding ids are stable: the man page documents them.
 */
enum imgp_severity {
	IMGP_SEVERITY_INFO,
	IMGP_SEVERITY_WARNING,
};

/* Parses "info" or "warning". Returns 0 or -EINVAL. */
int imgp_severity_parse(const char *name, enum imgp_severity *out);

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

/* What doctor found, opaque: written with imgp_doctor_write(). */
struct imgp_doctor;

/*
 * Examines an opened disk (it is only read) into a new report (*out) that
 * lists every finding in check order. Returns 0 (with or without
 * findings), or -errno when the image cannot be read: a filesystem that
 * does not open, a corrupt FIT, boot script or fstab, an --fdt that names
 * no fdt.
 */
int imgp_doctor_run(struct imgp_disk *disk, const struct imgp_doctor_opts *opts,
		    struct imgp_doctor **out);
/* Frees a report; NULL: none. */
void imgp_doctor_free(struct imgp_doctor *doc);

struct imgp_doctor_write_opts {
	const char *name;        /* the image as its user named it */
	bool compressed;         /* its fixes recompress it: they say --in-place */
	bool json;               /* one JSON document (schema_version 1), not text */
};
/*
 * Writes what imgpatch doctor shows of a report to out: each finding with
 * its evidence, cost and fix (the apply and patch commands, shell-quoted),
 * then a summary. Returns 0, -EIO when writing failed, or -ENOMEM.
 */
int imgp_doctor_write(const struct imgp_doctor *doc, const struct imgp_doctor_write_opts *opts,
		      FILE *out);
/* Whether the report has a finding of severity sev or a worse one. */
bool imgp_doctor_found(const struct imgp_doctor *doc, enum imgp_severity sev);

/* -------------------------------------------------------------- fsmap.c */

/* The blocks of an image that a card needs (opaque). */
struct imgp_fsmap;

/*
 * Maps the raw image at path from its filesystems, as e2image and
 * partclone do: everything outside partitions, the metadata and the used
 * clusters of FAT, the metadata and the used blocks of ext2/3/4 (inode
 * tables, journal and bitmaps included), and every block of a partition
 * whose filesystem is not one of those, or does not read as one. An image
 * without a partition table is mapped whole. Returns 0 and a new *out, or
 * -errno.
 */
int imgp_fsmap_build(struct imgp_ctx *ctx, const char *path, struct imgp_fsmap **out);
/* How many bytes the map holds. */
uint64_t imgp_fsmap_mapped(const struct imgp_fsmap *m);
/* Frees the map (NULL: nothing). */
void imgp_fsmap_free(struct imgp_fsmap *m);

/* ---------------------------------------------------------------- csv.c */

/* A CSV table (opaque): row 0 is the header; every row has as many cells. */
struct imgp_csv;

/*
 * Reads RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF, blank
 * lines skipped, spaces around an unquoted field or the quotes of a quoted
 * one dropped) into a new *out. Returns 0, -EINVAL "line N: ..." for a
 * malformed record or one whose field count differs from the header's, or
 * -ENOMEM.
 */
int imgp_csv_parse(const char *text, size_t len, struct imgp_csv **out);
/* Its rows (the header's included) and columns. */
size_t imgp_csv_nrows(const struct imgp_csv *c);
size_t imgp_csv_ncols(const struct imgp_csv *c);
/* The line (1-based) row starts on, or 0 outside the table. */
unsigned imgp_csv_line(const struct imgp_csv *c, size_t row);
/* The cell at row, col, or NULL outside the table. */
const char *imgp_csv_cell(const struct imgp_csv *c, size_t row, size_t col);
/* Drops the spaces and tabs around the cell at row, col, even quoted ones. */
void imgp_csv_trim(struct imgp_csv *c, size_t row, size_t col);
/* Frees the table (NULL: nothing). */
void imgp_csv_free(struct imgp_csv *c);

/* -------------------------------------------------------------- flash.c */

/* Called as bytes are written, then again as they are verified. */
typedef void (*imgp_flash_progress_fn)(uint64_t bytes, void *ctx);

/*
 * Writes the ranges of map from the raw image to target (a block device,
 * opened exclusively, or a file), syncs, reads them back past the page
 * cache and compares (outside the partitions only the 4 KiB blocks that
 * differ are written: flash.c). *written: the bytes written. Returns 0 or
 * -errno naming the offset, also in *bad (UINT64_MAX when none applies).
 */
int imgp_flash(const char *image, const struct imgp_fsmap *map, const char *target,
	       imgp_flash_progress_fn progress, void *ctx, uint64_t *written,
	       uint64_t *bad);

#endif
