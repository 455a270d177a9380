// SPDX-License-Identifier: MIT
/*
 * U-Boot script images: what mkimage writes at test time parses, and every
 * broken header, CRC, size, type and part list is refused with its reason.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imgpatch.h"
#include "unit.h"

#define ARCH_ARM64 22
#define OS_LINUX 5

static char dir[256];
static const char *const env[] = { "SOURCE_DATE_EPOCH=1700000000", NULL };
static const char script[] =
	"echo booting\n"
	"load mmc 0:1 ${fdt_addr_r} user-override.dtb || load mmc 0:1 ${fdt_addr_r} board.dtb\n"
	"bootm ${kernel_addr_r} - ${fdt_addr_r}\n";

static const char *at(const char *name)
{
	static char paths[8][512];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
	return p;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	struct imgp_buf b = { 0 };
	uint8_t chunk[4096];
	FILE *f = fopen(path, "rb");
	size_t n;

	*len = 0;
	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (imgp_buf_append(&b, chunk, n)) {
			imgp_buf_free(&b);
			break;
		}
	fclose(f);
	if (!b.data)
		return NULL;
	return imgp_buf_steal(&b, len);
}

static void cleanup(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlink(at(e->d_name));
		closedir(d);
	}
	rmdir(dir);
}

/* mkimage -A arm64 -O linux -T type -C comp [-n name] -d input out */
static int mkimage(const char *type, const char *comp, const char *name,
		   const char *input, const char *out)
{
	const char *argv[16] = { "mkimage", "-A", "arm64", "-O", "linux", "-T",
				 type, "-C", comp };
	int n = 9, rc;

	if (name) {
		argv[n++] = "-n";
		argv[n++] = name;
	}
	argv[n++] = "-d";
	argv[n++] = input;
	argv[n++] = at(out);
	argv[n] = NULL;
	rc = imgp_run(argv, env, NULL);
	if (rc)
		printf("# mkimage: %s\n", imgp_errmsg());
	return rc;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Rewrites both CRCs after an edit, so only the edit itself is wrong. */
static void fix_crcs(uint8_t *img, size_t len)
{
	uint32_t size = (uint32_t)(len - 64);

	put_be32(img + 12, size);
	put_be32(img + 24, imgp_crc32(0, img + 64, size));
	put_be32(img + 4, 0);
	put_be32(img + 4, imgp_crc32(0, img, 64));
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
	int rc = imgp_bootscr_parse(&scr, img, len);

	CHECK(rc == want_rc && !scr.text, name);
	if (!strstr(imgp_errmsg(), want_msg))
		printf("#   message: '%s'\n#   want:    '...%s...'\n",
		       imgp_errmsg(), want_msg);
	CHECK(strstr(imgp_errmsg(), want_msg) != NULL, name);
	if (!rc)
		imgp_bootscr_free(&scr);
}

static void check_good(void)
{
	struct imgp_bootscr scr;
	uint8_t *img;
	size_t len;
	int rc;

	img = read_file(at("boot.scr"), &len);
	rc = img ? imgp_bootscr_parse(&scr, img, len) : -1;
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
	CHECK(imgp_bootscr_mentions(&scr, "user-override.dtb"), "mentions the override");
	CHECK(!imgp_bootscr_mentions(&scr, "user-override.dtbo"), "no false mention");
	CHECK(!imgp_bootscr_mentions(&scr, ""), "empty word is never mentioned");
	imgp_bootscr_free(&scr);
	CHECK(!scr.text, "free empties the struct");
	free(img);

	img = read_file(at("two.scr"), &len);
	rc = img ? imgp_bootscr_parse(&scr, img, len) : -1;
	CHECK(rc == 0 && scr.text_len == sizeof(script) - 1 &&
	      !memcmp(scr.text, script, scr.text_len),
	      "two-part script: the text is the first part");
	CHECK(rc == 0 && !imgp_bootscr_mentions(&scr, "second part"),
	      "the second part is not script text");
	CHECK(rc == 0 && !scr.name[0], "image without a name");
	if (!rc)
		imgp_bootscr_free(&scr);
	free(img);
}

static void check_corrupt(void)
{
	uint8_t *img, *copy;
	size_t len;

	img = read_file(at("boot.scr"), &len);
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
	put_be32(copy + 4, imgp_crc32(0, copy, 64));
	expect_fail(copy, len, -EINVAL, "data size", "size field past the end");
	free(copy);
	free(img);

	img = read_file(at("kernel.img"), &len);
	expect_fail(img, len, -EINVAL, "image type is kernel (2), not script (6)",
		    "kernel image is not a script");
	free(img);
	img = read_file(at("gz.scr"), &len);
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
	rc = img ? imgp_bootscr_parse(&scr, img, len) : -1;
	CHECK(rc == 0 && scr.text_len == 5 && !strcmp(scr.text, "abcde"),
	      "two crafted parts, the first padded");
	if (!rc)
		imgp_bootscr_free(&scr);
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
	rc = img ? imgp_bootscr_parse(&scr, img, len) : -1;
	CHECK(rc == 0 && scr.text_len == 8 && imgp_bootscr_mentions(&scr, "b.dtb"),
	      "mentions searches past a NUL");
	if (!rc)
		imgp_bootscr_free(&scr);
	free(img);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char two[1100];

	snprintf(dir, sizeof(dir), "%s/imgp-test-bootscr.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	/* mkimage -d a:b makes a multi-part script. */
	snprintf(two, sizeof(two), "%s:%s", at("boot.cmd"), at("two.txt"));
	if (write_file(at("boot.cmd"), script, sizeof(script) - 1) ||
	    write_file(at("two.txt"), "second part", 11) ||
	    mkimage("script", "none", "boot script", at("boot.cmd"), "boot.scr") ||
	    mkimage("script", "none", NULL, two, "two.scr") ||
	    mkimage("kernel", "none", NULL, at("boot.cmd"), "kernel.img") ||
	    mkimage("script", "gzip", NULL, at("boot.cmd"), "gz.scr")) {
		CHECK(0, "fixtures: mkimage builds the test images");
		cleanup();
		return unit_done();
	}
	check_good();
	check_corrupt();
	check_parts();
	cleanup();
	return unit_done();
}
