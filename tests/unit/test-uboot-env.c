// SPDX-License-Identifier: MIT
/*
 * The U-Boot before the first partition (uboot-env.c) on hand-made and
 * hostile bytes: where it is looked for, what counts as its default
 * environment and version string, and what never does. Debian's real
 * U-Boot builds are read in tests/t0250-uboot-env.sh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "part/part.h"
#include "boot/boot.h"
#include "unit.h"

#define KiB 1024u
#define IMG_SIZE (64u * KiB)

/*
 * Writes an image of IMG_SIZE bytes with blob at off (a table with one
 * partition at first, or none when first is 0) and reads its U-Boot.
 */
static int read_image(const char *name, uint64_t first, uint64_t off,
		      const void *blob, size_t len, struct imgp_uboot *ub)
{
	uint8_t *img = calloc(1, IMG_SIZE);
	struct imgp_image im;
	struct imgp_table tab = { 0 };
	struct imgp_part part = { .number = 1, .start = first, .size = 4096 };
	const char *path = unit_path(name);
	int rc;

	if (!img)
		return -ENOMEM;
	memcpy(img + off, blob, len);
	rc = unit_write_file(path, img, IMG_SIZE);
	free(img);
	if (rc)
		return -EIO;
	rc = imgp_image_open_(&im, path, false);
	if (rc)
		return rc;
	if (first) {
		tab.nparts = 1;
		tab.parts = &part;
	}
	rc = imgp_uboot_read_(&im, &tab, ub);
	imgp_image_close_(&im);
	return rc;
}

/* An Allwinner SPL header at 8 KiB, then text: "eGON.BT0" at byte 4. */
static size_t egon(uint8_t *out, const char *text, size_t tlen)
{
	memset(out, 0, 32);
	memcpy(out + 4, "eGON.BT0", 8);
	memcpy(out + 32, text, tlen);
	return 32 + tlen;
}

static void test_found(void)
{
	static const char text[] =
		"junk\x01\x02\0U-Boot SPL 2023.01 (Jan 01 2023)\0"
		"U-Boot 2024.04-rc1 (Apr 01 2024 - 00:00:00 +0000) Allwinner\0"
		"\xff\xfe\0arch=arm\0board=pinephone\0soc=sunxi\0"
		"fdtfile=allwinner/sun50i-a64-pinephone-1.2.dtb\0vendor=pine64\0\0tail";
	uint8_t blob[512];
	size_t n = egon(blob, text, sizeof(text) - 1);
	struct imgp_uboot ub;

	CHECK(read_image("found.img", 32 * KiB, 8 * KiB, blob, n, &ub) == 0, "read: 0");
	CHECK_STR(ub.where, "u-boot-sunxi-with-spl.bin at 8 KiB (Allwinner)", "found at 8 KiB");
	CHECK_STR(ub.version, "2024.04-rc1", "U-Boot proper's version, not the SPL's");
	CHECK_STR(ub.fdtfile, "allwinner/sun50i-a64-pinephone-1.2.dtb", "fdtfile");
	CHECK_STR(ub.board, "pinephone", "board");
	CHECK_STR(ub.vendor, "pine64", "vendor");
	CHECK_STR(ub.tree, "allwinner/sun50i-a64-pinephone-1.2.dtb", "the tree: fdtfile");
	CHECK(ub.nenv == 5, "five settings");
	imgp_uboot_free_(&ub);
}

static void test_soc_board(void)
{
	static const char text[] = "\0soc=rk3399\0board=evb\0bootcmd=run distro_bootcmd\0\0";
	uint8_t blob[256];
	size_t n = egon(blob, text, sizeof(text) - 1);
	struct imgp_uboot ub;

	CHECK(read_image("socboard.img", 0, 8 * KiB, blob, n, &ub) == 0, "no table: read");
	CHECK(ub.where && !ub.fdtfile && !ub.version, "no fdtfile, no version string");
	CHECK_STR(ub.tree, "rk3399-evb.dtb", "the tree: ${soc}-${board}.dtb, as pxe_utils.c");
	imgp_uboot_free_(&ub);
}

#define TEXT(s) { s, sizeof(s) - 1 }

static void test_not_env(void)
{
	/* Two settings only, a value with a control byte, keys with a blank. */
	static const struct { const char *s; size_t n; } texts[] = {
		TEXT("\0fdtfile=a.dtb\0bootcmd=boot\0\0"),
		TEXT("\0fdtfile=a\x01.dtb\0bootcmd=boot\0soc=x\0\0"),
		TEXT("\0fdt file=a.dtb\0boot cmd=boot\0s oc=x\0\0"),
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		uint8_t blob[256];
		size_t n = egon(blob, texts[i].s, texts[i].n);
		struct imgp_uboot ub;

		CHECK(read_image("notenv.img", 0, 8 * KiB, blob, n, &ub) == 0 &&
		      !ub.where && !ub.tree, "not an environment: nothing found");
		imgp_uboot_free_(&ub);
	}
}

static void test_cut_at_partition(void)
{
	/* The settings run into the first partition: only the gap is read. */
	static const char text[] = "\0a=1\0b=2\0fdtfile=x.dtb\0bootcmd=boot\0\0";
	uint8_t blob[256];
	size_t n = egon(blob, text, sizeof(text) - 1);
	struct imgp_uboot ub;

	CHECK(read_image("cut.img", 8 * KiB + 40, 8 * KiB, blob, n, &ub) == 0 &&
	      !ub.where, "an environment cut by the partition start: nothing found");
	imgp_uboot_free_(&ub);
	CHECK(read_image("inside.img", 4 * KiB, 8 * KiB, blob, n, &ub) == 0 &&
	      !ub.where, "inside a partition: not read");
	imgp_uboot_free_(&ub);
}

static void test_broken_fit(void)
{
	/* A FIT header whose size lies: its raw bytes are searched instead. */
	static const char text[] = "\0x=1\0fdtfile=rk.dtb\0bootcmd=b\0\0";
	uint8_t blob[128] = { 0xd0, 0x0d, 0xfe, 0xed, 0x7f, 0xff, 0xff, 0xff };
	struct imgp_uboot ub;

	memcpy(blob + 64, text, sizeof(text) - 1);
	CHECK(read_image("fit.img", 0, 40 * KiB, blob, sizeof(blob), &ub) == 0,
	      "broken FIT at 40 KiB: read");
	CHECK_STR(ub.tree, "rk.dtb", "its environment, from the raw bytes");
	imgp_uboot_free_(&ub);
}

int main(void)
{
	if (unit_tmpdir_create("uboot-env")) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	test_found();
	test_soc_board();
	test_not_env();
	test_cut_at_partition();
	test_broken_fit();
	return unit_done();
}
