// SPDX-License-Identifier: MIT
/*
 * Recipes: a named, documented patch read from a libconfuse file. Loading
 * checks everything that needs no image (actions, options, paths, the local
 * files a recipe names, parameter references); binding fixes the
 * parameters and checks the steps again with their values in place;
 * matching checks the image; applying runs the steps through the patch
 * operations, so a recipe can do nothing that the patch command cannot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recipe-internal.h"

/* ------------------------------------------------------- string pool */

const char *imgp_recipe_pool_keep_(struct imgp_recipe *r, char *s)
{
	if (!s)
		return NULL;
	if (r->npool == r->cappool) {
		size_t cap = r->cappool ? 2 * r->cappool : 64;
		char **grown = realloc(r->pool, cap * sizeof(*grown));

		if (!grown) {
			free(s);
			return NULL;
		}
		r->pool = grown;
		r->cappool = cap;
	}
	r->pool[r->npool++] = s;
	return s;
}

const char *imgp_recipe_pool_dup_(struct imgp_recipe *r, const char *s)
{
	return imgp_recipe_pool_keep_(r, strdup(s));
}


/* -------------------------------------------------------- accessors */

const char *imgp_recipe_path(const struct imgp_recipe *r)
{
	return r->path;
}

const char *imgp_recipe_name(const struct imgp_recipe *r)
{
	return r->name;
}

const char *imgp_recipe_summary(const struct imgp_recipe *r)
{
	return r->summary;
}

const char *imgp_recipe_description(const struct imgp_recipe *r)
{
	return r->description;
}

const char *imgp_recipe_source(const struct imgp_recipe *r)
{
	return r->source;
}

const char *imgp_recipe_risks(const struct imgp_recipe *r)
{
	return r->risks;
}

const char *imgp_recipe_undo(const struct imgp_recipe *r)
{
	return r->undo;
}

size_t imgp_recipe_params(const struct imgp_recipe *r,
			  const struct imgp_recipe_param **params)
{
	*params = r->params;
	return r->nparams;
}


/* ------------------------------------------------------------ applying */

int imgp_recipe_apply(const struct imgp_recipe *r, struct imgp_patch *patch)
{
	int rc = imgp_recipe_check_bound_(r);

	for (size_t i = 0; !rc && i < r->nsteps; i++) {
		const struct recipe_step *st = &r->steps[i];

		if (!imgp_recipe_step_runs_(r, st))
			continue;
		imgp_errclear_();
		rc = st->action->run(patch, st);
		if (rc)
			imgp_fail_ctx(rc, "step %zu (%s)", i + 1, st->action->name);
	}
	return rc;
}
