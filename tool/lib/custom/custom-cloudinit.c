// SPDX-License-Identifier: MIT
/*
 * customize's settings as a cloud-init NoCloud seed (custom.h): the
 * version the image ships, and its network-config, user-data and
 * meta-data in the form that version reads. The facts, with where they
 * are in cloud-init's source (Debian 12's 22.4.2, `apt-get source
 * cloud-init`, and canonical/cloud-init at
 * 04eacd06ee60de9dbb9e7be784be20dab7342c1a for later versions):
 *  - network configuration version 2 came in 17.1 (ef18b8ac4,
 *    "cloudinit.net: add network config v2 parsing and rendering");
 *  - "wifis" is rendered only by the netplan renderer, which is handed
 *    version 2 as it is: every other renderer's handle_wifis() only warns
 *    (cloudinit/net/network_state.py, 22.4.2 and 04eacd06e alike);
 *  - "keyboard" (cc_keyboard) came in 22.1 (5147e8d4764e, "Add new config
 *    module to set keyboard layout"), in config/cloud.cfg.tmpl's module
 *    list since then;
 *  - users (name, groups, shell, sudo, lock_passwd, passwd,
 *    ssh_authorized_keys), hostname, preserve_hostname, timezone, locale,
 *    ssh_deletekeys and ssh_genkeytypes are in every version with
 *    version 2 (schema-cloud-config-v1.json of 22.4.2 has them all);
 *  - a users list without "default" does not make the distribution's
 *    default user (cloudinit/distros/ug_util.py, normalize_users_groups).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "custom/custom.h"
#include "text/text.h"

#define CLOUD_CONFIG "#cloud-config"

/* ------------------------------------------------------------- version */

/* "22.4.2-1+deb12u4", "1:23.1-0ubuntu1": the epoch skipped, major and minor. */
static int version_of(const char *s, size_t n, struct imgp_cloudinit_version *out)
{
	size_t i = 0, colon = 0;
	long part[2] = { 0, 0 };

	while (colon < n && s[colon] >= '0' && s[colon] <= '9')
		colon++;
	if (colon && colon < n && s[colon] == ':')
		i = colon + 1;
	for (int k = 0; k < 2; k++) {
		size_t start = i;

		while (i < n && s[i] >= '0' && s[i] <= '9' && i - start < 6)
			part[k] = part[k] * 10 + (s[i++] - '0');
		if (i == start || (k == 0 && (i >= n || s[i++] != '.')))
			return -ENOENT;
	}
	out->major = (int)part[0];
	out->minor = (int)part[1];
	return 0;
}

/* The value of "Field: value" at line start in [s, s + n), or NULL. */
static const char *stanza_field(const char *s, size_t n, const char *field,
				size_t *vlen)
{
	size_t flen = strlen(field);

	for (size_t pos = 0; pos < n;) {
		const char *line = s + pos, *nl = memchr(line, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - line) : n - pos;

		if (len > flen && !memcmp(line, field, flen)) {
			const char *v = line + flen;

			while (v < line + len && *v == ' ')
				v++;
			*vlen = (size_t)(line + len - v);
			return v;
		}
		pos += len + 1;
	}
	return NULL;
}

static int version_from_dpkg(const char *status, struct imgp_cloudinit_version *out)
{
	const char *p = status;

	while (*p) {
		const char *end = strstr(p, "\n\n");
		size_t n = end ? (size_t)(end - p) : strlen(p), plen, slen, vlen;
		const char *pkg = stanza_field(p, n, "Package:", &plen);
		const char *st = stanza_field(p, n, "Status:", &slen);
		const char *ver = stanza_field(p, n, "Version:", &vlen);

		/* "Status: install ok installed"; a removed one keeps "config-files" */
		if (pkg && plen == 10 && !memcmp(pkg, "cloud-init", 10) && st &&
		    slen >= 10 && !memcmp(st + slen - 10, " installed", 10) && ver)
			return version_of(ver, vlen, out);
		if (!end)
			break;
		p = end + 2;
	}
	return -ENOENT;
}

int imgp_cloudinit_version_parse_(const char *dpkg_status,
				 const char *version_py,
				 struct imgp_cloudinit_version *out)
{
	const char *v;

	memset(out, 0, sizeof(*out));
	if (dpkg_status && !version_from_dpkg(dpkg_status, out))
		return 0;
	/* cloudinit/version.py: __VERSION__ = "22.4.2" */
	v = version_py ? strstr(version_py, "__VERSION__ = \"") : NULL;
	if (v && !version_of(v + 15, strcspn(v + 15, "\"\n"), out))
		return 0;
	memset(out, 0, sizeof(*out));
	return imgp_fail(ENOENT, "no cloud-init version: neither dpkg's status nor cloudinit/version.py names one");
}

static bool version_before(const struct imgp_cloudinit_version *v, int major, int minor)
{
	return v->major < major || (v->major == major && v->minor < minor);
}

/* ------------------------------------------------------ network-config */

int imgp_cloudinit_network_config_(const struct imgp_cloudinit_version *v,
				  const struct imgp_net *n, struct imgp_buf *out)
{
	out->len = 0;
	if (version_before(v, 17, 1))
		return imgp_fail(ENOTSUP, "cloud-init %d.%d reads no network configuration version 2 (17.1 and later do)",
				 v->major, v->minor);
	if (n->wifi_ssid && !v->netplan)
		return imgp_fail(ENOTSUP, "cloud-init %d.%d renders Wi-Fi only through netplan, and this image's renders its network another way",
				 v->major, v->minor);
	if (imgp_buf_append(out, IMGP_LIT("# Written by imgpatch.\nversion: 2\n")) ||
	    imgp_custom_net_v2_(n, 0, out)) {
		out->len = 0;
		return imgp_fail(ENOMEM, "out of memory");
	}
	return 0;
}

/* ----------------------------------------------------------- user-data */

/* Sets key's entry in *cur (the text so far), entry built in e. */
static int set_entry(struct imgp_buf *cur, const char *key, struct imgp_buf *e)
{
	struct imgp_buf next = { 0 };
	int rc;

	rc = imgp_buf_append(e, "", 1);  /* NUL-terminated, len kept */
	if (rc)
		return imgp_fail(ENOMEM, "out of memory");
	e->len--;
	rc = imgp_yaml_set_key_(cur->len ? (const char *)cur->data : "", cur->len,
			       CLOUD_CONFIG, key, (const char *)e->data, &next);
	e->len = 0;
	if (rc < 0) {
		imgp_buf_free(&next);
		return rc;
	}
	imgp_buf_free(cur);
	*cur = next;
	return 0;
}

/* A fixed entry: "key: value\n". */
static int fixed_entry(struct imgp_buf *cur, const char *key, const char *text,
		       struct imgp_buf *e)
{
	if (imgp_buf_append(e, text, strlen(text)))
		return imgp_fail(ENOMEM, "out of memory");
	return set_entry(cur, key, e);
}

/* "key: "VALUE"\n" */
static int scalar_entry(struct imgp_buf *cur, const char *key, const char *value,
			struct imgp_buf *e)
{
	int rc = imgp_buf_printf(e, "%s: ", key);

	if (!rc)
		rc = imgp_custom_yaml_quote_(e, value);
	if (!rc)
		rc = imgp_buf_append(e, IMGP_LIT("\n"));
	return rc ? imgp_fail(ENOMEM, "out of memory") : set_entry(cur, key, e);
}

/* One item of users: at indent ind, as cloud-init's cc_users_groups reads it. */
static int user_item(struct imgp_buf *e, const struct imgp_cloudinit_user *u,
		     unsigned ind)
{
	int rc = imgp_buf_printf(e, "%*s- name: ", ind, "");

	if (!rc)
		rc = imgp_custom_yaml_quote_(e, u->name);
	if (!rc && u->ngroups) {
		rc = imgp_buf_printf(e, "\n%*s  groups: [", ind, "");
		for (size_t i = 0; !rc && i < u->ngroups; i++) {
			if (i)
				rc = imgp_buf_append(e, IMGP_LIT(", "));
			if (!rc)
				rc = imgp_custom_yaml_quote_(e, u->groups[i]);
		}
		if (!rc)
			rc = imgp_buf_append(e, IMGP_LIT("]"));
	}
	if (!rc)
		rc = imgp_buf_printf(e, "\n%*s  shell: /bin/bash\n", ind, "");
	/*
	 * With a password, the sudo group's rule asks for it; without one
	 * the user logs in by key only and sudo must not ask, as for
	 * cloud-init's own default user.
	 */
	if (!rc && !u->hash)
		rc = imgp_buf_printf(e, "%*s  sudo: \"ALL=(ALL) NOPASSWD:ALL\"\n", ind, "");
	if (!rc && u->hash) {
		rc = imgp_buf_printf(e, "%*s  lock_passwd: false\n%*s  passwd: ", ind, "", ind, "");
		if (!rc)
			rc = imgp_custom_yaml_quote_(e, u->hash);
		if (!rc)
			rc = imgp_buf_append(e, IMGP_LIT("\n"));
	}
	if (!rc && u->nkeys)
		rc = imgp_buf_printf(e, "%*s  ssh_authorized_keys:\n", ind, "");
	for (size_t i = 0; !rc && i < u->nkeys; i++) {
		rc = imgp_buf_printf(e, "%*s    - ", ind, "");
		if (!rc)
			rc = imgp_custom_yaml_quote_(e, u->keys[i]);
		if (!rc)
			rc = imgp_buf_append(e, IMGP_LIT("\n"));
	}
	return rc;
}

/* Whether v (n bytes, maybe quoted) is the name name. */
static bool same_name(const char *v, size_t n, const char *name)
{
	while (n && v[n - 1] == ' ')
		n--;
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v++;
		n -= 2;
	}
	return n == strlen(name) && !memcmp(v, name, n);
}

/* Whether the item [s, s + n) at indent ind makes one of cfg's users. */
static bool item_is_ours(const char *s, size_t n, unsigned ind,
			 const struct imgp_cloudinit_config *cfg)
{
	for (size_t pos = 0; pos < n;) {
		const char *line = s + pos, *nl = memchr(line, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - line) : n - pos, off = ind + 2;
		bool first = pos == 0;

		pos += len + 1;
		/* "- name: X" or "- X" on the first line, "  name: X" below */
		if (len <= off || (!first && memcmp(line + ind, "  ", 2)))
			continue;
		for (size_t u = 0; u < cfg->nusers; u++) {
			const char *v = line + off;
			size_t vn = len - off;

			if (vn > 6 && !memcmp(v, "name: ", 6)) {
				if (same_name(v + 6, vn - 6, cfg->users[u].name))
					return true;
			} else if (first && same_name(v, vn, cfg->users[u].name)) {
				return true;
			}
		}
	}
	return false;
}

/*
 * users: the image's list kept (its items, but one of the same name as
 * ours, which ours replaces, so that a second run writes the same text),
 * ours appended at its items' indent. Without a list, "- default" first:
 * a list without it does not make the distribution's default user.
 */
static int users_entry(const char *old, size_t len,
		       const struct imgp_cloudinit_config *cfg, struct imgp_buf *e)
{
	size_t first = old ? strcspn(old, "\n") : 0, pos = first + 1;
	unsigned ind = 2;
	int rc;

	if (!old) {
		rc = imgp_buf_append(e, IMGP_LIT("users:\n  - default\n"));
		goto ours;
	}
	if (strspn(old + 6, " ") < first - 6)
		return imgp_fail(EINVAL, "its users entry is '%.*s' on one line: imgpatch adds only to a list of '- ' items",
				 first > 60 ? 60 : (int)first, old);
	/* the items' indent: the first "- " line's */
	for (size_t p = pos; p < len; p += strcspn(old + p, "\n") + 1) {
		size_t sp = strspn(old + p, " ");

		if (old[p + sp] == '-') {
			ind = (unsigned)sp;
			break;
		}
	}
	rc = imgp_buf_append(e, IMGP_LIT("users:\n"));
	/* the lines before the first item, then each item that is not ours */
	while (!rc && pos < len) {
		size_t n = strcspn(old + pos, "\n") + 1;
		size_t next = pos + n;

		while (next < len && !(strspn(old + next, " ") == ind &&
				       old[next + ind] == '-'))
			next += strcspn(old + next, "\n") + 1;
		if (next > len)
			next = len;
		if (strspn(old + pos, " ") != ind || old[pos + ind] != '-' ||
		    !item_is_ours(old + pos, next - pos, ind, cfg))
			rc = imgp_buf_append(e, old + pos, next - pos);
		pos = next;
	}
ours:
	for (size_t u = 0; !rc && u < cfg->nusers; u++)
		rc = user_item(e, &cfg->users[u], ind);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

static int user_data_keys(const struct imgp_cloudinit_config *cfg,
			  struct imgp_buf *cur, struct imgp_buf *e)
{
	int rc = 0;

	if (cfg->hostname) {
		rc = scalar_entry(cur, "hostname", cfg->hostname, e);
		if (!rc)
			rc = fixed_entry(cur, "preserve_hostname", "preserve_hostname: false\n", e);
	}
	if (!rc && cfg->timezone)
		rc = scalar_entry(cur, "timezone", cfg->timezone, e);
	if (!rc && cfg->locale)
		rc = scalar_entry(cur, "locale", cfg->locale, e);
	if (!rc && cfg->keymap) {
		if (imgp_buf_append(e, IMGP_LIT("keyboard:\n  layout: ")) ||
		    imgp_custom_yaml_quote_(e, cfg->keymap) || imgp_buf_append(e, IMGP_LIT("\n")))
			return imgp_fail(ENOMEM, "out of memory");
		rc = set_entry(cur, "keyboard", e);
	}
	if (!rc && cfg->nusers) {
		struct imgp_buf old = { 0 };

		rc = imgp_yaml_get_key_(cur->len ? (const char *)cur->data : "", cur->len,
				       CLOUD_CONFIG, "users", &old);
		if (rc >= 0 && !imgp_buf_append(&old, "", 1))
			rc = users_entry(rc ? (const char *)old.data : NULL, old.len - 1, cfg, e);
		else if (rc >= 0)
			rc = imgp_fail(ENOMEM, "out of memory");
		imgp_buf_free(&old);
		if (!rc)
			rc = set_entry(cur, "users", e);
	}
	if (!rc && cfg->keep_host_keys) {
		/*
		 * cc_ssh keeps the keys baked into the image and makes only the
		 * types of ssh_genkeytypes that are missing (22.4.2's
		 * cloudinit/config/cc_ssh.py, handle()); "ssh_genkeytypes: []"
		 * would say none, but 22.4's schema wants one item at least.
		 */
		rc = fixed_entry(cur, "ssh_deletekeys", "ssh_deletekeys: false\n", e);
	}
	/*
	 * Without ssh_genkeytypes, 22.4 makes every type of its
	 * GENERATE_KEY_NAMES that is missing, DSA among them, which sshd no
	 * longer loads: the list names the types baked in, so none is made.
	 */
	for (size_t i = 0; !rc && cfg->keep_host_keys && i < cfg->nhost_key_types; i++) {
		rc = imgp_buf_printf(e, "%s%s%s", i ? ", " : "ssh_genkeytypes: [",
				     cfg->host_key_types[i],
				     i + 1 == cfg->nhost_key_types ? "]\n" : "") ?
		     imgp_fail(ENOMEM, "out of memory") : 0;
		if (!rc && i + 1 == cfg->nhost_key_types)
			rc = set_entry(cur, "ssh_genkeytypes", e);
	}
	return rc;
}

int imgp_cloudinit_user_data_(const struct imgp_cloudinit_version *v,
			     const char *old, size_t len,
			     const struct imgp_cloudinit_config *cfg,
			     struct imgp_buf *out)
{
	struct imgp_buf cur = { 0 }, e = { 0 };
	int rc;

	out->len = 0;
	if (cfg->keymap && version_before(v, 22, 1))
		return imgp_fail(ENOTSUP, "cloud-init %d.%d has no keyboard setting (22.1 and later have)",
				 v->major, v->minor);
	/* an empty text gets the header even when nothing is set */
	if (len ? imgp_buf_append(&cur, old, len) :
		  imgp_buf_append(&cur, CLOUD_CONFIG "\n", sizeof(CLOUD_CONFIG)))
		return imgp_fail(ENOMEM, "out of memory");
	rc = user_data_keys(cfg, &cur, &e);
	if (!rc && imgp_buf_append(out, cur.data, cur.len))
		rc = imgp_fail(ENOMEM, "out of memory");
	imgp_buf_free(&cur);
	imgp_buf_free(&e);
	return rc;
}

/* ----------------------------------------------------------- meta-data */

int imgp_cloudinit_meta_data_(const char *old, size_t len, const char *id,
			     const char *hostname, struct imgp_buf *out)
{
	struct imgp_buf cur = { 0 }, e = { 0 }, next = { 0 };
	const char *keys[2] = { "instance-id", "local-hostname" };
	const char *values[2] = { id, hostname };
	int rc = 0;

	out->len = 0;
	if (!id || !*id)
		return imgp_fail(EINVAL, "meta-data: an empty instance-id");
	if (imgp_buf_append(&cur, old, len))
		return imgp_fail(ENOMEM, "out of memory");
	for (int i = 0; !rc && i < 2; i++) {
		if (!values[i])
			continue;
		if (imgp_buf_printf(&e, "%s: ", keys[i]) || imgp_custom_yaml_quote_(&e, values[i]) ||
		    imgp_buf_append(&e, IMGP_LIT("\n"))) {
			rc = imgp_fail(ENOMEM, "out of memory");
			break;
		}
		rc = imgp_yaml_set_key_(cur.len ? (const char *)cur.data : "", cur.len, NULL,
				       keys[i], (const char *)e.data, &next);
		e.len = 0;
		if (rc >= 0) {
			struct imgp_buf t = cur;

			cur = next;
			next = t;
			rc = 0;
		}
	}
	if (!rc && imgp_buf_append(out, cur.data, cur.len))
		rc = imgp_fail(ENOMEM, "out of memory");
	imgp_buf_free(&cur);
	imgp_buf_free(&e);
	imgp_buf_free(&next);
	return rc;
}
