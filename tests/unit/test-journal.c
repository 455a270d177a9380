// SPDX-License-Identifier: MIT
/*
 * The undo journal (journal.c) through its non-static functions, over a
 * scratch image with an MBR written by hand: the record it writes (header,
 * regions, checksums) read back byte by byte and checked with independent
 * tools (sha256sum for the regions' hashes, gzip's trailer for the CRC-32s),
 * undo putting the old bytes back exactly, what a run interrupted at each
 * step leaves, and torn, truncated, damaged or foreign journals refused
 * with their exact message, neither image nor journal changed. In a test
 * build (IMGP_TEST_HOOKS) a child is killed at a write (imgp_fault_point_)
 * and held at the journal's pause point (imgp_test_pause_).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs.h"
#include "patch/patch.h"
#include "core/endian.h"
#include "unit.h"

#define MiB (1024u * 1024u)
#define IMG_SIZE (4 * MiB)
#define DISK_ID 0xc0ffee11u

/* The journal's layout, as journal.c describes it. */
#define HDR 4096
#define ENTRY 80
#define H_STATE 12
#define H_CRC 32
#define H_TARGET 36
#define H_BODY_LEN 4020
#define H_BODY_CRC 4028
#define H_IDENTITY 4032

enum { WRITING = 1, READY = 2, DONE = 3, UNDONE = 4 };

static char image[PATH_MAX], journal[PATH_MAX];
/* The image as made, and the new bytes of the two regions a run writes. */
static uint8_t *orig;
static uint8_t new0[100], new1[5000];
static struct imgp_range ranges[2] = {
	{ .off = 4096 + 5, .len = sizeof(new0), .data = new0 },
	{ .off = MiB + 7, .len = sizeof(new1), .data = new1 },
};

/* ---------------------------------------------------------------- helpers */

static bool make_image(const char *path, uint32_t disk_id, size_t size)
{
	struct unit_mbr_slot one[4] = { { 0, 0x83, 2048, 4096 } };
	uint8_t *bytes = malloc(size);
	bool ok;

	if (!bytes)
		return false;
	for (size_t i = 0; i < size; i++)
		bytes[i] = (uint8_t)(i * 7 + i / 4093);
	ok = unit_write_file(path, bytes, size) == 0 &&
	     unit_write_mbr(path, 0, disk_id, one) == 0;
	free(bytes);
	return ok;
}

/* Whether the file at path holds exactly len bytes of want. */
static bool file_is(const char *path, const void *want, size_t len)
{
	size_t got_len = 0;
	uint8_t *got = unit_read_file(path, &got_len);
	bool same = got && got_len == len && !memcmp(got, want, len);

	free(got);
	return same;
}

static bool image_is_orig(void)
{
	return file_is(image, orig, IMG_SIZE);
}

/* Writes the first n regions' new bytes into the image, as a commit does. */
static bool apply(size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (unit_write_at(image, ranges[i].off, ranges[i].data, ranges[i].len))
			return false;
	return true;
}

static int begin(struct imgp_journal **j)
{
	struct imgp_image img;
	int rc;

	imgp_errclear_();
	rc = imgp_image_open_(&img, image, false);
	if (rc)
		return rc;
	rc = imgp_journal_begin_(journal, &img, ranges, 2, j);
	imgp_image_close_(&img);
	return rc;
}

static uint32_t journal_state(void)
{
	uint8_t v[4] = { 0 };

	unit_read_at(journal, H_STATE, v, sizeof(v));
	return get_le32(v);
}

/* Sets a header field (4 bytes) and makes the header's CRC good again. */
static void header_set32(unsigned off, uint32_t v)
{
	uint8_t h[HDR];

	unit_read_at(journal, 0, h, sizeof(h));
	put_le32(h + off, v);
	put_le32(h + H_CRC, 0);
	put_le32(h + H_CRC, imgp_crc32_(0, h, sizeof(h)));
	unit_write_at(journal, 0, h, sizeof(h));
}

/* The CRC-32 of data as gzip's trailer gives it: an independent reckoning. */
static bool gzip_crc32(const void *data, size_t len, uint32_t *crc)
{
	char in[PATH_MAX], out[PATH_MAX];
	const char *argv[] = { "gzip", "-n", "-c", in, NULL };
	uint8_t *gz;
	size_t gzlen = 0;

	unit_path_keep(in, sizeof(in), "crc.in");
	unit_path_keep(out, sizeof(out), "crc.gz");
	if (unit_write_file(in, data, len) || unit_spawn(argv, NULL, out) != 0)
		return false;
	gz = unit_read_file(out, &gzlen);
	if (!gz || gzlen < 18) {
		free(gz);
		return false;
	}
	*crc = get_le32(gz + gzlen - 8);
	free(gz);
	return true;
}

/* Whether hash holds sha256sum's digest of data. */
static bool sha256sum_is(const void *data, size_t len, const uint8_t hash[32])
{
	char in[PATH_MAX], out[PATH_MAX], hex[65];
	const char *argv[] = { "sha256sum", in, NULL };
	char *text;
	bool same;

	unit_path_keep(in, sizeof(in), "sha.in");
	unit_path_keep(out, sizeof(out), "sha.out");
	if (unit_write_file(in, data, len) || unit_spawn(argv, NULL, out) != 0 ||
	    !(text = unit_read_file(out, NULL)))
		return false;
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", hash[i]);
	same = !strncmp(text, hex, 64);
	free(text);
	return same;
}

/* imgp_journal_undo of the journal on path; -errno, message in imgp_errmsg(). */
static int undo(const char *path, bool force, size_t *restored, uint64_t *bytes)
{
	imgp_errclear_();
	return imgp_journal_undo(journal, path, force, restored, bytes);
}

/* A message as printf makes it, in storage reused by the next call. */
static const char *msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *msg(const char *fmt, ...)
{
	static char text[3 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return text;
}

/* Whether the last failure's message is exactly want. */
static bool says(const char *want)
{
	bool same = !strcmp(imgp_errmsg(), want);

	if (!same)
		printf("#   got:  '%s'\n#   want: '%s'\n", imgp_errmsg(), want);
	return same;
}

/* ------------------------------------------------------------- the record */

static void test_record(void)
{
	struct imgp_journal *j = NULL;
	uint8_t *rec;
	size_t len = 0;
	uint32_t crc = 0;
	size_t restored = 0;
	uint64_t bytes = 0;

	CHECK(begin(&j) == 0 && j, "begin: the journal is written");
	rec = unit_read_file(journal, &len);
	CHECK(rec && len == HDR + 2 * ENTRY + sizeof(new0) + sizeof(new1),
	      "record: a 4096-byte header, then each region's entry and old bytes");
	if (!rec || len != HDR + 2 * ENTRY + sizeof(new0) + sizeof(new1)) {
		free(rec);
		imgp_journal_abandon_(j);
		return;
	}
	CHECK(!memcmp(rec, "IMGPUNDO", 8) && get_le32(rec + 8) == 3,
	      "record: magic IMGPUNDO, version 3");
	CHECK(get_le32(rec + H_STATE) == READY, "record: ready once begin returns");
	CHECK(get_le64(rec + 16) == IMG_SIZE && get_le64(rec + 24) == 2,
	      "record: the image's size and the number of regions");
	CHECK_STR((char *)rec + H_TARGET, image, "record: the image's path");
	CHECK_STR((char *)rec + H_IDENTITY, "dos disk 0xc0ffee11",
		  "record: the image's identity, its MBR disk id");
	CHECK(get_le64(rec + H_BODY_LEN) == len - HDR, "record: the regions' length");
	CHECK(gzip_crc32(rec + HDR, len - HDR, &crc) && crc == get_le32(rec + H_BODY_CRC),
	      "record: the regions' CRC-32, as gzip reckons it");
	{
		uint32_t want = get_le32(rec + H_CRC);

		put_le32(rec + H_CRC, 0);
		CHECK(gzip_crc32(rec, HDR, &crc) && crc == want,
		      "record: the header's CRC-32, over the header with it zeroed");
		put_le32(rec + H_CRC, want);
	}
	for (int i = 0; i < 2; i++) {
		const uint8_t *e = rec + HDR + (i ? ENTRY + sizeof(new0) : 0);
		char what[96];

		snprintf(what, sizeof(what), "record: region %d's offset and length", i);
		CHECK(get_le64(e) == ranges[i].off && get_le64(e + 8) == ranges[i].len, what);
		snprintf(what, sizeof(what), "record: region %d's old bytes", i);
		CHECK(!memcmp(e + ENTRY, orig + ranges[i].off, ranges[i].len), what);
		snprintf(what, sizeof(what), "record: region %d's SHA-256 of old and new (sha256sum)", i);
		CHECK(sha256sum_is(orig + ranges[i].off, ranges[i].len, e + 16) &&
		      sha256sum_is(ranges[i].data, ranges[i].len, e + 48), what);
	}
	CHECK(image_is_orig(), "begin: the image is not written");

	/* Ready and the image untouched: an interrupted run, a second begin refused. */
	imgp_errclear_();
	CHECK(imgp_journal_check_(journal, image) == -EBUSY &&
	      says(msg("an interrupted imgpatch run on %s left %s: run 'imgpatch undo' on the image first (or give --recover)",
		       image, journal)), "check: a ready journal over an unwritten image is interrupted");
	{
		struct imgp_journal *again = NULL;
		int rc = begin(&again);

		CHECK(rc == -EBUSY && !again &&
		      says(msg("an interrupted imgpatch run on %s left %s: run 'imgpatch undo' on that image first",
			       image, journal)), "begin: refused over an interrupted run's journal");
		CHECK(file_is(journal, rec, len), "begin: that journal keeps every byte");
	}

	/* The run finishes. */
	CHECK(apply(2) && imgp_journal_done_(j) == 0 && journal_state() == DONE,
	      "done: the journal is marked done");
	CHECK(imgp_journal_check_(journal, image) == 0, "check: a done journal is no interruption");
	{
		struct imgp_image img;
		struct imgp_extent in = { .img_off = MiB + 5006, .len = 10 };
		struct imgp_extent out = { .img_off = MiB + 5007, .len = 10 };

		CHECK(imgp_image_open_(&img, image, false) == 0, "touched: the image opens");
		CHECK(imgp_journal_touched_(journal, &img, &in, 1) == 1,
		      "touched: an extent over the run's last byte");
		CHECK(imgp_journal_touched_(journal, &img, &out, 1) == 0,
		      "touched: an extent just past it");
		imgp_image_close_(&img);
	}

	CHECK(undo(image, false, &restored, &bytes) == 0 && restored == 2 &&
	      bytes == sizeof(new0) + sizeof(new1), "undo: both regions restored");
	CHECK(image_is_orig(), "undo: the image holds its old bytes exactly");
	CHECK(journal_state() == UNDONE, "undo: the journal is marked undone");
	CHECK(undo(image, false, &restored, &bytes) == -EALREADY && restored == 0 &&
	      says(msg("undo journal %s was already undone", journal)),
	      "undo: a second undo is refused");
	CHECK(image_is_orig(), "undo: and changes nothing");
	{
		struct imgp_image img;
		struct imgp_extent in = { .img_off = MiB, .len = 100 };

		CHECK(imgp_image_open_(&img, image, false) == 0 &&
		      imgp_journal_touched_(journal, &img, &in, 1) == 0,
		      "touched: an undone run touched nothing");
		imgp_image_close_(&img);
	}
	/* An undone journal is finished: a new run replaces it. */
	j = NULL;
	CHECK(begin(&j) == 0 && journal_state() == READY, "begin: over an undone journal");
	imgp_journal_abandon_(j);
	unlink(journal);
	free(rec);
}

/* ------------------------------------------------------- interrupted runs */

static void test_interrupted(void)
{
	struct imgp_journal *j = NULL;
	size_t restored = 0;
	uint64_t bytes = 0;

	/* Every write made and synced, the done mark lost: the run finished. */
	CHECK(begin(&j) == 0 && apply(2), "lost mark: the image written");
	imgp_journal_abandon_(j);
	CHECK(journal_state() == READY && imgp_journal_check_(journal, image) == 0,
	      "lost mark: every region holds its new bytes: no interruption");
	CHECK(imgp_journal_check_(journal, NULL) == -EBUSY,
	      "lost mark: without the image, the mark alone says interrupted");
	CHECK(undo(image, false, &restored, &bytes) == 0 && restored == 2 && image_is_orig(),
	      "lost mark: undo restores both regions");
	unlink(journal);

	/* Killed between the two regions' writes. */
	CHECK(begin(&j) == 0 && apply(1), "half: one region written");
	imgp_journal_abandon_(j);
	CHECK(imgp_journal_check_(journal, image) == -EBUSY, "half: the run was interrupted");
	CHECK(undo(image, false, &restored, &bytes) == 0 && restored == 1 &&
	      bytes == sizeof(new0) && image_is_orig(),
	      "half: undo restores the region that was written");
	unlink(journal);

	/* Still being written: nothing of the image was touched. */
	CHECK(begin(&j) == 0, "writing: a journal");
	imgp_journal_abandon_(j);
	header_set32(H_STATE, WRITING);
	CHECK(imgp_journal_check_(journal, image) == -EBUSY, "writing: an interrupted run");
	CHECK(undo(image, false, &restored, &bytes) == 0 && restored == 0 && image_is_orig() &&
	      journal_state() == UNDONE, "writing: undo restores nothing and marks it undone");
	unlink(journal);

	/* Ready, but its regions never reached the disk whole (a power cut in the sync). */
	CHECK(begin(&j) == 0, "torn: a journal");
	imgp_journal_abandon_(j);
	{
		uint8_t junk = 0x5a;

		unit_write_at(journal, HDR + ENTRY + 50, &junk, 1);
	}
	CHECK(undo(image, false, &restored, &bytes) == 0 && restored == 0 && image_is_orig() &&
	      journal_state() == UNDONE,
	      "torn: regions that fail their CRC were never written: nothing restored");
	unlink(journal);

	CHECK(imgp_journal_check_(journal, image) == 0, "check: no journal is no interruption");
}

/* ------------------------------------------------------------- refusals */

/* Undo refused with err and exactly want; image and journal unchanged. */
static void undo_refused(const char *img, int err, const char *want, const char *name)
{
	size_t jlen = 0, ilen = 0, restored = 9;
	uint64_t bytes = 9;
	uint8_t *jbefore = unit_read_file(journal, &jlen);
	uint8_t *ibefore = unit_read_file(img, &ilen);
	char what[256];
	int rc = undo(img, false, &restored, &bytes);

	snprintf(what, sizeof(what), "%s: refused", name);
	CHECK(rc == -err && restored == 0 && bytes == 0, what);
	snprintf(what, sizeof(what), "%s: the message", name);
	CHECK(says(want), what);
	snprintf(what, sizeof(what), "%s: image and journal unchanged", name);
	CHECK(jbefore && ibefore && file_is(journal, jbefore, jlen) && file_is(img, ibefore, ilen),
	      what);
	free(jbefore);
	free(ibefore);
}

static void test_refusals(void)
{
	struct imgp_journal *j = NULL;
	uint8_t *done = NULL, *applied = NULL;
	size_t dlen = 0, restored = 0;
	uint64_t bytes = 0;
	uint8_t junk = 0x5a;
	char other[PATH_MAX], link[PATH_MAX];

	/* A finished run's journal and image, restored before each case. */
	CHECK(begin(&j) == 0 && apply(2) && imgp_journal_done_(j) == 0, "refusals: a done run");
	done = unit_read_file(journal, &dlen);
	applied = unit_read_file(image, NULL);
	if (!done || !applied)
		goto out;
#define AGAIN() (unit_write_file(journal, done, dlen), unit_write_file(image, applied, IMG_SIZE))

	unit_write_at(journal, 0, "IMGPUNDX", 8);
	undo_refused(image, EINVAL, msg("%s is not an imgpatch undo journal", journal), "wrong magic");
	AGAIN();
	CHECK(truncate(journal, 100) == 0, "refusals: a journal cut to 100 bytes");
	undo_refused(image, EINVAL, msg("%s is not an imgpatch undo journal", journal), "cut inside the header");
	AGAIN();
	unit_write_at(journal, H_TARGET, &junk, 1);
	undo_refused(image, EINVAL, msg("undo journal %s: header checksum mismatch (damaged)", journal),
		     "header damaged");
	AGAIN();
	header_set32(8, 9);
	undo_refused(image, EINVAL, msg("undo journal %s: version 9 is not supported", journal), "version 9");
	AGAIN();
	CHECK(truncate(journal, HDR + ENTRY + 100) == 0, "refusals: cut after region 0");
	undo_refused(image, EINVAL, msg("undo journal %s: region 1 is missing (truncated journal)", journal),
		     "region missing");
	AGAIN();
	CHECK(truncate(journal, (off_t)dlen - 1) == 0, "refusals: cut one byte short");
	undo_refused(image, EINVAL, msg("undo journal %s: region 1 is damaged", journal), "region cut short");
	AGAIN();
	unit_write_at(journal, HDR + ENTRY + 50, &junk, 1);
	undo_refused(image, EINVAL, msg("undo journal %s: region 0 does not match its checksum", journal),
		     "old bytes damaged");
	{
		uint8_t v[8];

		AGAIN();
		put_le64(v, UINT64_MAX - 10);
		unit_write_at(journal, HDR + ENTRY + 100, v, 8);
		undo_refused(image, EINVAL, msg("undo journal %s: region 1 is damaged", journal),
			     "region at a hostile offset");
		AGAIN();
		put_le64(v, 1ull << 63);
		unit_write_at(journal, HDR + ENTRY + 100 + 8, v, 8);
		undo_refused(image, EINVAL, msg("undo journal %s: region 1 is damaged", journal),
			     "region of a hostile length");
		AGAIN();
		header_set32(24, 0xffffffffu);
		undo_refused(image, EINVAL, msg("undo journal %s: region 2 is missing (truncated journal)", journal),
			     "hostile region count");
	}

	/* The image moved on since the run: refused, unless forced. */
	AGAIN();
	unit_write_at(image, MiB + 100, &junk, 1);
	undo_refused(image, EEXIST,
		     "the image changed since it was patched (bytes 1048583-1053582): not undoing (--force does it anyway)",
		     "image changed");
	CHECK(undo(image, true, &restored, &bytes) == 0 && restored == 2 && image_is_orig(),
	      "image changed: --force restores the old bytes anyway");
	/* Interrupted (ready) with a region that holds neither content. */
	AGAIN();
	header_set32(H_STATE, READY);
	unit_write_at(image, MiB + 100, &junk, 1);
	undo_refused(image, EEXIST,
		     msg("bytes 1048583-1053582 hold neither the content before nor after the run that left undo journal %s (for %s): not undoing (--force does it anyway)",
			 journal, image), "region neither old nor new");

	/* Another image: another disk id, another size. */
	AGAIN();
	unit_path_keep(other, sizeof(other), "other.img");
	make_image(other, 0x0badf00d, IMG_SIZE);
	undo_refused(other, EINVAL,
		     msg("undo journal %s was made for %s (dos disk 0xc0ffee11, 4194304 bytes), not this image (dos disk 0x0badf00d, 4194304 bytes)",
			 journal, image), "another disk id");
	make_image(other, DISK_ID, IMG_SIZE + 512);
	undo_refused(other, EINVAL,
		     msg("undo journal %s was made for %s (dos disk 0xc0ffee11, 4194304 bytes), not this image (dos disk 0xc0ffee11, 4194816 bytes)",
			 journal, image), "another size");

	/* Never through a symbolic link, never a directory. */
	unit_path_keep(link, sizeof(link), "link.undo");
	CHECK(symlink(journal, link) == 0, "refusals: a link to the journal");
	{
		char keep[PATH_MAX];

		snprintf(keep, sizeof(keep), "%s", journal);
		snprintf(journal, sizeof(journal), "%s", link);
		undo_refused(image, ELOOP, msg("undo journal %s is a symbolic link: not following it", journal),
			     "journal through a link");
		CHECK(begin(&j) == -ELOOP && says(msg("undo journal %s is a symbolic link: not following it", link)),
		      "begin: refuses to write through a link");
		unlink(link);
		CHECK(mkdir(link, 0755) == 0 && imgp_journal_check_(journal, image) == -EINVAL &&
		      says(msg("undo journal %s is not a regular file", link)),
		      "check: a folder is not a journal");
		rmdir(link);
		/* A file that is no journal is not overwritten by a new one. */
		unit_write_text(link, "precious\n");
		CHECK(begin(&j) == -EEXIST &&
		      says(msg("%s exists and is not an imgpatch undo journal: not overwriting it", link)) &&
		      file_is(link, "precious\n", 9), "begin: a file that is no journal is kept");
		snprintf(journal, sizeof(journal), "%s", keep);
	}
#undef AGAIN
out:
	unlink(journal);
	unit_write_file(image, orig, IMG_SIZE);
	free(done);
	free(applied);
}

/* ---------------------------------------------------------- test hooks */

static void test_hooks(void)
{
	char *path = imgp_journal_path("cards/kv260.img");

	CHECK_STR(path, "cards/kv260.img.imgpatch-undo", "path: beside the image");
	free(path);
#ifdef IMGP_TEST_HOOKS
	{
		char flag[PATH_MAX], spec[PATH_MAX + 16];
		size_t restored = 0;
		uint64_t bytes = 0;
		int status = 0;
		pid_t pid;

		/* Killed at the third write: the header, region 0's entry, its old bytes. */
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			struct imgp_journal *j;

			setenv("IMGPATCH_TEST_CRASH_AFTER_WRITES", "3", 1);
			begin(&j);
			_exit(0);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
		      WTERMSIG(status) == SIGKILL, "fault point: the child is killed at a write");
		{
			struct stat st;

			CHECK(stat(journal, &st) == 0 && st.st_size == HDR + ENTRY + 100 &&
			      journal_state() == WRITING,
			      "fault point: it left a journal being written, cut after region 0");
		}
		CHECK(imgp_journal_check_(journal, image) == -EBUSY &&
		      undo(image, false, &restored, &bytes) == 0 && restored == 0 && image_is_orig(),
		      "fault point: undo of it restores nothing");
		unlink(journal);

		/* Held at the pause point: the journal is ready and synced there. */
		unit_path_keep(flag, sizeof(flag), "paused");
		snprintf(spec, sizeof(spec), "journal:%s", flag);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			struct imgp_journal *j = NULL;

			setenv("IMGPATCH_TEST_PAUSE", spec, 1);
			if (begin(&j))
				_exit(1);
			imgp_journal_abandon_(j);
			_exit(0);
		}
		for (int i = 0; i < 1000 && access(flag, F_OK); i++)
			usleep(10000);
		CHECK(access(flag, F_OK) == 0 && journal_state() == READY,
		      "pause: the child waits at 'journal' with its journal ready");
		unlink(flag);
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0, "pause: and goes on when the file is gone");
		unlink(journal);
	}
#else
	/* Without test hooks both are no-ops whatever the environment says. */
	setenv("IMGPATCH_TEST_CRASH_AFTER_WRITES", "1", 1);
	setenv("IMGPATCH_TEST_PAUSE", "journal:/nonexistent/flag", 1);
	imgp_fault_point_();
	imgp_test_pause_("journal");
	CHECK(1, "hooks: no-ops in a build without IMGP_TEST_HOOKS");
	unsetenv("IMGPATCH_TEST_CRASH_AFTER_WRITES");
	unsetenv("IMGPATCH_TEST_PAUSE");
#endif
}

int main(void)
{
	if (unit_tmpdir_create("journal")) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	unit_path_keep(image, sizeof(image), "card.img");
	unit_path_keep(journal, sizeof(journal), "card.img.imgpatch-undo");
	memset(new0, 0xa1, sizeof(new0));
	for (size_t i = 0; i < sizeof(new1); i++)
		new1[i] = (uint8_t)(0xb0 ^ i);
	CHECK(make_image(image, DISK_ID, IMG_SIZE) && (orig = unit_read_file(image, NULL)),
	      "fixture: a 4 MiB image with an MBR written by hand");
	if (!orig)
		return unit_done();
	test_record();
	test_interrupted();
	test_refusals();
	test_hooks();
	free(orig);
	return unit_done();
}
