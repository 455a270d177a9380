// SPDX-License-Identifier: MIT
/*
 * The format registry and the working image (imgp_work_*): names and
 * suffixes come from one table; a multi-block .xz written back as .xz is
 * opened block-wise and every other case unpacked whole; what is written
 * back decompresses (with the real xz) to the patched bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "format/format.h"
#include "unit.h"

#define MiB (1024u * 1024u)
#define DISK_SIZE (3 * MiB + 512)

static void check_registry(void)
{
	static const struct { const char *name; enum imgp_format fmt; } ok[] = {
		{ "xz", IMGP_FMT_XZ }, { "gz", IMGP_FMT_GZIP }, { "gzip", IMGP_FMT_GZIP },
		{ "zst", IMGP_FMT_ZSTD }, { "zstd", IMGP_FMT_ZSTD },
		{ "bz2", IMGP_FMT_BZIP2 }, { "bzip2", IMGP_FMT_BZIP2 },
		{ "lz4", IMGP_FMT_LZ4 }, { "none", IMGP_FMT_RAW }, { "raw", IMGP_FMT_RAW },
	};
	enum imgp_format fmt = IMGP_FMT_TAR;
	char name[64];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(name, sizeof(name), "--compress %s is %s", ok[i].name,
			 imgp_format_name(ok[i].fmt));
		CHECK(imgp_format_parse(ok[i].name, &fmt) == 0 && fmt == ok[i].fmt, name);
	}
	/* Archives are read, never written; unknown names are refused. */
	CHECK(imgp_format_parse("zip", &fmt) == -EINVAL, "zip cannot be asked for");
	CHECK(imgp_format_parse("rar", &fmt) == -EINVAL, "an unknown name is refused");
	CHECK_STR(imgp_format_choices(), "xz, gz, zst, bz2, lz4 or none", "the choices");
	CHECK(imgp_format_is_compressed_(IMGP_FMT_ZSTD), "zstd is a compressed stream");
	CHECK(!imgp_format_is_compressed_(IMGP_FMT_RAW) && !imgp_format_is_compressed_(IMGP_FMT_7Z),
	      "raw and 7z are not");
	CHECK(imgp_format_from_name_("a.img.ZST") == IMGP_FMT_ZSTD, "a suffix is the format");
}

static int make_disk(const char *path)
{
	uint8_t *buf = malloc(DISK_SIZE);
	uint32_t x = 2463534242u;
	int rc;

	if (!buf)
		return -1;
	/* Compressible, but not trivially: every block differs. */
	for (size_t i = 0; i < DISK_SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)((x & 0x0f) + (i >> 20));
	}
	rc = unit_write_file(path, buf, DISK_SIZE);
	free(buf);
	return rc;
}

/* Writes "patched" at off of the working image, as a commit would. */
/*
 * Writes at off of the working image as a commit does: opened for writing,
 * through the filler of the image the plan was made on.
 */
static int patch_at(const struct imgp_work *w, uint64_t off)
{
	struct imgp_image planned, img;
	int rc = imgp_image_open_filled_(&planned, w->path, imgp_xz_image_fill_, w->xz);

	if (rc)
		return rc;
	rc = imgp_image_open_(&img, w->path, true);
	if (!rc) {
		imgp_image_inherit_fill_(&img, &planned);
		rc = img.fill ? imgp_image_write_(&img, off, "patched", 7) : -EINVAL;
		imgp_image_close_(&img);
	}
	imgp_image_close_(&planned);
	return rc;
}

static void check_work(void)
{
	const char *xz[] = { "xz", "-k", "-T2", "--block-size=1MiB", NULL, NULL };
	char disk[256], packed[256], copy[256], out[256];
	const char *xzd[] = { "xz", "-dkc", out, NULL };
	struct imgp_pack_opts as_xz = { .format = IMGP_FMT_XZ, .level = -1 };
	struct imgp_pack_opts as_gz = { .format = IMGP_FMT_GZIP, .level = -1 };
	struct imgp_work_opts wopts = { .out = &as_xz, .zero_holes = true };
	struct imgp_work *w;
	uint8_t *back;
	size_t len;
	int rc;

	unit_path_keep(disk, sizeof(disk), "disk.img");
	unit_path_keep(packed, sizeof(packed), "disk.img.xz");
	unit_path_keep(copy, sizeof(copy), "work");
	unit_path_keep(out, sizeof(out), "out.img.xz");
	xz[4] = disk;
	if (make_disk(disk) || unit_spawn(xz, NULL, NULL)) {
		CHECK(0, "fixtures: a multi-block .xz");
		return;
	}

	rc = imgp_work_probe_(&w, NULL, disk);
	CHECK(rc == 0 && w->format == IMGP_FMT_RAW && !strcmp(w->path, disk),
	      "a raw image is worked on as it is");
	CHECK(rc == 0 && imgp_work_unpack_(w, copy, &wopts) == 0 && !strcmp(w->path, disk),
	      "a raw image needs no copy");
	imgp_work_close_(w);

	/* Only read: unpacked whole. */
	close(open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600));
	wopts.out = NULL;
	rc = imgp_work_probe_(&w, NULL, packed);
	CHECK(rc == 0 && w->format == IMGP_FMT_XZ, "a .xz is detected");
	rc = rc ? rc : imgp_work_unpack_(w, copy, &wopts);
	CHECK(rc == 0 && !w->xz && !strcmp(w->path, copy), "read only: unpacked whole");
	imgp_work_close_(w);

	/* Written back as .gz: unpacked whole too. */
	wopts.out = &as_gz;
	rc = imgp_work_probe_(&w, NULL, packed);
	rc = rc ? rc : imgp_work_unpack_(w, copy, &wopts);
	CHECK(rc == 0 && !w->xz, "to another format: unpacked whole");
	imgp_work_close_(w);

	/* Written back as .xz: block-wise, and only the block written changes. */
	wopts.out = &as_xz;
	rc = imgp_work_probe_(&w, NULL, packed);
	rc = rc ? rc : imgp_work_unpack_(w, copy, &wopts);
	CHECK(rc == 0 && w->xz, "a multi-block .xz back to .xz: block-wise");
	rc = rc ? rc : patch_at(w, 2 * MiB + 100);
	rc = rc ? rc : imgp_work_pack_(w, out, &as_xz);
	CHECK(rc == 0, "written back");
	if (rc)
		printf("#   %s\n", imgp_errmsg());
	if (w && w->xz) {
		size_t nblocks, changed = imgp_xz_image_changed_(w->xz, &nblocks);

		CHECK(changed == 1 && nblocks == 4, "one of four blocks re-encoded");
	}
	imgp_work_close_(w);
	back = NULL;
	if (!rc && unit_spawn(xzd, NULL, unit_path("back.img")) == 0)
		back = unit_read_file(unit_path("back.img"), &len);
	CHECK(back && len == DISK_SIZE && !memcmp(back + 2 * MiB + 100, "patched", 7),
	      "xz -d reads the patch back");
	free(back);
}

int main(void)
{
	if (unit_tmpdir_create("work")) {
		perror("mkdtemp");
		return 1;
	}
	check_registry();
	check_work();
	unit_tmpdir_remove();
	return unit_done();
}
