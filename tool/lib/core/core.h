/* SPDX-License-Identifier: MIT */
/*
 * core/: the log, buffers, image I/O, progress and temporary files.
 * Shared by the library's own files (and white-box tests), not part of
 * the client API in imgpatch.h. A file includes the folders' headers it uses.
 */
#ifndef IMGP_CORE_H
#define IMGP_CORE_H

#include <time.h>

#include "imgpatch.h"

/*
 * The library's handles and records that a folder's header names before
 * the header defining them (part/part.h, fs/fs.h, fit/fit.h, core.h) is read.
 */
struct imgp_image;
struct imgp_part;
struct imgp_table;
struct imgp_fs;
struct imgp_fit;
struct imgp_journal;

/*
 * Reads byte ranges of one file (a file inside a partition, a buffer):
 * read() returns 0 or -errno with a message; close() (may be NULL) frees ctx.
 */
struct imgp_reader {
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
	void (*close)(void *ctx);
	void *ctx;
	uint64_t size;
};

/* ------------------------------------------------------------------ ctx.c */

/* The body of a run's context (imgp_ctx_new); the library reaches it through its handles. */
struct imgp_ctx {
	imgp_log_fn log;
	void *log_data;
	imgp_progress_fn progress;
	void *progress_data;
	const volatile sig_atomic_t *interrupt;
	imgp_names_fn names;
	void *names_data;
	struct timespec last_progress;  /* when the progress hook was last called */
};

/* Tells ctx's name hook that copy stands for name (NULL: copy is gone). */
void imgp_ctx_name_(struct imgp_ctx *ctx, const char *copy, const char *name);

/* ------------------------------------------------------------------ log.c */

/* Forgets the current failure message. */
void imgp_errclear_(void);
/* A message to ctx's log hook (ctx NULL, or no hook: dropped). */
void imgp_log_(struct imgp_ctx *ctx, enum imgp_log_level level, const char *fmt, ...)
	IMGP_PRINTF(3, 4);
#define imgp_warn(ctx, ...) imgp_log_(ctx, IMGP_LOG_WARNING, __VA_ARGS__)
#define imgp_debug(ctx, ...) imgp_log_(ctx, IMGP_LOG_DEBUG, __VA_ARGS__)
/*
 * A warning of something being computed that has no handle to log
 * through: appended to into, a line each, for its caller to keep or log
 * (imgp_warn_lines_); NULL: dropped.
 */
void imgp_warn_into_(struct imgp_buf *into, const char *fmt, ...) IMGP_PRINTF(2, 3);
/* Each line of lines (as imgp_warn_into_() made them; NULL: none) as a warning to ctx. */
void imgp_warn_lines_(struct imgp_ctx *ctx, const char *lines);

/*
 * As imgp_fail, for a name the caller gave that names none (or several) of
 * the choices the image offers, the choices listed in the message (a
 * --model no tree has): imgp_err_is_name() then says so, until the next
 * imgp_fail (imgp_fail_ctx keeps it). A command line reports it as a
 * mistake in what was typed, where the user typed the name.
 */
int imgp_fail_name_(int err, const char *fmt, ...) IMGP_PRINTF(2, 3);

/* ------------------------------------------------------------------ buf.c */

/* Returns 0 or -ENOMEM. */
int imgp_buf_reserve_(struct imgp_buf *b, size_t extra);

/* Hands the data over to the caller (who frees it) and empties b. */
uint8_t *imgp_buf_steal_(struct imgp_buf *b, size_t *len);
/* Copies src into dst (dstlen > 0 bytes), cut only at a UTF-8 character boundary. */
void imgp_copy_utf8_(char *dst, size_t dstlen, const char *src);

/* ---------------------------------------------------------------- image.c */

/*
 * Makes [off, off+len) of an image file hold the image's bytes before they
 * are read or written through its fd (an image unpacked on demand); write
 * says the range is about to change. Returns 0 or -errno with a message.
 */
typedef int (*imgp_fill_fn)(void *ctx, uint64_t off, uint64_t len, bool write);

/* An image (imgpatch.h): the file or device, its size and its filler. */
struct imgp_image {
	char *path;
	int fd;
	bool writable;
	bool is_blockdev;
	uint64_t size;
	imgp_fill_fn fill;       /* NULL for a plain file or device */
	void *fill_ctx;
	/* Writes to the file through it, or by a commit of a plan made on it: caches compare it. */
	uint64_t writes;
	/* The context it was opened with (NULL: none): its handles log and report progress there. */
	struct imgp_ctx *ctx;
};

/*
 * Opens a regular file or block device. Writable block devices are opened
 * exclusively and refused while mounted (-EBUSY). Returns 0, or -errno
 * (-ENOENT, -EACCES, -EINVAL for an empty file); messages never repeat the
 * path.
 */
int imgp_image_open_(struct imgp_image *img, const char *path, bool writable);
void imgp_image_close_(struct imgp_image *img);

/*
 * Reads/writes exactly len bytes at off, looping over short transfers and
 * EINTR. Returns 0, -ERANGE when [off, off+len) is not inside the image, or
 * -EIO/-errno.
 */
int imgp_image_read_(const struct imgp_image *img, uint64_t off, void *buf,
		    size_t len);
int imgp_image_write_(struct imgp_image *img, uint64_t off, const void *buf,
		     size_t len);
/* fsync; returns 0 or -errno. */
int imgp_image_sync_(struct imgp_image *img);
/* Whether a and b are open on the same file (or device). */
bool imgp_image_same_file_(const struct imgp_image *a, const struct imgp_image *b);

/* ---------------------------------------------------------------- copy.c */

/* Reports progress to ctx's hook; -EINTR once ctx's interrupt flag is set, else 0. */
int imgp_progress_(struct imgp_ctx *ctx, const char *what, uint64_t done, uint64_t total);

/* ------------------------------------------------------------------ lock.c */

/*
 * Takes an exclusive lock on the image for the whole run (flock), so two
 * runs cannot interleave. -EBUSY "locked by another imgpatch run (pid N)"
 * when someone holds it. Returns an fd to keep open (the lock lives as long
 * as it) or -errno.
 */
int imgp_lock_(const char *path);
void imgp_unlock_(int fd);

/*
 * imgp_lock_(), taken on the file already open as fd (path names it):
 * -EAGAIN when path no longer names that file. Returns a new fd to keep
 * open, or -errno.
 */
int imgp_lock_fd_(int fd, const char *path);

/* ----------------------------------------------------------- local-file.c */

/*
 * Reads a whole regular file of at most max bytes (NUL-terminated).
 * nofollow: the path was resolved already, a link there now is a swap.
 * Returns 0, or -errno with "PATH: why" (-EFBIG when larger, -EINVAL when
 * not a regular file).
 */
int imgp_read_local_(const char *path, size_t max, bool nofollow,
		    struct imgp_buf *out);

/* ------------------------------------------------------------ tempfiles.c */

/*
 * Creates a temporary file from tmpl ("DIR/NAME-XXXXXX", mkstemp) and puts
 * it on the run's list of temporary files, with no signal in between.
 * Returns the open fd (O_CLOEXEC) or -errno with a message.
 */
int imgp_temp_create_(char *tmpl);
/*
 * Puts path, which a program this run starts will create (ssh-keygen's
 * KEY.pub), on the list, so that an interrupted run leaves it behind no
 * more than a file imgp_temp_create_ made. 0 or -ENOMEM.
 */
int imgp_temp_claim_(const char *path);
/* Takes path off the list (it was renamed or removed). */
void imgp_temp_forget_(const char *path);

/* ----------------------------------------------------------------- image.c */

/*
 * External programs (mtools, libblkid) read the file itself, so whoever
 * hands them a range of an image filled on demand calls this first: makes
 * [off, off+len) of the file hold the image's bytes (see imgp_fill_fn).
 */
int imgp_image_fill_(const struct imgp_image *img, uint64_t off, uint64_t len);
/*
 * imgp_image_open_() read-only of the file open as fd (path names it),
 * through a duplicate of fd, which the caller keeps. Returns 0 or -errno.
 */
int imgp_image_open_fd_(struct imgp_image *img, int fd, const char *path);
/*
 * imgp_image_open_() read-only of a regular file filled on demand: every
 * read goes through fill (with ctx) first. The handle passes it on to no
 * other: a commit of a plan made on it writes through it
 * (imgp_image_inherit_fill_()). Returns 0 or -errno.
 */
int imgp_image_open_filled_(struct imgp_image *img, const char *path,
			   imgp_fill_fn fill, void *ctx);
/* img, open on from's file, reads and writes through from's filler too. */
void imgp_image_inherit_fill_(struct imgp_image *img, const struct imgp_image *from);

/* ------------------------------------------------------------------- crc.c */

/* CRC-32 (IEEE 802.3, as zlib, GPT, FIT and U-Boot legacy images use it). */
uint32_t imgp_crc32_(uint32_t crc, const void *data, size_t len);

/* ------------------------------------------------------------ test-hooks.c */

/* Test builds: the place where a simulated crash may strike after a write. */
void imgp_fault_point_(void);
/*
 * Test builds: IMGPATCH_TEST_PAUSE=POINT:FILE makes the run create FILE on
 * reaching POINT and wait there while FILE exists (at most a minute), so a
 * test can act (a signal, a second run) at a known step. A no-op otherwise.
 */
void imgp_test_pause_(const char *point);

/* ------------------------------------------------------------------- run.c */

/*
 * Path of an external program: $IMGPATCH_<NAME> (upper case, '-' as '_')
 * when set, else the first executable "name" in $PATH, into buf (size
 * bytes; a longer one is cut): buf, or NULL with a failure message when
 * not found.
 */
const char *imgp_tool_path_(const char *name, char *buf, size_t size);
/*
 * Runs argv[0] (a bare program name resolved with imgp_tool_path_) with the
 * given argv, no shell, a clean environment (PATH, LC_ALL=C, TZ=UTC and the
 * variables in extra_env, each "K=V"), stdin from /dev/null, stdout captured
 * into out (may be NULL to discard). Returns 0 when the program exits 0;
 * otherwise -EIO with the program's first stderr line as the message.
 */
int imgp_run_(const char *const argv[], const char *const extra_env[],
	     struct imgp_buf *out);
/*
 * As imgp_run_, the program also keeping the descriptors keep_fds[0..nkeep)
 * (each 3 or more, close-on-exec here), which it opens as /proc/self/fd/N:
 * a file handed over this way never has its name parsed by the program.
 * -EINVAL for a descriptor below 3.
 */
int imgp_run_fds_(const char *const argv[], const char *const extra_env[],
		 struct imgp_buf *out, const int *keep_fds, size_t nkeep);

#endif /* IMGP_CORE_H */
