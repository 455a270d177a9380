// SPDX-License-Identifier: MIT
/*
 * What customize gathers and plans last: the network (files of the
 * image's network system, or cloud-init's network-config) and, on an image
 * that runs cloud-init, its NoCloud seed: user-data and meta-data, with an
 * instance-id that changes with what the seed says, so that cloud-init
 * applies it again, and stays the same when nothing changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "custom/custom.h"
#include "custom/custom-run.h"

/* A file of the seed partition as planned (empty when missing). */
static int seed_read(struct custom_run *run, const char *path, struct imgp_buf *out)
{
	bool exists = false;

	return imgp_custom_read_(run, run->seed, path, out, &exists);
}

static int seed_put(struct custom_run *run, const char *path, const struct imgp_buf *b,
		    bool secret)
{
	char arg[64];

	snprintf(arg, sizeof(arg), "%d:%s", run->seed->number, path);
	return imgp_custom_put_(run, arg, b->data, b->len, 0, -1, -1, secret, NULL);
}

/* Whether the image's /etc/network/interfaces configures iface itself (ifupdown owns it). */
static int ifupdown_owns(struct custom_run *run, const char *iface)
{
	struct imgp_buf text = { 0 };
	char want[64];
	bool exists = false;
	int rc = imgp_custom_read_root_(run, "/etc/network/interfaces", &text, &exists), owns = 0;

	snprintf(want, sizeof(want), "iface %s ", iface);
	for (const char *line = exists ? (char *)text.data : NULL; !rc && line && *line;) {
		size_t n = strcspn(line, "\n");
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, want, strlen(want)) == 0)
			owns = 1;
		line += n + (line[n] == '\n');
	}
	imgp_buf_free(&text);
	return rc ? rc : owns;
}

/* Whether an interfaces(5) line starts a stanza (its first word is a keyword). */
static bool stanza_start(const char *p)
{
	static const char *const words[] = { "iface", "mapping", "auto", "allow-", "source",
					     "no-auto-down", "no-scripts" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strncmp(p, words[i], strlen(words[i])) == 0)
			return true;
	return false;
}

/*
 * Debian's installer names the wired interface in /etc/network/interfaces
 * itself; ifup refuses an interface defined twice, so its stanza there
 * (and its auto/allow-hotplug line) is commented out for ours in
 * interfaces.d to be the one.
 */
static int ifupdown_release(struct custom_run *run, const char *iface)
{
	struct imgp_buf text = { 0 }, out = { 0 };
	bool exists = false, in_stanza = false, changed = false;
	int rc = imgp_custom_read_root_(run, "/etc/network/interfaces", &text, &exists);

	for (const char *line = exists ? (char *)text.data : NULL; !rc && line && *line;) {
		size_t n = strcspn(line, "\n");
		const char *p = line + strspn(line, " \t");
		const char *word2 = p + strcspn(p, " \t");
		size_t w2 = strcspn(word2 + strspn(word2, " \t"), " \t\n");
		bool ours = false;

		word2 += strspn(word2, " \t");
		if (*p != '#' && stanza_start(p)) {
			const char *rest = word2 + w2;
			bool names = w2 == strlen(iface) && strncmp(word2, iface, w2) == 0;

			rest += strspn(rest, " \t");
			in_stanza = strncmp(p, "iface", 5) == 0 && names;
			/* "auto eth0" goes; "auto lo eth0" names others too and stays. */
			ours = in_stanza || ((!strncmp(p, "auto", 4) || !strncmp(p, "allow-", 6)) &&
					     names && rest >= line + n);
		} else if (*p != '#' && in_stanza && p < line + n) {
			ours = true;
		}
		rc = imgp_buf_printf(&out, "%s%.*s\n", ours ? "# (imgpatch: interfaces.d) " : "",
				     (int)n, line) ? imgp_fail(ENOMEM, "out of memory") : 0;
		changed |= ours;
		line += n + (line[n] == '\n');
	}
	if (!rc && changed)
		rc = imgp_custom_put_(run, "/etc/network/interfaces", out.data, out.len, 0, -1, -1, false,
				NULL);
	imgp_buf_free(&text);
	imgp_buf_free(&out);
	return rc;
}

/* The Wi-Fi country of a seeded image: the kernel's file, whatever configures the network. */
static int plan_country_file(struct custom_run *run)
{
	struct imgp_gen_files files = { 0 };
	int rc = imgp_net_country_file_(&run->net, &files);

	for (size_t i = 0; !rc && i < files.n; i++) {
		rc = imgp_custom_put_(run, files.v[i].path, files.v[i].text.data, files.v[i].text.len,
				files.v[i].mode, 0, 0, files.v[i].secret, NULL);
		if (!rc)
			rc = imgp_custom_note_(run, "wifi-country %s: %s", run->net.wifi_country,
					    files.v[i].path);
	}
	imgp_gen_files_free_(&files);
	return rc ? imgp_fail_ctx(rc, "--wifi-country") : 0;
}

/* A name made of what an interface name may hold (the kernel's dev_valid_name, kept plain). */
static char *iface_name(const char *p, size_t n)
{
	if (!n || n > 15)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
		      (p[i] >= '0' && p[i] <= '9') || p[i] == '_' || p[i] == '-' || p[i] == '.'))
			return NULL;
	return strndup(p, n);
}

/*
 * The wired interface the image itself names, where it names one: the
 * first key under "ethernets:" of the seed's network-config (Ubuntu's
 * names eth0), or the first "iface NAME inet" other than lo of
 * /etc/network/interfaces. NULL: none named (the default, eth0, then).
 */
char *imgp_custom_image_iface_(struct custom_run *run)
{
	struct imgp_buf text = { 0 };
	bool exists = false, under = false;
	char *name = NULL;

	if (run->way == CUSTOM_WAY_CLOUDINIT &&
	    !imgp_custom_read_(run, run->seed, "/network-config", &text, &exists) && exists) {
		for (const char *line = (char *)text.data; *line && !name;) {
			size_t n = strcspn(line, "\n"), ind = strspn(line, " ");

			if (line[ind] != '#' && ind < n) {
				if (!ind)
					under = strncmp(line, "ethernets:", 10) == 0;
				else if (under && memchr(line + ind, ':', n - ind))
					name = iface_name(line + ind, strcspn(line + ind, ":"));
			}
			line += n + (line[n] == '\n');
		}
	} else if (!imgp_custom_read_root_(run, "/etc/network/interfaces", &text, &exists) &&
		   exists) {
		for (const char *line = (char *)text.data; *line && !name;) {
			size_t n = strcspn(line, "\n");
			const char *p = line + strspn(line, " \t");

			if (strncmp(p, "iface ", 6) == 0) {
				p += 6 + strspn(p + 6, " \t");
				name = iface_name(p, strcspn(p, " \t\n"));
				if (name && strcmp(name, "lo") == 0) {
					free(name);
					name = NULL;
				}
			}
			line += n + (line[n] == '\n');
		}
	}
	imgp_buf_free(&text);
	imgp_errclear_();
	return name;
}

int imgp_custom_plan_network_(struct custom_run *run)
{
	struct imgp_gen_files files = { 0 };
	enum imgp_net_system sys;
	const char *why = NULL;
	int rc = 0;

	if (run->way == CUSTOM_WAY_CLOUDINIT)
		return plan_country_file(run);
	rc = imgp_custom_net_system_(run, &sys, &why);
	if (!rc && sys == IMGP_NET_NETWORKMANAGER && !run->net.wifi_ssid) {
		int owns = ifupdown_owns(run, run->net.iface ? run->net.iface : "eth0");

		/* Debian's NetworkManager leaves alone what /etc/network/interfaces configures. */
		if (owns > 0) {
			sys = IMGP_NET_IFUPDOWN;
			why = "/etc/network/interfaces configures the interface (NetworkManager leaves it to ifupdown)";
		}
		rc = owns < 0 ? owns : 0;
	}
	if (!rc)
		rc = imgp_net_files_(sys, &run->net, &files);
	for (size_t i = 0; !rc && i < files.n; i++) {
		rc = imgp_custom_put_(run, files.v[i].path, files.v[i].text.data, files.v[i].text.len,
				files.v[i].mode, 0, 0, files.v[i].secret, NULL);
		if (!rc)
			rc = imgp_custom_note_(run, "network: %s (%s)", files.v[i].path, why);
	}
	imgp_gen_files_free_(&files);
	if (!rc && sys == IMGP_NET_IFUPDOWN)
		rc = ifupdown_release(run, run->net.iface ? run->net.iface :
				      run->net.wifi_ssid ? "wlan0" : "eth0");
	if (!rc && sys == IMGP_NET_NETWORKD)
		rc = imgp_custom_plan_unit_op_(run, "enable", "systemd-networkd.service");
	if (!rc && sys == IMGP_NET_NETWORKD && run->net.wifi_ssid) {
		char unit[64];

		/* wpa_supplicant's own unit for networkd (wpa_supplicant.service(8) on Debian). */
		snprintf(unit, sizeof(unit), "wpa_supplicant@%s.service",
			 run->net.iface ? run->net.iface : "wlan0");
		rc = imgp_custom_plan_unit_op_(run, "enable", unit);
	}
	return rc;
}

/* "imgpatch-" and 16 hex digits of what the seed says. */
static void instance_id(const struct imgp_buf *user_data, const struct imgp_buf *net,
			char out[32])
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, user_data->len, user_data->data);
	sha256_update(&ctx, 1, (const uint8_t *)"");
	sha256_update(&ctx, net->len, net->data);
	sha256_digest(&ctx, sizeof(digest), digest);
	snprintf(out, 32, "imgpatch-");
	for (size_t i = 0; i < 8; i++)
		snprintf(out + 9 + 2 * i, 3, "%02x", digest[i]);
}

static int seed_users(struct custom_run *run, struct imgp_cloudinit_user **out,
		      const char *groups[IMGP_USER_GROUPS_MAX + 1])
{
	struct imgp_userdb db;
	size_t ngroups;
	int rc;

	*out = NULL;
	memset(&db, 0, sizeof(db));
	if (!run->nusers)
		return 0;
	rc = imgp_custom_read_root_(run, "/etc/group", &db.group, &(bool){ false });
	if (rc)
		return rc;
	ngroups = imgp_user_first_groups_(&db, run->os_id, groups);
	*out = calloc(run->nusers, sizeof(**out));
	for (size_t i = 0; *out && i < run->nusers; i++) {
		(*out)[i].name = run->users[i].name;
		(*out)[i].groups = groups;
		(*out)[i].ngroups = ngroups;
		(*out)[i].hash = run->users[i].hash;
		(*out)[i].keys = (const char *const *)run->users[i].keys;
		(*out)[i].nkeys = run->users[i].nkeys;
	}
	imgp_userdb_free_(&db);
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

int imgp_custom_plan_seed_(struct custom_run *run)
{
	struct imgp_cloudinit_config cfg = {
		.hostname = run->hostname, .timezone = run->timezone,
		.keymap = run->keymap, .locale = run->locale,
		.keep_host_keys = run->keep_host_keys,
		.nhost_key_types = run->nhost_key_types,
	};
	const char *types[8];
	struct imgp_cloudinit_user *users = NULL;
	const char *groups[IMGP_USER_GROUPS_MAX + 1];
	struct imgp_buf old = { 0 }, ud = { 0 }, net = { 0 }, meta_old = { 0 }, meta = { 0 };
	bool secret = false;
	char id[32];
	int rc = seed_users(run, &users, groups);

	for (size_t i = 0; i < run->nhost_key_types; i++)
		types[i] = run->host_key_types[i];
	cfg.host_key_types = types;

	cfg.users = users;
	cfg.nusers = users ? run->nusers : 0;
	for (size_t i = 0; i < run->nusers; i++)
		secret |= run->users[i].hash != NULL;
	if (!rc)
		rc = seed_read(run, "/user-data", &old);
	if (!rc)
		rc = imgp_cloudinit_user_data_(&run->ci_version, (char *)old.data, old.len, &cfg,
					      &ud);
	if (!rc && run->net_set) {
		rc = imgp_cloudinit_network_config_(&run->ci_version, &run->net, &net);
		if (!rc)
			rc = seed_put(run, "/network-config", &net, run->net.wifi_psk != NULL);
		if (!rc)
			rc = imgp_custom_note_(run, "network: the seed's network-config, as cloud-init %d.%d reads it",
					    run->ci_version.major, run->ci_version.minor);
	}
	if (rc)
		goto out;
	/* Nothing gathered: the seed stays as it is. */
	if (!run->hostname && !run->timezone && !run->keymap && !run->locale &&
	    !run->nusers && !run->keep_host_keys && !run->net_set)
		goto out;
	rc = seed_put(run, "/user-data", &ud, secret);
	if (!rc)
		rc = seed_read(run, "/network-config", &net);
	instance_id(&ud, &net, id);
	if (!rc)
		rc = seed_read(run, "/meta-data", &meta_old);
	if (!rc)
		rc = imgp_cloudinit_meta_data_((char *)meta_old.data, meta_old.len, id,
					      run->hostname, &meta);
	if (!rc)
		rc = seed_put(run, "/meta-data", &meta, false);
	if (!rc)
		rc = imgp_custom_note_(run, "cloud-init seed on " IMGP_PART_FMT " (%s): user-data, meta-data instance-id %s (cloud-init %d.%d applies it again when this changes)",
				    run->seed->number, run->seed->fstype, id,
				    run->ci_version.major, run->ci_version.minor);
out:
	free(users);
	imgp_buf_free(&old);
	imgp_buf_free(&ud);
	imgp_buf_free(&net);
	imgp_buf_free(&meta_old);
	imgp_buf_free(&meta);
	return rc;
}
