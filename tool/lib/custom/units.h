/* SPDX-License-Identifier: MIT */
/*
 * What custom-units.c, unit-file.c, unit-path.c and unit-name.c share:
 * systemd's unit names, a root read through struct imgp_unit_root with
 * its links resolved inside it, and a unit's files read as systemd 252's
 * src/shared/install.c reads them (Debian 12's systemd 252.39-1~deb12u2).
 */
#ifndef IMGP_CUSTOM_UNITS_H
#define IMGP_CUSTOM_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#include "custom/custom.h"

enum {
	IMGP_UNIT_PLAIN = 1,     /* foo.service */
	IMGP_UNIT_INSTANCE = 2,  /* foo@bar.service */
	IMGP_UNIT_TEMPLATE = 4,  /* foo@.service */
};

/* The suffix after the last dot when it is a unit type ("service"), else NULL. */
const char *imgp_unit_name_type_(const char *name);
/* Which IMGP_UNIT_* name is, or 0 when systemd refuses it. */
unsigned imgp_unit_name_kind_(const char *name);
/* Whether instance may follow the '@' (unit_instance_is_valid). */
bool imgp_unit_instance_valid_(const char *instance);
/* Whether Alias= (resp. a template) is allowed for the unit's type. */
bool imgp_unit_type_may_alias_(const char *name);
bool imgp_unit_type_may_template_(const char *name);
/* foo@bar.service -> foo@.service; -EINVAL for a plain name. */
int imgp_unit_name_template_(const char *name, char **out);
/* The instance ("" for a template); -EINVAL for an invalid name. */
int imgp_unit_name_instance_(const char *name, char **out);
/* foo@.service or foo@x.service with instance -> foo@instance.service. */
int imgp_unit_name_with_instance_(const char *name, const char *instance,
				 char **out);
/*
 * unit_validate_alias_symlink_or_warn: whether a link named alias may
 * point to unit: 0; -ELOOP the same name; -EINVAL alias's type has no
 * aliases; -EXDEV another type, kind or instance.
 */
int imgp_unit_alias_check_(const char *alias, const char *unit);
/* The name before '@' (with_instance: before the suffix, "foo@bar"). */
int imgp_unit_name_prefix_(const char *name, bool with_instance, char **out);

/* lp->persistent_config: where enable and mask write. */
#define UNIT_CONFIG_DIR "/etc/systemd/system"

/* Bounds against a hostile root; systemd's own are in the comments. */
#define UNIT_LINKS_MAX 40         /* chase_symlinks' CHASE_SYMLINKS_MAX */
#define UNIT_FOLLOW_MAX 64        /* UNIT_FILE_FOLLOW_SYMLINK_MAX */
#define UNIT_PATH_MAX 4096        /* PATH_MAX */
#define UNIT_FILE_MAX (1u << 20)  /* a unit file or drop-in read whole */
#define UNIT_INFOS_MAX 256        /* units one request may pull in via Also= */
#define UNIT_TREE_DEPTH 8         /* folders below /etc/systemd/system walked */
#define UNIT_TREE_ENTRIES 100000  /* names looked at in that walk */

enum unit_mode { MODE_UNSET, MODE_REGULAR, MODE_MASKED, MODE_ALIAS, MODE_LINKED };

struct unit_strv {
	char **v;
	size_t n;
};

/* install.c's InstallInfo: one unit name and what its files say. */
struct unit_info {
	char *name;
	char *path;              /* in the root, as systemctl writes it */
	char *link_target;       /* MODE_ALIAS, MODE_LINKED: where path points */
	enum unit_mode mode;
	struct unit_strv aliases, wanted_by, required_by;
	char *default_instance;
	bool auxiliary;          /* named by Also=: may be missing */
	bool processed;
};

struct unit_ctx {
	const struct imgp_unit_root *root;
	struct unit_info **v;    /* install.c's will_process + have_processed */
	size_t n;
	struct imgp_unit_links *out;
	struct unit_strv marked; /* disable: names and paths to remove links to */
	size_t walked;
};

/* unit-path.c: the search path's folders in order; NULL after the last. */
const char *imgp_unit_search_dir_(size_t k);
/* Whether path's folder is one of them (in_search_path), or path lies below one. */
bool imgp_unit_in_search_path_(const char *path);
bool imgp_unit_under_search_path_(const char *path);

/* A list of strings: 0 or -ENOMEM; freed; whether it holds str. */
int imgp_unit_strv_push_(struct unit_strv *s, const char *str);
void imgp_unit_strv_free_(struct unit_strv *s);
bool imgp_unit_strv_has_(const struct unit_strv *s, const char *str);

/* Absolute paths in the root, taken apart and joined (malloc'd; NULL: no memory). */
const char *imgp_unit_basename_(const char *path);
char *imgp_unit_dirname_(const char *path);
char *imgp_unit_join_(const char *dir, const char *name);
/* path without "." and "..", no link followed; relative ones from dir. */
int imgp_unit_normalize_(const char *dir, const char *path, char **out);
/* The target of the link at a resolved path: 0, -EINVAL not a link, -ENOENT. */
int imgp_unit_readlink_(struct unit_ctx *c, const char *path, char **target);
/* path with its links followed inside the root (chase_symlinks); -ELOOP. */
int imgp_unit_chase_(struct unit_ctx *c, const char *path, bool follow_last,
		    char **out);
/* The whole text of a file, its links followed; -ENOENT, -EFBIG, -EINVAL (NUL). */
int imgp_unit_read_(struct unit_ctx *c, const char *path, char **text);

/* unit-file.c: the unit of that name in c (added when new); -EINVAL bad name. */
int imgp_unit_add_(struct unit_ctx *c, const char *name, bool auxiliary,
		  struct unit_info **out);
void imgp_unit_info_free_(struct unit_info *i);
/* fmt with the specifiers that name units filled (%n %N %p %i %j %%); -EINVAL others. */
int imgp_unit_printf_(const struct unit_info *i, const char *file,
		     const char *fmt, char **out);
/* The unit's file found (load: [Install] and drop-ins read); -ENOENT naming the folders. */
int imgp_unit_search_(struct unit_ctx *c, struct unit_info *i, bool load);
/* The unit's file with aliases and linked files followed to the unit they name. */
int imgp_unit_traverse_(struct unit_ctx *c, struct unit_info *start,
		       bool follow_config, struct unit_info **out);

#endif
