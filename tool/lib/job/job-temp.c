// SPDX-License-Identifier: MIT
/*
 * The temporary files of a job: made beside the file they will become, so
 * that putting one in place is an atomic rename, and told to the name
 * hook, so that messages name the user's file rather than the copy.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "job/job.h"

int imgp_job_temp_make_(struct imgp_job *job, const char *near, char **path)
{
	char *dir_copy = NULL, *base_copy = NULL;
	const char *dir = imgp_tmpdir(), *base = "imgpatch-work";
	int fd;

	*path = NULL;
	if (near) {
		dir_copy = strdup(near);
		base_copy = strdup(near);
		if (!dir_copy || !base_copy) {
			free(dir_copy);
			free(base_copy);
			return imgp_fail(ENOMEM, "out of memory");
		}
		dir = dirname(dir_copy);
		base = basename(base_copy);
	}
	imgp_temp_sweep(job->ctx, dir, (const char *const[]){ base, NULL });
	fd = imgp_temp_make(dir, base, path);
	if (fd >= 0) {
		/* mkstemp makes 0600; outputs get what any new file would. */
		mode_t mask = umask(0);

		umask(mask);
		if (fchmod(fd, 0666 & ~mask) < 0)
			imgp_debug(job->ctx, "%s: chmod: %s", *path, strerror(errno));
		close(fd);
		if (near)
			imgp_ctx_name_(job->ctx, *path, near);
		fd = 0;
	}
	free(dir_copy);
	free(base_copy);
	return fd;
}

void imgp_job_temp_drop_(struct imgp_job *job, char **path)
{
	if (!*path)
		return;
	imgp_temp_remove(*path);
	imgp_ctx_name_(job->ctx, *path, NULL);
	free(*path);
	*path = NULL;
}

int imgp_job_temp_rename_(struct imgp_job *job, char **path, const char *final)
{
	int rc = imgp_temp_commit(*path, final);

	if (rc)
		return rc;
	imgp_ctx_name_(job->ctx, *path, NULL);
	free(*path);
	*path = NULL;
	return 0;
}
