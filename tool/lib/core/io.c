// SPDX-License-Identifier: MIT
/* Whole reads and writes, looping on short transfers and EINTR. */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "core/io.h"

ssize_t imgp_read_all_(int fd, void *buf, size_t len, off_t off)
{
	uint8_t *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = off < 0 ? read(fd, p + done, len - done)
				    : pread(fd, p + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int imgp_write_all_(int fd, const void *buf, size_t len, off_t off)
{
	const uint8_t *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = off < 0 ? write(fd, p + done, len - done)
				    : pwrite(fd, p + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}
