// SPDX-License-Identifier: MIT
/*
 * Where recipes are looked up, first match wins: --recipe-path DIRs, then
 * $IMGPATCH_RECIPE_PATH (colon-separated), then "recipes" beside the
 * executable (a build tree), then the installed recipe directory.
 */
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
