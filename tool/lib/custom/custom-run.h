/* SPDX-License-Identifier: MIT */
/*
 * custom/: what the files that plan customize's settings share among
 * themselves (custom.c and its custom-*.c planners); not for other folders.
 */
#ifndef IMGP_CUSTOM_RUN_H
#define IMGP_CUSTOM_RUN_H

#include "custom/custom.h"
#include "text/text.h"
#include "part/part.h"
#include "patch/patch.h"

struct imgp_patch;
struct imgp_part;

/* How the image applies identity and network settings at its first boot. */
enum custom_way {
	CUSTOM_WAY_FILES,        /* the files themselves, read by systemd & co. */
	CUSTOM_WAY_CLOUDINIT,    /* a cloud-init NoCloud seed */
	CUSTOM_WAY_RPIOS,        /* Raspberry Pi Imager 1.x's firstrun.sh (custom-rpios.c) */
	CUSTOM_WAY_ARMBIAN,      /* armbian-firstlogin's presets (custom-armbian.c) */
};

/* A user --user adds, with what later options say of them. */
struct custom_user {
	char *name;
	char *hash;              /* the password field; NULL: locked */
	char **keys;             /* authorized keys */
	size_t nkeys;
};

/* One run of the settings over one plan. */
struct custom_run {
	struct imgp_patch *patch;
	const struct imgp_part *root;
	struct imgp_fstab_entry *mounts; /* the root's /etc/fstab */
	size_t nmounts;
	char *os_id;             /* os-release ID ("debian"); "" when none */
	enum custom_way way;
	const char *way_why;
	/* CUSTOM_WAY_CLOUDINIT */
	const struct imgp_part *seed;
	struct imgp_cloudinit_version ci_version;
	/* CUSTOM_WAY_RPIOS: the boot partition, where the booted system mounts it */
	const struct imgp_part *boot;
	char *boot_dir;          /* "/boot/firmware" (bookworm) or "/boot" */
	bool imager_custom;      /* the root has raspberrypi-sys-mods' imager_custom */
	const char *firstrun_user; /* the --user userconf makes of uid 1000; NULL: none */
	bool firstrun_wifi;      /* the Wi-Fi goes to imager_custom set_wlan */
	/* CUSTOM_WAY_ARMBIAN: what /root/.not_logged_in_yet presets */
	const char *preset_user; /* the --user armbian-firstlogin makes; NULL: none */
	char *preset_password;   /* that user's, plain text (a secret) */
	char *preset_root_password; /* root's, plain text (a secret) */
	bool preset_wifi;        /* the Wi-Fi goes to the presets */
	/* Accumulated, planned at the end (the seed's files, the network). */
	const char *hostname, *timezone, *keymap, *locale;
	struct custom_user *users;
	size_t nusers;
	struct imgp_net net;
	bool net_set;
	char *iface;             /* the wired interface the image names (net.iface) */
	bool keep_host_keys;
	char host_key_types[8][16]; /* the types --ssh-host-keys made */
	size_t nhost_key_types;
	unsigned firstboot_seq;
	struct imgp_buf *explain; /* the plan's "how" lines */
	struct imgp_buf *facts;   /* "key\tvalue\n" lines for the report */
};

/* Adds "SETTING: how (why)" to the plan's explanation. */
int imgp_custom_note_(struct custom_run *run, const char *fmt, ...) IMGP_PRINTF(2, 3);
/* Adds a reported fact (a host key's fingerprint, the machine-id). */
int imgp_custom_add_fact_(struct custom_run *run, const char *key, const char *value);

/* ---------------------------------------------- the root (custom-root.c) */

/*
 * Where the booted system's path lands: the partition mounted there by
 * the root's /etc/fstab and the path inside it; "PART:PATH" as cat takes
 * it. *path is malloc'd. -EINVAL / -ENOENT with the reason.
 */
int imgp_custom_locate_(struct custom_run *run, const char *arg,
		  const struct imgp_part **part, char **path);
/*
 * Both resolve the links on the way as the booted system does (a
 * usr-merged /bin is /usr/bin); imgp_custom_locate_follow_ the last part's too,
 * as open(2) and stat(2) do, imgp_custom_locate_ not, as lstat(2) and unlink(2).
 */
int imgp_custom_locate_follow_(struct custom_run *run, const char *arg,
			 const struct imgp_part **part, char **path);
/* Reads a file as the plan leaves it; *exists false (0 returned) when missing. */
int imgp_custom_read_(struct custom_run *run, const struct imgp_part *part,
		const char *path, struct imgp_buf *out, bool *exists);
/* The same for a path of the root filesystem (after fstab). */
int imgp_custom_read_root_(struct custom_run *run, const char *path,
		     struct imgp_buf *out, bool *exists);
/* Whether a path exists (as planned); -errno on a failure to look. */
int imgp_custom_exists_(struct custom_run *run, const char *arg);
/*
 * Plans a file of the booted system: written with text, mode and owner,
 * its folders made as mkdir -p would (mode 0755, root). secret: its plan
 * line shows no content.
 */
int imgp_custom_put_(struct custom_run *run, const char *arg, const void *data,
	       size_t len, unsigned mode, long uid, long gid, bool secret,
	       const char *note);
/* ln -sf TARGET ARG (ext only: FAT has no links). */
int imgp_custom_link_(struct custom_run *run, const char *arg, const char *target);
/* mkdir -p ARG, the new folders mode (0755 when 0), owner (-1: root). */
int imgp_custom_mkdir_p_(struct custom_run *run, const char *arg, unsigned mode,
		   long uid, long gid);
/* The unit root over the plan, for custom-units.c's functions. */
void imgp_custom_unit_root_(struct custom_run *run, struct imgp_unit_root *root);
/* Applies the links a units function returned (folders made as needed). */
int imgp_custom_apply_links_(struct custom_run *run, const struct imgp_unit_links *l);
/* Detects the way, the seed and the network system (once, at the start). */
int imgp_custom_detect_(struct custom_run *run);
/*
 * custom-rpios.c: Raspberry Pi OS without cloud-init, as Imager 1.x
 * customises it (once, after the cloud-init detection).
 */
int imgp_custom_detect_rpios_(struct custom_run *run);
/* 1 when the root's /etc/passwd has a user whose uid is in [lo, hi], else 0. */
int imgp_custom_passwd_has_uid_(struct custom_run *run, unsigned long lo, unsigned long hi);
/* 1 when --user NAME is the user userconf makes of uid 1000 (then taken). */
int imgp_custom_rpios_takes_user_(struct custom_run *run, const char *name);
/* 1 when the network settings go to set_wlan (then noted), 0 when not. */
int imgp_custom_rpios_takes_net_(struct custom_run *run);
/* firstrun.sh and cmdline.txt's words, from what was routed to them. */
int imgp_custom_plan_firstrun_(struct custom_run *run);
/*
 * custom-armbian.c: Armbian, as armbian-firstlogin's presets set it up
 * at root's first login (once, after the cloud-init detection).
 */
int imgp_custom_detect_armbian_(struct custom_run *run);
/* Whether --user NAME may be the preset user (a name armbian-firstlogin keeps). */
bool imgp_custom_armbian_user_fits_(const char *name);
/* 1 when --password USER:file:FILE goes to the presets (then read and noted), 0 when not. */
int imgp_custom_armbian_takes_password_(struct custom_run *run, const char *user,
				       const char *sel);
/* 1 when the network settings go to the presets (then noted), 0 when not. */
int imgp_custom_armbian_takes_net_(struct custom_run *run);
/* /root/.not_logged_in_yet with what was routed to it. */
int imgp_custom_plan_preset_(struct custom_run *run);
/* The network system the root runs (its files are what custom-net.c makes). */
int imgp_custom_net_system_(struct custom_run *run, enum imgp_net_system *out,
		      const char **why);

/* ----------------------------------------- the settings (custom-*.c) */

int imgp_custom_plan_hostname_(struct custom_run *run, const char *value);
int imgp_custom_plan_timezone_(struct custom_run *run, const char *value);
int imgp_custom_plan_keymap_(struct custom_run *run, const char *value);
int imgp_custom_plan_locale_(struct custom_run *run, const char *value);
int imgp_custom_plan_machine_id_(struct custom_run *run, const char *value);
int imgp_custom_plan_host_keys_(struct custom_run *run, const char *value);
int imgp_custom_plan_user_(struct custom_run *run, const char *value);
int imgp_custom_plan_password_(struct custom_run *run, const char *value);
int imgp_custom_plan_ssh_inject_(struct custom_run *run, const char *value);
/* A user added without a password gets sudo without one (custom-account.c). */
int imgp_custom_plan_sudoers_(struct custom_run *run);
/* The accumulated settings: the seed's files, the network files. */
int imgp_custom_plan_seed_(struct custom_run *run);
/* The wired interface the image's own network configuration names, or NULL. */
char *imgp_custom_image_iface_(struct custom_run *run);
int imgp_custom_plan_network_(struct custom_run *run);

int imgp_custom_plan_file_op_(struct custom_run *run, const char *op,
			const char *value);
int imgp_custom_plan_unit_op_(struct custom_run *run, const char *op,
			const char *value);
int imgp_custom_plan_firstboot_(struct custom_run *run, const char *op,
			  const char *value);

#endif /* IMGP_CUSTOM_RUN_H */
