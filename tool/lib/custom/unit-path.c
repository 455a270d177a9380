// SPDX-License-Identifier: MIT
/*
 * A root read through struct imgp_unit_root (custom.h): paths taken
 * apart and joined, links resolved inside the root as systemd's
 * chase_symlinks() does with a root, and the unit search path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "custom/units.h"

/*
 * The system search path in its order, as lookup_paths_init() builds it
 * for Debian 12 (split-usr=true, so SYSTEM_DATA_UNIT_DIR is
 * /lib/systemd/system). The /run folders are left out: an image at rest
 * has nothing there, and systemctl --root reads them inside the root too.
 */
static const char *const unit_search_path[] = {
	"/etc/systemd/system.control",
	"/etc/systemd/system",
	"/etc/systemd/system.attached",
	"/usr/local/lib/systemd/system",
	"/lib/systemd/system",
	"/usr/lib/systemd/system",
};
#define UNIT_SEARCH_N (sizeof(unit_search_path) / sizeof(unit_search_path[0]))

const char *imgp_unit_search_dir_(size_t k)
{
	return k < UNIT_SEARCH_N ? unit_search_path[k] : NULL;
}

int imgp_unit_strv_push_(struct unit_strv *s, const char *str)
{
	char **grown = realloc(s->v, (s->n + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	s->v = grown;
	s->v[s->n] = strdup(str);
	if (!s->v[s->n])
		return -ENOMEM;
	s->n++;
	return 0;
}

void imgp_unit_strv_free_(struct unit_strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

bool imgp_unit_strv_has_(const struct unit_strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], str))
			return true;
	return false;
}

const char *imgp_unit_basename_(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The folder of an absolute path, malloc'd ("/" for "/x"). */
char *imgp_unit_dirname_(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

char *imgp_unit_join_(const char *dir, const char *name)
{
	char *out;

	if (asprintf(&out, "%s%s%s", dir,
		     dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name) < 0)
		return NULL;
	return out;
}

/* A buffer the callbacks filled, as a string: -EINVAL when it holds a NUL. */
static int unit_buf_string(struct imgp_buf *b, const char *path, char **out)
{
	*out = NULL;
	if (b->len && memchr(b->data, '\0', b->len))
		return imgp_fail(EINVAL, "%s: a NUL byte", path);
	*out = strndup(b->len ? (const char *)b->data : "", b->len);
	return *out ? 0 : -ENOMEM;
}

int imgp_unit_readlink_(struct unit_ctx *c, const char *path, char **target)
{
	struct imgp_buf b = { 0 };
	int rc;

	*target = NULL;
	rc = c->root->readlink(c->root->arg, path, &b);
	if (!rc) {
		rc = unit_buf_string(&b, path, target);
		if (!rc && (!**target || strlen(*target) >= UNIT_PATH_MAX)) {
			rc = imgp_fail(EINVAL, "%s: a link to '%s'", path, *target);
			free(*target);
			*target = NULL;
		}
	}
	imgp_buf_free(&b);
	return rc;
}

/*
 * path with "." and ".." taken out and no link followed, in the root
 * (CHASE_NOFOLLOW|CHASE_NONEXISTENT); relative paths are taken from dir.
 */
int imgp_unit_normalize_(const char *dir, const char *path, char **out)
{
	char *full, *res;
	size_t len = 0;

	*out = NULL;
	full = path[0] == '/' ? strdup(path) : imgp_unit_join_(dir, path);
	if (!full)
		return -ENOMEM;
	res = malloc(strlen(full) + 2);
	if (!res) {
		free(full);
		return -ENOMEM;
	}
	for (char *p = full, *e; *p; p = e) {
		while (*p == '/')
			p++;
		e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);

		if (!n || (n == 1 && p[0] == '.'))
			continue;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len && res[len - 1] != '/')
				len--;
			if (len)
				len--;
			continue;
		}
		res[len++] = '/';
		memcpy(res + len, p, n);
		len += n;
	}
	if (!len)
		res[len++] = '/';
	res[len] = '\0';
	free(full);
	*out = res;
	return 0;
}

/*
 * path in the root with every link followed (the last one too when
 * follow_last), as chase_symlinks(CHASE_NONEXISTENT) with a root: an
 * absolute link starts again at the root, ".." never leaves it, a missing
 * part ends the following. -ELOOP after UNIT_LINKS_MAX links.
 */
int imgp_unit_chase_(struct unit_ctx *c, const char *path, bool follow_last,
		    char **out)
{
	char *todo = strdup(path), *done = strdup(""), *cand = NULL, *target = NULL;
	const char *p;
	unsigned links = 0;
	int rc = 0;

	*out = NULL;
	if (!todo || !done) {
		rc = -ENOMEM;
		goto out;
	}
	for (p = todo; *p;) {
		const char *e, *rest;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		n = (size_t)(e - p);
		for (rest = e; *rest == '/'; rest++)
			;
		if (n == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(done, '/');

			if (slash)
				*slash = '\0';
			p = e;
			continue;
		}
		if (asprintf(&cand, "%s/%.*s", done, (int)n, p) < 0) {
			cand = NULL;
			rc = -ENOMEM;
			goto out;
		}
		if (strlen(cand) >= UNIT_PATH_MAX) {
			rc = imgp_fail(ENAMETOOLONG, "%s: path too long", path);
			goto out;
		}
		if (*rest || follow_last) {
			rc = imgp_unit_readlink_(c, cand, &target);
			if (!rc) {
				char *next;

				if (++links > UNIT_LINKS_MAX) {
					rc = imgp_fail(ELOOP, "%s: too many levels of links", path);
					goto out;
				}
				if (asprintf(&next, "%s/%s", target, rest) < 0) {
					rc = -ENOMEM;
					goto out;
				}
				if (target[0] == '/')
					done[0] = '\0';
				free(todo);
				todo = next;
				p = todo;
				free(target);
				target = NULL;
				free(cand);
				cand = NULL;
				continue;
			}
			if (rc != -EINVAL && rc != -ENOENT && rc != -ENOTDIR)
				goto out;
			rc = 0;
		}
		free(done);
		done = cand;
		cand = NULL;
		p = e;
	}
	*out = strdup(*done ? done : "/");
	if (!*out)
		rc = -ENOMEM;
out:
	free(todo);
	free(done);
	free(cand);
	free(target);
	return rc;
}

/* The whole file at a path in the root (links followed); -ENOENT. */
int imgp_unit_read_(struct unit_ctx *c, const char *path, char **text)
{
	struct imgp_buf b = { 0 };
	char *canon;
	int rc;

	*text = NULL;
	rc = imgp_unit_chase_(c, path, true, &canon);
	if (rc)
		return rc;
	rc = c->root->read(c->root->arg, canon, &b);
	if (!rc && b.len > UNIT_FILE_MAX)
		rc = imgp_fail(EFBIG, "%s: over %u bytes", path, UNIT_FILE_MAX);
	if (!rc)
		rc = unit_buf_string(&b, path, text);
	imgp_buf_free(&b);
	free(canon);
	return rc;
}

/* Whether path's folder is one of the search path's (in_search_path). */
bool imgp_unit_in_search_path_(const char *path)
{
	char *dir = imgp_unit_dirname_(path);
	bool in = false;

	for (size_t i = 0; dir && i < UNIT_SEARCH_N; i++)
		in = in || !strcmp(dir, unit_search_path[i]);
	free(dir);
	return in;
}

/* path_startswith_strv(path, search_path): below a folder of the search path. */
bool imgp_unit_under_search_path_(const char *path)
{
	for (size_t i = 0; i < UNIT_SEARCH_N; i++) {
		size_t n = strlen(unit_search_path[i]);

		if (!strncmp(path, unit_search_path[i], n) && path[n] == '/')
			return true;
	}
	return false;
}
