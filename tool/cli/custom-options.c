// SPDX-License-Identifier: MIT
/*
 * customize's options, as customize and write take them: named and shaped
 * as virt-customize(1) names them where it has them. The library checks
 * and plans them (imgp_custom_add); this is their --help.
 */
#include <string.h>

#include "cli.h"

const struct cli_option cli_custom_options[] = {
	CLI_HEADING("Identity:"),
	{ CLI_OPT_CUSTOM + 0, "hostname", 0, "NAME", "the host name (RFC 1123)" },
	{ CLI_OPT_CUSTOM + 1, "timezone", 0, "ZONE", "the time zone, e.g. Europe/Berlin (one the image's\n"
	  "tzdata has)" },
	{ CLI_OPT_CUSTOM + 2, "keymap", 0, "MAP", "the keyboard layout, e.g. de" },
	{ CLI_OPT_CUSTOM + 3, "locale", 0, "LOCALE", "the system locale, e.g. de_DE.UTF-8" },
	{ CLI_OPT_CUSTOM + 4, "user", 0, "NAME", "add a user who can use sudo, in the groups the\n"
	  "distribution gives its first user; repeatable" },
	{ CLI_OPT_CUSTOM + 5, "password", 0, "USER:SELECTOR", "set a password: file:FILE (hashed here as the image's\n"
	  "login hashes), hash:HASH (a crypt(3) hash), locked,\n"
	  "locked:file:FILE or disabled; repeatable" },
	{ CLI_OPT_CUSTOM + 6, "ssh-inject", 0, "USER:SELECTOR", "add SSH keys to the user's authorized_keys:\n"
	  "file:KEY.pub or string:KEY; repeatable" },
	CLI_HEADING("Network:"),
	{ CLI_OPT_CUSTOM + 7, "static-ip", 0, "ADDR/PREFIX", "a static address (default: DHCP)" },
	{ CLI_OPT_CUSTOM + 8, "gateway", 0, "ADDR", "the default gateway" },
	{ CLI_OPT_CUSTOM + 9, "dns", 0, "ADDR[,ADDR]", "the name servers" },
	{ CLI_OPT_CUSTOM + 10, "iface", 0, "NAME", "the interface (default: the wired one the image\n"
	  "names, else eth0)" },
	{ CLI_OPT_CUSTOM + 11, "wifi", 0, "SSID", "join this Wi-Fi network" },
	{ CLI_OPT_CUSTOM + 12, "wifi-psk-file", 0, "FILE", "the Wi-Fi key, read from FILE" },
	{ CLI_OPT_CUSTOM + 13, "wifi-country", 0, "CC", "the Wi-Fi regulatory country, e.g. DE" },
	CLI_HEADING("One machine, one identity:"),
	{ CLI_OPT_CUSTOM + 14, "ssh-host-keys", 0, "new", "new SSH host keys of every type the image's sshd\n"
	  "uses; their fingerprints are reported" },
	{ CLI_OPT_CUSTOM + 15, "machine-id", 0, "new|reset", "a new machine-id (reported), or empty for systemd\n"
	  "to make at the first boot" },
	CLI_HEADING("Files (paths as the booted system sees them, or PART:/PATH):"),
	{ CLI_OPT_CUSTOM + 16, "copy-in", 0, "LOCAL:REMOTEDIR", "copy a local file or folder (recursively) into\n"
	  "REMOTEDIR" },
	{ CLI_OPT_CUSTOM + 17, "upload", 0, "FILE:DEST", "copy a local file to DEST (a file, or a folder)" },
	{ CLI_OPT_CUSTOM + 18, "write", 0, "FILE:CONTENT", "write CONTENT to FILE" },
	{ CLI_OPT_CUSTOM + 19, "append-line", 0, "FILE:LINE", "append LINE to FILE (made when missing)" },
	{ CLI_OPT_CUSTOM + 20, "mkdir", 0, "DIR", "make a folder, with its parents" },
	{ CLI_OPT_CUSTOM + 21, "chmod", 0, "PERMISSIONS:FILE", "set permissions (octal, e.g. 0755)" },
	{ CLI_OPT_CUSTOM + 22, "delete", 0, "PATH", "delete a file or a folder with all it holds" },
	{ CLI_OPT_CUSTOM + 23, "link", 0, "TARGET:LINK[:LINK]", "make symbolic links to TARGET" },
	{ CLI_OPT_CUSTOM + 24, "touch", 0, "FILE", "make an empty file when there is none" },
	CLI_HEADING("Services and the first boot:"),
	{ CLI_OPT_CUSTOM + 25, "enable", 0, "UNIT", "enable a systemd unit, as systemctl enable would" },
	{ CLI_OPT_CUSTOM + 26, "disable", 0, "UNIT", "disable a systemd unit" },
	{ CLI_OPT_CUSTOM + 27, "mask", 0, "UNIT", "mask a systemd unit" },
	{ CLI_OPT_CUSTOM + 28, "firstboot", 0, "SCRIPT", "run a local script once at the first boot" },
	{ CLI_OPT_CUSTOM + 29, "firstboot-command", 0, "CMD", "run a command once at the first boot" },
	CLI_OPTIONS_END,
};

const char *cli_custom_name(int id)
{
	for (const struct cli_option *o = cli_custom_options; o->name || o->help; o++)
		if (o->name && o->id == id)
			return o->name;
	return NULL;
}
