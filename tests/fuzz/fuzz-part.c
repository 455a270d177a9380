// SPDX-License-Identifier: MIT
/*
 * Fuzzes the partition-table readers (MBR with extended/logical partitions,
 * GPT with its backup header) and libblkid filesystem probing: the input is
 * the whole disk image.
 */

#include "core/core.h"
#include "part/part.h"
#include "core/endian.h"
#include "fuzz.h"
#include "fs/fs.h"

/* Bounds the reads per input: a GPT may list 128 partitions or more. */
#define FUZZ_PART_READS 16

/* GPT header fields (UEFI spec 5.3.2) that the CRC fix-up needs. */
#define GPT_HSIZE 12
#define GPT_HCRC 16
#define GPT_RESERVED 20
#define GPT_ALT_LBA 32
#define GPT_ELBA 72
#define GPT_NUM 80
#define GPT_ESIZE 84
#define GPT_ECRC 88
#define GPT_ARRAY_MAX (4u << 20)

/*
 * Mutations nearly always break the CRCs, which would keep the fuzzer out
 * of everything behind them: a GPT header at lba gets correct CRCs (of its
 * entries, then of itself) unless its reserved field is non-zero, so that
 * the fuzzer can still turn a header's CRC bad by one byte.
 */
static void gpt_fix(uint8_t *img, size_t size, unsigned ss, uint64_t lba)
{
	uint8_t *h;
	uint32_t hsize;
	uint64_t elba, len;

	if (lba >= size / ss)
		return;
	h = img + lba * ss;
	if (memcmp(h, "EFI PART", 8) || get_le32(h + GPT_RESERVED))
		return;
	hsize = get_le32(h + GPT_HSIZE);
	if (hsize < 92 || hsize > ss)
		return;
	elba = get_le64(h + GPT_ELBA);
	len = (uint64_t)get_le32(h + GPT_NUM) * get_le32(h + GPT_ESIZE);
	if (len <= GPT_ARRAY_MAX && elba < size / ss && len <= size - elba * ss)
		put_le32(h + GPT_ECRC, imgp_crc32_(0, img + elba * ss, len));
	put_le32(h + GPT_HCRC, 0);
	put_le32(h + GPT_HCRC, imgp_crc32_(0, h, hsize));
}

static void gpt_fix_all(uint8_t *img, size_t size)
{
	static const unsigned sizes[] = { 512, 4096 };

	for (size_t i = 0; i < 2; i++) {
		unsigned ss = sizes[i];

		if (size / ss < 2)
			continue;
		gpt_fix(img, size, ss, get_le64(img + ss + GPT_ALT_LBA));
		gpt_fix(img, size, ss, size / ss - 1);
		/* Last: the primary's CRC covers its alternate LBA field. */
		gpt_fix(img, size, ss, 1);
	}
}

static void fuzz_reads(const struct imgp_image *img, const struct imgp_part *p)
{
	uint8_t buf[512];

	imgp_part_read_(img, p, 0, buf, sizeof(buf));
	if (p->size >= sizeof(buf))
		imgp_part_read_(img, p, p->size - sizeof(buf), buf, sizeof(buf));
	/* Past the end: must be refused, not read from the next partition. */
	imgp_part_read_(img, p, p->size, buf, 1);
	imgp_part_read_(img, p, UINT64_MAX - 1, buf, sizeof(buf));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_memfile image;
	static const char *const specs[] = {
		"1", "2", "5", "writable", "system-boot", "bootfs", "0",
		"4294967297",
	};
	struct imgp_image img;
	struct imgp_table tab;
	uint8_t *copy;

	copy = (uint8_t *)fuzz_dup(data, size);
	if (!copy)
		return 0;
	gpt_fix_all(copy, size);
	if (fuzz_memfile_set(&image, "fuzz-part", copy, size))
		abort();
	free(copy);
	if (imgp_image_open_(&img, image.path, false))
		return 0;
	if (imgp_table_read_(&img, &tab) == 0) {
		imgp_fs_identify_(&img, &tab);
		for (size_t i = 0; i < tab.nparts && i < FUZZ_PART_READS; i++)
			fuzz_reads(&img, &tab.parts[i]);
		for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
			imgp_table_find_(&tab, specs[i]);
		imgp_table_free_(&tab);
	}
	imgp_image_close_(&img);
	imgp_errclear_();
	return 0;
}
