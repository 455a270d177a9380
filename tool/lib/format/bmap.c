// SPDX-License-Identifier: MIT
/*
 * Block maps for bmaptool (format 2.0): which 4 KiB blocks of a sparse raw
 * image hold data (its holes say which do not; an image unpacked from a
 * stream has none, and is mapped from its filesystems instead), with a
 * SHA256 per range of blocks and one of the map itself, so that flashing
 * writes only those blocks and checks them.
 * Element for element as "bmaptool create" writes it; only the comments are
 * worded differently.
 */
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "format/format.h"
#include "core/io.h"

#define BMAP_BLOCK 4096
#define HASH_CHUNK ((size_t)1 << 20)
#define HEX_LEN (2 * SHA256_DIGEST_SIZE)

/* Blocks first..last, both included. */
struct range {
	uint64_t first, last;
};

/* Adds [start, end) bytes, widened to whole blocks, merging with the last range. */
static int add_range(struct imgp_buf *ranges, uint64_t start, uint64_t end,
		     uint64_t blocks)
{
	struct range r;
	size_t n = ranges->len / sizeof(r);

	if (end <= start)
		return 0;
	r.first = start / BMAP_BLOCK;
	r.last = (end + BMAP_BLOCK - 1) / BMAP_BLOCK - 1;
	if (r.last >= blocks)
		r.last = blocks - 1;
	if (n) {
		struct range *prev = (struct range *)ranges->data + n - 1;

		/* Two pieces of data in one block, or in blocks side by side. */
		if (r.first <= prev->last + 1) {
			if (r.last > prev->last)
				prev->last = r.last;
			return 0;
		}
	}
	return imgp_buf_append(ranges, &r, sizeof(r)) ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/* The mapped ranges from SEEK_DATA/SEEK_HOLE; all of it where they do not work. */
static int map_ranges(const struct imgp_image *img, uint64_t blocks,
		      struct imgp_buf *ranges)
{
	uint64_t off = 0;

	while (off < img->size) {
		off_t data = lseek(img->fd, (off_t)off, SEEK_DATA);
		off_t hole;

		if (data < 0 && errno == ENXIO)
			break;
		if (data < 0)
			return add_range(ranges, off, img->size, blocks);
		if ((uint64_t)data >= img->size)
			break;
		hole = lseek(img->fd, data, SEEK_HOLE);
		if (hole <= data || (uint64_t)hole > img->size)
			hole = (off_t)img->size;
		if (add_range(ranges, (uint64_t)data, (uint64_t)hole, blocks))
			return -ENOMEM;
		off = (uint64_t)hole;
	}
	return 0;
}

/*
 * The mapped ranges from the filesystems (imgp_fsmap_build): for an image
 * unpacked from a stream, which has no holes to tell the unused blocks by.
 */
static int map_ranges_fs(const struct imgp_image *img, uint64_t blocks,
			 struct imgp_buf *ranges)
{
	struct imgp_fsmap *map;
	int rc = imgp_fsmap_build(img->ctx, img->path, &map);

	for (size_t i = 0; !rc && i < map->n; i++)
		rc = add_range(ranges, map->r[i].start, map->r[i].end, blocks);
	imgp_fsmap_free(map);
	return rc;
}

static void to_hex(const uint8_t *digest, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[HEX_LEN] = '\0';
}

/* SHA256 of the range's bytes; the last block may be short. */
static int hash_range(const struct imgp_image *img, const struct range *r,
		      uint8_t *buf, uint64_t *done, uint64_t total, char *hex)
{
	uint64_t off = r->first * BMAP_BLOCK, end = (r->last + 1) * BMAP_BLOCK;
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;

	if (end > img->size)
		end = img->size;
	sha256_init(&ctx);
	while (off < end) {
		size_t n = end - off < HASH_CHUNK ? (size_t)(end - off) : HASH_CHUNK;
		int rc = imgp_image_read_(img, off, buf, n);

		if (rc)
			return imgp_fail_ctx(rc, "%s", img->path);
		sha256_update(&ctx, n, buf);
		off += n;
		*done += n;
		rc = imgp_progress_(img->ctx, "checksumming", *done, total);
		if (rc)
			return rc;
	}
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
	to_hex(digest, hex);
	return 0;
}

/* "114.0 MiB", for the comments. */
static void human_size(uint64_t bytes, char *out, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 512) {
		snprintf(out, len, "%llu byte%s", (unsigned long long)bytes,
			 bytes == 1 ? "" : "s");
		return;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(out, len, "%.1f %s", v, units[u]);
}

static int digits(uint64_t n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err = 0;

	if (fd < 0) {
		err = errno;
		return imgp_fail(err, "%s: cannot create: %s", path, strerror(err));
	}
	err = -imgp_write_all_(fd, data, len, -1);
	if (!err && fsync(fd) < 0)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	return err ? imgp_fail(err, "%s: write error: %s", path, strerror(err)) : 0;
}

/* The map text with its own checksum all zeroes; *sum_at is where it goes. */
static int bmap_text(const struct imgp_image *img, uint64_t blocks,
		     uint64_t mapped, const struct imgp_buf *lines,
		     struct imgp_buf *out, size_t *sum_at)
{
	char size_h[32], mapped_h[32];
	int rc;

	human_size(img->size, size_h, sizeof(size_h));
	human_size(mapped * BMAP_BLOCK, mapped_h, sizeof(mapped_h));
	rc = imgp_buf_printf(out,
		"<?xml version=\"1.0\" ?>\n"
		"<!-- A block map (bmaptool format 2.0) of a disk image: the blocks\n"
		"     that hold data, as ranges of block numbers. Only these have to\n"
		"     be written when the image is flashed. Each range carries the\n"
		"     SHA256 of its bytes, and the file carries its own, so that a\n"
		"     copy can be checked against both. -->\n"
		"\n"
		"<bmap version=\"2.0\">\n"
		"    <!-- Image size: %s -->\n"
		"    <ImageSize> %llu </ImageSize>\n"
		"\n"
		"    <!-- Bytes per block -->\n"
		"    <BlockSize> %u </BlockSize>\n"
		"\n"
		"    <!-- Blocks in the image, the last one possibly short -->\n"
		"    <BlocksCount> %llu </BlocksCount>\n"
		"\n"
		"    <!-- Blocks with data: %s, %.1f%% of the image -->\n"
		"    <MappedBlocksCount> %-*llu </MappedBlocksCount>\n"
		"\n"
		"    <!-- Hash of the ranges and of this file -->\n"
		"    <ChecksumType> sha256 </ChecksumType>\n"
		"\n"
		"    <!-- SHA256 of this file as it reads with the value below all\n"
		"         zeroes (ASCII \"0\") -->\n"
		"    <BmapFileChecksum> ",
		size_h, (unsigned long long)img->size, BMAP_BLOCK,
		(unsigned long long)blocks, mapped_h,
		(double)mapped * 100.0 / (double)blocks, digits(blocks),
		(unsigned long long)mapped);
	*sum_at = out->len;
	if (!rc)
		rc = imgp_buf_printf(out, "%0*d", HEX_LEN, 0);
	if (!rc)
		rc = imgp_buf_printf(out,
			" </BmapFileChecksum>\n"
			"\n"
			"    <!-- Ranges of blocks with data, \"first-last\" or one block\n"
			"         number, each with the SHA256 of its bytes -->\n"
			"    <BlockMap>\n");
	if (!rc)
		rc = imgp_buf_append(out, lines->data, lines->len);
	if (!rc)
		rc = imgp_buf_printf(out, "    </BlockMap>\n</bmap>\n");
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

static int bmap_write(struct imgp_ctx *run, const char *path, const char *bmap_path,
		      bool by_fs)
{
	struct imgp_buf ranges = { 0 }, lines = { 0 }, text = { 0 };
	uint8_t digest[SHA256_DIGEST_SIZE];
	uint64_t blocks, mapped = 0, total = 0, done = 0;
	struct imgp_image img;
	struct sha256_ctx ctx;
	char hex[HEX_LEN + 1];
	uint8_t *buf = NULL;
	size_t n, sum_at;
	int rc;

	rc = imgp_image_open_(&img, path, false);
	if (rc)
		return imgp_fail_ctx(rc, "%s", path);
	img.ctx = run;
	blocks = (img.size + BMAP_BLOCK - 1) / BMAP_BLOCK;
	rc = by_fs ? map_ranges_fs(&img, blocks, &ranges) : map_ranges(&img, blocks, &ranges);
	if (rc)
		goto out;
	n = ranges.len / sizeof(struct range);
	for (size_t i = 0; i < n; i++) {
		const struct range *r = (const struct range *)ranges.data + i;
		uint64_t end = (r->last + 1) * BMAP_BLOCK;

		mapped += r->last - r->first + 1;
		total += (end < img.size ? end : img.size) - r->first * BMAP_BLOCK;
	}
	buf = malloc(HASH_CHUNK);
	if (!buf) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct range *r = (const struct range *)ranges.data + i;

		rc = hash_range(&img, r, buf, &done, total, hex);
		if (rc)
			goto out;
		if (r->first == r->last)
			rc = imgp_buf_printf(&lines, "        <Range chksum=\"%s\"> %llu </Range>\n",
					     hex, (unsigned long long)r->first);
		else
			rc = imgp_buf_printf(&lines, "        <Range chksum=\"%s\"> %llu-%llu </Range>\n",
					     hex, (unsigned long long)r->first,
					     (unsigned long long)r->last);
		if (rc) {
			rc = imgp_fail(ENOMEM, "out of memory");
			goto out;
		}
	}
	rc = bmap_text(&img, blocks, mapped, &lines, &text, &sum_at);
	if (rc)
		goto out;
	sha256_init(&ctx);
	sha256_update(&ctx, text.len, text.data);
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
	to_hex(digest, hex);
	memcpy(text.data + sum_at, hex, HEX_LEN);
	rc = write_file(bmap_path, text.data, text.len);
out:
	free(buf);
	imgp_buf_free(&text);
	imgp_buf_free(&lines);
	imgp_buf_free(&ranges);
	imgp_image_close_(&img);
	return rc;
}

int imgp_bmap_write_(struct imgp_ctx *ctx, const char *path, const char *bmap_path)
{
	return bmap_write(ctx, path, bmap_path, false);
}

int imgp_bmap_write_fs_(struct imgp_ctx *ctx, const char *path, const char *bmap_path)
{
	return bmap_write(ctx, path, bmap_path, true);
}
