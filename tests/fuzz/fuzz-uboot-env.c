// SPDX-License-Identifier: MIT
/*
 * Fuzzes the reader of the U-Boot an image carries before its first
 * partition (uboot-env.c): the input's first byte picks one of the places
 * a board family's documentation puts U-Boot (Rockchip's u-boot.itb at
 * sector 16384, Allwinner's at 8 or 40 KiB, i.MX's at 1, 32, 33 or 69 KiB),
 * the rest is what is there, in an image (a memory file, sparse before it)
 * with no partition table: the reader checks the magic, parses a FIT and
 * unpacks its U-Boot image, looks for the default environment and the
 * version string.
 */
#include <stdlib.h>

#include "core/core.h"
#include "boot/boot.h"
#include "core/io.h"
#include "fuzz.h"

static const uint64_t places[] = {
	16384 * 512, 40 * 1024, 8 * 1024, 69 * 1024, 33 * 1024, 32 * 1024, 1024,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_memfile image;
	struct imgp_image img;
	struct imgp_uboot ub;
	uint64_t off;

	if (size < 1)
		return 0;
	off = places[data[0] % (sizeof(places) / sizeof(places[0]))];
	if (fuzz_memfile_set(&image, "fuzz-uboot-env", NULL, 0) ||
	    imgp_write_all_(image.fd, data + 1, size - 1, (off_t)off))
		abort();
	if (imgp_image_open_(&img, image.path, false))
		return 0;
	if (imgp_uboot_read_(&img, NULL, &ub) == 0) {
		/* What info and the boot paths take from it. */
		if (ub.tree && !ub.tree_from)
			abort();
		if (ub.where && ub.nenv == 0)
			abort();
		imgp_uboot_free_(&ub);
	}
	imgp_image_close_(&img);
	imgp_errclear_();
	return 0;
}
