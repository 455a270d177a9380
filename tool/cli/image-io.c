// SPDX-License-Identifier: MIT
/*
 * Images as they come and go. The writing commands (patch, apply): the
 * library's working image (imgp_work_*) is planned on and written into, and
 * the output (raw and sparse, or compressed, plus a bmap) is made under a
 * temporary name in its folder and renamed into place only when complete
 * (the signal handler in main.c removes the temporary files). A raw input
 * without -o is patched in place, with Ctrl-C held off while it is written.
 * Every output and permission is checked before the plan. The reading
 * commands (info, cat, doctor) open an image read-only, a compressed one
 * through a working copy in $TMPDIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Removes a temporary file (if still there) and forgets it. */
static void temp_drop(char **path)
{
	if (!*path)
		return;
	imgp_temp_remove(*path);
	cli_name_copy(*path, NULL);
	free(*path);
	*path = NULL;
}

void cli_sweep(const char *dir, const char *base)
{
	/* What a run makes in $TMPDIR: the kinds, never any other program's. */
	static const char *const kinds[] = {
		"imgpatch-work", "imgpatch-card", "imgpatch-batch", "imgpatch-stage",
	};
	struct imgp_buf list = { 0 };
	int n = 0;

	if (base)
		n = imgp_temp_sweep(dir, base, &list);
	for (size_t i = 0; !base && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		n += imgp_temp_sweep(imgp_tmpdir(), kinds[i], &list);

	if (n)
		fprintf(stderr, "imgpatch: removed %d temporary file%s an interrupted run left: %.*s\n",
			n, n == 1 ? "" : "s", (int)list.len, list.data ? (char *)list.data : "");
	imgp_buf_free(&list);
}

/*
 * A new empty file ".NAME.PID.XXXXXX" in the folder of near (or
 * ".imgpatch-work.PID.XXXXXX" in $TMPDIR), after removing what a killed
 * run left there under the same name (said in one line). Messages name
 * one beside near as near.
 */
static int temp_create(const char *near, char **out)
{
	char *dir_copy = NULL, *base_copy = NULL;
	const char *dir, *base;
	int fd, rc = 0;

	if (near) {
		dir_copy = strdup(near);
		base_copy = strdup(near);
		if (!dir_copy || !base_copy)
			die("out of memory");
		dir = dirname(dir_copy);
		base = basename(base_copy);
	} else {
		dir = imgp_tmpdir();
		base = "imgpatch-work";
	}
	cli_sweep(dir, near ? base : NULL);
	fd = imgp_temp_make(dir, base, out);
	if (fd < 0) {
		rc = fd;
	} else {
		/* mkstemp makes 0600; outputs get what any new file would. */
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
		close(fd);
		if (near)
			cli_name_copy(*out, near);
	}
	free(dir_copy);
	free(base_copy);
	return rc;
}

static int temp_rename(char **tmp, const char *final)
{
	int rc = imgp_temp_commit(*tmp, final);

	if (rc)
		return rc;
	cli_name_copy(*tmp, NULL);
	free(*tmp);
	*tmp = NULL;
	return 0;
}

const struct cli_option cli_io_options[] = {
	{ 'o', "output", 'o', "OUT", "write a patched copy to OUT, leave IMAGE untouched;\n"
	  "compressed when OUT ends in .xz .gz .zst .bz2 .lz4" },
	{ CLI_OPT_COMPRESS, "compress", 0, "FMT", "output format: xz, gz, zst, bz2, lz4 or none" },
	{ CLI_OPT_LEVEL, "level", 0, "N", "compression level" },
	{ CLI_OPT_THREADS, "threads", 0, "N", "compression threads (0: all cores)" },
	{ CLI_OPT_BMAP, "bmap", 0, "FILE", "also write a bmaptool block map of the output" },
	{ CLI_OPT_IN_PLACE, "in-place", 0, NULL, "recompress over a compressed IMAGE" },
	{ 'n', "dry-run", 'n', NULL, "print the plan as diffs, write nothing" },
	{ CLI_OPT_QUIET, "quiet", 0, NULL, "no progress lines, even on a terminal" },
	{ CLI_OPT_UNDO, "undo", 0, "FILE", "undo journal of an in-place run (default\n"
	  "IMAGE.imgpatch-undo; for a device, in this folder)" },
	{ CLI_OPT_RECOVER, "recover", 0, NULL, "first undo what an interrupted run left" },
	CLI_OPTIONS_END,
};

int cli_io_option(struct cli_io *io, const struct cli_parser *p, int c)
{
	long n;

	switch (c) {
	case 'o': io->out = p->value; return 1;
	case 'n': io->dry_run = true; return 1;
	case CLI_OPT_BMAP: io->bmap = p->value; return 1;
	case CLI_OPT_IN_PLACE: io->in_place = true; return 1;
	case CLI_OPT_QUIET: cli_quiet = true; return 1;
	case CLI_OPT_UNDO: io->undo = p->value; return 1;
	case CLI_OPT_RECOVER: io->recover = true; return 1;
	case CLI_OPT_COMPRESS:
		if (imgp_format_parse(p->value, &io->pack.format))
			return cli_bad_value(p, "%s", imgp_format_choices());
		io->compress_set = true;
		return 1;
	case CLI_OPT_LEVEL:
	case CLI_OPT_THREADS:
		if (cli_number(p, 0, 1024, &n))
			return EXIT_USAGE;
		if (c == CLI_OPT_LEVEL)
			io->pack.level = (int)n;
		else
			io->pack.threads = (int)n;
		return 1;
	}
	return 0;
}

void cli_io_init(struct cli_io *io)
{
	memset(io, 0, sizeof(*io));
	io->pack.level = -1;
	io->lock_fd = -1;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static bool is_blockdev(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISBLK(st.st_mode);
}

char *cli_journal_path(const char *image, const char *undo)
{
	char *path = NULL, *copy;

	if (undo)
		return strdup(undo);
	/* Not beside a device node in /dev: in the current folder instead. */
	if (is_blockdev(image)) {
		copy = strdup(image);
		if (copy && asprintf(&path, "%s.imgpatch-undo", basename(copy)) < 0)
			path = NULL;
		free(copy);
		return path;
	}
	return asprintf(&path, "%s.imgpatch-undo", image) < 0 ? NULL : path;
}

/*
 * An in-place run: lock the image for the whole run, and refuse to patch
 * over an interrupted run's journal unless --recover undoes it first.
 */
static int open_in_place(struct cli_io *io)
{
	size_t regions;
	uint64_t bytes;
	int fd, rc;

	/* On the file the probe opened and the plan reads: no other. */
	fd = imgp_work_lock(io->src);
	if (fd < 0)
		return error_lib(io->image);
	io->lock_fd = fd;
	io->journal = cli_journal_path(io->image, io->undo);
	if (!io->journal)
		die("out of memory");
	if (!imgp_journal_check(io->journal, io->image))
		return EXIT_OK;
	if (!io->recover)
		return error_lib(io->image);
	rc = imgp_journal_undo(io->journal, io->image, false, &regions, &bytes);
	if (rc)
		return error_lib(io->image);
	printf("recovered %s: restored %zu region%s (%llu bytes) from %s\n",
	       io->image, regions, regions == 1 ? "" : "s",
	       (unsigned long long)bytes, io->journal);
	return EXIT_OK;
}

/* The format of the output: --compress, else -o's suffix, else the input's. */
static enum imgp_format out_format(const struct cli_io *io)
{
	if (io->compress_set)
		return io->pack.format;
	if (io->out)
		return imgp_format_from_name(io->out);
	return imgp_work_format(io->src);
}

/* The folder path is in ("." for a bare name), malloc'd. */
static char *folder_of(const char *path)
{
	char *copy = strdup(path), *dir;

	if (!copy)
		die("out of memory");
	dir = strdup(dirname(copy));
	free(copy);
	if (!dir)
		die("out of memory");
	return dir;
}

/* Whether new files can be made in dir: "" when they can, else why not. */
static const char *folder_problem(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return errno == ENOENT ? "does not exist" : strerror(errno);
	if (!S_ISDIR(st.st_mode))
		return "is not a folder";
	if (access(dir, W_OK | X_OK) < 0)
		return errno == EROFS ? "is on a read-only file system" : "is not writable";
	return "";
}

int cli_check_folder(const char *dir, const char *what, const char *hint)
{
	const char *why = folder_problem(dir);

	if (!*why)
		return EXIT_OK;
	error("%s: cannot write %s: the folder %s%s%s", dir, what, why,
	      hint ? ": " : "", hint ? hint : "");
	return EXIT_ERROR;
}

/* A new file path can be made (beside a temporary one); else an error with hint. */
static int check_folder(const char *path, const char *what, const char *hint)
{
	char *dir = folder_of(path);
	const char *why = folder_problem(dir);
	int rc = EXIT_OK;

	if (*why) {
		error("%s: cannot write %s: folder %s %s%s%s", path, what, dir, why,
		      hint ? ": " : "", hint ? hint : "");
		rc = EXIT_ERROR;
	}
	free(dir);
	return rc;
}

int cli_check_output(const char *path, const char *what)
{
	return check_folder(path, what, NULL);
}

/*
 * Everything a commit will write, checked before the plan is made: the
 * output's folder, and for an in-place run the image and the folder of its
 * undo journal. A dry run writes nothing and needs none of it.
 */
static int check_outputs(const struct cli_io *io, bool in_place_raw)
{
	int rc;

	if (io->dry_run)
		return EXIT_OK;
	if (io->out) {
		struct stat st;

		if (stat(io->out, &st) == 0 && S_ISDIR(st.st_mode)) {
			error("%s: cannot write the output: it is a folder: give -o a file name",
			      io->out);
			return EXIT_ERROR;
		}
		rc = check_folder(io->out, "the output", NULL);
		if (rc)
			return rc;
	}
	if (io->bmap) {
		rc = check_folder(io->bmap, "the block map", NULL);
		if (rc)
			return rc;
	}
	if (io->in_place && !in_place_raw) {
		rc = check_folder(io->image, "the recompressed image",
				  "give -o OUT for a patched copy elsewhere");
		if (rc)
			return rc;
	}
	if (in_place_raw) {
		char *journal = cli_journal_path(io->image, io->undo);

		if (!journal)
			die("out of memory");
		if (access(io->image, W_OK) < 0) {
			error("%s: cannot patch in place: %s: give -o OUT for a patched copy",
			      io->image, errno == EROFS ? "read-only file system" :
			      "the image is not writable");
			rc = EXIT_ERROR;
		} else {
			rc = check_folder(journal, "the undo journal",
					  io->undo ? "give -o OUT for a patched copy" :
					  "give --undo FILE in a writable folder, or -o OUT");
		}
		free(journal);
		if (rc)
			return rc;
	}
	return EXIT_OK;
}

int cli_io_open(struct cli_io *io, const char *cmd)
{
	/*
	 * Unpacked sparse even with --bmap: the map of a compressed input comes
	 * from its filesystems (imgp_bmap_write_fs), never from holes.
	 */
	struct imgp_work_opts wopts = { .out = &io->out_pack, .zero_holes = true };
	const char *final;
	bool raw;
	int rc;

	if (io->out && same_file(io->image, io->out))
		return usage_error(cmd, "-o %s is IMAGE itself: leave out -o to patch in place",
				   io->out);
	/* What a killed run left in $TMPDIR goes before this run adds its own. */
	cli_sweep(NULL, NULL);
	if (io->in_place && io->out)
		return usage_error(cmd, "--in-place and -o exclude each other");
	if (io->bmap && !io->out && !io->in_place)
		return usage_error(cmd, "--bmap needs -o (or --in-place)");
	/* A mounted card is refused before anything is read from it. */
	if (is_blockdev(io->image) && !io->dry_run &&
	    imgp_blockdev_check_unmounted(io->image))
		return error_lib(io->image);
	if (imgp_work_probe(&io->src, cli_ctx, io->image))
		return error_lib(io->image);
	raw = imgp_work_format(io->src) == IMGP_FMT_RAW;
	if (raw && io->in_place && !io->compress_set)
		io->in_place = false;   /* a raw image is patched in place anyway */
	if (!raw && !io->out && !io->in_place && !io->dry_run) {
		error("%s: a %s-compressed image is not patched in place: give -o OUT (or --in-place to recompress over it)",
		      io->image, imgp_format_name(imgp_work_format(io->src)));
		return EXIT_USAGE;
	}
	rc = check_outputs(io, raw && !io->out && !io->in_place);
	if (rc)
		return rc;
	if (raw) {
		io->work = strdup(io->image);
		if (!io->work)
			die("out of memory");
		if (!io->out && !io->in_place && !io->dry_run)
			return open_in_place(io);
		return EXIT_OK;
	}
	/* --in-place replaces IMAGE: one run at a time, as for a raw image. */
	if (io->in_place && !io->dry_run && (io->lock_fd = imgp_lock(io->image)) < 0)
		return error_lib(io->image);
	/* The working copy lives where the output will, so the rename is atomic. */
	final = io->out ? io->out : io->in_place ? io->image : NULL;
	/* A bmap maps the whole image; IMGPATCH_XZ_WHOLE turns block-wise off. */
	wopts.whole = io->bmap || getenv("IMGPATCH_XZ_WHOLE");
	io->out_pack = io->pack;
	io->out_pack.format = out_format(io);
	rc = temp_create(final, &io->work);
	/* The working copy is the user's image: messages name it so. */
	if (!rc)
		cli_name_copy(io->work, io->image);
	if (!rc)
		rc = imgp_work_unpack(io->src, io->work, &wopts);
	if (rc) {
		temp_drop(&io->work);
		return error_lib(io->image);
	}
	io->work_is_temp = true;
	return EXIT_OK;
}

void cli_io_close(struct cli_io *io)
{
	imgp_work_close(io->src);
	io->src = NULL;
	imgp_unlock(io->lock_fd);
	io->lock_fd = -1;
	free(io->journal);
	io->journal = NULL;
	if (io->work_is_temp)
		temp_drop(&io->work);
	free(io->work);
	io->work = NULL;
}

int cli_read_open(struct cli_read *r, const char *image)
{
	struct imgp_work_opts wopts = { .zero_holes = true };
	int rc;

	memset(r, 0, sizeof(*r));
	if (imgp_work_probe(&r->src, cli_ctx, image))
		return error_lib(image);
	/* A compressed or archived image is read from an unpacked copy. */
	if (imgp_work_format(r->src) != IMGP_FMT_RAW) {
		rc = temp_create(NULL, &r->copy);
		if (!rc)
			cli_name_copy(r->copy, image);
		if (!rc)
			rc = imgp_work_unpack(r->src, r->copy, &wopts);
		if (rc) {
			temp_drop(&r->copy);
			/* Interrupted (write): the run says so in one line, not here. */
			rc = rc == -EINTR ? EXIT_ERROR : error_lib(image);
			cli_read_close(r);
			return rc;
		}
	}
	if (imgp_work_disk_open(r->src, &r->disk)) {
		rc = error_lib(image);
		cli_read_close(r);
		return rc;
	}
	return EXIT_OK;
}

void cli_read_close(struct cli_read *r)
{
	imgp_disk_close(r->disk);
	r->disk = NULL;
	imgp_work_close(r->src);
	r->src = NULL;
	temp_drop(&r->copy);
}

/* Ctrl-C during an in-place commit must not leave a half-written image. */
static int commit_in_place(struct imgp_patch *patch, const char *path,
			   const char *journal)
{
	sigset_t set, saved;
	int rc;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, &saved);
	rc = imgp_patch_commit(patch, path, journal);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return rc;
}

/*
 * Makes the final output from the patched raw working file work: a bmap of
 * it when asked, then the raw file renamed, or a compressed copy renamed.
 */
static int finish_output(struct cli_io *io, char **work, const char *final)
{
	struct imgp_pack_opts pack = io->pack;
	char *bmap_tmp = NULL, *packed = NULL;
	int rc = 0;

	pack.format = out_format(io);
	if (pack.format != IMGP_FMT_RAW && !imgp_format_is_compressed(pack.format))
		return imgp_fail(EINVAL, "%s: cannot write a %s archive: choose --compress %s",
				 final, imgp_format_name(pack.format), imgp_format_choices());
	if (io->bmap) {
		rc = temp_create(io->bmap, &bmap_tmp);
		if (!rc)
			/* An unpacked stream has no holes: its filesystems say what is used. */
			rc = imgp_work_format(io->src) == IMGP_FMT_RAW ? imgp_bmap_write(cli_ctx, *work, bmap_tmp) :
			     imgp_bmap_write_fs(cli_ctx, *work, bmap_tmp);
	}
	if (!rc && pack.format != IMGP_FMT_RAW) {
		rc = temp_create(final, &packed);
		if (!rc)
			rc = imgp_work_pack(io->src, packed, &pack);
		if (!rc)
			rc = temp_rename(&packed, final);
	} else if (!rc) {
		rc = temp_rename(work, final);
	}
	if (!rc && bmap_tmp)
		rc = temp_rename(&bmap_tmp, io->bmap);
	temp_drop(&packed);
	temp_drop(&bmap_tmp);
	return rc;
}

static int bmap_in_place(struct cli_io *io)
{
	char *tmp = NULL;
	int rc = temp_create(io->bmap, &tmp);

	if (!rc)
		rc = imgp_bmap_write(cli_ctx, io->work, tmp);
	if (!rc)
		rc = temp_rename(&tmp, io->bmap);
	temp_drop(&tmp);
	return rc;
}

int cli_io_commit(struct cli_io *io, struct imgp_patch *patch)
{
	struct imgp_buf plan = { 0 };
	const char *final = io->out ? io->out : io->in_place ? io->image : NULL;
	size_t pending, changed, nblocks;
	int rc = 0;

	if (imgp_patch_describe(patch, &plan))
		return error_lib(io->image);
	if (plan.len)
		fwrite(plan.data, 1, plan.len, stdout);
	imgp_buf_free(&plan);
	pending = imgp_patch_pending(patch);
	if (io->dry_run) {
		/* What the commit would refuse, a dry run refuses too. */
		fflush(stdout);
		if (pending && imgp_patch_check(patch))
			return error_lib(io->image);
		printf("dry run: %zu change%s planned, nothing written\n", pending,
		       pending == 1 ? "" : "s");
		return EXIT_OK;
	}
	fflush(stdout);
	if (!final) {
		if (!pending)
			printf("nothing to change: %s is already patched\n", io->image);
		else
			rc = commit_in_place(patch, io->work, io->journal);
		if (!rc && pending)
			printf("patched %s: %zu change%s\n", io->image, pending,
			       pending == 1 ? "" : "s");
		/* A raw image with --in-place --bmap: the map of the image as it now is. */
		if (!rc && io->bmap)
			rc = bmap_in_place(io);
		return rc ? error_lib(io->image) : EXIT_OK;
	}
	/* A raw input gets a sparse working copy beside the output first. */
	if (!io->work_is_temp) {
		char *copy = NULL;

		rc = temp_create(final, &copy);
		if (!rc)
			cli_name_copy(copy, io->image);
		if (!rc)
			rc = imgp_copy_sparse(cli_ctx, io->image, copy);
		if (rc) {
			temp_drop(&copy);
			return error_lib(final);
		}
		free(io->work);
		io->work = copy;
		io->work_is_temp = true;
		/* The copy is the working image the output is made from. */
		imgp_work_set_path(io->src, io->work);
	}
	/*
	 * A private copy needs no journal: it is renamed only when complete.
	 * What the commit refuses is the image's (run e2fsck on IMAGE, not on
	 * an output that was never made); what making the output fails at is
	 * the output's.
	 */
	if (imgp_patch_commit(patch, io->work, NULL))
		return error_lib(io->image);
	if (finish_output(io, &io->work, final))
		return error_lib(final);
	if (!io->work)
		io->work_is_temp = false;
	printf("wrote %s (%s): %zu change%s", final,
	       imgp_format_name(out_format(io)), pending, pending == 1 ? "" : "s");
	if (imgp_work_xz_blocks(io->src, &changed, &nblocks))
		printf(", %zu of %zu xz blocks re-encoded", changed, nblocks);
	putchar('\n');
	return EXIT_OK;
}
