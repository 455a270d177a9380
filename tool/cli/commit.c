// SPDX-License-Identifier: MIT
/*
 * The end of every writing command (patch, apply): print the plan, then
 * write nothing (--dry-run), a patched copy (-o) or the image in place.
 */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Ctrl-C during the commit must not leave a half-written image. */
static void block_signals(bool block, sigset_t *saved)
{
	sigset_t set;

	if (!block) {
		sigprocmask(SIG_SETMASK, saved, NULL);
		return;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, saved);
}

/* -o: a sparse copy in OUT's folder, patched, then renamed over OUT. */
static int commit_copy(struct imgp_patch *patch, const char *image, const char *out)
{
	char *dir_copy = strdup(out), *base_copy = strdup(out);
	char *tmp = NULL;
	int fd, rc;

	if (!dir_copy || !base_copy)
		die("out of memory");
	if (asprintf(&tmp, "%s/.%s.XXXXXX", dirname(dir_copy), basename(base_copy)) < 0)
		die("out of memory");
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = imgp_fail(errno, "%s: cannot create temporary file: %s", tmp,
			       strerror(errno));
		goto out;
	}
	close(fd);
	rc = imgp_copy_sparse(image, tmp);
	if (!rc)
		rc = imgp_patch_commit(patch, tmp);
	if (!rc && rename(tmp, out) < 0)
		rc = imgp_fail(errno, "%s: cannot rename into place: %s", out,
			       strerror(errno));
	if (rc)
		unlink(tmp);
out:
	free(tmp);
	free(dir_copy);
	free(base_copy);
	return rc;
}

bool cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int cli_commit(struct imgp_patch *patch, const char *image, const char *out,
	       bool dry_run)
{
	struct imgp_buf plan = { 0 };
	size_t pending;
	sigset_t saved;
	int rc;

	if (imgp_patch_describe(patch, &plan))
		return error_lib(image);
	fwrite(plan.data, 1, plan.len, stdout);
	imgp_buf_free(&plan);
	pending = imgp_patch_pending(patch);
	if (dry_run) {
		printf("dry run: %zu change%s planned, nothing written\n", pending,
		       pending == 1 ? "" : "s");
		return EXIT_OK;
	}
	fflush(stdout);
	if (out) {
		rc = commit_copy(patch, image, out);
		if (!rc)
			printf("wrote %s: %zu change%s\n", out, pending,
			       pending == 1 ? "" : "s");
	} else if (!pending) {
		printf("nothing to change: %s is already patched\n", image);
		rc = 0;
	} else {
		block_signals(true, &saved);
		rc = imgp_patch_commit(patch, image);
		block_signals(false, &saved);
		if (!rc)
			printf("patched %s: %zu change%s\n", image, pending,
			       pending == 1 ? "" : "s");
	}
	return rc ? error_lib(out ? out : image) : EXIT_OK;
}
