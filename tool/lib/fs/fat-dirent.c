// SPDX-License-Identifier: MIT
/*
 * A file's size from its directory entry, the entry found by the file's
 * first cluster (which mshowfat already reported), not by its name: a
 * cluster starts one chain only, so no long-name or 8.3 matching is needed,
 * and a name mtools would print converted cannot be misread.
 */
#include <errno.h>

#include "fs/fs.h"
#include "core/endian.h"

#define DIRENT_SIZE 32
#define ATTR_LONG_NAME 0x0f
#define ATTR_VOLUME 0x08
#define ATTR_DIRECTORY 0x10
#define ENTRY_FREE 0xe5

int imgp_fat_dirent_size_(const uint8_t *dir, size_t len, uint32_t cluster,
			 bool fat32, uint64_t *size)
{
	int found = 0;

	for (size_t off = 0; off + DIRENT_SIZE <= len; off += DIRENT_SIZE) {
		const uint8_t *e = dir + off;
		uint32_t first;

		/* A first byte of zero: this entry and all after it are free. */
		if (e[0] == 0)
			break;
		if (e[0] == ENTRY_FREE || (e[11] & ATTR_LONG_NAME) == ATTR_LONG_NAME ||
		    (e[11] & ATTR_VOLUME))
			continue;
		/* The high half is FAT32's; FAT12/16 may keep other data there. */
		first = get_le16(e + 26) | (fat32 ? (uint32_t)get_le16(e + 20) << 16 : 0);
		if (first != cluster)
			continue;
		if (e[11] & ATTR_DIRECTORY)
			return -EISDIR;
		*size = get_le32(e + 28);
		found++;
	}
	/* Two entries on one chain: a cross-linked FAT, not an answer. */
	return found == 1 ? 0 : -ENOENT;
}
