// SPDX-License-Identifier: MIT
/*
 * Armbian: the answers to its first-login questions, given in advance.
 *
 * Facts, read from armbian/build at commit
 * 82a0c923f91f75211cade3ee703fc06372c840e5:
 * - lib/functions/rootfs/distro-agnostic.sh: the image ships an empty
 *   /root/.not_logged_in_yet; /etc/armbian-release comes from
 *   lib/functions/bsp/armbian-bsp-cli-deb.sh.
 * - packages/bsp/common/usr/lib/armbian/armbian-firstlogin: on root's first
 *   login with a terminal it checks the file with "bash -n" and sources it;
 *   PRESET_ROOT_PASSWORD, PRESET_USER_NAME (must match ^[a-zA-Z][a-zA-Z0-9]*$,
 *   then lower-cased), PRESET_USER_PASSWORD, PRESET_DEFAULT_REALNAME (else
 *   it asks, offering the name capitalised), PRESET_USER_SHELL (bash or zsh),
 *   PRESET_LOCALE, PRESET_TIMEZONE and PRESET_CONNECT_WIRELESS answer its
 *   questions; with PRESET_NET_CHANGE_DEFAULTS=1 and PRESET_NET_WIFI_ENABLED=1
 *   it writes a DHCP netplan file for the first Wi-Fi adapter from
 *   PRESET_NET_WIFI_SSID, _KEY and _COUNTRYCODE, each inside YAML double
 *   quotes. Its PRESET_USER_KEY and PRESET_ROOT_KEY are URLs it downloads,
 *   not keys: --ssh-inject stays on the files way.
 * The passwords are plain text there, as Armbian takes them: the file is a
 * secret (root's, mode 0600), never shown.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "text/text.h"
#include "custom/custom.h"
#include "custom/custom-run.h"

#define PRESET_FILE "/root/.not_logged_in_yet"

int imgp_custom_detect_armbian_(struct custom_run *run)
{
	int release, preset;

	if (run->way != CUSTOM_WAY_FILES)
		return 0;
	release = imgp_custom_exists_(run, "/etc/armbian-release");
	preset = release > 0 ? imgp_custom_exists_(run, PRESET_FILE) : 0;
	if (release < 0 || preset < 0)
		return release < 0 ? release : preset;
	if (!preset)
		return 0;
	run->way = CUSTOM_WAY_ARMBIAN;
	run->way_why = "Armbian: armbian-firstlogin reads " PRESET_FILE " at root's first login";
	return 0;
}

bool imgp_custom_armbian_user_fits_(const char *name)
{
	/* Lower case too, so that the user armbian-firstlogin makes is the one given. */
	if (!(*name >= 'a' && *name <= 'z') || strlen(name) > 32)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

/* A value bash reads back whole between single quotes (printable, no "'"). */
static bool quotable(const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '\'')
			return false;
	return true;
}

int imgp_custom_armbian_takes_password_(struct custom_run *run, const char *user,
				       const char *sel)
{
	bool root = strcmp(user, "root") == 0;
	struct imgp_buf pw = { 0 };
	char **slot;
	int rc;

	if (run->way != CUSTOM_WAY_ARMBIAN || strncmp(sel, "file:", 5) ||
	    !(root || (run->preset_user && strcmp(user, run->preset_user) == 0)))
		return 0;
	slot = root ? &run->preset_root_password : &run->preset_password;
	rc = imgp_read_local_(sel + 5, 4096, false, &pw);
	if (!rc) {
		pw.data[strcspn((char *)pw.data, "\r\n")] = '\0';
		if (!pw.data[0])
			rc = imgp_fail(EINVAL, "%s: empty password", sel + 5);
		else if (!quotable((char *)pw.data))
			rc = imgp_fail(EINVAL, "%s: armbian-firstlogin reads the password between single quotes: it cannot hold \"'\" or a control character",
				       sel + 5);
	}
	if (!rc) {
		if (*slot)
			explicit_bzero(*slot, strlen(*slot));
		free(*slot);
		*slot = strdup((char *)pw.data);
		if (!*slot)
			rc = imgp_fail(ENOMEM, "out of memory");
	}
	if (pw.data)
		explicit_bzero(pw.data, pw.cap);
	imgp_buf_free(&pw);
	if (!rc)
		rc = imgp_custom_note_(run, "password %s: " PRESET_FILE " %s, plain text as Armbian reads it (%s)",
				      user, root ? "PRESET_ROOT_PASSWORD" : "PRESET_USER_PASSWORD",
				      run->way_why);
	return rc ? rc : 1;
}

/* An SSID or key that createYAML's double quotes and echo -e keep as it is. */
static bool yaml_safe(const char *v)
{
	return quotable(v) && !strpbrk(v, "\"\\");
}

int imgp_custom_armbian_takes_net_(struct custom_run *run)
{
	const struct imgp_net *n = &run->net;
	int rc;

	/* The presets make a DHCP Wi-Fi connection on the first adapter. */
	if (run->way != CUSTOM_WAY_ARMBIAN || !n->wifi_ssid || n->address || n->gateway ||
	    n->dns || n->iface || !yaml_safe(n->wifi_ssid) ||
	    (n->wifi_psk && !yaml_safe(n->wifi_psk)))
		return 0;
	run->preset_wifi = true;
	rc = imgp_custom_note_(run, "wifi %s: " PRESET_FILE " PRESET_NET_WIFI_* (%s)",
			      n->wifi_ssid, run->way_why);
	return rc ? rc : 1;
}

/* KEY='VALUE' set in the text (the line replaced, or added at the end). */
static int set_preset(struct imgp_buf *text, const char *key, const char *value)
{
	struct imgp_buf out = { 0 }, v = { 0 };
	int rc = imgp_buf_printf(&v, "'%s'", value);

	if (!rc)
		rc = imgp_text_set_line_(text->data ? (char *)text->data : "", text->len, key,
					(char *)v.data, NULL, &out);
	if (rc >= 0) {
		if (text->data)
			explicit_bzero(text->data, text->len);
		imgp_buf_free(text);
		*text = out;
		out = (struct imgp_buf){ 0 };
		rc = 0;
	}
	if (v.data)
		explicit_bzero(v.data, v.len);
	imgp_buf_free(&v);
	imgp_buf_free(&out);
	return rc;
}

int imgp_custom_plan_preset_(struct custom_run *run)
{
	const struct imgp_net *n = &run->net;
	struct imgp_buf text = { 0 };
	char realname[40];
	bool exists = false;
	int rc;

	if (run->way != CUSTOM_WAY_ARMBIAN ||
	    !(run->preset_user || run->preset_root_password || run->timezone || run->locale ||
	      run->preset_wifi))
		return 0;
	rc = imgp_custom_read_root_(run, PRESET_FILE, &text, &exists);
	if (!rc && run->preset_user) {
		/* The answer armbian-firstlogin offers: the name, capitalised. */
		snprintf(realname, sizeof(realname), "%s", run->preset_user);
		realname[0] = (char)(realname[0] - 'a' + 'A');
		rc = set_preset(&text, "PRESET_USER_NAME", run->preset_user);
		if (!rc && run->preset_password)
			rc = set_preset(&text, "PRESET_USER_PASSWORD", run->preset_password);
		if (!rc)
			rc = set_preset(&text, "PRESET_DEFAULT_REALNAME", realname);
		if (!rc)
			rc = set_preset(&text, "PRESET_USER_SHELL", "bash");
	}
	if (!rc && run->preset_root_password)
		rc = set_preset(&text, "PRESET_ROOT_PASSWORD", run->preset_root_password);
	if (!rc && run->timezone)
		rc = set_preset(&text, "PRESET_TIMEZONE", run->timezone);
	if (!rc && run->locale)
		rc = set_preset(&text, "PRESET_LOCALE", run->locale);
	if (!rc && run->preset_wifi) {
		rc = set_preset(&text, "PRESET_NET_CHANGE_DEFAULTS", "1");
		if (!rc)
			rc = set_preset(&text, "PRESET_NET_ETHERNET_ENABLED", "0");
		if (!rc)
			rc = set_preset(&text, "PRESET_NET_WIFI_ENABLED", "1");
		if (!rc)
			rc = set_preset(&text, "PRESET_NET_WIFI_SSID", n->wifi_ssid);
		if (!rc)
			rc = set_preset(&text, "PRESET_NET_WIFI_KEY", n->wifi_psk ? n->wifi_psk : "");
		if (!rc && n->wifi_country)
			rc = set_preset(&text, "PRESET_NET_WIFI_COUNTRYCODE", n->wifi_country);
	}
	/* Its "connect to a wireless network now?" question, answered no. */
	if (!rc)
		rc = set_preset(&text, "PRESET_CONNECT_WIRELESS", "n");
	if (!rc)
		rc = imgp_custom_put_(run, PRESET_FILE, text.data, text.len, 0600, 0, 0,
				     run->preset_password || run->preset_root_password ||
				     (run->preset_wifi && n->wifi_psk), NULL);
	if (text.data)
		explicit_bzero(text.data, text.len);
	imgp_buf_free(&text);
	return rc;
}
