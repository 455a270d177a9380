// SPDX-License-Identifier: MIT
/*
 * The memory files the harnesses hand the library by path: the library
 * opens images and .xz files by name, and a memfd under /proc/self/fd
 * gives it one without disk I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/io.h"
#include "fuzz.h"

int fuzz_memfile_set(struct fuzz_memfile *f, const char *name,
		     const uint8_t *data, size_t size)
{
	int rc;

	if (!f->open) {
		f->fd = memfd_create(name, MFD_CLOEXEC);
		if (f->fd < 0)
			return -1;
		f->open = true;
		snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
	}
	if (ftruncate(f->fd, 0) < 0 || lseek(f->fd, 0, SEEK_SET) < 0)
		return -1;
	rc = imgp_write_all_(f->fd, data, size, 0);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}
