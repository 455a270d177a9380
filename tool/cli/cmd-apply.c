// SPDX-License-Identifier: MIT
/*
 * imgpatch apply RECIPE IMAGE: a board recipe as one checked transaction.
 * The recipe is bound and matched against the image, every step planned,
 * and only then is anything written (or, with --dry-run, nothing).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct apply_opts {
	const char *recipe;
	const char *image;
	struct cli_io io;
	size_t nsets, npaths;
	const char **sets;
	char **paths;
};

static void apply_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch apply RECIPE IMAGE [--set NAME=VALUE]... [-o OUT] [--dry-run]\n"
		"                      [--recipe-path DIR]...\n"
		"Apply a recipe (a shipped name, see 'imgpatch recipes', or a .recipe file)\n"
		"to IMAGE. Every step is planned and checked before the first byte is\n"
		"written; one failing step means nothing is written.\n\n"
		"  --set NAME=VALUE      a recipe parameter; repeatable\n"
		CLI_IO_HELP
		"  --recipe-path DIR     look for recipes in DIR first; repeatable\n"
		"  -h, --help            this help\n\n"
		"Exit status: 0 done (also when already applied), 1 error, 2 usage error.\n");
}

static void *grow(void *p, size_t n, size_t size)
{
	p = realloc(p, (n + 1) * size);
	if (!p)
		die("out of memory");
	return p;
}

static int parse_args(int argc, char **argv, struct apply_opts *o)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		CLI_IO_OPTIONS,
		{ "recipe-path", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "o:nh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return usage_error("apply", "--set '%s' is not NAME=VALUE", optarg);
			o->sets = grow(o->sets, o->nsets, sizeof(*o->sets));
			o->sets[o->nsets++] = optarg;
			break;
		case 'R':
			o->paths = grow(o->paths, o->npaths, sizeof(*o->paths));
			o->paths[o->npaths++] = optarg;
			break;
		case 'h': apply_usage(stdout); return -1;
		default:
			rc = cli_io_option(&o->io, "apply", c, optarg);
			if (rc != 1)
				return rc ? rc : usage_error("apply", "bad option");
		}
	}
	if (argc - optind != 2)
		return usage_error("apply", "apply takes RECIPE and IMAGE");
	o->recipe = argv[optind];
	o->image = o->io.image = argv[optind + 1];
	return 0;
}

/* Loads and binds the recipe; nothing about the image yet. */
static int load_recipe(const struct apply_opts *o, struct imgp_recipe **r)
{
	struct cli_recipe_path rp;
	char *path = NULL;
	int rc;

	cli_recipe_path_init(&rp, o->paths, o->npaths);
	rc = imgp_recipe_find(o->recipe, (const char *const *)rp.dirs, &path);
	if (!rc)
		rc = imgp_recipe_load(path, r);
	if (!rc)
		rc = imgp_recipe_bind(*r, o->sets, o->nsets);
	free(path);
	cli_recipe_path_free(&rp);
	return rc;
}

int cmd_apply(int argc, char **argv)
{
	struct apply_opts o = { 0 };
	struct imgp_recipe *r = NULL;
	struct imgp_patch patch;
	struct imgp_disk disk;
	int rc;

	cli_io_init(&o.io);
	rc = parse_args(argc, argv, &o);
	if (rc)
		goto out;
	if (load_recipe(&o, &r)) {
		/* Recipe messages already start with the recipe file. */
		error("%s", imgp_errmsg());
		rc = EXIT_ERROR;
		goto out;
	}
	rc = cli_io_open(&o.io, "apply");
	if (rc)
		goto out;
	if (imgp_disk_open(&disk, o.io.work, false)) {
		rc = error_lib(o.image);
		goto out_io;
	}
	imgp_patch_init(&patch, &disk);
	if (imgp_recipe_match(r, &patch) || imgp_recipe_apply(r, &patch)) {
		rc = error_lib(o.image);
	} else {
		printf("recipe %s: %s\n", imgp_recipe_name(r),
		       imgp_patch_pending(&patch) ? "planned" : "already applied");
		rc = cli_io_commit(&o.io, &patch);
	}
	imgp_patch_free(&patch);
	imgp_disk_close(&disk);
out_io:
	cli_io_close(&o.io);
out:
	imgp_recipe_free(r);
	free(o.sets);
	free(o.paths);
	return rc < 0 ? EXIT_OK : rc;
}
