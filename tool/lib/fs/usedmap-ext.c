// SPDX-License-Identifier: MIT
/*
 * The used part of an ext2/3/4 filesystem: the blocks its block bitmap marks
 * in use, and always every group's metadata (superblock and descriptors,
 * the primary reserved descriptor blocks, bitmaps, the used part of the
 * inode table), the boot block and the free blocks at the end that mke2fs
 * zeroes, whatever the bitmap says. The journal, extent trees and directories are in the bitmap like
 * any file's blocks. A free block is never read by the kernel or e2fsck,
 * so a card may keep whatever it held there.
 *
 * Left out, though the bitmap marks them in use, as e2image leaves them out
 * of an image file:
 * - with group descriptor checksums (uninit_bg, metadata_csum), the inode
 *   table past the group's used inodes (bg_itable_unused) and the bitmaps
 *   of a group flagged uninitialised: the kernel and e2fsck read neither,
 *   and a new inode is written whole when it is allocated there;
 * - the backups of the reserved descriptor blocks: online resize writes
 *   them and nothing reads them (e2fsck checks the primary ones only).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"

/* Adds filesystem blocks [first, first + count) of a partition. */
static int add_blocks(const struct imgp_used *m, const struct imgp_part *part,
		      unsigned bsize, blk64_t first, blk64_t count)
{
	return m->add(m->ctx, part->start + first * bsize,
			      part->start + (first + count) * bsize);
}

/* The blocks of group g's inode table that hold inodes the group may use. */
static blk64_t itable_used_blocks(ext2_filsys fs, dgrp_t g)
{
	unsigned per_block = EXT2_INODES_PER_BLOCK(fs->super);
	unsigned used;

	if (!ext2fs_has_group_desc_csum(fs))
		return fs->inode_blocks_per_group;
	if (ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
		return 0;
	used = ext2fs_bg_itable_unused(fs, g) < fs->super->s_inodes_per_group ?
	       fs->super->s_inodes_per_group - ext2fs_bg_itable_unused(fs, g) : 0;
	return (used + per_block - 1) / per_block;
}

/* A bitmap block: left out when its group says it was never written. */
static int add_bitmap(ext2_filsys fs, const struct imgp_part *part, const struct imgp_used *m,
		      dgrp_t g, blk64_t blk, uint16_t uninit)
{
	unsigned bsize = EXT2_BLOCK_SIZE(fs->super);

	if (!blk)
		return 0;
	if (ext2fs_has_group_desc_csum(fs) && ext2fs_bg_flags_test(fs, g, uninit)) {
		ext2fs_unmark_block_bitmap2(fs->block_map, blk);
		return 0;
	}
	return add_blocks(m, part, bsize, blk, 1);
}

/*
 * Every group's metadata; the parts left out (the header) are cleared from
 * the block bitmap, which is only read here, so that the walk over it
 * leaves them out too.
 */
static int group_metadata(ext2_filsys fs, const struct imgp_part *part,
			  const struct imgp_used *m)
{
	unsigned bsize = EXT2_BLOCK_SIZE(fs->super);
	int rc = 0;

	for (dgrp_t g = 0; !rc && g < fs->group_desc_count; g++) {
		blk64_t super = 0, old_desc = 0, new_desc = 0, blk;
		blk_t used = 0, reserved = fs->super->s_reserved_gdt_blocks;

		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, &used);
		/* Superblock, descriptors and reserved descriptors sit side by side. */
		if (super || g == 0) {
			blk64_t first = super ? super : fs->super->s_first_data_block;

			if (g && old_desc && used > reserved) {
				ext2fs_unmark_block_bitmap_range2(fs->block_map,
								  first + used - reserved,
								  reserved);
				used -= reserved;
			}
			rc = add_blocks(m, part, bsize, first, used);
		}
		if (!rc && new_desc)
			rc = add_blocks(m, part, bsize, new_desc, 1);
		/* Location 0: not there (a damaged descriptor maps the rest anyway). */
		if (!rc)
			rc = add_bitmap(fs, part, m, g, ext2fs_block_bitmap_loc(fs, g),
					EXT2_BG_BLOCK_UNINIT);
		if (!rc)
			rc = add_bitmap(fs, part, m, g, ext2fs_inode_bitmap_loc(fs, g),
					EXT2_BG_INODE_UNINIT);
		blk = ext2fs_inode_table_loc(fs, g);
		if (!rc && blk) {
			blk64_t in_use = itable_used_blocks(fs, g);

			ext2fs_unmark_block_bitmap_range2(fs->block_map, blk + in_use,
							  fs->inode_blocks_per_group - in_use);
			rc = add_blocks(m, part, bsize, blk, in_use);
		}
	}
	return rc;
}

/*
 * The last 64 to 128 KiB (from the 64 KiB boundary before the last one):
 * mke2fs zeroes them so that no old RAID superblock, which sits 64 KiB
 * aligned near the end, is found on the partition. A card's old one would
 * make blkid see two filesystems.
 */
static int zeroed_end(ext2_filsys fs, const struct imgp_part *part, const struct imgp_used *m)
{
	unsigned bsize = EXT2_BLOCK_SIZE(fs->super);
	blk64_t per_64k = 65536 / bsize, blocks = ext2fs_blocks_count(fs->super);
	blk64_t start = blocks & ~(per_64k - 1);

	if (start > per_64k)
		start -= per_64k;
	return add_blocks(m, part, bsize, start, blocks - start);
}

int imgp_usedmap_ext_(const struct imgp_image *img, const struct imgp_part *part,
		     const struct imgp_used *m)
{
	ext2_filsys fs = NULL;
	blk64_t first, end, next, last;
	unsigned bsize;
	char opts[64];
	errcode_t err;
	int rc = 0;

	snprintf(opts, sizeof(opts), "offset=%" PRIu64, part->start);
	err = ext2fs_open2(img->path, opts, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (!err)
		err = ext2fs_read_block_bitmap(fs);
	if (err) {
		rc = imgp_fail(EINVAL, "cannot read the ext block bitmap: %s", error_message(err));
		goto out;
	}
	bsize = EXT2_BLOCK_SIZE(fs->super);
	if (ext2fs_blocks_count(fs->super) > part->size / bsize) {
		rc = imgp_fail(EINVAL, "ext filesystem is larger than its partition");
		goto out;
	}
	/* The boot block and the primary superblock, whatever the block size. */
	rc = m->add(m->ctx, part->start,
			    part->start + (fs->super->s_first_data_block + 1) * (uint64_t)bsize);
	if (!rc)
		rc = group_metadata(fs, part, m);
	if (!rc)
		rc = zeroed_end(fs, part, m);
	first = fs->super->s_first_data_block;
	last = ext2fs_blocks_count(fs->super) - 1;
	while (!rc && first <= last) {
		/* The next run of used blocks: from a set bit to the next clear one. */
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, first, last, &next))
			break;
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, next, last, &end))
			end = last + 1;
		rc = add_blocks(m, part, bsize, next, end - next);
		first = end;
	}
out:
	if (fs)
		ext2fs_close_free(&fs);
	return rc;
}
