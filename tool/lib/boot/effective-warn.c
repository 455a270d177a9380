// SPDX-License-Identifier: MIT
/*
 * The warnings met building effective trees, logged for the trees a
 * command touches. A config.txt line every tree meets (dtparam=audio=on
 * on a Pi OS image of eight trees) is one problem: it is said once, with
 * how many trees have it, not once per tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "boot/boot.h"

struct said {
	char *key;               /* the line without its tree's "PATH: " */
	const char *line;        /* as the tree met it */
	size_t first;            /* order of its first line among all */
	size_t tree;             /* the tree's index */
	size_t ntrees;           /* the first line of a problem: trees with it; else 0 */
};

/* line without "PATH: " naming the tree it is about; NULL: out of memory. */
static char *warning_key(const char *line, const char *path)
{
	const char *at = path && *path ? strstr(line, path) : NULL;
	size_t plen = at ? strlen(path) : 0;
	char *key = NULL;

	if (at && at[plen] == ':' && at[plen + 1] == ' ') {
		if (asprintf(&key, "%.*s%s", (int)(at - line), line, at + plen + 2) < 0)
			key = NULL;
	} else {
		key = strdup(line);
	}
	return key;
}

static int by_key(const void *a, const void *b)
{
	const struct said *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->first < y->first ? -1 : x->first > y->first;
}

static int by_first(const void *a, const void *b)
{
	const struct said *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

void imgp_effective_warn_(struct imgp_ctx *ctx, const struct imgp_effective *trees,
			 size_t n)
{
	struct said *all;
	size_t total = 0, k = 0;
	bool oom = false;

	for (size_t i = 0; i < n; i++)
		total += trees[i].nwarnings;
	if (!total)
		return;
	all = calloc(total, sizeof(*all));
	for (size_t i = 0; all && i < n; i++)
		for (size_t w = 0; w < trees[i].nwarnings; w++, k++) {
			all[k] = (struct said){ warning_key(trees[i].warnings[w], trees[i].path),
						trees[i].warnings[w], k, i, 0 };
			oom |= !all[k].key;
		}
	/* Out of memory: each line as it is rather than none. */
	if (!all || oom) {
		for (size_t i = 0; i < n; i++)
			for (size_t w = 0; w < trees[i].nwarnings; w++)
				imgp_warn(ctx, "%s", trees[i].warnings[w]);
		for (size_t i = 0; all && i < total; i++)
			free(all[i].key);
		free(all);
		return;
	}
	/* A problem's lines side by side, its first one leading: it says the count. */
	qsort(all, total, sizeof(*all), by_key);
	for (size_t i = 0; i < total;) {
		size_t j = i + 1;

		all[i].ntrees = 1;
		for (; j < total && strcmp(all[j].key, all[i].key) == 0; j++)
			all[i].ntrees += all[j].tree != all[j - 1].tree;
		i = j;
	}
	qsort(all, total, sizeof(*all), by_first);
	for (size_t i = 0; i < total; i++) {
		if (all[i].ntrees > 1)
			imgp_warn(ctx, "%s (%zu trees)", all[i].key, all[i].ntrees);
		else if (all[i].ntrees == 1)
			imgp_warn(ctx, "%s", all[i].line);
		free(all[i].key);
	}
	free(all);
}
