/* SPDX-License-Identifier: MIT */
/* The capture I/O manager (io-capture.c), for fs-ext.c only. */
#ifndef IMGP_IO_CAPTURE_H
#define IMGP_IO_CAPTURE_H

#include <ext2fs/ext2fs.h>

#include "imgpatch-internal.h"

extern io_manager imgp_capture_io_manager;
/* The write set that the next channel opened with it writes into. */
void imgp_capture_io_target(struct imgp_writeset *ws);

#endif
