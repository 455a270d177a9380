// SPDX-License-Identifier: MIT
/* Fuzzes the U-Boot script image reader: the input is a boot.scr(.uimg). */
#include "core/core.h"
#include "boot/boot.h"
#include "core/endian.h"
#include "fuzz.h"

/* Legacy image header fields (U-Boot image.h), big-endian. */
#define UIMAGE_HEADER 64
#define UIMAGE_HCRC 4
#define UIMAGE_SIZE 12
#define UIMAGE_DCRC 24

/*
 * Mutations nearly always break both CRCs, which would keep the fuzzer
 * from the multi-file table and the text behind them: each input is also
 * parsed with correct CRCs (the data CRC over what the size field claims,
 * when that is inside the input).
 */
static void fix_crcs(uint8_t *p, size_t size)
{
	uint32_t dsize;

	if (size < UIMAGE_HEADER)
		return;
	dsize = get_be32(p + UIMAGE_SIZE);
	if (dsize <= size - UIMAGE_HEADER)
		put_be32(p + UIMAGE_DCRC,
			 imgp_crc32_(0, p + UIMAGE_HEADER, dsize));
	put_be32(p + UIMAGE_HCRC, 0);
	put_be32(p + UIMAGE_HCRC, imgp_crc32_(0, p, UIMAGE_HEADER));
}

static void parse(const uint8_t *data, size_t size)
{
	struct imgp_bootscr scr;

	if (imgp_bootscr_parse_(&scr, data, size) == 0) {
		imgp_bootscr_mentions_(&scr, "user-override.dtb");
		imgp_bootscr_mentions_(&scr, "user.scr");
		imgp_bootscr_mentions_(&scr, "");
		imgp_bootscr_free_(&scr);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = (uint8_t *)fuzz_dup(data, size);

	if (!copy)
		return 0;
	parse(copy, size);
	fix_crcs(copy, size);
	parse(copy, size);
	free(copy);
	imgp_errclear_();
	return 0;
}
