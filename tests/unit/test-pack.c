// SPDX-License-Identifier: MIT
/*
 * Images as they come and go: every input format is made at test time by
 * its real tool (xz, gzip, zstd, bzip2, lz4, zip, 7z, tar), detected by
 * content and unpacked to the same bytes as a sparse file; every packed
 * output is read back by the real decompressor; block maps are compared
 * with what "bmaptool create" writes and used by "bmaptool copy".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "format/format.h"
#include "unit.h"

#define KiB 1024u
#define MiB (1024u * 1024u)
/* Not a multiple of the 4 KiB block: the last block is short. */
#define DISK_SIZE (4 * MiB + 1536)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static void fill_random(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 7;
		rng_state ^= rng_state << 17;
		p[i] = (uint8_t)(rng_state >> 24);
	}
}

/* Writes len pseudo-random bytes at off into an existing file. */
static int put_random(const char *path, off_t off, size_t len)
{
	uint8_t *buf = malloc(len);
	int fd = open(path, O_WRONLY);
	int rc = -1;

	if (buf && fd >= 0) {
		fill_random(buf, len);
		rc = pwrite(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* Inverts one byte of a file. */
static int flip_byte(const char *path, off_t off)
{
	int fd = open(path, O_RDWR);
	uint8_t c;
	int rc = -1;

	if (fd >= 0 && pread(fd, &c, 1, off) == 1) {
		c ^= 0xff;
		rc = pwrite(fd, &c, 1, off) == 1 ? 0 : -1;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

static int make_sparse(const char *path, off_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int rc = fd >= 0 && ftruncate(fd, size) == 0 ? 0 : -1;

	if (fd >= 0)
		close(fd);
	return rc;
}

static int run(const char *const argv[])
{
	int rc = unit_spawn(argv, NULL, NULL);

	if (rc)
		printf("# %s exited with %d\n", argv[0], rc);
	return rc;
}

/* Runs a tool with stdout (and stderr) into out. */
static int run_to(const char *const argv[], const char *out)
{
	int rc = unit_spawn(argv, NULL, out);

	if (rc)
		printf("# %s exited with %d\n", argv[0], rc);
	return rc;
}

static bool same(const char *a, const char *b)
{
	const char *argv[] = { "cmp", a, b, NULL };

	return unit_spawn(argv, NULL, NULL) == 0;
}

static bool sparse(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && (uint64_t)st.st_blocks * 512 < (uint64_t)st.st_size;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static char disk[PATH_MAX], kv[PATH_MAX], kvmbr[PATH_MAX];

/*
 * disk.img: an MBR (sfdisk), data at unaligned places, zero runs between
 * them and a short last block. Then each format of it, by its own tool.
 */
static int make_fixtures(void)
{
	char dir[PATH_MAX], fixture[PATH_MAX];
	const char *env = getenv("IMGP_TEST_FIXTURES");

	snprintf(fixture, sizeof(fixture), "%s/mkimage-kv260.sh",
		 env && *env ? env : "tests/fixtures");
	unit_path_keep(dir, sizeof(dir), "");
	unit_path_keep(disk, sizeof(disk), "disk.img");
	unit_path_keep(kv, sizeof(kv), "kv.img");
	unit_path_keep(kvmbr, sizeof(kvmbr), "kvmbr.img");

	if (make_sparse(disk, DISK_SIZE) ||
	    unit_write_text(unit_path("disk.sfdisk"),
			    "label: dos\nlabel-id: 0x1badcafe\nstart=2048, size=4096, type=c\n") ||
	    put_random(disk, 1 * MiB, 64 * KiB) ||
	    put_random(disk, 2 * MiB + 100, 4096 + 200) ||
	    put_random(disk, 3 * MiB, 512) ||
	    put_random(disk, DISK_SIZE - 1536, 1536))
		return -1;
	{
		const char *argv[] = { "sfdisk", "-q", disk, NULL };

		if (unit_spawn(argv, unit_path("disk.sfdisk"), NULL)) {
			printf("# sfdisk failed\n");
			return -1;
		}
	}
	/* Members named without directories: the tools run with -C/-j. */
	{
		const char *xz[] = { "xz", "-k", "-f", "-T1", disk, NULL };
		const char *gz[] = { "gzip", "-k", "-f", "-n", disk, NULL };
		const char *zst[] = { "zstd", "-q", "-f", disk, "-o",
				      unit_path("disk.img.zst"), NULL };
		const char *bz2[] = { "bzip2", "-k", "-f", disk, NULL };
		const char *lz4[] = { "lz4", "-q", "-f", disk, unit_path("disk.img.lz4"), NULL };
		const char *zip[] = { "zip", "-q", "-j", unit_path("disk.zip"), disk, NULL };
		const char *sz[] = { "7z", "a", "-bd", "-y", unit_path("disk.7z"), disk, NULL };
		const char *tar[] = { "tar", "-C", dir, "-cf", unit_path("disk.tar"),
				      "disk.img", NULL };
		const char *txz[] = { "tar", "-C", dir, "-cJf", unit_path("disk.tar.xz"),
				      "disk.img", NULL };
		const char *star[] = { "tar", "-C", dir, "-S", "-cf", unit_path("sparse.tar"),
				       "disk.img", NULL };
		const char *lzma[] = { "xz", "-k", "-f", "--format=lzma", disk, NULL };
		const char *kvgpt[] = { fixture, kv, NULL };
		const char *kvdos[] = { fixture, kvmbr, "--mbr", NULL };
		const char *vfat[] = { "mkfs.vfat", "-C", unit_path("fat.img"), "4096", NULL };
		const char *ext4[] = { "mke2fs", "-q", "-F", "-t", "ext4",
				       unit_path("ext4.img"), "4M", NULL };

		if (run(xz) || run(gz) || run(zst) || run(bz2) || run(lz4) ||
		    run(zip) || run_to(sz, unit_path("7z.log")) || run(tar) ||
		    run(txz) || run(star) || run(lzma) || run(kvgpt) ||
		    run(kvdos) || run_to(vfat, unit_path("vfat.log")) || run(ext4))
			return -1;
	}
	{
		const char *e4xz[] = { "xz", "-k", "-f", "-T1", unit_path("ext4.img"), NULL };

		/* A sparse tar entry that ends in a hole: its size says how long. */
		const char *tail[] = { "tar", "-C", dir, "-S", "-cf", unit_path("tail.tar"),
				       "tail.img", NULL };

		if (make_sparse(unit_path("random.bin"), 0) ||
		    put_random(unit_path("random.bin"), 0, 256 * KiB) || run(e4xz) ||
		    make_sparse(unit_path("tail.img"), 2 * MiB) ||
		    put_random(unit_path("tail.img"), 0, 4 * KiB) || run(tail))
			return -1;
	}
	return 0;
}

/* Archives that are not one disk image, and other formats refused. */
static int make_bad_inputs(void)
{
	char dir[PATH_MAX];
	const char *two[] = { "zip", "-q", "-j", unit_path("two.zip"), unit_path("a.img"),
			      unit_path("b.img"), NULL };
	const char *three[] = { "tar", "-C", dir, "-cf", unit_path("three.tar"), "a.img",
				"b.img", "README", NULL };
	const char *empty[] = { "tar", "-cf", unit_path("empty.tar"), "-T", "/dev/null", NULL };
	const char *dironly[] = { "tar", "-C", dir, "-cf", unit_path("dironly.tar"),
				  "emptydir", NULL };
	const char *withdir[] = { "tar", "-C", dir, "-cf", unit_path("withdir.tar"), "sub", NULL };
	const char *link[] = { "tar", "-C", dir, "-cf", unit_path("link.tar"), "link.img", NULL };
	const char *ar[] = { "ar", "rc", unit_path("disk.a"), disk, NULL };
	char sub[PATH_MAX];

	unit_path_keep(dir, sizeof(dir), "");
	unit_path_keep(sub, sizeof(sub), "sub/disk.img");
	if (unit_write_text(unit_path("a.img"), "a") ||
	    unit_write_text(unit_path("b.img"), "b") ||
	    unit_write_text(unit_path("README"), "readme\n") ||
	    mkdir(unit_path("emptydir"), 0755) || mkdir(unit_path("sub"), 0755) ||
	    symlink("disk.img", unit_path("link.img")) ||
	    unit_write_file(unit_path("empty"), "", 0))
		return -1;
	{
		const char *cp[] = { "cp", "--sparse=always", disk, sub, NULL };

		if (run(cp))
			return -1;
	}
	return run(two) || run(three) || run(empty) || run(dironly) || run(withdir) ||
	       run(link) || run(ar) ? -1 : 0;
}

static void check_names(void)
{
	static const struct {
		const char *name;
		enum imgp_format fmt;
	} names[] = {
		{ "a.img.xz", IMGP_FMT_XZ }, { "a.img.gz", IMGP_FMT_GZIP },
		{ "a.img.zst", IMGP_FMT_ZSTD }, { "a.img.bz2", IMGP_FMT_BZIP2 },
		{ "a.img.lz4", IMGP_FMT_LZ4 }, { "A.IMG.XZ", IMGP_FMT_XZ },
		{ "a.img", IMGP_FMT_RAW }, { "a.zip", IMGP_FMT_RAW },
		{ ".xz", IMGP_FMT_RAW }, { "xz", IMGP_FMT_RAW }, { "", IMGP_FMT_RAW },
		{ "dir.xz/a.img", IMGP_FMT_RAW },
	};
	static const char *const want[] = { "raw", "xz", "gzip", "zstd", "bzip2",
					     "lz4", "zip", "7z", "tar" };
	char name[80];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(name, sizeof(name), "format from name '%s' is %s",
			 names[i].name, imgp_format_name(names[i].fmt));
		CHECK(imgp_format_from_name_(names[i].name) == names[i].fmt, name);
	}
	for (int f = IMGP_FMT_RAW; f <= IMGP_FMT_TAR; f++)
		CHECK_STR(imgp_format_name((enum imgp_format)f), want[f], "format name");
}

static void check_detect_one(const char *file, enum imgp_format want)
{
	enum imgp_format got = IMGP_FMT_TAR;
	char name[128];
	int rc;

	imgp_errclear_();
	rc = imgp_format_detect_(unit_path(file), &got);
	snprintf(name, sizeof(name), "%s is detected as %s", file, imgp_format_name(want));
	CHECK(rc == 0 && got == want, name);
	if (rc || got != want)
		printf("#   rc %d, got %s: %s\n", rc, imgp_format_name(got), imgp_errmsg());
}

static void check_detect(void)
{
	enum imgp_format got;
	int rc;

	/* Disk images that start with an MBR, a boot sector or zero blocks. */
	check_detect_one("kv.img", IMGP_FMT_RAW);
	check_detect_one("kvmbr.img", IMGP_FMT_RAW);
	check_detect_one("disk.img", IMGP_FMT_RAW);
	check_detect_one("fat.img", IMGP_FMT_RAW);
	check_detect_one("ext4.img", IMGP_FMT_RAW);
	check_detect_one("random.bin", IMGP_FMT_RAW);
	check_detect_one("disk.img.xz", IMGP_FMT_XZ);
	check_detect_one("disk.img.gz", IMGP_FMT_GZIP);
	check_detect_one("disk.img.zst", IMGP_FMT_ZSTD);
	check_detect_one("disk.img.bz2", IMGP_FMT_BZIP2);
	check_detect_one("disk.img.lz4", IMGP_FMT_LZ4);
	check_detect_one("disk.zip", IMGP_FMT_ZIP);
	check_detect_one("disk.7z", IMGP_FMT_7Z);
	check_detect_one("disk.tar", IMGP_FMT_TAR);
	check_detect_one("disk.tar.xz", IMGP_FMT_TAR);
	check_detect_one("sparse.tar", IMGP_FMT_TAR);
	check_detect_one("tail.tar", IMGP_FMT_TAR);
	check_detect_one("empty.tar", IMGP_FMT_TAR);
	/* A compressed image starting with a zero block is no tar archive. */
	check_detect_one("ext4.img.xz", IMGP_FMT_XZ);

	rc = imgp_format_detect_(unit_path("empty"), &got);
	CHECK(rc == -EINVAL, "an empty file is refused");
	CHECK_STR(imgp_errmsg(), "empty file", "empty file: message");
	rc = imgp_format_detect_(unit_path("missing"), &got);
	CHECK(rc == -ENOENT, "a missing file is -ENOENT");
	rc = imgp_format_detect_(unit_path("disk.img.lzma"), &got);
	CHECK(rc == -ENOTSUP, "lzma (not xz) is not supported");
	CHECK_STR(imgp_errmsg(), "lzma compression is not supported (use xz, gzip, zstd, bzip2 or lz4)",
		  "lzma: message");
	rc = imgp_format_detect_(unit_path("disk.a"), &got);
	CHECK(rc == -ENOTSUP, "an ar archive is not supported");
	CHECK(strstr(imgp_errmsg(), "archives are not supported (use zip, 7z or tar)") != NULL,
	      "ar: message");
}

/* Unpacks file and checks it against the raw image: same bytes, sparse. */
static void check_unpack_one(const char *file, const char *raw)
{
	char name[128], out[PATH_MAX];
	int rc;

	snprintf(out, sizeof(out), "%s.out", unit_path(file));
	rc = imgp_unpack_(NULL, unit_path(file), out, true);
	snprintf(name, sizeof(name), "%s unpacks", file);
	CHECK(rc == 0, name);
	if (rc)
		printf("#   %s\n", imgp_errmsg());
	snprintf(name, sizeof(name), "%s unpacks to the raw bytes", file);
	CHECK(rc == 0 && same(raw, out), name);
	snprintf(name, sizeof(name), "%s unpacks sparse", file);
	CHECK(rc == 0 && sparse(out), name);
	unlink(out);
}

static void check_unpack(void)
{
	static const char *const files[] = {
		"disk.img", "disk.img.xz", "disk.img.gz", "disk.img.zst",
		"disk.img.bz2", "disk.img.lz4", "disk.zip", "disk.7z",
		"disk.tar", "disk.tar.xz", "sparse.tar", "withdir.tar",
	};
	char ext4[PATH_MAX], tail[PATH_MAX];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_unpack_one(files[i], disk);
	check_unpack_one("kv.img", kv);
	check_unpack_one("ext4.img.xz", unit_path_keep(ext4, sizeof(ext4), "ext4.img"));
	check_unpack_one("tail.tar", unit_path_keep(tail, sizeof(tail), "tail.img"));
}

static void check_refused(const char *file, int want_rc, const char *want_msg)
{
	char name[128];
	int rc;

	imgp_errclear_();
	rc = imgp_unpack_(NULL, unit_path(file), unit_path("refused.out"), true);
	snprintf(name, sizeof(name), "%s is refused", file);
	CHECK(rc == want_rc, name);
	snprintf(name, sizeof(name), "%s: message", file);
	CHECK_STR(imgp_errmsg(), want_msg, name);
}

static void check_unpack_errors(void)
{
	size_t len;
	uint8_t *xz = unit_read_file(unit_path("disk.img.xz"), &len);
	int rc;

	check_refused("two.zip", -EINVAL,
		      "archive holds 2 files (a.img, b.img): expected exactly one disk image");
	check_refused("three.tar", -EINVAL,
		      "archive holds 3 files (a.img, b.img, README): expected exactly one disk image");
	check_refused("empty.tar", -EINVAL,
		      "archive holds no files: expected exactly one disk image");
	check_refused("dironly.tar", -EINVAL,
		      "archive holds no files: expected exactly one disk image");
	check_refused("link.tar", -EINVAL,
		      "archive entry 'link.img' is not a regular file: expected a disk image");

	/* A download cut short. */
	CHECK(xz && len > 64, "fixture: disk.img.xz read");
	if (!xz)
		return;
	CHECK(unit_write_file(unit_path("cut.img.xz"), xz, len / 2) == 0,
	      "fixture: cut.img.xz written");
	free(xz);
	imgp_errclear_();
	rc = imgp_unpack_(NULL, unit_path("cut.img.xz"), unit_path("cut.out"), true);
	CHECK(rc < 0, "a truncated xz stream fails");
	CHECK(strncmp(imgp_errmsg(), "xz: ", 4) == 0 &&
	      strstr(imgp_errmsg(), "(the input ends early: is the file complete?)"),
	      "truncated xz: message says so");
	printf("#   %s\n", imgp_errmsg());
}

/* Decompresses with the real tool and compares with the raw image. */
static bool tool_decompresses(const char *tool, const char *packed, const char *raw)
{
	const char *argv[] = { tool, "-dc", packed, NULL };
	const char *out = unit_path("tool.out");

	return run_to(argv, out) == 0 && same(raw, out);
}

/* The context long work reports to: NULL, but while progress is checked. */
static struct imgp_ctx *progress_ctx;

static int pack(const char *src, const char *dst, enum imgp_format fmt,
		int level, int threads)
{
	struct imgp_pack_opts opts = { .format = fmt, .level = level, .threads = threads };
	int rc;

	imgp_errclear_();
	rc = imgp_pack_(progress_ctx, src, dst, &opts);
	if (rc)
		printf("#   pack %s: %s\n", imgp_format_name(fmt), imgp_errmsg());
	return rc;
}

/* Blocks in an xz file, from "xz --robot --list": the threads at work. */
static long xz_blocks(const char *path)
{
	const char *argv[] = { "xz", "--robot", "--list", path, NULL };
	const char *out = unit_path("xz.list");
	char *text, *line;
	long blocks = -1;

	if (run_to(argv, out))
		return -1;
	text = unit_read_file(out, NULL);
	line = text ? strstr(text, "\nfile\t") : NULL;
	if (line)
		sscanf(line, "\nfile\t%*d\t%ld", &blocks);
	free(text);
	return blocks;
}

static void check_pack(void)
{
	static const struct {
		enum imgp_format fmt;
		const char *tool, *file;
	} outs[] = {
		{ IMGP_FMT_XZ, "xz", "out.img.xz" },
		{ IMGP_FMT_GZIP, "gzip", "out.img.gz" },
		{ IMGP_FMT_ZSTD, "zstd", "out.img.zst" },
		{ IMGP_FMT_BZIP2, "bzip2", "out.img.bz2" },
		{ IMGP_FMT_LZ4, "lz4", "out.img.lz4" },
	};
	char name[128], out[PATH_MAX], again[PATH_MAX];
	enum imgp_format got;
	uint8_t *a, *b;
	size_t alen, blen;

	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		const char *tool = outs[i].tool;

		unit_path_keep(out, sizeof(out), outs[i].file);
		snprintf(name, sizeof(name), "pack %s with defaults", tool);
		CHECK(pack(disk, out, outs[i].fmt, -1, 0) == 0, name);
		snprintf(name, sizeof(name), "%s -dc of the packed image is the image", tool);
		CHECK(tool_decompresses(tool, out, disk), name);
		snprintf(name, sizeof(name), "packed %s is detected as such", tool);
		CHECK(imgp_format_detect_(out, &got) == 0 && got == outs[i].fmt, name);
		CHECK(imgp_format_from_name_(out) == outs[i].fmt, "the name says the same");
		snprintf(name, sizeof(name), "packed %s unpacks again", tool);
		unit_path_keep(again, sizeof(again), "again.img");
		CHECK(imgp_unpack_(NULL, out, again, true) == 0 && same(disk, again) && sparse(again), name);
	}

	/* Levels and threads. */
	unit_path_keep(out, sizeof(out), "level.img.xz");
	CHECK(pack(disk, out, IMGP_FMT_XZ, 0, 2) == 0 && tool_decompresses("xz", out, disk),
	      "xz level 0, 2 threads");
	/* The threaded encoder cuts 1 MiB blocks at level 0; one thread makes one. */
	CHECK(xz_blocks(out) > 1, "xz with 2 threads writes several blocks");
	CHECK(pack(disk, out, IMGP_FMT_XZ, 9, 1) == 0 && tool_decompresses("xz", out, disk),
	      "xz level 9, 1 thread");
	CHECK(xz_blocks(out) == 1, "xz with 1 thread writes one block");
	CHECK(pack(disk, out, IMGP_FMT_XZ, 1, 0) == 0 && tool_decompresses("xz", out, disk),
	      "xz level 1, threads from the CPU count");
	unit_path_keep(out, sizeof(out), "level.img.zst");
	CHECK(pack(disk, out, IMGP_FMT_ZSTD, 19, 2) == 0 && tool_decompresses("zstd", out, disk),
	      "zstd level 19, 2 threads");
	CHECK(pack(disk, out, IMGP_FMT_ZSTD, 1, 1) == 0 && tool_decompresses("zstd", out, disk),
	      "zstd level 1, 1 thread");
	unit_path_keep(out, sizeof(out), "level.img.bz2");
	CHECK(pack(disk, out, IMGP_FMT_BZIP2, 1, 4) == 0 && tool_decompresses("bzip2", out, disk),
	      "bzip2 level 1 (threads ignored)");
	unit_path_keep(out, sizeof(out), "level.img.lz4");
	CHECK(pack(disk, out, IMGP_FMT_LZ4, 9, 0) == 0 && tool_decompresses("lz4", out, disk),
	      "lz4 level 9");

	/* gzip: no time stamp, so the same image packs to the same bytes. */
	unit_path_keep(out, sizeof(out), "a.img.gz");
	unit_path_keep(again, sizeof(again), "b.img.gz");
	CHECK(pack(disk, out, IMGP_FMT_GZIP, 1, 0) == 0 && tool_decompresses("gzip", out, disk),
	      "gzip level 1");
	sleep(1);
	CHECK(pack(disk, again, IMGP_FMT_GZIP, 1, 0) == 0, "gzip again a second later");
	a = unit_read_file(out, &alen);
	b = unit_read_file(again, &blen);
	CHECK(a && b && alen == blen && !memcmp(a, b, alen), "gzip output is reproducible");
	CHECK(a && alen > 8 && !a[4] && !a[5] && !a[6] && !a[7], "gzip header has no mtime");
	free(a);
	free(b);

	/* Raw: a sparse copy. */
	unit_path_keep(out, sizeof(out), "out.img");
	CHECK(pack(kv, out, IMGP_FMT_RAW, -1, 0) == 0 && same(kv, out) && sparse(out),
	      "raw output is a sparse copy");

	unit_path_keep(out, sizeof(out), "bad.img.xz");
	CHECK(pack(disk, out, IMGP_FMT_XZ, 10, 0) == -EINVAL, "xz level 10 is refused");
	CHECK_STR(imgp_errmsg(), "compression level 10 is out of range for xz (0-9)",
		  "xz level 10: message");
	CHECK(pack(disk, out, IMGP_FMT_GZIP, 0, 0) == -EINVAL, "gzip level 0 is refused");
	CHECK(pack(disk, out, IMGP_FMT_ZSTD, 23, 0) == -EINVAL, "zstd level 23 is refused");
	CHECK(pack(disk, out, IMGP_FMT_XZ, -1, -1) == -EINVAL, "negative threads are refused");
	CHECK_STR(imgp_errmsg(), "thread count -1 is out of range (0-1024)", "threads: message");
	CHECK(pack(disk, out, IMGP_FMT_XZ, -1, 100000) == -EINVAL, "100000 threads are refused");
	CHECK(pack(disk, out, IMGP_FMT_ZIP, -1, 0) == -ENOTSUP, "zip output is not supported");
	CHECK_STR(imgp_errmsg(), "cannot write zip output (use xz, gzip, zstd, bzip2, lz4 or raw)",
		  "zip output: message");
	CHECK(pack(unit_path("missing"), out, IMGP_FMT_XZ, -1, 0) == -ENOENT,
	      "a missing source is -ENOENT");
}

/* The bmap without comments, blank lines and its own checksum. */
static char *bmap_body(const char *path)
{
	char *text = unit_read_file(path, NULL), *in, *out, *end;

	if (!text)
		return NULL;
	in = out = text;
	while (*in) {
		if (!strncmp(in, "<!--", 4) && (end = strstr(in, "-->"))) {
			in = end + 3;
			continue;
		}
		*out++ = *in++;
	}
	*out = '\0';
	/* Drop the checksum line and lines left blank. */
	in = out = text;
	while (*in) {
		char *nl = strchr(in, '\n');
		size_t n = nl ? (size_t)(nl - in + 1) : strlen(in);
		bool blank = strspn(in, " \t\n") >= n;

		if (!blank && !memmem(in, n, "<BmapFileChecksum>", 18)) {
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	*out = '\0';
	return text;
}

/* Our BmapFileChecksum, checked with sha256sum over the zeroed file. */
static bool bmap_sum_ok(const char *path)
{
	size_t len;
	char *text = unit_read_file(path, &len), *at, *sum = NULL;
	char want[65] = "";
	const char *argv[] = { "sha256sum", unit_path("zeroed.bmap"), NULL };
	bool ok = false;

	at = text ? strstr(text, "<BmapFileChecksum> ") : NULL;
	if (!at || strlen(at) < 19 + 64)
		goto out;
	at += 19;
	memcpy(want, at, 64);
	memset(at, '0', 64);
	if (unit_write_file(unit_path("zeroed.bmap"), text, len) ||
	    run_to(argv, unit_path("zeroed.sum")))
		goto out;
	sum = unit_read_file(unit_path("zeroed.sum"), NULL);
	ok = sum && !strncmp(sum, want, 64);
out:
	free(sum);
	free(text);
	return ok;
}

/* Our map against bmaptool create's, then flashed with it by bmaptool copy. */
static void check_bmap_one(const char *img, const char *tag)
{
	char ours[PATH_MAX], theirs[PATH_MAX], copy[PATH_MAX], name[128];
	char *a, *b;
	int rc;

	snprintf(ours, sizeof(ours), "%s.ours.bmap", img);
	snprintf(theirs, sizeof(theirs), "%s.theirs.bmap", img);
	snprintf(copy, sizeof(copy), "%s.copy", img);
	rc = imgp_bmap_write_(NULL, img, ours);
	snprintf(name, sizeof(name), "bmap of %s written", tag);
	CHECK(rc == 0, name);
	if (rc)
		printf("#   %s\n", imgp_errmsg());
	{
		const char *argv[] = { "bmaptool", "create", "-o", theirs, img, NULL };

		snprintf(name, sizeof(name), "bmaptool create %s", tag);
		CHECK(run_to(argv, unit_path("bmaptool.log")) == 0, name);
	}
	a = bmap_body(ours);
	b = bmap_body(theirs);
	snprintf(name, sizeof(name), "bmap of %s: same elements as bmaptool's", tag);
	CHECK(a && b && !strcmp(a, b), name);
	if (a && b && strcmp(a, b))
		printf("# ours:\n%s# bmaptool's:\n%s", a, b);
	free(a);
	free(b);
	snprintf(name, sizeof(name), "bmap of %s: its own checksum holds", tag);
	CHECK(bmap_sum_ok(ours), name);
	{
		const char *argv[] = { "bmaptool", "copy", "--bmap", ours, img, copy, NULL };

		snprintf(name, sizeof(name), "bmaptool copy %s with our bmap", tag);
		CHECK(run_to(argv, unit_path("bmaptool.log")) == 0 && same(img, copy), name);
	}
	unlink(copy);
}

/* bmaptool really checks: a changed byte or a changed map is refused. */
static void check_bmap_verified(void)
{
	char bmap[PATH_MAX], bad[PATH_MAX], copy[PATH_MAX];
	const char *cp[] = { "cp", "--sparse=always", disk, NULL, NULL };
	size_t len;
	char *text;

	unit_path_keep(bmap, sizeof(bmap), "disk.img.ours.bmap");
	unit_path_keep(bad, sizeof(bad), "bad.img");
	unit_path_keep(copy, sizeof(copy), "bad.copy");
	cp[3] = bad;
	CHECK(run(cp) == 0 && flip_byte(bad, 2 * MiB + 4096) == 0,
	      "fixture: image with one byte changed in a mapped block");
	{
		const char *argv[] = { "bmaptool", "copy", "--bmap", bmap, bad, copy, NULL };

		CHECK(unit_spawn(argv, NULL, NULL) != 0,
		      "bmaptool copy refuses a range whose checksum differs");
	}
	text = unit_read_file(bmap, &len);
	if (text && strstr(text, "Image size")) {
		strstr(text, "Image size")[0] = 'i';
		CHECK(unit_write_file(unit_path("edited.bmap"), text, len) == 0,
		      "fixture: bmap with one comment letter changed");
	}
	free(text);
	{
		const char *argv[] = { "bmaptool", "copy", "--bmap", unit_path("edited.bmap"),
				       disk, copy, NULL };

		CHECK(unit_spawn(argv, NULL, NULL) != 0,
		      "bmaptool copy refuses a bmap whose file checksum differs");
	}
}

static void check_bmap(void)
{
	char holes[PATH_MAX], full[PATH_MAX];
	int rc;

	check_bmap_one(kv, "the KV260 image");
	check_bmap_one(disk, "an image with a short last block");
	check_bmap_one(unit_path_keep(full, sizeof(full), "random.bin"), "a file without holes");
	unit_path_keep(holes, sizeof(holes), "holes.img");
	CHECK(make_sparse(holes, 3 * MiB) == 0, "fixture: all-hole image");
	check_bmap_one(holes, "an image of nothing but a hole");
	check_bmap_verified();

	rc = imgp_bmap_write_(NULL, unit_path("missing"), unit_path("missing.bmap"));
	CHECK(rc == -ENOENT, "bmap of a missing image is -ENOENT");
	rc = imgp_bmap_write_(NULL, disk, unit_path("nodir/x.bmap"));
	CHECK(rc == -ENOENT, "bmap into a missing directory is -ENOENT");
	CHECK(strstr(imgp_errmsg(), "cannot create") != NULL, "bmap: create failure message");
}

struct seen {
	uint64_t done, total;
	int calls;
};

static struct seen seen_unpack, seen_pack, seen_bmap;

static void on_progress(const char *what, uint64_t done, uint64_t total, void *ctx)
{
	struct seen *s = !strcmp(what, "decompressing") ? &seen_unpack :
			 !strcmp(what, "compressing") ? &seen_pack :
			 !strcmp(what, "checksumming") ? &seen_bmap : NULL;

	(void)ctx;
	if (!s)
		return;
	/* Never backwards, never past the end. */
	if (done < s->done || done > total)
		s->calls = -1000;
	s->done = done;
	s->total = total;
	s->calls++;
}

static void check_progress(void)
{
	char out[PATH_MAX];

	if (imgp_ctx_new(&progress_ctx)) {
		CHECK(0, "a context for progress");
		return;
	}
	imgp_ctx_set_progress(progress_ctx, on_progress, NULL);
	unit_path_keep(out, sizeof(out), "progress.img");
	CHECK(imgp_unpack_(progress_ctx, unit_path("disk.img.xz"), out, true) == 0, "unpack with progress");
	CHECK(seen_unpack.calls > 0 && seen_unpack.total == file_size(unit_path("disk.img.xz")) &&
	      seen_unpack.done == seen_unpack.total,
	      "decompressing: compressed bytes, ends at the input's size");
	unit_path_keep(out, sizeof(out), "progress.img.zst");
	CHECK(pack(disk, out, IMGP_FMT_ZSTD, -1, 1) == 0, "pack with progress");
	CHECK(seen_pack.calls > 0 && seen_pack.total == DISK_SIZE &&
	      seen_pack.done == DISK_SIZE, "compressing: ends at the image's size");
	unit_path_keep(out, sizeof(out), "progress.bmap");
	CHECK(imgp_bmap_write_(progress_ctx, disk, out) == 0, "bmap with progress");
	CHECK(seen_bmap.calls > 0 && seen_bmap.done == seen_bmap.total &&
	      seen_bmap.total > 0 && seen_bmap.total < DISK_SIZE,
	      "checksumming: mapped bytes only");
	imgp_ctx_free(progress_ctx);
	progress_ctx = NULL;
}

int main(void)
{
	if (unit_tmpdir_create("pack")) {
		perror("mkdtemp");
		return 1;
	}
	check_names();
	if (make_fixtures() || make_bad_inputs()) {
		CHECK(0, "fixtures: the real tools make every format");
		unit_tmpdir_remove();
		return unit_done();
	}
	CHECK(sparse(disk) && sparse(kv), "fixtures are sparse");
	check_detect();
	check_unpack();
	check_unpack_errors();
	check_pack();
	check_bmap();
	check_progress();
	unit_tmpdir_remove();
	return unit_done();
}
