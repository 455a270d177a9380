// SPDX-License-Identifier: MIT
/*
 * Committing a job's plan, complete or not at all: a raw image in place
 * under its undo journal, with the terminal's signals held off while it
 * is written; an output made from a working copy (the raw input copied
 * sparse beside it first) and packed, with its bmap, under temporary
 * names renamed into place only when complete.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "imgpatch.h"
#include "core/core.h"
#include "format/format.h"
#include "patch/patch.h"
#include "job/job.h"

/* Ctrl-C during an in-place commit must not leave a half-written image. */
static int commit_in_place(struct imgp_job *job, struct imgp_patch *patch)
{
	sigset_t set, saved;
	int rc;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &set, &saved);
	rc = imgp_patch_commit(patch, job->work, job->journal);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return rc;
}

/* A bmap of the raw image as it now is, put in place. */
static int bmap_in_place(struct imgp_job *job)
{
	char *tmp = NULL;
	int rc = imgp_job_temp_make_(job, job->o.bmap, &tmp);

	if (!rc)
		rc = imgp_bmap_write_(job->ctx, job->work, tmp);
	if (!rc)
		rc = imgp_job_temp_rename_(job, &tmp, job->o.bmap);
	imgp_job_temp_drop_(job, &tmp);
	/* The image stays patched: the failure says so. */
	return rc ? imgp_fail_ctx(rc, "patched, but no block map written to %s", job->o.bmap) : 0;
}

/*
 * Makes the final output from the patched raw working file: a bmap of it
 * when asked, then the raw file renamed, or a compressed copy renamed.
 */
static int finish_output(struct imgp_job *job, const char *final)
{
	struct imgp_pack_opts pack = job->o.pack;
	char *bmap_tmp = NULL, *packed = NULL;
	int rc = 0;

	/* An archive was refused when the job opened. */
	pack.format = imgp_job_out_format(job);
	if (job->o.bmap) {
		rc = imgp_job_temp_make_(job, job->o.bmap, &bmap_tmp);
		/* An unpacked stream has no holes: its filesystems say what is used. */
		if (!rc)
			rc = imgp_work_format_(job->src) == IMGP_FMT_RAW ?
			     imgp_bmap_write_(job->ctx, job->work, bmap_tmp) :
			     imgp_bmap_write_fs_(job->ctx, job->work, bmap_tmp);
	}
	if (!rc && pack.format != IMGP_FMT_RAW) {
		rc = imgp_job_temp_make_(job, final, &packed);
		if (!rc)
			rc = imgp_work_pack_(job->src, packed, &pack);
		if (!rc)
			rc = imgp_job_temp_rename_(job, &packed, final);
	} else if (!rc) {
		rc = imgp_job_temp_rename_(job, &job->work, final);
		if (!rc)
			job->work_is_temp = false;
	}
	if (!rc && bmap_tmp)
		rc = imgp_job_temp_rename_(job, &bmap_tmp, job->o.bmap);
	imgp_job_temp_drop_(job, &packed);
	imgp_job_temp_drop_(job, &bmap_tmp);
	return rc;
}

/* A raw input gets a sparse working copy beside the output first. */
static int copy_raw(struct imgp_job *job, const char *final)
{
	char *copy = NULL;
	int rc = imgp_job_temp_make_(job, final, &copy);

	if (!rc) {
		imgp_ctx_name_(job->ctx, copy, job->o.image);
		rc = imgp_copy_sparse(job->ctx, job->o.image, copy);
	}
	if (rc) {
		imgp_job_temp_drop_(job, &copy);
		return rc;
	}
	free(job->work);
	job->work = copy;
	job->work_is_temp = true;
	/* The copy is the working image the output is made from. */
	imgp_work_set_path_(job->src, job->work);
	return 0;
}

int imgp_job_commit(struct imgp_job *job, struct imgp_patch *patch)
{
	const char *final = imgp_job_output(job);
	size_t pending;
	int rc;

	job->failed = job->o.image;
	if (!job->o.write || !job->work || job->committed)
		return imgp_fail(EINVAL, "a writing job commits once, after it opened");
	job->committed = true;
	pending = imgp_patch_pending(patch);
	/* What the commit would refuse, a dry run refuses too. */
	if (job->o.dry_run)
		return pending ? imgp_patch_check_(patch) : 0;
	if (!final) {
		rc = pending ? commit_in_place(job, patch) : 0;
		/* A raw image with a bmap: the map of the image as it now is. */
		return !rc && job->o.bmap ? bmap_in_place(job) : rc;
	}
	if (!job->work_is_temp && (rc = copy_raw(job, final)))
		return imgp_job_fail_(job, rc, final);
	/*
	 * A private copy needs no journal: it is renamed only when complete.
	 * What the commit refuses is the image's (e2fsck IMAGE, not an output
	 * that was never made); what making the output fails at is the output's.
	 */
	rc = imgp_patch_commit(patch, job->work, NULL);
	if (!rc && (rc = finish_output(job, final)))
		return imgp_job_fail_(job, rc, final);
	return rc;
}

const char *imgp_job_output(const struct imgp_job *job)
{
	return job->o.out ? job->o.out : job->o.in_place ? job->o.image : NULL;
}

bool imgp_job_xz_blocks(const struct imgp_job *job, size_t *changed, size_t *nblocks)
{
	return imgp_work_xz_blocks_(job->src, changed, nblocks);
}
