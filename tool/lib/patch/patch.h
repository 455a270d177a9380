/* SPDX-License-Identifier: MIT */
/*
 * patch/: the plan's operations that recipes and the library's own files call.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_PATCH_H
#define IMGP_PATCH_H

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs.h"
#include "boot/boot.h"

/* ----------------------------------------------------------------- patch.c */

/*
 * What imgp_patch_commit() checks before it writes, with nothing written:
 * every pending change is made in memory on the planned-on image (an ext
 * filesystem checked for damage first) and dropped. For --dry-run, so that
 * it refuses what the real run refuses. Returns 0 or the commit's -errno.
 */
int imgp_patch_check_(struct imgp_patch *patch);
/* Bounds on what a patch reads into memory (a tree's: imgpatch.h). */
#define IMGP_TEXT_MAX ((size_t)1 << 20)

enum imgp_change_kind {
	IMGP_CHANGE_FILE,        /* whole-file content */
	IMGP_CHANGE_SYMLINK,     /* symbolic link; old/new hold the targets */
	IMGP_CHANGE_DIR,         /* a folder made (existed: it was there); notes say why */
	IMGP_CHANGE_ATTR,        /* only the mode or owner of what is there */
	IMGP_CHANGE_DELETE,      /* removed with all it holds (rm -rf); was says what */
};

/*
 * A change at a path. Changes apply in plan order at the commit: a
 * DELETE drops the changes planned before it at or under its path, and a
 * change at that path after it makes a new one there.
 */
struct imgp_change {
	enum imgp_change_kind kind;
	const struct imgp_part *part;
	char *path;
	bool existed;            /* the file (or link) was there before the patch */
	bool text;               /* show as a unified diff rather than sizes */
	bool secret;             /* holds a secret: sizes only, never its content */
	bool set_mode;           /* mode asked (imgp_patch_attr_) */
	bool set_owner;          /* uid, gid asked */
	bool have_was;           /* was read (existed), or a new one's defaults */
	unsigned mode;           /* permission bits to give it, with set_mode */
	unsigned uid, gid;       /* the owner to give it, with set_owner */
	struct imgp_fs_stat_ was; /* what was there; a new one's: 0644 (folder 0755), root */
	struct imgp_buf old;
	struct imgp_buf new;
	struct imgp_buf notes;   /* "  what changed" lines for the plan */
};

struct imgp_dt_plan;
struct imgp_fs;

struct imgp_patch {
	struct imgp_disk *disk;
	/* The device tree being edited, loaded by imgp_patch_load_fdt_(). */
	struct imgp_dtb dtb;
	bool have_dtb;
	const struct imgp_part *boot_part;
	char *dtb_origin;        /* "fdt-x.dtb in p1 /image.fit" */
	char *fit_path;          /* the FIT the tree came from; NULL: a .dtb file */
	char *fit_image;         /* its image node */
	char *dtb_file;          /* the .dtb file it came from; NULL: a FIT's or a blob */
	/*
	 * The edits go back where the tree came from (the FIT rewritten): a
	 * property already absent may be an earlier run's work, not a typo.
	 */
	bool dt_in_place;
	/* The way a recipe's tree goes, as the caller asked (imgp_patch_set_via; 0: the recipe's). */
	unsigned via_asked;
	/* The way the tree goes, chosen by imgp_patch_tree_begin (DEFAULT: none yet). */
	enum imgp_via tree_via;
	char *tree_why;          /* the plan's line saying why */
	char *tree_override;     /* IMGP_VIA_OVERRIDE: the file */
	char *tree_name;         /* IMGP_VIA_OVERLAY: the new overlay's name; NULL: by its hash */
	struct imgp_buf dtb_notes;
	struct imgp_buf dtb_before; /* the loaded tree as DTS, for the plan's diff */
	struct imgp_dtb dtb_source; /* the tree as loaded, before this run's edits */
	size_t nchanges;
	struct imgp_change *changes;
	/* The device tree edits as made, and the tree the boot path boots (patch-via.c). */
	struct imgp_dt_plan *dt_plan;
	/* Where "boot", "root" and the FIT are: surveyed once, when first asked. */
	struct imgp_survey *survey;
	/* FITs loaded other than the survey's (imgp_patch_load_fit_). */
	struct imgp_fit **fits;
	size_t nfits;
};

/*
 * The survey's filesystem of part (one it could not open: its reason).
 * 0 or -errno with the message.
 */
int imgp_patch_fs_(struct imgp_patch *patch, const struct imgp_part *part,
		  struct imgp_fs **out);
/*
 * Whether an earlier run deleted prop of the node at path from the tree
 * file edited in place (patch-earlier.c): 1 when the package that shipped
 * the tree shows the file edited since and, where a copy as shipped is
 * there, that copy has the property; or, no package listing the tree, when
 * the last run in place on the image (its undo journal) wrote the file. 0
 * when nothing shows the property was ever there. -ENOMEM alone is an
 * error.
 */
int imgp_patch_dt_deleted_before_(struct imgp_patch *patch, const char *path,
				 const char *prop);
/*
 * Reads a file as the patch would leave it: the planned content when an
 * earlier operation changed it, else the file in the image. existed is set
 * false (and out left empty, return 0) when the file does not exist.
 */
int imgp_patch_read_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *path, size_t max, struct imgp_buf *out,
		    bool *existed);
/*
 * The FIT at path: from the plan when an earlier operation changed it,
 * else the survey's (or read piecewise from the image when the survey read
 * another). *fit belongs to the patch and lives until imgp_patch_free().
 * Errors carry "pN (type): path".
 */
int imgp_patch_load_fit_(struct imgp_patch *patch, const struct imgp_part *part,
			const char *path, struct imgp_fit **fit);
/*
 * Plans a whole-file replacement; note (may be NULL) is added to the plan,
 * each of its lines indented under the file's line.
 */
int imgp_patch_write_(struct imgp_patch *patch, const struct imgp_part *part,
		     const char *path, const void *data, size_t len, bool text,
		     const char *note);
/*
 * The permission bits the file written at path gets when the change is
 * made: imgp_patch_attr_(patch, part, path, mode, -1, -1), its error kept
 * in imgp_errmsg() only.
 */
void imgp_patch_mode_(struct imgp_patch *patch, const struct imgp_part *part,
		     const char *path, unsigned mode);

/* ----------------------------- modes, owners, deletion (patch-attr.c) */

/*
 * What path is as the plan leaves it: a planned file, folder or link with
 * its planned mode and owner, one deleted gone (*exists false, return 0),
 * else what the image has (not followed: a link is itself). 0 or -errno.
 */
int imgp_patch_stat_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *path, struct imgp_fs_stat_ *st, bool *exists);
/*
 * Gives a planned or existing file, folder or link (a link: owner only)
 * the permission bits mode and the owner uid:gid (each -1: kept). Pending
 * only where it differs from what is there. -ENOENT "pN (ext4): PATH: no
 * such file or folder"; -ENOTSUP "pN (vfat): PATH: FAT has no
 * permissions" (or "no owners"); -EINVAL for a link's mode or a value out
 * of range. Nothing is planned on an error.
 */
int imgp_patch_attr_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *path, int mode, long uid, long gid);
/*
 * Plans removing path as rm -rf does: nothing there and nothing planned
 * is 0 with nothing planned. Changes planned before at or under path are
 * dropped (a file planned new, then deleted, leaves no trace); a change
 * at path after this makes a new one, after the removal. 0 or -errno.
 */
int imgp_patch_delete_(struct imgp_patch *patch, const struct imgp_part *part,
		      const char *path);
/*
 * The names in folder dir as the plan leaves it (the image's, minus those
 * deleted, plus those planned new), sorted, malloc'd (imgp_fs_list_free_).
 * -ENOENT, -ENOTDIR.
 */
int imgp_patch_list_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *dir, char ***names, size_t *n);
/*
 * Marks the file planned at path as holding a secret: its plan line shows
 * sizes only, no diff and no digest. A path not planned as a file: none.
 */
void imgp_patch_secret_(struct imgp_patch *patch, const struct imgp_part *part,
		       const char *path);

/* Shared by patch.c and patch-attr.c, not for other callers. */
/* The change planned last at path (a DELETE is none: the path is gone). */
struct imgp_change *imgp_patch_find_(struct imgp_patch *patch,
				    const struct imgp_part *part, const char *path);
/* Whether a planned DELETE removes path (at it or a folder above it). */
bool imgp_patch_gone_(const struct imgp_patch *patch, const struct imgp_part *part,
		     const char *path);
/* Appends an empty change of kind at path's first len bytes; 0 or -ENOMEM. */
int imgp_patch_append_(struct imgp_patch *patch, enum imgp_change_kind kind,
		      const struct imgp_part *part, const char *path, size_t len,
		      struct imgp_change **out);
/* Finds the planned change of path, or starts one (kind) with what is there. */
int imgp_patch_change_(struct imgp_patch *patch, enum imgp_change_kind kind,
		      const struct imgp_part *part, const char *path,
		      struct imgp_change **out);
/* Whether the mode or owner asked differs from what was there. */
bool imgp_change_attr_pending_(const struct imgp_change *c);
/*
 * The plan line's part for mode and owner (", mode 0644 -> 0600"; a new
 * one's when not its default); a DELETE's whole line. 0 or -ENOMEM.
 */
int imgp_change_describe_attr_(const struct imgp_change *c, struct imgp_buf *out);
/* Frees what a change holds (not the change). */
void imgp_change_free_(struct imgp_change *c);

/*
 * Whether the tree may be written to path on the boot partition (option:
 * what asked for it, for the message): path must name a file, not a
 * folder, and not one the board loads as anything but a device tree: the
 * FIT, a script, the boot path's configuration, a kernel, an overlay (the
 * survey's boot paths say, and so do the bytes there); with trees_too, not
 * one of the boot path's own trees either. 0, or -EPERM, -EISDIR, -EINVAL
 * with "pN (type): path: option would replace ...".
 */
int imgp_patch_tree_dest_check_(struct imgp_patch *patch, const char *path,
			       const char *option, bool trees_too);
/* Plans writing the loaded tree to path on the boot partition, checked as above. */
int imgp_patch_write_dtb_(struct imgp_patch *patch, const char *path);
/* The same, why (may be NULL) heading the plan's note. */
int imgp_patch_write_dtb_note_(struct imgp_patch *patch, const char *path,
			      const char *why);

/* ----------------------------------------------- the tree (patch-tree.c) */

/*
 * Loads the fdt image spec (name or dumpimage index; NULL: the only fdt)
 * from the FIT at fit_path, found on whichever partition has it, verifying
 * its hashes. That partition becomes the boot partition.
 */
int imgp_patch_load_fdt_(struct imgp_patch *patch, const char *fit_path,
			const char *spec);

/*
 * Plans rewriting the FIT the tree came from with the edited tree (see
 * imgp_fit_rewrite_); why (may be NULL) heads the plan's note ("via fit:
 * ..."). -EINVAL when the tree came from a .dtb file.
 */
int imgp_patch_write_fit_(struct imgp_patch *patch, const char *why);

/*
 * True when the image's recognised boot path names plain tree files
 * (extlinux, Armbian, Raspberry Pi, a boot script), not a FIT; false also
 * when no boot path is recognised.
 */
bool imgp_patch_boots_files_(struct imgp_patch *patch);

/*
 * Loads the tree the recognised boot path boots (not a FIT's: extlinux,
 * Armbian, Raspberry Pi...) as the tree to edit; model picks one of
 * several (a model filter "pi4", the file name or its path). -ENOENT when
 * the path names no tree, -EINVAL when it boots several and model is NULL
 * (the message lists them).
 */
int imgp_patch_load_booted_(struct imgp_patch *patch, const char *model);

/*
 * The way for the tree imgp_patch_load_booted_() loads: asked, or by
 * default a new overlay where the path applies a list of them and no
 * edit deletes (an overlay cannot), else the tree file in place. *why is
 * the plan's line saying so. -EINVAL naming the alternative when asked
 * cannot work (override and fit need a FIT; overlay cannot delete or
 * needs a list).
 */
int imgp_patch_via_choose_(struct imgp_patch *patch, enum imgp_via asked,
			  bool deletes, enum imgp_via *via, const char **why);

/*
 * Plans the edited tree the way via (IMGP_VIA_OVERLAY or IMGP_VIA_FILE)
 * says: each --overlay file and each run of property sets a new overlay
 * (name, else "imgpatch-HASH") registered in the path's list, checked to
 * give the edited tree when applied; or the tree file rewritten.
 */
int imgp_patch_write_via_(struct imgp_patch *patch, enum imgp_via via,
			 const char *why, const char *name);

/*
 * Resolves a partition for patch options and recipe steps: "boot" (the
 * partition the device tree came from, else the survey's boot partition),
 * "root" (the survey's: the first with /etc/fstab), "nocloud" (cloud-init's
 * NoCloud seed: the partition labelled cidata, CIDATA or system-boot, or
 * bootfs when it holds /meta-data), or a number, GPT name or label. NULL with a message when there is none; the message keeps why
 * a lookup failed (a corrupt directory block is no "no partition has").
 */
const struct imgp_part *imgp_patch_part_(struct imgp_patch *patch,
					const char *spec);
/* Loads a plain .dtb file from a partition as the tree to edit. */
int imgp_patch_load_dtb_file_(struct imgp_patch *patch, const char *part,
			     const char *path);

/* Creates the node at an absolute path (and missing parents). */
int imgp_patch_dt_add_node_(struct imgp_patch *patch, const char *path);

/* Plans writing data to path on a partition (see imgp_patch_part_). */
int imgp_patch_put_file_(struct imgp_patch *patch, const char *part,
			const char *path, const void *data, size_t len);
/*
 * The same, the file then getting permission bits mode (0600 for a
 * NetworkManager keyfile, which it ignores when others may read it) when
 * it is written; -ENOTSUP for a filesystem without permissions (FAT).
 */
int imgp_patch_put_file_mode_(struct imgp_patch *patch, const char *part,
			     const char *path, const void *data, size_t len,
			     unsigned mode);
/*
 * The fields after KEY on its lines of a field file (imgp_text_set_fields_;
 * /etc/hosts's 127.0.1.1 line); a missing file changes nothing.
 */
int imgp_patch_fields_set_(struct imgp_patch *patch, const char *part,
			  const char *path, const char *key, const char *value);
/* Line and token edits of a text file (see textedit.c); the file must exist. */
int imgp_patch_line_set_(struct imgp_patch *patch, const char *part,
			const char *path, const char *key, const char *value,
			const char *section);
int imgp_patch_line_remove_(struct imgp_patch *patch, const char *part,
			   const char *path, const char *key);
int imgp_patch_token_set_(struct imgp_patch *patch, const char *part,
			 const char *path, const char *token);
/*
 * Sets (entry) or removes (NULL) KEY's top-level entry of a YAML file
 * (imgp_yaml_set_key_); a missing file is created with header and entry.
 */
int imgp_patch_yaml_key_(struct imgp_patch *patch, const char *part,
			const char *path, const char *header, const char *key,
			const char *entry);
int imgp_patch_token_remove_(struct imgp_patch *patch, const char *part,
			    const char *path, const char *key);
/*
 * Plans the folder path on part, whose parent must exist, when it is not
 * there: for a file the distribution's own tool writes into a folder it
 * creates on first use (Armbian's armbian-add-overlay: mkdir -p
 * /boot/overlay-user). why is the plan's note. Plan it before the file.
 * Returns 0, or -errno.
 */
int imgp_patch_mkdir_(struct imgp_patch *patch, const struct imgp_part *part,
		     const char *path, const char *why);
/* Plans the symbolic link path -> target on part (ext only). */
int imgp_patch_link_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *path, const char *target);
/*
 * view = the plan's boot partition as the plan leaves it (a boot path's
 * overlay_site reads it): a file is there when imgp_patch_read_() finds it.
 */
struct imgp_boot_view;
void imgp_patch_boot_view_(struct imgp_patch *patch, struct imgp_boot_view *view);
/*
 * The target of the link at path as the plan leaves it: *exists false (0)
 * when nothing is there; -EINVAL when something other than a link is.
 */
int imgp_patch_readlink_(struct imgp_patch *patch, const struct imgp_part *part,
			const char *path, struct imgp_buf *out, bool *exists);
/* Plans the symbolic link path -> target (ext only). */
int imgp_patch_symlink_(struct imgp_patch *patch, const char *part,
		       const char *path, const char *target);

/*
 * Plans a U-Boot script image made from text at path (as mkimage -T script
 * makes it; the header time is SOURCE_DATE_EPOCH, or that of the script
 * already there when its text is the same, so re-runs change nothing).
 */
int imgp_patch_bootscr_(struct imgp_patch *patch, const char *part,
		       const char *path, const char *text, size_t len,
		       const char *name, const char *arch);

/*
 * Appends word to a list of the text file at path (see patch-list.c): a
 * "key=a b c" line, extlinux.conf's fdtoverlays of the label it boots,
 * or config.txt's dtoverlay= lines that apply to every model (sections
 * NULL) or under each of the filters sections names (one a line: "pi400\n",
 * as imgp_rpi_own_filters_ gives them; the file then ends in [all]); the
 * owner's entries stay, and a word already there changes nothing.
 */
int imgp_patch_list_add_(struct imgp_patch *patch, const char *part,
			const char *path, const char *key, const char *word,
			const char *sections);

/* "override", "fit", "overlay", "file" ("default"). */
const char *imgp_via_name_(enum imgp_via via);

/* The tree imgp_patch_load_booted_() would load (on the boot partition), not loaded. */
int imgp_patch_find_booted_(struct imgp_patch *patch, const char *model,
			   const struct imgp_survey_bootdt **out);

/* ------------------------------------------------------------- journal.c */

/*
 * 1 when the journal at path is that of a run on img that finished (not
 * undone) and wrote a byte of one of the n ranges (img_off, len); else 0
 * (no journal, another image's, damaged). Never an error.
 */
int imgp_journal_touched_(const char *path, const struct imgp_image *img,
			 const struct imgp_extent *ext, size_t n);
/*
 * Saves the old bytes of every range about to be written (read from img),
 * syncs, and marks the journal ready. Only then may the image be written.
 */
int imgp_journal_begin_(const char *path, const struct imgp_image *img,
		       const struct imgp_range *ranges, size_t n,
		       struct imgp_journal **out);
/*
 * 0 when there is no journal at path or its run on image finished (its
 * mark, or every region holding its new bytes, says so; image NULL: the
 * mark alone); -EBUSY "an
 * interrupted imgpatch run left ..." when a run died before finishing.
 */
int imgp_journal_check_(const char *path, const char *image);
/* imgp_journal_undo() by a caller that holds the image's lock. */
int imgp_journal_restore_(const char *path, const char *image, bool force,
			 size_t *restored, uint64_t *bytes);
/* Marks the journal done (every write is in the image and synced); frees it. */
int imgp_journal_done_(struct imgp_journal *j);
/* Frees a journal left unfinished (after a failed write). */
void imgp_journal_abandon_(struct imgp_journal *j);

/* ---------------------------------------- patch.c: the survey and the root */

/* The patch's survey of its disk (its boot path read), made when first asked; NULL: ENOMEM. */
struct imgp_survey *imgp_patch_survey_(struct imgp_patch *patch);
/*
 * Refuses a change of path (NULL: not known) on the root the
 * survey could not read (root_unread), naming the partition and its
 * filesystem, then alternative ("": none), or (NULL) cloud-init's seed
 * when the image has one. Returns -EROFS, or -ENOMEM.
 */
int imgp_patch_refuse_root_(struct imgp_patch *patch, const struct imgp_part *root,
			   const char *path, const char *alternative);
/*
 * The survey's boot script of part (/boot.scr.uimg or /boot.scr), when it
 * is the one the patch would read and no step planned a change to it; NULL
 * otherwise (then it is read through the patch).
 */
const struct imgp_survey_script_ *
imgp_patch_surveyed_script_(struct imgp_patch *patch, const struct imgp_part *part);

/* ------------------------------------------- patch-dt.c, patch-via.c */

enum imgp_dt_edit_kind {
	IMGP_DT_EDIT_SET, IMGP_DT_EDIT_DELETE, IMGP_DT_EDIT_DELETE_NODE,
	IMGP_DT_EDIT_ADD_NODE, IMGP_DT_EDIT_OVERLAY,
};
/* Records an edit made to the loaded tree (node: its full path). 0 or -ENOMEM. */
int imgp_dt_plan_record_(struct imgp_patch *patch, enum imgp_dt_edit_kind kind,
			const char *node, const char *prop, const void *data,
			size_t len, const char *name);
void imgp_dt_plan_free_(struct imgp_dt_plan *p);
/*
 * 1 when the effective tree of the boot path's tree being edited (its
 * overlays applied) has the property at node path, with *where (malloc'd)
 * naming that tree; 0 when it has not, or there is no such tree (a FIT's);
 * -ENOMEM.
 */
int imgp_dt_plan_effective_has_(struct imgp_patch *patch, const char *path,
			       const char *prop, char **where);
/* Loads blob (the tree a boot path builds) as the tree to edit; origin names it. */
int imgp_patch_load_dtb_blob_(struct imgp_patch *patch, const struct imgp_part *part,
			     const void *blob, size_t size, const char *origin);
/*
 * The plan's note for the edited tree: why, where it came from, the edits,
 * the decompiled tree before and after (target names the after) as a diff.
 */
int imgp_patch_dt_note_(struct imgp_patch *patch, const char *why,
		       const char *target, struct imgp_buf *note);

/* ------------------------------------------------------------ patch-list.c */

/*
 * The syntax of the list key (NULL: none) in the file at path: a module
 * list's by its name, else the first boot path's that owns it (survey.c's
 * order), else a shell list's by its name, else "key=a b c".
 */
struct imgp_list_syntax;
const struct imgp_list_syntax *imgp_list_syntax_of_(const char *path, const char *key);
/* Whether the list at path has no key (a module list: /etc/modules). */
bool imgp_list_keyless_(const char *path);
/*
 * out = text with word added to the list (see imgpatch.h,
 * imgp_patch_list_add_) in syntax; sections as there. Returns 1 when it
 * changed, 0 when the word was there, -EINVAL for a word that cannot be a
 * list entry, -ENOENT for an extlinux.conf without a label, -ENOMEM.
 */
int imgp_list_add_(const char *text, size_t len, const struct imgp_list_syntax *syntax,
		  const char *key, const char *word, const char *sections,
		  struct imgp_buf *out);

#endif /* IMGP_PATCH_H */
