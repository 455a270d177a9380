// SPDX-License-Identifier: MIT
/* SOURCE_DATE_EPOCH: the one time every write uses, for reproducible images. */
#ifndef IMGP_EPOCH_H
#define IMGP_EPOCH_H

#include <stdint.h>

/*
 * Reads SOURCE_DATE_EPOCH: *out is its value, or -1 when it is unset or
 * empty. Returns 0, or -EINVAL with a message when it is anything but
 * decimal digits (no sign, no spaces) or does not fit in 64 bits.
 */
int imgp_source_date_epoch_(int64_t *out);

#endif
