// SPDX-License-Identifier: MIT
/*
 * U-Boot script images: what mkimage writes at test time parses, and every
 * broken header, CRC, size, type and part list is refused with its reason.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "boot/boot.h"
#include "core/endian.h"
#include "unit.h"

#define ARCH_ARM64 22
#define OS_LINUX 5

static const char *const env[] = { "SOURCE_DATE_EPOCH=1700000000", NULL };
static const char script[] =
	"echo booting\n"
	"load mmc 0:1 ${fdt_addr_r} user-override.dtb || load mmc 0:1 ${fdt_addr_r} board.dtb\n"
	"bootm ${kernel_addr_r} - ${fdt_addr_r}\n";

/*
 * mkimage -A arch -O linux -T type -C comp [-n name] -d input out, quiet:
 * some runs are meant to fail.
 */
static int run_mkimage(const char *arch, const char *type, const char *comp,
		       const char *name, const char *input, const char *out)
{
	const char *argv[16] = { "mkimage", "-A", arch, "-O", "linux", "-T",
				 type, "-C", comp };
	int n = 9;

	if (name) {
		argv[n++] = "-n";
		argv[n++] = name;
	}
	argv[n++] = "-d";
	argv[n++] = input;
	argv[n++] = out;
	argv[n] = NULL;
	return imgp_run_(argv, env, NULL);
}

/* An arm64 image out in the test folder; a failure is shown. */
static int mkimage(const char *type, const char *comp, const char *name,
		   const char *input, const char *out)
{
	int rc = run_mkimage("arm64", type, comp, name, input, unit_path(out));

	if (rc)
		printf("# mkimage: %s\n", imgp_errmsg());
	return rc;
}

/* Rewrites both CRCs after an edit, so only the edit itself is wrong. */
static void fix_crcs(uint8_t *img, size_t len)
{
	uint32_t size = (uint32_t)(len - 64);

	put_be32(img + 12, size);
	put_be32(img + 24, imgp_crc32_(0, img + 64, size));
	put_be32(img + 4, 0);
	put_be32(img + 4, imgp_crc32_(0, img, 64));
}

/* A script image around hand-made data, with valid CRCs. */
static uint8_t *craft(const void *data, size_t dlen, size_t *len)
{
	uint8_t *img = calloc(1, 64 + dlen);

	*len = 0;
	if (!img)
		return NULL;
	put_be32(img, 0x27051956);
	img[28] = OS_LINUX;
	img[29] = ARCH_ARM64;
	img[30] = 6;
	memcpy(img + 64, data, dlen);
	*len = 64 + dlen;
	fix_crcs(img, *len);
	return img;
}

static void expect_fail(const uint8_t *img, size_t len, int want_rc,
			const char *want_msg, const char *name)
{
	struct imgp_bootscr scr;
	int rc = imgp_bootscr_parse_(&scr, img, len);

	CHECK(rc == want_rc && !scr.text, name);
	if (!strstr(imgp_errmsg(), want_msg))
		printf("#   message: '%s'\n#   want:    '...%s...'\n",
		       imgp_errmsg(), want_msg);
	CHECK(strstr(imgp_errmsg(), want_msg) != NULL, name);
	if (!rc)
		imgp_bootscr_free_(&scr);
}

static void check_good(void)
{
	struct imgp_bootscr scr;
	uint8_t *img;
	size_t len;
	int rc;

	img = unit_read_file(unit_path("boot.scr"), &len);
	rc = img ? imgp_bootscr_parse_(&scr, img, len) : -1;
	CHECK(rc == 0, "mkimage script parses");
	if (rc) {
		printf("# %s\n", imgp_errmsg());
		free(img);
		return;
	}
	CHECK_STR(scr.name, "boot script", "image name");
	CHECK(scr.time == 1700000000, "time is SOURCE_DATE_EPOCH");
	CHECK(scr.os == OS_LINUX && scr.arch == ARCH_ARM64 && scr.type == 6 &&
	      scr.comp == 0, "os, arch, type, compression");
	CHECK(scr.text_len == sizeof(script) - 1 &&
	      !memcmp(scr.text, script, scr.text_len) && !scr.text[scr.text_len],
	      "text is boot.cmd, NUL-terminated");
	CHECK(imgp_bootscr_mentions_(&scr, "user-override.dtb"), "mentions the override");
	CHECK(!imgp_bootscr_mentions_(&scr, "user-override.dtbo"), "no false mention");
	CHECK(!imgp_bootscr_mentions_(&scr, ""), "empty word is never mentioned");
	imgp_bootscr_free_(&scr);
	CHECK(!scr.text, "free empties the struct");
	free(img);

	img = unit_read_file(unit_path("two.scr"), &len);
	rc = img ? imgp_bootscr_parse_(&scr, img, len) : -1;
	CHECK(rc == 0 && scr.text_len == sizeof(script) - 1 &&
	      !memcmp(scr.text, script, scr.text_len),
	      "two-part script: the text is the first part");
	CHECK(rc == 0 && !imgp_bootscr_mentions_(&scr, "second part"),
	      "the second part is not script text");
	CHECK(rc == 0 && !scr.name[0], "image without a name");
	if (!rc)
		imgp_bootscr_free_(&scr);
	free(img);
}

static void check_corrupt(void)
{
	uint8_t *img, *copy;
	size_t len;

	img = unit_read_file(unit_path("boot.scr"), &len);
	copy = img ? malloc(len) : NULL;
	if (!copy) {
		CHECK(0, "read boot.scr");
		free(img);
		return;
	}
	memcpy(copy, img, len);
	copy[40] ^= 1;
	expect_fail(copy, len, -EBADMSG, "header CRC mismatch",
		    "changed header byte is a header CRC mismatch");
	memcpy(copy, img, len);
	copy[7] ^= 1;
	expect_fail(copy, len, -EBADMSG, "header CRC mismatch",
		    "changed header CRC is a header CRC mismatch");
	memcpy(copy, img, len);
	copy[len - 3] ^= 0x20;
	expect_fail(copy, len, -EBADMSG, "data CRC mismatch",
		    "changed script byte is a data CRC mismatch");
	memcpy(copy, img, len);
	expect_fail(copy, len - 1, -EINVAL, "is beyond the end of the file",
		    "truncated file");
	expect_fail(copy, 63, -EINVAL, "too short for a U-Boot image header",
		    "file shorter than a header");
	copy[0] = 0xd0;
	expect_fail(copy, len, -EINVAL, "not a U-Boot image (magic 0xd0051956",
		    "bad magic");
	/* A larger size field, CRCs made valid again: still past the end. */
	memcpy(copy, img, len);
	put_be32(copy + 12, (uint32_t)len);
	put_be32(copy + 4, 0);
	put_be32(copy + 4, imgp_crc32_(0, copy, 64));
	expect_fail(copy, len, -EINVAL, "data size", "size field past the end");
	free(copy);
	free(img);

	img = unit_read_file(unit_path("kernel.img"), &len);
	expect_fail(img, len, -EINVAL, "image type is kernel (2), not script (6)",
		    "kernel image is not a script");
	free(img);
	img = unit_read_file(unit_path("gz.scr"), &len);
	expect_fail(img, len, -EINVAL,
		    "script is gzip-compressed; compressed scripts are not supported",
		    "compressed script is refused");
	free(img);
}

static void check_parts(void)
{
	struct imgp_bootscr scr;
	uint8_t data[64], *img;
	size_t len;
	int rc;

	put_be32(data, 1000);
	put_be32(data + 4, 0);
	memcpy(data + 8, "abc", 3);
	img = craft(data, 11, &len);
	expect_fail(img, len, -EINVAL, "part 1 (1000 bytes", "part longer than the data");
	free(img);

	put_be32(data, 4);
	put_be32(data + 4, 4);
	img = craft(data, 8, &len);
	expect_fail(img, len, -EINVAL, "no terminating 0 word", "unterminated part list");
	free(img);

	img = craft(data, 0, &len);
	expect_fail(img, len, -EINVAL, "no terminating 0 word", "empty data");
	free(img);

	put_be32(data, 0);
	img = craft(data, 4, &len);
	expect_fail(img, len, -EINVAL, "no parts", "part list without parts");
	free(img);

	/* The first part is padded to 4 bytes before the second starts. */
	put_be32(data, 5);
	put_be32(data + 4, 3);
	put_be32(data + 8, 0);
	memcpy(data + 12, "abcde\0\0\0xyz", 11);
	img = craft(data, 23, &len);
	rc = img ? imgp_bootscr_parse_(&scr, img, len) : -1;
	CHECK(rc == 0 && scr.text_len == 5 && !strcmp(scr.text, "abcde"),
	      "two crafted parts, the first padded");
	if (!rc)
		imgp_bootscr_free_(&scr);
	expect_fail(img, len - 1, -EINVAL, "beyond the end of the file",
		    "file shorter than the size field");
	if (img) {
		fix_crcs(img, len - 1);
		expect_fail(img, len - 1, -EINVAL, "part 2 (3 bytes",
			    "second part past the end of the data");
	}
	free(img);

	/* Text with a NUL inside: mentions looks past it. */
	put_be32(data, 8);
	put_be32(data + 4, 0);
	memcpy(data + 8, "a\0b.dtb!", 8);
	img = craft(data, 16, &len);
	rc = img ? imgp_bootscr_parse_(&scr, img, len) : -1;
	CHECK(rc == 0 && scr.text_len == 8 && imgp_bootscr_mentions_(&scr, "b.dtb"),
	      "mentions searches past a NUL");
	if (!rc)
		imgp_bootscr_free_(&scr);
	free(img);
}

/* Ours equals mkimage's image byte for byte and parses back to the text. */
static void expect_make(const char *text, size_t len, const char *arch,
			const char *name, const char *what)
{
	char in[PATH_MAX], out[PATH_MAX], label[160];
	struct imgp_buf ours = { 0 };
	struct imgp_bootscr scr;
	uint8_t *want = NULL;
	size_t wlen = 0;
	int rc;

	snprintf(in, sizeof(in), "%s", unit_path("make.txt"));
	snprintf(out, sizeof(out), "%s", unit_path("make.scr"));
	snprintf(label, sizeof(label), "make %s, %s: same bytes as mkimage", what, arch);
	rc = imgp_bootscr_make_(text, len, name, arch, 1700000000, &ours);
	if (rc)
		printf("# %s\n", imgp_errmsg());
	if (unit_write_file(in, text, len) ||
	    run_mkimage(arch, "script", "none", name, in, out))
		printf("# mkimage: %s\n", imgp_errmsg());
	else
		want = unit_read_file(out, &wlen);
	CHECK(rc == 0 && want && ours.len == wlen &&
	      !memcmp(ours.data, want, wlen), label);

	snprintf(label, sizeof(label), "make %s, %s: parses back to the text", what, arch);
	rc = rc ? rc : imgp_bootscr_parse_(&scr, ours.data, ours.len);
	CHECK(rc == 0 && scr.text_len == len && !memcmp(scr.text, text, len) &&
	      scr.time == 1700000000 && scr.type == 6 && scr.comp == 0 &&
	      scr.os == OS_LINUX && !strcmp(scr.name, name ? name : ""), label);
	if (!rc)
		imgp_bootscr_free_(&scr);
	free(want);
	imgp_buf_free(&ours);
}

static void check_make(void)
{
	static const char *const arches[] = { "arm64", "arm" };
	static const char one[] = "load mmc 0:1 ${fdt_addr_r} user-override.dtb\n";
	static const char nonl[] = "echo no final newline";
	char *big = malloc(100 * 1024);
	size_t i;

	if (!big) {
		CHECK(0, "allocate 100 KiB");
		return;
	}
	/* Lines of a real script, and bytes that are no text at all. */
	for (i = 0; i < 100 * 1024; i++)
		big[i] = i % 61 == 60 ? '\n' : (char)('!' + i % 90);
	big[5000] = '\0';
	big[5001] = (char)0xff;
	for (i = 0; i < 2; i++) {
		expect_make(script, sizeof(script) - 1, arches[i], "boot script",
			    "boot.cmd");
		expect_make(one, sizeof(one) - 1, arches[i], "NAME", "one line");
		expect_make(nonl, sizeof(nonl) - 1, arches[i], "NAME", "no final newline");
		expect_make("abc", 3, arches[i], "NAME", "3 bytes");
		expect_make("x", 1, arches[i], NULL, "no name");
		expect_make(one, sizeof(one) - 1, arches[i],
			    "0123456789abcdef0123456789abcdef", "32-byte name");
		expect_make(big, 100 * 1024, arches[i], "big", "100 KiB");
	}
	free(big);
}

/* Each architecture mkimage knows gets the number mkimage writes. */
static void check_make_arches(void)
{
	static const char *const names[] = {
		"alpha", "arc", "arm", "arm64", "avr32", "blackfin", "ia64",
		"m68k", "microblaze", "mips", "mips64", "nds32", "nios2", "or1k",
		"powerpc", "ppc", "riscv", "s390", "sandbox", "sh", "sparc",
		"sparc64", "x86", "x86_64", "xtensa", "ARM64",
	};
	char in[PATH_MAX], out[PATH_MAX];
	struct imgp_buf ours = { 0 };
	int bad = 0;
	size_t i;

	snprintf(in, sizeof(in), "%s", unit_path("arch.txt"));
	snprintf(out, sizeof(out), "%s", unit_path("arch.scr"));
	if (unit_write_file(in, "boot\n", 5)) {
		CHECK(0, "write arch.txt");
		return;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint8_t *want = NULL;
		size_t wlen = 0;

		if (!run_mkimage(names[i], "script", "none", "a", in, out))
			want = unit_read_file(out, &wlen);
		if (imgp_bootscr_make_("boot\n", 5, "a", names[i], 1700000000, &ours) ||
		    !want || wlen != ours.len || memcmp(want, ours.data, wlen)) {
			printf("# arch %s: %s\n", names[i], imgp_errmsg());
			bad++;
		}
		free(want);
	}
	CHECK(bad == 0, "make: every architecture as mkimage numbers it");
	imgp_buf_free(&ours);
}

static void check_make_errors(void)
{
	char in[PATH_MAX], out[PATH_MAX];
	struct imgp_buf b = { 0 };

	imgp_buf_append(&b, "stale", 5);
	CHECK(imgp_bootscr_make_("x", 1, "n", "pdp11", 0, &b) == -EINVAL && b.len == 0,
	      "make: unknown architecture");
	CHECK(strstr(imgp_errmsg(), "unknown architecture 'pdp11' (try arm64") != NULL,
	      "make: the message names it and has a hint");
	CHECK(imgp_bootscr_make_("x", 1, "0123456789abcdef0123456789abcdefg", "arm",
				0, &b) == -EINVAL && b.len == 0,
	      "make: a 33-byte name");
	CHECK(strstr(imgp_errmsg(), "is 33 bytes long; U-Boot keeps at most 32") != NULL,
	      "make: the message gives the name's length");

	/* mkimage refuses an empty script, and U-Boot would not run one. */
	snprintf(in, sizeof(in), "%s", unit_path("empty.txt"));
	snprintf(out, sizeof(out), "%s", unit_path("empty.scr"));
	CHECK(unit_write_file(in, "", 0) == 0 &&
	      run_mkimage("arm64", "script", "none", "empty", in, out) == -EIO,
	      "mkimage refuses an empty script");
	CHECK(imgp_bootscr_make_("", 0, "empty", "arm64", 0, &b) == -EINVAL &&
	      b.len == 0, "make: an empty script is refused too");
	CHECK(strstr(imgp_errmsg(), "the script is empty") != NULL,
	      "make: the message says so");
	imgp_buf_free(&b);
}

int main(void)
{
	char two[2 * PATH_MAX + 2];

	if (unit_tmpdir_create("bootscr")) {
		perror("mkdtemp");
		return 1;
	}
	/* mkimage -d a:b makes a multi-part script. */
	snprintf(two, sizeof(two), "%s:%s", unit_path("boot.cmd"),
		 unit_path("two.txt"));
	if (unit_write_file(unit_path("boot.cmd"), script, sizeof(script) - 1) ||
	    unit_write_file(unit_path("two.txt"), "second part", 11) ||
	    mkimage("script", "none", "boot script", unit_path("boot.cmd"),
		    "boot.scr") ||
	    mkimage("script", "none", NULL, two, "two.scr") ||
	    mkimage("kernel", "none", NULL, unit_path("boot.cmd"), "kernel.img") ||
	    mkimage("script", "gzip", NULL, unit_path("boot.cmd"), "gz.scr")) {
		CHECK(0, "fixtures: mkimage builds the test images");
		unit_tmpdir_remove();
		return unit_done();
	}
	check_good();
	check_corrupt();
	check_parts();
	check_make();
	check_make_arches();
	check_make_errors();
	unit_tmpdir_remove();
	return unit_done();
}
