// SPDX-License-Identifier: MIT
/*
 * Fuzzes the block-wise .xz reader and writer (xz-blocks.c): the input is
 * an .xz file, the first thing a downloaded image reaches. It is opened
 * (stream footers, indexes, block headers), every block of a bounded size
 * decoded, and a rewrite with every other block re-encoded must give a
 * file that opens again with the same block table.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "imgpatch-internal.h"
#include "format/xz-blocks.h"
#include "fuzz.h"

/* Blocks the harness decodes and re-encodes: real ones are 24 MiB, fuzzed small. */
#define FUZZ_XZ_BLOCK_MAX ((uint64_t)1 << 20)

static int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz-xz", 0);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

struct fill_ctx {
	struct imgp_xz *xz;
};

/* A changed block's new content: its old content with one byte flipped. */
static int fuzz_fill(void *ctx, size_t block, void *buf)
{
	struct fill_ctx *f = ctx;
	uint64_t off, size;
	int rc;

	imgp_xz_block_range(f->xz, block, &off, &size);
	rc = imgp_xz_decode_block(f->xz, block, buf);
	if (!rc && size)
		((uint8_t *)buf)[size / 2] ^= 0x5a;
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imgp_xz *xz = NULL, *again = NULL;
	struct fill_ctx f;
	char path[64], out_path[64];
	bool *changed = NULL;
	uint8_t *buf = NULL;
	int in, out = -1;
	size_t n;

	in = fuzz_memfd(data, size, path, sizeof(path));
	if (in < 0)
		return 0;
	if (imgp_xz_open(&xz, path))
		goto done;
	n = imgp_xz_nblocks(xz);
	changed = calloc(n ? n : 1, sizeof(*changed));
	if (!changed)
		goto done;
	for (size_t i = 0; i < n; i++) {
		uint64_t off, bsize;

		imgp_xz_block_range(xz, i, &off, &bsize);
		if (bsize > FUZZ_XZ_BLOCK_MAX)
			goto done;
		if (imgp_xz_block_at(xz, off + (bsize ? bsize - 1 : 0)) != i && bsize)
			abort();
		buf = realloc(buf, bsize ? bsize : 1);
		if (!buf)
			goto done;
		/* A block that does not decode cannot be re-encoded either. */
		changed[i] = imgp_xz_decode_block(xz, i, buf) == 0 && i % 2 == 0;
	}
	out = fuzz_memfd(NULL, 0, out_path, sizeof(out_path));
	f.xz = xz;
	if (out >= 0 && imgp_xz_rewrite(xz, out, changed, fuzz_fill, &f, 1) == 0) {
		/* What we wrote must read back with the same block table. */
		if (imgp_xz_open(&again, out_path) == 0) {
			if (imgp_xz_nblocks(again) != n || imgp_xz_size(again) != imgp_xz_size(xz))
				abort();
			imgp_xz_close(again);
		} else if (n >= 2) {
			abort();
		}
	}
done:
	imgp_errclear();
	free(buf);
	free(changed);
	imgp_xz_close(xz);
	if (out >= 0)
		close(out);
	close(in);
	return 0;
}
