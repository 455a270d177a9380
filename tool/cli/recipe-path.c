// SPDX-License-Identifier: MIT
/*
 * Where recipes are looked up, first match wins: --recipe-path DIRs, then
 * $IMGPATCH_RECIPE_PATH (colon-separated), then "recipes" beside the
 * executable (a build tree), then the installed recipe directory.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#ifndef IMGP_RECIPE_DIR
#define IMGP_RECIPE_DIR "/usr/local/share/imgpatch/recipes"
#endif

#define RECIPE_DIRS_MAX 64

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_dir(struct cli_recipe_path *rp, const char *dir)
{
	char *copy;

	if (!*dir || rp->n >= RECIPE_DIRS_MAX)
		return;
	for (size_t i = 0; i < rp->n; i++)
		if (strcmp(rp->dirs[i], dir) == 0)
			return;
	copy = strdup(dir);
	if (!copy)
		die("out of memory");
	rp->dirs[rp->n++] = copy;
	rp->dirs[rp->n] = NULL;
}

void cli_recipe_path_init(struct cli_recipe_path *rp, char *const *extra,
			  size_t nextra)
{
	char exe[PATH_MAX];
	const char *env = getenv("IMGPATCH_RECIPE_PATH");
	ssize_t n;

	rp->dirs = calloc(RECIPE_DIRS_MAX + 1, sizeof(*rp->dirs));
	if (!rp->dirs)
		die("out of memory");
	rp->n = 0;
	for (size_t i = 0; i < nextra; i++)
		add_dir(rp, extra[i]);
	if (env) {
		char *copy = strdup(env), *save = NULL;

		if (!copy)
			die("out of memory");
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
			add_dir(rp, d);
		free(copy);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - sizeof("/recipes"));
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			strcpy(slash, "/recipes");
			if (is_dir(exe))
				add_dir(rp, exe);
		}
	}
	add_dir(rp, IMGP_RECIPE_DIR);
}

void cli_recipe_path_free(struct cli_recipe_path *rp)
{
	for (size_t i = 0; i < rp->n; i++)
		free(rp->dirs[i]);
	free(rp->dirs);
	rp->dirs = NULL;
	rp->n = 0;
}

/* The recipe names of the path's folders ("NAME" of NAME.recipe), malloc'd. */
static size_t recipe_names(const struct cli_recipe_path *rp, char ***out)
{
	char **names = NULL;
	size_t n = 0;

	for (size_t i = 0; i < rp->n; i++) {
		DIR *d = opendir(rp->dirs[i]);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			size_t len = strlen(e->d_name);

			if (len <= 7 || strcmp(e->d_name + len - 7, ".recipe"))
				continue;
			names = cli_grow(names, n, sizeof(*names));
			names[n] = strndup(e->d_name, len - 7);
			if (!names[n++])
				die("out of memory");
		}
		if (d)
			closedir(d);
	}
	*out = names;
	return n;
}

int cli_recipe_find(const struct cli_recipe_path *rp, const char *spec,
		    char **path)
{
	int rc = imgp_recipe_find(spec, (const char *const *)rp->dirs, path);
	char **names, *msg;
	const char *near;
	size_t n;

	/* A name, not a path, that is not there: maybe a typo of one that is. */
	if (rc != -ENOENT || strchr(spec, '/'))
		return rc;
	n = recipe_names(rp, &names);
	near = cli_closest(spec, (const char *const *)names, n);
	if (near) {
		msg = strdup(imgp_errmsg());
		if (!msg)
			die("out of memory");
		rc = imgp_fail(ENOENT, "%s; did you mean '%s'?", msg, near);
		free(msg);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}
