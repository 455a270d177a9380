/* SPDX-License-Identifier: MIT */
/*
 * info/: what imgpatch info shows of a survey (boot/survey.c), gathered
 * once (info.c) and written as text (info-text.c) or JSON (info-json.c).
 * A fact the survey could not read keeps why, so both outputs say the
 * same. Shared by the folder's files, not part of the client API.
 */
#ifndef IMGP_INFO_H
#define IMGP_INFO_H

#include "imgpatch.h"
#include "disk/disk.h"
#include "boot/boot.h"

/* A kernel command line of the boot path (imgp_survey_cmdline). */
struct imgp_info_cmdline {
	const char *model;       /* the tree's model, else its path; NULL: every tree's */
	struct imgp_buf where, line, loader;
};

struct imgp_info {
	FILE *out;               /* where it is written */
	bool failed;             /* text: a table row was left out (out of memory) */
	const char *path;
	const struct imgp_disk *disk; /* the survey's */
	struct imgp_survey *sv;
	struct imgp_survey_view v;  /* its facts */
	struct imgp_fit_view fit;
	struct imgp_script_view script;
	struct imgp_fstab_view fstab;
	int problems;            /* facts that could not be read, bad hashes */
	/* One line for the boot path, or one per tree where they differ (unless cmdline_error). */
	size_t ncmdlines;
	struct imgp_info_cmdline *cmdlines;
	char *cmdline_error;     /* why there is none (not a problem); NULL */
	/*
	 * A likely root on btrfs: the subvolume option of the command line's
	 * rootflags= ("subvol=root", "subvolid=256"), which the kernel mounts;
	 * NULL: none, the filesystem's default subvolume. Unset (and
	 * root_subvol_known false) when there is no one command line.
	 */
	char *root_subvol;
	bool root_subvol_known;
	/*
	 * A likely root inside LUKS: the command line's word that names its
	 * container (cryptdevice=, rd.luks.uuid=, rd.luks.name=), as
	 * "key=value"; root_opens_other when it names another. NULL: none.
	 */
	char *root_opens;
	bool root_opens_other;
	/*
	 * The tree --model names (picked: one was given). Where U-Boot picks
	 * one of more than a dozen trees by a variable (v.chooser), the text
	 * without --model shows only the one the image's own U-Boot picks (if
	 * it names one) and says how many there are: brief is set.
	 */
	bool picked;
	struct imgp_effective_view pick;
	bool brief;
};

/* Whether the boot path's tree i is shown (--model, brief), and a FIT's or override's tree. */
bool imgp_info_shows_(const struct imgp_info *in, size_t i, const struct imgp_entry_view *dt);
bool imgp_info_shows_tree_(const struct imgp_info *in, const struct imgp_tree_view *tree);

/* The sector size the table counts in (512 when it does not say). */
unsigned imgp_info_sector_size_(const struct imgp_info *in);
/* True for a controller property that keeps the card from UHS-I modes. */
bool imgp_info_is_uhs_blocker_(const char *prop);

/* No partition had the FIT, the boot script, the hook file, /etc/fstab. */
bool imgp_info_fit_missing_(const struct imgp_info *in);
bool imgp_info_script_missing_(const struct imgp_info *in);
bool imgp_info_override_missing_(const struct imgp_info *in);
bool imgp_info_fstab_missing_(const struct imgp_info *in);
/* The script mentions IMGP_OVERRIDE_NAME. */
bool imgp_info_script_loads_override_(const struct imgp_info *in);
/* Why /etc/fstab could not be read or is malformed; NULL when neither. */
const char *imgp_info_fstab_error_(const struct imgp_info *in);
/*
 * The effective tree of the boot path's entry i, with its controllers, into
 * *e; false for a FIT's boot path (its trees are the survey's).
 */
bool imgp_info_effective_(const struct imgp_info *in, size_t i, struct imgp_effective_view *e);
/*
 * Warning k of effective tree e (NULL past the last): those met building
 * it, then why an entry did not take effect when the boot still ends with
 * a tree (not a problem).
 */
const char *imgp_info_warning_(const struct imgp_info *in, const struct imgp_effective_view *e,
			 size_t k);

/* Writes everything as text tables. Returns 0, -ENOMEM or -EIO. */
int imgp_info_print_text_(struct imgp_info *in);
/* Writes everything as one JSON document. Returns 0 or -errno. */
int imgp_info_print_json_(const struct imgp_info *in);

#endif
