// SPDX-License-Identifier: MIT
/*
 * The run's list of temporary files: any number of them is removed at once
 * (as a signal handler does), a file taken off the list is kept, a forked
 * child never removes its parent's files, and a commit syncs and renames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "imgpatch.h"
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
		fd = imgp_temp_create(temps[i]);
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
	imgp_temp_forget(temps[3]);
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
	fd = imgp_temp_create(kept);
	CHECK(fd >= 0 && write(fd, "data", 4) == 4 && close(fd) == 0,
	      "an output under a temporary name");
	CHECK(imgp_temp_commit(kept, final) == 0 && exists(final) && !exists(kept),
	      "commit renames it into place");
	imgp_temp_remove_all();
	CHECK(exists(final), "a committed file is off the list");
	CHECK(imgp_temp_commit(kept, final) < 0 && strstr(imgp_errmsg(), "fsync"),
	      "a commit of a missing file fails with a message");

	unit_tmpdir_remove();
	return unit_done();
}
