/* SPDX-License-Identifier: MIT */
/*
 * job/: the image a command was given, as one transaction (imgpatch.h,
 * imgp_job_*). Shared by the job's own files and white-box tests.
 */
#ifndef IMGP_JOB_H
#define IMGP_JOB_H

#include "imgpatch.h"
#include "core/core.h"

struct imgp_job {
	struct imgp_ctx *ctx;
	struct imgp_job_opts o;        /* as given; in_place cleared for a raw image */
	struct imgp_pack_opts out;     /* o.pack with the output's format */
	struct imgp_work *src;         /* the image as the library works on it */
	char *work;                    /* the raw image planned on */
	bool work_is_temp;             /* work is a temporary copy of ours */
	char *journal;                 /* in place: the undo journal */
	int lock_fd;                   /* the image's lock, -1: none */
	const char *failed;            /* the file the last failure is about */
	bool usage;                    /* it was the options: they do not fit the image */
	size_t regions;                /* what --recover restored */
	uint64_t bytes;
	bool recovered;
	bool committed;                /* imgp_job_commit ran: it runs once */
};

/*
 * Fails with the current message, about the file subject (for
 * imgp_job_failed); returns rc.
 */
int imgp_job_fail_(struct imgp_job *job, int rc, const char *subject);

/* ------------------------------------------------------------ job-temp.c */

/*
 * A new empty file ".NAME.PID.XXXXXX" beside near (NULL:
 * ".imgpatch-work.PID.XXXXXX" in $TMPDIR), with the mode any new file
 * gets, after sweeping what a killed run left there under that name.
 * The name hook hears it stands for near. 0 or -errno (*path NULL).
 */
int imgp_job_temp_make_(struct imgp_job *job, const char *near, char **path);
/* Removes a temporary file of the job, if still there, and forgets it. */
void imgp_job_temp_drop_(struct imgp_job *job, char **path);
/* Renames it durably over final and forgets it. 0 or -errno. */
int imgp_job_temp_rename_(struct imgp_job *job, char **path, const char *final);

#endif /* IMGP_JOB_H */
