// SPDX-License-Identifier: MIT
/*
 * Fuzzes the ext2/3/4 backend: the input is the filesystem (the partition
 * itself). Reads every way a query does, then makes the changes a patch
 * makes through a capture, whose open surveys the filesystem for damage
 * first; the captured write set is dropped, never written.
 */
#include <stddef.h>

#include <ext2fs/ext2fs.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "fuzz.h"

#define FUZZ_EXT_READ_MAX (64u << 10)

/*
 * A mutation nearly always breaks the superblock checksum, which would
 * stop every input at the first check: it is made right again unless the
 * superblock's s_checksum_type is not crc32c (so that the fuzzer can still
 * reach the refusal).
 */
static void sb_fix(uint8_t *img, size_t size)
{
	struct ext2_super_block sb;
	size_t at = SUPERBLOCK_OFFSET;

	if (size < at + sizeof(sb))
		return;
	memcpy(&sb, img + at, sizeof(sb));
	if (ext2fs_le16_to_cpu(sb.s_magic) != EXT2_SUPER_MAGIC ||
	    !(ext2fs_le32_to_cpu(sb.s_feature_ro_compat) &
	      EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) ||
	    sb.s_checksum_type != EXT2_CRC32C_CHKSUM)
		return;
	sb.s_checksum = ext2fs_cpu_to_le32(
		ext2fs_crc32c_le(~0U, (unsigned char *)&sb,
				 offsetof(struct ext2_super_block, s_checksum)));
	memcpy(img + at, &sb, sizeof(sb));
}

static void fuzz_reads(struct imgp_image *img, const struct imgp_part *part)
{
	static const char *const files[] = {
		"/etc/fstab", "/etc/link", "/etc/abs", "/etc", "/missing",
		"/etc/fstab/x", "/etc/loop1",
	};
	struct imgp_buf buf = { 0 };
	struct imgp_fs fs;
	char **names;
	size_t n;

	if (imgp_fs_open_(&fs, img, part))
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		buf.len = 0;
		imgp_fs_read_file_(&fs, files[i], FUZZ_EXT_READ_MAX, &buf);
		buf.len = 0;
		imgp_fs_readlink_(&fs, files[i], &buf);
		imgp_fs_exists_(&fs, files[i]);
	}
	if (imgp_fs_list_(&fs, "/etc", &names, &n) == 0)
		imgp_fs_list_free_(names, n);
	if (imgp_fs_list_(&fs, "/", &names, &n) == 0)
		imgp_fs_list_free_(names, n);
	imgp_buf_free(&buf);
	imgp_fs_close_(&fs);
}

/* The changes of a patch: a rewrite that grows, a new file, a symlink. */
static void fuzz_writes(struct imgp_image *img, const struct imgp_part *part)
{
	static char grown[6000];
	struct imgp_writeset *ws = NULL;
	struct imgp_range *ranges = NULL;
	struct imgp_fs fs;
	size_t n = 0;
	int rc;

	memset(grown, '#', sizeof(grown));
	if (imgp_writeset_new_(&ws, img))
		return;
	if (imgp_fs_open_capture_(&fs, NULL, img, part, ws) == 0) {
		rc = imgp_fs_write_file_(&fs, "/etc/fstab", grown, sizeof(grown));
		if (!rc)
			rc = imgp_fs_write_file_(&fs, "/etc/new.conf", "x=1\n", 4);
		if (!rc)
			rc = imgp_fs_symlink_(&fs, "/etc/link", "new.conf");
		if (!rc)
			rc = imgp_fs_finish_(&fs);
		imgp_fs_close_(&fs);
		if (!rc && imgp_writeset_ranges_(ws, &ranges, &n) == 0)
			imgp_ranges_free_(ranges, n);
	}
	imgp_writeset_free_(ws);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_memfile image;
	struct imgp_part part = { .number = 1, .fstype = "ext4" };
	struct imgp_image img;
	uint8_t *copy;

	copy = (uint8_t *)fuzz_dup(data, size);
	if (!copy)
		return 0;
	sb_fix(copy, size);
	if (fuzz_memfile_set(&image, "fuzz-ext", copy, size))
		abort();
	free(copy);
	if (imgp_image_open_(&img, image.path, false))
		return 0;
	part.size = img.size;
	fuzz_reads(&img, &part);
	fuzz_writes(&img, &part);
	imgp_image_close_(&img);
	imgp_errclear_();
	return 0;
}
