/* SPDX-License-Identifier: MIT */
/*
 * custom/: a system's identity, network and files, set before its first
 * boot the way the image itself applies them (customize's settings).
 *
 * The files here that make a setting's text (users, network, cloud-init,
 * systemd units, the first-boot runner) are pure: text in, text out, no
 * image. custom.c reads the image through the plan (patch/), picks the
 * image's own mechanism and plans the files those makers return. Shared by
 * the library's own files and white-box tests, not part of imgpatch.h.
 */
#ifndef IMGP_CUSTOM_H
#define IMGP_CUSTOM_H

#include <stdbool.h>
#include <stddef.h>

#include "imgpatch.h"

/* A file a maker returns: its path in the system, its text, its mode. */
struct imgp_gen_file {
	char *path;
	struct imgp_buf text;
	unsigned mode;           /* permission bits; 0644 unless it says */
	bool secret;             /* holds a password or a key: never shown */
};

struct imgp_gen_files {
	struct imgp_gen_file *v;
	size_t n;
};

/* Adds a file (path and text copied); 0 or -ENOMEM. */
int imgp_gen_files_add_(struct imgp_gen_files *f, const char *path,
		       const char *text, size_t len, unsigned mode, bool secret);
void imgp_gen_files_free_(struct imgp_gen_files *f);

/* ------------------------------------------------ users (custom-user.c) */

/*
 * Whether name is a user (or group) name Debian's useradd accepts: 0, or
 * -EINVAL with the reason in imgp_errmsg().
 */
int imgp_user_name_check_(const char *name);

/* The account files of a root, as text (each may be empty: missing). */
struct imgp_userdb {
	struct imgp_buf passwd, shadow, group, gshadow;
	struct imgp_buf login_defs;       /* /etc/login.defs */
	struct imgp_buf useradd_defaults; /* /etc/default/useradd */
};

void imgp_userdb_free_(struct imgp_userdb *db);

/* A user to add, as useradd -m -U -G GROUPS -s SHELL would add them. */
struct imgp_user_add {
	const char *name;
	const char *const *groups;  /* supplementary groups; those db lacks are skipped */
	size_t ngroups;
	const char *shell;          /* NULL: /etc/default/useradd's SHELL, else /bin/bash */
	const char *hash;           /* the shadow password field; NULL: "!" (locked), or kept */
	const char *gecos;          /* NULL: "" */
};

/*
 * Adds the user to db's four files: uid and gid chosen as useradd chooses
 * them (login.defs' UID_MIN..UID_MAX, GID_MIN..GID_MAX, one above the
 * highest in use there, a group of the user's name with the same number
 * when it is free), home /home/NAME (HOME in /etc/default/useradd). A user
 * already there keeps uid and home, and gains the groups (and hash, when
 * given). All or nothing: -EINVAL with the reason for a name useradd
 * refuses, a field with ':' or a newline, a file that cannot be read as
 * its format or a bad SOURCE_DATE_EPOCH; -EEXIST when a group has the new
 * user's name (useradd -U refuses it); -ENOSPC when no id is free.
 */
int imgp_userdb_add_(struct imgp_userdb *db, const struct imgp_user_add *u,
		    unsigned *uid, unsigned *gid, char **home);
/*
 * Sets user's password field in shadow (and 'x' in passwd; a new crypt
 * hash also dates the change, as chpasswd does); -ENOENT: no such user,
 * -EINVAL: an empty field or one with ':' or a newline.
 */
int imgp_userdb_set_hash_(struct imgp_userdb *db, const char *user,
			 const char *hash);
/* A user's uid, gid and home (malloc'd); -ENOENT. */
int imgp_userdb_lookup_(const struct imgp_userdb *db, const char *user,
		       unsigned *uid, unsigned *gid, char **home);

/* The most groups imgp_user_first_groups_ returns. */
#define IMGP_USER_GROUPS_MAX 24

/*
 * The groups the distribution gives its first user, by the files it
 * ships (Debian's installer, Ubuntu's cloud-init default_user, Raspberry
 * Pi OS's first-boot user; distro_id is os-release's ID, "raspbian" for
 * any Raspberry Pi OS, any other: Debian's), kept to those db's group file
 * has: "sudo" is among them when the group file has it (the caller
 * decides without). Fills out (static strings, NULL after the last) and
 * returns their count; 0 too for a group file that does not read.
 */
size_t imgp_user_first_groups_(const struct imgp_userdb *db, const char *distro_id,
			      const char *out[IMGP_USER_GROUPS_MAX + 1]);

/*
 * login.defs' value of key (shadow's reading: the last line naming it
 * wins, quotes dropped) into val, cut to size; false when not named.
 * Shared by custom-user.c and custom-crypt.c.
 */
bool imgp_custom_logindefs_get_(const char *text, size_t len, const char *key,
			       char *val, size_t size);

enum imgp_crypt_method {
	IMGP_CRYPT_YESCRYPT,     /* $y$: Debian 11+, Ubuntu 22.04+, Pi OS bookworm */
	IMGP_CRYPT_SHA512,       /* $6$ */
};

/*
 * The method the image's login checks and passwd writes: pam_unix's option
 * in /etc/pam.d/common-password, else login.defs' ENCRYPT_METHOD, else
 * SHA-512 (which every libcrypt reads).
 */
enum imgp_crypt_method imgp_crypt_method_of_(const char *common_password,
					    const char *login_defs);
/* Hashes password with a fresh random salt; *out malloc'd. */
int imgp_password_hash_(const char *password, enum imgp_crypt_method m,
		       char **out);
/*
 * Whether password is the one hash was made from (crypt(3) with the
 * hash as its setting): a re-run keeps a hash that still fits, so that a
 * second run changes nothing.
 */
bool imgp_password_matches_(const char *password, const char *hash);
/* Whether hash is a crypt(3) hash the image can check ($y$, $6$, $5$): 0 or -EINVAL. */
int imgp_crypt_hash_check_(const char *hash);

/* ------------------------------------------------ network (custom-net.c) */

/*
 * One interface's settings: Ethernet, or with wifi_ssid the Wi-Fi
 * connection, which then carries the address, gateway and name servers.
 */
struct imgp_net {
	const char *iface;       /* the interface; NULL: eth0, or wlan0 for Wi-Fi */
	const char *address;     /* "ADDR/PREFIX"; NULL: DHCP */
	const char *gateway;     /* NULL: none */
	const char *dns;         /* "ADDR[,ADDR]"; NULL: none */
	const char *wifi_ssid;   /* NULL: no Wi-Fi */
	const char *wifi_psk;    /* a secret; NULL: an open network */
	const char *wifi_country;/* ISO 3166 alpha-2; NULL: none */
};

/*
 * Checks every value (addresses and prefix with inet_pton, the gateway in
 * the address's family, the interface name as the kernel takes it, SSID
 * 1..32 bytes, a PSK of 8..63 printable characters or 64 hex digits, a
 * country of two capital letters): 0, or -EINVAL naming the option
 * ("--static-ip 10.0.0.300/24: not an IPv4 or IPv6 address").
 */
int imgp_net_check_(const struct imgp_net *n);

enum imgp_net_system {
	IMGP_NET_NETWORKMANAGER, /* keyfiles in /etc/NetworkManager/system-connections, 0600 */
	IMGP_NET_NETWORKD,       /* /etc/systemd/network/NAME.network (+ wpa_supplicant for Wi-Fi) */
	IMGP_NET_NETPLAN,        /* /etc/netplan/NAME.yaml, 0600 */
	IMGP_NET_IFUPDOWN,       /* /etc/network/interfaces.d/IFACE (+ wpa_supplicant) */
};

/*
 * The files that system reads for n, named and moded as it wants them,
 * with the Wi-Fi country's file (imgp_net_country_file_). n must have
 * passed imgp_net_check_. networkd's Wi-Fi needs wpa_supplicant@IFACE.service
 * enabled (custom-units.c); ifupdown's name servers go to /etc/resolv.conf.
 * 0, -EINVAL for an unknown system, or -ENOMEM; on failure out is as it was.
 */
int imgp_net_files_(enum imgp_net_system sys, const struct imgp_net *n,
		   struct imgp_gen_files *out);
/*
 * The Wi-Fi country as the kernel's wireless core reads it at load
 * (/etc/modprobe.d/, cfg80211's ieee80211_regdom), whatever configures
 * the network; nothing without a country. 0 or -ENOMEM.
 */
int imgp_net_country_file_(const struct imgp_net *n, struct imgp_gen_files *out);

/*
 * Shared by custom-net.c and custom-cloudinit.c: n's interface as
 * network configuration version 2 (netplan's "ethernets:" or "wifis:"
 * entry), every line indented by indent spaces; and a YAML double-quoted
 * scalar of s. 0 or -ENOMEM.
 */
int imgp_custom_net_v2_(const struct imgp_net *n, unsigned indent,
		       struct imgp_buf *out);
int imgp_custom_yaml_quote_(struct imgp_buf *out, const char *s);
/* A string literal and its length, for imgp_buf_append. */
#define IMGP_LIT(s) (s), sizeof(s) - 1

/* -------------------------------------- cloud-init (custom-cloudinit.c) */

struct imgp_cloudinit_version {
	int major, minor;        /* 22.4 -> 22, 4 */
	/*
	 * Whether the image's cloud-init renders its network through netplan
	 * (the first renderer of cloud.cfg's system_info: network: renderers,
	 * else of cloudinit/net/renderers.py's DEFAULT_PRIORITY, whose program
	 * the image has): only netplan is handed version 2 as it is, the
	 * others drop "wifis". Set by the caller; the parse leaves it false.
	 */
	bool netplan;
};

/*
 * The version of the cloud-init the image ships, from dpkg's status file
 * (the "Package: cloud-init" stanza's Version) or, failing that, from
 * cloudinit/version.py's __VERSION__. -ENOENT when neither names one.
 */
int imgp_cloudinit_version_parse_(const char *dpkg_status,
				 const char *version_py,
				 struct imgp_cloudinit_version *out);

/*
 * network-config for n, in the form that version accepts: version 2 with
 * "to: 0.0.0.0/0" (or "::/0"), which every version takes (only 25.3 and
 * later take "default" outside netplan). -ENOTSUP naming the version for
 * Wi-Fi when v->netplan is false, or a cloud-init before 17.1 (no version
 * 2); n must have passed imgp_net_check_.
 */
int imgp_cloudinit_network_config_(const struct imgp_cloudinit_version *v,
				  const struct imgp_net *n, struct imgp_buf *out);

struct imgp_cloudinit_user {
	const char *name;
	const char *const *groups;
	size_t ngroups;
	const char *hash;        /* NULL: keep / locked */
	const char *const *keys; /* authorized keys */
	size_t nkeys;
};

/* What customize says through user-data; NULL or 0: not set. */
struct imgp_cloudinit_config {
	const char *hostname;
	const char *timezone;
	const char *keymap;
	const char *locale;
	const struct imgp_cloudinit_user *users;
	size_t nusers;
	bool keep_host_keys;     /* ssh_deletekeys: false (missing types are still made) */
	/* With keep_host_keys: the types baked in, ssh_genkeytypes (no other is made). */
	const char *const *host_key_types;
	size_t nhost_key_types;
};

/*
 * The image's user-data (text, may be empty) with cfg's keys set, each a
 * top-level entry that version's schema accepts; other entries kept.
 * users: the image's list is kept and ours appended (an item of the same
 * name replaced); without a list, "- default" comes first so that the
 * distribution's default user is still made. A user without a hash gets
 * sudo without a password (it logs in by key only). -ENOTSUP naming the
 * version for a keymap before 22.1; -EINVAL with the line for a text that
 * is not "#cloud-config" or that the line reading cannot follow, or a
 * users list in flow style.
 */
int imgp_cloudinit_user_data_(const struct imgp_cloudinit_version *v,
			     const char *old, size_t len,
			     const struct imgp_cloudinit_config *cfg,
			     struct imgp_buf *out);
/*
 * meta-data with instance-id set to id (cloud-init runs its per-instance
 * modules again when it changes) and local-hostname where hostname is
 * given; other keys kept.
 */
int imgp_cloudinit_meta_data_(const char *old, size_t len, const char *id,
			     const char *hostname, struct imgp_buf *out);

/* ------------------------------------------ systemd units (custom-units.c) */

/* How the units see the root: reads through the plan (custom.c) or a folder (tests). */
struct imgp_unit_root {
	/* 0 and out filled; -ENOENT missing; -errno. Follows no link. */
	int (*read)(void *arg, const char *path, struct imgp_buf *out);
	/* 0 and out filled; -ENOENT missing; -EINVAL not a link. */
	int (*readlink)(void *arg, const char *path, struct imgp_buf *out);
	/* the names in dir (malloc'd array of malloc'd); -ENOENT; -ENOTDIR not a folder. */
	int (*list)(void *arg, const char *dir, char ***names, size_t *n);
	void *arg;
};

/* A link to make (target set) or to remove (target NULL), as systemctl would. */
struct imgp_unit_link {
	char *path;
	char *target;
};

struct imgp_unit_links {
	struct imgp_unit_link *v;
	size_t n;
};

void imgp_unit_links_free_(struct imgp_unit_links *l);

/*
 * The links `systemctl --root=R enable|disable|mask UNIT` makes or removes,
 * following the unit's [Install] section (WantedBy=, RequiredBy=, Alias=,
 * Also=, DefaultInstance=). -ENOENT "no unit NAME in ..." when the image
 * has no such unit; -EINVAL for a name systemd refuses. A link with a
 * target replaces any link at its path. Unlike systemctl, enable refuses
 * (-EINVAL) a unit whose files make no link (no [Install]), and mask and
 * disable refuse a unit the image lacks; -EEXIST where systemctl fails
 * on a file or another link in the way.
 */
int imgp_units_enable_(const struct imgp_unit_root *root, const char *unit,
		      struct imgp_unit_links *out);
int imgp_units_disable_(const struct imgp_unit_root *root, const char *unit,
		       struct imgp_unit_links *out);
int imgp_units_mask_(const struct imgp_unit_root *root, const char *unit,
		    struct imgp_unit_links *out);

/* ------------------------------------ the first boot (custom-firstboot.c) */

/*
 * The runner that runs the scripts in IMGP_FIRSTBOOT_DIR once each, in
 * name order, at the first boot, each removed once it ran; and its unit.
 */
#define IMGP_FIRSTBOOT_DIR "/usr/local/lib/imgpatch/firstboot"
#define IMGP_FIRSTBOOT_UNIT "imgpatch-firstboot.service"
/* Where the runner and the unit go (the unit in the admin's folder, /etc). */
#define IMGP_FIRSTBOOT_RUNNER "/usr/local/lib/imgpatch/firstboot-run"
#define IMGP_FIRSTBOOT_UNIT_PATH "/etc/systemd/system/" IMGP_FIRSTBOOT_UNIT
/* The link `systemctl enable` makes for the unit: IMGP_FIRSTBOOT_WANTS -> IMGP_FIRSTBOOT_UNIT_PATH. */
#define IMGP_FIRSTBOOT_WANTS \
	"/etc/systemd/system/multi-user.target.wants/" IMGP_FIRSTBOOT_UNIT

/*
 * The runner (0755), its unit (0644) and the script numbered seq (its
 * text given; "#!/bin/sh" put first when it has no "#!") at
 * IMGP_FIRSTBOOT_DIR/%04u-NAME (0755), NAME the last part of name with
 * every byte outside [A-Za-z0-9._-] made '_'. Scripts run in name order,
 * so the caller numbers them above those the image already has.
 * -EINVAL for seq over 9999.
 */
int imgp_firstboot_files_(unsigned seq, const char *name, const char *script,
			 size_t len, struct imgp_gen_files *out);

#endif /* IMGP_CUSTOM_H */
