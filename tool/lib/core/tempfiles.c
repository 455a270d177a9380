// SPDX-License-Identifier: MIT
/*
 * The temporary files of a run (working copies, outputs before their rename,
 * files staged for mtools), so that a signal handler can remove every one of
 * them. The list is read from a signal handler: slots are published and
 * cleared with atomic operations and never freed, and whoever clears a
 * slot's path owns it. Each slot remembers the process that made the file,
 * so a forked child never removes its parent's files.
 *
 * A file made by imgp_temp_make() is named ".BASE.PID.XXXXXX" and stays
 * locked (flock) while its owner lives, so that a later run can tell what
 * a killed run left (imgp_temp_sweep) from what a running one still uses.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"

struct temp_slot {
	char *_Atomic path;      /* NULL: free for reuse */
	char *_Atomic removed;   /* the path remove_all() unlinked, freed on reuse */
	_Atomic pid_t owner;
	_Atomic int lock_fd;     /* holds the file's flock, -1: none */
	struct temp_slot *next;  /* set before the slot is published */
};

static struct temp_slot *_Atomic temps;

/* Closes the slot's lock, if it has one (async-signal-safe). */
static void slot_unlock(struct temp_slot *slot)
{
	int fd = atomic_exchange(&slot->lock_fd, -1);

	if (fd >= 0)
		close(fd);
}

/*
 * Registers a copy of path (with signals blocked), the file locked through
 * a descriptor of its own when fd is not -1; 0 or -ENOMEM.
 */
static int temp_add(const char *path, int fd)
{
	char *copy = strdup(path);
	struct temp_slot *slot;
	int lock_fd = -1;

	if (!copy)
		return imgp_fail(ENOMEM, "out of memory");
	/* Its own open file description: the caller closing fd keeps the lock. */
	if (fd >= 0) {
		char self[64];

		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		lock_fd = open(self, O_RDONLY | O_CLOEXEC);
		if (lock_fd < 0)
			lock_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (lock_fd >= 0 && flock(lock_fd, LOCK_EX | LOCK_NB) < 0) {
			close(lock_fd);
			lock_fd = -1;
		}
	}
	for (slot = atomic_load(&temps); slot; slot = slot->next) {
		char *expected = NULL;

		if (atomic_compare_exchange_strong(&slot->path, &expected, copy)) {
			atomic_store(&slot->owner, getpid());
			atomic_store(&slot->lock_fd, lock_fd);
			free(atomic_exchange(&slot->removed, NULL));
			return 0;
		}
	}
	slot = calloc(1, sizeof(*slot));
	if (!slot) {
		free(copy);
		if (lock_fd >= 0)
			close(lock_fd);
		return imgp_fail(ENOMEM, "out of memory");
	}
	atomic_store(&slot->owner, getpid());
	atomic_store(&slot->lock_fd, lock_fd);
	atomic_store(&slot->path, copy);
	slot->next = atomic_load(&temps);
	while (!atomic_compare_exchange_weak(&temps, &slot->next, slot))
		;
	return 0;
}

int imgp_temp_create_(char *tmpl)
{
	sigset_t all, saved;
	int fd, err = 0;

	/* No signal between the file's creation and its registration. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else if (temp_add(tmpl, fd)) {
		err = ENOMEM;
		close(fd);
		unlink(tmpl);
		fd = -1;
	}
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (fd < 0)
		return imgp_fail(err, "%s: cannot create a temporary file: %s", tmpl,
				 strerror(err));
	return fd;
}

int imgp_temp_claim_(const char *path)
{
	sigset_t all, saved;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	rc = temp_add(path, -1);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return rc;
}

void imgp_temp_forget_(const char *path)
{
	for (struct temp_slot *slot = atomic_load(&temps); slot; slot = slot->next) {
		char *p = atomic_load(&slot->path);

		if (p && strcmp(p, path) == 0 &&
		    atomic_compare_exchange_strong(&slot->path, &p, NULL)) {
			slot_unlock(slot);
			free(p);
			return;
		}
	}
}

void imgp_temp_remove(const char *path)
{
	unlink(path);
	imgp_temp_forget_(path);
}

/* Makes the directory entry of path durable (rename, unlink). */
static int sync_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path))
			  : strdup(".");
	int fd, rc = 0;

	if (!dir)
		return imgp_fail(ENOMEM, "out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Some filesystems cannot sync a folder (EINVAL): nothing more to do. */
	if (fd < 0 || (fsync(fd) < 0 && errno != EINVAL))
		rc = imgp_fail(errno, "%s: fsync: %s", dir, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

int imgp_temp_commit(const char *tmp, const char *final)
{
	int fd = open(tmp, O_RDONLY | O_CLOEXEC), rc = 0;

	/* The content first, then the name, then the name's folder. */
	if (fd < 0 || fsync(fd) < 0)
		rc = imgp_fail(errno, "%s: fsync: %s", tmp, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!rc && rename(tmp, final) < 0)
		rc = imgp_fail(errno, "%s: cannot rename into place: %s", final,
			       strerror(errno));
	if (rc)
		return rc;
	imgp_temp_forget_(tmp);
	return sync_folder(final);
}

void imgp_temp_remove_all(void)
{
	pid_t self = getpid();

	for (struct temp_slot *slot = atomic_load(&temps); slot; slot = slot->next) {
		char *p;

		if (atomic_load(&slot->owner) != self)
			continue;
		p = atomic_exchange(&slot->path, NULL);
		if (!p)
			continue;
		unlink(p);
		slot_unlock(slot);
		/*
		 * Not freed here (this may be a signal handler) but kept, to be
		 * freed when the slot is reused (temp_add() clears removed).
		 */
		atomic_store(&slot->removed, p);
	}
}

const char *imgp_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int imgp_temp_make(const char *dir, const char *base, char **path)
{
	int fd;

	if (asprintf(path, "%s/.%s.%ld.XXXXXX", dir, base, (long)getpid()) < 0) {
		*path = NULL;
		return imgp_fail(ENOMEM, "out of memory");
	}
	fd = imgp_temp_create_(*path);
	if (fd < 0) {
		free(*path);
		*path = NULL;
	}
	return fd;
}

/*
 * The pid in name when it is ".BASE.PID.XXXXXX" for this base (any base
 * when base is NULL), else 0.
 */
static pid_t temp_name_pid(const char *name, const char *base)
{
	size_t len = strlen(name), blen;
	const char *rnd, *digits;
	long pid = 0;

	if (len < 11 || name[0] != '.' || name[len - 7] != '.')
		return 0;
	rnd = name + len - 6;
	for (const char *p = rnd; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	digits = rnd - 1;
	while (digits > name && digits[-1] >= '0' && digits[-1] <= '9')
		digits--;
	if (digits == rnd - 1 || digits - name < 3 || digits[-1] != '.')
		return 0;
	blen = (size_t)(digits - 1 - (name + 1));
	if (base && (strlen(base) != blen || strncmp(name + 1, base, blen)))
		return 0;
	for (const char *p = digits; p < rnd - 1; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > 1L << 30)
			return 0;
	}
	return (pid_t)pid;
}

/* Nobody holds the file: its owner is gone and so is every child it had. */
static bool temp_abandoned(int dirfd, const char *name, pid_t pid)
{
	struct stat st;
	bool unheld;
	int fd;

	if (pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
		return false;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	unheld = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		 flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return unheld;
}

/* Removes the abandoned files of base from d, naming each in removed. */
static int sweep_base(DIR *d, const char *dir, const char *base, struct imgp_buf *removed)
{
	struct dirent *e;
	int n = 0;

	rewinddir(d);
	while ((e = readdir(d))) {
		pid_t pid = temp_name_pid(e->d_name, base);

		if (!pid || !temp_abandoned(dirfd(d), e->d_name, pid) ||
		    unlinkat(dirfd(d), e->d_name, 0) < 0)
			continue;
		n++;
		imgp_buf_printf(removed, "%s%s/%s", removed->len ? ", " : "", dir, e->d_name);
	}
	return n;
}

int imgp_temp_sweep(struct imgp_ctx *ctx, const char *dir, const char *const *bases)
{
	struct imgp_buf removed = { 0 };
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return 0;
	for (; *bases; bases++)
		n += sweep_base(d, dir, *bases, &removed);
	closedir(d);
	if (n)
		imgp_log_(ctx, IMGP_LOG_INFO, "removed %d temporary file%s an interrupted run left: %s",
			 n, n == 1 ? "" : "s", removed.data ? (char *)removed.data : "");
	imgp_buf_free(&removed);
	return n;
}
