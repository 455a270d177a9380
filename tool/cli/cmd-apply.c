// SPDX-License-Identifier: MIT
/*
 * imgpatch apply RECIPE IMAGE...: a board recipe as one checked transaction
 * per image. The recipe is bound and matched against the image, every step
 * planned, and only then is anything written (or, with --dry-run, nothing).
 * Several images form a batch (batch.c): each its own transaction.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "cli.h"

enum { OPT_SET = 600, OPT_RECIPE_PATH, OPT_JSON, OPT_OUTPUT_DIR, OPT_EACH, OPT_VIA,
       OPT_EACH_IGNORE };

static const struct cli_option apply_set_option[] = {
	{ OPT_SET, "set", 0, "NAME=VALUE", "a recipe parameter; repeatable" },
	{ OPT_EACH, "each", 0, "FILE", "a CSV table, one row per image: column 'image',\n"
	  "then one column per recipe parameter" },
	{ OPT_EACH_IGNORE, "each-ignore", 0, "COLUMN", "leave the --each table's COLUMN out; repeatable" },
	CLI_OPTIONS_END,
};

static const struct cli_option apply_options[] = {
	{ OPT_RECIPE_PATH, "recipe-path", 0, "DIR", "look for recipes in DIR first; repeatable" },
	CLI_HEADING("With several IMAGEs (a batch; each image is its own transaction):"),
	{ 'j', "jobs", 'j', "N", "patch N images at once (default 1)" },
	{ OPT_JSON, "json", 0, "FILE", "write a report: image, recipe, status, changes, seconds" },
	{ OPT_OUTPUT_DIR, "output-dir", 0, "DIR", "write patched copies to DIR instead of in place" },
	{ OPT_VIA, "via", 0, "override|fit|overlay|file", "how the recipe's tree reaches the board,\n"
	  "whatever the recipe says (see imgpatch patch --via)" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const apply_tables[] = {
	apply_set_option, cli_io_options, apply_options, NULL,
};

static const struct cli_command apply_command = {
	"apply",
	"Usage: imgpatch apply RECIPE IMAGE... [--set NAME=VALUE]... [--each FILE.csv]\n"
	"                      [-o OUT] [--dry-run] [--recipe-path DIR]... [-j N]\n"
	"                      [--json FILE] [--output-dir DIR] [--via WAY]\n"
	"Apply a recipe (a shipped name, see 'imgpatch recipes', or a .recipe file)\n"
	"to IMAGE. Every step is planned and checked before the first byte is\n"
	"written; one failing step means nothing is written.\n\n",
	apply_tables,
	"Exit status: 0 done (also when already applied), 1 error (in a batch: any\n"
	"image failed), 2 usage error.\n",
};

static int parse_args(int argc, char **argv, struct cli_apply *o)
{
	static const char *const args[] = { "RECIPE", "IMAGE..." };
	struct cli_parser p;
	long jobs;
	int c = CLI_END, rc = 0;

	cli_parser_init(&p, &apply_command, argc, argv);
	while (!rc && (c = cli_next(&p)) > 0) {
		switch (c) {
		case OPT_SET:
			rc = cli_set_option(&p, &o->sets, &o->nsets);
			break;
		case OPT_RECIPE_PATH:
			o->paths = cli_grow(o->paths, o->npaths, sizeof(*o->paths));
			o->paths[o->npaths++] = (char *)p.value;
			break;
		case 'j':
			rc = cli_number(&p, 1, 256, &jobs);
			o->jobs = jobs;
			break;
		case OPT_JSON: o->json = p.value; break;
		case OPT_OUTPUT_DIR: o->output_dir = p.value; break;
		case OPT_EACH: o->each = p.value; break;
		case OPT_VIA:
			if (imgp_via_parse(p.value, &o->via) || o->via == IMGP_VIA_DEFAULT)
				rc = cli_bad_value(&p, "override, fit, overlay or file");
			break;
		case OPT_EACH_IGNORE:
			o->ignore = cli_grow(o->ignore, o->table.nignore, sizeof(*o->ignore));
			o->ignore[o->table.nignore++] = p.value;
			o->table.ignore = o->ignore;
			break;
		default:
			rc = cli_io_option(&o->io, &p, c);
			rc = rc == 1 ? 0 : rc;
		}
	}
	if (!rc && c == CLI_STOP) {
		o->stop = true;
		rc = p.exit;
	}
	if (!rc && !o->stop)
		rc = cli_arguments(&p, 2, SIZE_MAX, args);
	if (!rc && !o->stop) {
		o->recipe = p.args[0];
		o->argv_images = p.args;
		p.args = NULL;
		o->images = (const char *const *)o->argv_images + 1;
		o->nimages = p.nargs - 1;
		if (o->nimages > 1 && o->io.out)
			rc = usage_error("apply", "-o takes one IMAGE: with several, use --output-dir DIR");
		/* One journal for several images would keep only the last one's old bytes. */
		else if (o->nimages > 1 && o->io.undo)
			rc = usage_error("apply", "--undo takes one IMAGE: with several, each keeps its own journal beside it");
		else if (o->output_dir && o->io.out)
			rc = usage_error("apply", "-o and --output-dir exclude each other");
	}
	cli_parser_free(&p);
	if (!o->jobs)
		o->jobs = 1;
	return rc;
}

/*
 * Binds the recipe with image's parameters: --set, then its row of --each.
 * Without --each, the recipe is bound once, when it is loaded.
 */
static int bind_image(const struct cli_apply *o, struct imgp_recipe *r, const char *image)
{
	return o->each ? cli_target_bind(r, &o->table, image, o->sets, o->nsets) : 0;
}

/*
 * The table: a row per image, every column a parameter of the recipe, and
 * every row binds, before any image is worked on.
 */
static int check_table(struct cli_apply *o, struct imgp_recipe *r)
{
	int rc = cli_each_read(&o->table, o->each, "image", o->images, o->nimages);

	for (size_t c = 1; !rc && c < imgp_csv_ncols(o->table.table); c++) {
		const char *name = imgp_csv_cell(o->table.table, 0, c);

		if (!cli_each_param(r, name) && !cli_each_ignored(&o->table, c)) {
			const struct imgp_recipe_param *params;
			size_t n = imgp_recipe_params(r, &params);
			const char **names = calloc(n + 1, sizeof(*names)), *near;

			if (!names)
				die("out of memory");
			for (size_t i = 0; i < n; i++)
				names[i] = params[i].name;
			near = cli_closest(name, names, n);
			error("%s:%u: recipe %s has no parameter '%s'%s%s%s: give --each-ignore '%s' to leave the column out",
			      o->each, imgp_csv_line(o->table.table, 0), imgp_recipe_name(r), name,
			      near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "", name);
			free(names);
			rc = EXIT_USAGE;
		}
	}
	for (size_t i = 0; !rc && i < o->nimages; i++) {
		if (bind_image(o, r, o->images[i])) {
			error("%s:%u: %s: %s", o->each,
			      imgp_csv_line(o->table.table, cli_each_row(&o->table, o->images[i])),
			      o->images[i], imgp_errmsg());
			rc = EXIT_USAGE;
		}
	}
	return rc;
}

/*
 * Loads and binds the recipe; nothing about the image yet. 0, -errno when
 * the recipe cannot be loaded, 1 when no recipe has that name or --set
 * does not bind (what was typed).
 */
static int load_recipe(const struct cli_apply *o, struct imgp_recipe **r)
{
	struct cli_recipe_path rp;
	char *path = NULL;
	int rc;

	cli_recipe_path_init(&rp, o->paths, o->npaths);
	rc = cli_recipe_find(&rp, o->recipe, &path);
	if (rc == -ENOENT)
		rc = 1;
	else if (!rc)
		rc = imgp_recipe_load(path, r);
	/* With --each, each image is bound with its own row. */
	if (!rc && !o->each && imgp_recipe_bind(*r, o->sets, o->nsets))
		rc = 1;
	free(path);
	cli_recipe_path_free(&rp);
	return rc;
}

int cli_apply_one(const struct cli_apply *o, struct imgp_recipe *r,
		  const char *image, const char *out, size_t *changes)
{
	struct imgp_patch *patch;
	struct imgp_disk *disk;
	struct cli_io io = o->io;
	int rc;

	io.image = image;
	io.out = out;
	*changes = 0;
	rc = cli_io_open(&io, "apply");
	if (rc)
		goto out_io;
	if (imgp_job_disk_open(io.job, &disk)) {
		rc = error_lib(image);
		goto out_io;
	}
	if (imgp_patch_new(&patch, disk)) {
		rc = error_lib(image);
		goto out_disk;
	}
	imgp_patch_set_via(patch, o->via);
	if (bind_image(o, r, image) || imgp_recipe_match(r, patch) ||
	    imgp_recipe_apply(r, patch)) {
		rc = error_lib(image);
	} else {
		*changes = imgp_patch_pending(patch);
		printf("recipe %s: %s\n", imgp_recipe_name(r),
		       *changes ? "planned" : "already applied");
		rc = cli_io_commit(&io, patch);
	}
	imgp_patch_free(patch);
out_disk:
	imgp_disk_close(disk);
out_io:
	cli_io_close(&io);
	return rc;
}

int cmd_apply(int argc, char **argv)
{
	struct cli_apply o = { 0 };
	struct imgp_recipe *r = NULL;
	size_t changes;
	bool batch = false;
	int rc;

	cli_io_init(&o.io);
	rc = parse_args(argc, argv, &o);
	if (rc || o.stop)
		goto out;
	rc = load_recipe(&o, &r);
	if (rc) {
		/* Recipe messages already start with the recipe file. */
		error("%s", imgp_errmsg());
		/* A value the recipe refuses is a mistake in what was typed. */
		rc = rc > 0 ? EXIT_USAGE : EXIT_ERROR;
		goto out;
	}
	if (o.each && (rc = check_table(&o, r)))
		goto out;
	batch = o.nimages > 1 || o.json || o.output_dir;
	if (batch)
		rc = cli_batch(&o, r);
	else
		rc = cli_apply_one(&o, r, o.images[0], o.io.out, &changes);
out:
	/* Once --json is read, a run that stops before its images still reports. */
	if (rc && o.json && !batch && !o.stop)
		cli_apply_report(&o, r, rc);
	imgp_recipe_free(r);
	cli_each_free(&o.table);
	free(o.sets);
	free(o.ignore);
	free(o.paths);
	free(o.argv_images);
	return rc;
}
