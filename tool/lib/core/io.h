// SPDX-License-Identifier: MIT
/*
 * Whole reads and writes: read(2) and write(2) may move fewer bytes than
 * asked, or be interrupted by a signal; these loop until all is done.
 */
#ifndef IMGP_IO_H
#define IMGP_IO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Reads len bytes into buf at offset off, or at the file position when off
 * is negative (pipes). Returns the number of bytes read, less than len
 * only at the end of the file, or -errno. Sets no message.
 */
ssize_t imgp_read_all_(int fd, void *buf, size_t len, off_t off);

/*
 * Writes len bytes from buf at offset off, or at the file position when
 * off is negative (pipes). Returns 0 or -errno (-EIO when nothing more
 * could be written). Sets no message.
 */
int imgp_write_all_(int fd, const void *buf, size_t len, off_t off);

#endif
