// SPDX-License-Identifier: MIT
/*
 * customize's network settings (custom.h): the values checked once, then
 * the files each network system of the image reads, in the form its
 * Debian 12 version reads them:
 *  - NetworkManager 1.42 keyfiles (nm-settings-keyfile(5)), written as
 *    `nmcli --offline connection add` writes them, mode 0600: NetworkManager
 *    ignores a keyfile that others can read;
 *  - systemd-networkd .network files (systemd.network(5), systemd 252);
 *  - netplan YAML (netplan.io 0.106), mode 0600 (netplan warns of others);
 *  - ifupdown stanzas (interfaces(5), ifupdown 0.8.41);
 *  - wpa_supplicant.conf(5) (wpasupplicant 2.10) for Wi-Fi under networkd
 *    and ifupdown, mode 0600.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/pbkdf2.h>
#include <nettle/sha1.h>

#include "custom/custom.h"

#define OOM() imgp_fail(ENOMEM, "out of memory")

/* ----------------------------------------------------------- the checks */

/*
 * A decimal prefix length of 0..max, nothing else (no sign, no leading
 * zero, which NetworkManager and netplan read differently): the value, or -1.
 */
static int prefix_parse(const char *s, int max)
{
	int v = 0;

	if (!*s || strlen(s) > 3 || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v <= max ? v : -1;
}

/* AF_INET, AF_INET6, or 0 when s is neither (inet_pton's forms only). */
static int addr_family(const char *s)
{
	unsigned char a[16];

	if (inet_pton(AF_INET, s, a) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, s, a) == 1)
		return AF_INET6;
	return 0;
}

static const char *family_name(int af)
{
	return af == AF_INET ? "IPv4" : "IPv6";
}

/* The address part of "ADDR/PREFIX" into buf; its family, or 0. */
static int static_family(const char *address, char *buf, size_t size)
{
	size_t n = strcspn(address, "/");

	if (n >= size)
		return 0;
	memcpy(buf, address, n);
	buf[n] = '\0';
	return addr_family(buf);
}

static int address_check(const char *address)
{
	char addr[64];
	const char *slash = strchr(address, '/');
	int af = static_family(address, addr, sizeof(addr));

	if (!af)
		return imgp_fail(EINVAL, "--static-ip %s: not an IPv4 or IPv6 address",
				 address);
	if (!slash)
		return imgp_fail(EINVAL, "--static-ip %s: no prefix length (ADDR/PREFIX, e.g. 192.168.1.20/24)",
				 address);
	if (prefix_parse(slash + 1, af == AF_INET ? 32 : 128) < 1)
		return imgp_fail(EINVAL, "--static-ip %s: the prefix length must be 1 to %d for an %s address",
				 address, af == AF_INET ? 32 : 128, family_name(af));
	return 0;
}

static int dns_check(const char *dns)
{
	char one[64];
	size_t n, count = 0;

	for (const char *p = dns;; p += n + 1) {
		n = strcspn(p, ",");
		if (!n || n >= sizeof(one))
			return imgp_fail(EINVAL, "--dns %s: %s", dns,
					 n ? "an item is too long to be an address" :
					     "an empty item (ADDR[,ADDR])");
		memcpy(one, p, n);
		one[n] = '\0';
		if (!addr_family(one))
			return imgp_fail(EINVAL, "--dns %s: '%s' is not an IPv4 or IPv6 address",
					 dns, one);
		/* more than any resolver uses: glibc reads 3 (resolv.conf(5), MAXNS) */
		if (++count > 8)
			return imgp_fail(EINVAL, "--dns %s: more than 8 name servers", dns);
		if (!p[n])
			return 0;
	}
}

/*
 * A Linux interface name as the kernel takes it (net/core/dev.c,
 * dev_valid_name(): below IFNAMSIZ, 16 bytes; no '/', ':' or white space;
 * not "." or ".."), kept to letters, digits, '_', '.' and '-', not '.' or
 * '-' first, so that it stands as a file name, a YAML key and a keyfile
 * value without quoting.
 */
static int iface_check(const char *iface)
{
	size_t n = strlen(iface);

	if (!n || n > 15 || iface[0] == '.' || iface[0] == '-' ||
	    strspn(iface, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != n)
		return imgp_fail(EINVAL, "--iface %s: not an interface name (1 to 15 letters, digits, '_', '.' or '-', not '.' or '-' first)",
				 iface);
	return 0;
}

/* The length of the UTF-8 sequence at s (n bytes left), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 :
		     (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	uint32_t cp;

	if (!len || len > n)
		return 0;
	cp = len == 1 ? s[0] : s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * An SSID is 1 to 32 bytes (IEEE 802.11; nm-settings-nmcli(5) wifi.ssid,
 * wpa_supplicant.conf(5) ssid). netplan and cloud-init take it as a YAML
 * string, so it must be UTF-8; a control character is refused too, as no
 * network shows one to a user who typed its name.
 */
static int ssid_check(const char *ssid)
{
	const unsigned char *s = (const unsigned char *)ssid;
	size_t n = strlen(ssid), k;

	if (!n || n > 32)
		return imgp_fail(EINVAL, "--wifi: an SSID is 1 to 32 bytes, this one %zu", n);
	for (size_t i = 0; i < n; i += k) {
		k = utf8_len(s + i, n - i);
		if (!k)
			return imgp_fail(EINVAL, "--wifi: the SSID is not UTF-8 text");
		if (k == 1 && (s[i] < 0x20 || s[i] == 0x7f))
			return imgp_fail(EINVAL, "--wifi: the SSID holds a control character (byte %zu)",
					 i + 1);
	}
	return 0;
}

static bool all_hex(const char *s, size_t n)
{
	return strspn(s, "0123456789abcdefABCDEF") == n;
}

/*
 * WPA personal: a passphrase of 8 to 63 printable ASCII characters, or
 * the key itself as 64 hex digits (wpa_supplicant.conf(5), psk;
 * nm-settings-nmcli(5), wifi-security.psk). The message never shows it.
 */
static int psk_check(const char *psk)
{
	size_t n = strlen(psk);

	if (n == 64 && all_hex(psk, n))
		return 0;
	if (n < 8 || n > 63)
		return imgp_fail(EINVAL, "--wifi-psk-file: the passphrase must be 8 to 63 characters, or the key as 64 hex digits");
	for (size_t i = 0; i < n; i++)
		if (psk[i] < 0x20 || psk[i] > 0x7e)
			return imgp_fail(EINVAL, "--wifi-psk-file: the passphrase holds a character other than printable ASCII (character %zu)",
					 i + 1);
	return 0;
}

/*
 * A value the messages show must be one short line: no control character
 * (a line break would forge a second message), at most 200 bytes.
 */
static int shown_check(const char *opt, const char *v)
{
	size_t len = strlen(v);

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return imgp_fail(EINVAL, "%s: a control character (byte %zu)", opt, i + 1);
	if (len > 200)
		return imgp_fail(EINVAL, "%s: %zu bytes is too long for any value it takes", opt, len);
	return 0;
}

int imgp_net_check_(const struct imgp_net *n)
{
	const char *const opts[] = { "--iface", "--static-ip", "--gateway", "--dns", "--wifi-country" };
	const char *const values[] = { n->iface, n->address, n->gateway, n->dns, n->wifi_country };
	char addr[64];
	int af = 0, rc = 0;

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		rc = values[i] ? shown_check(opts[i], values[i]) : 0;
		if (rc)
			return rc;
	}
	if (n->iface)
		rc = iface_check(n->iface);
	if (!rc && n->address) {
		rc = address_check(n->address);
		af = static_family(n->address, addr, sizeof(addr));
	}
	if (!rc && n->gateway) {
		int gaf = addr_family(n->gateway);

		if (!gaf)
			rc = imgp_fail(EINVAL, "--gateway %s: not an IPv4 or IPv6 address",
				       n->gateway);
		else if (!n->address)
			rc = imgp_fail(EINVAL, "--gateway %s: needs --static-ip (a DHCP lease brings its own)",
				       n->gateway);
		else if (gaf != af)
			rc = imgp_fail(EINVAL, "--gateway %s: an %s address, but --static-ip %s is %s",
				       n->gateway, family_name(gaf), n->address,
				       family_name(af));
	}
	if (!rc && n->dns)
		rc = dns_check(n->dns);
	if (!rc && n->wifi_ssid)
		rc = ssid_check(n->wifi_ssid);
	if (!rc && n->wifi_psk)
		rc = n->wifi_ssid ? psk_check(n->wifi_psk) :
			imgp_fail(EINVAL, "--wifi-psk-file: needs --wifi");
	if (!rc && n->wifi_country) {
		const char *c = n->wifi_country;

		if (!n->wifi_ssid)
			rc = imgp_fail(EINVAL, "--wifi-country %s: needs --wifi", c);
		else if (strlen(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z')
			rc = imgp_fail(EINVAL, "--wifi-country %s: not a country code (two capital letters, ISO 3166-1 alpha-2, e.g. GB)",
				       c);
	}
	return rc;
}

/* ---------------------------------------------------- shared by makers */

static const char *net_iface(const struct imgp_net *n)
{
	return n->iface ? n->iface : n->wifi_ssid ? "wlan0" : "eth0";
}

/* The address of "ADDR/PREFIX" and its family (0: DHCP). */
static int net_family(const struct imgp_net *n, char *addr, size_t size)
{
	return n->address ? static_family(n->address, addr, size) : 0;
}

/* Calls fn for each name server of n->dns (checked). */
static int dns_each(const struct imgp_net *n,
		    int (*fn)(const char *server, int af, void *arg), void *arg)
{
	char one[64];
	size_t len;
	int rc;

	if (!n->dns)
		return 0;
	for (const char *p = n->dns;; p += len + 1) {
		len = strcspn(p, ",");
		snprintf(one, sizeof(one), "%.*s", (int)len, p);
		rc = fn(one, addr_family(one), arg);
		if (rc || !p[len])
			return rc;
	}
}

/*
 * A YAML double-quoted scalar (YAML 1.1, which PyYAML and libyaml read):
 * '"' and '\' escaped, control bytes as \xNN; UTF-8 passes as it is.
 */
int imgp_custom_yaml_quote_(struct imgp_buf *out, const char *s)
{
	int rc = imgp_buf_append(out, IMGP_LIT("\""));

	for (; !rc && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			rc = imgp_buf_printf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			rc = imgp_buf_printf(out, "\\x%02x", c);
		else
			rc = imgp_buf_append(out, s, 1);
	}
	return rc ? rc : imgp_buf_append(out, IMGP_LIT("\""));
}

struct v2_dns {
	struct imgp_buf *out;
	unsigned indent;
};

static int v2_dns_one(const char *server, int af, void *arg)
{
	struct v2_dns *d = arg;

	(void)af;
	return imgp_buf_printf(d->out, "%*s- \"%s\"\n", d->indent, "", server);
}

/*
 * Network configuration version 2 as netplan 0.106 (doc/netplan.md) and
 * cloud-init's network_state.py read it. The default route is "to:
 * 0.0.0.0/0" (or "::/0"), never netplan's "default": cloud-init renders
 * version 2 itself for every renderer but netplan, and before 25.3 it
 * refuses "default" ("Address default is not a valid ip address":
 * _normalize_net_keys in cloud-init 22.4.2's cloudinit/net/network_state.py;
 * canonical/cloud-init d2f422d17493c8cef443c0262184d93c900f716a added
 * "default" in 25.3). netplan takes both. A static address sets dhcp4 and
 * dhcp6 off, as a later netplan file merges into an earlier one of the
 * same interface (cloud-init's 50-cloud-init.yaml with dhcp4: true).
 */
int imgp_custom_net_v2_(const struct imgp_net *n, unsigned indent,
		       struct imgp_buf *out)
{
	unsigned i = indent;
	char addr[64];
	int af = net_family(n, addr, sizeof(addr)), rc;
	struct v2_dns d = { out, i + 8 };

	rc = imgp_buf_printf(out, "%*s%s:\n%*s  %s:\n", i, "",
			     n->wifi_ssid ? "wifis" : "ethernets", i, "", net_iface(n));
	if (!rc && af)
		rc = imgp_buf_printf(out, "%*s    dhcp4: false\n%*s    dhcp6: false\n"
				     "%*s    addresses:\n%*s      - \"%s\"\n",
				     i, "", i, "", i, "", i, "", n->address);
	else if (!rc)
		rc = imgp_buf_printf(out, "%*s    dhcp4: true\n", i, "");
	if (!rc && n->gateway)
		rc = imgp_buf_printf(out, "%*s    routes:\n%*s      - to: \"%s\"\n%*s        via: \"%s\"\n",
				     i, "", i, "", af == AF_INET ? "0.0.0.0/0" : "::/0",
				     i, "", n->gateway);
	if (!rc && n->dns) {
		rc = imgp_buf_printf(out, "%*s    nameservers:\n%*s      addresses:\n", i, "", i, "");
		if (!rc)
			rc = dns_each(n, v2_dns_one, &d);
	}
	if (!rc && n->wifi_ssid) {
		rc = imgp_buf_printf(out, "%*s    access-points:\n%*s      ", i, "", i, "");
		if (!rc)
			rc = imgp_custom_yaml_quote_(out, n->wifi_ssid);
		if (!rc && !n->wifi_psk)
			rc = imgp_buf_append(out, IMGP_LIT(": {}\n"));  /* an open network */
		else if (!rc)
			rc = imgp_buf_printf(out, ":\n%*s        password: ", i, "");
		if (!rc && n->wifi_psk)
			rc = imgp_custom_yaml_quote_(out, n->wifi_psk);
		if (!rc && n->wifi_psk)
			rc = imgp_buf_append(out, IMGP_LIT("\n"));
	}
	return rc ? OOM() : 0;
}

/* ------------------------------------------------------ NetworkManager */

#define NM_DIR "/etc/NetworkManager/system-connections/"

/*
 * A GKeyFile string value (GLib's g_key_file_set_string, which
 * NetworkManager's keyfile writer uses): '\' doubled, a leading blank as
 * "\s", line ends as escapes.
 */
static int keyfile_string(struct imgp_buf *out, const char *s)
{
	int rc = 0;

	for (const char *p = s; !rc && *p; p++) {
		if (*p == '\\')
			rc = imgp_buf_append(out, IMGP_LIT("\\\\"));
		else if (*p == ' ' && p == s)
			rc = imgp_buf_append(out, IMGP_LIT("\\s"));
		else if (*p == '\n' || *p == '\t' || *p == '\r')
			rc = imgp_buf_printf(out, "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
		else
			rc = imgp_buf_append(out, p, 1);
	}
	return rc;
}

/*
 * wifi.ssid: NetworkManager 1.42 writes an SSID of printable ASCII as a
 * string and any other as its bytes ("99;97;102;195;169;"), and reads
 * both; ';' and '\' (which it would escape twice over) go as bytes too.
 */
static int keyfile_ssid(struct imgp_buf *out, const char *ssid)
{
	bool plain = true;
	int rc = 0;

	for (const unsigned char *p = (const unsigned char *)ssid; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == ';' || *p == '\\')
			plain = false;
	if (plain)
		return keyfile_string(out, ssid);
	for (const unsigned char *p = (const unsigned char *)ssid; !rc && *p; p++)
		rc = imgp_buf_printf(out, "%u;", *p);
	return rc;
}

/*
 * A name-based UUID (RFC 4122 version 5, SHA-1) of what names the
 * connection (its type, interface and SSID), so that a second run writes
 * the same bytes. Never of the passphrase: the UUID is shown everywhere.
 */
static void name_uuid(const char *type, const char *iface, const char *ssid,
		      char out[37])
{
	/* this project's own namespace, made once at random */
	static const uint8_t ns[16] = {
		0x6d, 0x1c, 0x4b, 0x2a, 0x93, 0x0e, 0x4f, 0x57,
		0xa4, 0x8c, 0x2f, 0x3b, 0x71, 0xd5, 0x09, 0xe2,
	};
	uint8_t d[SHA1_DIGEST_SIZE];
	struct sha1_ctx c;

	sha1_init(&c);
	sha1_update(&c, sizeof(ns), ns);
	sha1_update(&c, strlen(type) + 1, (const uint8_t *)type);
	sha1_update(&c, strlen(iface) + 1, (const uint8_t *)iface);
	if (ssid)
		sha1_update(&c, strlen(ssid), (const uint8_t *)ssid);
	sha1_digest(&c, sizeof(d), d);
	d[6] = (uint8_t)((d[6] & 0x0f) | 0x50);
	d[8] = (uint8_t)((d[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9],
		 d[10], d[11], d[12], d[13], d[14], d[15]);
}

struct nm_dns {
	struct imgp_buf *out;
	int af;
	bool any;
};

static int nm_dns_one(const char *server, int af, void *arg)
{
	struct nm_dns *d = arg;
	int rc;

	if (af != d->af)
		return 0;
	rc = imgp_buf_printf(d->out, "%s%s;", d->any ? "" : "dns=", server);
	d->any = true;
	return rc;
}

/* One [ipv4] or [ipv6] section, its keys in the order nmcli writes them. */
static int nm_ip_section(struct imgp_buf *out, const struct imgp_net *n, int af)
{
	char addr[64];
	int static_af = net_family(n, addr, sizeof(addr)), rc;
	struct nm_dns d = { out, af, false };
	bool manual = static_af == af;

	rc = imgp_buf_printf(out, "\n[%s]\n", af == AF_INET ? "ipv4" : "ipv6");
	if (!rc && af == AF_INET6)
		rc = imgp_buf_append(out, IMGP_LIT("addr-gen-mode=default\n"));
	if (!rc && manual)
		rc = imgp_buf_printf(out, "address1=%s%s%s\n", n->address,
				     n->gateway ? "," : "", n->gateway ? n->gateway : "");
	if (!rc)
		rc = dns_each(n, nm_dns_one, &d);
	if (!rc && d.any)
		rc = imgp_buf_append(out, IMGP_LIT("\n"));
	if (!rc)
		rc = imgp_buf_printf(out, "method=%s\n", manual ? "manual" : "auto");
	return rc;
}

/*
 * The file's name: IFACE.nmconnection, or for Wi-Fi the SSID's with what
 * is not a letter, digit, '-' or '_' as '_' (NetworkManager reads any
 * name ending in .nmconnection; this one is safe anywhere).
 */
static int nm_path(const struct imgp_net *n, struct imgp_buf *path)
{
	const char *name = n->wifi_ssid ? n->wifi_ssid : net_iface(n);
	int rc = imgp_buf_append(path, NM_DIR, strlen(NM_DIR));

	for (const char *p = name; !rc && *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_'))
			c = '_';
		rc = imgp_buf_append(path, &c, 1);
	}
	return rc ? rc : imgp_buf_append(path, IMGP_LIT(".nmconnection"));
}

static int nm_files(const struct imgp_net *n, struct imgp_gen_files *out)
{
	struct imgp_buf t = { 0 }, path = { 0 };
	const char *iface = net_iface(n), *type = n->wifi_ssid ? "wifi" : "ethernet";
	char uuid[37];
	int rc;

	name_uuid(type, iface, n->wifi_ssid, uuid);
	rc = imgp_buf_append(&t, IMGP_LIT("[connection]\nid="));
	if (!rc)
		rc = keyfile_string(&t, n->wifi_ssid ? n->wifi_ssid : iface);
	if (!rc)
		rc = imgp_buf_printf(&t, "\nuuid=%s\ntype=%s\ninterface-name=%s\n",
				     uuid, type, iface);
	if (!rc && !n->wifi_ssid)
		rc = imgp_buf_append(&t, IMGP_LIT("\n[ethernet]\n"));
	if (!rc && n->wifi_ssid) {
		rc = imgp_buf_append(&t, IMGP_LIT("\n[wifi]\nmode=infrastructure\nssid="));
		if (!rc)
			rc = keyfile_ssid(&t, n->wifi_ssid);
		if (!rc)
			rc = imgp_buf_append(&t, IMGP_LIT("\n"));
	}
	if (!rc && n->wifi_psk) {
		rc = imgp_buf_append(&t, IMGP_LIT("\n[wifi-security]\nkey-mgmt=wpa-psk\npsk="));
		if (!rc)
			rc = keyfile_string(&t, n->wifi_psk);
		if (!rc)
			rc = imgp_buf_append(&t, IMGP_LIT("\n"));
	}
	if (!rc)
		rc = nm_ip_section(&t, n, AF_INET);
	if (!rc)
		rc = nm_ip_section(&t, n, AF_INET6);
	if (!rc)
		rc = imgp_buf_append(&t, IMGP_LIT("\n[proxy]\n"));
	if (!rc)
		rc = nm_path(n, &path);
	if (!rc)
		rc = imgp_gen_files_add_(out, (const char *)path.data, (const char *)t.data,
					t.len, 0600, n->wifi_psk != NULL);
	imgp_buf_free(&t);
	imgp_buf_free(&path);
	return rc ? OOM() : 0;
}

/* ------------------------------------------------------ wpa_supplicant */

/*
 * wpa_supplicant.conf(5): the network block for n, with the SSID as hex
 * (which needs no quoting) and the key as wpa_passphrase(8) computes it
 * (PBKDF2-HMAC-SHA1, the SSID as salt, 4096 rounds, 32 bytes), so the
 * file holds no passphrase to quote. country= sets the regulatory domain.
 */
static int wpa_conf(const struct imgp_net *n, const char *path,
		    struct imgp_gen_files *out)
{
	struct imgp_buf t = { 0 };
	uint8_t key[32];
	int rc;

	rc = imgp_buf_append(&t, IMGP_LIT("ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev\n"));
	if (!rc && n->wifi_country)
		rc = imgp_buf_printf(&t, "country=%s\n", n->wifi_country);
	if (!rc)
		rc = imgp_buf_append(&t, IMGP_LIT("\nnetwork={\n\tssid="));
	for (const unsigned char *p = (const unsigned char *)n->wifi_ssid; !rc && *p; p++)
		rc = imgp_buf_printf(&t, "%02x", *p);
	if (!rc && !n->wifi_psk)
		rc = imgp_buf_append(&t, IMGP_LIT("\n\tkey_mgmt=NONE\n"));
	else if (!rc && strlen(n->wifi_psk) == 64)
		rc = imgp_buf_printf(&t, "\n\tkey_mgmt=WPA-PSK\n\tpsk=%s\n", n->wifi_psk);
	else if (!rc) {
		pbkdf2_hmac_sha1(strlen(n->wifi_psk), (const uint8_t *)n->wifi_psk, 4096,
				 strlen(n->wifi_ssid), (const uint8_t *)n->wifi_ssid,
				 sizeof(key), key);
		rc = imgp_buf_append(&t, IMGP_LIT("\n\tkey_mgmt=WPA-PSK\n\tpsk="));
		for (size_t i = 0; !rc && i < sizeof(key); i++)
			rc = imgp_buf_printf(&t, "%02x", key[i]);
		if (!rc)
			rc = imgp_buf_append(&t, IMGP_LIT("\n"));
		memset(key, 0, sizeof(key));
	}
	if (!rc)
		rc = imgp_buf_append(&t, IMGP_LIT("}\n"));
	if (!rc)
		rc = imgp_gen_files_add_(out, path, (const char *)t.data, t.len, 0600,
					n->wifi_psk != NULL);
	if (t.data)
		memset(t.data, 0, t.len);
	imgp_buf_free(&t);
	return rc ? OOM() : 0;
}

/* ------------------------------------------------------------ networkd */

static int networkd_dns_one(const char *server, int af, void *arg)
{
	(void)af;
	return imgp_buf_printf(arg, "DNS=%s\n", server);
}

/*
 * systemd.network(5), systemd 252: networkd applies the first .network
 * file in name order (over /etc, /run and /usr/lib) that matches an
 * interface, so the name starts low ("10-").
 */
static int networkd_files(const struct imgp_net *n, struct imgp_gen_files *out)
{
	struct imgp_buf t = { 0 };
	const char *iface = net_iface(n);
	char path[96];
	int rc;

	rc = imgp_buf_printf(&t, "[Match]\nName=%s\n\n[Network]\n", iface);
	if (!rc && n->address)
		rc = imgp_buf_printf(&t, "Address=%s\n", n->address);
	else if (!rc)
		rc = imgp_buf_append(&t, IMGP_LIT("DHCP=yes\n"));
	if (!rc && n->gateway)
		rc = imgp_buf_printf(&t, "Gateway=%s\n", n->gateway);
	if (!rc)
		rc = dns_each(n, networkd_dns_one, &t);
	snprintf(path, sizeof(path), "/etc/systemd/network/10-imgpatch-%s.network", iface);
	if (!rc)
		rc = imgp_gen_files_add_(out, path, (const char *)t.data, t.len, 0644, false);
	imgp_buf_free(&t);
	if (rc)
		return OOM();
	if (!n->wifi_ssid)
		return 0;
	/* Debian's wpa_supplicant@.service reads wpa_supplicant-%I.conf */
	snprintf(path, sizeof(path), "/etc/wpa_supplicant/wpa_supplicant-%s.conf", iface);
	return wpa_conf(n, path, out);
}

/* -------------------------------------------------------------- netplan */

static int netplan_files(const struct imgp_net *n, struct imgp_gen_files *out)
{
	struct imgp_buf t = { 0 };
	int rc;

	/* no "renderer:": the image's own files (or netplan's default) choose it */
	rc = imgp_buf_append(&t, IMGP_LIT("network:\n  version: 2\n"));
	if (!rc)
		rc = imgp_custom_net_v2_(n, 2, &t);
	/* after 50-cloud-init.yaml and 01-network-manager-all.yaml: merged last */
	if (!rc)
		rc = imgp_gen_files_add_(out, "/etc/netplan/90-imgpatch.yaml",
					(const char *)t.data, t.len, 0600, n->wifi_psk != NULL);
	imgp_buf_free(&t);
	return rc ? OOM() : 0;
}

/* ------------------------------------------------------------- ifupdown */

/*
 * interfaces(5), ifupdown 0.8.41: "allow-hotplug", as Debian's installer
 * writes its first interface. Name servers: ifupdown alone sets none;
 * "dns-nameservers" is read only by resolvconf's hook, which a system
 * without it lacks, so they go to /etc/resolv.conf, which the resolver
 * reads (resolv.conf(5)). Wi-Fi: "wpa-conf" is read by wpasupplicant's
 * hook (/etc/network/if-pre-up.d/wpasupplicant, wpasupplicant 2.10's
 * README.Debian), which starts wpa_supplicant on that file.
 */
static int resolv_one(const char *server, int af, void *arg)
{
	(void)af;
	return imgp_buf_printf(arg, "nameserver %s\n", server);
}

static int ifupdown_files(const struct imgp_net *n, struct imgp_gen_files *out)
{
	struct imgp_buf t = { 0 };
	const char *iface = net_iface(n);
	char addr[64], path[96], wpa[96];
	int af = net_family(n, addr, sizeof(addr)), rc;

	snprintf(wpa, sizeof(wpa), "/etc/wpa_supplicant/wpa_supplicant-%s.conf", iface);
	rc = imgp_buf_printf(&t, "allow-hotplug %s\niface %s %s %s\n", iface, iface,
			     af == AF_INET6 ? "inet6" : "inet", af ? "static" : "dhcp");
	if (!rc && af)
		rc = imgp_buf_printf(&t, "\taddress %s\n", n->address);
	if (!rc && n->gateway)
		rc = imgp_buf_printf(&t, "\tgateway %s\n", n->gateway);
	if (!rc && n->wifi_ssid)
		rc = imgp_buf_printf(&t, "\twpa-conf %s\n", wpa);
	snprintf(path, sizeof(path), "/etc/network/interfaces.d/%s", iface);
	if (!rc)
		rc = imgp_gen_files_add_(out, path, (const char *)t.data, t.len, 0644, false);
	t.len = 0;
	if (!rc && n->dns) {
		rc = dns_each(n, resolv_one, &t);
		if (!rc)
			rc = imgp_gen_files_add_(out, "/etc/resolv.conf", (const char *)t.data,
						t.len, 0644, false);
	}
	imgp_buf_free(&t);
	if (rc)
		return OOM();
	return n->wifi_ssid ? wpa_conf(n, wpa, out) : 0;
}

/* ----------------------------------------------------------- the files */

/*
 * cfg80211 (a module in Debian's and Raspberry Pi's kernels) takes its
 * regulatory domain from ieee80211_regdom at load (net/wireless/reg.c);
 * modprobe reads its options from the .conf files of /etc/modprobe.d
 * (modprobe.d(5)).
 */
int imgp_net_country_file_(const struct imgp_net *n, struct imgp_gen_files *out)
{
	char text[64];

	if (!n->wifi_ssid || !n->wifi_country)
		return 0;
	snprintf(text, sizeof(text), "options cfg80211 ieee80211_regdom=%s\n",
		 n->wifi_country);
	if (imgp_gen_files_add_(out, "/etc/modprobe.d/imgpatch-wifi-country.conf",
			       text, strlen(text), 0644, false))
		return OOM();
	return 0;
}

int imgp_net_files_(enum imgp_net_system sys, const struct imgp_net *n,
		   struct imgp_gen_files *out)
{
	size_t had = out->n;
	int rc;

	switch (sys) {
	case IMGP_NET_NETWORKMANAGER:
		rc = nm_files(n, out);
		break;
	case IMGP_NET_NETWORKD:
		rc = networkd_files(n, out);
		break;
	case IMGP_NET_NETPLAN:
		rc = netplan_files(n, out);
		break;
	case IMGP_NET_IFUPDOWN:
		rc = ifupdown_files(n, out);
		break;
	default:
		return imgp_fail(EINVAL, "unknown network system %d", (int)sys);
	}
	if (!rc)
		rc = imgp_net_country_file_(n, out);
	if (rc) {
		/* none of a half-made set stays */
		for (size_t i = had; i < out->n; i++) {
			free(out->v[i].path);
			imgp_buf_free(&out->v[i].text);
		}
		out->n = had;
	}
	return rc;
}
