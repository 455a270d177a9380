// SPDX-License-Identifier: MIT
/*
 * The account files and passwords (custom/custom-user.c, custom-crypt.c),
 * on Debian's own base files: base-passwd's passwd.master and
 * group.master, with shadow and gshadow made by pwconv and grpconv, and
 * this machine's login.defs and /etc/default/useradd. What the library
 * writes is checked by pwck and grpck, and compared byte for byte with
 * what the real `useradd --prefix` writes on a copy of the same root (as
 * root only; a counted skip otherwise). Hashes are checked by python3's
 * crypt module and openssl passwd, which call their own code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "custom/custom.h"
#include "unit.h"

/* 2023-11-14: day 19675, the change date every new shadow line gets. */
#define EPOCH "1700000000"
#define EPOCH_DAY "19675"

static const char *const acct_files[] = {
	"etc/passwd", "etc/shadow", "etc/group", "etc/gshadow",
	"etc/login.defs", "etc/default/useradd",
};

static struct imgp_buf *db_file(struct imgp_userdb *db, size_t i)
{
	struct imgp_buf *b[] = { &db->passwd, &db->shadow, &db->group, &db->gshadow,
				 &db->login_defs, &db->useradd_defaults };
	return b[i];
}

static char *root_path(const char *root, const char *rel)
{
	char *p = NULL;

	if (asprintf(&p, "%s/%s", root, rel) < 0)
		abort();
	return p;
}

/* Reads a root's account files (a missing one stays empty). */
static void db_load(const char *root, struct imgp_userdb *db)
{
	memset(db, 0, sizeof(*db));
	for (size_t i = 0; i < 6; i++) {
		char *p = root_path(root, acct_files[i]);
		size_t len;
		void *data = unit_read_file(p, &len);

		if (data)
			imgp_buf_append(db_file(db, i), data, len);
		free(data);
		free(p);
	}
}

static void db_save(const char *root, struct imgp_userdb *db)
{
	for (size_t i = 0; i < 4; i++) {
		char *p = root_path(root, acct_files[i]);
		struct imgp_buf *b = db_file(db, i);

		unit_write_file(p, b->data, b->len);
		free(p);
	}
}

static bool db_same(struct imgp_userdb *a, struct imgp_userdb *b)
{
	for (size_t i = 0; i < 6; i++) {
		struct imgp_buf *x = db_file(a, i), *y = db_file(b, i);

		if (x->len != y->len || (x->len && memcmp(x->data, y->data, x->len)))
			return false;
	}
	return true;
}

static void db_copy(struct imgp_userdb *from, struct imgp_userdb *to)
{
	memset(to, 0, sizeof(*to));
	for (size_t i = 0; i < 6; i++)
		imgp_buf_append(db_file(to, i), db_file(from, i)->data, db_file(from, i)->len);
}

/* The text of a buffer, NUL-terminated (a copy). */
static char *db_text(const struct imgp_buf *b)
{
	char *s = malloc(b->len + 1);

	if (b->len)
		memcpy(s, b->data, b->len);
	s[b->len] = '\0';
	return s;
}

/* The line of name in b, or NULL (malloc'd). */
static char *db_line(const struct imgp_buf *b, const char *name)
{
	char *text = db_text(b), *line, *save = NULL, *found = NULL;
	size_t nlen = strlen(name);

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, name, nlen) && line[nlen] == ':') {
			found = strdup(line);
			break;
		}
	free(text);
	return found;
}

static int run(const char *const argv[], const char *log)
{
	int rc = unit_spawn(argv, NULL, log);

	if (rc && log) {
		char *out = unit_read_file(log, NULL);

		printf("#   %s: exit %d: %s\n", argv[0], rc, out ? out : "");
		free(out);
	}
	return rc;
}

/*
 * pwconv, pwck and grpck chroot and useradd writes another root's files:
 * as root, or, for a user, in a user namespace of their own (unshare -r),
 * where they are root of nothing but their own files.
 */
static bool use_unshare;

static int run_root(const char *const argv[], const char *log)
{
	const char *v[16] = { "unshare", "-r" };
	size_t n = 2;

	if (!use_unshare)
		return run(argv, log);
	for (size_t i = 0; argv[i] && n < 15; i++)
		v[n++] = argv[i];
	v[n] = NULL;
	return run(v, log);
}

/*
 * What pwconv (grpconv) writes from a passwd (group) file: each line's
 * password field moved to a new shadow (gshadow) line ending in tail,
 * and 'x' in its place. For a user: pwconv gives the new files the
 * shadow group, which a user namespace does not have.
 */
static bool shadow_convert(const char *root, const char *rel, const char *shadow_rel,
			   const char *tail)
{
	char *p = root_path(root, rel), *sp = root_path(root, shadow_rel);
	char *text = unit_read_file(p, NULL), *line, *save = NULL;
	struct imgp_buf out = { 0 }, sh = { 0 };
	bool ok = text != NULL;

	for (line = ok ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t name = strcspn(line, ":"), pw;

		if (!line[name])
			continue;
		pw = strcspn(line + name + 1, ":");
		imgp_buf_printf(&sh, "%.*s%s\n", (int)(name + 1 + pw), line, tail);
		imgp_buf_printf(&out, "%.*s:x%s\n", (int)name, line, line + name + 1 + pw);
	}
	ok = ok && unit_write_file(p, out.data, out.len) == 0 &&
	     unit_write_file(sp, sh.data, sh.len) == 0;
	imgp_buf_free(&out);
	imgp_buf_free(&sh);
	free(text);
	free(sp);
	free(p);
	return ok;
}

/* A root of Debian's base account files, as base-passwd and shadow's tools make them. */
static bool root_make(const char *root)
{
	char *etc = root_path(root, "etc/default"), *p, *q;
	const char *mk[] = { "mkdir", "-p", etc, NULL };
	const char *const src[] = { "/usr/share/base-passwd/passwd.master",
				    "/usr/share/base-passwd/group.master", "/etc/login.defs",
				    "/etc/default/useradd" };
	const char *const dst[] = { "etc/passwd", "etc/group", "etc/login.defs",
				    "etc/default/useradd" };
	bool ok = run(mk, NULL) == 0;

	free(etc);
	for (size_t i = 0; ok && i < 4; i++) {
		const char *cp[] = { "cp", src[i], NULL, NULL };

		p = root_path(root, dst[i]);
		cp[2] = p;
		ok = run(cp, NULL) == 0;
		free(p);
	}
	p = root_path(root, "../pwconv.log");
	q = (char *)root;
	if (ok && !use_unshare) {
		const char *pwconv[] = { "pwconv", "-R", q, NULL };
		const char *grpconv[] = { "grpconv", "-R", q, NULL };

		ok = run(pwconv, p) == 0 && run(grpconv, p) == 0;
	} else if (ok) {
		/* Debian's login.defs ages, as pwconv takes them */
		ok = shadow_convert(root, "etc/passwd", "etc/shadow", ":" EPOCH_DAY ":0:99999:7:::") &&
		     shadow_convert(root, "etc/group", "etc/gshadow", "::");
	}
	free(p);
	return ok;
}

static bool root_copy(const char *from, const char *to)
{
	const char *rm[] = { "rm", "-rf", to, NULL };
	const char *cp[] = { "cp", "-a", from, to, NULL };

	return run(rm, NULL) == 0 && run(cp, NULL) == 0;
}

/* mkdir -p root/dir */
static void mkdir_in(const char *root, const char *dir)
{
	char *p = root_path(root, dir);
	const char *mk[] = { "mkdir", "-p", p, NULL };

	run(mk, NULL);
	free(p);
}

/*
 * pwck also checks that each home folder and shell is there: they are
 * made in the root, as the system's own packages would have them.
 */
static void root_fill_homes(const char *root, struct imgp_userdb *db)
{
	char *text = db_text(&db->passwd), *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[7] = { 0 }, *s = line;

		for (int i = 0; i < 7 && s; i++) {
			f[i] = s;
			s = strchr(s, ':');
			if (s)
				*s++ = '\0';
		}
		if (!f[6] || f[0][0] == '+' || f[0][0] == '-')
			continue;
		mkdir_in(root, f[5]);
		if (*f[6]) {
			char *dir = strdup(f[6]), *slash = strrchr(dir, '/'), *sh;

			if (slash && slash != dir) {
				*slash = '\0';
				mkdir_in(root, dir);
			}
			sh = root_path(root, f[6]);
			if (access(sh, F_OK)) {
				unit_write_text(sh, "#!/bin/sh\n");
				chmod(sh, 0755);
			}
			free(sh);
			free(dir);
		}
	}
	free(text);
}

/* pwck -r and grpck -r on root: both exit 0 (nothing to report). */
static bool root_checks_clean(const char *root, struct imgp_userdb *db)
{
	const char *pwck[] = { "pwck", "-r", "-R", root, NULL };
	const char *grpck[] = { "grpck", "-r", "-R", root, NULL };

	db_save(root, db);
	root_fill_homes(root, db);
	return run_root(pwck, unit_path("pwck.log")) == 0 &&
	       run_root(grpck, unit_path("grpck.log")) == 0;
}

/* The groups joined with ',' for useradd -G. */
static char *groups_csv(const char *const *g, size_t n)
{
	struct imgp_buf b = { 0 };

	for (size_t i = 0; i < n; i++)
		imgp_buf_printf(&b, "%s%s", i ? "," : "", g[i]);
	imgp_buf_append(&b, "", 1);
	return (char *)b.data;
}

/*
 * Adds name to a copy of base with the library and with useradd --prefix
 * -m -U -G; the four files must come out byte for byte the same, and
 * pwck/grpck must pass on the library's.
 */
static void compare_with_useradd(const char *base, const char *name,
				 const char *const *groups, size_t ngroups,
				 const char *what)
{
	char ours[256], theirs[256], msg[256];
	struct imgp_userdb db, real;
	struct imgp_user_add u = { .name = name, .groups = groups, .ngroups = ngroups };
	unsigned uid = 0, gid = 0;
	char *home = NULL;
	int rc;

	unit_path_keep(ours, sizeof(ours), "ours");
	unit_path_keep(theirs, sizeof(theirs), "theirs");
	db_load(base, &db);
	rc = imgp_userdb_add_(&db, &u, &uid, &gid, &home);
	snprintf(msg, sizeof(msg), "%s: the library adds %s", what, name);
	if (rc)
		printf("#   %s\n", imgp_errmsg());
	CHECK(rc == 0, msg);
	snprintf(msg, sizeof(msg), "%s: pwck -r and grpck -r pass", what);
	CHECK(root_copy(base, ours) && root_checks_clean(ours, &db), msg);
	snprintf(msg, sizeof(msg), "%s: the same files as useradd --prefix -m -U -G", what);
	{
		char *csv = groups_csv(groups, ngroups);
		const char *ua[] = { "useradd", "--prefix", theirs, "-m", "-U", "-G", csv, name,
				     NULL };
		const char *ua0[] = { "useradd", "--prefix", theirs, "-m", "-U", name, NULL };
		bool same;

		same = root_copy(base, theirs) &&
		       run_root(ngroups ? ua : ua0, unit_path("useradd.log")) == 0;
		db_load(theirs, &real);
		same = same && db_same(&db, &real);
		if (!same)
			for (size_t i = 0; i < 4; i++) {
				char *a = db_text(db_file(&db, i)), *b = db_text(db_file(&real, i));

				if (strcmp(a, b))
					printf("#   %s differs:\n#   ours:\n%s#   useradd's:\n%s",
					       acct_files[i], a, b);
				free(a);
				free(b);
			}
		CHECK(same, msg);
		imgp_userdb_free_(&real);
		free(csv);
	}
	imgp_userdb_free_(&db);
	free(home);
}

/* Appends text to a root's file. */
static void root_append(const char *root, const char *rel, const char *text)
{
	char *p = root_path(root, rel);
	size_t len = 0;
	char *old = unit_read_file(p, &len);
	struct imgp_buf b = { 0 };

	imgp_buf_append(&b, old, len);
	imgp_buf_append(&b, text, strlen(text));
	unit_write_file(p, b.data, b.len);
	imgp_buf_free(&b);
	free(old);
	free(p);
}

/*
 * A copy of base named dir (its path into out) with passwd and group
 * lines added, and the shadow and gshadow lines that go with them.
 */
static void root_with(const char *base, const char *dir, char out[256], const char *passwd,
		      const char *group)
{
	struct imgp_buf sp = { 0 }, sg = { 0 };
	char *text, *line, *save = NULL;

	unit_path_keep(out, 256, dir);
	root_copy(base, out);
	root_append(out, "etc/passwd", passwd);
	root_append(out, "etc/group", group);
	text = strdup(passwd);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		imgp_buf_printf(&sp, "%.*s:!:19000:0:99999:7:::\n", (int)strcspn(line, ":"), line);
	free(text);
	text = strdup(group);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		imgp_buf_printf(&sg, "%.*s:!::\n", (int)strcspn(line, ":"), line);
	free(text);
	imgp_buf_append(&sp, "", 1);
	imgp_buf_append(&sg, "", 1);
	root_append(out, "etc/shadow", (char *)sp.data);
	root_append(out, "etc/gshadow", (char *)sg.data);
	imgp_buf_free(&sp);
	imgp_buf_free(&sg);
}

/* Replaces a root's login.defs line that starts with key. */
static void root_set_def(const char *root, const char *key, const char *value)
{
	char *p = root_path(root, "etc/login.defs");
	char *text = unit_read_file(p, NULL), *line, *save = NULL;
	struct imgp_buf b = { 0 };

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, key, strlen(key)))
			imgp_buf_printf(&b, "%s\n", line);
	imgp_buf_printf(&b, "%s %s\n", key, value);
	unit_write_file(p, b.data, b.len);
	imgp_buf_free(&b);
	free(text);
	free(p);
}

static void check_add(const char *base)
{
	struct imgp_userdb db;
	const char *groups[IMGP_USER_GROUPS_MAX + 1];
	size_t n;
	char b2[256], b3[256], b4[256], *line;
	struct imgp_user_add u = { .name = "lab" };
	unsigned uid = 0, gid = 0;
	char *home = NULL;

	db_load(base, &db);
	n = imgp_user_first_groups_(&db, "debian", groups);
	u.groups = groups;
	u.ngroups = n;
	CHECK(imgp_userdb_add_(&db, &u, &uid, &gid, &home) == 0, "a user is added");
	CHECK(uid == 1000 && gid == 1000, "the first user gets uid and gid 1000");
	CHECK_STR(home, "/home/lab", "their home is HOME/NAME");
	line = db_line(&db.passwd, "lab");
	CHECK_STR(line, "lab:x:1000:1000::/home/lab:/bin/sh",
		  "passwd: SHELL of /etc/default/useradd");
	free(line);
	line = db_line(&db.shadow, "lab");
	CHECK_STR(line, "lab:!:" EPOCH_DAY ":0:99999:7:::",
		  "shadow: locked, dated SOURCE_DATE_EPOCH, ages of login.defs");
	free(line);
	line = db_line(&db.group, "sudo");
	CHECK_STR(line, "sudo:x:27:lab", "group: the user is in sudo");
	free(line);
	line = db_line(&db.gshadow, "audio");
	CHECK_STR(line, "audio:*::lab", "gshadow: the user is a member of audio");
	free(line);
	line = db_line(&db.gshadow, "lab");
	CHECK_STR(line, "lab:!::", "gshadow: the user's own group");
	free(line);
	free(home);
	imgp_userdb_free_(&db);

	compare_with_useradd(base, "lab", groups, n, "Debian's base files");

	/* ids in use with a gap, the preferred gid taken by another group */
	root_with(base, "base-gap", b2, "ann:x:1000:1000::/home/ann:/bin/sh\n"
		  "bob:x:1005:1005::/home/bob:/bin/sh\n", "ann:x:1000:\nbob:x:1005:\nlabs:x:1006:\n");
	compare_with_useradd(b2, "cat", groups, n, "one above the highest; gid taken");

	/* the top of the range taken: the lowest free id */
	root_with(base, "base-top", b3, "ann:x:1000:1000::/home/ann:/bin/sh\n"
		  "top:x:60000:60000::/home/top:/bin/sh\n", "ann:x:1000:\ntop:x:60000:\nx1:x:1001:\n");
	compare_with_useradd(b3, "dan", NULL, 0, "UID_MAX taken, the lowest free id");

	/* the image's own ranges and defaults */
	unit_path_keep(b4, sizeof(b4), "base-defs");
	root_copy(base, b4);
	root_set_def(b4, "UID_MIN", "2000");
	root_set_def(b4, "GID_MIN", "3000");
	root_set_def(b4, "PASS_MAX_DAYS", "\"90\"");
	root_append(b4, "etc/default/useradd", "HOME=/srv/users\nSHELL=/bin/bash\nINACTIVE=5\n");
	compare_with_useradd(b4, "eve", groups, n, "login.defs and /etc/default/useradd of the image");
}

static void check_existing(const char *base)
{
	struct imgp_userdb db, before;
	const char *adm[] = { "adm", "nosuchgroup" };
	struct imgp_user_add u = { .name = "lab", .groups = adm, .ngroups = 2 };
	struct imgp_user_add first = { .name = "lab" };
	unsigned uid = 0, gid = 0;
	char *home = NULL, *line;
	int rc;

	db_load(base, &db);
	imgp_userdb_add_(&db, &first, NULL, NULL, NULL);
	db_copy(&db, &before);
	rc = imgp_userdb_add_(&db, &u, &uid, &gid, &home);
	CHECK(rc == 0 && uid == 1000 && gid == 1000, "a user already there keeps uid and gid");
	CHECK_STR(home, "/home/lab", "and their home");
	free(home);
	CHECK(db.passwd.len == before.passwd.len && !memcmp(db.passwd.data, before.passwd.data,
							     db.passwd.len),
	      "passwd is unchanged");
	CHECK(db.shadow.len == before.shadow.len, "shadow is unchanged (no hash given)");
	line = db_line(&db.group, "adm");
	CHECK_STR(line, "adm:x:4:lab", "the user gains a group");
	free(line);
	line = db_line(&db.gshadow, "adm");
	CHECK_STR(line, "adm:*::lab", "and its gshadow membership");
	free(line);
	imgp_userdb_free_(&before);
	db_copy(&db, &before);
	CHECK(imgp_userdb_add_(&db, &u, NULL, NULL, NULL) == 0 && db_same(&db, &before),
	      "added again: nothing changes");
	CHECK(root_checks_clean(unit_path("ours"), &db), "pwck and grpck pass after both");
	imgp_userdb_free_(&before);
	imgp_userdb_free_(&db);
}

/* A refusal: rc, a message naming what, and db byte-identical. */
static void expect_refused(struct imgp_userdb *db, const struct imgp_user_add *u, int want,
			   const char *needle, const char *name)
{
	struct imgp_userdb before;
	char same[200];
	int rc;

	snprintf(same, sizeof(same), "%s: the files are unchanged", name);
	db_copy(db, &before);
	rc = imgp_userdb_add_(db, u, NULL, NULL, NULL);
	if (rc != want || !strstr(imgp_errmsg(), needle))
		printf("#   rc %d, want %d; message '%s', want '%s' in it\n", rc, want,
		       imgp_errmsg(), needle);
	CHECK(rc == want && strstr(imgp_errmsg(), needle), name);
	CHECK(db_same(db, &before), same);
	imgp_userdb_free_(&before);
}

static void with_file(const char *base, size_t file, const char *text, size_t len,
		      struct imgp_userdb *db)
{
	db_load(base, db);
	imgp_buf_free(db_file(db, file));
	imgp_buf_append(db_file(db, file), text, len);
}

/* Account files that do not read, each with the message it gets. */
#define TEXT(s) s, sizeof(s) - 1
static const struct {
	size_t file;             /* acct_files[] */
	const char *text;
	size_t len;
	const char *needle, *name;
} bad_files[] = {
	{ 0, TEXT("root:x:0:0:root:/root\n"), "/etc/passwd line 1: 6 fields, not 7",
	  "a passwd line with 6 fields" },
	{ 0, TEXT("root:x:0:0:root:/root:/bin/sh\nx:x:1e3:0::/:/bin/sh\n"),
	  "/etc/passwd line 2: field 3 is not a number", "a uid that is not a number" },
	{ 0, TEXT("root:x:0:0:root:/root:/bin/sh\nx:x:4294967295:0::/:/bin/sh\n"),
	  "line 2: field 3", "uid (uid_t)-1 is no uid" },
	{ 0, TEXT("root:x:0:0:root:/root:/bin/sh\nx:x:1:99999999999::/:/bin/sh\n"),
	  "line 2: field 4", "a gid over 32 bits" },
	{ 2, TEXT("root:x:0:\na:x:5\0:\n"), "/etc/group: a NUL byte", "a NUL byte in group" },
	{ 2, TEXT("root:x:zero:\n"), "/etc/group line 1: field 3 is not a number",
	  "a gid that is not a number" },
	{ 1, TEXT("root:*:1:2\n"), "/etc/shadow line 1: 4 fields, not 9", "a short shadow line" },
	{ 3, TEXT("root:*:\n"), "/etc/gshadow line 1: 3 fields, not 4", "a short gshadow line" },
};

static void check_refused(const char *base)
{
	struct imgp_userdb db;
	struct imgp_user_add u = { .name = "lab" };

	db_load(base, &db);
	imgp_buf_append(&db.group, "lab:x:1500:\n", 12);
	expect_refused(&db, &u, -EEXIST, "group 'lab' is there already",
		       "a group of the new user's name: refused as useradd -U does");
	imgp_userdb_free_(&db);

	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		with_file(base, bad_files[i].file, bad_files[i].text, bad_files[i].len, &db);
		expect_refused(&db, &u, -EINVAL, bad_files[i].needle, bad_files[i].name);
		imgp_userdb_free_(&db);
	}

	db_load(base, &db);
	u.gecos = "Lab:0:0";
	expect_refused(&db, &u, -EINVAL, "full name: a ':'", "a full name with ':'");
	u.gecos = NULL;
	u.hash = "$6$x$y\nroot::0:0:::::";
	expect_refused(&db, &u, -EINVAL, "password field", "a hash with a newline");
	u.hash = "";
	expect_refused(&db, &u, -EINVAL, "empty password field", "an empty password field");
	u.hash = NULL;
	u.shell = "bin/sh";
	expect_refused(&db, &u, -EINVAL, "shell is not an absolute path", "a relative shell");
	u.shell = NULL;
	u.name = "a:b";
	expect_refused(&db, &u, -EINVAL, "useradd refuses it", "a name useradd refuses");
	u.name = "lab";
	setenv("SOURCE_DATE_EPOCH", "soon", 1);
	expect_refused(&db, &u, -EINVAL, "SOURCE_DATE_EPOCH", "a bad SOURCE_DATE_EPOCH");
	setenv("SOURCE_DATE_EPOCH", EPOCH, 1);
	imgp_userdb_free_(&db);

	db_load(base, &db);
	imgp_buf_append(&db.login_defs, "UID_MIN 5000\nUID_MAX 4000\n", 26);
	expect_refused(&db, &u, -EINVAL, "UID_MIN (5000) is above UID_MAX (4000)",
		       "UID_MIN above UID_MAX");
	imgp_userdb_free_(&db);
	db_load(base, &db);
	imgp_buf_append(&db.login_defs, "UID_MIN 1000\nUID_MAX 1001\n", 26);
	imgp_buf_append(&db.passwd, "a:x:1000:1000::/home/a:/bin/sh\nb:x:1001:1001::/home/b:/bin/sh\n", 62);
	expect_refused(&db, &u, -ENOSPC, "every id of UID_MIN..UID_MAX (1000..1001) is taken",
		       "no free uid");
	imgp_userdb_free_(&db);
	db_load(base, &db);
	imgp_buf_append(&db.useradd_defaults, "EXPIRE=next week\n", 17);
	expect_refused(&db, &u, -EINVAL, "EXPIRE is not a date", "an EXPIRE that is no date");
	imgp_userdb_free_(&db);
}

static void check_nis_and_ends(const char *base)
{
	struct imgp_userdb db;
	struct imgp_user_add u = { .name = "lab" };
	char *text;

	db_load(base, &db);
	imgp_buf_free(&db.passwd);
	imgp_buf_append(&db.passwd, "root:x:0:0:root:/root:/bin/bash\n+::::::\n", 40);
	imgp_buf_free(&db.group);
	imgp_buf_append(&db.group, "root:x:0:", 9);   /* no final newline */
	CHECK(imgp_userdb_add_(&db, &u, NULL, NULL, NULL) == 0, "NIS: added");
	text = db_text(&db.passwd);
	CHECK_STR(text, "root:x:0:0:root:/root:/bin/bash\nlab:x:1000:1000::/home/lab:/bin/sh\n+::::::\n",
		  "NIS: the new line goes before the '+' line, as commonio puts it");
	free(text);
	text = db_text(&db.group);
	CHECK_STR(text, "root:x:0:\nlab:x:1000:\n", "a file without a final newline gets one");
	free(text);
	imgp_userdb_free_(&db);

	/* a stale shadow line of a user passwd lacks: replaced whole, as spw_update does */
	db_load(base, &db);
	imgp_buf_append(&db.shadow, "lab:$6$x$y:1:2:3:4:5:6:\n", 24);
	imgp_buf_append(&db.gshadow, "lab:old:root:root\n", 18);
	CHECK(imgp_userdb_add_(&db, &u, NULL, NULL, NULL) == 0, "stale lines: added");
	text = db_text(&db.shadow);
	CHECK(strstr(text, "\nlab:!:" EPOCH_DAY ":0:99999:7:::\n") && !strstr(text, "$6$x$y"),
	      "stale lines: shadow's replaced by the new user's");
	free(text);
	text = db_text(&db.gshadow);
	CHECK(strstr(text, "\nlab:!::\n") && !strstr(text, "lab:old"),
	      "stale lines: gshadow's too");
	free(text);
	imgp_userdb_free_(&db);

	memset(&db, 0, sizeof(db));
	CHECK(imgp_userdb_add_(&db, &u, NULL, NULL, NULL) == 0,
	      "empty files and no login.defs: useradd's compiled defaults");
	text = db_text(&db.passwd);
	CHECK_STR(text, "lab:x:1000:1000::/home/lab:/bin/bash\n",
		  "no /etc/default/useradd: HOME /home, SHELL /bin/bash (Debian's 502 patch)");
	free(text);
	text = db_text(&db.shadow);
	CHECK_STR(text, "lab:!:" EPOCH_DAY "::::::\n", "no login.defs: no ages");
	free(text);
	imgp_userdb_free_(&db);
}

static void check_hash_lookup(const char *base)
{
	struct imgp_userdb db, before;
	struct imgp_user_add u = { .name = "lab" };
	const char *h = "$6$abcdefgh$KQeXafAQAaOoKTevphVU215RvJdgzyfASRasIOuh12hO8u0r1bGW92ZnTmC9IjsiQ8VPiTXBiZF49dFL1U4wX/";
	unsigned uid = 0, gid = 0;
	char *home = NULL, *line, want[256];
	int rc;

	db_load(base, &db);
	imgp_userdb_add_(&db, &u, NULL, NULL, NULL);
	setenv("SOURCE_DATE_EPOCH", "1700864000", 1);   /* ten days on */
	CHECK(imgp_userdb_set_hash_(&db, "lab", h) == 0, "set_hash: done");
	setenv("SOURCE_DATE_EPOCH", EPOCH, 1);
	line = db_line(&db.shadow, "lab");
	snprintf(want, sizeof(want), "lab:%s:19685:0:99999:7:::", h);
	CHECK_STR(line, want, "set_hash: the field is set and the change dated");
	free(line);
	CHECK(imgp_userdb_set_hash_(&db, "lab", "!") == 0, "set_hash: locked");
	line = db_line(&db.shadow, "lab");
	CHECK_STR(line, "lab:!:19685:0:99999:7:::", "set_hash: locking keeps the date");
	free(line);
	db_copy(&db, &before);
	rc = imgp_userdb_set_hash_(&db, "nobody-here", h);
	CHECK(rc == -ENOENT && strstr(imgp_errmsg(), "no user 'nobody-here'") &&
	      db_same(&db, &before), "set_hash: no such user");
	rc = imgp_userdb_set_hash_(&db, "-\x1b[2J", h);
	CHECK(rc == -EINVAL && !strchr(imgp_errmsg(), '\x1b') && db_same(&db, &before),
	      "set_hash: a name with a control character is refused, never quoted");
	rc = imgp_userdb_set_hash_(&db, "lab", "a:b");
	CHECK(rc == -EINVAL && db_same(&db, &before), "set_hash: a ':' is refused");
	imgp_userdb_free_(&before);
	/* a user that has no shadow line gets one; passwd then says 'x' */
	imgp_buf_append(&db.passwd, "old:oldhash:1200:1200::/home/old:/bin/sh\n", 41);
	CHECK(imgp_userdb_set_hash_(&db, "old", h) == 0, "set_hash: a user without shadow");
	line = db_line(&db.passwd, "old");
	CHECK_STR(line, "old:x:1200:1200::/home/old:/bin/sh", "set_hash: passwd says 'x'");
	free(line);
	line = db_line(&db.shadow, "old");
	snprintf(want, sizeof(want), "old:%s:" EPOCH_DAY ":0:99999:7:::", h);
	CHECK_STR(line, want, "set_hash: a shadow line as useradd writes one");
	free(line);
	rc = imgp_userdb_lookup_(&db, "lab", &uid, &gid, &home);
	CHECK(rc == 0 && uid == 1000 && gid == 1000, "lookup: uid and gid");
	CHECK_STR(home, "/home/lab", "lookup: home");
	free(home);
	CHECK(imgp_userdb_lookup_(&db, "nobody-here", &uid, &gid, &home) == -ENOENT,
	      "lookup: no such user");
	imgp_userdb_free_(&db);
}

static bool groups_are(const char *const *got, const char *want)
{
	char buf[512] = "";

	for (size_t i = 0; got[i]; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
			 got[i]);
	if (strcmp(buf, want))
		printf("#   got '%s', want '%s'\n", buf, want);
	return !strcmp(buf, want);
}

static void check_first_groups(const char *base)
{
	struct imgp_userdb db;
	const char *g[IMGP_USER_GROUPS_MAX + 1];
	const char *extra = "lxd:x:110:\nnetdev:x:111:\ngpio:x:997:\ni2c:x:998:\nspi:x:999:\n"
			    "render:x:105:\ninput:x:104:\nlpadmin:x:112:\nbluetooth:x:113:\n";

	db_load(base, &db);
	CHECK(imgp_user_first_groups_(&db, "debian", g) == 7 &&
	      groups_are(g, "audio cdrom dip floppy video plugdev sudo"),
	      "Debian, on base-passwd's groups: those of user-setup it has, and sudo");
	CHECK(groups_are((imgp_user_first_groups_(&db, "ubuntu", g), g), "adm cdrom dip sudo"),
	      "Ubuntu: cloud-init's default_user groups the file has");
	imgp_buf_append(&db.group, extra, strlen(extra));
	CHECK(groups_are((imgp_user_first_groups_(&db, "ubuntu", g), g), "adm cdrom dip lxd sudo"),
	      "Ubuntu with lxd");
	CHECK(groups_are((imgp_user_first_groups_(&db, "raspbian", g), g),
			 "adm dialout cdrom audio users sudo video games plugdev input gpio spi i2c netdev render"),
	      "Raspberry Pi OS: pi-gen's list");
	CHECK(groups_are((imgp_user_first_groups_(&db, "fedora", g), g),
			 "audio cdrom dip floppy video plugdev netdev bluetooth lpadmin sudo"),
	      "an unknown distribution: Debian's");
	CHECK(groups_are((imgp_user_first_groups_(&db, NULL, g), g),
			 "audio cdrom dip floppy video plugdev netdev bluetooth lpadmin sudo"),
	      "no ID: Debian's");
	imgp_userdb_free_(&db);
	memset(&db, 0, sizeof(db));
	imgp_buf_append(&db.group, "audio:x:29:\nvideo:x:44:\n", 24);
	CHECK(imgp_user_first_groups_(&db, "debian", g) == 2 && groups_are(g, "audio video"),
	      "no sudo group: the rest, the caller decides");
	imgp_userdb_free_(&db);
}

/* Names, judged by the library and by useradd --prefix on a scratch root. */
static void check_names(const char *base)
{
	static const struct {
		const char *name;
		bool ok;          /* the library's verdict */
		bool stricter;    /* useradd takes it; refused here on purpose */
	} names[] = {
		{ "lab", true, false }, { "Lab.User_2", true, false }, { "1234", true, false },
		{ "smb$", true, false }, { "a$b", true, false }, { "a-", true, false },
		{ "j\xc3\xa9r\xc3\xb4me", true, false },
		{ "abcdefghijklmnopqrstuvwxyz012345", true, false },   /* 32 */
		{ "abcdefghijklmnopqrstuvwxyz0123456", false, false }, /* 33 */
		{ "-lab", false, false }, { "+lab", false, false }, { "~lab", false, false },
		{ "a:b", false, false }, { "a,b", false, false }, { "a b", false, false },
		{ "a\tb", false, false }, { "a\nb", false, false },
		{ "a\x01" "b", false, false },   /* useradd fails writing it */
		{ "a/b", false, true }, { ".", false, true }, { "..", false, true },
	};
	char scratch[256], msg[160];

	unit_path_keep(scratch, sizeof(scratch), "names");
	CHECK(imgp_user_name_check_("") == -EINVAL, "name: empty is refused");
	root_copy(base, scratch);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		bool ok = imgp_user_name_check_(names[i].name) == 0;

		snprintf(msg, sizeof(msg), "name %zu (%zu bytes): %s", i, strlen(names[i].name),
			 names[i].ok ? "taken" : "refused");
		CHECK(ok == names[i].ok, msg);
		snprintf(msg, sizeof(msg), "name %zu: useradd %s", i,
			 names[i].ok || names[i].stricter ? "takes it too" : "refuses it too");
		{
			const char *ua[] = { "useradd", "--prefix", scratch, "-U", "--",
					     names[i].name, NULL };
			/* no log: useradd's message would echo the name's newline */
			bool taken = run_root(ua, NULL) == 0;

			CHECK(taken == (names[i].ok || names[i].stricter), msg);
		}
	}
}

/* python3 -c 'crypt.crypt(stdin, hash) == hash' */
static bool python_verifies(const char *password, const char *hash)
{
	const char *py[] = { "python3", "-W", "ignore", "-c",
			     "import crypt, sys\n"
			     "pw = sys.stdin.read()\n"
			     "sys.exit(0 if crypt.crypt(pw, sys.argv[1]) == sys.argv[1] else 1)",
			     hash, NULL };

	unit_write_text(unit_path("pw"), password);
	return unit_spawn(py, unit_path("pw"), NULL) == 0;
}

/* openssl passwd -6 -salt SALT of password: what it prints, without the newline. */
static char *openssl_sha512(const char *password, const char *salt)
{
	const char *ssl[] = { "openssl", "passwd", "-6", "-salt", salt, "-stdin", NULL };
	char *out;
	size_t len;

	unit_write_text(unit_path("pw"), password);
	if (unit_spawn(ssl, unit_path("pw"), unit_path("ssl.out")))
		return NULL;
	out = unit_read_file(unit_path("ssl.out"), &len);
	if (out && len && out[len - 1] == '\n')
		out[len - 1] = '\0';
	return out;
}

static void check_crypt(void)
{
	char *y1 = NULL, *y2 = NULL, *s = NULL, *ssl, salt[17], tool[256];
	const char *pw = "correct horse b\xc3\xa4ttery";
	char *pam = unit_read_file("/etc/pam.d/common-password", NULL);
	static const char *const bad[] = {
		"", "hunter2", "$6$", "$6$abc$short", "$1$abcdefgh$1b3G6b3G6b3G6b3G6b3G6.",
		"$2b$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui",
		"$6$rounds=12$abcdefgh$KQeXafAQAaOoKTevphVU215RvJdgzyfASRasIOuh12hO8u0r1bGW92ZnTmC9IjsiQ8VPiTXBiZF49dFL1U4wX/",
		"$6$abcdefgh$KQeXafAQAaOoKTevphVU215RvJdgzyfASRasIOuh12hO8u0r1bGW92ZnTmC9IjsiQ8VPiTXBiZF49dFL1U4wX",
		"$6$abcdefgh$KQeXafAQAaOoKTevphVU215RvJdgzyfASRasIOuh12hO8u0r1bGW92ZnTmC9IjsiQ8VPiTXBiZF49dFL1U4wX/:",
		"$6$ab:cd$KQeXafAQAaOoKTevphVU215RvJdgzyfASRasIOuh12hO8u0r1bGW92ZnTmC9IjsiQ8VPiTXBiZF49dFL1U4wX/",
		"$6$abcdefghijklmnopq$KQeXafAQAaOoKTevphVU215RvJdgzyfASRasIOuh12hO8u0r1bGW92ZnTmC9IjsiQ8VPiTXBiZF49dFL1U4wX/",
		"$y$j9T$F5Jx5fExrKuPp53xLKQ..1$U4SOHmDd8SvW5vCUKSMR6N835VPwFAtgYNhQ9mFFeL",
		"$y$j9T$F5Jx5fExrKuPp53xLKQ..1$U4SOHmDd8SvW5vCUKSMR6N835VPwFAtgYNhQ9mFFeL5\n",
		"$y$$F5Jx5fExrKuPp53xLKQ..1$U4SOHmDd8SvW5vCUKSMR6N835VPwFAtgYNhQ9mFFeL5",
		"$y$j9T$F5Jx5fEx!KuPp53xLKQ..1$U4SOHmDd8SvW5vCUKSMR6N835VPwFAtgYNhQ9mFFeL5",
		"$5$abcdefgh$ijtOJ//yvc/9bq1g0llFn9dB688BwBDRD90DlKKSKE",
	};
	bool all = true;

	/* the method */
	CHECK(!pam || imgp_crypt_method_of_(pam, NULL) == IMGP_CRYPT_YESCRYPT,
	      "method: this Debian 12's common-password says yescrypt");
	free(pam);
	CHECK(imgp_crypt_method_of_("password\t[success=1 default=ignore]\tpam_unix.so obscure yescrypt\n",
				   "ENCRYPT_METHOD SHA512\n") == IMGP_CRYPT_YESCRYPT,
	      "method: pam_unix's option before login.defs (a control with a blank)");
	CHECK(imgp_crypt_method_of_("password required /lib/x86_64-linux-gnu/security/pam_unix.so sha512 # yescrypt\n",
				   "ENCRYPT_METHOD YESCRYPT\n") == IMGP_CRYPT_SHA512,
	      "method: sha512 with the module's path; a comment is no option");
	CHECK(imgp_crypt_method_of_("#password required pam_unix.so yescrypt\n"
				   "password required pam_unix.so obscure\n",
				   "# ENCRYPT_METHOD SHA512\nENCRYPT_METHOD  \"YESCRYPT\"\n") == IMGP_CRYPT_YESCRYPT,
	      "method: no option on pam_unix's line, login.defs' ENCRYPT_METHOD");
	CHECK(imgp_crypt_method_of_("auth required pam_unix.so yescrypt\n", "ENCRYPT_METHOD SHA512\n") ==
		      IMGP_CRYPT_SHA512,
	      "method: an auth line is not the password's");
	CHECK(imgp_crypt_method_of_("password required pam_unix.so yescrypt sha512\n", NULL) ==
		      IMGP_CRYPT_SHA512, "method: the last option wins, as in pam_unix");
	CHECK(imgp_crypt_method_of_("password required pam_unix.so.bak yescrypt\n", NULL) ==
		      IMGP_CRYPT_SHA512, "method: another module's options are not read");
	CHECK(imgp_crypt_method_of_(NULL, NULL) == IMGP_CRYPT_SHA512,
	      "method: neither file: SHA-512");

	/* hashing */
	CHECK(imgp_password_hash_(pw, IMGP_CRYPT_YESCRYPT, &y1) == 0 &&
	      imgp_password_hash_(pw, IMGP_CRYPT_YESCRYPT, &y2) == 0, "yescrypt: hashed");
	CHECK(y1 && !strncmp(y1, "$y$j9T$", 7), "yescrypt: libxcrypt's default cost, as passwd makes it");
	CHECK(y1 && y2 && strcmp(y1, y2), "yescrypt: a fresh salt each time");
	CHECK(y1 && imgp_crypt_hash_check_(y1) == 0, "yescrypt: the hash passes the check");
	CHECK(imgp_password_hash_(pw, IMGP_CRYPT_SHA512, &s) == 0 && s && !strncmp(s, "$6$", 3) &&
	      strlen(s) == 3 + 16 + 1 + 86, "SHA-512: 5000 rounds (no rounds=), a 16-character salt");
	CHECK(s && imgp_crypt_hash_check_(s) == 0, "SHA-512: the hash passes the check");
	if (unit_find_tool("python3", tool, sizeof(tool))) {
		CHECK(y1 && python_verifies(pw, y1), "yescrypt: python3's crypt takes the password");
		CHECK(y1 && !python_verifies("correct horse battery", y1),
		      "yescrypt: and not another one");
		CHECK(s && python_verifies(pw, s), "SHA-512: python3's crypt takes the password");
	} else {
		SKIP_TOOL("yescrypt: python3's crypt takes the password", "python3");
		SKIP_TOOL("yescrypt: and not another one", "python3");
		SKIP_TOOL("SHA-512: python3's crypt takes the password", "python3");
	}
	if (unit_find_tool("openssl", tool, sizeof(tool)) && s) {
		memcpy(salt, s + 3, 16);
		salt[16] = '\0';
		ssl = openssl_sha512(pw, salt);
		CHECK_STR(ssl, s, "SHA-512: openssl passwd -6 with the same salt makes the same hash");
		free(ssl);
		ssl = openssl_sha512("x", "abcdefgh");
		CHECK(ssl && imgp_crypt_hash_check_(ssl) == 0, "openssl's $6$ passes the check");
		free(ssl);
	} else {
		SKIP_TOOL("SHA-512: openssl passwd -6 with the same salt makes the same hash", "openssl");
		SKIP_TOOL("openssl's $6$ passes the check", "openssl");
	}
	free(y2);
	CHECK(imgp_password_hash_("", IMGP_CRYPT_YESCRYPT, &y2) == -EINVAL && !y2,
	      "an empty password is refused");
	CHECK(!strstr(imgp_errmsg(), pw), "no message holds the password");
	free(y1);
	free(s);

	/* real hashes of other makers, and garbage */
	CHECK(imgp_crypt_hash_check_("$y$j9T$F5Jx5fExrKuPp53xLKQ..1$U4SOHmDd8SvW5vCUKSMR6N835VPwFAtgYNhQ9mFFeL5") == 0,
	      "check: python3's yescrypt hash");
	CHECK(imgp_crypt_hash_check_("$5$abcdefgh$ijtOJ//yvc/9bq1g0llFn9dB688BwBDRD90DlKKSKE1") == 0,
	      "check: openssl's $5$ (legacy in libxcrypt, still read at login)");
	CHECK(imgp_crypt_hash_check_("$6$rounds=10000$saltsalt$BlEC2vxHYlhrhUhfBHpvxx2lBHwNhJYtpcY7g2BtmgXPJpcFuRAtNBYnQkhLjexkrGu2o.yzQgw/8.eBHd63.1") == 0,
	      "check: python3's $6$ with rounds=");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (imgp_crypt_hash_check_(bad[i]) != -EINVAL) {
			printf("#   taken: bad[%zu]\n", i);
			all = false;
		}
	CHECK(all, "check: garbage, other methods, cut or padded hashes are refused");
	CHECK(imgp_crypt_hash_check_(NULL) == -EINVAL, "check: no hash");
}

int main(void)
{
	char base[256];
	const char *path = getenv("PATH");
	char newpath[4096];
	static const char *const tools[] = { "pwconv", "grpconv", "pwck", "grpck", "useradd",
					     "cp", "mkdir", "unshare" };

	snprintf(newpath, sizeof(newpath), "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	setenv("PATH", newpath, 1);
	setenv("LC_ALL", "C", 1);
	setenv("TZ", "UTC", 1);
	setenv("SOURCE_DATE_EPOCH", EPOCH, 1);
	if (unit_tmpdir_create("custom-user")) {
		CHECK(0, "temporary directory");
		return unit_done();
	}
	check_crypt();
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char file[256];

		if (!unit_find_tool(tools[i], file, sizeof(file))) {
			SKIP_TOOL("account files on Debian's base files", tools[i]);
			unit_tmpdir_remove();
			return unit_done();
		}
	}
	if (access("/usr/share/base-passwd/passwd.master", R_OK)) {
		SKIP_TOOL("account files on Debian's base files", "base-passwd");
		unit_tmpdir_remove();
		return unit_done();
	}
	if (geteuid()) {
		const char *probe[] = { "unshare", "-r", "true", NULL };

		use_unshare = true;
		if (run(probe, NULL)) {
			unit_count++;
			printf("ok %d - account files # SKIP neither root nor a user namespace (unshare -r)\n",
			       unit_count);
			unit_tmpdir_remove();
			return unit_done();
		}
	}
	unit_path_keep(base, sizeof(base), "base");
	CHECK(root_make(base), "a root of base-passwd's files, pwconv and grpconv");
	check_add(base);
	check_existing(base);
	check_refused(base);
	check_nis_and_ends(base);
	check_hash_lookup(base);
	check_first_groups(base);
	check_names(base);
	unit_tmpdir_remove();
	return unit_done();
}
