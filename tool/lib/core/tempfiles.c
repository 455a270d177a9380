// SPDX-License-Identifier: MIT
/*
 * The temporary files of a run (working copies, outputs before their rename,
 * files staged for mtools), so that a signal handler can remove every one of
 * them. The list is read from a signal handler: slots are published and
 * cleared with atomic operations and never freed, and whoever clears a
 * slot's path owns it. Each slot remembers the process that made the file,
 * so a forked child never removes its parent's files.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imgpatch-internal.h"

struct temp_slot {
	char *_Atomic path;      /* NULL: free for reuse */
	char *_Atomic removed;   /* the path remove_all() unlinked, freed on reuse */
	_Atomic pid_t owner;
	struct temp_slot *next;  /* set before the slot is published */
};

static struct temp_slot *_Atomic temps;

/* Registers a copy of path (with signals blocked); 0 or -ENOMEM. */
static int temp_add(const char *path)
{
	char *copy = strdup(path);
	struct temp_slot *slot;

	if (!copy)
		return imgp_fail(ENOMEM, "out of memory");
	for (slot = atomic_load(&temps); slot; slot = slot->next) {
		char *expected = NULL;

		if (atomic_compare_exchange_strong(&slot->path, &expected, copy)) {
			atomic_store(&slot->owner, getpid());
			free(atomic_exchange(&slot->removed, NULL));
			return 0;
		}
	}
	slot = calloc(1, sizeof(*slot));
	if (!slot) {
		free(copy);
		return imgp_fail(ENOMEM, "out of memory");
	}
	atomic_store(&slot->owner, getpid());
	atomic_store(&slot->path, copy);
	slot->next = atomic_load(&temps);
	while (!atomic_compare_exchange_weak(&temps, &slot->next, slot))
		;
	return 0;
}

int imgp_temp_create(char *tmpl)
{
	sigset_t all, saved;
	int fd, err = 0;

	/* No signal between the file's creation and its registration. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else if (temp_add(tmpl)) {
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

void imgp_temp_forget(const char *path)
{
	for (struct temp_slot *slot = atomic_load(&temps); slot; slot = slot->next) {
		char *p = atomic_load(&slot->path);

		if (p && strcmp(p, path) == 0 &&
		    atomic_compare_exchange_strong(&slot->path, &p, NULL)) {
			free(p);
			return;
		}
	}
}

void imgp_temp_remove(const char *path)
{
	unlink(path);
	imgp_temp_forget(path);
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
	imgp_temp_forget(tmp);
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
		/*
		 * Not freed here (this may be a signal handler) but kept, to be
		 * freed when the slot is reused (temp_add() clears removed).
		 */
		atomic_store(&slot->removed, p);
	}
}
