/* SPDX-License-Identifier: MIT */
/*
 * imgpatch info, private: the facts collected from an image (info-collect.c)
 * and printed as text (info-text.c) or JSON (info-json.c). Each section also
 * keeps why it is missing or failed, so both outputs say the same.
 */
#ifndef IMGP_INFO_H
#define IMGP_INFO_H

#include "cli.h"

#define OVERRIDE_PATH "/user-override.dtb"
#define OVERRIDE_WORD "user-override.dtb"

enum hash_state { HASH_NONE, HASH_OK, HASH_BAD, HASH_UNSUPPORTED };

struct info_hash {
	enum hash_state state;
	char *error;             /* why the hashes do not verify */
};

struct info_fit {
	const char *path;
	const struct imgp_part *part; /* NULL when no partition has the file */
	char *missing;           /* why part is NULL */
	char *error;             /* the file could not be read or parsed */
	size_t size;
	bool parsed;
	struct imgp_fit fit;
	struct info_hash *hash;  /* one per fit.images entry */
};

struct info_script {
	const struct imgp_part *part;
	const char *path;        /* NULL when there is no script */
	char *missing;
	char *error;
	size_t size;
	int parse_rc;            /* -EBADMSG: a CRC does not match */
	bool parsed;
	struct imgp_bootscr scr;
	bool loads_override;
};

/* /user-override.dtb on the boot partition (the FIT's, else the script's). */
struct info_override {
	const struct imgp_part *part; /* where it was looked for */
	char *missing;           /* there was no boot partition to look on */
	char *error;
	bool exists;
	struct imgp_buf data;
};

enum dt_state { DT_OK, DT_COMPRESSED, DT_SKIPPED, DT_ERROR };

/* One device tree whose SD/eMMC controllers are listed. */
struct info_dt {
	const struct imgp_fit_image *image; /* NULL: user-override.dtb */
	enum dt_state state;
	char *error;             /* DT_SKIPPED, DT_ERROR: why */
	size_t nmmc;
	struct imgp_dt_mmc *mmc;
};

struct info_fstab {
	const struct imgp_part *part;
	char *missing;
	char *error;
	char *no_root;           /* the file has no "/" entry (not a problem) */
	bool have_root;
	struct imgp_fstab_entry root;
};

struct info {
	const char *path;
	struct imgp_disk disk;
	char **fs_error;         /* per partition: why its filesystem does not open */
	struct info_fit fit;
	struct info_script script;
	struct info_override override;
	size_t ndts;
	struct info_dt *dts;
	struct info_fstab fstab;
	int problems;
};

/* Each collects one section into in; the order matters (see cmd_info()). */
void info_collect_fs(struct info *in);
void info_collect_fit(struct info *in);
void info_collect_script(struct info *in);
void info_collect_override(struct info *in);
void info_collect_dts(struct info *in);
void info_collect_fstab(struct info *in);
/* Frees what the collect functions allocated, and closes the disk. */
void info_free(struct info *in);

/* The sector size the table counts in (512 when it does not say). */
unsigned info_sector_size(const struct info *in);
/* True for a controller property that keeps the card from UHS-I modes. */
bool info_is_uhs_blocker(const char *prop);

/* Prints everything as text tables. */
void info_print_text(const struct info *in);
/* Prints everything as one JSON document; returns 0 or a negative errno. */
int info_print_json(const struct info *in);

#endif
