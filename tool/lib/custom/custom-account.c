// SPDX-License-Identifier: MIT
/*
 * Users, passwords and SSH keys: --user, --password, --ssh-inject. A user
 * the image makes with cloud-init is said in its user-data; otherwise the
 * account files are written as useradd would write them, the home folder
 * made from /etc/skel with the user's owner.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "patch/patch.h"
#include "custom/custom.h"
#include "custom/custom-run.h"

static const char *const userdb_files[] = {
	"/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow",
	"/etc/login.defs", "/etc/default/useradd",
};

static struct imgp_buf *userdb_buf(struct imgp_userdb *db, size_t i)
{
	struct imgp_buf *bufs[] = { &db->passwd, &db->shadow, &db->group, &db->gshadow,
				    &db->login_defs, &db->useradd_defaults };

	return bufs[i];
}

static int userdb_load(struct custom_run *run, struct imgp_userdb *db)
{
	int rc = 0;

	memset(db, 0, sizeof(*db));
	for (size_t i = 0; !rc && i < 6; i++) {
		bool exists = false;

		rc = imgp_custom_read_root_(run, userdb_files[i], userdb_buf(db, i), &exists);
		if (!rc && !exists && i == 0)
			rc = imgp_fail(ENOENT, "the image has no /etc/passwd");
	}
	return rc;
}

/* The four account files back, each keeping its mode and owner. */
static int userdb_store(struct custom_run *run, struct imgp_userdb *db)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < 4; i++) {
		struct imgp_buf *b = userdb_buf(db, i);
		bool exists = false;
		struct imgp_buf old = { 0 };

		rc = imgp_custom_read_root_(run, userdb_files[i], &old, &exists);
		/* shadow and gshadow hold password hashes: never shown. */
		if (!rc && (exists || b->len))
			rc = imgp_custom_put_(run, userdb_files[i], b->data, b->len,
					exists ? 0 : (i % 2 ? 0640 : 0644), -1, -1, i % 2 == 1,
					NULL);
		imgp_buf_free(&old);
	}
	return rc;
}

static struct custom_user *user_find(struct custom_run *run, const char *name)
{
	for (size_t i = 0; i < run->nusers; i++)
		if (strcmp(run->users[i].name, name) == 0)
			return &run->users[i];
	return NULL;
}

/* Whether the user's password and keys go with their record (seed, firstrun.sh). */
static bool in_record(const struct custom_run *run, const struct custom_user *u)
{
	return u && (run->way == CUSTOM_WAY_CLOUDINIT ||
		     (run->firstrun_user && strcmp(run->firstrun_user, u->name) == 0) ||
		     (run->preset_user && strcmp(run->preset_user, u->name) == 0));
}

static int user_add_record(struct custom_run *run, const char *name)
{
	struct custom_user *grown;

	if (user_find(run, name))
		return 0;
	grown = realloc(run->users, (run->nusers + 1) * sizeof(*grown));
	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	run->users = grown;
	memset(&grown[run->nusers], 0, sizeof(*grown));
	grown[run->nusers].name = strdup(name);
	if (!grown[run->nusers].name)
		return imgp_fail(ENOMEM, "out of memory");
	run->nusers++;
	return 0;
}

/* Raspberry Pi OS says ID=debian; its /etc/rpi-issue tells it apart (pi-gen stage0). */
static const char *distro_of(struct custom_run *run)
{
	return imgp_custom_exists_(run, "/etc/rpi-issue") > 0 ? "raspbian" : run->os_id;
}

/* A login.defs number (HOME_MODE, UMASK: octal when it starts with 0). */
static long defs_number(const struct imgp_buf *defs, const char *key, long fallback)
{
	char val[32];

	if (!imgp_custom_logindefs_get_(defs->data ? (char *)defs->data : "", defs->len, key,
				       val, sizeof(val)))
		return fallback;
	return strtol(val, NULL, 0);
}

/* The value of KEY=VALUE in a shell-style file (adduser.conf's DSHELL), malloc'd or NULL. */
static char *conf_value(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *line = text; line && *line;) {
		size_t len = strcspn(line, "\n");

		if (strncmp(line, key, n) == 0 && line[n] == '=') {
			const char *v = line + n + 1;
			size_t vn = len - n - 1;

			if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
				v++;
				vn -= 2;
			}
			return strndup(v, vn);
		}
		line += len + (line[len] == '\n');
	}
	return NULL;
}

/* /etc/skel's files copied into home as planned, each the user's (useradd -m). */
static int copy_skel(struct custom_run *run, const char *skel, const char *home,
		     unsigned uid, unsigned gid, unsigned depth)
{
	const struct imgp_part *part;
	char **names = NULL, *path = NULL;
	size_t n = 0;
	int rc = depth > 16 ? imgp_fail(ELOOP, "%s: nested too deep", skel)
			    : imgp_custom_locate_(run, skel, &part, &path);

	if (!rc)
		rc = imgp_patch_list_(run->patch, part, path, &names, &n);
	if (rc == -ENOENT && depth == 0) {
		imgp_errclear_();
		rc = 0;
	}
	for (size_t i = 0; i < n; i++) {
		char *from = NULL, *to = NULL, *inner = NULL;
		struct imgp_fs_stat_ st;
		struct imgp_buf data = { 0 };
		bool exists = false;

		if (!rc && (asprintf(&from, "%s/%s", skel, names[i]) < 0 ||
			    asprintf(&to, "%s/%s", home, names[i]) < 0 ||
			    asprintf(&inner, "%s/%s", path, names[i]) < 0))
			rc = imgp_fail(ENOMEM, "out of memory");
		if (!rc)
			rc = imgp_patch_stat_(run->patch, part, inner, &st, &exists);
		if (!rc && exists && st.type == IMGP_FS_DIR) {
			rc = imgp_custom_mkdir_p_(run, to, st.mode, uid, gid);
			if (!rc)
				rc = copy_skel(run, from, to, uid, gid, depth + 1);
		} else if (!rc && exists && st.type == IMGP_FS_REG) {
			rc = imgp_custom_read_(run, part, inner, &data, &exists);
			if (!rc)
				rc = imgp_custom_put_(run, to, data.data, data.len, st.mode, uid, gid,
						false, NULL);
		}
		imgp_buf_free(&data);
		free(from);
		free(to);
		free(inner);
		free(names[i]);
	}
	free(names);
	free(path);
	return rc;
}

static int add_user_files(struct custom_run *run, const char *name)
{
	struct imgp_userdb db;
	struct imgp_buf conf = { 0 };
	const char *groups[IMGP_USER_GROUPS_MAX + 1];
	struct imgp_user_add u = { .name = name };
	unsigned uid = 0, gid = 0;
	char *home = NULL, *shell = NULL, list[512] = "";
	bool exists = false;
	long mode;
	int rc = userdb_load(run, &db);

	if (rc)
		goto out;
	imgp_user_first_groups_(&db, distro_of(run), groups);
	for (u.ngroups = 0; groups[u.ngroups]; u.ngroups++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 u.ngroups ? "," : "", groups[u.ngroups]);
	u.groups = groups;
	/* adduser.conf's DSHELL: the shell Debian's installer gives its first user. */
	rc = imgp_custom_read_root_(run, "/etc/adduser.conf", &conf, &exists);
	if (!rc && exists)
		shell = conf_value((char *)conf.data, "DSHELL");
	if (!rc && shell && imgp_custom_exists_(run, shell) > 0)
		u.shell = shell;
	if (!rc)
		rc = imgp_userdb_add_(&db, &u, &uid, &gid, &home);
	if (!rc)
		rc = userdb_store(run, &db);
	/* useradd -m: HOME_MODE, else 0777 & ~UMASK (shadow 4.13 useradd.c). */
	mode = defs_number(&db.login_defs, "HOME_MODE",
			   0777 & ~defs_number(&db.login_defs, "UMASK", 022));
	if (!rc)
		rc = imgp_custom_mkdir_p_(run, home, (unsigned)mode & 07777, uid, gid);
	if (!rc)
		rc = copy_skel(run, "/etc/skel", home, uid, gid, 0);
	if (!rc)
		rc = imgp_custom_note_(run, "user %s: uid %u, gid %u, home %s, groups %s: /etc/passwd, shadow, group, gshadow (%s)",
				    name, uid, gid, home, list, run->way_why);
out:
	imgp_userdb_free_(&db);
	imgp_buf_free(&conf);
	free(home);
	free(shell);
	return rc;
}

int imgp_custom_plan_user_(struct custom_run *run, const char *value)
{
	int rc = user_add_record(run, value);

	if (rc)
		return rc;
	if (run->way == CUSTOM_WAY_CLOUDINIT)
		return imgp_custom_note_(run, "user %s: cloud-init's user-data (%s)", value,
				      run->way_why);
	if (run->preset_user && strcmp(run->preset_user, value) == 0)
		return imgp_custom_note_(run, "user %s: /root/.not_logged_in_yet PRESET_USER_NAME, made at root's first login (%s)",
				      value, run->way_why);
	rc = imgp_custom_rpios_takes_user_(run, run->users[run->nusers - 1].name);
	if (rc > 0)
		return imgp_custom_note_(run, "user %s: firstrun.sh, userconf renames uid 1000's user to it (%s)",
				      value, run->way_why);
	return rc < 0 ? rc : add_user_files(run, value);
}

/* ------------------------------------------------------------ passwords */

/* The image's hashing method, from its PAM and login.defs. */
static int image_crypt_method(struct custom_run *run, enum imgp_crypt_method *m)
{
	struct imgp_buf pam = { 0 }, defs = { 0 };
	bool e1 = false, e2 = false;
	int rc = imgp_custom_read_root_(run, "/etc/pam.d/common-password", &pam, &e1);

	if (!rc)
		rc = imgp_custom_read_root_(run, "/etc/login.defs", &defs, &e2);
	if (!rc)
		*m = imgp_crypt_method_of_(e1 ? (char *)pam.data : "", e2 ? (char *)defs.data : "");
	imgp_buf_free(&pam);
	imgp_buf_free(&defs);
	return rc;
}

/* A crypt(3) hash in text (a seed's user-data, a firstrun.sh) that password fits. */
static char *hash_in_text(const char *text, const char *password)
{
	for (const char *p = text; p; p = strchr(p + 1, '$')) {
		char *h;

		if (strncmp(p, "$y$", 3) && strncmp(p, "$6$", 3) && strncmp(p, "$5$", 3))
			continue;
		h = strndup(p, strcspn(p, "\"' \n"));
		if (h && imgp_password_matches_(password, h))
			return h;
		free(h);
	}
	return NULL;
}

/*
 * A hash already in the image that password still fits (so that a re-run
 * keeps it rather than salt it anew): user's shadow field, or one of the
 * hashes the cloud-init seed's user-data or firstrun.sh holds. malloc'd, or NULL.
 */
static char *current_hash(struct custom_run *run, const char *user, const char *password)
{
	struct imgp_buf text = { 0 };
	bool exists = false;
	char *found = NULL;
	size_t n = strlen(user);

	if (!imgp_custom_read_root_(run, "/etc/shadow", &text, &exists) && exists) {
		for (const char *line = (char *)text.data; *line && !found;) {
			size_t len = strcspn(line, "\n");

			if (len > n && strncmp(line, user, n) == 0 && line[n] == ':') {
				char *field = strndup(line + n + 1, strcspn(line + n + 1, ":\n"));
				const char *h = field && field[0] == '!' ? field + 1 : field;

				if (h && imgp_password_matches_(password, h))
					found = strdup(h);
				free(field);
			}
			line += len + (line[len] == '\n');
		}
	}
	if (!found && run->seed && !imgp_custom_read_(run, run->seed, "/user-data", &text, &exists) &&
	    exists)
		found = hash_in_text((char *)text.data, password);
	if (!found && run->boot && run->way == CUSTOM_WAY_RPIOS &&
	    !imgp_custom_read_(run, run->boot, "/firstrun.sh", &text, &exists) && exists)
		found = hash_in_text((char *)text.data, password);
	imgp_buf_free(&text);
	imgp_errclear_();
	return found;
}

/*
 * The shadow password field a selector gives (virt-customize(1)'s
 * selectors, less those that put a password on the command line).
 */
static int password_field(struct custom_run *run, const char *user, const char *sel,
			  char **out)
{
	bool locked = strncmp(sel, "locked:", 7) == 0;
	enum imgp_crypt_method m;
	struct imgp_buf pw = { 0 };
	char *hash = NULL;
	int rc = 0;

	*out = NULL;
	if (locked)
		sel += 7;
	if (strcmp(sel, "locked") == 0 || strcmp(sel, "disabled") == 0) {
		/* shadow(5): "!" no password login (a key still works), "*" none at all. */
		*out = strdup(sel[0] == 'l' ? "!" : "*");
		return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
	}
	if (strncmp(sel, "hash:", 5) == 0) {
		rc = imgp_crypt_hash_check_(sel + 5);
		hash = rc ? NULL : strdup(sel + 5);
	} else if (strncmp(sel, "file:", 5) == 0) {
		rc = imgp_read_local_(sel + 5, 4096, false, &pw);
		if (!rc) {
			size_t n = strcspn((char *)pw.data, "\r\n");

			pw.data[n] = '\0';
			if (!n)
				rc = imgp_fail(EINVAL, "%s: empty password", sel + 5);
		}
		if (!rc)
			hash = current_hash(run, user, (char *)pw.data);
		if (!rc && !hash)
			rc = image_crypt_method(run, &m);
		if (!rc && !hash)
			rc = imgp_password_hash_((char *)pw.data, m, &hash);
		explicit_bzero(pw.data, pw.cap);
		imgp_buf_free(&pw);
	} else if (strncmp(sel, "password:", 9) == 0) {
		return imgp_fail(EINVAL, "password:...: a password on the command line is seen by every user of the machine; put it in a file (file:FILE) or give its hash (hash:HASH)");
	} else {
		return imgp_fail(EINVAL, "%s: the selector is file:FILE, hash:HASH, locked, locked:file:FILE or disabled",
				 sel);
	}
	if (!rc && !hash)
		rc = imgp_fail(ENOMEM, "out of memory");
	if (!rc && locked && asprintf(out, "!%s", hash) < 0)
		rc = imgp_fail(ENOMEM, "out of memory");
	else if (!rc && !locked)
		*out = hash, hash = NULL;
	free(hash);
	return rc;
}

int imgp_custom_plan_password_(struct custom_run *run, const char *value)
{
	const char *colon = strchr(value, ':');
	char *user = strndup(value, (size_t)(colon - value)), *field = NULL;
	struct custom_user *added;
	struct imgp_userdb db;
	int rc = user ? imgp_custom_armbian_takes_password_(run, user, colon + 1)
		      : imgp_fail(ENOMEM, "out of memory");

	if (rc) {
		free(user);
		return rc < 0 ? rc : 0;
	}
	rc = password_field(run, user, colon + 1, &field);

	memset(&db, 0, sizeof(db));
	added = rc ? NULL : user_find(run, user);
	if (!rc && in_record(run, added)) {
		free(added->hash);
		added->hash = field;
		field = NULL;
		rc = imgp_custom_note_(run, "password %s: %s (hashed)", user,
				      run->way == CUSTOM_WAY_CLOUDINIT ? "cloud-init's user-data" :
				      "firstrun.sh, userconf");
		goto out;
	}
	if (!rc)
		rc = userdb_load(run, &db);
	if (!rc) {
		rc = imgp_userdb_set_hash_(&db, user, field);
		if (rc == -ENOENT)
			rc = imgp_fail(ENOENT, "%s: no such user in the image's /etc/passwd (add one with --user %s)",
				       user, user);
	}
	if (!rc)
		rc = userdb_store(run, &db);
	if (!rc && added) {
		free(added->hash);
		added->hash = field;
		field = NULL;
	}
	if (!rc)
		rc = imgp_custom_note_(run, "password %s: /etc/shadow (hashed)", user);
out:
	if (field)
		explicit_bzero(field, strlen(field));
	free(field);
	free(user);
	imgp_userdb_free_(&db);
	return rc;
}

/* ------------------------------------------------------------- SSH keys */

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/*
 * One authorized_keys line as sshd(8) reads it (no options before the
 * key): TYPE BASE64 [COMMENT], the blob's first string naming TYPE.
 */
static int key_check(const char *key, size_t len)
{
	const char *sp = memchr(key, ' ', len), *b64, *end;
	uint8_t head[64];
	size_t nhead = 0, tlen;
	unsigned bits = 0, acc = 0;

	if (!sp || sp == key)
		return imgp_fail(EINVAL, "%.*s: not an SSH public key (TYPE BASE64 [COMMENT])",
				 (int)(len > 40 ? 40 : len), key);
	tlen = (size_t)(sp - key);
	b64 = sp + 1;
	end = memchr(b64, ' ', (size_t)(key + len - b64));
	end = end ? end : key + len;
	for (const char *p = b64; p < end && *p != '=' && nhead < sizeof(head); p++) {
		int v = b64_value(*p);

		if (v < 0)
			return imgp_fail(EINVAL, "%.*s key: its base64 is damaged", (int)tlen, key);
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			head[nhead++] = (uint8_t)(acc >> bits);
		}
	}
	if (nhead < 4 || ((size_t)head[0] << 24 | (size_t)head[1] << 16 |
			  (size_t)head[2] << 8 | head[3]) != tlen ||
	    nhead < 4 + tlen || memcmp(head + 4, key, tlen) != 0)
		return imgp_fail(EINVAL, "%.*s: not an SSH public key (the key does not name its type)",
				 (int)(tlen > 40 ? 40 : tlen), key);
	return 0;
}

/* The keys a selector gives: one a line, blank and '#' lines dropped. */
static int keys_of(const char *sel, struct imgp_buf *keys)
{
	struct imgp_buf text = { 0 };
	int rc;

	if (strncmp(sel, "file:", 5) == 0)
		rc = imgp_read_local_(sel + 5, 1 << 20, false, &text);
	else if (strncmp(sel, "string:", 7) == 0)
		rc = imgp_buf_printf(&text, "%s", sel + 7) ? imgp_fail(ENOMEM, "out of memory") : 0;
	else
		rc = imgp_fail(EINVAL, "%s: the selector is file:KEY.pub or string:KEY", sel);
	for (const char *line = (char *)text.data; !rc && line && *line;) {
		size_t n = strcspn(line, "\n");
		size_t m = n && line[n - 1] == '\r' ? n - 1 : n;

		if (m && line[0] != '#') {
			rc = key_check(line, m);
			if (!rc)
				rc = imgp_buf_printf(keys, "%.*s\n", (int)m, line) ?
				     imgp_fail(ENOMEM, "out of memory") : 0;
		}
		line += n + (line[n] == '\n');
	}
	if (!rc && !keys->len)
		rc = imgp_fail(EINVAL, "%s: no key there", sel);
	imgp_buf_free(&text);
	return rc;
}

static int keys_into_record(struct custom_user *u, const struct imgp_buf *keys)
{
	for (const char *line = (char *)keys->data; line && *line;) {
		size_t n = strcspn(line, "\n");
		char **grown = realloc(u->keys, (u->nkeys + 1) * sizeof(*grown));

		if (!grown)
			return imgp_fail(ENOMEM, "out of memory");
		u->keys = grown;
		u->keys[u->nkeys] = strndup(line, n);
		if (!u->keys[u->nkeys++])
			return imgp_fail(ENOMEM, "out of memory");
		line += n + (line[n] == '\n');
	}
	return 0;
}

/* ~/.ssh/authorized_keys gains the keys it lacks; ~/.ssh 0700, the file 0600 (sshd's StrictModes). */
static int keys_into_home(struct custom_run *run, const char *user,
			  const struct imgp_buf *keys)
{
	struct imgp_userdb db;
	struct imgp_buf old = { 0 };
	unsigned uid = 0, gid = 0;
	char *home = NULL, *dir = NULL, *file = NULL;
	bool exists = false;
	int rc = userdb_load(run, &db);

	if (!rc) {
		rc = imgp_userdb_lookup_(&db, user, &uid, &gid, &home);
		if (rc == -ENOENT)
			rc = imgp_fail(ENOENT, "%s: no such user in the image's /etc/passwd (add one with --user %s)",
				       user, user);
	}
	if (!rc && (asprintf(&dir, "%s/.ssh", home) < 0 ||
		    asprintf(&file, "%s/.ssh/authorized_keys", home) < 0))
		rc = imgp_fail(ENOMEM, "out of memory");
	if (!rc)
		rc = imgp_custom_mkdir_p_(run, dir, 0700, uid, gid);
	if (!rc)
		rc = imgp_custom_read_root_(run, file, &old, &exists);
	if (!rc && old.len && old.data[old.len - 1] != '\n')
		rc = imgp_buf_printf(&old, "\n") ? imgp_fail(ENOMEM, "out of memory") : 0;
	for (const char *line = (char *)keys->data; !rc && *line;) {
		size_t n = strcspn(line, "\n");
		char *one = strndup(line, n);

		if (!one)
			rc = imgp_fail(ENOMEM, "out of memory");
		else if (!old.data || !strstr((char *)old.data, one))
			rc = imgp_buf_printf(&old, "%s\n", one) ? imgp_fail(ENOMEM, "out of memory") : 0;
		free(one);
		line += n + (line[n] == '\n');
	}
	if (!rc)
		rc = imgp_custom_put_(run, file, old.data, old.len, 0600, uid, gid, false, NULL);
	if (!rc)
		rc = imgp_custom_note_(run, "ssh-inject %s: %s", user, file);
	imgp_userdb_free_(&db);
	imgp_buf_free(&old);
	free(home);
	free(dir);
	free(file);
	return rc;
}

int imgp_custom_plan_ssh_inject_(struct custom_run *run, const char *value)
{
	const char *colon = strchr(value, ':');
	char *user = strndup(value, (size_t)(colon - value));
	struct imgp_buf keys = { 0 };
	struct custom_user *added;
	int rc = user ? keys_of(colon + 1, &keys) : imgp_fail(ENOMEM, "out of memory");

	added = rc ? NULL : user_find(run, user);
	if (!rc && in_record(run, added)) {
		rc = keys_into_record(added, &keys);
		if (!rc)
			rc = imgp_custom_note_(run, "ssh-inject %s: %s", user,
					      run->way == CUSTOM_WAY_CLOUDINIT ? "cloud-init's user-data" :
					      "firstrun.sh, imager_custom enable_ssh -k");
	} else if (!rc) {
		rc = keys_into_home(run, user, &keys);
	}
	imgp_buf_free(&keys);
	free(user);
	return rc;
}

/*
 * A user added here without a password can still use sudo, as Raspberry Pi
 * OS's first user (pi-gen stage2/01-sys-tweaks: 010_pi-nopasswd) and
 * Ubuntu's cloud default user can.
 */
int imgp_custom_plan_sudoers_(struct custom_run *run)
{
	int rc = 0, has = imgp_custom_exists_(run, "/etc/sudoers.d");

	if (has <= 0 || run->way == CUSTOM_WAY_CLOUDINIT)
		return has < 0 ? has : 0;
	for (size_t i = 0; !rc && i < run->nusers; i++) {
		char path[160], line[160];
		const char *h = run->users[i].hash;

		/* userconf's user keeps the first user's sudoers file, renamed. */
		if ((h && h[0] != '!' && h[0] != '*') || in_record(run, &run->users[i]))
			continue;
		snprintf(path, sizeof(path), "/etc/sudoers.d/90-imgpatch-%s", run->users[i].name);
		snprintf(line, sizeof(line), "%s ALL=(ALL) NOPASSWD: ALL\n", run->users[i].name);
		/* sudoers(5): read only when 0440 and root's. */
		rc = imgp_custom_put_(run, path, line, strlen(line), 0440, 0, 0, false, NULL);
		if (!rc)
			rc = imgp_custom_note_(run, "user %s: no password, so sudo without one: %s",
					    run->users[i].name, path);
	}
	return rc;
}
