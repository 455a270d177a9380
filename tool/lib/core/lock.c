// SPDX-License-Identifier: MIT
/*
 * One run at a time per image: an exclusive flock held for the whole run.
 * flock (unlike POSIX record locks) survives libext2fs and mtools opening
 * and closing the same file, and /proc/locks names the holder. Every way of
 * writing an image takes it: in place, --in-place over a compressed image,
 * undo.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"

/* The pid holding a flock on the file, from /proc/locks; 0 if unknown. */
static long lock_holder(int fd)
{
	char line[256];
	struct stat st;
	long pid = 0;
	FILE *f;

	if (fstat(fd, &st) < 0)
		return 0;
	f = fopen("/proc/locks", "r");
	if (!f)
		return 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;
		long p;

		/* "1: FLOCK  ADVISORY  WRITE 1234 08:02:5678 0 EOF" */
		if (!strstr(line, "FLOCK") ||
		    sscanf(strstr(line, "FLOCK"), "FLOCK %*s %*s %ld %x:%x:%llu", &p,
			   &maj, &min, &ino) != 4)
			continue;
		if (ino == (unsigned long long)st.st_ino && makedev(maj, min) == st.st_dev)
			pid = p;
	}
	fclose(f);
	return pid;
}

/* True while path still names the file open as fd. */
static bool still_named(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Why the lock on fd (closed here) was refused with err: the holder when known. */
static int lock_refused(int fd, int err)
{
	long pid;

	if (err != EWOULDBLOCK) {
		close(fd);
		return imgp_fail(err, "cannot lock: %s", strerror(err));
	}
	pid = lock_holder(fd);
	close(fd);
	if (pid > 0)
		return imgp_fail(EBUSY, "locked by another imgpatch run (pid %ld): wait for it to finish",
				 pid);
	return imgp_fail(EBUSY, "locked by another imgpatch run: wait for it to finish");
}

int imgp_lock_(const char *path)
{
	/*
	 * A run that replaces the image (a compressed --in-place) renames a
	 * new file over it and then unlocks the old one: a lock won on the
	 * old file after that guards nothing, so it is taken again on the new.
	 */
	for (int tries = 0; tries < 100; tries++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return imgp_fail(errno, "cannot open: %s", strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			if (still_named(fd, path))
				return fd;
			close(fd);
			continue;
		}
		return lock_refused(fd, errno);
	}
	return imgp_fail(EBUSY, "replaced again and again while being locked: try again");
}

int imgp_lock_fd_(int fd, const char *path)
{
	/* A duplicate shares the open file, and so the lock, with fd. */
	int lock = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (lock < 0)
		return imgp_fail(errno, "cannot lock: %s", strerror(errno));
	if (flock(lock, LOCK_EX | LOCK_NB) < 0)
		return lock_refused(lock, errno);
	if (still_named(lock, path))
		return lock;
	/* What was read through fd is not the image any more. */
	close(lock);
	return imgp_fail(EAGAIN, "replaced while being locked: try again");
}

void imgp_unlock_(int fd)
{
	if (fd >= 0)
		close(fd);
}
