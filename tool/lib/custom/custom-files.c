// SPDX-License-Identifier: MIT
/*
 * customize's file options, as virt-customize(1) shapes them: --copy-in,
 * --upload, --write, --append-line, --mkdir, --chmod, --delete, --link,
 * --touch. Paths are the booted system's (imgp_custom_locate_); what FAT cannot
 * hold (modes, links) is refused there by the plan.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "patch/patch.h"
#include "custom/custom-run.h"

/* A local file copied in whole; the plan holds it in memory until the commit. */
#define LOCAL_FILE_MAX ((size_t)512 << 20)
/* Folders nested deeper than this in a --copy-in source are refused. */
#define COPY_IN_DEPTH 64

/*
 * Splits "REMOTE:REST" where REMOTE may itself be "PART:/PATH" (as cat
 * takes it): the colon after the path. *rest points into value; *remote
 * is malloc'd.
 */
static int split_remote_first(const char *value, char **remote, const char **rest)
{
	const char *colon = strchr(value, ':');

	if (colon && value[0] != '/' && colon[1] == '/')
		colon = strchr(colon + 1, ':');
	if (!colon || colon == value)
		return imgp_fail(EINVAL, "%s: expected PATH:VALUE", value);
	*remote = strndup(value, (size_t)(colon - value));
	*rest = colon + 1;
	return *remote ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/* "LOCAL:REMOTE": the first colon (virt-customize's split). */
static int split_local_first(const char *value, char **local, const char **remote)
{
	const char *colon = strchr(value, ':');

	if (!colon || colon == value || !colon[1])
		return imgp_fail(EINVAL, "%s: expected LOCAL:REMOTE", value);
	*local = strndup(value, (size_t)(colon - value));
	*remote = colon + 1;
	return *local ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/* What is at arg as planned: *exists, and its type. */
static int stat_arg(struct custom_run *run, const char *arg, struct imgp_fs_stat_ *st,
		    bool *exists)
{
	const struct imgp_part *part;
	char *path;
	int rc = imgp_custom_locate_follow_(run, arg, &part, &path);

	*exists = false;
	if (!rc)
		rc = imgp_patch_stat_(run->patch, part, path, st, exists);
	free(path);
	return rc;
}

/* The parent of a file to write must exist and be a folder (virt-customize's rule). */
static int parent_must_exist(struct custom_run *run, const char *arg)
{
	const char *slash = strrchr(arg, '/');
	struct imgp_fs_stat_ st;
	bool exists;
	char *parent;
	int rc;

	if (!slash || slash == arg || slash[-1] == ':')
		return 0;
	parent = strndup(arg, (size_t)(slash - arg));
	if (!parent)
		return imgp_fail(ENOMEM, "out of memory");
	rc = stat_arg(run, parent, &st, &exists);
	if (!rc && (!exists || st.type != IMGP_FS_DIR))
		rc = imgp_fail(ENOENT, "%s: no folder %s in the image (make it with --mkdir)",
			       arg, parent);
	free(parent);
	return rc;
}

static int put_file(struct custom_run *run, const char *arg, const void *data,
		    size_t len, unsigned mode)
{
	int rc = parent_must_exist(run, arg);

	return rc ? rc : imgp_custom_put_(run, arg, data, len, mode, -1, -1, false, NULL);
}

/* --write FILE:CONTENT */
static int plan_write(struct custom_run *run, const char *value)
{
	const char *content;
	char *file;
	int rc = split_remote_first(value, &file, &content);

	if (!rc)
		rc = put_file(run, file, content, strlen(content), 0);
	free(file);
	return rc;
}

/*
 * --append-line FILE:LINE: a line end is added first when the file does
 * not end in one, and after LINE; a file of CRLF lines gets CRLF
 * (virt-customize(1)). A missing file is made. A file that has LINE as a
 * line already is left as it is: a second run changes nothing.
 */
static int plan_append_line(struct custom_run *run, const char *value)
{
	struct imgp_buf old = { 0 };
	const char *line, *eol = "\n";
	char *file;
	bool exists = false;
	int rc = split_remote_first(value, &file, &line);

	if (!rc)
		rc = imgp_custom_read_root_(run, file, &old, &exists);
	for (const char *p = exists ? (char *)old.data : NULL; !rc && p && *p;) {
		size_t n = strcspn(p, "\r\n");

		if (n == strlen(line) && strncmp(p, line, n) == 0) {
			imgp_buf_free(&old);
			free(file);
			return 0;
		}
		p += n;
		p += strspn(p, "\r\n") > 2 ? 1 : strspn(p, "\r\n");
	}
	if (!rc && exists) {
		const char *nl = memchr(old.data, '\n', old.len);

		if (nl && nl > (char *)old.data && nl[-1] == '\r')
			eol = "\r\n";
		if (old.len && old.data[old.len - 1] != '\n')
			rc = imgp_buf_printf(&old, "%s", eol);
	}
	if (!rc)
		rc = imgp_buf_printf(&old, "%s%s", line, eol) ?
		     imgp_fail(ENOMEM, "out of memory") : 0;
	if (!rc)
		rc = exists ? imgp_custom_put_(run, file, old.data, old.len, 0, -1, -1, false, NULL)
			    : put_file(run, file, old.data, old.len, 0);
	imgp_buf_free(&old);
	free(file);
	return rc;
}

/* --touch FILE: made empty when missing; an existing one stays as it is. */
static int plan_touch(struct custom_run *run, const char *value)
{
	struct imgp_fs_stat_ st;
	bool exists;
	int rc = stat_arg(run, value, &st, &exists);

	if (rc || exists)
		return rc;
	return put_file(run, value, "", 0, 0);
}

/* --chmod PERMISSIONS:FILE */
static int plan_chmod(struct custom_run *run, const char *value)
{
	const char *colon = strchr(value, ':');
	const struct imgp_part *part;
	char *path;
	int rc = imgp_custom_locate_follow_(run, colon + 1, &part, &path);

	if (!rc)
		rc = imgp_patch_attr_(run->patch, part, path,
				     (int)strtoul(value, NULL, 8), -1, -1);
	free(path);
	return rc;
}

/* --delete PATH: rm -rf. */
static int plan_delete(struct custom_run *run, const char *value)
{
	const struct imgp_part *part;
	char *path;
	int rc = imgp_custom_locate_(run, value, &part, &path);

	if (!rc && strcmp(path, "/") == 0)
		rc = imgp_fail(EINVAL, "%s: refusing to delete a whole filesystem", value);
	if (!rc)
		rc = imgp_patch_delete_(run->patch, part, path);
	free(path);
	return rc;
}

/* --link TARGET:LINK[:LINK...] */
static int plan_link(struct custom_run *run, const char *value)
{
	const char *colon = strchr(value, ':');
	char *target = strndup(value, (size_t)(colon - value));
	int rc = target ? 0 : imgp_fail(ENOMEM, "out of memory");

	for (const char *p = colon + 1; !rc && *p;) {
		size_t n = strcspn(p, ":");
		char *link = strndup(p, n);

		rc = link ? imgp_custom_link_(run, link, target) : imgp_fail(ENOMEM, "out of memory");
		free(link);
		p += n + (p[n] == ':');
	}
	free(target);
	return rc;
}

/* A local file's bytes and permission bits. */
static int read_local_file(const char *local, struct imgp_buf *data, unsigned *mode)
{
	struct stat st;

	if (stat(local, &st) < 0)
		return imgp_fail(errno, "%s: %s", local, strerror(errno));
	*mode = st.st_mode & 07777;
	return imgp_read_local_(local, LOCAL_FILE_MAX, false, data);
}

/* --upload FILE:DEST: DEST a file, or a folder that gets FILE's name. */
static int plan_upload(struct custom_run *run, const char *value)
{
	struct imgp_buf data = { 0 };
	struct imgp_fs_stat_ st;
	const char *dest, *base;
	char *local, *into = NULL;
	unsigned mode = 0;
	bool exists = false;
	int rc = split_local_first(value, &local, &dest);

	if (!rc)
		rc = read_local_file(local, &data, &mode);
	if (!rc)
		rc = stat_arg(run, dest, &st, &exists);
	if (!rc && exists && st.type == IMGP_FS_DIR) {
		base = strrchr(local, '/') ? strrchr(local, '/') + 1 : local;
		rc = asprintf(&into, "%s%s%s", dest, dest[strlen(dest) - 1] == '/' ? "" : "/",
			      base) < 0 ? imgp_fail(ENOMEM, "out of memory") : 0;
		dest = into;
	}
	if (!rc)
		rc = put_file(run, dest, data.data, data.len, mode);
	imgp_buf_free(&data);
	free(local);
	free(into);
	return rc;
}

static int copy_in(struct custom_run *run, const char *local, const char *remote,
		   unsigned depth);

/* Each entry of the local folder, in name order (so that re-runs plan alike). */
static int copy_in_folder(struct custom_run *run, const char *local,
			  const char *remote, unsigned depth)
{
	struct dirent **names = NULL;
	int n = scandir(local, &names, NULL, alphasort), rc = 0;

	if (n < 0)
		return imgp_fail(errno, "%s: %s", local, strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *from = NULL, *to = NULL;

		if (!rc && strcmp(name, ".") && strcmp(name, "..")) {
			if (asprintf(&from, "%s/%s", local, name) < 0 ||
			    asprintf(&to, "%s/%s", strcmp(remote, "/") ? remote : "", name) < 0)
				rc = imgp_fail(ENOMEM, "out of memory");
			else
				rc = copy_in(run, from, to, depth + 1);
		}
		free(from);
		free(to);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int copy_in(struct custom_run *run, const char *local, const char *remote,
		   unsigned depth)
{
	struct imgp_buf data = { 0 };
	struct stat st;
	int rc;

	if (depth > COPY_IN_DEPTH)
		return imgp_fail(ELOOP, "%s: folders nested deeper than %d", local, COPY_IN_DEPTH);
	if (lstat(local, &st) < 0)
		return imgp_fail(errno, "%s: %s", local, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		rc = imgp_custom_mkdir_p_(run, remote, st.st_mode & 07777, -1, -1);
		return rc ? rc : copy_in_folder(run, local, remote, depth);
	}
	if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlink(local, target, sizeof(target) - 1);

		if (n < 0)
			return imgp_fail(errno, "%s: %s", local, strerror(errno));
		target[n] = '\0';
		return imgp_custom_link_(run, remote, target);
	}
	if (!S_ISREG(st.st_mode))
		return imgp_fail(EINVAL, "%s: not a file, folder or symbolic link", local);
	rc = imgp_read_local_(local, LOCAL_FILE_MAX, true, &data);
	if (!rc)
		rc = imgp_custom_put_(run, remote, data.data, data.len, st.st_mode & 07777, -1, -1,
				false, NULL);
	imgp_buf_free(&data);
	return rc;
}

/* --copy-in LOCALPATH:REMOTEDIR: REMOTEDIR must be a folder already there. */
static int plan_copy_in(struct custom_run *run, const char *value)
{
	struct imgp_fs_stat_ st;
	const char *remote;
	char *local, *to = NULL, *base, *trim;
	bool exists = false;
	struct stat lst;
	int rc = split_local_first(value, &local, &remote);

	if (rc)
		return rc;
	/* "dir/" copies dir itself, as cp -r does. */
	for (size_t n = strlen(local); n > 1 && local[n - 1] == '/'; n--)
		local[n - 1] = '\0';
	if (lstat(local, &lst) < 0)
		rc = imgp_fail(errno, "%s: %s", local, strerror(errno));
	if (!rc)
		rc = stat_arg(run, remote, &st, &exists);
	if (!rc && (!exists || st.type != IMGP_FS_DIR))
		rc = imgp_fail(ENOENT, "%s: no folder there in the image (make it with --mkdir)",
			       remote);
	if (!rc) {
		trim = strrchr(local, '/');
		base = trim ? trim + 1 : local;
		rc = asprintf(&to, "%s%s%s", remote, remote[strlen(remote) - 1] == '/' ? "" : "/",
			      base) < 0 ? imgp_fail(ENOMEM, "out of memory") : 0;
	}
	if (!rc)
		rc = copy_in(run, local, to, 0);
	free(local);
	free(to);
	return rc;
}

int imgp_custom_plan_file_op_(struct custom_run *run, const char *op, const char *value)
{
	static const struct {
		const char *name;
		int (*plan)(struct custom_run *run, const char *value);
	} ops[] = {
		{ "copy-in", plan_copy_in }, { "upload", plan_upload },
		{ "write", plan_write }, { "append-line", plan_append_line },
		{ "chmod", plan_chmod }, { "delete", plan_delete },
		{ "link", plan_link }, { "touch", plan_touch },
	};

	if (strcmp(op, "mkdir") == 0)
		return imgp_custom_mkdir_p_(run, value, 0, -1, -1);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(ops[i].name, op) == 0)
			return ops[i].plan(run, value);
	return imgp_fail(EINVAL, "--%s: not a file option", op);
}
