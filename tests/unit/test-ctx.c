// SPDX-License-Identifier: MIT
/*
 * The run's context: the log hook, the progress hook and the interrupt flag
 * belong to the ctx a handle was opened with, and to no other. The image is
 * a GPT made by sfdisk at test time whose backup header is then damaged, so
 * that opening it warns.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "format/format.h"
#include "unit.h"
#include "disk/disk.h"

#define IMG_SIZE (16u << 20)

/* What one ctx's hooks saw. */
struct seen {
	char warnings[2048];
	int nlog;
	int nprogress;
	uint64_t done, total;
};

static void on_log(enum imgp_log_level level, const char *msg, void *data)
{
	struct seen *s = data;
	size_t n = strlen(s->warnings);

	s->nlog++;
	if (level == IMGP_LOG_WARNING)
		snprintf(s->warnings + n, sizeof(s->warnings) - n, "%s\n", msg);
}

static void on_progress(const char *what, uint64_t done, uint64_t total, void *data)
{
	struct seen *s = data;

	if (strcmp(what, "copying") != 0)
		return;
	s->nprogress++;
	s->done = done;
	s->total = total;
}

static struct imgp_ctx *ctx_for(struct seen *s, const volatile sig_atomic_t *flag)
{
	struct imgp_ctx *ctx = NULL;

	memset(s, 0, sizeof(*s));
	if (imgp_ctx_new(&ctx))
		return NULL;
	imgp_ctx_set_log(ctx, on_log, s);
	imgp_ctx_set_progress(ctx, on_progress, s);
	imgp_ctx_set_interrupt(ctx, flag);
	return ctx;
}

/* A 16 MiB GPT image with one partition, its backup header then damaged. */
static int make_image(const char *sfdisk, const char *path)
{
	static const char script[] =
		"label: gpt\n"
		"start=2048, size=8192, type=0FC63DAF-8483-4772-8E79-3DB47D7E4EB5\n";
	const char *argv[] = { sfdisk, "--quiet", path, NULL };
	char spath[PATH_MAX];
	uint8_t junk = 0x5a;
	int fd, rc;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	rc = ftruncate(fd, IMG_SIZE);
	close(fd);
	unit_path_keep(spath, sizeof(spath), "script");
	if (rc || unit_write_text(spath, script) || unit_spawn(argv, spath, NULL) != 0)
		return -1;
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	/* Inside the disk GUID of the last sector's header: its CRC no longer matches. */
	rc = pwrite(fd, &junk, 1, IMG_SIZE - 512 + 60) == 1 ? 0 : -1;
	close(fd);
	return rc;
}

static void test_log(const char *img)
{
	struct imgp_ctx *a, *b;
	struct imgp_disk *disk = NULL;
	struct imgp_work *w = NULL;
	struct seen sa, sb;
	int rc;

	a = ctx_for(&sa, NULL);
	b = ctx_for(&sb, NULL);
	CHECK(a && b, "log: two contexts");
	if (!a || !b)
		goto out;

	rc = imgp_disk_open(&disk, a, img, false);
	CHECK(rc == 0, "log: the image opens with ctx a");
	CHECK(strstr(sa.warnings, ": GPT: the backup header (LBA 32767) is damaged (CRC mismatch); using the primary header") != NULL,
	      "log: a's hook gets the damaged backup header's warning");
	if (!strstr(sa.warnings, "is damaged"))
		printf("#   a's warnings: '%s'\n", sa.warnings);
	CHECK(sb.nlog == 0, "log: b's hook gets nothing of a handle opened with a");
	imgp_disk_close(disk);

	memset(&sa, 0, sizeof(sa));
	rc = imgp_disk_open(&disk, b, img, false);
	CHECK(rc == 0 && strstr(sb.warnings, "is damaged") != NULL,
	      "log: opened with ctx b, b's hook gets the warning");
	CHECK(sa.nlog == 0, "log: a's hook gets nothing of a handle opened with b");
	imgp_disk_close(disk);

	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	rc = imgp_disk_open(&disk, NULL, img, false);
	CHECK(rc == 0 && disk && imgp_disk_table_(disk)->nparts == 1,
	      "log: opened without a ctx, the table still reads");
	CHECK(sa.nlog == 0 && sb.nlog == 0, "log: without a ctx no hook gets the warning");
	imgp_disk_close(disk);

	/* A working image hands its ctx on to the disk it opens. */
	rc = imgp_work_probe_(&w, a, img);
	if (!rc)
		rc = imgp_work_disk_open_(w, &disk);
	CHECK(rc == 0 && strstr(sa.warnings, "is damaged") != NULL && sb.nlog == 0,
	      "log: a disk opened through a working image probed with a warns to a");
	imgp_disk_close(disk);
	imgp_work_close_(w);
out:
	imgp_ctx_free(a);
	imgp_ctx_free(b);
}

static void test_progress_interrupt(const char *img)
{
	static volatile sig_atomic_t stop_a = 1, stop_b;
	struct imgp_ctx *a, *b;
	struct seen sa, sb;
	char dst[PATH_MAX];
	int rc;

	a = ctx_for(&sa, &stop_a);
	b = ctx_for(&sb, &stop_b);
	CHECK(a && b, "progress: two contexts");
	if (!a || !b)
		goto out;
	unit_path_keep(dst, sizeof(dst), "copy.img");

	rc = imgp_copy_sparse(b, img, dst);
	CHECK(rc == 0, "progress: b's copy runs");
	CHECK(sb.nprogress > 0 && sb.done == IMG_SIZE && sb.total == IMG_SIZE,
	      "progress: b's hook gets the copy, ending at the image's size");
	CHECK(sa.nprogress == 0, "progress: a's hook gets nothing of b's copy");

	rc = imgp_copy_sparse(a, img, dst);
	CHECK(rc == -EINTR && strcmp(imgp_errmsg(), "interrupted") == 0,
	      "interrupt: a's flag set, a's copy stops with -EINTR \"interrupted\"");
	CHECK(sa.nprogress == 0, "interrupt: an interrupted copy reports no progress");

	memset(&sb, 0, sizeof(sb));
	rc = imgp_copy_sparse(b, img, dst);
	CHECK(rc == 0 && sb.done == IMG_SIZE, "interrupt: b's copy is not stopped by a's flag");
	rc = imgp_copy_sparse(NULL, img, dst);
	CHECK(rc == 0, "interrupt: a copy without a ctx is never interrupted");

	stop_a = 0;
	memset(&sa, 0, sizeof(sa));
	rc = imgp_copy_sparse(a, img, dst);
	CHECK(rc == 0 && sa.done == IMG_SIZE, "interrupt: a's flag cleared, a's copy runs");
out:
	imgp_ctx_free(a);
	imgp_ctx_free(b);
}

int main(void)
{
	char img[PATH_MAX], sfdisk[PATH_MAX];

	if (unit_tmpdir_create("ctx")) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	if (!unit_find_tool("sfdisk", sfdisk, sizeof(sfdisk))) {
		SKIP_TOOL("a GPT image to warn about", "sfdisk");
		return unit_done();
	}
	unit_path_keep(img, sizeof(img), "gpt.img");
	CHECK(make_image(sfdisk, img) == 0, "sfdisk makes a GPT image, its backup header then damaged");
	test_log(img);
	test_progress_interrupt(img);
	return unit_done();
}
