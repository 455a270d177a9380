// SPDX-License-Identifier: MIT
/*
 * imgpatch recipes [show NAME] [--json]: the recipes there are, and what one
 * does, as text or as one JSON document (tool/schema/recipes.schema.json and
 * recipe.schema.json describe the two documents).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text/json.h"

/* Bump only for a change that is not additive (tool/schema/README.md). */
#define RECIPES_SCHEMA_VERSION 1

enum { OPT_RECIPE_PATH = 256, OPT_JSON };

static const struct cli_option recipes_options[] = {
	{ OPT_JSON, "json", 0, NULL, "print one JSON document (schema_version 1)" },
	{ OPT_RECIPE_PATH, "recipe-path", 0, "DIR", "look for recipes in DIR first; repeatable" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const recipes_tables[] = { recipes_options, NULL };

static const struct cli_command recipes_command = {
	"recipes",
	"Usage: imgpatch recipes [--json] [--recipe-path DIR]...\n"
	"       imgpatch recipes show RECIPE [--json] [--recipe-path DIR]...\n"
	"List the shipped and your own recipes, or show what one changes, its\n"
	"parameters, where it applies, its sources, risks and how to undo it.\n"
	"RECIPE is a name or a path to a .recipe file. Recipes are searched in\n"
	"--recipe-path DIRs, $IMGPATCH_RECIPE_PATH, then the installed ones.\n\n",
	recipes_tables,
	NULL,
};

/* ------------------------------------------------------------------ JSON */

/* A string field that is null when the recipe leaves it out (""). */
static void json_kv_opt(struct imgp_json *j, const char *key, const char *s)
{
	imgp_json_kv_string_(j, key, s && *s ? s : NULL);
}

static void json_param(struct imgp_json *j, const struct imgp_recipe_param *p)
{
	imgp_json_object_begin_(j);
	imgp_json_kv_string_(j, "name", p->name);
	imgp_json_kv_string_(j, "description", p->description);
	imgp_json_kv_string_(j, "type", p->is_int ? "int" : "string");
	imgp_json_kv_bool_(j, "required", p->required);
	imgp_json_kv_bool_(j, "secret", p->secret);
	imgp_json_kv_string_(j, "default", p->def);
	imgp_json_key_(j, "values");
	if (p->nvalues) {
		imgp_json_array_begin_(j);
		for (size_t i = 0; i < p->nvalues; i++)
			imgp_json_string_(j, p->values[i]);
		imgp_json_array_end_(j);
	} else {
		imgp_json_null_(j);
	}
	if (p->has_min)
		imgp_json_kv_int_(j, "min", p->min);
	else
		imgp_json_kv_null_(j, "min");
	if (p->has_max)
		imgp_json_kv_int_(j, "max", p->max);
	else
		imgp_json_kv_null_(j, "max");
	imgp_json_kv_string_(j, "pattern", p->pattern);
	imgp_json_kv_string_(j, "pattern_text", p->pattern_text);
	imgp_json_object_end_(j);
}

static void json_params(struct imgp_json *j, const struct imgp_recipe *r)
{
	const struct imgp_recipe_param *params;
	size_t n = imgp_recipe_params(r, &params);

	imgp_json_key_(j, "parameters");
	imgp_json_array_begin_(j);
	for (size_t i = 0; i < n; i++)
		json_param(j, &params[i]);
	imgp_json_array_end_(j);
}

static int json_steps(struct imgp_json *j, const struct imgp_recipe *r)
{
	struct imgp_buf text = { 0 };
	int rc = 0;

	imgp_json_key_(j, "steps");
	imgp_json_array_begin_(j);
	for (size_t i = 0; !rc && i < imgp_recipe_nsteps(r); i++) {
		const char *action;

		text.len = 0;
		rc = imgp_recipe_step(r, i, &action, &text);
		if (rc)
			break;
		imgp_json_object_begin_(j);
		imgp_json_kv_uint_(j, "number", i + 1);
		imgp_json_kv_string_(j, "action", action);
		imgp_json_key_(j, "text");
		imgp_json_string_len_(j, (const char *)text.data, text.len);
		imgp_json_object_end_(j);
	}
	imgp_json_array_end_(j);
	imgp_buf_free(&text);
	return rc;
}

/* Ends a document; EXIT_OK or EXIT_ERROR after saying why. */
static int json_done(struct imgp_json *j)
{
	int rc = imgp_json_finish_(j);

	if (rc == -EINVAL)
		error("internal error: malformed JSON output");
	else if (rc)
		error("cannot write the output: %s", strerror(-rc));
	return rc ? EXIT_ERROR : EXIT_OK;
}

static int recipes_list_json(const struct cli_recipe_path *rp,
			     struct imgp_recipe **list, size_t n)
{
	struct imgp_json j;

	imgp_json_init_(&j, stdout);
	imgp_json_object_begin_(&j);
	imgp_json_kv_uint_(&j, "schema_version", RECIPES_SCHEMA_VERSION);
	imgp_json_key_(&j, "search_path");
	imgp_json_array_begin_(&j);
	for (size_t i = 0; i < rp->n; i++)
		imgp_json_string_(&j, rp->dirs[i]);
	imgp_json_array_end_(&j);
	imgp_json_key_(&j, "recipes");
	imgp_json_array_begin_(&j);
	for (size_t i = 0; i < n; i++) {
		imgp_json_object_begin_(&j);
		imgp_json_kv_string_(&j, "name", imgp_recipe_name(list[i]));
		imgp_json_kv_string_(&j, "summary", imgp_recipe_summary(list[i]));
		imgp_json_kv_string_(&j, "path", imgp_recipe_path(list[i]));
		json_params(&j, list[i]);
		imgp_json_object_end_(&j);
	}
	imgp_json_array_end_(&j);
	imgp_json_object_end_(&j);
	return json_done(&j);
}

static int recipe_show_json(const struct imgp_recipe *r)
{
	struct imgp_json j;
	int rc;

	imgp_json_init_(&j, stdout);
	imgp_json_object_begin_(&j);
	imgp_json_kv_uint_(&j, "schema_version", RECIPES_SCHEMA_VERSION);
	imgp_json_kv_string_(&j, "name", imgp_recipe_name(r));
	imgp_json_kv_string_(&j, "summary", imgp_recipe_summary(r));
	imgp_json_kv_string_(&j, "path", imgp_recipe_path(r));
	imgp_json_kv_string_(&j, "description", imgp_recipe_description(r));
	imgp_json_kv_string_(&j, "source", imgp_recipe_source(r));
	json_kv_opt(&j, "risks", imgp_recipe_risks(r));
	json_kv_opt(&j, "undo", imgp_recipe_undo(r));
	json_params(&j, r);
	rc = json_steps(&j, r);
	imgp_json_object_end_(&j);
	if (rc) {
		imgp_json_finish_(&j);
		return error_lib(imgp_recipe_name(r));
	}
	return json_done(&j);
}

/* ------------------------------------------------------------------ text */

static int recipes_list(const struct cli_recipe_path *rp, bool json)
{
	struct imgp_recipe **list = NULL;
	size_t n = 0, width = 0;
	int rc = EXIT_OK;

	if (imgp_recipe_list(cli_ctx, (const char *const *)rp->dirs, &list, &n))
		return error_lib("recipes");
	if (json) {
		rc = recipes_list_json(rp, list, n);
		imgp_recipe_list_free(list, n);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(imgp_recipe_name(list[i]));

		width = len > width ? len : width;
	}
	for (size_t i = 0; i < n; i++)
		printf("%-*s  %s\n", (int)width, imgp_recipe_name(list[i]),
		       imgp_recipe_summary(list[i]));
	if (!n)
		printf("no recipes found (searched: %s%s)\n", rp->n ? rp->dirs[0] : "",
		       rp->n > 1 ? ", ..." : "");
	imgp_recipe_list_free(list, n);
	return rc;
}

static int recipes_show(const struct cli_recipe_path *rp, const char *name,
			bool json)
{
	struct imgp_recipe *r = NULL;
	struct imgp_buf text = { 0 };
	char *path = NULL;
	int rc, found;


	rc = found = cli_recipe_find(rp, name, &path);
	if (!rc)
		rc = imgp_recipe_load(path, &r);
	if (!rc)
		rc = imgp_recipe_describe(r, &text);
	if (rc) {
		error("%s", imgp_errmsg());
		/* A name no recipe has is a mistake in what was typed. */
		rc = found == -ENOENT ? EXIT_USAGE : EXIT_ERROR;
	} else if (json) {
		rc = recipe_show_json(r);
	} else {
		fwrite(text.data, 1, text.len, stdout);
		rc = EXIT_OK;
	}
	imgp_buf_free(&text);
	imgp_recipe_free(r);
	free(path);
	return rc;
}

int cmd_recipes(int argc, char **argv)
{
	static const char *const args[] = { "show", "RECIPE" };
	struct cli_recipe_path rp;
	struct cli_parser p;
	char **extra = NULL;
	size_t nextra = 0;
	bool json = false;
	int c = CLI_END, rc = 0;

	cli_parser_init(&p, &recipes_command, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		if (c == OPT_JSON) {
			json = true;
		} else {
			extra = cli_grow(extra, nextra, sizeof(*extra));
			extra[nextra++] = (char *)p.value;
		}
	}
	if (c == CLI_STOP)
		rc = p.exit;
	else
		rc = cli_arguments(&p, 0, 2, args);
	if (!rc && c != CLI_STOP && p.nargs && strcmp(p.args[0], "show"))
		rc = usage_error("recipes", "unexpected argument '%s': expected 'show RECIPE'",
				 p.args[0]);
	else if (!rc && c != CLI_STOP && p.nargs == 1)
		rc = usage_error("recipes", "missing RECIPE");
	if (!rc && c != CLI_STOP) {
		cli_recipe_path_init(&rp, extra, nextra);
		if (p.nargs == 0)
			rc = recipes_list(&rp, json);
		else
			rc = recipes_show(&rp, p.args[1], json);
		cli_recipe_path_free(&rp);
	}
	cli_parser_free(&p);
	free(extra);
	return rc;
}
