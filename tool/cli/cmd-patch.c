// SPDX-License-Identifier: MIT
/*
 * imgpatch patch IMAGE [options]: delete device-tree properties of a FIT fdt
 * into user-override.dtb and edit fstab options, planned in full before one
 * commit (in place, or into a sparse copy with -o).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

struct patch_opts {
	const char *image;
	const char *fit;
	const char *fdt;
	const char *dtb_out;
	const char *root;
	const char *out;
	bool dry_run;
	bool force;
	size_t ndel, nfstab;
	char **del;              /* NODE:PROP */
	char **fstab;            /* MOUNTPOINT:OPS */
};

static void patch_usage(FILE *out)
{
	fprintf(out,
		"Usage: imgpatch patch IMAGE [options]\n"
		"Patch the boot device tree and fstab of IMAGE offline.\n\n"
		"  --fit PATH             FIT on the boot partition (default /image.fit)\n"
		"  --fdt NAME|INDEX       FIT fdt image to start from (index as dumpimage -l counts)\n"
		"  --dt-delete NODE:PROP  delete a property; NODE is /a/path, name@unit, name or\n"
		"                         &label; repeatable\n"
		"  --dtb-out PATH         where the tree goes on the boot partition\n"
		"                         (default /user-override.dtb)\n"
		"  --fstab MNT:OPS        fstab option edits, e.g. /:-discard,+noatime; repeatable\n"
		"  --root PART            partition with /etc/fstab (default: the first that has one)\n"
		"  -o, --output OUT       write a patched copy to OUT, leave IMAGE untouched\n"
		"  -n, --dry-run          print the plan, write nothing\n"
		"  -f, --force            write the tree even when the boot script ignores it\n"
		"  -h, --help             this help\n\n"
		"Exit status: 0 done (also when nothing needed changing), 1 error, 2 usage.\n");
}

static int push(char ***list, size_t *n, char *item)
{
	char **grown = realloc(*list, (*n + 1) * sizeof(*grown));

	if (!grown)
		die("out of memory");
	*list = grown;
	grown[(*n)++] = item;
	return 0;
}

static int parse_args(int argc, char **argv, struct patch_opts *o)
{
	static const struct option opts[] = {
		{ "fit", required_argument, NULL, 'F' },
		{ "fdt", required_argument, NULL, 'd' },
		{ "dt-delete", required_argument, NULL, 'D' },
		{ "dtb-out", required_argument, NULL, 'B' },
		{ "fstab", required_argument, NULL, 'T' },
		{ "root", required_argument, NULL, 'R' },
		{ "output", required_argument, NULL, 'o' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "o:nfh", opts, NULL)) != -1) {
		switch (c) {
		case 'F': o->fit = optarg; break;
		case 'd': o->fdt = optarg; break;
		case 'D': push(&o->del, &o->ndel, optarg); break;
		case 'B': o->dtb_out = optarg; break;
		case 'T': push(&o->fstab, &o->nfstab, optarg); break;
		case 'R': o->root = optarg; break;
		case 'o': o->out = optarg; break;
		case 'n': o->dry_run = true; break;
		case 'f': o->force = true; break;
		case 'h': patch_usage(stdout); return -1;
		default: return usage_error("patch", "bad option");
		}
	}
	if (argc - optind != 1)
		return usage_error("patch", "patch takes exactly one IMAGE");
	o->image = argv[optind];
	if (!o->ndel && !o->nfstab && !o->fdt)
		return usage_error("patch", "nothing to do: give --fdt/--dt-delete and/or --fstab");
	for (size_t i = 0; i < o->ndel; i++) {
		const char *colon = strrchr(o->del[i], ':');

		if (!colon || colon == o->del[i] || !colon[1])
			return usage_error("patch", "--dt-delete '%s' is not NODE:PROP",
					   o->del[i]);
	}
	for (size_t i = 0; i < o->nfstab; i++) {
		const char *sep = strstr(o->fstab[i], ":+");
		const char *sep2 = strstr(o->fstab[i], ":-");

		if (!sep || (sep2 && sep2 < sep))
			sep = sep2;
		if (!sep || sep == o->fstab[i])
			return usage_error("patch", "--fstab '%s' is not MOUNTPOINT:+opt,-opt",
					   o->fstab[i]);
	}
	if (o->dtb_out && o->dtb_out[0] != '/')
		return usage_error("patch", "--dtb-out '%s' must be an absolute path", o->dtb_out);
	if (!o->fit)
		o->fit = "/image.fit";
	if (!o->dtb_out)
		o->dtb_out = "/user-override.dtb";
	return 0;
}

/* Builds the whole plan; nothing is written here. */
static int plan_patch(struct imgp_patch *patch, const struct patch_opts *o)
{
	int rc;

	if (o->fdt || o->ndel) {
		const char *base = strrchr(o->dtb_out, '/') + 1;

		rc = imgp_patch_load_fdt(patch, o->fit, o->fdt);
		for (size_t i = 0; !rc && i < o->ndel; i++) {
			char *node = strdup(o->del[i]);
			char *colon;

			if (!node)
				die("out of memory");
			colon = strrchr(node, ':');
			*colon = '\0';
			rc = imgp_patch_dt_delete(patch, node, colon + 1);
			free(node);
		}
		if (!rc)
			rc = imgp_patch_write_dtb(patch, o->dtb_out);
		if (!rc) {
			rc = imgp_patch_boot_hook(patch, base);
			if (rc == 0 && !o->force) {
				char *why = strdup(imgp_errmsg());

				rc = imgp_fail(ENOENT, "%s; not writing it (use --force to write it anyway)",
					       why ? why : "");
				free(why);
				return rc;
			}
			if (rc == 0) {
				warning("%s: %s", o->image, imgp_errmsg());
				warning("%s: writing %s anyway (--force): the board will NOT use it until its boot script loads it",
					o->image, o->dtb_out);
			}
			rc = rc < 0 ? rc : 0;
		}
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < o->nfstab; i++) {
		char *mnt = strdup(o->fstab[i]);
		char *sep;

		if (!mnt)
			die("out of memory");
		sep = strstr(mnt, ":+");
		if (!sep || (strstr(mnt, ":-") && strstr(mnt, ":-") < sep))
			sep = strstr(mnt, ":-");
		*sep = '\0';
		rc = imgp_patch_fstab(patch, o->root, mnt, sep + 1);
		free(mnt);
		if (rc)
			return rc;
	}
	return 0;
}

/* Ctrl-C during the commit must not leave a half-written image. */
static void block_signals(bool block, sigset_t *saved)
{
	sigset_t set;

	if (!block) {
		sigprocmask(SIG_SETMASK, saved, NULL);
		return;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, saved);
}

/* -o: a sparse copy in OUT's folder, patched, then renamed over OUT. */
static int commit_copy(struct imgp_patch *patch, const struct patch_opts *o)
{
	char *dir_copy = strdup(o->out), *base_copy = strdup(o->out);
	char *tmp = NULL;
	int fd, rc;

	if (!dir_copy || !base_copy)
		die("out of memory");
	if (asprintf(&tmp, "%s/.%s.XXXXXX", dirname(dir_copy), basename(base_copy)) < 0)
		die("out of memory");
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = imgp_fail(errno, "%s: cannot create temporary file: %s", tmp,
			       strerror(errno));
		goto out;
	}
	close(fd);
	rc = imgp_copy_sparse(o->image, tmp);
	if (!rc)
		rc = imgp_patch_commit(patch, tmp);
	if (!rc && rename(tmp, o->out) < 0)
		rc = imgp_fail(errno, "%s: cannot rename into place: %s", o->out,
			       strerror(errno));
	if (rc)
		unlink(tmp);
out:
	free(tmp);
	free(dir_copy);
	free(base_copy);
	return rc;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int cmd_patch(int argc, char **argv)
{
	struct patch_opts o = { 0 };
	struct imgp_buf plan = { 0 };
	struct imgp_patch patch;
	struct imgp_disk disk;
	sigset_t saved;
	size_t pending;
	int rc;

	rc = parse_args(argc, argv, &o);
	if (rc) {
		free(o.del);
		free(o.fstab);
		return rc < 0 ? EXIT_OK : rc;
	}
	if (o.out && same_file(o.image, o.out)) {
		free(o.del);
		free(o.fstab);
		return usage_error("patch", "-o %s is IMAGE itself: leave out -o to patch in place",
				   o.out);
	}
	if (imgp_disk_open(&disk, o.image, false)) {
		free(o.del);
		free(o.fstab);
		return error_lib(o.image);
	}
	imgp_patch_init(&patch, &disk);
	rc = plan_patch(&patch, &o);
	if (!rc)
		rc = imgp_patch_describe(&patch, &plan);
	if (rc) {
		rc = error_lib(o.image);
		goto out;
	}
	fwrite(plan.data, 1, plan.len, stdout);
	pending = imgp_patch_pending(&patch);
	if (o.dry_run) {
		printf("dry run: %zu change%s planned, nothing written\n", pending,
		       pending == 1 ? "" : "s");
		goto out;
	}
	if (o.out) {
		rc = commit_copy(&patch, &o);
		if (!rc)
			printf("wrote %s: %zu change%s\n", o.out, pending,
			       pending == 1 ? "" : "s");
	} else if (!pending) {
		printf("nothing to change: %s is already patched\n", o.image);
	} else {
		fflush(stdout);
		block_signals(true, &saved);
		rc = imgp_patch_commit(&patch, o.image);
		block_signals(false, &saved);
		if (!rc)
			printf("patched %s: %zu change%s\n", o.image, pending,
			       pending == 1 ? "" : "s");
	}
	if (rc)
		rc = error_lib(o.out ? o.out : o.image);
out:
	imgp_buf_free(&plan);
	imgp_patch_free(&patch);
	imgp_disk_close(&disk);
	free(o.del);
	free(o.fstab);
	return rc;
}
