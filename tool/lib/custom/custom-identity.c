// SPDX-License-Identifier: MIT
/*
 * One machine, one identity: the host name, time zone, keyboard and
 * locale, the machine-id and the SSH host keys, each written where the
 * booted system reads it, or gathered into the cloud-init seed of an image
 * that applies them with cloud-init.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "text/text.h"
#include "patch/patch.h"
#include "custom/custom.h"
#include "custom/custom-run.h"

/* ------------------------------------------------------------- host name */

int imgp_custom_plan_hostname_(struct custom_run *run, const char *value)
{
	struct imgp_buf hosts = { 0 }, edited = { 0 };
	char line[300];
	bool exists = false;
	const char *dot = strchr(value, '.');
	int rc;

	run->hostname = value;
	if (run->way == CUSTOM_WAY_CLOUDINIT)
		return imgp_custom_note_(run, "hostname %s: cloud-init's user-data and meta-data (%s)",
				      value, run->way_why);
	if (run->way == CUSTOM_WAY_RPIOS && run->imager_custom)
		return imgp_custom_note_(run, "hostname %s: firstrun.sh, imager_custom set_hostname (%s)",
				      value, run->way_why);
	/* hostname(5): read by systemd at boot before anything else names the host. */
	snprintf(line, sizeof(line), "%s\n", value);
	rc = imgp_custom_put_(run, "/etc/hostname", line, strlen(line), 0, -1, -1, false, NULL);
	/*
	 * Debian's installer and Raspberry Pi OS name the host on /etc/hosts'
	 * 127.0.1.1 line (Debian Reference 5.1.1); an image without one
	 * resolves it through nss-myhostname and keeps its file.
	 */
	if (!rc)
		rc = imgp_custom_read_root_(run, "/etc/hosts", &hosts, &exists);
	if (!rc && exists) {
		if (dot)
			snprintf(line, sizeof(line), "%s %.*s", value, (int)(dot - value), value);
		else
			snprintf(line, sizeof(line), "%s", value);
		rc = imgp_text_set_fields_((char *)hosts.data, hosts.len, "127.0.1.1", line,
					  &edited);
		if (rc >= 0)
			rc = imgp_custom_put_(run, "/etc/hosts", edited.data, edited.len, 0, -1, -1,
					false, NULL);
	}
	imgp_buf_free(&hosts);
	imgp_buf_free(&edited);
	if (!rc)
		rc = imgp_custom_note_(run, "hostname %s: /etc/hostname%s (%s)", value,
				    exists ? " and /etc/hosts' 127.0.1.1 line" : "", run->way_why);
	return rc;
}

/* ------------------------------------------------------------- time zone */

/* A zone name as tzdata names its files: Area/City, no "..", no odd bytes. */
static int zone_name_check(const char *zone)
{
	if (!*zone || zone[0] == '/' || strstr(zone, "..") || strstr(zone, "//") ||
	    strlen(zone) > 128)
		return imgp_fail(EINVAL, "%s: not a time zone name (Area/City, as /usr/share/zoneinfo names them)", zone);
	for (const char *p = zone; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("/_+-", *p)))
			return imgp_fail(EINVAL, "%s: not a time zone name (Area/City, as /usr/share/zoneinfo names them)", zone);
	return 0;
}

int imgp_custom_plan_timezone_(struct custom_run *run, const char *value)
{
	struct imgp_buf tzif = { 0 }, old = { 0 };
	char path[200], line[160];
	bool exists = false, has_timezone = false;
	int rc = zone_name_check(value);

	/* The zone must be one the image's tzdata has, whoever applies it. */
	snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", value);
	if (!rc)
		rc = imgp_custom_read_root_(run, path, &tzif, &exists);
	if (rc == -EISDIR)
		exists = false, rc = 0;
	if (!rc && (!exists || tzif.len < 4 || memcmp(tzif.data, "TZif", 4) != 0))
		rc = imgp_fail(ENOENT, "%s: the image has no such time zone (no %s)", value, path);
	imgp_buf_free(&tzif);
	if (rc)
		return rc;
	run->timezone = value;
	if (run->way == CUSTOM_WAY_CLOUDINIT)
		return imgp_custom_note_(run, "timezone %s: cloud-init's user-data (%s)", value,
				      run->way_why);
	if (run->way == CUSTOM_WAY_RPIOS && run->imager_custom)
		return imgp_custom_note_(run, "timezone %s: firstrun.sh, imager_custom set_timezone (%s)",
				      value, run->way_why);
	if (run->way == CUSTOM_WAY_ARMBIAN)
		return imgp_custom_note_(run, "timezone %s: /root/.not_logged_in_yet PRESET_TIMEZONE (%s)",
				      value, run->way_why);
	/*
	 * Debian's tzdata (config script, 2024a-0+deb12u1) links /etc/localtime
	 * to the absolute path and writes the name to /etc/timezone.
	 */
	rc = imgp_custom_link_(run, "/etc/localtime", path);
	if (!rc)
		rc = imgp_custom_read_root_(run, "/etc/timezone", &old, &has_timezone);
	if (!rc && has_timezone) {
		snprintf(line, sizeof(line), "%s\n", value);
		rc = imgp_custom_put_(run, "/etc/timezone", line, strlen(line), 0, -1, -1, false,
				NULL);
	}
	imgp_buf_free(&old);
	if (!rc)
		rc = imgp_custom_note_(run, "timezone %s: /etc/localtime -> %s%s (%s)", value, path,
				    has_timezone ? ", /etc/timezone" : "", run->way_why);
	return rc;
}

/* ------------------------------------------------------------- keyboard */

/* Letters, digits, '_' and '-': a layout name as xkb-data and kbd name them. */
static int plain_name_check(const char *what, const char *v)
{
	if (!*v || strlen(v) > 64)
		return imgp_fail(EINVAL, "%s: not a %s", v, what);
	for (const char *p = v; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_-.@", *p)))
			return imgp_fail(EINVAL, "%s: not a %s", v, what);
	return 0;
}

/* Whether cloud-init's user-data of this version can say it (a probe of the maker). */
static bool cloudinit_takes(struct custom_run *run, const struct imgp_cloudinit_config *cfg)
{
	struct imgp_buf out = { 0 };
	int rc = imgp_cloudinit_user_data_(&run->ci_version, "", 0, cfg, &out);

	imgp_buf_free(&out);
	if (rc)
		imgp_errclear_();
	return rc == 0;
}

/* KEY="value" in a shell-variable file, set or appended (created when missing). */
static int set_var(struct custom_run *run, const char *file, const char *key,
		   const char *value, bool quoted)
{
	struct imgp_buf old = { 0 }, new = { 0 };
	char v[160];
	bool exists = false;
	int rc = imgp_custom_read_root_(run, file, &old, &exists);

	snprintf(v, sizeof(v), quoted ? "\"%s\"" : "%s", value);
	if (!rc) {
		rc = imgp_text_set_line_(exists ? (char *)old.data : "", old.len, key, v,
					NULL, &new);
		if (rc >= 0)
			rc = imgp_custom_put_(run, file, new.data, new.len, 0, -1, -1, false, NULL);
	}
	imgp_buf_free(&old);
	imgp_buf_free(&new);
	return rc;
}

int imgp_custom_plan_keymap_(struct custom_run *run, const char *value)
{
	const struct imgp_cloudinit_config probe = { .keymap = value };
	char path[200];
	int rc = plain_name_check("keyboard layout", value), has;

	if (rc)
		return rc;
	/* xkb-data's layouts, which console-setup and systemd-localed read. */
	has = imgp_custom_exists_(run, "/usr/share/X11/xkb/symbols");
	if (has > 0) {
		snprintf(path, sizeof(path), "/usr/share/X11/xkb/symbols/%s", value);
		rc = imgp_custom_exists_(run, path);
		if (rc == 0)
			return imgp_fail(ENOENT, "%s: the image has no such keyboard layout (no %s)",
					 value, path);
		if (rc < 0)
			return rc;
	}
	if (run->way == CUSTOM_WAY_RPIOS && run->imager_custom) {
		run->keymap = value;
		return imgp_custom_note_(run, "keymap %s: firstrun.sh, imager_custom set_keymap (%s)",
				      value, run->way_why);
	}
	if (run->way == CUSTOM_WAY_CLOUDINIT && cloudinit_takes(run, &probe)) {
		run->keymap = value;
		return imgp_custom_note_(run, "keymap %s: cloud-init's user-data (%s)", value,
				      run->way_why);
	}
	has = imgp_custom_exists_(run, "/etc/default/keyboard");
	if (has < 0)
		return has;
	if (has) {
		/* keyboard(5): console-setup and systemd-localed read XKBLAYOUT. */
		rc = set_var(run, "/etc/default/keyboard", "XKBLAYOUT", value, true);
		return rc ? rc : imgp_custom_note_(run, "keymap %s: /etc/default/keyboard XKBLAYOUT%s",
						value, run->way == CUSTOM_WAY_CLOUDINIT ?
						" (this cloud-init has no keyboard module)" : "");
	}
	/* vconsole.conf(5): systemd-vconsole-setup's KEYMAP. */
	rc = set_var(run, "/etc/vconsole.conf", "KEYMAP", value, false);
	return rc ? rc : imgp_custom_note_(run, "keymap %s: /etc/vconsole.conf KEYMAP", value);
}

/* ---------------------------------------------------------------- locale */

/* The charset glibc's SUPPORTED list gives a locale ("UTF-8"), or NULL. */
static char *supported_charset(const char *supported, const char *locale)
{
	size_t n = strlen(locale);

	for (const char *line = supported; line && *line;) {
		size_t len = strcspn(line, "\n");

		if (len > n && strncmp(line, locale, n) == 0 && line[n] == ' ')
			return strndup(line + n + 1, len - n - 1);
		line += len + (line[len] == '\n');
	}
	return NULL;
}

/* /etc/locale.gen with "LOCALE CHARSET" active (uncommented, or appended). */
static int locale_gen_enable(const char *text, const char *entry, struct imgp_buf *out)
{
	bool done = false;
	int rc = 0;

	for (const char *line = text; !rc && *line;) {
		size_t len = strcspn(line, "\n");
		const char *p = line;

		while (*p == '#' || *p == ' ')
			p++;
		if (!done && (size_t)(line + len - p) == strlen(entry) &&
		    strncmp(p, entry, strlen(entry)) == 0) {
			rc = imgp_buf_printf(out, "%s\n", entry);
			done = true;
		} else {
			rc = imgp_buf_printf(out, "%.*s\n", (int)len, line);
		}
		line += len + (line[len] == '\n');
	}
	if (!rc && !done)
		rc = imgp_buf_printf(out, "%s\n", entry);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_custom_plan_locale_(struct custom_run *run, const char *value)
{
	struct imgp_buf supported = { 0 }, gen = { 0 }, new = { 0 };
	char *charset = NULL, entry[160];
	bool has_supported = false, has_gen = false;
	int rc = plain_name_check("locale", value);

	if (!rc)
		rc = imgp_custom_read_root_(run, "/usr/share/i18n/SUPPORTED", &supported,
				      &has_supported);
	if (!rc && strcmp(value, "C.UTF-8") != 0 && strcmp(value, "C") != 0) {
		charset = has_supported ? supported_charset((char *)supported.data, value) : NULL;
		if (!charset)
			rc = imgp_fail(ENOENT, "%s: the image has no such locale (%s)", value,
				       has_supported ? "not in /usr/share/i18n/SUPPORTED" :
				       "no /usr/share/i18n/SUPPORTED: the locales package is not installed");
	}
	if (rc)
		goto out;
	run->locale = value;
	if (run->way == CUSTOM_WAY_ARMBIAN) {
		rc = imgp_custom_note_(run, "locale %s: /root/.not_logged_in_yet PRESET_LOCALE (%s)",
				      value, run->way_why);
		goto out;
	}
	if (run->way == CUSTOM_WAY_CLOUDINIT) {
		/*
		 * cloud-init's Debian (distros/debian.py, regenerate_locale) runs
		 * locale-gen LOCALE, but Debian's locale-gen makes only what
		 * /etc/locale.gen lists, and update-locale then fails: listed here.
		 */
		if (charset)
			snprintf(entry, sizeof(entry), "%s %s", value, charset);
		if (charset)
			rc = imgp_custom_read_root_(run, "/etc/locale.gen", &gen, &has_gen);
		if (!rc && has_gen)
			rc = locale_gen_enable((char *)gen.data, entry, &new);
		if (!rc && has_gen)
			rc = imgp_custom_put_(run, "/etc/locale.gen", new.data, new.len, 0, -1, -1,
					     false, NULL);
		if (!rc)
			rc = imgp_custom_note_(run, "locale %s: cloud-init's user-data%s (%s)", value,
					      has_gen ? ", listed in /etc/locale.gen for its locale-gen" : "",
					      run->way_why);
		goto out;
	}
	/* locale(5) on Debian: /etc/default/locale, read by pam_env at login. */
	rc = set_var(run, "/etc/default/locale", "LANG", value, false);
	if (rc || !charset)
		goto out;
	/* The locale must be generated: locale-gen, run once at the first boot. */
	snprintf(entry, sizeof(entry), "%s %s", value, charset);
	rc = imgp_custom_read_root_(run, "/etc/locale.gen", &gen, &has_gen);
	if (!rc && !has_gen)
		rc = imgp_fail(ENOENT, "%s: the image has no /etc/locale.gen to generate it from", value);
	if (!rc)
		rc = locale_gen_enable((char *)gen.data, entry, &new);
	if (!rc)
		rc = imgp_custom_put_(run, "/etc/locale.gen", new.data, new.len, 0, -1, -1, false, NULL);
	if (!rc)
		rc = imgp_custom_plan_firstboot_(run, "firstboot-command", "locale-gen");
	if (!rc)
		rc = imgp_custom_note_(run, "locale %s: /etc/default/locale, /etc/locale.gen, and locale-gen at the first boot", value);
out:
	free(charset);
	imgp_buf_free(&supported);
	imgp_buf_free(&gen);
	imgp_buf_free(&new);
	return rc;
}

/* ------------------------------------------------------------ machine-id */

int imgp_custom_plan_machine_id_(struct custom_run *run, const char *value)
{
	uint8_t raw[16];
	char id[34] = "";
	int rc, dbus;
	struct imgp_buf link = { 0 };

	if (strcmp(value, "new") == 0) {
		if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
			return imgp_fail(EIO, "no random bytes for a machine-id");
		/* machine-id(5): 32 lower-case hex digits, a version 4 UUID's bits. */
		raw[6] = (uint8_t)((raw[6] & 0x0f) | 0x40);
		raw[8] = (uint8_t)((raw[8] & 0x3f) | 0x80);
		for (size_t i = 0; i < sizeof(raw); i++)
			snprintf(id + 2 * i, 3, "%02x", raw[i]);
		id[32] = '\n';
		id[33] = '\0';
	}
	/* Empty: systemd makes one at the next boot, which is a first boot (machine-id(5)). */
	rc = imgp_custom_exists_(run, "/etc/machine-id");
	/* systemd-machine-id-setup makes it 0444; an existing one keeps its mode. */
	if (rc >= 0)
		rc = imgp_custom_put_(run, "/etc/machine-id", id, strlen(id), rc ? 0 : 0444, -1, -1,
				false, NULL);
	/*
	 * D-Bus's copy: Debian's dbus links it to /etc/machine-id; a plain file
	 * there would keep the old id, so it follows.
	 */
	dbus = rc ? 0 : imgp_custom_exists_(run, "/var/lib/dbus/machine-id");
	if (dbus > 0) {
		const struct imgp_part *part;
		char *path;
		bool is_link = false;

		rc = imgp_custom_locate_(run, "/var/lib/dbus/machine-id", &part, &path);
		if (!rc)
			rc = imgp_patch_readlink_(run->patch, part, path, &link, &is_link);
		if (rc == -EINVAL)
			rc = 0;
		if (!rc && !is_link)
			rc = *id ? imgp_custom_put_(run, "/var/lib/dbus/machine-id", id, strlen(id), 0444,
					      -1, -1, false, NULL)
				 : imgp_patch_delete_(run->patch, part, path);
		free(path);
	} else if (dbus < 0) {
		rc = dbus;
	}
	imgp_buf_free(&link);
	if (rc)
		return rc;
	if (*id) {
		id[32] = '\0';
		rc = imgp_custom_add_fact_(run, "machine-id", id);
		return rc ? rc : imgp_custom_note_(run, "machine-id new: /etc/machine-id %s", id);
	}
	return imgp_custom_note_(run, "machine-id reset: /etc/machine-id empty, made by systemd at the first boot");
}

/* ------------------------------------------------------------ host keys */

/* The key types the image's sshd loads: its HostKey lines, else sshd's defaults. */
static int host_key_types(struct custom_run *run, char types[][16], size_t *n)
{
	static const char *const defaults[] = { "rsa", "ecdsa", "ed25519" };
	struct imgp_buf conf = { 0 };
	bool exists = false, conf_types;
	int rc = imgp_custom_read_root_(run, "/etc/ssh/sshd_config", &conf, &exists);

	*n = 0;
	for (const char *line = exists ? (char *)conf.data : NULL; !rc && line && *line;) {
		size_t len = strcspn(line, "\n");
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncasecmp(p, "HostKey", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
			const char *name = memmem(p, (size_t)(line + len - p), "ssh_host_", 9);
			const char *end = name ? memmem(name, (size_t)(line + len - name), "_key", 4) : NULL;

			bool seen = false;

			for (size_t k = 0; name && end && k < *n; k++)
				seen |= strlen(types[k]) == (size_t)(end - name - 9) &&
					strncmp(types[k], name + 9, (size_t)(end - name - 9)) == 0;
			/* A type named twice is made once: one key, one fingerprint reported. */
			if (name && end && end - name - 9 < 16 && *n < 8 && !seen) {
				snprintf(types[*n], 16, "%.*s", (int)(end - name - 9), name + 9);
				++*n;
			}
		}
		line += len + (line[len] == '\n');
	}
	imgp_buf_free(&conf);
	conf_types = *n > 0;
	for (size_t i = 0; !rc && *n < 3 && !conf_types; i++)
		snprintf(types[(*n)++], 16, "%s", defaults[i]);
	for (size_t i = 0; !rc && i < *n; i++)
		if (strcmp(types[i], "rsa") && strcmp(types[i], "ecdsa") &&
		    strcmp(types[i], "ed25519") && strcmp(types[i], "dsa"))
			rc = imgp_fail(ENOTSUP, "/etc/ssh/sshd_config: HostKey of type %s: not one ssh-keygen makes",
				       types[i]);
	return rc;
}

/*
 * Makes one key pair with ssh-keygen (OpenSSH's own format and defaults,
 * which an sshd of any version reads) in a temporary file.
 */
static int make_key(const char *type, const char *comment, struct imgp_buf *priv,
		    struct imgp_buf *pub, struct imgp_buf *fingerprint)
{
	char *path = NULL, *pub_path = NULL;
	int fd, rc;

	fd = imgp_temp_make(imgp_tmpdir(), "imgpatch-hostkey", &path);
	if (fd < 0)
		return fd;
	close(fd);
	/* ssh-keygen makes both files itself; until removed, both are on the list. */
	unlink(path);
	rc = asprintf(&pub_path, "%s.pub", path) < 0 ? imgp_fail(ENOMEM, "out of memory")
						      : imgp_temp_claim_(pub_path);
	if (!rc) {
		const char *const argv[] = { "ssh-keygen", "-q", "-t", type, "-N", "", "-C",
					     comment, "-f", path, NULL };

		rc = imgp_run_(argv, NULL, NULL);
	}
	if (!rc)
		rc = imgp_read_local_(path, 1 << 16, true, priv);
	if (!rc)
		rc = imgp_read_local_(pub_path, 1 << 16, true, pub);
	if (!rc) {
		const char *const argv[] = { "ssh-keygen", "-l", "-f", pub_path, NULL };

		rc = imgp_run_(argv, NULL, fingerprint);
	}
	if (path)
		imgp_temp_remove(path);
	if (pub_path) {
		imgp_temp_remove(pub_path);
		free(pub_path);
	}
	free(path);
	return rc ? imgp_fail_ctx(rc, "ssh-keygen -t %s", type) : 0;
}

/* "256 SHA256:abc root@x (ED25519)\n" -> "ED25519 SHA256:abc". */
static void fingerprint_fact(const struct imgp_buf *line, char *out, size_t size)
{
	const char *s = (const char *)line->data;
	const char *sha = s ? strstr(s, "SHA256:") : NULL;
	const char *open = s ? strrchr(s, '(') : NULL;
	size_t shalen = sha ? strcspn(sha, " \n") : 0;
	size_t typelen = open ? strcspn(open + 1, ")") : 0;

	snprintf(out, size, "%.*s %.*s", (int)typelen, open ? open + 1 : "", (int)shalen,
		 sha ? sha : "");
}

/* Units an image runs at its first boot that would replace the keys made here. */
static int keep_keys(struct custom_run *run)
{
	/* Raspberry Pi OS (raspberrypi-sys-mods): regenerate_ssh_host_keys.service. */
	static const char *const units[] = { "regenerate_ssh_host_keys.service" };
	struct imgp_unit_root root;
	int rc = 0;

	imgp_custom_unit_root_(run, &root);
	for (size_t i = 0; !rc && i < sizeof(units) / sizeof(units[0]); i++) {
		struct imgp_unit_links links = { 0 };

		rc = imgp_units_disable_(&root, units[i], &links);
		if (rc == -ENOENT) {
			imgp_errclear_();
			rc = 0;
		} else if (!rc && links.n) {
			rc = imgp_custom_apply_links_(run, &links);
			if (!rc)
				rc = imgp_custom_note_(run, "ssh-host-keys: %s disabled, so that it keeps these keys",
						    units[i]);
		}
		imgp_unit_links_free_(&links);
	}
	run->keep_host_keys = true;
	return rc;
}

int imgp_custom_plan_host_keys_(struct custom_run *run, const char *value)
{
	char types[8][16], comment[300], fact[200], path[200];
	size_t n;
	int rc = imgp_custom_exists_(run, "/usr/sbin/sshd");

	(void)value;
	if (rc == 0)
		return imgp_fail(ENOENT, "the image has no OpenSSH server (/usr/sbin/sshd)");
	if (rc < 0)
		return rc;
	rc = host_key_types(run, types, &n);
	for (size_t i = 0; !rc && i < n; i++)
		memcpy(run->host_key_types[i], types[i], sizeof(types[i]));
	run->nhost_key_types = rc ? 0 : n;
	snprintf(comment, sizeof(comment), "root@%s", run->hostname ? run->hostname : "localhost");
	for (size_t i = 0; !rc && i < n; i++) {
		struct imgp_buf priv = { 0 }, pub = { 0 }, fp = { 0 };

		rc = make_key(types[i], comment, &priv, &pub, &fp);
		snprintf(path, sizeof(path), "/etc/ssh/ssh_host_%s_key", types[i]);
		/* As openssh-server's postinst leaves them: the key 0600, the public one 0644. */
		if (!rc)
			rc = imgp_custom_put_(run, path, priv.data, priv.len, 0600, 0, 0, true, NULL);
		strncat(path, ".pub", sizeof(path) - strlen(path) - 1);
		if (!rc)
			rc = imgp_custom_put_(run, path, pub.data, pub.len, 0644, 0, 0, false, NULL);
		if (!rc) {
			fingerprint_fact(&fp, fact, sizeof(fact));
			rc = imgp_custom_add_fact_(run, "ssh-host-key", fact);
		}
		if (!rc)
			rc = imgp_custom_note_(run, "ssh-host-keys: /etc/ssh/ssh_host_%s_key %s", types[i],
					    fact);
		explicit_bzero(priv.data, priv.len);
		imgp_buf_free(&priv);
		imgp_buf_free(&pub);
		imgp_buf_free(&fp);
	}
	return rc ? rc : keep_keys(run);
}
