// SPDX-License-Identifier: MIT
/*
 * Opening a job: the options are checked against the image's format, and
 * every file the commit will write (folders, permissions) before anything
 * is planned; a run in place locks the image and looks at its undo
 * journal; a compressed image is unpacked beside where its result goes.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "disk/disk.h"
#include "format/format.h"
#include "patch/patch.h"
#include "job/job.h"

int imgp_job_fail_(struct imgp_job *job, int rc, const char *subject)
{
	job->failed = subject;
	return rc;
}

int imgp_job_new(struct imgp_job **out, struct imgp_ctx *ctx, const struct imgp_job_opts *opts)
{
	struct imgp_job *job = calloc(1, sizeof(*job));

	*out = job;
	if (!job)
		return imgp_fail(ENOMEM, "out of memory");
	job->ctx = ctx;
	job->o = *opts;
	job->lock_fd = -1;
	job->failed = opts->image;
	return 0;
}

const char *imgp_folder_problem(const char *dir)
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

/* A new file path can be made (beside a temporary one); else a failure with hint. */
static int check_folder(struct imgp_job *job, const char *path, const char *what,
			const char *hint)
{
	char *copy = strdup(path);
	const char *dir, *why;
	int rc = 0;

	if (!copy)
		return imgp_fail(ENOMEM, "out of memory");
	dir = dirname(copy);
	why = imgp_folder_problem(dir);
	if (*why)
		rc = imgp_job_fail_(job, imgp_fail(EACCES, "cannot write %s: folder %s %s%s%s",
						  what, dir, why, hint ? ": " : "",
						  hint ? hint : ""), path);
	free(copy);
	return rc;
}

/* A new file named path (given with option) can be made: no folder is in its way. */
static int check_file(struct imgp_job *job, const char *path, const char *what,
		      const char *option)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return imgp_job_fail_(job, imgp_fail(EISDIR, "cannot write %s: it is a folder: give %s a file name",
						    what, option), path);
	return check_folder(job, path, what, NULL);
}

/*
 * Everything a commit will write, checked before the plan is made: the
 * output's folder, and for an in-place run the image and the folder of its
 * undo journal. A dry run writes nothing and needs none of it.
 */
static int check_outputs(struct imgp_job *job, bool in_place_raw)
{
	const struct imgp_job_opts *o = &job->o;
	int rc = 0;

	if (o->dry_run)
		return 0;
	if (o->out)
		rc = check_file(job, o->out, "the output", "-o");
	if (!rc && o->bmap)
		rc = check_file(job, o->bmap, "the block map", "--bmap");
	if (!rc && o->in_place && !in_place_raw)
		rc = check_folder(job, o->image, "the recompressed image",
				  "give -o OUT for a patched copy elsewhere");
	if (rc || !in_place_raw)
		return rc;
	if (access(o->image, W_OK) < 0) {
		bool rofs = errno == EROFS;

		return imgp_fail(rofs ? EROFS : EACCES,
				 "cannot patch in place: %s: give -o OUT for a patched copy",
				 rofs ? "read-only file system" : "the image is not writable");
	}
	return check_folder(job, job->journal, "the undo journal",
			    o->journal ? "give -o OUT for a patched copy" :
			    "give --undo FILE in a writable folder, or -o OUT");
}

/*
 * An in-place run: the image locked for the whole run, and no patch over
 * an interrupted run's journal unless recover undoes it first.
 */
static int open_in_place(struct imgp_job *job)
{
	/* On the file the probe opened and the plan reads: no other. */
	int fd = imgp_work_lock_(job->src);

	if (fd < 0)
		return fd;
	job->lock_fd = fd;
	if (!imgp_journal_check_(job->journal, job->o.image))
		return 0;
	if (!job->o.recover)
		return -EBUSY;
	job->recovered = true;
	return imgp_journal_restore_(job->journal, job->o.image, false, &job->regions, &job->bytes);
}

enum imgp_format imgp_job_out_format(const struct imgp_job *job)
{
	/* As asked, else the output's suffix, else the input's. */
	if (job->o.format_set)
		return job->o.pack.format;
	if (job->o.out)
		return imgp_format_from_name_(job->o.out);
	return imgp_work_format_(job->src);
}

/* The raw image is worked on as it is; nothing else is made. */
static int open_raw(struct imgp_job *job)
{
	const struct imgp_job_opts *o = &job->o;

	job->work = strdup(o->image);
	if (!job->work)
		return imgp_fail(ENOMEM, "out of memory");
	if (o->write && !o->out && !o->in_place && !o->dry_run)
		return open_in_place(job);
	return 0;
}

/* A compressed or archived image is unpacked into a working copy. */
static int open_unpacked(struct imgp_job *job)
{
	const struct imgp_job_opts *o = &job->o;
	/*
	 * Unpacked sparse even with a bmap: the map of a compressed input
	 * comes from its filesystems (imgp_bmap_write_fs_), never from holes.
	 */
	struct imgp_work_opts wopts = { .zero_holes = true };
	const char *final = o->out ? o->out : o->in_place ? o->image : NULL;
	int rc;

	if (o->write) {
		wopts.out = &job->out;
		wopts.whole = o->bmap || o->xz_whole;
		job->out = o->pack;
		job->out.format = imgp_job_out_format(job);
	}
	/* In place replaces IMAGE: one run at a time, as for a raw image. */
	if (o->write && o->in_place && !o->dry_run && (job->lock_fd = imgp_lock_(o->image)) < 0)
		return job->lock_fd;
	/* The working copy lives where the output will, so the rename is atomic. */
	rc = imgp_job_temp_make_(job, o->write ? final : NULL, &job->work);
	if (rc)
		return rc;
	job->work_is_temp = true;
	/* The working copy is the user's image: messages name it so. */
	imgp_ctx_name_(job->ctx, job->work, o->image);
	return imgp_work_unpack_(job->src, job->work, &wopts);
}

int imgp_job_open(struct imgp_job *job)
{
	struct imgp_job_opts *o = &job->o;
	bool raw;
	int rc;

	/* What the command line words as its own usage errors, for other callers. */
	job->usage = true;
	if (!o->write && (o->out || o->bmap || o->in_place))
		return imgp_fail(EINVAL, "a job that only reads writes no output");
	if (o->out && o->in_place)
		return imgp_fail(EINVAL, "an output and in place exclude each other");
	if (o->bmap && !o->out && !o->in_place)
		return imgp_fail(EINVAL, "a block map needs an output, or in place");
	job->usage = false;
	/* A mounted card is refused before anything is read from it. */
	if (o->write && !o->dry_run && (rc = imgp_blockdev_check_unmounted(o->image)))
		return rc;
	rc = imgp_work_probe_(&job->src, job->ctx, o->image);
	if (rc)
		return rc;
	raw = imgp_work_format_(job->src) == IMGP_FMT_RAW;
	if (raw && o->in_place && !o->format_set)
		o->in_place = false;   /* a raw image is patched in place anyway */
	if (o->write && !raw && !o->out && !o->in_place && !o->dry_run) {
		job->usage = true;
		return imgp_fail(EINVAL, "a %s-compressed image is not patched in place: give -o OUT (or --in-place to recompress over it)",
				 imgp_format_name(imgp_work_format_(job->src)));
	}
	/* An archive is read, never written: refused before any work, dry run or not. */
	if (o->write && imgp_job_output(job) && imgp_job_out_format(job) != IMGP_FMT_RAW &&
	    !imgp_format_is_compressed_(imgp_job_out_format(job))) {
		job->usage = true;
		return imgp_job_fail_(job, imgp_fail(EINVAL, "cannot write a %s archive: choose --compress %s",
						    imgp_format_name(imgp_job_out_format(job)),
						    imgp_format_choices()), imgp_job_output(job));
	}
	if (o->write && raw && !o->out && !o->in_place) {
		job->journal = o->journal ? strdup(o->journal) : imgp_journal_path(o->image);
		if (!job->journal)
			return imgp_fail(ENOMEM, "out of memory");
	}
	rc = o->write ? check_outputs(job, raw && !o->out && !o->in_place) : 0;
	if (!rc)
		rc = raw ? open_raw(job) : open_unpacked(job);
	return rc;
}

void imgp_job_free(struct imgp_job *job)
{
	if (!job)
		return;
	imgp_work_close_(job->src);
	imgp_unlock_(job->lock_fd);
	free(job->journal);
	if (job->work_is_temp)
		imgp_job_temp_drop_(job, &job->work);
	free(job->work);
	free(job);
}

const char *imgp_job_failed(const struct imgp_job *job, bool *usage)
{
	if (usage)
		*usage = job->usage;
	return job->failed;
}

const char *imgp_job_recovered(const struct imgp_job *job, size_t *regions, uint64_t *bytes)
{
	*regions = job->regions;
	*bytes = job->bytes;
	return job->recovered ? job->journal : NULL;
}

int imgp_job_disk_open(struct imgp_job *job, struct imgp_disk **disk)
{
	return imgp_work_disk_open_(job->src, disk);
}

enum imgp_format imgp_job_format(const struct imgp_job *job)
{
	return imgp_work_format_(job->src);
}

const char *imgp_job_path(const struct imgp_job *job)
{
	return imgp_work_path_(job->src);
}
