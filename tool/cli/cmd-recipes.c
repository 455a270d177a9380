// SPDX-License-Identifier: MIT
/* imgpatch recipes [show NAME]: the recipes there are, and what one does. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void recipes_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch recipes [--recipe-path DIR]...\n"
		"       imgpatch recipes show RECIPE [--recipe-path DIR]...\n"
		"List the shipped and your own recipes, or show what one changes, its\n"
		"parameters, where it applies, its sources, risks and how to undo it.\n"
		"RECIPE is a name or a path to a .recipe file. Recipes are searched in\n"
		"--recipe-path DIRs, $IMGPATCH_RECIPE_PATH, then the installed ones.\n");
}

static int recipes_list(const struct cli_recipe_path *rp)
{
	struct imgp_recipe **list = NULL;
	size_t n = 0, width = 0;

	if (imgp_recipe_list((const char *const *)rp->dirs, &list, &n))
		return error_lib("recipes");
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
	return EXIT_OK;
}

static int recipes_show(const struct cli_recipe_path *rp, const char *name)
{
	struct imgp_recipe *r = NULL;
	struct imgp_buf text = { 0 };
	char *path = NULL;
	int rc;

	rc = imgp_recipe_find(name, (const char *const *)rp->dirs, &path);
	if (!rc)
		rc = imgp_recipe_load(path, &r);
	if (!rc)
		rc = imgp_recipe_describe(r, &text);
	if (rc) {
		error("%s", imgp_errmsg());
		rc = EXIT_ERROR;
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
	static const struct option opts[] = {
		{ "recipe-path", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_recipe_path rp;
	char **extra = NULL;
	size_t nextra = 0;
	int c, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'R':
			extra = realloc(extra, (nextra + 1) * sizeof(*extra));
			if (!extra)
				die("out of memory");
			extra[nextra++] = optarg;
			break;
		case 'h':
			recipes_usage(stdout);
			free(extra);
			return EXIT_OK;
		default:
			free(extra);
			return usage_error("recipes", "bad option");
		}
	}
	cli_recipe_path_init(&rp, extra, nextra);
	if (optind == argc)
		rc = recipes_list(&rp);
	else if (argc - optind == 2 && strcmp(argv[optind], "show") == 0)
		rc = recipes_show(&rp, argv[optind + 1]);
	else
		rc = usage_error("recipes", "expected nothing or 'show RECIPE'");
	cli_recipe_path_free(&rp);
	free(extra);
	return rc;
}
