// SPDX-License-Identifier: MIT
/*
 * customize's network files (custom/custom-net.c): every value checked
 * with a message naming the option, each system's files as exact text,
 * and read back by the consumers installed here: NetworkManager's own
 * keyfile reader (nmcli --offline), netplan generate, ifupdown's ifquery,
 * wpa_passphrase, and systemd.network(5) for the keys networkd reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "imgpatch.h"
#include "custom/custom.h"
#include "unit.h"

#define PSK "s3cret pass;#x"

static const struct imgp_net eth_static = {
	.address = "10.0.0.5/24", .gateway = "10.0.0.1", .dns = "10.0.0.1,9.9.9.9",
};
static const struct imgp_net wifi_dhcp = {
	.wifi_ssid = "Lab Net", .wifi_psk = PSK, .wifi_country = "GB",
};

static void expect_refused(const struct imgp_net *n, const char *want, const char *name)
{
	int rc = imgp_net_check_(n);

	CHECK(rc == -EINVAL, name);
	CHECK_STR(imgp_errmsg(), want, name);
	CHECK(!strstr(imgp_errmsg(), PSK) && !strstr(imgp_errmsg(), "s3cret"),
	      "the message never shows the passphrase");
}

static void check_values(void)
{
	struct imgp_net n;

	CHECK(imgp_net_check_(&eth_static) == 0, "a static IPv4 address, gateway and name servers pass");
	CHECK(imgp_net_check_(&wifi_dhcp) == 0, "Wi-Fi with a passphrase and a country passes");
	n = (struct imgp_net){ .iface = "enp1s0", .address = "2001:db8::5/64",
			       .gateway = "fe80::1", .dns = "2001:db8::53,10.0.0.1" };
	CHECK(imgp_net_check_(&n) == 0, "IPv6 address and gateway, mixed name servers pass");
	n = (struct imgp_net){ .wifi_ssid = "x", .wifi_psk =
		"0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef" };
	CHECK(imgp_net_check_(&n) == 0, "a 64-digit hex key passes");

	n = (struct imgp_net){ .address = "10.0.0.300/24" };
	expect_refused(&n, "--static-ip 10.0.0.300/24: not an IPv4 or IPv6 address",
		       "an octet over 255 is refused");
	n = (struct imgp_net){ .address = "10.0.0.5" };
	expect_refused(&n, "--static-ip 10.0.0.5: no prefix length (ADDR/PREFIX, e.g. 192.168.1.20/24)",
		       "an address without a prefix is refused");
	n = (struct imgp_net){ .address = "10.0.0.5/33" };
	expect_refused(&n, "--static-ip 10.0.0.5/33: the prefix length must be 1 to 32 for an IPv4 address",
		       "prefix 33 on IPv4 is refused");
	n = (struct imgp_net){ .address = "10.0.0.5/+8" };
	expect_refused(&n, "--static-ip 10.0.0.5/+8: the prefix length must be 1 to 32 for an IPv4 address",
		       "a signed prefix is refused");
	n = (struct imgp_net){ .address = "10.0.0.5/024" };
	expect_refused(&n, "--static-ip 10.0.0.5/024: the prefix length must be 1 to 32 for an IPv4 address",
		       "a prefix with a leading zero is refused");
	n = (struct imgp_net){ .address = "010.0.0.5/24" };
	expect_refused(&n, "--static-ip 010.0.0.5/24: not an IPv4 or IPv6 address",
		       "an octet with a leading zero is refused (inet_pton)");
	n = (struct imgp_net){ .address = "fe80::1%eth0/64" };
	expect_refused(&n, "--static-ip fe80::1%eth0/64: not an IPv4 or IPv6 address",
		       "an address with a zone is refused");
	n = (struct imgp_net){ .address = "2001:db8::5/129" };
	expect_refused(&n, "--static-ip 2001:db8::5/129: the prefix length must be 1 to 128 for an IPv6 address",
		       "prefix 129 on IPv6 is refused");
	n = (struct imgp_net){ .address = "10.0.0.5/24", .gateway = "fe80::1" };
	expect_refused(&n, "--gateway fe80::1: an IPv6 address, but --static-ip 10.0.0.5/24 is IPv4",
		       "a gateway of the other family is refused");
	n = (struct imgp_net){ .gateway = "10.0.0.1" };
	expect_refused(&n, "--gateway 10.0.0.1: needs --static-ip (a DHCP lease brings its own)",
		       "a gateway without an address is refused");
	n = (struct imgp_net){ .address = "10.0.0.5/24", .gateway = "10.0.0" };
	expect_refused(&n, "--gateway 10.0.0: not an IPv4 or IPv6 address",
		       "a short gateway is refused");
	n = (struct imgp_net){ .dns = "10.0.0.1,,9.9.9.9" };
	expect_refused(&n, "--dns 10.0.0.1,,9.9.9.9: an empty item (ADDR[,ADDR])",
		       "an empty name server is refused");
	n = (struct imgp_net){ .dns = "10.0.0.1,dns.example" };
	expect_refused(&n, "--dns 10.0.0.1,dns.example: 'dns.example' is not an IPv4 or IPv6 address",
		       "a host name as name server is refused");
	n = (struct imgp_net){ .iface = "eth0/../x" };
	expect_refused(&n, "--iface eth0/../x: not an interface name (1 to 15 letters, digits, '_', '.' or '-', not '.' or '-' first)",
		       "an interface with '/' is refused");
	n = (struct imgp_net){ .iface = "abcdefghijklmnop" };
	expect_refused(&n, "--iface abcdefghijklmnop: not an interface name (1 to 15 letters, digits, '_', '.' or '-', not '.' or '-' first)",
		       "an interface of 16 bytes is refused");
	n = (struct imgp_net){ .wifi_ssid = "123456789012345678901234567890123" };
	expect_refused(&n, "--wifi: an SSID is 1 to 32 bytes, this one 33",
		       "an SSID of 33 bytes is refused");
	n = (struct imgp_net){ .address = "10.0.0.5/24\nimgpatch: forged" };
	expect_refused(&n, "--static-ip: a control character (byte 12)",
		       "a line break in a value is refused without showing it");
	n = (struct imgp_net){ .dns = "1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,"
				      "1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,"
				      "1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1" };
	expect_refused(&n, "--dns: 215 bytes is too long for any value it takes",
		       "a value too long to show is refused without showing it");
	n = (struct imgp_net){ .dns = "1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1" };
	expect_refused(&n, "--dns 1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1: more than 8 name servers",
		       "nine name servers are refused");
	n = (struct imgp_net){ .wifi_ssid = "a\nb" };
	expect_refused(&n, "--wifi: the SSID holds a control character (byte 2)",
		       "a line break in the SSID is refused");
	n = (struct imgp_net){ .wifi_ssid = "caf\xe9" };
	expect_refused(&n, "--wifi: the SSID is not UTF-8 text", "a Latin-1 SSID is refused");
	n = (struct imgp_net){ .wifi_ssid = "x", .wifi_psk = "s3cret" };
	expect_refused(&n, "--wifi-psk-file: the passphrase must be 8 to 63 characters, or the key as 64 hex digits",
		       "a passphrase of 6 characters is refused");
	n = (struct imgp_net){ .wifi_ssid = "x", .wifi_psk = "s3cret pass\t;#x" };
	expect_refused(&n, "--wifi-psk-file: the passphrase holds a character other than printable ASCII (character 12)",
		       "a tab in the passphrase is refused");
	n = (struct imgp_net){ .wifi_psk = PSK };
	expect_refused(&n, "--wifi-psk-file: needs --wifi", "a passphrase without --wifi is refused");
	n = (struct imgp_net){ .wifi_ssid = "x", .wifi_country = "gb" };
	expect_refused(&n, "--wifi-country gb: not a country code (two capital letters, ISO 3166-1 alpha-2, e.g. GB)",
		       "a lower-case country is refused");
	n = (struct imgp_net){ .wifi_country = "GB" };
	expect_refused(&n, "--wifi-country GB: needs --wifi", "a country without --wifi is refused");
}

/* The file of f at path (NULL when absent), its mode and secrecy. */
static const struct imgp_gen_file *file_at(const struct imgp_gen_files *f, const char *path)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].path, path))
			return &f->v[i];
	return NULL;
}

static void expect_file(const struct imgp_gen_files *f, const char *path,
			unsigned mode, bool secret, const char *text, const char *name)
{
	const struct imgp_gen_file *g = file_at(f, path);

	CHECK(g != NULL, name);
	if (!g) {
		printf("#   no %s\n", path);
		return;
	}
	CHECK_STR((const char *)g->text.data, text, name);
	CHECK(g->mode == mode && g->secret == secret, name);
}

#define NM_ETH "/etc/NetworkManager/system-connections/eth0.nmconnection"
#define NM_WIFI "/etc/NetworkManager/system-connections/Lab_Net.nmconnection"

static const char nm_eth_text[] =
	"[connection]\nid=eth0\nuuid=%s\ntype=ethernet\ninterface-name=eth0\n\n"
	"[ethernet]\n\n[ipv4]\naddress1=10.0.0.5/24,10.0.0.1\ndns=10.0.0.1;9.9.9.9;\n"
	"method=manual\n\n[ipv6]\naddr-gen-mode=default\nmethod=auto\n\n[proxy]\n";

static void check_texts(struct imgp_gen_files *nm, struct imgp_gen_files *nmw)
{
	struct imgp_gen_files f = { 0 };
	const struct imgp_gen_file *g;
	char want[1024], uuid[37] = "";

	CHECK(imgp_net_files_(IMGP_NET_NETWORKMANAGER, &eth_static, nm) == 0 && nm->n == 1,
	      "NetworkManager: one keyfile for Ethernet");
	g = file_at(nm, NM_ETH);
	if (g && g->text.len > 60)
		sscanf((const char *)g->text.data, "[connection]\nid=eth0\nuuid=%36s", uuid);
	snprintf(want, sizeof(want), nm_eth_text, uuid);
	expect_file(nm, NM_ETH, 0600, false, want, "NetworkManager: the Ethernet keyfile, mode 0600");
	CHECK(strlen(uuid) == 36 && uuid[14] == '5' && strchr("89ab", uuid[19]),
	      "NetworkManager: the uuid is a name-based one (version 5)");
	CHECK(imgp_net_files_(IMGP_NET_NETWORKMANAGER, &eth_static, &f) == 0 && f.n == 1 &&
	      f.v[0].text.len == nm->v[0].text.len &&
	      !memcmp(f.v[0].text.data, nm->v[0].text.data, f.v[0].text.len),
	      "NetworkManager: a second run writes the same bytes");
	imgp_gen_files_free_(&f);

	CHECK(imgp_net_files_(IMGP_NET_NETWORKMANAGER, &wifi_dhcp, nmw) == 0 && nmw->n == 2,
	      "NetworkManager: a keyfile and the country's file for Wi-Fi");
	g = file_at(nmw, NM_WIFI);
	CHECK(g && g->secret && g->mode == 0600 && strstr((const char *)g->text.data,
		"\ntype=wifi\ninterface-name=wlan0\n\n[wifi]\nmode=infrastructure\nssid=Lab Net\n\n"
		"[wifi-security]\nkey-mgmt=wpa-psk\npsk=" PSK "\n\n[ipv4]\nmethod=auto\n"),
	      "NetworkManager: the Wi-Fi keyfile holds the SSID and the passphrase, secret, 0600");
	expect_file(nmw, "/etc/modprobe.d/imgpatch-wifi-country.conf", 0644, false,
		    "options cfg80211 ieee80211_regdom=GB\n",
		    "the Wi-Fi country goes to cfg80211 when it loads");

	CHECK(imgp_net_files_(IMGP_NET_NETWORKD, &eth_static, &f) == 0 && f.n == 1,
	      "networkd: one file for Ethernet");
	expect_file(&f, "/etc/systemd/network/10-imgpatch-eth0.network", 0644, false,
		    "[Match]\nName=eth0\n\n[Network]\nAddress=10.0.0.5/24\nGateway=10.0.0.1\n"
		    "DNS=10.0.0.1\nDNS=9.9.9.9\n", "networkd: the .network file");
	imgp_gen_files_free_(&f);

	CHECK(imgp_net_files_(IMGP_NET_NETPLAN, &eth_static, &f) == 0 && f.n == 1,
	      "netplan: one file");
	expect_file(&f, "/etc/netplan/90-imgpatch.yaml", 0600, false,
		    "network:\n  version: 2\n  ethernets:\n    eth0:\n      dhcp4: false\n"
		    "      dhcp6: false\n      addresses:\n        - \"10.0.0.5/24\"\n"
		    "      routes:\n        - to: \"0.0.0.0/0\"\n          via: \"10.0.0.1\"\n"
		    "      nameservers:\n        addresses:\n          - \"10.0.0.1\"\n"
		    "          - \"9.9.9.9\"\n", "netplan: the YAML, mode 0600");
	imgp_gen_files_free_(&f);

	CHECK(imgp_net_files_(IMGP_NET_IFUPDOWN, &eth_static, &f) == 0 && f.n == 2,
	      "ifupdown: the stanza and resolv.conf");
	expect_file(&f, "/etc/network/interfaces.d/eth0", 0644, false,
		    "allow-hotplug eth0\niface eth0 inet static\n\taddress 10.0.0.5/24\n"
		    "\tgateway 10.0.0.1\n", "ifupdown: the stanza");
	expect_file(&f, "/etc/resolv.conf", 0644, false,
		    "nameserver 10.0.0.1\nnameserver 9.9.9.9\n",
		    "ifupdown: the name servers in resolv.conf");
	imgp_gen_files_free_(&f);

	CHECK(imgp_net_files_(IMGP_NET_IFUPDOWN, &wifi_dhcp, &f) == 0 && f.n == 3,
	      "ifupdown Wi-Fi: stanza, wpa_supplicant.conf, country");
	expect_file(&f, "/etc/network/interfaces.d/wlan0", 0644, false,
		    "allow-hotplug wlan0\niface wlan0 inet dhcp\n"
		    "\twpa-conf /etc/wpa_supplicant/wpa_supplicant-wlan0.conf\n",
		    "ifupdown: the Wi-Fi stanza names its wpa_supplicant.conf");
	g = file_at(&f, "/etc/wpa_supplicant/wpa_supplicant-wlan0.conf");
	CHECK(g && g->mode == 0600 && g->secret && !strstr((const char *)g->text.data, "s3cret") &&
	      !strncmp((const char *)g->text.data,
		       "ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev\ncountry=GB\n\n"
		       "network={\n\tssid=4c6162204e6574\n\tkey_mgmt=WPA-PSK\n\tpsk=", 117),
	      "wpa_supplicant.conf: country, the SSID in hex, the key derived, 0600");
	imgp_gen_files_free_(&f);
}

/* --------------------------------------------------- the real consumers */

static bool tool_or_skip(const char *tool, char *path, size_t size, const char *name)
{
	if (unit_find_tool(tool, path, size))
		return true;
	SKIP_TOOL(name, tool);
	return false;
}

/* NetworkManager reads the keyfile (stdin) and writes it back: the same text. */
static void nm_reads(const struct imgp_gen_file *g, const char *id, const char *name)
{
	char nmcli[256], in[256], out[256];
	const char *argv[] = { nmcli, "--offline", "connection", "modify", "connection.id",
			       id, NULL };
	char *back;
	int rc;

	if (!tool_or_skip("nmcli", nmcli, sizeof(nmcli), name))
		return;
	unit_path_keep(in, sizeof(in), "in.nmconnection");
	unit_path_keep(out, sizeof(out), "out.nmconnection");
	unit_write_file(in, g->text.data, g->text.len);
	rc = unit_spawn(argv, in, out);
	back = unit_read_file(out, NULL);
	CHECK(rc == 0 && back && !strcmp(back, (const char *)g->text.data), name);
	if (rc || !back || strcmp(back, (const char *)g->text.data))
		printf("#   nmcli (%d) wrote:\n%s\n", rc, back ? back : "(nothing)");
	free(back);
}

static void check_nm_consumer(const struct imgp_gen_files *nm, const struct imgp_gen_files *nmw)
{
	struct imgp_gen_files f = { 0 };
	struct imgp_net odd = { .wifi_ssid = " caf\xc3\xa9;\\x", .wifi_psk = " pa\\ss;wo#rd ",
				.address = "2001:db8::5/64", .gateway = "2001:db8::1",
				.dns = "2001:db8::53,10.0.0.1" };

	nm_reads(&nm->v[0], "eth0", "nmcli --offline reads the Ethernet keyfile as written");
	nm_reads(file_at(nmw, NM_WIFI), "Lab Net", "nmcli --offline reads the Wi-Fi keyfile as written");
	if (imgp_net_files_(IMGP_NET_NETWORKMANAGER, &odd, &f) || f.n != 1) {
		CHECK(0, "NetworkManager: an SSID of UTF-8 with ';' and '\\', IPv6");
		return;
	}
	CHECK_STR(f.v[0].path, "/etc/NetworkManager/system-connections/_caf____x.nmconnection",
		  "NetworkManager: the file name keeps letters, digits, '-' and '_' only");
	CHECK(strstr((const char *)f.v[0].text.data,
		     "id=\\scaf\xc3\xa9;\\\\x\n") &&
	      strstr((const char *)f.v[0].text.data,
		     "ssid=32;99;97;102;195;169;59;92;120;\n") &&
	      strstr((const char *)f.v[0].text.data, "psk=\\spa\\\\ss;wo#rd \n") &&
	      strstr((const char *)f.v[0].text.data,
		     "[ipv4]\ndns=10.0.0.1;\nmethod=auto\n\n[ipv6]\naddr-gen-mode=default\n"
		     "address1=2001:db8::5/64,2001:db8::1\ndns=2001:db8::53;\nmethod=manual\n"),
	      "NetworkManager: odd bytes escaped as GKeyFile wants, the SSID as bytes");
	nm_reads(&f.v[0], " caf\xc3\xa9;\\x", "nmcli --offline reads the odd keyfile as written");
	imgp_gen_files_free_(&f);
}

static void check_netplan_consumer(void)
{
	struct imgp_gen_files f = { 0 };
	struct imgp_net wifi = wifi_dhcp;
	char netplan[256], root[256], dir[300], file[320];
	const char *argv[] = { netplan, "generate", "--root-dir", root, NULL };
	char *eth = NULL, *wlan = NULL, *wpa = NULL;
	int rc;

	if (!tool_or_skip("netplan", netplan, sizeof(netplan), "netplan generate renders the YAML"))
		return;
	unit_path_keep(root, sizeof(root), "netplan-root");
	snprintf(dir, sizeof(dir), "%s/etc/netplan", root);
	mkdir(root, 0755);
	mkdir(unit_path("netplan-root/etc"), 0755);
	mkdir(dir, 0755);
	wifi.address = "192.168.7.9/24";
	wifi.gateway = "192.168.7.1";
	rc = imgp_net_files_(IMGP_NET_NETPLAN, &eth_static, &f);
	rc = rc ? rc : imgp_net_files_(IMGP_NET_NETPLAN, &wifi, &f);
	CHECK(rc == 0 && f.n == 3, "netplan: Ethernet, then Wi-Fi with its country");
	if (rc || f.n != 3)
		return;
	/* two files, as two runs would: Ethernet first */
	snprintf(file, sizeof(file), "%s/80-eth.yaml", dir);
	unit_write_file(file, f.v[0].text.data, f.v[0].text.len);
	chmod(file, 0600);
	snprintf(file, sizeof(file), "%s/90-imgpatch.yaml", dir);
	unit_write_file(file, f.v[1].text.data, f.v[1].text.len);
	chmod(file, 0600);
	rc = unit_spawn(argv, NULL, unit_path("netplan.out"));
	CHECK(rc == 0, "netplan generate takes the YAML");
	eth = unit_read_file(unit_path("netplan-root/run/systemd/network/10-netplan-eth0.network"), NULL);
	wlan = unit_read_file(unit_path("netplan-root/run/systemd/network/10-netplan-wlan0.network"), NULL);
	wpa = unit_read_file(unit_path("netplan-root/run/netplan/wpa-wlan0.conf"), NULL);
	CHECK(eth && strstr(eth, "Address=10.0.0.5/24\n") && strstr(eth, "DNS=10.0.0.1\nDNS=9.9.9.9\n") &&
	      strstr(eth, "[Route]\nDestination=0.0.0.0/0\nGateway=10.0.0.1\n") &&
	      !strstr(eth, "DHCP="),
	      "netplan renders the address, the default route and the name servers");
	CHECK(wlan && strstr(wlan, "Address=192.168.7.9/24\n") &&
	      strstr(wlan, "Destination=0.0.0.0/0\nGateway=192.168.7.1\n"),
	      "netplan renders the Wi-Fi interface's address and route");
	CHECK(wpa && strstr(wpa, "ssid=\"Lab Net\"") && strstr(wpa, "key_mgmt=WPA-PSK"),
	      "netplan renders the access point for wpa_supplicant");
	if (!eth || !wlan)
		printf("#   %s\n#   %s\n", eth ? eth : "(no eth0)", wlan ? wlan : "(no wlan0)");
	free(eth);
	free(wlan);
	free(wpa);
	imgp_gen_files_free_(&f);
}

static void check_ifupdown_consumer(void)
{
	struct imgp_gen_files f = { 0 };
	char ifquery[256], in[256];
	const char *argv[] = { ifquery, "-i", in, "eth0", NULL };
	char *got;
	int rc;

	if (!tool_or_skip("ifquery", ifquery, sizeof(ifquery), "ifquery reads the stanza"))
		return;
	unit_path_keep(in, sizeof(in), "interfaces");
	if (imgp_net_files_(IMGP_NET_IFUPDOWN, &eth_static, &f))
		return;
	unit_write_file(in, f.v[0].text.data, f.v[0].text.len);
	rc = unit_spawn(argv, NULL, unit_path("ifquery.out"));
	got = unit_read_file(unit_path("ifquery.out"), NULL);
	CHECK(rc == 0 && got && !strcmp(got, "address: 10.0.0.5\ngateway: 10.0.0.1\n"
					 "broadcast: 10.0.0.255\nnetmask: 255.255.255.0\n"),
	      "ifquery reads the address, prefix and gateway");
	free(got);
	imgp_gen_files_free_(&f);
}

static void check_wpa_consumer(void)
{
	struct imgp_gen_files f = { 0 };
	char tool[256], want[128] = "";
	const char *argv[] = { tool, "Lab Net", PSK, NULL };
	char *got, *line;

	if (!tool_or_skip("wpa_passphrase", tool, sizeof(tool), "wpa_passphrase derives the same key"))
		return;
	if (imgp_net_files_(IMGP_NET_NETWORKD, &wifi_dhcp, &f) || f.n != 3)
		return;
	unit_spawn(argv, NULL, unit_path("wpa.out"));
	got = unit_read_file(unit_path("wpa.out"), NULL);
	line = got ? strstr(got, "\n\tpsk=") : NULL;
	if (line)
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(line + 1, "\n") + 2, line);
	CHECK(*want && strstr((const char *)f.v[1].text.data, want),
	      "wpa_supplicant.conf's psk is wpa_passphrase's");
	CHECK_STR(f.v[1].path, "/etc/wpa_supplicant/wpa_supplicant-wlan0.conf",
		  "networkd: Debian's wpa_supplicant@wlan0.service reads wpa_supplicant-wlan0.conf");
	free(got);
	imgp_gen_files_free_(&f);
}

/* Every key of the .network file is one systemd.network(5) of systemd 252 names. */
static void check_networkd_keys(void)
{
	struct imgp_gen_files f = { 0 };
	const char *argv[] = { "man", "-P", "cat", "systemd.network", NULL };
	struct imgp_net v6 = { .address = "2001:db8::5/64", .gateway = "2001:db8::1", .dns = "2001:db8::53" };
	char *man, *p;
	bool all = true;

	if (imgp_net_files_(IMGP_NET_NETWORKD, &v6, &f) ||
	    imgp_net_files_(IMGP_NET_NETWORKD, &wifi_dhcp, &f))
		return;
	if (unit_spawn(argv, NULL, unit_path("man.out")) != 0) {
		SKIP_TOOL("systemd.network(5) names every key", "man");
		imgp_gen_files_free_(&f);
		return;
	}
	man = unit_read_file(unit_path("man.out"), NULL);
	for (size_t i = 0; man && i < f.n; i++) {
		if (!strstr(f.v[i].path, ".network"))
			continue;
		for (p = (char *)f.v[i].text.data; *p; p += strcspn(p, "\n") + 1) {
			char key[64];
			size_t k = strcspn(p, "=\n");

			if (p[k] != '=' || k >= sizeof(key) - 1)
				continue;
			snprintf(key, sizeof(key), "%.*s=", (int)k, p);
			if (!strstr(man, key)) {
				printf("#   %s not in systemd.network(5)\n", key);
				all = false;
			}
		}
	}
	CHECK(man && all, "systemd.network(5) names every key of the .network files");
	free(man);
	imgp_gen_files_free_(&f);
}

int main(void)
{
	struct imgp_gen_files nm = { 0 }, nmw = { 0 };

	if (unit_tmpdir_create("custom-net")) {
		perror("tmpdir");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	check_values();
	check_texts(&nm, &nmw);
	if (nm.n && nmw.n > 1)
		check_nm_consumer(&nm, &nmw);
	check_netplan_consumer();
	check_ifupdown_consumer();
	check_wpa_consumer();
	check_networkd_keys();
	imgp_gen_files_free_(&nm);
	imgp_gen_files_free_(&nmw);
	return unit_done();
}
