// SPDX-License-Identifier: MIT
/* CRC-32 through zlib, which every caller (GPT, FIT, uImage) agrees with. */
#include <zlib.h>

#include "core/core.h"

uint32_t imgp_crc32_(uint32_t crc, const void *data, size_t len)
{
	const Bytef *p = data;

	/* zlib takes uInt lengths: feed huge buffers in slices. */
	while (len) {
		uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;

		crc = (uint32_t)crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return crc;
}
