// SPDX-License-Identifier: MIT
/*
 * Binding: fixes a recipe's parameters from --set values and defaults,
 * substitutes them into the steps and rules and checks the steps again
 * with their values in place.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recipe-internal.h"

/* ---------------------------------------------------------- binding */

/* The hint for a required parameter that was not given. */
static int required_error(const struct imgp_recipe_param *p)
{
	char list[512];
	size_t off = 0;

	list[0] = '\0';
	for (size_t i = 0; i < p->nvalues && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					i ? ", " : "", p->values[i]);
	if (p->nvalues)
		return imgp_fail(EINVAL, "parameter '%s' is required (one of: %s): give --set %s=%s",
				 p->name, list, p->name, p->values[0]);
	if (p->is_int && p->has_min && p->has_max)
		return imgp_fail(EINVAL, "parameter '%s' is required (%ld..%ld): give --set %s=%ld",
				 p->name, p->min, p->max, p->name, p->min);
	return imgp_fail(EINVAL, "parameter '%s' is required (%s): give --set %s=VALUE",
			 p->name, p->description, p->name);
}

/* Substitutes the bound values into s; *out is pooled. */
static int substitute(struct imgp_recipe *r, const char *s,
		      const char *const *values, const char **out)
{
	struct imgp_buf b = { 0 };
	char why[512];
	int rc;

	rc = imgp_buf_append(&b, "", 0);
	if (!rc)
		rc = imgp_recipe_walk_refs_(r, s, values, &b, why, sizeof(why));
	if (rc) {
		imgp_buf_free(&b);
		/* References were checked at load time: only memory is left. */
		return rc == -ENOMEM ? imgp_fail(ENOMEM, "out of memory")
				     : imgp_fail(EINVAL, "%s", why);
	}
	*out = imgp_recipe_pool_keep_(r, (char *)imgp_buf_steal_(&b, NULL));
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/*
 * Stage 1: the value of every parameter, from SETS (NAME=VALUE, an alias
 * given for its value) or else its default; a required one must be given.
 */
static int bind_values(struct imgp_recipe *r, const char *const *sets,
		       size_t nsets, const char **values)
{
	char names[512];
	long num;
	int rc = 0;

	for (size_t i = 0; !rc && i < nsets; i++) {
		const char *eq = strchr(sets[i], '='), *given;
		struct imgp_recipe_param *p;

		if (!eq || eq == sets[i])
			return imgp_fail(EINVAL, "'%s': expected NAME=VALUE", sets[i]);
		p = imgp_recipe_find_param_(r, sets[i], (size_t)(eq - sets[i]));
		if (!p) {
			imgp_recipe_param_names_(r, names, sizeof(names));
			return r->nparams ?
				imgp_fail(EINVAL, "recipe '%s' has no parameter '%.*s' (parameters: %s)",
					  r->name, (int)(eq - sets[i]), sets[i], names) :
				imgp_fail(EINVAL, "recipe '%s' has no parameter '%.*s' (it takes none)",
					  r->name, (int)(eq - sets[i]), sets[i]);
		}
		if (values[p - r->params])
			return imgp_fail(EINVAL, "parameter '%s' is given twice", p->name);
		given = eq + 1;
		for (size_t k = 0; k < p->naliases; k++)
			if (!strcmp(p->alias_given[k], given))
				given = p->alias_value[k];
		rc = imgp_recipe_param_check_(r, p, given, &num);
		if (!rc) {
			values[p - r->params] = imgp_recipe_param_norm_(r, p, given, num);
			if (!values[p - r->params])
				rc = imgp_fail(ENOMEM, "out of memory");
		}
	}
	for (size_t i = 0; !rc && i < r->nparams; i++) {
		if (values[i])
			continue;
		if (r->params[i].required)
			rc = required_error(&r->params[i]);
		else
			values[i] = r->params[i].def;
	}
	return rc;
}

/* Stage 2: every step's options with VALUES in place, each checked again. */
static int bind_steps(struct imgp_recipe *r, const char *const *values)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < r->nsteps; i++) {
		struct recipe_step *st = &r->steps[i];

		st->local = NULL;
		for (const struct action_opt *ao = st->action->opts; !rc && ao->flags; ao++) {
			const char *bad;
			char why[1024];

			st->val[ao->opt] = NULL;
			if (!st->raw[ao->opt])
				continue;
			rc = substitute(r, st->raw[ao->opt], values, &st->val[ao->opt]);
			if (rc)
				break;
			bad = imgp_recipe_check_value_(ao->kind, st->val[ao->opt], true, why,
						 sizeof(why));
			if (bad)
				rc = imgp_fail(EINVAL, "%s:%d: step %zu (%s): %s '%s': %s",
					       r->path, st->line, i + 1,
					       st->action->name, opt_names[ao->opt],
					       st->val[ao->opt], bad);
		}
		if (!rc) {
			const char *bad = imgp_recipe_check_step_(st->action, st->val);

			if (bad)
				rc = imgp_fail(EINVAL, "%s:%d: step %zu (%s): %s", r->path,
					       st->line, i + 1, st->action->name, bad);
		}
	}
	return rc;
}

/* Stage 3: every match rule with VALUES in place, each checked again. */
static int bind_rules(struct imgp_recipe *r, const char *const *values)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < r->nrules; i++) {
		struct match_rule *rule = &r->rules[i];
		char why[1024];
		const char *bad;

		rc = substitute(r, rule->raw, values, &rule->val);
		if (rc)
			break;
		if (rule->kind == R_FILE) {
			const char *colon = strchr(rule->val, ':');
			char part[256];

			bad = "must be PART:/PATH (as boot:/image.fit)";
			if (colon && colon[1] == '/') {
				snprintf(part, sizeof(part), "%.*s",
					 (int)(colon - rule->val), rule->val);
				bad = imgp_recipe_check_value_(K_PART, part, true, why, sizeof(why));
				if (!bad)
					bad = imgp_recipe_check_value_(K_FSPATH, colon + 1, true,
								 why, sizeof(why));
			}
		} else {
			bad = imgp_recipe_check_value_(rule->kind == R_PART ? K_PART : K_WORD,
						 rule->val, true, why, sizeof(why));
		}
		if (bad)
			rc = imgp_fail(EINVAL, "%s:%d: match: %s '%s': %s", r->path,
				       rule->line, rule_keys[rule->kind], rule->val,
				       bad);
	}
	return rc;
}

/* A recipe's binding as it was, put back when a new one fails a check. */
struct bind_saved {
	const char **val;    /* OP_COUNT a step */
	const char **local;  /* one a step */
	const char **rule;   /* one a match rule */
};

static int bind_save(const struct imgp_recipe *r, struct bind_saved *saved)
{
	saved->val = calloc(r->nsteps * OP_COUNT + 1, sizeof(*saved->val));
	saved->local = calloc(r->nsteps + 1, sizeof(*saved->local));
	saved->rule = calloc(r->nrules + 1, sizeof(*saved->rule));
	if (!saved->val || !saved->local || !saved->rule)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nsteps; i++) {
		memcpy(saved->val + i * OP_COUNT, r->steps[i].val,
		       sizeof(r->steps[i].val));
		saved->local[i] = r->steps[i].local;
	}
	for (size_t i = 0; i < r->nrules; i++)
		saved->rule[i] = r->rules[i].val;
	return 0;
}

static void bind_restore(struct imgp_recipe *r, const struct bind_saved *saved)
{
	for (size_t i = 0; i < r->nsteps; i++) {
		memcpy(r->steps[i].val, saved->val + i * OP_COUNT,
		       sizeof(r->steps[i].val));
		r->steps[i].local = saved->local[i];
	}
	for (size_t i = 0; i < r->nrules; i++)
		r->rules[i].val = saved->rule[i];
}

int imgp_recipe_bind(struct imgp_recipe *r, const char *const *sets,
		     size_t nsets)
{
	const char **values = calloc(r->nparams ? r->nparams : 1, sizeof(*values));
	struct bind_saved saved = { 0 };
	int rc;

	if (!values)
		return imgp_fail(ENOMEM, "out of memory");
	rc = bind_values(r, sets, nsets, values);
	/* Keep the old binding until the new one has passed every check. */
	if (!rc)
		rc = bind_save(r, &saved);
	if (rc)
		goto out;
	rc = bind_steps(r, values);
	if (!rc)
		rc = bind_rules(r, values);
	if (!rc)
		rc = imgp_recipe_resolve_locals_(r, true, NULL);
	if (rc) {
		bind_restore(r, &saved);
		goto out;
	}
	for (size_t i = 0; i < r->nparams; i++)
		r->params[i].value = values[i];
	r->bound = true;
out:
	free(saved.val);
	free(saved.local);
	free(saved.rule);
	free(values);
	return rc;
}

int imgp_recipe_check_bound_(const struct imgp_recipe *r)
{
	if (r->bound)
		return 0;
	for (size_t i = 0; i < r->nparams; i++)
		if (r->params[i].required && !r->params[i].value)
			return required_error(&r->params[i]);
	return imgp_fail(EINVAL, "recipe '%s': parameters are not bound", r->name);
}
