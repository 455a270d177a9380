// SPDX-License-Identifier: MIT
/*
 * The booted system's view of the image for customize: a path is what the
 * system sees, so it lands on the partition the root's /etc/fstab mounts
 * there; files are read as the plan leaves them and planned with mode and
 * owner. Also how the image applies settings at its first boot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "text/text.h"
#include "boot/bootpath.h"
#include "patch/patch.h"
#include "custom/custom.h"
#include "custom/custom-run.h"

#define CUSTOM_TEXT_MAX ((size_t)16 << 20)

/* Types fstab may mount that live nowhere in the image. */
static bool virtual_fs(const char *type)
{
	static const char *const types[] = { "tmpfs", "proc", "sysfs", "devpts",
		"devtmpfs", "swap", "none", "nfs", "nfs4", "cifs", "overlay" };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(type, types[i]) == 0)
			return true;
	return false;
}

/* A /dev/ name of a partition: its number, as the kernel names mmcblk0p2 or sda2. */
static const struct imgp_part *device_part(struct custom_run *run, const char *spec)
{
	const char *end = spec + strlen(spec), *p = end;
	char num[16];

	if (strncmp(spec, "/dev/", 5) != 0)
		return NULL;
	while (p > spec && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == end || end - p >= (long)sizeof(num))
		return NULL;
	memcpy(num, p, (size_t)(end - p));
	num[end - p] = '\0';
	return imgp_patch_part_(run->patch, num);
}

/* A mount point's length without its trailing '/'s. */
static size_t mount_len(const char *file)
{
	size_t n = strlen(file);

	while (n > 1 && file[n - 1] == '/')
		n--;
	return n;
}

/* The mount of the root's fstab with the longest mount point holding path. */
static const struct imgp_fstab_entry *mount_of(struct custom_run *run,
					       const char *path)
{
	const struct imgp_fstab_entry *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < run->nmounts; i++) {
		const struct imgp_fstab_entry *e = &run->mounts[i];
		size_t n = mount_len(e->file);

		if (e->file[0] != '/' || n <= 1 || n < best_len)
			continue;
		if (strncmp(path, e->file, n) == 0 && (path[n] == '/' || !path[n])) {
			best = e;
			best_len = n;
		}
	}
	return best;
}

/* Where a path of the booted system lands, its links not looked at. */
static int locate_raw(struct custom_run *run, const char *arg,
		      const struct imgp_part **part, char **path)
{
	const struct imgp_fstab_entry *m;
	const char *inner = arg;

	*path = NULL;
	if (arg[0] != '/') {
		/* PART:PATH, as cat takes it. */
		const char *colon = strchr(arg, ':');
		char spec[64];

		if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(spec) ||
		    colon[1] != '/')
			return imgp_fail(EINVAL, "%s: a path starts with '/' (or is PART:/PATH)", arg);
		memcpy(spec, arg, (size_t)(colon - arg));
		spec[colon - arg] = '\0';
		*part = imgp_patch_part_(run->patch, spec);
		if (!*part)
			return -ENOENT;
		*path = strdup(colon + 1);
		return *path ? 0 : imgp_fail(ENOMEM, "out of memory");
	}
	*part = run->root;
	m = mount_of(run, arg);
	if (m) {
		const struct imgp_part *p = imgp_survey_spec_part_(imgp_patch_survey_(run->patch),
								  m->spec);

		if (!p)
			p = device_part(run, m->spec);
		if (!p || virtual_fs(m->vfstype))
			return imgp_fail(ENOENT, "%s: /etc/fstab mounts %s there (%s, line %d), which is not a partition of the image",
					 arg, m->spec, m->vfstype, m->line);
		*part = p;
		/* mount_of matched the mount point, trailing '/' aside. */
		inner = arg + mount_len(m->file);
	}
	*path = strdup(*inner ? inner : "/");
	return *path ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/* Links followed while resolving one path: the kernel's bound (MAXSYMLINKS). */
#define CUSTOM_LINKS_MAX 40

/* Appends "/NAME" to a path being built (n bytes of it), or goes up for "..". */
static int path_step(char *out, size_t size, size_t *n, const char *name, size_t len)
{
	if (len == 1 && name[0] == '.')
		return 0;
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		while (*n > 0 && out[*n - 1] != '/')
			(*n)--;
		if (*n > 0)
			(*n)--;
		out[*n] = '\0';
		return 0;
	}
	if (*n + 1 + len >= size)
		return imgp_fail(ENAMETOOLONG, "a path longer than %zu bytes", size - 1);
	out[(*n)++] = '/';
	memcpy(out + *n, name, len);
	*n += len;
	out[*n] = '\0';
	return 0;
}

/*
 * The path as the booted system resolves it: "." and ".." taken, and each
 * folder on the way that is a symbolic link (a usr-merged /bin, /lib)
 * replaced by its target, read as the plan leaves it; the last part too
 * with follow_last. FAT has no links. *out malloc'd.
 */
static int resolve(struct custom_run *run, const char *arg, bool follow_last, char **out)
{
	char *todo = strdup(arg), done[4096] = "";
	size_t n = 0;
	unsigned links = 0;
	int rc = todo ? 0 : imgp_fail(ENOMEM, "out of memory");

	for (const char *p = todo; !rc && p && *p;) {
		const char *name = p + strspn(p, "/");
		size_t len = strcspn(name, "/");
		const char *rest = name + len;
		bool last = !rest[strspn(rest, "/")];
		const struct imgp_part *part;
		struct imgp_buf target = { 0 };
		char *inner = NULL, *next = NULL;
		bool is_link = false;
		size_t before = n;

		if (!len)
			break;
		rc = path_step(done, sizeof(done), &n, name, len);
		p = rest;
		if (rc || (len <= 2 && name[0] == '.' && (len == 1 || name[1] == '.')) ||
		    (last && !follow_last))
			continue;
		rc = locate_raw(run, done, &part, &inner);
		if (!rc && strncmp(part->fstype, "ext", 3) == 0)
			rc = imgp_patch_readlink_(run->patch, part, inner, &target, &is_link);
		if (rc == -EINVAL || rc == -ENOENT) {
			imgp_errclear_();
			rc = 0;
			is_link = false;
		}
		/* A link with no target names nothing: refused, never read past. */
		if (!rc && is_link && !target.len)
			rc = imgp_fail(EINVAL, "%s: an empty symbolic link on the way", arg);
		if (!rc && is_link && ++links > CUSTOM_LINKS_MAX)
			rc = imgp_fail(ELOOP, "%s: more than %d symbolic links on the way", arg,
				       CUSTOM_LINKS_MAX);
		if (!rc && is_link) {
			/* The link's target, then what was left: resolved again from the top. */
			done[before] = '\0';
			if (asprintf(&next, "%s%s%s%s", target.data[0] == '/' ? "" : done,
				     target.data[0] == '/' ? "" : "/", (char *)target.data, rest) < 0)
				rc = imgp_fail(ENOMEM, "out of memory");
			else {
				free(todo);
				todo = next;
				p = todo;
				n = 0;
				done[0] = '\0';
			}
		}
		imgp_buf_free(&target);
		free(inner);
	}
	if (!rc && !n)
		done[n++] = '/', done[n] = '\0';
	free(todo);
	*out = rc ? NULL : strdup(done);
	return rc ? rc : *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

static int locate(struct custom_run *run, const char *arg, bool follow_last,
		  const struct imgp_part **part, char **path)
{
	char *resolved = NULL;
	int rc;

	*path = NULL;
	if (arg[0] != '/')
		return locate_raw(run, arg, part, path);
	rc = resolve(run, arg, follow_last, &resolved);
	if (!rc)
		rc = locate_raw(run, resolved, part, path);
	free(resolved);
	return rc;
}

int imgp_custom_locate_(struct custom_run *run, const char *arg,
		  const struct imgp_part **part, char **path)
{
	return locate(run, arg, false, part, path);
}

int imgp_custom_locate_follow_(struct custom_run *run, const char *arg,
			 const struct imgp_part **part, char **path)
{
	return locate(run, arg, true, part, path);
}

int imgp_custom_read_(struct custom_run *run, const struct imgp_part *part,
		const char *path, struct imgp_buf *out, bool *exists)
{
	out->len = 0;
	return imgp_patch_read_(run->patch, part, path, CUSTOM_TEXT_MAX, out, exists);
}

int imgp_custom_read_root_(struct custom_run *run, const char *arg,
		     struct imgp_buf *out, bool *exists)
{
	const struct imgp_part *part;
	char *path;
	int rc = imgp_custom_locate_follow_(run, arg, &part, &path);

	if (!rc)
		rc = imgp_custom_read_(run, part, path, out, exists);
	free(path);
	return rc;
}

int imgp_custom_exists_(struct custom_run *run, const char *arg)
{
	const struct imgp_part *part;
	struct imgp_fs_stat_ st;
	char *path;
	bool exists = false;
	int rc = imgp_custom_locate_follow_(run, arg, &part, &path);

	if (!rc)
		rc = imgp_patch_stat_(run->patch, part, path, &st, &exists);
	free(path);
	return rc ? rc : exists;
}

/* The folder above path ("/a/b" -> "/a"), malloc'd. */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static int mkdir_in(struct custom_run *run, const struct imgp_part *part,
		    const char *path, unsigned mode, long uid, long gid)
{
	struct imgp_fs_stat_ st;
	bool exists = false;
	char *parent;
	int rc;

	if (strcmp(path, "/") == 0)
		return 0;
	rc = imgp_patch_stat_(run->patch, part, path, &st, &exists);
	if (rc)
		return rc;
	if (exists)
		return st.type == IMGP_FS_DIR ? 0 :
		       imgp_fail(ENOTDIR, IMGP_PART_FMT " (%s): %s: not a folder",
				 part->number, part->fstype, path);
	parent = parent_of(path);
	if (!parent)
		return imgp_fail(ENOMEM, "out of memory");
	rc = mkdir_in(run, part, parent, 0, -1, -1);
	free(parent);
	if (!rc)
		rc = imgp_patch_mkdir_(run->patch, part, path, "made for customize");
	if (!rc && strncmp(part->fstype, "ext", 3) == 0 &&
	    ((mode && mode != 0755) || uid > 0 || gid > 0))
		rc = imgp_patch_attr_(run->patch, part, path, mode ? (int)mode : -1,
				     uid > 0 ? uid : -1, gid > 0 ? gid : -1);
	return rc;
}

int imgp_custom_mkdir_p_(struct custom_run *run, const char *arg, unsigned mode,
		   long uid, long gid)
{
	const struct imgp_part *part;
	char *path;
	/* mkdir -p goes through a link to a folder, the last one too. */
	int rc = imgp_custom_locate_follow_(run, arg, &part, &path);

	if (!rc)
		rc = mkdir_in(run, part, path, mode, uid, gid);
	free(path);
	return rc;
}

int imgp_custom_put_(struct custom_run *run, const char *arg, const void *data,
	       size_t len, unsigned mode, long uid, long gid, bool secret,
	       const char *note)
{
	const struct imgp_part *part;
	char *path, *parent = NULL;
	bool ext;
	int rc = imgp_custom_locate_follow_(run, arg, &part, &path);

	if (rc)
		return rc;
	ext = strncmp(part->fstype, "ext", 3) == 0;
	parent = parent_of(path);
	rc = parent ? mkdir_in(run, part, parent, 0, -1, -1) :
	     imgp_fail(ENOMEM, "out of memory");
	if (!rc)
		rc = imgp_patch_write_(run->patch, part, path, data, len, !secret,
				      note);
	if (!rc && secret)
		imgp_patch_secret_(run->patch, part, path);
	/* FAT keeps no modes: the file is as the mount options make it. */
	if (!rc && ext && (mode || uid >= 0 || gid >= 0))
		rc = imgp_patch_attr_(run->patch, part, path, mode ? (int)mode : -1,
				     uid, gid);
	free(parent);
	free(path);
	return rc;
}

/* ------------------------------------------------------ the unit root */

static int unit_read(void *arg, const char *path, struct imgp_buf *out)
{
	bool exists = false;
	int rc = imgp_custom_read_root_(arg, path, out, &exists);

	return rc ? rc : exists ? 0 : -ENOENT;
}

static int unit_readlink(void *arg, const char *path, struct imgp_buf *out)
{
	struct custom_run *run = arg;
	const struct imgp_part *part;
	char *inner;
	bool exists = false;
	int rc = imgp_custom_locate_(run, path, &part, &inner);

	if (!rc)
		rc = imgp_patch_readlink_(run->patch, part, inner, out, &exists);
	free(inner);
	return rc ? rc : exists ? 0 : -ENOENT;
}

static int unit_list(void *arg, const char *dir, char ***names, size_t *n)
{
	struct custom_run *run = arg;
	const struct imgp_part *part;
	char *inner;
	int rc = imgp_custom_locate_(run, dir, &part, &inner);

	if (!rc)
		rc = imgp_patch_list_(run->patch, part, inner, names, n);
	free(inner);
	return rc;
}

void imgp_custom_unit_root_(struct custom_run *run, struct imgp_unit_root *root)
{
	root->read = unit_read;
	root->readlink = unit_readlink;
	root->list = unit_list;
	root->arg = run;
}

int imgp_custom_apply_links_(struct custom_run *run, const struct imgp_unit_links *l)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < l->n; i++) {
		const struct imgp_part *part;
		char *path, *parent;

		rc = imgp_custom_locate_(run, l->v[i].path, &part, &path);
		if (rc)
			break;
		if (!l->v[i].target) {
			rc = imgp_patch_delete_(run->patch, part, path);
		} else {
			parent = parent_of(path);
			rc = parent ? mkdir_in(run, part, parent, 0, -1, -1) :
			     imgp_fail(ENOMEM, "out of memory");
			free(parent);
			if (!rc)
				rc = imgp_patch_link_(run->patch, part, path,
						     l->v[i].target);
		}
		free(path);
	}
	return rc;
}

/* ------------------------------------------------------- what the image runs */

/* os-release's ID (/etc/os-release, else /usr/lib/os-release). */
static int read_os_id(struct custom_run *run)
{
	static const char *const files[] = { "/etc/os-release", "/usr/lib/os-release" };
	struct imgp_buf b = { 0 };
	bool exists = false;
	int rc = 0;

	for (size_t i = 0; !rc && !exists && i < 2; i++)
		rc = imgp_custom_read_root_(run, files[i], &b, &exists);
	run->os_id = strdup("");
	for (const char *line = exists ? (char *)b.data : NULL; !rc && line && *line;) {
		size_t n = strcspn(line, "\n");

		if (strncmp(line, "ID=", 3) == 0) {
			const char *v = line + 3;
			size_t vn = n - 3;

			if (vn >= 2 && (*v == '"' || *v == '\'')) {
				v++;
				vn -= 2;
			}
			free(run->os_id);
			run->os_id = strndup(v, vn);
			break;
		}
		line += n + (line[n] == '\n');
	}
	imgp_buf_free(&b);
	if (!rc && !run->os_id)
		rc = imgp_fail(ENOMEM, "out of memory");
	return rc;
}

/* Whether dpkg's status says pkg is installed ("Status: install ok installed"). */
static bool dpkg_installed(const char *status, const char *pkg)
{
	char head[128];
	const char *p = status;

	snprintf(head, sizeof(head), "Package: %s\n", pkg);
	while ((p = strstr(p, head)) != NULL) {
		const char *end = strstr(p, "\n\n");
		const char *st = strstr(p, "\nStatus: ");

		if (p == status || p[-1] == '\n')
			return st && (!end || st < end) &&
			       strncmp(st + 9, "install ok installed", 20) == 0;
		p += strlen(head);
	}
	return false;
}

/* The first renderer a "renderers: [a, b]" line of cloud.cfg names, or NULL. */
static char *cfg_first_renderer(const char *text)
{
	char *first = NULL;

	for (const char *line = text; line && *line;) {
		size_t n = strcspn(line, "\n");
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "renderers:", 10) == 0) {
			p += 10;
			p += strspn(p, " \t[\"'");
			free(first);
			first = strndup(p, strcspn(p, " \t,]\"'\n"));
		}
		line += n + (line[n] == '\n');
	}
	return first;
}

/*
 * Whether the image's cloud-init renders its network through netplan: the
 * first renderer its configuration names, else the first of 22.4's
 * DEFAULT_PRIORITY (cloudinit/net/renderers.py: eni, sysconfig, netplan,
 * ...) whose programs the image has (eni.available(): ifquery, ifup,
 * ifdown and /etc/network/interfaces; netplan.available(): netplan).
 */
static int cloudinit_netplan(struct custom_run *run, bool *netplan)
{
	const struct imgp_part *part;
	struct imgp_buf text = { 0 };
	char **names = NULL, *dir = NULL, *first = NULL;
	size_t n = 0;
	bool exists = false;
	int rc = imgp_custom_read_root_(run, "/etc/cloud/cloud.cfg", &text, &exists);

	if (!rc && exists)
		first = cfg_first_renderer((char *)text.data);
	if (!rc)
		rc = imgp_custom_locate_(run, "/etc/cloud/cloud.cfg.d", &part, &dir);
	if (!rc && imgp_patch_list_(run->patch, part, dir, &names, &n) == -ENOENT)
		imgp_errclear_();
	/* Files of cloud.cfg.d are merged in name order: a later one wins. */
	for (size_t i = 0; i < n; i++) {
		char path[512];
		size_t len = strlen(names[i]);

		snprintf(path, sizeof(path), "/etc/cloud/cloud.cfg.d/%s", names[i]);
		if (!rc && len > 4 && strcmp(names[i] + len - 4, ".cfg") == 0) {
			char *one = NULL;

			rc = imgp_custom_read_root_(run, path, &text, &exists);
			one = !rc && exists ? cfg_first_renderer((char *)text.data) : NULL;
			if (one) {
				free(first);
				first = one;
			}
		}
		free(names[i]);
	}
	free(names);
	free(dir);
	imgp_buf_free(&text);
	if (!rc && first) {
		*netplan = strcmp(first, "netplan") == 0;
	} else if (!rc) {
		int eni = imgp_custom_exists_(run, "/sbin/ifup");

		if (eni > 0)
			eni = imgp_custom_exists_(run, "/etc/network/interfaces");
		rc = eni < 0 ? eni : 0;
		*netplan = !eni && imgp_custom_exists_(run, "/usr/sbin/netplan") > 0;
	}
	free(first);
	return rc;
}

static int detect_cloudinit(struct custom_run *run)
{
	struct imgp_buf status = { 0 }, version = { 0 };
	bool have_status = false, have_version = false;
	int rc, seed_exists;

	run->seed = imgp_patch_part_(run->patch, "nocloud");
	if (!run->seed) {
		imgp_errclear_();
		return 0;
	}
	rc = imgp_custom_read_root_(run, "/var/lib/dpkg/status", &status, &have_status);
	if (!rc)
		rc = imgp_custom_read_root_(run, "/usr/lib/python3/dist-packages/cloudinit/version.py",
				      &version, &have_version);
	if (rc)
		goto out;
	if (have_status && !dpkg_installed((char *)status.data, "cloud-init") &&
	    !have_version)
		goto out;
	if (!have_status && !have_version)
		goto out;
	seed_exists = imgp_custom_exists_(run, "/etc/cloud/cloud-init.disabled");
	if (seed_exists < 0) {
		rc = seed_exists;
		goto out;
	}
	if (seed_exists) {
		run->way_why = "cloud-init is disabled (/etc/cloud/cloud-init.disabled)";
		goto out;
	}
	rc = imgp_cloudinit_version_parse_(have_status ? (char *)status.data : "",
					  have_version ? (char *)version.data : "",
					  &run->ci_version);
	if (rc) {
		imgp_fail_ctx(rc, "cloud-init's version in the image");
		goto out;
	}
	rc = cloudinit_netplan(run, &run->ci_version.netplan);
	if (rc)
		goto out;
	run->way = CUSTOM_WAY_CLOUDINIT;
	run->way_why = "the image runs cloud-init with a NoCloud seed";
out:
	imgp_buf_free(&status);
	imgp_buf_free(&version);
	return rc;
}

int imgp_custom_detect_(struct custom_run *run)
{
	struct imgp_buf fstab = { 0 };
	bool exists = false;
	int rc;

	run->root = imgp_patch_part_(run->patch, "root");
	if (!run->root)
		return -ENOENT;
	rc = imgp_custom_read_(run, run->root, "/etc/fstab", &fstab, &exists);
	if (!rc && exists)
		rc = imgp_fstab_list_((char *)fstab.data, fstab.len, &run->mounts,
				     &run->nmounts);
	if (rc)
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): /etc/fstab", run->root->number,
			      run->root->fstype);
	imgp_buf_free(&fstab);
	if (!rc)
		rc = read_os_id(run);
	run->way = CUSTOM_WAY_FILES;
	run->way_why = "no cloud-init seed in the image";
	if (!rc)
		rc = detect_cloudinit(run);
	if (!rc)
		rc = imgp_custom_detect_rpios_(run);
	if (!rc)
		rc = imgp_custom_detect_armbian_(run);
	return rc;
}

/* Whether the root has the unit enabled for multi-user.target (a link there). */
static int unit_enabled(struct custom_run *run, const char *unit)
{
	char path[256];

	snprintf(path, sizeof(path), "/etc/systemd/system/multi-user.target.wants/%s", unit);
	return imgp_custom_exists_(run, path);
}

int imgp_custom_net_system_(struct custom_run *run, enum imgp_net_system *out,
		      const char **why)
{
	static const struct {
		const char *probe;
		enum imgp_net_system sys;
		const char *why;
	} systems[] = {
		{ "/usr/sbin/NetworkManager", IMGP_NET_NETWORKMANAGER,
		  "the image runs NetworkManager" },
		{ "/usr/sbin/netplan", IMGP_NET_NETPLAN, "the image runs netplan" },
	};
	int rc;

	for (size_t i = 0; i < sizeof(systems) / sizeof(systems[0]); i++) {
		rc = imgp_custom_exists_(run, systems[i].probe);
		if (rc < 0)
			return rc;
		if (rc) {
			*out = systems[i].sys;
			*why = systems[i].why;
			return 0;
		}
	}
	rc = unit_enabled(run, "systemd-networkd.service");
	if (rc < 0)
		return rc;
	if (rc) {
		*out = IMGP_NET_NETWORKD;
		*why = "the image enables systemd-networkd";
		return 0;
	}
	rc = imgp_custom_exists_(run, "/sbin/ifup");
	if (rc < 0)
		return rc;
	if (rc) {
		*out = IMGP_NET_IFUPDOWN;
		*why = "the image runs ifupdown";
		return 0;
	}
	return imgp_fail(ENOTSUP, "the image has no network system imgpatch knows (NetworkManager, netplan, systemd-networkd enabled, ifupdown)");
}

int imgp_custom_link_(struct custom_run *run, const char *arg, const char *target)
{
	const struct imgp_part *part;
	char *path, *parent = NULL;
	int rc = imgp_custom_locate_(run, arg, &part, &path);

	if (rc)
		return rc;
	if (strncmp(part->fstype, "ext", 3) != 0)
		rc = imgp_fail(ENOTSUP, IMGP_PART_FMT " (%s): %s: this filesystem has no symbolic links",
			       part->number, part->fstype, path);
	if (!rc) {
		parent = parent_of(path);
		rc = parent ? mkdir_in(run, part, parent, 0, -1, -1) :
		     imgp_fail(ENOMEM, "out of memory");
	}
	if (!rc) {
		struct imgp_fs_stat_ st;
		bool exists = false;

		/* ln -sf: a file there goes, a folder there is refused. */
		rc = imgp_patch_stat_(run->patch, part, path, &st, &exists);
		if (!rc && exists && st.type == IMGP_FS_DIR)
			rc = imgp_fail(EISDIR, IMGP_PART_FMT " (%s): %s: a folder is there",
				       part->number, part->fstype, path);
		else if (!rc && exists && st.type != IMGP_FS_LNK)
			rc = imgp_patch_delete_(run->patch, part, path);
	}
	if (!rc)
		rc = imgp_patch_link_(run->patch, part, path, target);
	free(parent);
	free(path);
	return rc;
}
