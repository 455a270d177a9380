// SPDX-License-Identifier: MIT
/*
 * imgpatch apply RECIPE IMAGE...: a board recipe as one checked transaction
 * per image. The recipe is bound and matched against the image, every step
 * planned, and only then is anything written (or, with --dry-run, nothing).
 * Several images form a batch (batch.c): each its own transaction.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void apply_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch apply RECIPE IMAGE... [--set NAME=VALUE]... [-o OUT] [--dry-run]\n"
		"                      [--recipe-path DIR]... [-j N] [--json FILE] [--output-dir DIR]\n"
		"Apply a recipe (a shipped name, see 'imgpatch recipes', or a .recipe file)\n"
		"to IMAGE. Every step is planned and checked before the first byte is\n"
		"written; one failing step means nothing is written.\n\n"
		"  --set NAME=VALUE       a recipe parameter; repeatable\n"
		CLI_IO_HELP
		"  --recipe-path DIR      look for recipes in DIR first; repeatable\n"
		"With several IMAGEs (a batch; each image is its own transaction):\n"
		"  -j, --jobs N           patch N images at once (default 1)\n"
		"  --json FILE            write a report: image, recipe, status, changes, seconds\n"
		"  --output-dir DIR       write patched copies to DIR instead of in place\n"
		"  -h, --help             this help\n\n"
		"Exit status: 0 done (also when already applied), 1 error (in a batch: any\n"
		"image failed), 2 usage error.\n");
}

enum { OPT_SET = 600, OPT_RECIPE_PATH, OPT_JSON, OPT_OUTPUT_DIR };

static int parse_args(int argc, char **argv, struct cli_apply *o)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, OPT_SET },
		CLI_IO_OPTIONS,
		{ "recipe-path", required_argument, NULL, OPT_RECIPE_PATH },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "output-dir", required_argument, NULL, OPT_OUTPUT_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "o:nj:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SET:
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return usage_error("apply", "--set '%s' is not NAME=VALUE", optarg);
			o->sets = cli_grow(o->sets, o->nsets, sizeof(*o->sets));
			o->sets[o->nsets++] = optarg;
			break;
		case OPT_RECIPE_PATH:
			o->paths = cli_grow(o->paths, o->npaths, sizeof(*o->paths));
			o->paths[o->npaths++] = optarg;
			break;
		case 'j':
			o->jobs = strtol(optarg, &end, 10);
			if (*end || end == optarg || o->jobs < 1 || o->jobs > 256)
				return usage_error("apply", "-j '%s' is not a number from 1 to 256", optarg);
			break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_OUTPUT_DIR: o->output_dir = optarg; break;
		case 'h': apply_usage(stdout); return -1;
		default:
			rc = cli_io_option(&o->io, "apply", c, optarg);
			if (rc != 1)
				return rc ? rc : usage_error("apply", "bad option");
		}
	}
	if (argc - optind < 2)
		return usage_error("apply", "apply takes RECIPE and IMAGE...");
	o->recipe = argv[optind];
	o->images = (const char *const *)argv + optind + 1;
	o->nimages = (size_t)(argc - optind - 1);
	if (o->nimages > 1 && o->io.out)
		return usage_error("apply", "-o takes one IMAGE: with several, use --output-dir DIR");
	if (o->output_dir && o->io.out)
		return usage_error("apply", "-o and --output-dir exclude each other");
	if (!o->jobs)
		o->jobs = 1;
	return 0;
}

/* Loads and binds the recipe; nothing about the image yet. */
static int load_recipe(const struct cli_apply *o, struct imgp_recipe **r)
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

int cli_apply_one(const struct cli_apply *o, const struct imgp_recipe *r,
		  const char *image, const char *out, size_t *changes)
{
	struct imgp_patch patch;
	struct imgp_disk disk;
	struct cli_io io = o->io;
	int rc;

	io.image = image;
	io.out = out;
	*changes = 0;
	rc = cli_io_open(&io, "apply");
	if (rc)
		goto out_io;
	if (imgp_disk_open(&disk, io.work, false)) {
		rc = error_lib(image);
		goto out_io;
	}
	imgp_patch_init(&patch, &disk);
	if (imgp_recipe_match(r, &patch) || imgp_recipe_apply(r, &patch)) {
		rc = error_lib(image);
	} else {
		*changes = imgp_patch_pending(&patch);
		printf("recipe %s: %s\n", imgp_recipe_name(r),
		       *changes ? "planned" : "already applied");
		rc = cli_io_commit(&io, &patch);
	}
	imgp_patch_free(&patch);
	imgp_disk_close(&disk);
out_io:
	cli_io_close(&io);
	return rc;
}

int cmd_apply(int argc, char **argv)
{
	struct cli_apply o = { 0 };
	struct imgp_recipe *r = NULL;
	size_t changes;
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
	if (o.nimages > 1 || o.json || o.output_dir)
		rc = cli_batch(&o, r);
	else
		rc = cli_apply_one(&o, r, o.images[0], o.io.out, &changes);
out:
	imgp_recipe_free(r);
	free(o.sets);
	free(o.paths);
	return rc < 0 ? EXIT_OK : rc;
}
