// SPDX-License-Identifier: MIT
/*
 * customize's cloud-init seed (custom/custom-cloudinit.c): the version
 * read from dpkg's status or version.py, network-config, user-data and
 * meta-data as exact text, and read by the cloud-init installed here
 * (Debian 12's 22.4): `cloud-init devel net-convert` renders the
 * network-config for each of its renderers (the one the issue saw fail
 * on "to: default" among them), `cloud-init schema` checks the user-data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "custom/custom.h"
#include "unit.h"

#define CC "#cloud-config\n"

static const struct imgp_cloudinit_version v22 = { 22, 4, false };
static const struct imgp_cloudinit_version v22np = { 22, 4, true };

static const struct imgp_net eth_static = {
	.address = "10.0.0.5/24", .gateway = "10.0.0.1", .dns = "10.0.0.1,9.9.9.9",
};

static const char eth_static_v2[] =
	"# Written by imgpatch.\nversion: 2\nethernets:\n  eth0:\n    dhcp4: false\n"
	"    dhcp6: false\n    addresses:\n      - \"10.0.0.5/24\"\n    routes:\n"
	"      - to: \"0.0.0.0/0\"\n        via: \"10.0.0.1\"\n    nameservers:\n"
	"      addresses:\n        - \"10.0.0.1\"\n        - \"9.9.9.9\"\n";

static void expect_version(const char *status, const char *py, int rc, int major,
			   int minor, const char *name)
{
	struct imgp_cloudinit_version v = { 1, 1, true };

	CHECK(imgp_cloudinit_version_parse_(status, py, &v) == rc && v.major == major &&
	      v.minor == minor && !v.netplan, name);
}

static void check_version(void)
{
	const char *status =
		"Package: cloud-guest-utils\nStatus: install ok installed\nVersion: 0.33-1\n\n"
		"Package: cloud-init\nStatus: install ok installed\nPriority: optional\n"
		"Version: 22.4.2-1+deb12u4\nDepends: python3\n\n"
		"Package: zsh\nStatus: install ok installed\nVersion: 5.9-4+b2\n";
	const char *ubuntu =
		"Package: cloud-init\nStatus: install ok installed\nVersion: 1:23.1.2-0ubuntu0~22.04.1\n";
	const char *removed =
		"Package: cloud-init\nStatus: deinstall ok config-files\nVersion: 21.4-1\n";
	const char *py = "\"\"\"x\"\"\"\n__VERSION__ = \"24.1.3\"\n_PACKAGED_VERSION = \"@@PACKAGED_VERSION@@\"\n";

	expect_version(status, NULL, 0, 22, 4, "dpkg: Debian 12's 22.4.2-1+deb12u4 is 22.4");
	expect_version(ubuntu, NULL, 0, 23, 1, "dpkg: an epoch is skipped");
	expect_version(removed, py, 0, 24, 1, "dpkg: a removed package does not count; version.py does");
	expect_version(NULL, py, 0, 24, 1, "version.py alone");
	expect_version("Package: cloud-init\nStatus: install ok installed\nVersion: x1\n", NULL,
		       -ENOENT, 0, 0, "a version that is no number is none");
	expect_version("Package: cloud-init-base\nStatus: install ok installed\nVersion: 24.1\n",
		       "__VERSION__ = \"22\"\n", -ENOENT, 0, 0,
		       "another package's version and a version without minor are none");
	CHECK_STR(imgp_errmsg(), "no cloud-init version: neither dpkg's status nor cloudinit/version.py names one",
		  "the message says where it looked");
}

static void check_network_config(void)
{
	struct imgp_buf out = { 0 };
	struct imgp_net n = { .iface = "end0", .address = "2001:db8::5/64",
			      .gateway = "2001:db8::1" };
	struct imgp_net wifi = { .wifi_ssid = "Lab \"Net\"", .wifi_psk = "pa\\ss word" };
	struct imgp_cloudinit_version old = { 17, 0, true };

	CHECK(imgp_cloudinit_network_config_(&v22, &eth_static, &out) == 0, "network-config: static IPv4");
	imgp_buf_append(&out, "", 1);
	CHECK_STR((const char *)out.data, eth_static_v2,
		  "network-config: version 2, the default route as 0.0.0.0/0");
	CHECK(imgp_cloudinit_network_config_(&v22, &n, &out) == 0 &&
	      strstr((const char *)out.data, "  end0:\n") &&
	      strstr((const char *)out.data, "      - to: \"::/0\"\n        via: \"2001:db8::1\"\n"),
	      "network-config: IPv6's default route is ::/0");
	CHECK(imgp_cloudinit_network_config_(&v22, &wifi, &out) == -ENOTSUP && out.len == 0,
	      "network-config: Wi-Fi without netplan is refused");
	CHECK_STR(imgp_errmsg(), "cloud-init 22.4 renders Wi-Fi only through netplan, and this image's renders its network another way",
		  "the refusal names the version and why");
	CHECK(imgp_cloudinit_network_config_(&v22np, &wifi, &out) == 0, "network-config: Wi-Fi through netplan");
	imgp_buf_append(&out, "", 1);
	CHECK_STR((const char *)out.data,
		  "# Written by imgpatch.\nversion: 2\nwifis:\n  wlan0:\n    dhcp4: true\n"
		  "    access-points:\n      \"Lab \\\"Net\\\"\":\n        password: \"pa\\\\ss word\"\n",
		  "network-config: the SSID and passphrase as YAML double-quoted scalars");
	CHECK(imgp_cloudinit_network_config_(&old, &eth_static, &out) == -ENOTSUP &&
	      !strcmp(imgp_errmsg(), "cloud-init 17.0 reads no network configuration version 2 (17.1 and later do)"),
	      "network-config: a cloud-init before 17.1 is refused");
	imgp_buf_free(&out);
}

/* ------------------------------------------------------------ user-data */

static const char *const groups[] = { "adm", "sudo", "video" };
static const char *const keys[] = { "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl lab@host" };
#define HASH "$6$saltsalt$9uuH0ROa2yl8XMc2KsZ6bHuSq9cBqPQo2B1Gj0bRvj5M6Xh7p1y2eC1uOe1bY3zqH6wX4Xm6w9pB0ZQ7c5Yt1."

static const struct imgp_cloudinit_user lab_key = {
	.name = "lab", .groups = groups, .ngroups = 3, .keys = keys, .nkeys = 1,
};
static const struct imgp_cloudinit_user lab_pw = {
	.name = "lab", .groups = groups, .ngroups = 1,
	.hash = HASH,
};

static const char full_want[] =
	CC "hostname: \"pi-01\"\npreserve_hostname: false\ntimezone: \"Europe/Berlin\"\n"
	"locale: \"en_GB.UTF-8\"\nkeyboard:\n  layout: \"de\"\nusers:\n  - default\n"
	"  - name: \"lab\"\n    groups: [\"adm\", \"sudo\", \"video\"]\n    shell: /bin/bash\n"
	"    sudo: \"ALL=(ALL) NOPASSWD:ALL\"\n    ssh_authorized_keys:\n      - \"%s\"\n"
	"ssh_deletekeys: false\n";

/* out's text, checked by `cloud-init schema`. */
static void schema_valid(const struct imgp_buf *out, const char *name)
{
	char tool[256], file[256], *said;
	const char *argv[] = { tool, "schema", "--config-file", file, NULL };
	int rc;

	if (!unit_find_tool("cloud-init", tool, sizeof(tool))) {
		SKIP_TOOL(name, "cloud-init");
		return;
	}
	unit_path_keep(file, sizeof(file), "user-data");
	unit_write_file(file, out->data, out->len);
	rc = unit_spawn(argv, NULL, unit_path("schema.out"));
	said = unit_read_file(unit_path("schema.out"), NULL);
	CHECK(rc == 0 && said && strstr(said, "Valid cloud-config: "), name);
	if (rc || !said || !strstr(said, "Valid cloud-config: "))
		printf("#   %s\n", said ? said : "(nothing)");
	free(said);
}

/* old with cfg set: want, which cloud-init's schema takes. */
static void expect_merged(const char *old, const struct imgp_cloudinit_config *cfg,
			  const char *want, const char *name)
{
	struct imgp_buf out = { 0 };

	CHECK(imgp_cloudinit_user_data_(&v22, old, strlen(old), cfg, &out) == 0, name);
	imgp_buf_append(&out, "", 1);
	out.len--;
	CHECK_STR((const char *)out.data, want, name);
	schema_valid(&out, name);
	imgp_buf_free(&out);
}

static void check_user_data(void)
{
	struct imgp_buf out = { 0 }, again = { 0 };
	struct imgp_cloudinit_config cfg = {
		.hostname = "pi-01", .timezone = "Europe/Berlin", .locale = "en_GB.UTF-8",
		.keymap = "de", .users = &lab_key, .nusers = 1, .keep_host_keys = true,
	};
	struct imgp_cloudinit_version v21 = { 21, 4, false };
	char want[2048];
	const char *ubuntu =
		CC "# comment kept\nchpasswd:\n  expire: true\n  users:\n  - name: ubuntu\n"
		"    password: ubuntu\n    type: text\n\nssh_pwauth: false\n";
	const char *listed =
		CC "users:\n- name: admin\n  groups: sudo\n- name: lab\n  shell: /bin/sh\n"
		"- name: other\n  gecos: lab\ntimezone: UTC\n";

	snprintf(want, sizeof(want), full_want, keys[0]);
	CHECK(imgp_cloudinit_user_data_(&v22, "", 0, &cfg, &out) == 0, "user-data: every key on an empty seed");
	imgp_buf_append(&out, "", 1);
	out.len--;
	CHECK_STR((const char *)out.data, want, "user-data: the header, then each key, default user first");
	schema_valid(&out, "cloud-init schema takes the user-data");

	CHECK(imgp_cloudinit_user_data_(&v22, (const char *)out.data, out.len, &cfg, &again) == 0 &&
	      again.len == out.len && !memcmp(again.data, out.data, out.len),
	      "user-data: a second run writes the same text");

	cfg = (struct imgp_cloudinit_config){ .users = &lab_pw, .nusers = 1 };
	expect_merged(ubuntu, &cfg,
		      CC "# comment kept\nchpasswd:\n  expire: true\n  users:\n  - name: ubuntu\n"
		      "    password: ubuntu\n    type: text\n\nssh_pwauth: false\nusers:\n  - default\n"
		      "  - name: \"lab\"\n    groups: [\"adm\"]\n    shell: /bin/bash\n"
		      "    lock_passwd: false\n    passwd: \"" HASH "\"\n",
		      "user-data: Ubuntu's keys kept, a password hash unlocks, no sudo rule");
	expect_merged(listed, &cfg,
		      CC "users:\n- name: admin\n  groups: sudo\n- name: other\n  gecos: lab\n"
		      "- name: \"lab\"\n  groups: [\"adm\"]\n  shell: /bin/bash\n  lock_passwd: false\n"
		      "  passwd: \"" HASH "\"\ntimezone: UTC\n",
		      "user-data: the image's list kept (no default added), its item of our user replaced, ours at its indent");

	cfg = (struct imgp_cloudinit_config){ .keymap = "de" };
	CHECK(imgp_cloudinit_user_data_(&v21, "", 0, &cfg, &out) == -ENOTSUP &&
	      !strcmp(imgp_errmsg(), "cloud-init 21.4 has no keyboard setting (22.1 and later have)"),
	      "user-data: a keymap before 22.1 is refused, naming the version");
	cfg = (struct imgp_cloudinit_config){ .users = &lab_key, .nusers = 1 };
	CHECK(imgp_cloudinit_user_data_(&v22, CC "users: [default]\n", strlen(CC "users: [default]\n"), &cfg, &out) == -EINVAL &&
	      !strcmp(imgp_errmsg(), "its users entry is 'users: [default]' on one line: imgpatch adds only to a list of '- ' items"),
	      "user-data: a users list in flow style is refused");
	CHECK(imgp_cloudinit_user_data_(&v22, "#!/bin/sh\necho hi\n", 18, &cfg, &out) == -EINVAL &&
	      strstr(imgp_errmsg(), "not '#cloud-config'"),
	      "user-data: a script is refused, not merged into");
	imgp_buf_free(&out);
	imgp_buf_free(&again);
}

static void check_meta_data(void)
{
	struct imgp_buf out = { 0 };
	const char *old = "# Ubuntu's\ninstance-id: iid-local01\ndsmode: local\n";

	CHECK(imgp_cloudinit_meta_data_("", 0, "imgpatch-1", "pi-01", &out) == 0,
	      "meta-data: on an empty file");
	imgp_buf_append(&out, "", 1);
	CHECK_STR((const char *)out.data, "instance-id: \"imgpatch-1\"\nlocal-hostname: \"pi-01\"\n",
		  "meta-data: instance-id and local-hostname");
	CHECK(imgp_cloudinit_meta_data_(old, strlen(old), "imgpatch-2", NULL, &out) == 0,
	      "meta-data: into Ubuntu's");
	imgp_buf_append(&out, "", 1);
	CHECK_STR((const char *)out.data, "# Ubuntu's\ninstance-id: \"imgpatch-2\"\ndsmode: local\n",
		  "meta-data: the instance-id replaced where it stands, other keys kept");
	CHECK(imgp_cloudinit_meta_data_(old, strlen(old), "", NULL, &out) == -EINVAL,
	      "meta-data: an empty instance-id is refused");
	imgp_buf_free(&out);
}

/* ------------------------------------------- cloud-init renders it here */

/* Renders text with net-convert for renderer; the file it wrote, or NULL. */
static char *net_convert(const char *text, const char *renderer, const char *file)
{
	char tool[256], in[256], dir[256], path[512];
	const char *argv[] = { tool, "devel", "net-convert", "-p", in, "-k", "yaml", "-d", dir,
			       "-D", "debian", "-O", renderer, NULL };

	if (!unit_find_tool("cloud-init", tool, sizeof(tool)))
		return NULL;
	unit_path_keep(in, sizeof(in), "network-config");
	snprintf(path, sizeof(path), "out-%s", renderer);
	unit_path_keep(dir, sizeof(dir), path);
	unit_write_text(in, text);
	if (unit_spawn(argv, NULL, unit_path("net-convert.out")))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return unit_read_file(path, NULL);
}

static void check_net_convert(void)
{
	static const struct {
		const char *renderer, *file, *address, *route;
	} r[] = {
		{ "eni", "etc/network/interfaces.d/50-cloud-init", "address 10.0.0.5/24\n",
		  "post-up route add default gw 10.0.0.1 || true\n" },
		{ "network-manager", "etc/NetworkManager/system-connections/cloud-init-eth0.nmconnection",
		  "address1=10.0.0.5/24\n", "route1=0.0.0.0/0,10.0.0.1\n" },
		{ "networkd", "etc/systemd/network/10-cloud-init-eth0.network",
		  "Address=10.0.0.5/24\n", "Destination=0.0.0.0/0\n\nGateway=10.0.0.1\n" },
		{ "netplan", "etc/netplan/50-cloud-init.yaml", "- 10.0.0.5/24\n",
		  "-   to: 0.0.0.0/0\n                via: 10.0.0.1\n" },
	};
	char tool[256], name[160];

	if (!unit_find_tool("cloud-init", tool, sizeof(tool))) {
		SKIP_TOOL("cloud-init devel net-convert renders network-config", "cloud-init");
		return;
	}
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		char *got = net_convert(eth_static_v2, r[i].renderer, r[i].file);

		snprintf(name, sizeof(name), "cloud-init 22.4 renders the address and the default route for %s",
			 r[i].renderer);
		CHECK(got && strstr(got, r[i].address) && strstr(got, r[i].route), name);
		if (!got || !strstr(got, r[i].route))
			printf("#   %s\n", got ? got : "(nothing rendered)");
		free(got);
	}
	/* the network-config: "to: default" fails outside netplan */
	CHECK(net_convert("version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.5/24]\n"
			  "    routes:\n      - to: default\n        via: 10.0.0.1\n",
			  "network-manager", "etc/NetworkManager/system-connections/cloud-init-eth0.nmconnection") == NULL,
	      "cloud-init 22.4 refuses netplan's 'to: default' (the form this code never writes)");
}

int main(void)
{
	if (unit_tmpdir_create("custom-cloudinit")) {
		perror("tmpdir");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	check_version();
	check_network_config();
	check_user_data();
	check_meta_data();
	check_net_convert();
	return unit_done();
}
