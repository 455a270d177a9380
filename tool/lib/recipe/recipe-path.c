// SPDX-License-Identifier: MIT
/*
 * The recipe search path: reading recipe files, finding a recipe by name
 * or path in the recipe directories and listing them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recipe-internal.h"

/* ---------------------------------------------------- file helpers */

bool imgp_recipe_is_regular_(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool imgp_recipe_ends_with_(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}


/* ------------------------------------------------------ finding, listing */

/* "" when dir already ends in '/', so that paths read "dir/x.recipe". */
static const char *dir_sep(const char *dir)
{
	return *dir && dir[strlen(dir) - 1] == '/' ? "" : "/";
}

int imgp_recipe_find(const char *spec, const char *const *dirs, char **path_out)
{
	struct imgp_buf searched = { 0 };
	char name[NAME_MAX + 1];
	int rc;

	*path_out = NULL;
	if (!spec || !*spec)
		return imgp_fail(EINVAL, "empty recipe name");
	if (strchr(spec, '/') || (imgp_recipe_ends_with_(spec, ".recipe") && imgp_recipe_is_regular_(spec))) {
		struct stat st;

		if (stat(spec, &st) < 0) {
			int err = errno;

			return imgp_fail(err, "%s: %s", spec, strerror(err));
		}
		if (!S_ISREG(st.st_mode))
			return imgp_fail(EINVAL, "%s: not a regular file", spec);
		*path_out = strdup(spec);
		return *path_out ? 0 : imgp_fail(ENOMEM, "out of memory");
	}
	snprintf(name, sizeof(name), "%s", spec);
	if (imgp_recipe_ends_with_(name, ".recipe"))
		name[strlen(name) - strlen(".recipe")] = '\0';
	for (size_t i = 0; dirs && dirs[i]; i++) {
		char *path;

		if (asprintf(&path, "%s%s%s.recipe", dirs[i], dir_sep(dirs[i]),
			     name) < 0) {
			imgp_buf_free(&searched);
			return imgp_fail(ENOMEM, "out of memory");
		}
		if (imgp_recipe_is_regular_(path)) {
			imgp_buf_free(&searched);
			*path_out = path;
			return 0;
		}
		free(path);
		if (imgp_buf_printf(&searched, "%s%s", i ? ", " : "", dirs[i])) {
			imgp_buf_free(&searched);
			return imgp_fail(ENOMEM, "out of memory");
		}
	}
	rc = imgp_fail(ENOENT, "no recipe '%s' (searched: %s; see 'imgpatch recipes')",
		       spec, searched.len ? (char *)searched.data : "no directories");
	imgp_buf_free(&searched);
	return rc;
}

static int cmp_recipe(const void *a, const void *b)
{
	const struct imgp_recipe *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static bool seen_name(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

int imgp_recipe_list(struct imgp_ctx *ctx, const char *const *dirs,
		     struct imgp_recipe ***out, size_t *n)
{
	struct imgp_recipe **list = NULL;
	char **names = NULL;
	size_t nlist = 0, nnames = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	for (size_t d = 0; !rc && dirs && dirs[d]; d++) {
		struct dirent *de;
		DIR *dh = opendir(dirs[d]);

		if (!dh) {
			int err = errno;

			/* A search directory that does not exist has no recipes. */
			if (err == ENOENT || err == ENOTDIR)
				continue;
			rc = imgp_fail(err, "%s: %s", dirs[d], strerror(err));
			break;
		}
		while (!rc && (de = readdir(dh))) {
			struct imgp_recipe *r, **grown;
			char **gnames, *path;

			if (de->d_name[0] == '.' || !imgp_recipe_ends_with_(de->d_name, ".recipe"))
				continue;
			/* The first directory's recipe hides later ones. */
			if (seen_name(names, nnames, de->d_name))
				continue;
			gnames = realloc(names, (nnames + 1) * sizeof(*gnames));
			if (!gnames) {
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			names = gnames;
			names[nnames] = strdup(de->d_name);
			if (!names[nnames]) {
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			nnames++;
			if (asprintf(&path, "%s%s%s", dirs[d], dir_sep(dirs[d]),
				     de->d_name) < 0) {
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			if (!imgp_recipe_is_regular_(path)) {
				free(path);
				continue;
			}
			rc = imgp_recipe_load(path, &r);
			free(path);
			if (rc == -ENOMEM)
				break;
			if (rc) {
				imgp_warn(ctx, "%s", imgp_errmsg());
				rc = 0;
				continue;
			}
			grown = realloc(list, (nlist + 1) * sizeof(*grown));
			if (!grown) {
				imgp_recipe_free(r);
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			list = grown;
			list[nlist++] = r;
		}
		closedir(dh);
	}
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (rc) {
		imgp_recipe_list_free(list, nlist);
		return rc;
	}
	if (nlist)
		qsort(list, nlist, sizeof(*list), cmp_recipe);
	*out = list;
	*n = nlist;
	return 0;
}

void imgp_recipe_list_free(struct imgp_recipe **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		imgp_recipe_free(list[i]);
	free(list);
}
