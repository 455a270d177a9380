/* SPDX-License-Identifier: MIT */
/*
 * imgpatch info, private: the library's survey of an image (survey.c)
 * printed as text (info-text.c) or JSON (info-json.c). A fact the survey
 * could not read keeps why, so both outputs say the same.
 */
#ifndef IMGP_INFO_H
#define IMGP_INFO_H

#include "cli.h"

/* A kernel command line of the boot path (imgp_survey_cmdline). */
struct info_cmdline {
	const char *model;       /* the tree's model, else its path; NULL: every tree's */
	struct imgp_buf where, line, loader;
};

struct info {
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
	struct info_cmdline *cmdlines;
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
bool info_shows(const struct info *in, size_t i, const struct imgp_entry_view *dt);
bool info_shows_tree(const struct info *in, const struct imgp_tree_view *tree);

/* The sector size the table counts in (512 when it does not say). */
unsigned info_sector_size(const struct info *in);
/* True for a controller property that keeps the card from UHS-I modes. */
bool info_is_uhs_blocker(const char *prop);

/* No partition had the FIT, the boot script, the hook file, /etc/fstab. */
bool info_fit_missing(const struct info *in);
bool info_script_missing(const struct info *in);
bool info_override_missing(const struct info *in);
bool info_fstab_missing(const struct info *in);
/* The script mentions IMGP_OVERRIDE_NAME. */
bool info_script_loads_override(const struct info *in);
/* Why /etc/fstab could not be read or is malformed; NULL when neither. */
const char *info_fstab_error(const struct info *in);
/*
 * The effective tree of the boot path's entry i, with its controllers, into
 * *e; false for a FIT's boot path (its trees are the survey's).
 */
bool info_effective(const struct info *in, size_t i, struct imgp_effective_view *e);
/*
 * Warning k of effective tree e (NULL past the last): those met building
 * it, then why an entry did not take effect when the boot still ends with
 * a tree (not a problem).
 */
const char *info_warning(const struct info *in, const struct imgp_effective_view *e,
			 size_t k);

/* Prints everything as text tables. */
void info_print_text(const struct info *in);
/* Prints everything as one JSON document; returns 0 or a negative errno. */
int info_print_json(const struct info *in);

#endif
