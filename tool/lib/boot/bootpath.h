/* SPDX-License-Identifier: MIT */
/*
 * boot/: the contract of a boot path (struct imgp_bootpath, one file
 * bootpath-*.c each, listed in survey.c) and what its ops share: where
 * the kernel command line is kept (cmdline-site.c), where a new overlay
 * goes, the configuration a UEFI loader reads, U-Boot's script language
 * and fdt commands, the record describe() fills, and what Debian's
 * u-boot-update reads.
 */
#ifndef IMGP_BOOTPATH_H
#define IMGP_BOOTPATH_H

#include "imgpatch.h"
#include "part/part.h"
#include "dt/dt.h"
#include "boot/boot.h"

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
void imgp_cmdline_site_free_(struct imgp_cmdline_site *site);
/*
 * The site of the command line of the tree model names (NULL: the boot
 * path's, which must be the same for each of its trees, else -EINVAL
 * listing them). -ENOENT (no boot path, no such tree), -ENOTSUP (the
 * path keeps none it can edit), -ENOMEM; each with its message.
 */
int imgp_cmdline_site_get_(struct imgp_survey *sv, const char *model,
			  struct imgp_cmdline_site *site);
/*
 * The text site->locate() reads from the file's bytes (raw, len; existed:
 * the file is there): the file itself, or the script of a script image
 * (empty when there is none). 0, -EINVAL or -EBADMSG (a script image that
 * does not parse; the message names path), -ENOMEM.
 */
int imgp_cmdline_site_text_(const struct imgp_cmdline_site *site, const void *raw,
			   size_t len, bool existed, struct imgp_buf *text);
/*
 * The line as the loader takes it from text (len bytes): site->lead's
 * words (*lead its span, found false when unset or no lead), a blank,
 * then the line's (*span), into out (emptied, NUL-terminated). Returns
 * 0, or locate()'s error, or -ENOMEM.
 */
int imgp_cmdline_site_line_(const struct imgp_cmdline_site *site, const char *text,
			   size_t len, struct imgp_cmdline_span *span,
			   struct imgp_cmdline_span *lead, struct imgp_buf *out);
/* Sets site's strings (each may be NULL; copied). 0 or -ENOMEM. */
int imgp_cmdline_site_set_(struct imgp_cmdline_site *site, const struct imgp_part *part,
			  const char *path, const char *what, const char *loader,
			  const char *arg);
/*
 * locate() for a "KEY=VALUE" setting U-Boot's env import -t reads (site->arg
 * the key): the last line of KEY wins; a new one goes at the end.
 */
int imgp_cmdline_locate_env_(const struct imgp_cmdline_site *site, const char *text,
			    size_t len, struct imgp_cmdline_span *span);
/*
 * locate() for a shell assignment KEY="VALUE" (site->arg the key) of a file
 * sh sources: the last one wins; its value double- or single-quoted without
 * expansions, or a plain word, else -EINVAL naming the line. A new one goes
 * at the end, double-quoted.
 */
int imgp_cmdline_locate_sh_(const struct imgp_cmdline_site *site, const char *text,
			   size_t len, struct imgp_cmdline_span *span);
/* Whether value can go into span's quotes as it is: 0, or -EINVAL with a message. */
int imgp_cmdline_span_fits_(const struct imgp_cmdline_span *span, const char *value);
/*
 * The lines of a U-Boot script that set bootargs ("setenv bootargs ..."),
 * "LINE: text" each, joined by "; ", into out (emptied): 1 when there is
 * one, 0 when not, -ENOMEM.
 */
int imgp_cmdline_script_lines_(const char *script, struct imgp_buf *out);
/*
 * For a boot path whose U-Boot script sets bootargs itself: -ENOTSUP naming
 * the script's lines that do (hook_note, may be NULL, added), or saying
 * that it sets none.
 */
int imgp_cmdline_script_refusal_(struct imgp_survey *sv, const char *hook_note);

/* --------------------------------------------------------- bootpath-*.c */

struct imgp_uboot_menu;
struct imgp_overlay_site;
struct imgp_list_syntax;

/*
 * The boot partition as the caller (the plan) leaves it, for an op that
 * must see the files already planned: exists() gives whether path is
 * there (0 with *there, or -errno with imgp_fail()), ctx its own.
 */
struct imgp_boot_view {
	int (*exists)(void *ctx, const char *path, bool *there);
	void *ctx;
};

/*
 * One way the board boots and picks its device tree, in the shape of
 * U-Boot's boot/bootmeth_*.c: each is one file ending in one of these,
 * listed in survey.c's table and tried in that order.
 */
struct imgp_bootpath {
	const char *name;
	/*
	 * What names its tree, as the message for an image no path
	 * recognises lists it ("extlinux.conf"); NULL: not listed there.
	 */
	const char *named_by;
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
	 * when it rewrites the list (NULL: none); boot: the boot partition as
	 * the plan leaves it. Returns 0 or -errno with imgp_fail(). NULL: this
	 * way applies no list of overlays imgpatch can add to, and a changed
	 * tree is its file edited in place.
	 */
	int (*overlay_site)(const struct imgp_boot_view *boot,
			    const struct imgp_survey_bootdt *dt, const char *name,
			    const struct imgp_uboot_menu *gen, struct imgp_overlay_site *site);
	/*
	 * The section filters (one per line) under which a new list entry for
	 * tree goes because every board reads the list (config.txt); -ENOENT
	 * when none holds for tree's boards alone. NULL: the list has none.
	 */
	int (*overlay_filters)(const char *tree, struct imgp_buf *out);
	/*
	 * The syntax of the lists its loader reads (boot/bootlist.c), which
	 * imgp_list_syntax_of_() asks for a file; NULL: "key=a b c" (U-Boot's
	 * env import -t).
	 */
	const struct imgp_list_syntax *list;
	unsigned flags;          /* IMGP_BOOTPATHF_* */
	/*
	 * The files its loader reads by names of their own (its configuration,
	 * scripts, kernel, initrd, firmware), as fnmatch patterns over a whole
	 * path ("*" spans "/" too), matched whatever their case as on FAT; a
	 * device tree written there would replace one. NULL-terminated; NULL:
	 * none. imgp_survey_boot_file_() asks every boot path's, not only the
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

/* The i-th boot path of survey.c's table, in the order they are tried; NULL past the last. */
const struct imgp_bootpath *imgp_bootpath_at_(size_t i);
/* The boot path named name ("extlinux"); NULL when none is. */
const struct imgp_bootpath *imgp_bootpath_named_(const char *name);
/* The first boot path whose loads patterns match path (*pattern: which); NULL: none. */
const struct imgp_bootpath *imgp_bootpath_loading_(const char *path, const char **pattern);

/* The trees are a FIT's images: picked with --fdt, changed through the FIT or an override. */
#define IMGP_BOOTPATHF_FIT 0x1u
/*
 * Its loader applies config.txt's dtparam= lines to the tree it picks
 * itself (the Raspberry Pi firmware); a script that loads another drops them.
 */
#define IMGP_BOOTPATHF_DTPARAM 0x2u

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

extern const struct imgp_bootpath imgp_bootpath_fit_;
extern const struct imgp_bootpath imgp_bootpath_extlinux_;
extern const struct imgp_bootpath imgp_bootpath_script_;
extern const struct imgp_bootpath imgp_bootpath_flash_kernel_;
extern const struct imgp_bootpath imgp_bootpath_armbian_;
extern const struct imgp_bootpath imgp_bootpath_uenv_;
extern const struct imgp_bootpath imgp_bootpath_rpi_;
extern const struct imgp_bootpath imgp_bootpath_bls_;
extern const struct imgp_bootpath imgp_bootpath_grub_;
extern const struct imgp_bootpath imgp_bootpath_efi_;

/* bootlist.c: the lists of overlays the boot paths' loaders read. */
extern const struct imgp_list_syntax imgp_list_extlinux_;
extern const struct imgp_list_syntax imgp_list_config_txt_;
extern const struct imgp_list_syntax imgp_list_bls_;

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
extern const struct imgp_efi_loader imgp_efi_loader_bls_;
extern const struct imgp_efi_loader imgp_efi_loader_grub_;
/*
 * Whether every board the Raspberry Pi tree file dtb (a name in the FAT
 * root, "bcm2710-rpi-3-b.dtb") serves sees the config.txt model filter
 * ("pi3"), by Raspberry Pi's table of model filters. False for a name the
 * firmware does not load for a board.
 */
bool imgp_rpi_tree_sees_(const char *dtb, const char *filter);
/*
 * The config.txt filters ("pi400", "board-type=0x11"; one a line in out)
 * that together hold for exactly the boards the Raspberry Pi tree dtb (a
 * path or a name, "/bcm2711-rpi-4-b.dtb") serves: a model filter covering
 * those boards and no other, else [board-type=N] for each. 0, -ENOENT for
 * a tree no filter singles out (or no tree of a board), -ENOMEM.
 */
int imgp_rpi_own_filters_(const char *dtb, struct imgp_buf *out);
/*
 * The "deprecated" text the Raspberry Pi firmware's overlay map (a
 * checked tree in map; empty: none) gives the overlay name (n bytes, no
 * ".dtbo"): why the firmware refuses it. NULL when it gives none; points
 * into map.
 */
const char *imgp_rpi_map_deprecated_(const struct imgp_buf *map, const char *name, size_t n);

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
struct imgp_ushell *imgp_ushell_new_(const struct imgp_ushell_ops *ops, void *ctx);
void imgp_ushell_free_(struct imgp_ushell *sh);
/* Runs a script's text (a sourced one too, on the same variables). 0 or -errno. */
int imgp_ushell_run_(struct imgp_ushell *sh, const char *text);
/* Sets (value NULL: unsets) a variable; 0 or -errno. */
int imgp_ushell_setvar_(struct imgp_ushell *sh, const char *name, const char *value);
const char *imgp_ushell_getvar_(struct imgp_ushell *sh, const char *name);
/* The variables a test or printenv read while neither script nor board set them. */
size_t imgp_ushell_unset_(const struct imgp_ushell *sh, const char *const **names);
/* cmd/test.c: 0 (true) or 1 (false) for "test ARGS" (argv[0] "test"). */
int imgp_uboot_test_(int argc, const char *const *argv);
/* simple_strtol(s, NULL, 0): sign, 0x hex, 0 octal, else decimal, up to a non-digit. */
long imgp_uboot_strtol_(const char *s);
/*
 * fdt_shrink_to_minimum(fdt, extra) on a tree at a 4 KiB boundary whose
 * blocks take used bytes: its new total size (used, five reserve entries
 * and extra, rounded up to 4 KiB).
 */
size_t imgp_uboot_fdt_room_(size_t used, unsigned long extra);
/*
 * Runs one "fdt set|rm|mknode ..." (argv[0] "fdt") on dtb as U-Boot's
 * cmd/fdt.c does; the subcommands that do not edit the tree do nothing.
 * One imgpatch does not model is a warning into warnings (NULL: dropped).
 * Returns the command's status (0, 1), or -ENOMEM.
 */
int imgp_uboot_fdt_cmd_(struct imgp_dtb *dtb, int argc, char *const *argv,
		       struct imgp_buf *warnings);

/*
 * survey.c, for describe(): a text file of part, NUL-terminated, in *text
 * (owned). Returns 0, or -errno with the failure kept in bi.
 */
int imgp_bootinfo_read_(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
		       const struct imgp_part *part, const char *path, char **text);
/* Appends a tree (model may be NULL); NULL: out of memory. */
struct imgp_survey_bootdt *imgp_bootinfo_add_dt_(struct imgp_survey_bootinfo *bi,
						const char *model, const char *path);
/* Appends an overlay to dt; 0 or -ENOMEM. */
int imgp_bootinfo_add_overlay_(struct imgp_survey_bootdt *dt, const char *path);
/*
 * Appends an overlay that U-Boot applies in a bounded room: room >= 0 is
 * an fdt_shrink_to_minimum(room) just before it ("fdt resize", sysboot's
 * 8 KiB), -1 none. 0 or -ENOMEM.
 */
int imgp_bootinfo_add_overlay_room_(struct imgp_survey_bootdt *dt, const char *path,
				   long room);
/*
 * Whether model names dt, as --model takes it (patch and cat alike): its
 * model, its path (with or without the leading '/'), its file name, or
 * the tail of its path ("rockchip/rk3399-rockpro64.dtb").
 */
bool imgp_bootdt_named_(const struct imgp_survey_bootdt *dt, const char *model);
/* Frees what dt holds (not the labels after it) and zeroes it. */
void imgp_bootdt_clear_(struct imgp_survey_bootdt *dt);
/* Frees what bi holds: its trees with the labels after each, and its lines. */
void imgp_bootinfo_free_(struct imgp_survey_bootinfo *bi);
/* Appends a note on what dt's boot depends on that the image does not hold. */
int imgp_bootinfo_add_note_(struct imgp_survey_bootdt *dt, const char *note);
/* A script the loader sources after the overlays, and a variable it sees. 0 or -ENOMEM. */
int imgp_bootinfo_add_script_(struct imgp_survey_bootdt *dt, const char *path);
int imgp_bootinfo_add_script_var_(struct imgp_survey_bootdt *dt, const char *name_value);
/* Each blank-separated NAME of list, as prefix NAME suffix, onto dt; 0 or -ENOMEM. */
int imgp_bootinfo_add_overlays_(struct imgp_survey_bootdt *dt, const char *prefix,
			       const char *list, const char *suffix);
/* Replaces bi->summary with the printf result; 0 or -ENOMEM. */
int imgp_bootinfo_summary_(struct imgp_survey_bootinfo *bi, const char *fmt, ...)
	IMGP_PRINTF(2, 3);
/*
 * The next line of *text (advanced past it), blanks around it and a
 * comment from '#' cut; NULL at the end. Writes into the text.
 */
char *imgp_bootinfo_line_(char **text);
/* The value of a "key=value" line (env import -t's format); NULL: another key. */
const char *imgp_bootinfo_value_(const char *line, const char *key);
/* Whether the boot partition has path (a failed lookup counts as no). */
bool imgp_bootinfo_exists_(struct imgp_survey *sv, const char *path);

/*
 * survey.c, for the boot paths: the first partition (table order) whose
 * filesystem has path. Returns 0 with *part, or -ENOENT, or the -errno of
 * a lookup that failed (*part: where) when no other partition has it; the
 * message is kept in *error (owned, replaced) for any non-zero return.
 */
int imgp_survey_find_(struct imgp_survey *sv, const char *path,
		     const struct imgp_part **part, char **error);
/*
 * Keeps the current message (or strerror(-rc)) in *error (replacing it);
 * returns rc, or -ENOMEM (*error NULL) when it cannot be kept.
 */
int imgp_survey_keep_(int rc, char **error);
/*
 * A probe's lookup that failed with a cause (rc not -ENOENT): the first is
 * kept as the reason when no partition turns out to be the boot partition.
 * Returns 0 or -ENOMEM.
 */
int imgp_survey_boot_cause_(struct imgp_survey *sv, int rc, const char *error);
/*
 * The partition of the image an fstab spec names (LABEL=, UUID=,
 * PARTUUID=, PARTLABEL=); NULL: another device, or none.
 */
const struct imgp_part *imgp_survey_spec_part_(const struct imgp_survey *sv, const char *spec);
/*
 * 1 when the boot partition is not the root and the root's /etc/fstab
 * mounts it at /boot (a /boot partition: what the system writes to /boot
 * lands at its top), else 0; -ENOMEM. Reads the fstab once for the survey.
 */
int imgp_survey_boot_mounted_(struct imgp_survey *sv);
/*
 * Reads sv->script, the boot script of sv->boot, once per partition (a
 * probe may read it before the survey does). Failures are kept in
 * sv->script; returns 0 or -ENOMEM.
 */
int imgp_survey_script_(struct imgp_survey *sv);
/*
 * A probe by marker files: the first partition (in table order) that has
 * paths[0], else paths[1], ... becomes sv->boot. Returns 1 when one does,
 * 0 when none (a failed lookup kept as the cause), or -ENOMEM.
 */
int imgp_survey_probe_paths_(struct imgp_survey *sv, const char *const *paths,
			    size_t n);

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
bool imgp_uboot_menu_made_(const char *text, size_t len);
/*
 * Reads a root as u-boot-update would: its settings from root, its
 * overlay folder from boot, the partition the root mounts at /boot (NULL:
 * / and /boot are one filesystem). Returns 0 or -ENOMEM.
 */
int imgp_uboot_menu_read_(struct imgp_fs *root, struct imgp_fs *boot,
			 struct imgp_uboot_menu *m);
void imgp_uboot_menu_free_(struct imgp_uboot_menu *m);
/* out = "/a/b" with repeated '/' collapsed, as the shell finds it (b may be NULL). */
int imgp_uboot_menu_path_(const char *a, const char *b, struct imgp_buf *out);

#endif /* IMGP_BOOTPATH_H */
