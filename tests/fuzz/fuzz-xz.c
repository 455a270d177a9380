// SPDX-License-Identifier: MIT
/*
 * Fuzzes the block-wise .xz reader and writer (xz-blocks.c): the input is
 * an .xz file, the first thing a downloaded image reaches. It is opened
 * (stream footers, indexes, block headers), every block of a bounded size
 * decoded, and a rewrite with every other block re-encoded must give a
 * file that opens again with the same block table.
 */
#include "core/core.h"
#include "format/xz-blocks.h"
#include "fuzz.h"

/* Blocks the harness decodes and re-encodes: real ones are 24 MiB, fuzzed small. */
#define FUZZ_XZ_BLOCK_MAX ((uint64_t)1 << 20)

struct fill_ctx {
	struct imgp_xz *xz;
};

/* A changed block's new content: its old content with one byte flipped. */
static int fuzz_fill(void *ctx, size_t block, void *buf)
{
	struct fill_ctx *f = ctx;
	uint64_t off, size;
	int rc;

	imgp_xz_block_range_(f->xz, block, &off, &size);
	rc = imgp_xz_decode_block_(f->xz, block, buf);
	if (!rc && size)
		((uint8_t *)buf)[size / 2] ^= 0x5a;
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_memfile in, out;
	struct imgp_xz *xz = NULL, *again = NULL;
	struct fill_ctx f;
	bool *changed = NULL;
	uint8_t *buf = NULL;
	size_t n;

	if (fuzz_memfile_set(&in, "fuzz-xz", data, size))
		return 0;
	if (imgp_xz_open_(&xz, in.path))
		goto done;
	n = imgp_xz_nblocks_(xz);
	changed = calloc(n ? n : 1, sizeof(*changed));
	if (!changed)
		goto done;
	for (size_t i = 0; i < n; i++) {
		uint64_t off, bsize;

		imgp_xz_block_range_(xz, i, &off, &bsize);
		if (bsize > FUZZ_XZ_BLOCK_MAX)
			goto done;
		if (imgp_xz_block_at_(xz, off + (bsize ? bsize - 1 : 0)) != i && bsize)
			abort();
		buf = realloc(buf, bsize ? bsize : 1);
		if (!buf)
			goto done;
		/* A block that does not decode cannot be re-encoded either. */
		changed[i] = imgp_xz_decode_block_(xz, i, buf) == 0 && i % 2 == 0;
	}
	f.xz = xz;
	if (fuzz_memfile_set(&out, "fuzz-xz-out", NULL, 0) == 0 &&
	    imgp_xz_rewrite_(xz, out.fd, changed, fuzz_fill, &f, 1, NULL) == 0) {
		/* What we wrote must read back with the same block table. */
		if (imgp_xz_open_(&again, out.path) == 0) {
			if (imgp_xz_nblocks_(again) != n || imgp_xz_size_(again) != imgp_xz_size_(xz))
				abort();
			imgp_xz_close_(again);
		} else if (n >= 2) {
			abort();
		}
	}
done:
	imgp_errclear_();
	free(buf);
	free(changed);
	imgp_xz_close_(xz);
	return 0;
}
