// SPDX-License-Identifier: MIT
/*
 * Raspberry Pi OS without cloud-init (bookworm and before), customised as
 * Raspberry Pi Imager 1.x does it: a firstrun.sh on the boot partition,
 * run once by systemd.run= on the kernel command line, that calls the
 * image's own helpers and then removes itself and its words.
 *
 * Facts, each read from its source:
 * - raspberrypi/rpi-imager v1.8.5 (06abbadbb501869c29076df0f0409b977869e992):
 *   src/OptionsPopup.qml applySettings() builds the script ("#!/bin/bash",
 *   "set +e", one helper call per setting in the order hostname, ssh keys,
 *   user, Wi-Fi, keymap, time zone; values quoted by escapeshellarg();
 *   the Wi-Fi passphrase turned into its PBKDF2 key; for Wi-Fi the word
 *   cfg80211.ieee80211_regdom=CC); src/downloadthread.cpp _customizeImage()
 *   writes it as firstrun.sh and appends " systemd.run=/boot/firstrun.sh
 *   systemd.run_success_action=reboot systemd.unit=kernel-command-line.target"
 *   to the trimmed cmdline.txt.
 * - RPi-Distro/raspberrypi-sys-mods 3af395f60cfc5061d72ea79f3d33bf0ccdac29a8:
 *   usr/lib/raspberrypi-sys-mods/imager_custom (set_hostname, enable_ssh -k
 *   KEY..., set_wlan SSID PASS COUNTRY, set_keymap, set_timezone; keys go to
 *   uid 1000's home); initramfs-tools/scripts/local-bottom/imager_fixup,
 *   which on bookworm rewrites /boot/ to /boot/firmware/ and ends the script
 *   with "rm -f /boot/firmware/firstrun.sh", "sed -i 's| systemd\.[^ ]*||g'
 *   /boot/firmware/cmdline.txt", "exit 0". Written here in that fixed form
 *   directly, with the folder the image's fstab mounts the boot partition on.
 * - RPi-Distro/userconf-pi ca2620a35fcc7b8809203fcd30f055fe7c891b49: userconf
 *   (installed as /usr/lib/userconf-pi/userconf, debian/install) NAME HASH
 *   renames uid 1000's user and group to NAME, moves the home, sets HASH
 *   with chpasswd -e, and cancels the first-boot rename wizard.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/pbkdf2.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "custom/custom.h"
#include "custom/custom-run.h"

#define IMAGER_CUSTOM "/usr/lib/raspberrypi-sys-mods/imager_custom"
#define USERCONF "/usr/lib/userconf-pi/userconf"

/* The kernel command line's words that run the script once (Imager's). */
static const char *const run_words[] = {
	"systemd.run=%s/firstrun.sh", "systemd.run_success_action=reboot",
	"systemd.unit=kernel-command-line.target",
};

/* Where the booted system mounts the partition with cmdline.txt, as fstab says. */
static int find_boot(struct custom_run *run)
{
	static const char *const dirs[] = { "/boot/firmware", "/boot" };
	int rc = 0;

	for (size_t i = 0; !rc && !run->boot && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		const struct imgp_part *part;
		struct imgp_buf text = { 0 };
		char arg[64], *path = NULL;
		bool exists = false;

		snprintf(arg, sizeof(arg), "%s/cmdline.txt", dirs[i]);
		rc = imgp_custom_locate_(run, arg, &part, &path);
		if (!rc && part != run->root)
			rc = imgp_custom_read_(run, part, path, &text, &exists);
		if (!rc && exists) {
			run->boot = part;
			run->boot_dir = strdup(dirs[i]);
			if (!run->boot_dir)
				rc = imgp_fail(ENOMEM, "out of memory");
		}
		if (rc == -ENOENT)
			rc = 0, imgp_errclear_();
		imgp_buf_free(&text);
		free(path);
	}
	return rc;
}

int imgp_custom_detect_rpios_(struct custom_run *run)
{
	int has_custom, has_userconf, rc;

	if (run->way != CUSTOM_WAY_FILES)
		return 0;
	has_custom = imgp_custom_exists_(run, IMAGER_CUSTOM);
	has_userconf = has_custom < 0 ? 0 : imgp_custom_exists_(run, USERCONF);
	if (has_custom < 0 || has_userconf < 0)
		return has_custom < 0 ? has_custom : has_userconf;
	if (!has_custom && !has_userconf)
		return 0;
	rc = find_boot(run);
	if (rc || !run->boot)
		return rc;
	run->imager_custom = has_custom;
	run->way = CUSTOM_WAY_RPIOS;
	run->way_why = has_custom ?
		"Raspberry Pi OS without cloud-init: Imager's firstrun.sh calls " IMAGER_CUSTOM :
		"Raspberry Pi OS without cloud-init: Imager's firstrun.sh calls " USERCONF;
	return 0;
}

int imgp_custom_passwd_has_uid_(struct custom_run *run, unsigned long lo, unsigned long hi)
{
	struct imgp_buf text = { 0 };
	bool exists = false, found = false;
	int rc = imgp_custom_read_root_(run, "/etc/passwd", &text, &exists);

	for (const char *line = exists ? (char *)text.data : ""; !rc && *line && !found;) {
		size_t len = strcspn(line, "\n");
		const char *c1 = memchr(line, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
		char *end;
		unsigned long uid = c2 && c2[1] >= '0' && c2[1] <= '9' ?
				    strtoul(c2 + 1, &end, 10) : 0;

		found = c2 && c2[1] >= '0' && c2[1] <= '9' && *end == ':' && uid >= lo && uid <= hi;
		line += len + (line[len] == '\n');
	}
	imgp_buf_free(&text);
	return rc ? rc : found;
}

int imgp_custom_rpios_takes_user_(struct custom_run *run, const char *name)
{
	int rc;

	if (run->way != CUSTOM_WAY_RPIOS || run->firstrun_user)
		return 0;
	/* userconf makes the user; its keys need imager_custom's enable_ssh. */
	rc = imgp_custom_exists_(run, USERCONF);
	if (rc > 0 && !run->imager_custom)
		rc = 0;
	if (rc > 0)
		rc = imgp_custom_passwd_has_uid_(run, 1000, 1000);
	if (rc > 0)
		run->firstrun_user = name;
	return rc;
}

int imgp_custom_rpios_takes_net_(struct custom_run *run)
{
	const struct imgp_net *n = &run->net;
	int rc;

	/* set_wlan makes a DHCP Wi-Fi connection and nothing else. */
	if (run->way != CUSTOM_WAY_RPIOS || !run->imager_custom || !n->wifi_ssid ||
	    n->address || n->gateway || n->dns || (n->iface && strcmp(n->iface, "wlan0")))
		return 0;
	run->firstrun_wifi = true;
	rc = imgp_custom_note_(run, "wifi %s: firstrun.sh, imager_custom set_wlan%s (%s)",
				n->wifi_ssid, n->wifi_country ? " and the country" : "",
				run->way_why);
	return rc ? rc : 1;
}

/* ' ' and the argument single-quoted for sh, as Imager's escapeshellarg(). */
static int add_arg(struct imgp_buf *t, const char *arg)
{
	int rc = imgp_buf_append(t, IMGP_LIT(" '"));

	for (const char *p = arg; !rc && *p; p++)
		rc = *p == '\'' ? imgp_buf_append(t, IMGP_LIT("'\"'\"'"))
				: imgp_buf_append(t, p, 1);
	return rc ? rc : imgp_buf_append(t, IMGP_LIT("'"));
}

/* "imager_custom CMD 'ARG'", a line of the script. */
static int add_call(struct imgp_buf *t, const char *cmd, const char *arg)
{
	int rc = imgp_buf_printf(t, IMAGER_CUSTOM " %s", cmd);

	if (!rc)
		rc = add_arg(t, arg);
	return rc ? rc : imgp_buf_append(t, IMGP_LIT("\n"));
}

/* The pre-shared key as Imager passes it: a passphrase's PBKDF2 key in hex. */
static int add_psk(struct imgp_buf *t, const struct imgp_net *n)
{
	uint8_t key[32];
	char hex[sizeof(key) * 2 + 1];
	int rc;

	if (!n->wifi_psk)
		return add_arg(t, "");
	if (strlen(n->wifi_psk) == 64)
		return add_arg(t, n->wifi_psk);
	/* IEEE 802.11i: 4096 rounds of HMAC-SHA1, the SSID as salt. */
	pbkdf2_hmac_sha1(strlen(n->wifi_psk), (const uint8_t *)n->wifi_psk, 4096,
			 strlen(n->wifi_ssid), (const uint8_t *)n->wifi_ssid, sizeof(key), key);
	for (size_t i = 0; i < sizeof(key); i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	rc = add_arg(t, hex);
	explicit_bzero(key, sizeof(key));
	explicit_bzero(hex, sizeof(hex));
	return rc;
}

/* The script's lines, in Imager's order; *secret when it holds a hash or key. */
static int firstrun_text(struct custom_run *run, struct imgp_buf *t, bool *secret)
{
	int rc = imgp_buf_append(t, IMGP_LIT("#!/bin/bash\n\nset +e\n\n"));

	if (!rc && run->hostname && run->imager_custom)
		rc = add_call(t, "set_hostname", run->hostname);
	for (size_t i = 0; !rc && run->firstrun_user && i < run->nusers; i++) {
		const struct custom_user *u = &run->users[i];

		if (strcmp(u->name, run->firstrun_user))
			continue;
		/* Imager's public-key choice: key-only SSH, the keys for uid 1000. */
		if (u->nkeys) {
			rc = imgp_buf_append(t, IMGP_LIT(IMAGER_CUSTOM " enable_ssh -k"));
			for (size_t k = 0; !rc && k < u->nkeys; k++)
				rc = add_arg(t, u->keys[k]);
			if (!rc)
				rc = imgp_buf_append(t, IMGP_LIT("\n"));
		}
		if (!rc)
			rc = imgp_buf_append(t, IMGP_LIT(USERCONF));
		if (!rc)
			rc = add_arg(t, u->name);
		/* No password: locked, as a user the files way adds. */
		if (!rc)
			rc = add_arg(t, u->hash ? u->hash : "!");
		if (!rc)
			rc = imgp_buf_append(t, IMGP_LIT("\n"));
		*secret = *secret || (u->hash && u->hash[0] == '$');
	}
	if (!rc && run->firstrun_wifi) {
		rc = imgp_buf_append(t, IMGP_LIT(IMAGER_CUSTOM " set_wlan"));
		if (!rc)
			rc = add_arg(t, run->net.wifi_ssid);
		if (!rc)
			rc = add_psk(t, &run->net);
		if (!rc && run->net.wifi_country)
			rc = add_arg(t, run->net.wifi_country);
		if (!rc)
			rc = imgp_buf_append(t, IMGP_LIT("\n"));
		*secret = *secret || run->net.wifi_psk;
	}
	if (!rc && run->keymap && run->imager_custom)
		rc = add_call(t, "set_keymap", run->keymap);
	if (!rc && run->timezone && run->imager_custom)
		rc = add_call(t, "set_timezone", run->timezone);
	if (!rc)
		rc = imgp_buf_printf(t, "rm -f %s/firstrun.sh\n"
				     "sed -i 's| systemd\\.[^ ]*||g' %s/cmdline.txt\n"
				     "exit 0\n", run->boot_dir, run->boot_dir);
	return rc;
}

/* Whether the one-line text has WORD as a whole word. */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
		if ((p == text || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * A kernel command line is text, and its first line fits the kernel's
 * COMMAND_LINE_SIZE less our words (2048 on arm64: Linux
 * arch/arm64/include/uapi/asm/setup.h); anything else is not edited.
 */
static int cmdline_check(struct custom_run *run, const struct imgp_buf *old, size_t first_line)
{
	const char *why = NULL;

	for (size_t i = 0; i < old->len && !why; i++)
		if (old->data[i] == '\0' || (old->data[i] < 0x20 && !strchr("\t\r\n", old->data[i])) ||
		    old->data[i] == 0x7f)
			why = "it holds a control character or a NUL byte";
	if (!why && first_line > 1536)
		why = "its first line is over 1536 bytes, too long to add the words that run firstrun.sh (the kernel takes 2048)";
	if (!why)
		return 0;
	return imgp_fail(EINVAL, IMGP_PART_FMT " (%s): /cmdline.txt: not a kernel command line: %s",
			 run->boot->number, run->boot->fstype, why);
}

/* cmdline.txt with the words that run the script (and the Wi-Fi country's). */
static int plan_cmdline(struct custom_run *run)
{
	struct imgp_buf old = { 0 }, t = { 0 };
	char arg[64], word[96];
	const char *text;
	bool exists = false;
	size_t len, end, nwords = sizeof(run_words) / sizeof(run_words[0]);
	int rc;

	snprintf(arg, sizeof(arg), "%s/cmdline.txt", run->boot_dir);
	rc = imgp_custom_read_root_(run, arg, &old, &exists);
	if (rc || !exists)
		goto out;
	/* The firmware reads the first line; Imager trims it and appends. */
	text = (const char *)old.data;
	len = strcspn(text, "\n");
	rc = cmdline_check(run, &old, len);
	if (rc)
		goto out;
	for (end = len; end && strchr(" \t\r", text[end - 1]); end--)
		;
	rc = imgp_buf_append(&t, text, end);
	for (size_t i = 0; !rc && i <= nwords; i++) {
		if (i < nwords)
			snprintf(word, sizeof(word), run_words[i], run->boot_dir);
		else if (run->firstrun_wifi && run->net.wifi_country)
			snprintf(word, sizeof(word), "cfg80211.ieee80211_regdom=%s",
				 run->net.wifi_country);
		else
			break;
		if (!has_word(t.data ? (const char *)t.data : "", word))
			rc = imgp_buf_printf(&t, "%s%s", t.len ? " " : "", word);
	}
	/* Nothing to add: the file stays as it is, trailing blanks and all. */
	if (!rc && t.len == end)
		goto out;
	if (!rc)
		rc = imgp_buf_append(&t, text + len, old.len - len);
	if (!rc)
		rc = imgp_custom_put_(run, arg, t.data, t.len, 0, -1, -1, false, NULL);
out:
	if (!rc && !exists)
		rc = imgp_fail(ENOENT, "%s: gone since the detection", arg);
	imgp_buf_free(&old);
	imgp_buf_free(&t);
	return rc;
}

int imgp_custom_plan_firstrun_(struct custom_run *run)
{
	struct imgp_buf t = { 0 };
	char arg[64];
	bool secret = false;
	bool helper_set = run->hostname || run->keymap || run->timezone || run->firstrun_wifi;
	int rc;

	if (!run->firstrun_user && !(run->imager_custom && helper_set))
		return 0;
	rc = firstrun_text(run, &t, &secret);
	snprintf(arg, sizeof(arg), "%s/firstrun.sh", run->boot_dir);
	if (!rc)
		rc = imgp_custom_put_(run, arg, t.data, t.len, 0, -1, -1, secret, NULL);
	if (t.data)
		explicit_bzero(t.data, t.len);
	imgp_buf_free(&t);
	if (!rc)
		rc = plan_cmdline(run);
	if (!rc)
		rc = imgp_custom_note_(run, "firstboot: %s/firstrun.sh, run once by systemd.run= on %s/cmdline.txt (%s)",
				      run->boot_dir, run->boot_dir, run->way_why);
	return rc;
}
