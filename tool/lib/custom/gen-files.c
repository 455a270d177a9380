// SPDX-License-Identifier: MIT
/*
 * The list of files a maker of custom/ returns (custom.h): each one's path,
 * text, mode and whether it holds a secret.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "custom/custom.h"

int imgp_gen_files_add_(struct imgp_gen_files *f, const char *path,
		       const char *text, size_t len, unsigned mode, bool secret)
{
	struct imgp_gen_file *grown, *g;

	grown = realloc(f->v, (f->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	f->v = grown;
	g = &f->v[f->n];
	memset(g, 0, sizeof(*g));
	g->path = strdup(path);
	if (!g->path || imgp_buf_append(&g->text, text, len)) {
		free(g->path);
		imgp_buf_free(&g->text);
		return -ENOMEM;
	}
	g->mode = mode ? mode : 0644;
	g->secret = secret;
	f->n++;
	return 0;
}

void imgp_gen_files_free_(struct imgp_gen_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].path);
		imgp_buf_free(&f->v[i].text);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}
