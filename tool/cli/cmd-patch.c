// SPDX-License-Identifier: MIT
/*
 * imgpatch patch IMAGE [options]: edit a FIT fdt (delete or set properties,
 * delete nodes, apply overlays) into user-override.dtb and edit fstab
 * options, planned in full before one commit (in place, or a copy with -o).
 */
#include <errno.h>
#include <getopt.h>
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
	OPT_OVERLAY, OPT_DTB_OUT, OPT_FSTAB, OPT_ROOT,
};

struct patch_opts {
	const char *image;
	const char *fit;
	const char *fdt;
	const char *dtb_out;
	const char *root;
	struct cli_io io;
	bool force;
	size_t ndt, nfstab;
	struct dt_op *dt;
	const char **fstab;      /* MOUNTPOINT:OPS */
};

static void patch_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch patch IMAGE [options]\n"
		"Patch the boot device tree and fstab of IMAGE offline.\n\n"
		"  --fit PATH             FIT on the boot partition (default /image.fit)\n"
		"  --fdt NAME|INDEX       FIT fdt image to start from, by name or by index as\n"
		"                         dumpimage -l counts\n"
		"  --dt-delete NODE:PROP  delete a property; NODE is /a/path, name@unit, name\n"
		"                         or &label; repeatable\n"
		"  --dt-set NODE:PROP=VALUE\n"
		"                         set a property; VALUE as in dts: <1 2>, \"str\",\n"
		"                         [00 01], a bare number (one cell) or empty; repeatable\n"
		"  --dt-delete-node NODE  delete a node and its subtree; repeatable\n"
		"  --overlay FILE.dtbo    apply a compiled overlay (dtc -@); repeatable\n"
		"  --dtb-out PATH         where the tree goes on the boot partition\n"
		"                         (default /user-override.dtb)\n"
		"  --fstab MNT:OPS        fstab option edits, e.g. /:-discard,+noatime;\n"
		"                         repeatable\n"
		"  --root PART            partition with /etc/fstab (default: the first that\n"
		"                         has one)\n"
		CLI_IO_HELP
		"  -f, --force            write the tree even when the boot script ignores it\n"
		"  -h, --help             this help\n\n"
		"Device-tree edits apply in the order given. Exit status: 0 done (also when\n"
		"nothing needed changing), 1 error, 2 usage error.\n");
}

/* "MNT:+a,-b": the colon before the first sign. */
static char *fstab_split(const char *arg)
{
	const char *plus = strstr(arg, ":+"), *minus = strstr(arg, ":-");

	if (!plus || (minus && minus < plus))
		plus = minus;
	return plus && plus != arg ? (char *)plus : NULL;
}

static int check_dt_arg(const struct dt_op *op)
{
	const char *colon = strrchr(op->arg, ':');

	switch (op->kind) {
	case OPT_DT_DELETE:
		if (!colon || colon == op->arg || !colon[1])
			return usage_error("patch", "--dt-delete '%s' is not NODE:PROP", op->arg);
		break;
	case OPT_DT_SET:
		/* The value may hold ':' ("<...>"), so split NODE:PROP at '=' first. */
		colon = memchr(op->arg, ':', strcspn(op->arg, "="));
		if (!colon || colon == op->arg || !strchr(colon, '=') ||
		    strchr(colon, '=') == colon + 1)
			return usage_error("patch", "--dt-set '%s' is not NODE:PROP=VALUE", op->arg);
		break;
	default:
		if (!*op->arg)
			return usage_error("patch", "empty argument");
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct patch_opts *o)
{
	static const struct option opts[] = {
		{ "fit", required_argument, NULL, OPT_FIT },
		{ "fdt", required_argument, NULL, OPT_FDT },
		{ "dt-delete", required_argument, NULL, OPT_DT_DELETE },
		{ "dt-set", required_argument, NULL, OPT_DT_SET },
		{ "dt-delete-node", required_argument, NULL, OPT_DT_DELETE_NODE },
		{ "overlay", required_argument, NULL, OPT_OVERLAY },
		{ "dtb-out", required_argument, NULL, OPT_DTB_OUT },
		{ "fstab", required_argument, NULL, OPT_FSTAB },
		{ "root", required_argument, NULL, OPT_ROOT },
		CLI_IO_OPTIONS,
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "o:nfh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FIT: o->fit = optarg; break;
		case OPT_FDT: o->fdt = optarg; break;
		case OPT_DT_DELETE:
		case OPT_DT_SET:
		case OPT_DT_DELETE_NODE:
		case OPT_OVERLAY:
			o->dt = cli_grow(o->dt, o->ndt, sizeof(*o->dt));
			o->dt[o->ndt] = (struct dt_op){ c, optarg };
			rc = check_dt_arg(&o->dt[o->ndt++]);
			if (rc)
				return rc;
			break;
		case OPT_DTB_OUT: o->dtb_out = optarg; break;
		case OPT_FSTAB:
			if (!fstab_split(optarg))
				return usage_error("patch", "--fstab '%s' is not MOUNTPOINT:+opt,-opt",
						   optarg);
			o->fstab = cli_grow(o->fstab, o->nfstab, sizeof(*o->fstab));
			o->fstab[o->nfstab++] = optarg;
			break;
		case OPT_ROOT: o->root = optarg; break;
		case 'f': o->force = true; break;
		case 'h': patch_usage(stdout); return -1;
		default:
			rc = cli_io_option(&o->io, "patch", c, optarg);
			if (rc != 1)
				return rc ? rc : usage_error("patch", "bad option");
		}
	}
	if (argc - optind != 1)
		return usage_error("patch", "patch takes exactly one IMAGE");
	o->image = o->io.image = argv[optind];
	if (!o->ndt && !o->nfstab && !o->fdt)
		return usage_error("patch", "nothing to do: give --fdt, --dt-*, --overlay and/or --fstab");
	if (o->dtb_out && o->dtb_out[0] != '/')
		return usage_error("patch", "--dtb-out '%s' must be an absolute path", o->dtb_out);
	if (!o->fit)
		o->fit = "/image.fit";
	if (!o->dtb_out)
		o->dtb_out = "/user-override.dtb";
	return 0;
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

/* Builds the whole plan; nothing is written here. */
static int plan_patch(struct imgp_patch *patch, const struct patch_opts *o)
{
	int rc = 0;

	if (o->fdt || o->ndt) {
		rc = imgp_patch_load_fdt(patch, o->fit, o->fdt);
		for (size_t i = 0; !rc && i < o->ndt; i++)
			rc = apply_dt_op(patch, &o->dt[i]);
		if (!rc)
			rc = imgp_patch_write_dtb(patch, o->dtb_out);
		if (!rc)
			rc = check_boot_hook(patch, o);
	}
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
	return rc;
}

int cmd_patch(int argc, char **argv)
{
	struct patch_opts o = { 0 };
	struct imgp_patch patch;
	struct imgp_disk disk;
	int rc;

	cli_io_init(&o.io);
	rc = parse_args(argc, argv, &o);
	if (rc)
		goto out_opts;
	rc = cli_io_open(&o.io, "patch");
	if (rc)
		goto out_io;
	if (imgp_disk_open(&disk, o.io.work, false)) {
		rc = error_lib(o.image);
		goto out_io;
	}
	imgp_patch_init(&patch, &disk);
	rc = plan_patch(&patch, &o) ? error_lib(o.image) : cli_io_commit(&o.io, &patch);
	imgp_patch_free(&patch);
	imgp_disk_close(&disk);
out_io:
	cli_io_close(&o.io);
out_opts:
	free(o.dt);
	free(o.fstab);
	return rc < 0 ? EXIT_OK : rc;
}
