// SPDX-License-Identifier: MIT
/*
 * The run's list of temporary files: any number of them is removed at once
 * (as a signal handler does), a file taken off the list is kept, a forked
 * child never removes its parent's files, and a commit syncs and renames.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "unit.h"

#define NTEMPS 12

static char temps[NTEMPS][256];

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int create_all(void)
{
	for (int i = 0; i < NTEMPS; i++) {
		int fd;

		unit_path_keep(temps[i], sizeof(temps[i]), "t-XXXXXX");
		fd = imgp_temp_create_(temps[i]);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

static int count_existing(void)
{
	int n = 0;

	for (int i = 0; i < NTEMPS; i++)
		n += exists(temps[i]);
	return n;
}

/*
 * A file a killed run left (its pid gone, nobody holding its lock) is
 * swept; one a live run holds, one of another kind and a user's file with
 * a similar name are not.
 */
/* The log's info lines, kept. */
static void keep_info(enum imgp_log_level level, const char *msg, void *data)
{
	if (level == IMGP_LOG_INFO)
		imgp_buf_printf(data, "%s\n", msg);
}

static void test_sweep(void)
{
	char dir[256], user[256], got[512] = "", *mine = NULL, *left = NULL;
	struct imgp_buf list = { 0 };
	int status = -1, pipefd[2], fd, n;
	struct imgp_ctx *ctx;
	pid_t pid;

	unit_path_keep(dir, sizeof(dir), "sweep");
	unit_path_keep(user, sizeof(user), "sweep/.kind.1.abcdef.old");
	CHECK(mkdir(dir, 0755) == 0, "sweep: a folder");
	fd = open(user, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && close(fd) == 0, "sweep: a user's file of a similar name");
	CHECK(pipe(pipefd) == 0, "sweep: a pipe to the child");
	pid = fork();
	if (pid == 0) {
		char *path;

		/* Killed outright: its file stays, unlocked once it is gone. */
		fd = imgp_temp_make(dir, "kind", &path);
		if (fd < 0 || write(pipefd[1], path, strlen(path) + 1) < 0)
			_exit(1);
		_exit(0);
	}
	n = (int)read(pipefd[0], got, sizeof(got) - 1);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0 && n > 0,
	      "sweep: a child made one and died");
	left = strdup(got);
	close(pipefd[0]);
	close(pipefd[1]);
	fd = imgp_temp_make(dir, "kind", &mine);
	CHECK(fd >= 0 && left && exists(left) && exists(mine), "sweep: two files of the kind");
	close(fd);
	CHECK(imgp_ctx_new(&ctx) == 0, "sweep: a context");
	imgp_ctx_set_log(ctx, keep_info, &list);
	CHECK(imgp_temp_sweep(ctx, dir, (const char *const[]){ "other", NULL }) == 0 &&
	      exists(left) && !list.len, "sweep: another kind is left alone, and nothing said");
	n = imgp_temp_sweep(ctx, dir, (const char *const[]){ "other", "kind", NULL });
	CHECK(n == 1 && !exists(left) && exists(mine) && exists(user),
	      "sweep: only the dead run's file goes");
	CHECK(list.len && strstr((char *)list.data, strrchr(left, '/') + 1) &&
	      !strncmp((char *)list.data, "removed 1 temporary file an interrupted run left: ", 50),
	      "sweep: and one line names it");
	imgp_ctx_free(ctx);
	imgp_temp_remove(mine);
	unlink(user);
	rmdir(dir);
	imgp_buf_free(&list);
	free(mine);
	free(left);
}

int main(void)
{
	char kept[256], final[256];
	pid_t pid;
	int status = -1, fd;

	if (unit_tmpdir_create("tempfiles") < 0) {
		perror("tmpdir");
		return 1;
	}

	CHECK(create_all() == 0, "twelve temporary files created");
	CHECK(count_existing() == NTEMPS, "all of them exist");
	imgp_temp_forget_(temps[3]);
	imgp_temp_remove_all();
	CHECK(count_existing() == 1 && exists(temps[3]),
	      "remove_all removes every listed file, beyond the first four");
	unlink(temps[3]);

	/* The slots are reused: a second round is listed as fully. */
	CHECK(create_all() == 0, "a second round of twelve");
	pid = fork();
	if (pid == 0) {
		imgp_temp_remove_all();
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0 &&
	      count_existing() == NTEMPS, "a forked child leaves its parent's files alone");
	imgp_temp_remove(temps[0]);
	CHECK(!exists(temps[0]), "remove removes one file");
	imgp_temp_remove_all();
	CHECK(count_existing() == 0, "and remove_all the rest");

	unit_path_keep(kept, sizeof(kept), "out-XXXXXX");
	unit_path_keep(final, sizeof(final), "out.img");
	fd = imgp_temp_create_(kept);
	CHECK(fd >= 0 && write(fd, "data", 4) == 4 && close(fd) == 0,
	      "an output under a temporary name");
	CHECK(imgp_temp_commit(kept, final) == 0 && exists(final) && !exists(kept),
	      "commit renames it into place");
	imgp_temp_remove_all();
	CHECK(exists(final), "a committed file is off the list");
	CHECK(imgp_temp_commit(kept, final) < 0 && strstr(imgp_errmsg(), "fsync"),
	      "a commit of a missing file fails with a message");

	test_sweep();
	unit_tmpdir_remove();
	return unit_done();
}
