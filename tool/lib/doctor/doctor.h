/* SPDX-License-Identifier: MIT */
/*
 * Inside the doctor: what doctor.c gathers once and every check reads
 * (boot and root partitions, FIT, boot script, the device trees the board
 * may boot, /etc/fstab), the checks themselves, one file per area
 * (doctor-mmc.c, doctor-fstab.c, doctor-boot.c, doctor-kernel.c,
 * doctor-rpi.c), and the helpers they add findings with.
 */
#ifndef IMGP_DOCTOR_H
#define IMGP_DOCTOR_H

#include "imgpatch.h"
#include "part/part.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "boot/boot.h"

/* "info" or "warning". */
const char *imgp_severity_name_(enum imgp_severity sev);

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

/* Finding i, in check order; NULL past the last. */
const struct imgp_finding *imgp_doctor_finding_(const struct imgp_doctor *doc, size_t i);

/* What a report judged; its strings are the report's. */
struct imgp_doctor_view {
	size_t nfindings;
	const char *picked;      /* the tree judged alone, when one was picked among several; NULL: all */
	const char *picked_by;   /* "--model", or "the image's U-Boot (fdtfile)" */
	size_t ntrees;           /* trees the boot path offers */
	/* With no pick among several trees U-Boot chooses from: the variable that chooses. */
	const char *chooser;
	/*
	 * The root was not read (a filesystem imgpatch has no backend for):
	 * which partition, and the findings that need it, not judged; NULL
	 * when the root was read or there is none to read.
	 */
	const char *root_unread;
};
void imgp_doctor_get_(const struct imgp_doctor *doc, struct imgp_doctor_view *out);

/*
 * Appends arg to out as a POSIX shell word: as it is when it holds only
 * safe characters, else in single quotes. Returns 0 or -ENOMEM.
 */
int imgp_shell_quote_(struct imgp_buf *out, const char *arg);

/* A report (struct imgp_doctor_view says what each member means). */
struct imgp_doctor {
	size_t n;
	struct imgp_finding *findings;
	char *picked;            /* owned */
	const char *picked_by;
	size_t ntrees;
	const char *chooser;
	char *root_unread;       /* owned */
};

/* Frees what a report holds (not doc itself) and empties it. */
void imgp_doctor_clear_(struct imgp_doctor *doc);

/* A device tree the board may boot. */
struct doctor_tree {
	const struct imgp_part *part;
	char *file;                         /* IMGP_FIT_PATH, "/x.dtb" (owned) */
	const struct imgp_fit_image *image; /* its FIT image; NULL for a .dtb file */
	const struct imgp_effective *eff;   /* the effective tree; NULL: a file no boot path names */
	struct imgp_dtb dtb;                /* owned unless eff's */
};

/*
 * What the checks read: the survey of the image (boot and root partitions,
 * the FIT, the boot script and its hook, the root's /etc/fstab), and what
 * only the doctor asks: the boot partition's top directory and the trees
 * the board may boot.
 */
struct doctor {
	struct imgp_survey sv;
	struct imgp_doctor *out;
	char **boot_names;                  /* the boot partition's top directory */
	size_t nboot_names;
	size_t ntrees;
	struct doctor_tree *trees;
	/* The effective trees (trees share their dtb): the survey's, or --fdt's own. */
	size_t neffective;
	struct imgp_effective *effective;
	bool own_effective;                 /* --fdt's, freed with the doctor */
};

/* The checks, in the order they run (doctor.c). Each returns 0 or -errno. */
int imgp_doctor_check_mmc_(struct doctor *d);
int imgp_doctor_check_fstab_(struct doctor *d);
int imgp_doctor_check_boot_(struct doctor *d);
int imgp_doctor_check_kernel_(struct doctor *d);
int imgp_doctor_check_rpi_(struct doctor *d);

/* Reads a file; 1 when read, 0 when it does not exist, or -errno. */
int imgp_doctor_read_(struct doctor *d, const struct imgp_part *part,
		const char *path, size_t max, struct imgp_buf *out);
/* 1 when path exists (a link counts, even dangling), 0 when not, or -errno. */
int imgp_doctor_exists_(struct doctor *d, const struct imgp_part *part,
		  const char *path);
/* The names in a directory; -ENOENT when it is missing. */
int imgp_doctor_list_(struct doctor *d, const struct imgp_part *part,
		const char *dir, char ***names, size_t *n);
/* True when the boot script mentions word. */
bool imgp_doctor_script_mentions_(const struct doctor *d, const char *word);
/* True when the FIT's boot script loads IMGP_OVERRIDE_PATH and it is there. */
bool imgp_doctor_override_in_effect_(const struct doctor *d);

/* The kinds of finding; each has its entry in imgp_doctor_findings_[]. */
enum doctor_finding_id {
	DOCTOR_UHS_BLOCKED,
	DOCTOR_UHS_MODES_MISSING,
	DOCTOR_MAX_FREQUENCY_CAP,
	DOCTOR_BROKEN_CD,
	DOCTOR_EMMC_HS200_MISSING,
	DOCTOR_EMMC_VQMMC_3V3,
	DOCTOR_BUS_WIDTH_LOW,
	DOCTOR_FSTAB_DISCARD,
	DOCTOR_FSTAB_ATIME,
	DOCTOR_FSTRIM_TIMER_OFF,
	DOCTOR_SWAP_ON_SD,
	DOCTOR_BOOT_OVERRIDE_IGNORED,
	DOCTOR_FIT_CONFIG,
	DOCTOR_OVERLAY_NOT_APPLIED,
	DOCTOR_OVERLAY_NO_ROOM,
	DOCTOR_TREE_MISSING,
	DOCTOR_OVERLAY_NOT_DURABLE,
	DOCTOR_OVERRIDE_STALE,
	DOCTOR_KERNEL_STORAGE_FIX_MISSING,
	DOCTOR_RPI_SD_OVERCLOCK,
	DOCTOR_NFINDINGS
};

/* A kind of finding, as the manual and the JSON schema list it. */
struct doctor_finding_kind {
	const char *id;              /* stable: JSON "id", text output, manual */
	enum imgp_severity severity; /* as a rule */
	enum imgp_severity milder;   /* where the check sees a smaller cost */
	const char *title;           /* what is wrong, in general */
	const char *cost;            /* what it costs, in general */
	const char *anchor;          /* its subsection of DOCTOR FINDINGS in imgpatch(1) */
};
/* The table (findings.c), indexed by enum doctor_finding_id. */
extern const struct doctor_finding_kind imgp_doctor_findings_[DOCTOR_NFINDINGS];

/*
 * Adds a finding of kind id with its severity and returns it, or NULL
 * (message set) when out of memory. The pointer stays valid until the next
 * imgp_doctor_add_().
 */
struct imgp_finding *imgp_doctor_add_(struct doctor *d, enum doctor_finding_id id);
/* imgp_doctor_add_(), with the kind's milder severity when milder is true. */
struct imgp_finding *imgp_doctor_add_milder_(struct doctor *d, enum doctor_finding_id id,
				       bool milder);
/* printf into *field (replacing it); non-printable bytes become '?'. */
int imgp_doctor_set_(char **field, const char *fmt, ...) IMGP_PRINTF(2, 3);
/*
 * Evidence of a device-tree finding: partition, file, fdt, node, property,
 * and the boot path, model and provenance of the effective tree.
 */
/* The boot path, model and provenance of effective tree t, into f. */
int imgp_doctor_path_evidence_(struct imgp_finding *f, const struct imgp_effective *t);
int imgp_doctor_tree_evidence_(struct imgp_finding *f, const struct doctor_tree *t,
			 const char *node, const char *prop);
/*
 * The imgpatch patch arguments that apply one device-tree edit (option
 * "--dt-delete", "--dt-set", ...; arg "NODE:PROP[=VALUE]") to tree t: only
 * for a FIT tree, and only when the boot script loads user-override.dtb
 * (where patch writes the result). Otherwise leaves patch_args NULL.
 */
int imgp_doctor_tree_patch_(struct doctor *d, struct imgp_finding *f,
		      const struct doctor_tree *t, const char *option,
		      const char *arg);
/* True when a string-list property of node holds s. */
bool imgp_doctor_dt_has_string_(const void *fdt, int node, const char *prop,
			  const char *s);

/* Kernel releases that fixed a storage problem (doctor-kernel-fixes.c). */
struct doctor_kernel_fix {
	const char *soc;         /* root compatible of the boards it concerns */
	const char *device;      /* compatible of the device the fix is in */
	unsigned version[3];     /* first release with the fix */
	const char *title;
	const char *cost;
};
extern const struct doctor_kernel_fix imgp_doctor_kernel_fixes_[];
extern const size_t imgp_doctor_nkernel_fixes_;

#endif
