// SPDX-License-Identifier: MIT
/*
 * imgpatch patch IMAGE [options]: edit a FIT fdt (delete or set properties,
 * delete nodes, apply overlays) into user-override.dtb, or into the FIT
 * itself when the boot script loads no override, and edit fstab options
 * and the kernel command line,
 * planned in full before one commit (in place, or a copy with -o).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Device-tree edits run in command-line order. */
struct dt_op {
	int kind;                /* an option's short code below */
	const char *arg;
};

enum {
	OPT_FIT = 256, OPT_FDT, OPT_DT_DELETE, OPT_DT_SET, OPT_DT_DELETE_NODE,
	OPT_OVERLAY, OPT_DTB_OUT, OPT_FSTAB, OPT_ROOT, OPT_VIA, OPT_MODEL, OPT_CMDLINE,
};

struct patch_opts {
	const char *image;
	const char *fit;
	const char *fdt;
	const char *dtb_out;
	enum imgp_via via;       /* --via; IMGP_VIA_DEFAULT: chosen from the boot path */
	const char *via_name;    /* --via as given, for messages */
	const char *model;       /* which of the boot path's trees */
	bool fit_given;          /* --fit: the tree is a FIT's, whatever the boot path */
	const char *root;
	struct cli_io io;
	bool force;
	bool stop;               /* --help was printed */
	size_t ndt, nfstab, ncmdline;
	struct dt_op *dt;
	const char **fstab;      /* MOUNTPOINT:OPS */
	const char **cmdline;    /* EDIT[,EDIT...] */
};

static const struct cli_option patch_options[] = {
	{ OPT_FIT, "fit", 0, "PATH", "FIT on the boot partition (default /image.fit)" },
	{ OPT_FDT, "fdt", 0, "NAME|INDEX", "FIT fdt image to start from, by name or by index as\n"
	  "dumpimage -l counts" },
	{ OPT_DT_DELETE, "dt-delete", 0, "NODE:PROP", "delete a property; NODE is /a/path, name@unit, name\n"
	  "or &label; repeatable" },
	{ OPT_DT_SET, "dt-set", 0, "NODE:PROP=VALUE", "set a property; VALUE as in dts: <1 2>, \"str\",\n"
	  "[00 01], a bare number (one cell) or empty; repeatable" },
	{ OPT_DT_DELETE_NODE, "dt-delete-node", 0, "NODE", "delete a node and its subtree; repeatable" },
	{ OPT_OVERLAY, "overlay", 0, "FILE.dtbo", "apply a compiled overlay (dtc -@); repeatable" },
	{ OPT_VIA, "via", 0, "override|fit|overlay|file", "how the tree reaches the board: an override file\n"
	  "the boot script loads, the FIT rewritten, a new overlay\n"
	  "in the boot path's list, or the tree file edited in\n"
	  "place (default: from the boot path; the plan says\n"
	  "which and why)" },
	{ OPT_MODEL, "model", 0, "MODEL", "which tree of a boot path that boots several (pi4,\n"
	  "a tree's file name or path)" },
	{ OPT_DTB_OUT, "dtb-out", 0, "PATH", "where the tree goes on the boot partition\n"
	  "(default /user-override.dtb)" },
	{ OPT_FSTAB, "fstab", 0, "MNT:OPS", "fstab option edits, e.g. /:-discard,+noatime;\n"
	  "repeatable" },
	{ OPT_ROOT, "root", 0, "PART", "partition with /etc/fstab (default: the first that\n"
	  "has one)" },
	{ OPT_CMDLINE, "cmdline", 0, "EDIT[,EDIT...]", "kernel command line edits where the boot path\n"
	  "keeps it: +WORD, +KEY=VALUE (replaces KEY's value),\n"
	  "-WORD, -KEY (every KEY and KEY=...); repeatable" },
	CLI_OPTIONS_END,
};

static const struct cli_option patch_force_option[] = {
	{ 'f', "force", 'f', NULL, "write the tree even when the boot script ignores it" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const patch_tables[] = {
	patch_options, cli_io_options, patch_force_option, NULL,
};

static const struct cli_command patch_command = {
	"patch",
	"Usage: imgpatch patch IMAGE [options]\n"
	"Patch the boot device tree, kernel command line and fstab of IMAGE offline.\n\n",
	patch_tables,
	"Device-tree edits apply in the order given. Exit status: 0 done (also when\n"
	"nothing needed changing), 1 error, 2 usage error.\n",
};

/* "MNT:+a,-b": the colon before the first sign. */
static char *fstab_split(const char *arg)
{
	const char *plus = strstr(arg, ":+"), *minus = strstr(arg, ":-");

	if (!plus || (minus && minus < plus))
		plus = minus;
	return plus && plus != arg ? (char *)plus : NULL;
}

static int check_dt_arg(const struct cli_parser *p)
{
	const char *arg = p->value, *colon = strrchr(arg, ':');

	switch (p->opt->id) {
	case OPT_DT_DELETE:
		if (!colon || colon == arg || !colon[1])
			return cli_bad_value(p, "NODE:PROP");
		break;
	case OPT_DT_SET:
		/* The value may hold ':' ("<...>"), so split NODE:PROP at '=' first. */
		colon = memchr(arg, ':', strcspn(arg, "="));
		if (!colon || colon == arg || !strchr(colon, '=') ||
		    strchr(colon, '=') == colon + 1)
			return cli_bad_value(p, "NODE:PROP=VALUE");
		break;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct patch_opts *o)
{
	static const char *const args[] = { "IMAGE" };
	struct cli_parser p;
	int c = CLI_END, rc = 0;

	cli_parser_init(&p, &patch_command, argc, argv);
	while (!rc && (c = cli_next(&p)) > 0) {
		switch (c) {
		case OPT_FIT: o->fit = p.value; o->fit_given = true; break;
		case OPT_MODEL: o->model = p.value; break;
		case OPT_FDT: o->fdt = p.value; break;
		case OPT_DT_DELETE:
		case OPT_DT_SET:
		case OPT_DT_DELETE_NODE:
		case OPT_OVERLAY:
			rc = check_dt_arg(&p);
			o->dt = cli_grow(o->dt, o->ndt, sizeof(*o->dt));
			o->dt[o->ndt++] = (struct dt_op){ c, p.value };
			break;
		case OPT_DTB_OUT:
			if (p.value[0] != '/')
				rc = cli_bad_value(&p, "an absolute path");
			o->dtb_out = p.value;
			break;
		case OPT_VIA:
			if (imgp_via_parse(p.value, &o->via))
				rc = cli_bad_value(&p, "override, fit, overlay or file");
			o->via_name = p.value;
			break;
		case OPT_FSTAB:
			if (!fstab_split(p.value))
				rc = cli_bad_value(&p, "MOUNTPOINT:+opt,-opt");
			o->fstab = cli_grow(o->fstab, o->nfstab, sizeof(*o->fstab));
			o->fstab[o->nfstab++] = p.value;
			break;
		case OPT_ROOT: o->root = p.value; break;
		case OPT_CMDLINE:
			if (imgp_cmdline_check(p.value))
				rc = cli_bad_value(&p, "+WORD, +KEY=VALUE, -WORD or -KEY, joined by commas (%s)",
						   imgp_errmsg());
			o->cmdline = cli_grow(o->cmdline, o->ncmdline, sizeof(*o->cmdline));
			o->cmdline[o->ncmdline++] = p.value;
			break;
		case 'f': o->force = true; break;
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
		rc = cli_arguments(&p, 1, 1, args);
	if (!rc && !o->stop) {
		o->image = o->io.image = p.args[0];
		if (!o->ndt && !o->nfstab && !o->fdt && !o->ncmdline)
			rc = usage_error("patch", "nothing to do: give --fdt, --dt-*, --overlay, --fstab and/or --cmdline");
	}
	if (!rc && !o->stop && o->via != IMGP_VIA_DEFAULT && o->via != IMGP_VIA_OVERRIDE &&
	    (o->dtb_out || o->force))
		rc = usage_error("patch", "--via %s %s: --dtb-out and --force go with --via override",
				 o->via_name, o->via == IMGP_VIA_FIT ? "rewrites the FIT" :
				 o->via == IMGP_VIA_FILE ? "edits the tree file" :
				 "adds an overlay");
	if (!rc && !o->stop && o->model && (o->fdt || o->fit_given))
		rc = usage_error("patch", "--model picks a tree of the boot path: --fdt and --fit pick one in a FIT");
	/* An explicit file or --force keeps the override file. */
	if (o->via == IMGP_VIA_DEFAULT && (o->dtb_out || o->force))
		o->via = IMGP_VIA_OVERRIDE;
	cli_parser_free(&p);
	if (!o->fit)
		o->fit = "/image.fit";
	if (!o->dtb_out)
		o->dtb_out = "/user-override.dtb";
	return rc;
}

static int apply_overlay_file(struct imgp_patch *patch, const char *path)
{
	struct imgp_buf dtbo = { 0 };
	FILE *f = fopen(path, "rb");
	uint8_t chunk[65536];
	size_t n;
	int rc = 0;

	if (!f)
		return imgp_fail(errno, "overlay %s: %s", path, strerror(errno));
	while (!rc && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		rc = dtbo.len + n > IMGP_DTB_MAX
			     ? imgp_fail(EFBIG, "overlay %s: too large", path)
			     : imgp_buf_append(&dtbo, chunk, n);
	if (!rc && ferror(f))
		rc = imgp_fail(EIO, "overlay %s: read error", path);
	fclose(f);
	if (!rc)
		rc = imgp_patch_dt_overlay(patch, dtbo.data, dtbo.len, path);
	imgp_buf_free(&dtbo);
	return rc;
}

static int apply_dt_op(struct imgp_patch *patch, const struct dt_op *op)
{
	char *arg = strdup(op->arg), *sep;
	int rc;

	if (!arg)
		die("out of memory");
	switch (op->kind) {
	case OPT_DT_DELETE:
		sep = strrchr(arg, ':');
		*sep = '\0';
		rc = imgp_patch_dt_delete(patch, arg, sep + 1);
		break;
	case OPT_DT_SET: {
		char *eq;

		sep = memchr(arg, ':', strcspn(arg, "="));
		*sep = '\0';
		eq = strchr(sep + 1, '=');
		*eq = '\0';
		rc = imgp_patch_dt_set(patch, arg, sep + 1, eq + 1);
		break;
	}
	case OPT_DT_DELETE_NODE:
		rc = imgp_patch_dt_delete_node(patch, arg);
		break;
	default:
		rc = apply_overlay_file(patch, arg);
	}
	free(arg);
	return rc;
}

/* --force or not: a tree the boot script will not load is refused or flagged. */
static int check_boot_hook(struct imgp_patch *patch, const struct patch_opts *o)
{
	const char *base = strrchr(o->dtb_out, '/') + 1;
	int rc = imgp_patch_boot_hook(patch, base);
	char *why;

	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (o->force) {
		warning("%s: %s", o->image, imgp_errmsg());
		warning("%s: writing %s anyway (--force): the board will NOT use it until its boot script loads it",
			o->image, o->dtb_out);
		return 0;
	}
	why = strdup(imgp_errmsg());
	rc = imgp_fail(ENOENT, "%s; not writing it (use --force to write it anyway)",
		       why ? why : "");
	free(why);
	return rc;
}

/*
 * The tree goes where the library's boot path says (imgp_patch_tree_begin),
 * or the way --via asks; an override file asked for is checked against
 * the boot script, which --force overrides.
 */
static int plan_tree(struct imgp_patch *patch, const struct patch_opts *o)
{
	struct imgp_tree_opts t = {
		.from = o->fit_given || o->fdt ? IMGP_TREE_FIT : IMGP_TREE_ANY,
		.fit_path = o->fit,
		.fdt = o->fdt,
		.model = o->model,
		.via = o->via,
		.override = o->dtb_out,
	};
	int rc;

	for (size_t i = 0; i < o->ndt; i++)
		t.deletes |= o->dt[i].kind == OPT_DT_DELETE ||
			     o->dt[i].kind == OPT_DT_DELETE_NODE;
	if (t.via == IMGP_VIA_OVERRIDE)
		t.asked_by = "asked for (--via override, --dtb-out or --force)";
	rc = imgp_patch_tree_begin(patch, &t);
	for (size_t i = 0; !rc && i < o->ndt; i++)
		rc = apply_dt_op(patch, &o->dt[i]);
	if (!rc)
		rc = imgp_patch_tree_finish(patch);
	if (!rc && t.via == IMGP_VIA_OVERRIDE)
		rc = check_boot_hook(patch, o);
	return rc;
}

/* Builds the whole plan; nothing is written here. */
static int plan_patch(struct imgp_patch *patch, const struct patch_opts *o)
{
	int rc = 0;

	if (o->fdt || o->ndt)
		rc = plan_tree(patch, o);
	for (size_t i = 0; !rc && i < o->nfstab; i++) {
		char *mnt = strdup(o->fstab[i]);
		char *sep;

		if (!mnt)
			die("out of memory");
		sep = fstab_split(mnt);
		*sep = '\0';
		rc = imgp_patch_fstab(patch, o->root, mnt, sep + 1);
		free(mnt);
	}
	for (size_t i = 0; !rc && i < o->ncmdline; i++)
		rc = imgp_patch_cmdline(patch, o->model, o->cmdline[i]);
	return rc;
}

int cmd_patch(int argc, char **argv)
{
	struct patch_opts o = { 0 };
	struct imgp_patch *patch = NULL;
	struct imgp_disk *disk;
	int rc;

	cli_io_init(&o.io);
	rc = parse_args(argc, argv, &o);
	if (rc || o.stop)
		goto out_opts;
	rc = cli_io_open(&o.io, "patch");
	if (rc)
		goto out_io;
	if (imgp_job_disk_open(o.io.job, &disk)) {
		rc = error_lib(o.image);
		goto out_io;
	}
	if (imgp_patch_new(&patch, disk))
		rc = error_lib(o.image);
	else
		rc = plan_patch(patch, &o) ? error_lib_typed(o.image, o.model != NULL) :
		     cli_io_commit(&o.io, patch);
	imgp_patch_free(patch);
	imgp_disk_close(disk);
out_io:
	cli_io_close(&o.io);
out_opts:
	free(o.dt);
	free(o.fstab);
	free(o.cmdline);
	return rc;
}
