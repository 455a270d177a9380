// SPDX-License-Identifier: MIT
/*
 * The job (imgp_job_*) through the public API alone, as a program other
 * than the command line would use it: an image made by sfdisk is written
 * to an output raw and gzip-compressed (checked against the image with
 * cmp and the real gzip), a compressed image is refused in place as a
 * matter of options, an output folder that does not exist is named as
 * the failure's file before anything is made, and a reading job's
 * unpacked copy is told to the name hook and gone after the job.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "unit.h"
#include "core/core.h"
#include "patch/patch.h"
#include "job/job.h"
#include "disk/disk.h"

#define IMG_SIZE (8u << 20)

/* What the name hook heard: the copy a name was given, and whether it went. */
struct names {
	char copy[PATH_MAX];
	char name[PATH_MAX];
	int told, forgotten;
};

static void on_name(const char *copy, const char *name, void *data)
{
	struct names *n = data;

	if (!name) {
		n->forgotten += !strcmp(copy, n->copy);
		return;
	}
	n->told++;
	snprintf(n->copy, sizeof(n->copy), "%s", copy);
	snprintf(n->name, sizeof(n->name), "%s", name);
}

static int make_image(const char *sfdisk, const char *path)
{
	const char *argv[] = { sfdisk, "--quiet", path, NULL };
	char script[PATH_MAX];
	FILE *f = fopen(path, "w");

	if (!f || ftruncate(fileno(f), IMG_SIZE) < 0 || fclose(f))
		return -1;
	unit_path_keep(script, sizeof(script), "script");
	if (unit_write_text(script, "label: gpt\nstart=2048, size=8192, type=linux\n"))
		return -1;
	return unit_spawn(argv, script, NULL) == 0 ? 0 : -1;
}

/* A writing job on img with opts, its empty plan committed: 0 or the failing rc. */
static int write_job(struct imgp_ctx *ctx, struct imgp_job_opts *opts, struct imgp_job **out)
{
	struct imgp_disk *disk = NULL;
	struct imgp_patch *patch = NULL;
	int rc;

	opts->write = true;
	if (imgp_job_new(out, ctx, opts))
		return -ENOMEM;
	rc = imgp_job_open(*out);
	if (!rc)
		rc = imgp_job_disk_open(*out, &disk);
	if (!rc)
		rc = imgp_patch_new(&patch, disk);
	if (!rc)
		rc = imgp_job_commit(*out, patch);
	imgp_patch_free(patch);
	imgp_disk_close(disk);
	return rc;
}

static bool same_bytes(const char *a, const char *b)
{
	const char *argv[] = { "cmp", "-s", a, b, NULL };

	return unit_spawn(argv, NULL, NULL) == 0;
}

static void test_outputs(struct imgp_ctx *ctx, const char *img)
{
	char raw[PATH_MAX], gz[PATH_MAX], back[PATH_MAX];
	struct imgp_job_opts opts = { .image = img, .pack = { .level = -1 } };
	struct imgp_job *job = NULL;
	const char *gunzip[] = { "gzip", "-dc", gz, NULL };
	bool usage = true;
	int rc;

	opts.out = unit_path_keep(raw, sizeof(raw), "out.img");
	rc = write_job(ctx, &opts, &job);
	CHECK(rc == 0 && !strcmp(imgp_job_output(job), raw) &&
	      imgp_job_out_format(job) == IMGP_FMT_RAW && same_bytes(img, raw),
	      "a raw output holds the image's bytes");
	CHECK(imgp_job_commit(job, NULL) == -EINVAL, "a job commits once");
	imgp_job_free(job);

	opts.out = unit_path_keep(gz, sizeof(gz), "out.img.gz");
	rc = write_job(ctx, &opts, &job);
	CHECK(rc == 0 && imgp_job_out_format(job) == IMGP_FMT_GZIP, "an output named .gz is gzip");
	imgp_job_free(job);
	unit_path_keep(back, sizeof(back), "back.img");
	CHECK(unit_spawn(gunzip, NULL, back) == 0 && same_bytes(img, back),
	      "and gzip -dc gives the image back");

	/* Compressed and no output: the options do not fit the image. */
	opts.image = gz;
	opts.out = NULL;
	rc = write_job(ctx, &opts, &job);
	CHECK(rc == -EINVAL && !strcmp(imgp_job_failed(job, &usage), gz) && usage &&
	      strstr(imgp_errmsg(), "gzip-compressed image is not patched in place"),
	      "a compressed image is not patched in place: a usage failure about it");
	imgp_job_free(job);

	/* A reading job with an output: the caller's options are at fault. */
	opts.image = img;
	opts.write = false;
	opts.out = raw;
	rc = imgp_job_new(&job, ctx, &opts);
	rc = rc ? rc : imgp_job_open(job);
	CHECK(rc == -EINVAL && imgp_job_failed(job, &usage) && usage,
	      "a reading job takes no output: a usage failure");
	imgp_job_free(job);

	opts.out = unit_path("nodir/out.img");
	rc = write_job(ctx, &opts, &job);
	CHECK(rc < 0 && !strcmp(imgp_job_failed(job, &usage), opts.out) && !usage &&
	      strstr(imgp_errmsg(), "does not exist") && access(opts.out, F_OK) < 0,
	      "an output folder that does not exist is the failure's file");
	imgp_job_free(job);
}

static void test_read(struct imgp_ctx *ctx, struct names *n)
{
	char gz[PATH_MAX];
	struct imgp_job_opts opts = { .image = unit_path_keep(gz, sizeof(gz), "out.img.gz") };
	struct imgp_job *job = NULL;
	struct imgp_disk *disk = NULL;
	int rc;

	memset(n, 0, sizeof(*n));
	rc = imgp_job_new(&job, ctx, &opts);
	rc = rc ? rc : imgp_job_open(job);
	rc = rc ? rc : imgp_job_disk_open(job, &disk);
	CHECK(rc == 0 && imgp_job_format(job) == IMGP_FMT_GZIP, "a reading job opens a .gz");
	CHECK(n->told == 1 && !strcmp(n->name, gz) && !strcmp(imgp_job_path(job), n->copy) &&
	      access(n->copy, F_OK) == 0, "its unpacked copy is told to the name hook");
	imgp_disk_close(disk);
	imgp_job_free(job);
	CHECK(n->forgotten == 1 && access(n->copy, F_OK) < 0, "and gone after the job");
}

int main(void)
{
	char img[PATH_MAX], sfdisk[PATH_MAX];
	struct imgp_ctx *ctx = NULL;
	struct names n;

	if (unit_tmpdir_create("job")) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	if (!unit_find_tool("sfdisk", sfdisk, sizeof(sfdisk))) {
		SKIP_TOOL("a GPT image to write", "sfdisk");
		return unit_done();
	}
	unit_path_keep(img, sizeof(img), "gpt.img");
	CHECK(make_image(sfdisk, img) == 0, "sfdisk makes a GPT image");
	CHECK(imgp_ctx_new(&ctx) == 0, "a context");
	imgp_ctx_set_names(ctx, on_name, &n);
	test_outputs(ctx, img);
	test_read(ctx, &n);
	imgp_ctx_free(ctx);
	return unit_done();
}
