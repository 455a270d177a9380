// SPDX-License-Identifier: MIT
/*
 * The used part of an ext2/3/4 filesystem: the blocks its block bitmap marks
 * in use, and always every group's metadata (superblock and descriptor
 * backups, reserved descriptor blocks, bitmaps, inode table) and the boot
 * block, whatever the bitmap and the uninit flags say. The journal, extent
 * trees and directories are in the bitmap like any file's blocks. A free
 * block is never read by the kernel or e2fsck, so a card may keep whatever
 * it held there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

#include "imgpatch-internal.h"

/* Adds filesystem blocks [first, first + count) of a partition. */
static int add_blocks(struct imgp_fsmap *m, const struct imgp_part *part,
		      unsigned bsize, blk64_t first, blk64_t count)
{
	return imgp_fsmap_add(m, part->start + first * bsize,
			      part->start + (first + count) * bsize);
}

static int group_metadata(ext2_filsys fs, const struct imgp_part *part,
			  struct imgp_fsmap *m)
{
	unsigned bsize = EXT2_BLOCK_SIZE(fs->super);
	int rc = 0;

	for (dgrp_t g = 0; !rc && g < fs->group_desc_count; g++) {
		blk64_t super = 0, old_desc = 0, new_desc = 0, blk;
		blk_t used = 0;

		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, &used);
		/* Superblock, descriptors and reserved descriptors sit side by side. */
		if (super || g == 0)
			rc = add_blocks(m, part, bsize, super ? super : fs->super->s_first_data_block,
					used);
		if (!rc && new_desc)
			rc = add_blocks(m, part, bsize, new_desc, 1);
		/* Location 0: not there (a damaged descriptor maps the rest anyway). */
		blk = ext2fs_block_bitmap_loc(fs, g);
		if (!rc)
			rc = add_blocks(m, part, bsize, blk, blk ? 1 : 0);
		blk = ext2fs_inode_bitmap_loc(fs, g);
		if (!rc)
			rc = add_blocks(m, part, bsize, blk, blk ? 1 : 0);
		blk = ext2fs_inode_table_loc(fs, g);
		if (!rc)
			rc = add_blocks(m, part, bsize, blk, blk ? fs->inode_blocks_per_group : 0);
	}
	return rc;
}

int imgp_usedmap_ext(const struct imgp_image *img, const struct imgp_part *part,
		     struct imgp_fsmap *m)
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
	rc = imgp_fsmap_add(m, part->start,
			    part->start + (fs->super->s_first_data_block + 1) * (uint64_t)bsize);
	if (!rc)
		rc = group_metadata(fs, part, m);
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
