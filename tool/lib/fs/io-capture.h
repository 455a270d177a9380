/* SPDX-License-Identifier: MIT */
/* The capture I/O manager (io-capture.c), for fs-ext.c only. */
#ifndef IMGP_IO_CAPTURE_H
#define IMGP_IO_CAPTURE_H

#include <ext2fs/ext2fs.h>

#include "imgpatch.h"

struct imgp_writeset;

extern io_manager imgp_capture_io_manager_;
/*
 * The io_options string for ext2fs_open2() with this manager: the channel
 * reads and writes ws, at offset bytes into the image. 0 or -ENAMETOOLONG.
 */
int imgp_capture_io_options_(char *out, size_t len, struct imgp_writeset *ws,
			    uint64_t offset);

#endif
