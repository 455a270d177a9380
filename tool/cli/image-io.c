// SPDX-License-Identifier: MIT
/*
 * Images as they come and go, for the writing commands (patch, apply):
 * a compressed or archived input is unpacked into a working copy, the patch
 * is planned on it and written into it, and the output (raw and sparse, or
 * compressed, plus a bmap) is made under a temporary name in its folder and
 * renamed into place only when complete (the signal handler in main.c
 * removes the temporary files). A raw input without -o is patched in place,
 * with Ctrl-C held off while it is written.
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
	free(*path);
	*path = NULL;
}

/* A new empty file ".NAME.XXXXXX" in the folder of near (or $TMPDIR). */
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
		dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		base = "imgpatch-work";
	}
	if (asprintf(out, "%s/.%s.XXXXXX", dir, base) < 0)
		die("out of memory");
	fd = imgp_temp_create(*out);
	if (fd < 0) {
		rc = fd;
		free(*out);
		*out = NULL;
	} else {
		/* mkstemp makes 0600; outputs get what any new file would. */
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
		close(fd);
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
	free(*tmp);
	*tmp = NULL;
	return 0;
}

int cli_io_parse_compress(struct cli_io *io, const char *name)
{
	static const struct { const char *name; enum imgp_format fmt; } names[] = {
		{ "none", IMGP_FMT_RAW }, { "raw", IMGP_FMT_RAW },
		{ "xz", IMGP_FMT_XZ }, { "gz", IMGP_FMT_GZIP },
		{ "gzip", IMGP_FMT_GZIP }, { "zst", IMGP_FMT_ZSTD },
		{ "zstd", IMGP_FMT_ZSTD }, { "bz2", IMGP_FMT_BZIP2 },
		{ "bzip2", IMGP_FMT_BZIP2 }, { "lz4", IMGP_FMT_LZ4 },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(name, names[i].name) == 0) {
			io->pack.format = names[i].fmt;
			io->compress_set = true;
			return 0;
		}
	}
	return -1;
}

int cli_io_option(struct cli_io *io, const char *cmd, int c, const char *arg)
{
	char *end;
	long n;

	switch (c) {
	case 'o': io->out = arg; return 1;
	case 'n': io->dry_run = true; return 1;
	case CLI_OPT_BMAP: io->bmap = arg; return 1;
	case CLI_OPT_IN_PLACE: io->in_place = true; return 1;
	case CLI_OPT_QUIET: cli_quiet = true; return 1;
	case CLI_OPT_UNDO: io->undo = arg; return 1;
	case CLI_OPT_RECOVER: io->recover = true; return 1;
	case CLI_OPT_COMPRESS:
		if (cli_io_parse_compress(io, arg))
			return usage_error(cmd, "--compress '%s': expected xz, zst, gz, bz2, lz4 or none",
					   arg);
		return 1;
	case CLI_OPT_LEVEL:
	case CLI_OPT_THREADS:
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || *end || end == arg || n < 0 || n > 1024)
			return usage_error(cmd, "--%s '%s' is not a number from 0 to 1024",
					   c == CLI_OPT_LEVEL ? "level" : "threads", arg);
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
	struct imgp_image img;
	size_t regions;
	uint64_t bytes;
	int fd, rc;

	fd = imgp_lock(io->image);
	if (fd < 0)
		return error_lib(io->image);
	io->lock_fd = fd;
	io->journal = cli_journal_path(io->image, io->undo);
	if (!io->journal)
		die("out of memory");
	if (!imgp_journal_check(io->journal))
		return EXIT_OK;
	if (!io->recover)
		return error_lib(io->image);
	rc = imgp_image_open(&img, io->image, true);
	if (!rc) {
		rc = imgp_journal_undo(io->journal, &img, false, &regions, &bytes);
		imgp_image_close(&img);
	}
	if (rc)
		return error_lib(io->image);
	printf("recovered %s: restored %zu region%s (%llu bytes) from %s\n",
	       io->image, regions, regions == 1 ? "" : "s",
	       (unsigned long long)bytes, io->journal);
	return EXIT_OK;
}

static enum imgp_format out_format(const struct cli_io *io);

/*
 * A multi-block .xz that becomes an .xz again is patched block-wise: only
 * the blocks read are decoded, only those written re-encoded (with their
 * own filters, so not when --level asks for others), and a bmap needs the
 * whole image anyway.
 */
static bool block_wise(const struct cli_io *io)
{
	return io->in_fmt == IMGP_FMT_XZ && out_format(io) == IMGP_FMT_XZ &&
	       !io->bmap && io->pack.level < 0 && !getenv("IMGPATCH_XZ_WHOLE");
}

int cli_io_open(struct cli_io *io, const char *cmd)
{
	const char *final;
	int rc;

	if (io->out && same_file(io->image, io->out))
		return usage_error(cmd, "-o %s is IMAGE itself: leave out -o to patch in place",
				   io->out);
	if (io->in_place && io->out)
		return usage_error(cmd, "--in-place and -o exclude each other");
	if (io->bmap && !io->out && !io->in_place)
		return usage_error(cmd, "--bmap needs -o (or --in-place)");
	io->in_fmt = IMGP_FMT_RAW;
	/* A mounted card is refused before anything is read from it. */
	if (is_blockdev(io->image) && !io->dry_run &&
	    imgp_blockdev_check_unmounted(io->image))
		return error_lib(io->image);
	if (!is_blockdev(io->image) && imgp_format_detect(io->image, &io->in_fmt))
		return error_lib(io->image);
	if (io->in_fmt == IMGP_FMT_RAW) {
		if (io->in_place && !io->compress_set)
			io->in_place = false;   /* a raw image is patched in place anyway */
		io->work = strdup(io->image);
		if (!io->work)
			die("out of memory");
		if (!io->out && !io->in_place && !io->dry_run)
			return open_in_place(io);
		return EXIT_OK;
	}
	if (!io->out && !io->in_place && !io->dry_run) {
		error("%s: a %s-compressed image is not patched in place: give -o OUT (or --in-place to recompress over it)",
		      io->image, imgp_format_name(io->in_fmt));
		return EXIT_USAGE;
	}
	/* --in-place replaces IMAGE: one run at a time, as for a raw image. */
	if (io->in_place && !io->dry_run && (io->lock_fd = imgp_lock(io->image)) < 0)
		return error_lib(io->image);
	/* The working copy lives where the output will, so the rename is atomic. */
	final = io->out ? io->out : io->in_place ? io->image : NULL;
	rc = temp_create(final, &io->work);
	if (!rc && block_wise(io)) {
		rc = imgp_xz_image_open(&io->xz, io->image, io->work,
					(unsigned)io->pack.threads);
		/* One block, mixed checks...: unpacked whole instead. */
		if (rc == -ENOTSUP) {
			imgp_errclear();
			rc = 0;
		}
	}
	if (!rc && !io->xz)
		rc = imgp_unpack(io->image, io->work, !io->bmap);
	if (rc) {
		temp_drop(&io->work);
		return error_lib(io->image);
	}
	io->work_is_temp = true;
	return EXIT_OK;
}

void cli_io_close(struct cli_io *io)
{
	imgp_xz_image_close(io->xz);
	io->xz = NULL;
	imgp_unlock(io->lock_fd);
	io->lock_fd = -1;
	free(io->journal);
	io->journal = NULL;
	if (io->work_is_temp)
		temp_drop(&io->work);
	free(io->work);
	io->work = NULL;
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

/* The format of the output: --compress, else -o's suffix, else the input's. */
static enum imgp_format out_format(const struct cli_io *io)
{
	if (io->compress_set)
		return io->pack.format;
	if (io->out)
		return imgp_format_from_name(io->out);
	return io->in_fmt;
}

/* The block-wise .xz output into the temporary file path, synced. */
static int xz_write(struct imgp_xz_image *xz, const char *path)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), rc;

	if (fd < 0)
		return imgp_fail(errno, "%s: %s", path, strerror(errno));
	rc = imgp_xz_image_write(xz, fd);
	if (!rc && fsync(fd) < 0)
		rc = imgp_fail(errno, "%s: fsync: %s", path, strerror(errno));
	if (close(fd) < 0 && !rc)
		rc = imgp_fail(errno, "%s: %s", path, strerror(errno));
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
	if (pack.format > IMGP_FMT_LZ4)
		return imgp_fail(EINVAL, "%s: cannot write a %s archive: choose --compress xz, zst, gz, bz2, lz4 or none",
				 final, imgp_format_name(pack.format));
	if (io->bmap) {
		rc = temp_create(io->bmap, &bmap_tmp);
		if (!rc)
			rc = imgp_bmap_write(*work, bmap_tmp);
	}
	if (!rc && io->xz) {
		rc = temp_create(final, &packed);
		if (!rc)
			rc = xz_write(io->xz, packed);
		if (!rc)
			rc = temp_rename(&packed, final);
	} else if (!rc && pack.format != IMGP_FMT_RAW) {
		rc = temp_create(final, &packed);
		if (!rc)
			rc = imgp_pack(*work, packed, &pack);
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
		rc = imgp_bmap_write(io->work, tmp);
	if (!rc)
		rc = temp_rename(&tmp, io->bmap);
	temp_drop(&tmp);
	return rc;
}

int cli_io_commit(struct cli_io *io, struct imgp_patch *patch)
{
	struct imgp_buf plan = { 0 };
	const char *final = io->out ? io->out : io->in_place ? io->image : NULL;
	size_t pending;
	int rc = 0;

	if (imgp_patch_describe(patch, &plan))
		return error_lib(io->image);
	fwrite(plan.data, 1, plan.len, stdout);
	imgp_buf_free(&plan);
	pending = imgp_patch_pending(patch);
	if (io->dry_run) {
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
			rc = imgp_copy_sparse(io->image, copy);
		if (rc) {
			temp_drop(&copy);
			return error_lib(final);
		}
		free(io->work);
		io->work = copy;
		io->work_is_temp = true;
	}
	/* A private copy needs no journal: it is renamed only when complete. */
	rc = imgp_patch_commit(patch, io->work, NULL);
	if (!rc)
		rc = finish_output(io, &io->work, final);
	if (rc)
		return error_lib(final);
	if (!io->work)
		io->work_is_temp = false;
	printf("wrote %s (%s): %zu change%s", final,
	       imgp_format_name(out_format(io)), pending, pending == 1 ? "" : "s");
	if (io->xz) {
		size_t nblocks, changed = imgp_xz_image_changed(io->xz, &nblocks);

		printf(", %zu of %zu xz blocks re-encoded", changed, nblocks);
	}
	putchar('\n');
	return EXIT_OK;
}
