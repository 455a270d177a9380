// SPDX-License-Identifier: MIT
/*
 * The links of enable, disable and mask (custom-units.c), proven against
 * the real `systemctl --root=COPY` (systemd 252): each case builds a root
 * with real unit files (this machine's, and openssh-server's ssh.service
 * as Debian 12 ships it), runs systemctl on one copy and the library on
 * another, and compares the links systemctl made or removed with the
 * list the library returns. The root is read through callbacks that
 * refuse to follow a link, as the plan's are.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "custom/custom.h"
#include "unit.h"

/* openssh-server 1:9.2p1-2+deb12u10, lib/systemd/system/ssh.service: its [Install]. */
#define SSH_SERVICE                                                           \
	"[Unit]\nDescription=OpenBSD Secure Shell server\n"                   \
	"After=network.target auditd.service\n\n"                             \
	"[Service]\nExecStart=/usr/sbin/sshd -D $SSHD_OPTS\nType=notify\n\n"   \
	"[Install]\nWantedBy=multi-user.target\nAlias=sshd.service\n"

/* Units of this machine's systemd 252 (and apt) copied into each root. */
static const char *const host_units[] = {
	"systemd-networkd.service", "systemd-networkd.socket",
	"systemd-networkd-wait-online.service", "systemd-network-generator.service",
	"getty@.service", "systemd-journald.service", "apt-daily.timer",
	"multi-user.target", "getty.target", "sockets.target", "timers.target",
};

static bool have_systemctl;

/* ------------------------------------------------ the root as a folder */

/* base + path, where no part before the last may be a link (-EXDEV). */
static int root_path(void *arg, const char *path, char *full, size_t size)
{
	struct stat st;
	int n = snprintf(full, size, "%s%s", (const char *)arg, path);

	if (n < 0 || (size_t)n >= size || path[0] != '/')
		return -ENAMETOOLONG;
	for (char *p = full + strlen(arg) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		n = lstat(full, &st);
		*p = '/';
		if (n == 0 && S_ISLNK(st.st_mode))
			return -EXDEV; /* the library must resolve links itself */
	}
	return 0;
}

static int root_read(void *arg, const char *path, struct imgp_buf *out)
{
	char full[4200];
	struct stat st;
	void *data;
	size_t len;
	int rc = root_path(arg, path, full, sizeof(full));

	if (rc)
		return rc;
	if (lstat(full, &st))
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	data = unit_read_file(full, &len);
	if (!data)
		return -EIO;
	rc = imgp_buf_append(out, data, len);
	free(data);
	return rc;
}

static int root_readlink(void *arg, const char *path, struct imgp_buf *out)
{
	char full[4200], target[4200];
	ssize_t n;
	int rc = root_path(arg, path, full, sizeof(full));

	if (rc)
		return rc;
	n = readlink(full, target, sizeof(target));
	if (n < 0)
		return -errno;
	return imgp_buf_append(out, target, (size_t)n);
}

static int root_list(void *arg, const char *dir, char ***names, size_t *n)
{
	char full[4200];
	struct dirent *de;
	DIR *d;
	int rc = root_path(arg, dir, full, sizeof(full));

	*names = NULL;
	*n = 0;
	if (rc)
		return rc;
	d = opendir(full);
	if (!d)
		return -errno;
	/* "." and ".." kept: the library must not walk into them. */
	while ((de = readdir(d))) {
		*names = realloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = strdup(de->d_name);
	}
	closedir(d);
	return 0;
}

/* ------------------------------------------------ roots and their links */

static int mkdirs(const char *path)
{
	char buf[4200];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

static void put_file(const char *root, const char *path, const char *text)
{
	char full[4200], dir[4200];

	snprintf(full, sizeof(full), "%s%s", root, path);
	snprintf(dir, sizeof(dir), "%s", full);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	unit_write_text(full, text);
}

static void put_link(const char *root, const char *path, const char *target)
{
	char full[4200], dir[4200];

	snprintf(full, sizeof(full), "%s%s", root, path);
	snprintf(dir, sizeof(dir), "%s", full);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	unlink(full);
	if (symlink(target, full))
		printf("# symlink %s: %s\n", full, strerror(errno));
}

/* A root as Debian 12 lays it out: merged (/lib -> usr/lib) or split. */
static void make_root(const char *root, bool merged)
{
	const char *units = merged ? "/usr/lib/systemd/system" : "/lib/systemd/system";
	char path[4200];

	mkdirs(root);
	snprintf(path, sizeof(path), "%s/etc/systemd/system", root);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/usr/lib", root);
	mkdirs(path);
	if (merged)
		put_link(root, "/lib", "usr/lib");
	for (size_t k = 0; k < sizeof(host_units) / sizeof(host_units[0]); k++) {
		char from[512], to[512];
		void *text;
		size_t len;

		snprintf(from, sizeof(from), "/lib/systemd/system/%s", host_units[k]);
		text = unit_read_file(from, &len);
		snprintf(to, sizeof(to), "%s/%s", units, host_units[k]);
		put_file(root, to, text ? (char *)text : "[Unit]\n");
		free(text);
	}
	snprintf(path, sizeof(path), "%s/ssh.service", units);
	put_file(root, path, SSH_SERVICE);
}

static struct imgp_buf links_seen;
static size_t links_root_len;

static int note_link(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	char target[4200];
	ssize_t n;

	(void)st;
	(void)ftw;
	if (flag != FTW_SL)
		return 0;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	imgp_buf_printf(&links_seen, "%s -> %s\n", path + links_root_len, target);
	return 0;
}

/* Every link below ROOT/etc/systemd/system as "path -> target" lines, sorted. */
static char *links_of(const char *root)
{
	char dir[4200], *text, **lines = NULL, *out;
	size_t n = 0;
	struct imgp_buf sorted = { 0 };

	links_seen.len = 0;
	links_root_len = strlen(root);
	snprintf(dir, sizeof(dir), "%s/etc/systemd/system", root);
	nftw(dir, note_link, 16, FTW_PHYS);
	imgp_buf_append(&links_seen, "", 1);
	text = strdup((char *)links_seen.data);
	for (char *p = strtok(text, "\n"); p; p = strtok(NULL, "\n")) {
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = p;
	}
	if (n)
		qsort(lines, n, sizeof(*lines), (int (*)(const void *, const void *))strcmp);
	for (size_t k = 0; k < n; k++)
		imgp_buf_printf(&sorted, "%s\n", lines[k]);
	imgp_buf_append(&sorted, "", 1);
	out = strdup((char *)sorted.data);
	imgp_buf_free(&sorted);
	free(lines);
	free(text);
	return out;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What changed from before to after, as "path -> target" or "path -> (removed)". */
static char *links_diff(const char *before, const char *after)
{
	struct imgp_buf out = { 0 };
	char *b = strdup(before), *a = strdup(after), *lines[4096];
	size_t n = 0;

	for (char *p = strtok(a, "\n"); p; p = strtok(NULL, "\n"))
		if (!strstr(before, p) && n < 4096)
			lines[n++] = strdup(p);
	for (char *p = strtok(b, "\n"); p; p = strtok(NULL, "\n")) {
		char path[4200];

		snprintf(path, sizeof(path), "%s -> ", p);
		*strstr(path, " -> ") = '\0';
		strcat(path, " -> ");
		if (!strstr(after, path) && n < 4096) {
			char *line;

			if (asprintf(&line, "%s(removed)", path) >= 0)
				lines[n++] = line;
		}
	}
	if (n)
		qsort(lines, n, sizeof(*lines), cmp_str);
	for (size_t k = 0; k < n; k++) {
		imgp_buf_printf(&out, "%s\n", lines[k]);
		free(lines[k]);
	}
	imgp_buf_append(&out, "", 1);
	free(a);
	free(b);
	return (char *)imgp_buf_steal_(&out, NULL);
}

/* The library's list in the same form. */
static char *links_text(const struct imgp_unit_links *l)
{
	struct imgp_buf out = { 0 };
	char **lines = calloc(l->n + 1, sizeof(*lines));

	for (size_t k = 0; k < l->n; k++)
		if (asprintf(&lines[k], "%s -> %s", l->v[k].path,
			     l->v[k].target ? l->v[k].target : "(removed)") < 0)
			lines[k] = NULL;
	if (l->n)
		qsort(lines, l->n, sizeof(*lines), cmp_str);
	for (size_t k = 0; k < l->n; k++) {
		imgp_buf_printf(&out, "%s\n", lines[k]);
		free(lines[k]);
	}
	free(lines);
	imgp_buf_append(&out, "", 1);
	return (char *)imgp_buf_steal_(&out, NULL);
}

typedef int (*units_fn)(const struct imgp_unit_root *, const char *,
			struct imgp_unit_links *);

static int run_library(const char *root, const char *verb, const char *unit,
		       struct imgp_unit_links *out)
{
	struct imgp_unit_root r = { root_read, root_readlink, root_list, (void *)root };
	units_fn fn = !strcmp(verb, "enable") ? imgp_units_enable_ :
		      !strcmp(verb, "disable") ? imgp_units_disable_ : imgp_units_mask_;

	return fn(&r, unit, out);
}

/* A fixture step: a shell command run in the root (its folder is $1). */
typedef void (*setup_fn)(const char *root);

/*
 * One case: two copies of a root (setup applied), `systemctl --root`
 * on one, the library on the other; the links compared.
 */
static void same_as_systemctl(const char *tag, bool merged, setup_fn setup,
			      const char *verb, const char *unit, const char *name)
{
	char root[200], copy[256], arg[300], log[300];
	char *before, *after, *want, *got;
	struct imgp_unit_links links = { 0 };
	int rc, status;

	unit_path_keep(root, sizeof(root), tag);
	snprintf(copy, sizeof(copy), "%s-systemctl", root);
	make_root(root, merged);
	if (setup)
		setup(root);
	{
		const char *cp[] = { "cp", "-a", root, copy, NULL };

		unit_spawn(cp, NULL, NULL);
	}
	before = links_of(root);
	rc = run_library(root, verb, unit, &links);
	if (rc)
		printf("#   %s %s: %d %s\n", verb, unit, rc, imgp_errmsg());
	got = links_text(&links);
	if (!have_systemctl) {
		SKIP_TOOL(name, "systemctl");
		goto out;
	}
	snprintf(arg, sizeof(arg), "--root=%s", copy);
	snprintf(log, sizeof(log), "%s.log", copy);
	{
		const char *argv[] = { "systemctl", arg, verb, unit, NULL };

		status = unit_spawn(argv, NULL, log);
	}
	after = links_of(copy);
	want = links_diff(before, after);
	/* Paths in systemctl's copy are printed from its root: the same. */
	CHECK((rc == 0) == (status == 0), name);
	if ((rc == 0) != (status == 0)) {
		char *text = unit_read_file(log, NULL);

		printf("#   systemctl exit %d, library %d: %s\n#   %s", status, rc,
		       imgp_errmsg(), text ? text : "");
		free(text);
	}
	if (rc == 0)
		CHECK_STR(got, want, name);
	free(after);
	free(want);
out:
	free(before);
	free(got);
	imgp_unit_links_free_(&links);
}

/* --------------------------------------------------------------- fixtures */

static void enabled_ssh(const char *root)
{
	put_link(root, "/etc/systemd/system/sshd.service", "/lib/systemd/system/ssh.service");
	put_link(root, "/etc/systemd/system/multi-user.target.wants/ssh.service",
		 "/lib/systemd/system/ssh.service");
}

static void enabled_networkd_getty(const char *root)
{
	put_link(root, "/etc/systemd/system/dbus-org.freedesktop.network1.service",
		 "/lib/systemd/system/systemd-networkd.service");
	put_link(root, "/etc/systemd/system/multi-user.target.wants/systemd-networkd.service",
		 "/lib/systemd/system/systemd-networkd.service");
	put_link(root, "/etc/systemd/system/sockets.target.wants/systemd-networkd.socket",
		 "/lib/systemd/system/systemd-networkd.socket");
	put_link(root, "/etc/systemd/system/network-online.target.wants/"
		 "systemd-networkd-wait-online.service",
		 "/lib/systemd/system/systemd-networkd-wait-online.service");
	put_link(root, "/etc/systemd/system/getty.target.wants/getty@tty1.service",
		 "/lib/systemd/system/getty@.service");
	put_link(root, "/etc/systemd/system/getty.target.wants/getty@tty2.service",
		 "/lib/systemd/system/getty@.service");
	/* A link to a link: disable follows it to the unit. */
	put_link(root, "/etc/systemd/system/other.target.wants/networkd.service",
		 "../dbus-org.freedesktop.network1.service");
}

static void ssh_in_etc(const char *root)
{
	put_file(root, "/etc/systemd/system/ssh.service",
		 "[Service]\nExecStart=/bin/true\n[Install]\n"
		 "WantedBy=graphical.target\nAlias=sshd.service\n");
}

static void linked_unit(const char *root)
{
	put_file(root, "/opt/foo/foo.service",
		 "[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n");
	put_link(root, "/etc/systemd/system/foo.service", "/opt/foo/foo.service");
}

static void dropin(const char *root)
{
	put_file(root, "/etc/systemd/system/apt-daily.timer.d/10-also.conf",
		 "# comment\n[Install]\nWantedBy=multi-user.target \\\n"
		 "  basic.target\n");
	put_file(root, "/usr/lib/systemd/system/apt-daily.timer.d/10-also.conf",
		 "[Install]\nWantedBy=shadowed.target\n");
}

static void specifiers(const char *root)
{
	put_file(root, "/usr/lib/systemd/system/web-proxy@.service",
		 "[Service]\nExecStart=/bin/true\n[Install]\nDefaultInstance=main\n"
		 "WantedBy=%p.target %j-extra.target\nAlias=%p-alias@.service\n"
		 "RequiredBy=x-%i.target\n");
}

static void masked(const char *root)
{
	put_link(root, "/etc/systemd/system/apt-daily.timer", "/dev/null");
}

static void same_name_link(const char *root)
{
	put_link(root, "/etc/systemd/system/ssh.service", "/lib/systemd/system/ssh.service");
	put_link(root, "/etc/systemd/system/multi-user.target.wants/ssh.service",
		 "/etc/systemd/system/ssh.service");
	put_file(root, "/usr/lib/systemd/system/self-alias.service",
		 "[Install]\nAlias=self-alias.service\nWantedBy=multi-user.target\n");
}

static void stale_links(const char *root)
{
	put_link(root, "/etc/systemd/system/multi-user.target.wants/ssh.service",
		 "/opt/old/ssh.service");
	put_link(root, "/etc/systemd/system/timers.target.wants/apt-daily.timer",
		 "/usr/lib/systemd/system/apt-daily.timer");
}

static void alias_taken(const char *root)
{
	put_link(root, "/etc/systemd/system/sshd.service",
		 "/lib/systemd/system/systemd-networkd.service");
}

static void local_unit(const char *root)
{
	put_file(root, "/usr/local/lib/systemd/system/local.service",
		 "[Service]\nExecStart=/bin/true\n[Install]\nRequiredBy=multi-user.target\n"
		 "WantedBy=\nWantedBy=\"basic.target\"\n");
}

static void alias_via_etc(const char *root)
{
	enabled_ssh(root);
	put_link(root, "/etc/systemd/system/ssh-old.service", "/lib/systemd/system/ssh.service");
}

static void check_against_systemctl(void)
{
	/* The merged root keeps its units in /usr/lib: systemctl still writes /lib/... */
	same_as_systemctl("ssh", true, NULL, "enable", "ssh.service",
			  "enable ssh.service: its Alias= and WantedBy= links");
	same_as_systemctl("ssh-bare", false, NULL, "enable", "ssh",
			  "enable ssh: a bare name is a .service (split /lib)");
	same_as_systemctl("networkd", true, NULL, "enable", "systemd-networkd.service",
			  "enable systemd-networkd: Also= followed, a missing Also= skipped");
	same_as_systemctl("getty", true, NULL, "enable", "getty@.service",
			  "enable getty@.service: DefaultInstance=tty1");
	same_as_systemctl("getty3", true, NULL, "enable", "getty@tty3.service",
			  "enable getty@tty3.service: an instance of the template");
	same_as_systemctl("timer", true, NULL, "enable", "apt-daily.timer",
			  "enable apt-daily.timer: a timer");
	same_as_systemctl("again", true, enabled_ssh, "enable", "ssh.service",
			  "enable an enabled unit: nothing to make");
	same_as_systemctl("etc", true, ssh_in_etc, "enable", "ssh.service",
			  "a unit in /etc shadows /lib: its links point there");
	same_as_systemctl("linked", true, linked_unit, "enable", "foo.service",
			  "a linked unit: links point to its file outside the search path");
	same_as_systemctl("dropin", true, dropin, "enable", "apt-daily.timer",
			  "a drop-in's [Install] counts; /etc's drop-in shadows /usr/lib's");
	same_as_systemctl("spec", true, specifiers, "enable", "web-proxy@.service",
			  "specifiers %p %j %i in [Install]");
	same_as_systemctl("same-en", true, same_name_link, "enable", "ssh.service",
			  "enable through a same-name link in /etc: refused as systemctl refuses");
	same_as_systemctl("same-dis", true, same_name_link, "disable", "ssh.service",
			  "disable through a same-name link in /etc: the links go");
	same_as_systemctl("self-alias", true, same_name_link, "enable", "self-alias.service",
			  "Alias= naming the unit itself is skipped");
	same_as_systemctl("stale", true, stale_links, "enable", "ssh.service",
			  "a wants link to elsewhere is replaced, one to the same file kept");
	same_as_systemctl("stale-timer", true, stale_links, "enable", "apt-daily.timer",
			  "a link through /usr/lib on a merged root is the same file");
	same_as_systemctl("taken", true, alias_taken, "enable", "ssh.service",
			  "an alias taken by another unit: refused as systemctl refuses");
	same_as_systemctl("local", true, local_unit, "enable", "local.service",
			  "/usr/local/lib: RequiredBy=, an empty WantedBy= resets, quotes");
	same_as_systemctl("by-alias", true, enabled_ssh, "enable", "sshd.service",
			  "enable by an alias name in /etc: as systemctl does");
	same_as_systemctl("mask-alias", true, enabled_ssh, "mask", "sshd.service",
			  "mask an alias name: refused as systemctl refuses");
	same_as_systemctl("dis-masked", true, masked, "disable", "apt-daily.timer",
			  "disable a masked unit: its mask stays");
	same_as_systemctl("dis-ssh", true, enabled_ssh, "disable", "ssh.service",
			  "disable ssh.service: the alias and the wants link go");
	same_as_systemctl("dis-alias", true, alias_via_etc, "disable", "ssh.service",
			  "disable: every link to the unit goes, whatever its name");
	same_as_systemctl("dis-nd", true, enabled_networkd_getty, "disable",
			  "systemd-networkd.service",
			  "disable systemd-networkd: Also= units and links to links go");
	same_as_systemctl("dis-getty", true, enabled_networkd_getty, "disable",
			  "getty@.service", "disable getty@.service: every instance's link goes");
	same_as_systemctl("dis-tty2", true, enabled_networkd_getty, "disable",
			  "getty@tty2.service", "disable getty@tty2.service: that instance only");
	same_as_systemctl("dis-none", true, NULL, "disable", "ssh.service",
			  "disable a unit not enabled: nothing to remove");
	same_as_systemctl("mask", true, NULL, "mask", "ssh.service",
			  "mask ssh.service: a link to /dev/null");
	same_as_systemctl("mask-again", true, masked, "mask", "apt-daily.timer",
			  "mask a masked unit: nothing to make");
	same_as_systemctl("mask-etc", true, ssh_in_etc, "mask", "ssh.service",
			  "mask a unit whose file is in /etc: refused as systemctl refuses");
	same_as_systemctl("en-masked", true, masked, "enable", "apt-daily.timer",
			  "enable a masked unit: refused as systemctl refuses");
	same_as_systemctl("en-missing", true, NULL, "enable", "nosuch.service",
			  "enable a unit the image lacks: refused");
}

/* Where customize decides otherwise than systemctl, and why, in custom-units.c. */
static void check_own_decisions(void)
{
	struct imgp_unit_links links = { 0 };
	char root[256];
	int rc;

	unit_path_keep(root, sizeof(root), "own");
	make_root(root, true);

	rc = run_library(root, "enable", "systemd-journald.service", &links);
	CHECK(rc == -EINVAL && links.n == 0 &&
	      strstr(imgp_errmsg(), "has no [Install] section"),
	      "enable a unit without [Install]: refused, naming why");
	rc = run_library(root, "mask", "nosuch.service", &links);
	CHECK(rc == -ENOENT && strstr(imgp_errmsg(), "no unit nosuch.service"),
	      "mask a unit the image lacks: refused");
	rc = run_library(root, "disable", "nosuch.service", &links);
	CHECK(rc == -ENOENT, "disable a unit the image lacks: refused");
	rc = run_library(root, "enable", "getty@tty9.service", &links);
	CHECK(rc == 0 && links.n == 1, "an instance found through its template");
	imgp_unit_links_free_(&links);
	rc = run_library(root, "enable", "serial-getty@.service", &links);
	CHECK(rc == -ENOENT && strstr(imgp_errmsg(), "serial-getty@.service"),
	      "a template the image lacks: -ENOENT naming it");

	static const char *const bad[] = {
		"", "../x.service", "a b.service", "@x.service", "foo@.mount",
		"x.service/", "foo@bar.device",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.service",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char name[80];

		snprintf(name, sizeof(name), "a name systemd refuses (%.40s) is -EINVAL", bad[k]);
		rc = run_library(root, "enable", bad[k], &links);
		CHECK(rc == -EINVAL && links.n == 0, name);
		rc = run_library(root, "mask", bad[k], &links);
		CHECK(rc == -EINVAL && links.n == 0, name);
	}
}

/* A hostile root: links in circles, to themselves, and bad [Install] names. */
static void check_hostile(void)
{
	struct imgp_unit_links links = { 0 };
	char root[256];
	int rc;

	unit_path_keep(root, sizeof(root), "hostile");
	make_root(root, true);
	put_link(root, "/etc/systemd/system/a.service", "b.service");
	put_link(root, "/etc/systemd/system/b.service", "/etc/systemd/system/a.service");
	put_link(root, "/etc/systemd/system/loop", ".");
	put_link(root, "/etc/systemd/system/up.service", "../../../../../../../lib/x.service");
	put_link(root, "/usr/lib/systemd/system/self.service", "self.service");
	put_file(root, "/usr/lib/systemd/system/badwant.service",
		 "[Install]\nWantedBy=../../etc/passwd\n");
	put_file(root, "/usr/lib/systemd/system/badalias.service",
		 "[Install]\nAlias=other.socket\n");
	put_file(root, "/usr/lib/systemd/system/host.service",
		 "[Install]\nWantedBy=%H.target\n");
	put_link(root, "/usr/lib/systemd/system/deep.service", "/d/d/d/d/d/d/d/d/d/d");
	put_link(root, "/d", "/d/d");

	rc = run_library(root, "enable", "a.service", &links);
	CHECK(rc < 0 && links.n == 0, "links in a circle: an error, no links");
	rc = run_library(root, "enable", "self.service", &links);
	CHECK(rc < 0 && links.n == 0, "a unit linked to itself: an error");
	rc = run_library(root, "enable", "badwant.service", &links);
	CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "WantedBy="),
	      "WantedBy= that is no unit name: refused, naming it");
	rc = run_library(root, "enable", "badalias.service", &links);
	CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "Alias="),
	      "Alias= of another type: refused, naming it");
	rc = run_library(root, "enable", "host.service", &links);
	CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "%H"),
	      "a specifier of the running system: refused, naming it");
	rc = run_library(root, "enable", "deep.service", &links);
	CHECK(rc < 0 && links.n == 0, "a folder linked into itself: an error");
	{
		struct imgp_buf big = { 0 };
		char path[400];

		imgp_buf_printf(&big, "[Install]\nAlso=");
		for (int k = 0; k < 300; k++)
			imgp_buf_printf(&big, "also%d.service ", k);
		imgp_buf_append(&big, "\n", 2);
		put_file(root, "/usr/lib/systemd/system/many.service", (char *)big.data);
		rc = run_library(root, "enable", "many.service", &links);
		CHECK(rc == -E2BIG && links.n == 0, "300 units in Also=: refused, bounded");
		big.len = 0;
		for (int k = 0; k < 70000; k++)
			imgp_buf_printf(&big, "# %d padding padding\n", k);
		imgp_buf_append(&big, "", 1);
		put_file(root, "/usr/lib/systemd/system/huge.service", (char *)big.data);
		rc = run_library(root, "enable", "huge.service", &links);
		CHECK(rc == -EFBIG && strstr(imgp_errmsg(), "huge.service"),
		      "a unit file over 1 MiB: refused, naming it");
		snprintf(path, sizeof(path), "%s/usr/lib/systemd/system/nul.service", root);
		unit_write_file(path, "[Install]\nWantedBy=a.target\0x\n", 30);
		rc = run_library(root, "enable", "nul.service", &links);
		CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "NUL"),
		      "a NUL byte in a unit file: refused, naming it");
		imgp_buf_free(&big);
	}
	put_file(root, "/usr/lib/systemd/system/crlf.service",
		 "[Install]\r\nWantedBy=multi-user.target\r\nAlias=crlf2.service \\");
	rc = run_library(root, "enable", "crlf.service", &links);
	CHECK(rc == 0 && links.n == 2, "CR LF lines and a backslash at the end of the file");
	imgp_unit_links_free_(&links);
	rc = run_library(root, "disable", "ssh.service", &links);
	CHECK(rc == -ELOOP && links.n == 0 && strstr(imgp_errmsg(), ".service: too many"),
	      "disable over links in a circle: refused naming one, as systemctl refuses");
	imgp_unit_links_free_(&links);
}

int main(void)
{
	char tool[512];

	if (unit_tmpdir_create("custom-units")) {
		perror("tmpdir");
		return 1;
	}
	have_systemctl = unit_find_tool("systemctl", tool, sizeof(tool)) &&
			 access("/lib/systemd/system/getty@.service", R_OK) == 0;
	check_against_systemctl();
	check_own_decisions();
	check_hostile();
	imgp_buf_free(&links_seen);
	unit_tmpdir_remove();
	return unit_done();
}
