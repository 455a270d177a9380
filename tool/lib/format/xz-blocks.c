// SPDX-License-Identifier: MIT
/*
 * Block-wise .xz access with liblzma (see xz-blocks.h).
 *
 * An .xz file is one or more streams (header, blocks, index, footer),
 * possibly with stream padding between them. The index of each stream lists
 * every block's unpadded and uncompressed size, so the blocks can be found
 * without decompressing anything: lzma_file_info_decoder() walks the
 * streams from the end of the file and hands back one combined index.
 *
 * A rewritten file is one stream: a stream header with the input's check
 * type, the blocks (copied, or compressed again), an index built from their
 * sizes and a footer. With nothing changed it is the input byte for byte,
 * since header, index and footer are all canonical encodings.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzma.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "core/io.h"
#include "format/xz-blocks.h"

/* Verbatim copies and reads of compressed data move this much at a time. */
#define COPY_CHUNK ((size_t)1 << 20)
#define READ_CHUNK ((size_t)64 << 10)
/* An index needs about 16 bytes per block: this is millions of blocks. */
#define INDEX_MEMLIMIT ((uint64_t)256 << 20)
#define THREADS_MAX 64u

/* Messages name blocks as "xz -lvv" numbers them: from 1, in file order. */
#define BLK_FMT "xz block %zu of %zu"
#define BLK_ARG(xz, i) (size_t)(i) + 1, (xz)->nblocks

struct xz_block {
	uint64_t coff;           /* file offset of the block header */
	uint64_t uoff;           /* uncompressed offset */
	uint64_t usize;          /* uncompressed size */
	uint64_t unpadded;       /* header + compressed data + check */
	uint64_t total;          /* unpadded plus block padding */
};

struct imgp_xz {
	int fd;
	uint64_t file_size;
	uint64_t size;           /* uncompressed, all blocks */
	lzma_check check;        /* the same in every stream */
	size_t nblocks;
	struct xz_block *blocks;
};

static const char *lzma_text(lzma_ret ret)
{
	switch (ret) {
	case LZMA_MEM_ERROR:
		return "out of memory";
	case LZMA_MEMLIMIT_ERROR:
		return "memory limit reached";
	case LZMA_FORMAT_ERROR:
		return "not in the xz format";
	case LZMA_OPTIONS_ERROR:
		return "unsupported options";
	case LZMA_DATA_ERROR:
		return "corrupt data";
	case LZMA_BUF_ERROR:
		return "data ends early";
	case LZMA_UNSUPPORTED_CHECK:
		return "unsupported check type";
	default:
		return "internal liblzma error";
	}
}

static int lzma_errno(lzma_ret ret)
{
	switch (ret) {
	case LZMA_MEM_ERROR:
		return ENOMEM;
	case LZMA_OPTIONS_ERROR:
	case LZMA_UNSUPPORTED_CHECK:
	case LZMA_MEMLIMIT_ERROR:
		return ENOTSUP;
	case LZMA_DATA_ERROR:
	case LZMA_BUF_ERROR:
		return EIO;
	default:
		return EINVAL;
	}
}

/* Reads exactly len bytes at off; a short read means the file shrank. */
static int read_at(int fd, uint64_t off, void *buf, size_t len)
{
	ssize_t n = imgp_read_all_(fd, buf, len, (off_t)off);

	if (n < 0)
		return imgp_fail((int)-n, "read error at byte %" PRIu64 ": %s",
				 off, strerror((int)-n));
	if ((size_t)n < len)
		return imgp_fail(EIO, "file ends at byte %" PRIu64
				 " (did it change while open?)", off + (uint64_t)n);
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	int rc = imgp_write_all_(fd, buf, len, -1);

	if (rc)
		return imgp_fail(-rc, "write error: %s", strerror(-rc));
	return 0;
}

/* Reads every stream's footer and index into one combined index. */
static int read_index(struct imgp_xz *xz, lzma_index **out)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	lzma_index *idx = NULL;
	uint64_t pos = 0;
	uint8_t *buf;
	lzma_ret ret;
	int rc = 0;

	/* The smallest file is a stream header and footer with an empty index. */
	if (xz->file_size < 2 * LZMA_STREAM_HEADER_SIZE + 8)
		return imgp_fail(EINVAL, "not an xz file (%" PRIu64 " bytes is too short)",
				 xz->file_size);
	buf = malloc(READ_CHUNK);
	if (!buf)
		return imgp_fail(ENOMEM, "out of memory");
	ret = lzma_file_info_decoder(&strm, &idx, INDEX_MEMLIMIT, xz->file_size);
	while (ret == LZMA_OK) {
		if (strm.avail_in == 0) {
			size_t n = READ_CHUNK;

			if (pos >= xz->file_size) {
				ret = LZMA_BUF_ERROR;
				break;
			}
			if (n > xz->file_size - pos)
				n = (size_t)(xz->file_size - pos);
			rc = read_at(xz->fd, pos, buf, n);
			if (rc)
				goto out;
			strm.next_in = buf;
			strm.avail_in = n;
			pos += n;
		}
		ret = lzma_code(&strm, LZMA_RUN);
		if (ret == LZMA_SEEK_NEEDED) {
			if (strm.seek_pos > xz->file_size) {
				ret = LZMA_DATA_ERROR;
				break;
			}
			pos = strm.seek_pos;
			strm.avail_in = 0;
			ret = LZMA_OK;
		}
	}
	switch (ret) {
	case LZMA_STREAM_END:
		break;
	case LZMA_FORMAT_ERROR:
		rc = imgp_fail(EINVAL, "not an xz file (no xz stream header)");
		break;
	case LZMA_DATA_ERROR:
	case LZMA_BUF_ERROR:
		rc = imgp_fail(EINVAL, "corrupt xz file: a stream header, index or "
			       "footer is damaged (is the file complete? "
			       "\"xz -t\" tells more)");
		break;
	case LZMA_OPTIONS_ERROR:
		rc = imgp_fail(ENOTSUP, "xz stream flags this liblzma does not know");
		break;
	case LZMA_MEMLIMIT_ERROR:
		rc = imgp_fail(ENOTSUP, "xz index needs more than %" PRIu64 " MiB",
			       INDEX_MEMLIMIT >> 20);
		break;
	default:
		rc = imgp_fail(lzma_errno(ret), "reading the xz index: %s",
			       lzma_text(ret));
		break;
	}
out:
	lzma_end(&strm);
	free(buf);
	if (rc) {
		if (idx)
			lzma_index_end(idx, NULL);
		return rc;
	}
	*out = idx;
	return 0;
}

/* Fills the block table from the index, checking it against the file. */
static int load_blocks(struct imgp_xz *xz, const lzma_index *idx)
{
	lzma_vli count = lzma_index_block_count(idx);
	uint32_t checks = lzma_index_checks(idx);
	lzma_index_iter it;
	uint64_t uoff = 0;
	size_t i = 0;

	if (count < 2)
		return imgp_fail(ENOTSUP, "the xz file has %s block (made without "
				 "\"xz -T\" or --block-size): it cannot be patched "
				 "block by block", count ? "a single" : "no");
	if (!checks || (checks & (checks - 1)))
		return imgp_fail(ENOTSUP, "the xz streams use different check types");
	xz->check = (lzma_check)__builtin_ctz(checks);
	if (!lzma_check_is_supported(xz->check))
		return imgp_fail(ENOTSUP, "xz check type %d is not supported by liblzma",
				 (int)xz->check);
	if (count > SIZE_MAX / sizeof(*xz->blocks))
		return imgp_fail(ENOTSUP, "too many xz blocks");
	xz->blocks = calloc((size_t)count, sizeof(*xz->blocks));
	if (!xz->blocks)
		return imgp_fail(ENOMEM, "out of memory");
	xz->nblocks = (size_t)count;

	lzma_index_iter_init(&it, idx);
	while (!lzma_index_iter_next(&it, LZMA_INDEX_ITER_BLOCK)) {
		struct xz_block *b;

		/* The iterator walks exactly count blocks; stay safe if not. */
		if (i >= xz->nblocks)
			return imgp_fail(EINVAL, "corrupt xz index: block count mismatch");
		b = &xz->blocks[i];
		b->coff = it.block.compressed_file_offset;
		b->uoff = it.block.uncompressed_file_offset;
		b->usize = it.block.uncompressed_size;
		b->unpadded = it.block.unpadded_size;
		b->total = it.block.total_size;
		if (b->total > xz->file_size || b->coff > xz->file_size - b->total ||
		    b->unpadded > b->total || b->uoff != uoff)
			return imgp_fail(EINVAL, BLK_FMT ": the index puts it outside "
					 "the file", BLK_ARG(xz, i));
		if (b->usize > IMGP_XZ_BLOCK_MAX)
			return imgp_fail(ENOTSUP, BLK_FMT ": %" PRIu64 " bytes is too "
					 "large to patch block by block (at most %"
					 PRIu64 " MiB)", BLK_ARG(xz, i), b->usize,
					 IMGP_XZ_BLOCK_MAX >> 20);
		uoff += b->usize;
		i++;
	}
	if (i != xz->nblocks)
		return imgp_fail(EINVAL, "corrupt xz index: block count mismatch");
	xz->size = uoff;
	return 0;
}

/*
 * Reads and decodes block i's header: its filter chain into filters (the
 * caller frees it with lzma_filters_free(filters, NULL)) and its sizes into
 * blk, both checked against the index. On failure nothing is left to free.
 */
static int read_header(const struct imgp_xz *xz, size_t i, lzma_block *blk,
		       lzma_filter *filters)
{
	const struct xz_block *b = &xz->blocks[i];
	uint8_t hdr[LZMA_BLOCK_HEADER_SIZE_MAX];
	lzma_ret ret;
	int rc;

	memset(blk, 0, sizeof(*blk));
	filters[0].id = LZMA_VLI_UNKNOWN;
	filters[0].options = NULL;
	if (b->unpadded < LZMA_BLOCK_HEADER_SIZE_MIN)
		return imgp_fail(EINVAL, BLK_FMT ": corrupt xz index (block of %"
				 PRIu64 " bytes)", BLK_ARG(xz, i), b->unpadded);
	rc = read_at(xz->fd, b->coff, hdr, 1);
	if (rc)
		return imgp_fail_ctx(rc, BLK_FMT, BLK_ARG(xz, i));
	/* 0x00 starts an index, not a block header. */
	blk->header_size = lzma_block_header_size_decode(hdr[0]);
	if (hdr[0] == 0 || blk->header_size > b->unpadded)
		return imgp_fail(EINVAL, BLK_FMT ": no block header where the index "
				 "puts one (corrupt file)", BLK_ARG(xz, i));
	rc = read_at(xz->fd, b->coff, hdr, blk->header_size);
	if (rc)
		return imgp_fail_ctx(rc, BLK_FMT, BLK_ARG(xz, i));
	blk->version = 1;
	blk->check = xz->check;
	blk->filters = filters;
	ret = lzma_block_header_decode(blk, NULL, hdr);
	if (ret == LZMA_OPTIONS_ERROR)
		return imgp_fail(ENOTSUP, BLK_FMT ": its header uses filters or "
				 "options this liblzma does not know", BLK_ARG(xz, i));
	if (ret != LZMA_OK)
		return imgp_fail(EINVAL, BLK_FMT ": corrupt block header (%s)",
				 BLK_ARG(xz, i), lzma_text(ret));
	/* Also checks a compressed size the header records. */
	ret = lzma_block_compressed_size(blk, b->unpadded);
	if (ret == LZMA_OK && blk->uncompressed_size != LZMA_VLI_UNKNOWN &&
	    blk->uncompressed_size != b->usize)
		ret = LZMA_DATA_ERROR;
	if (ret != LZMA_OK) {
		lzma_filters_free(filters, NULL);
		return imgp_fail(EINVAL, BLK_FMT ": its header and the index "
				 "disagree on its size (corrupt file)", BLK_ARG(xz, i));
	}
	/* Lets the decoder check the size too. */
	blk->uncompressed_size = b->usize;
	return 0;
}

/* True for the filters whose options imgp_xz_rewrite_() knows how to copy. */
static bool filter_known(lzma_vli id)
{
	switch (id) {
	case LZMA_FILTER_LZMA2:
	case LZMA_FILTER_DELTA:
	case LZMA_FILTER_X86:
	case LZMA_FILTER_POWERPC:
	case LZMA_FILTER_IA64:
	case LZMA_FILTER_ARM:
	case LZMA_FILTER_ARMTHUMB:
	case LZMA_FILTER_SPARC:
#ifdef LZMA_FILTER_ARM64
	case LZMA_FILTER_ARM64:
#endif
		return true;
	default:
		return false;
	}
}

/* Refuses a filter chain that could be decoded but not encoded again. */
static int check_filters(const struct imgp_xz *xz, size_t i,
			 const lzma_filter *f)
{
	size_t n;

	for (n = 0; f[n].id != LZMA_VLI_UNKNOWN; n++)
		if (!filter_known(f[n].id) ||
		    !lzma_filter_encoder_is_supported(f[n].id))
			return imgp_fail(ENOTSUP, BLK_FMT ": filter 0x%" PRIx64
					 " cannot be re-encoded", BLK_ARG(xz, i),
					 (uint64_t)f[n].id);
	/* The properties read from the data assume LZMA2 is the last filter. */
	if (n == 0 || f[n - 1].id != LZMA_FILTER_LZMA2)
		return imgp_fail(ENOTSUP, BLK_FMT ": its filter chain does not end "
				 "in LZMA2", BLK_ARG(xz, i));
	return 0;
}

/* Reads every block header once, so that corrupt ones show up at open. */
static int check_headers(const struct imgp_xz *xz)
{
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	lzma_block blk;
	int rc;

	for (size_t i = 0; i < xz->nblocks; i++) {
		rc = read_header(xz, i, &blk, filters);
		if (rc)
			return rc;
		rc = check_filters(xz, i, filters);
		lzma_filters_free(filters, NULL);
		if (rc)
			return rc;
	}
	return 0;
}

int imgp_xz_open_(struct imgp_xz **out, const char *path)
{
	struct imgp_xz *xz;
	lzma_index *idx = NULL;
	struct stat st;
	int rc;

	*out = NULL;
	xz = calloc(1, sizeof(*xz));
	if (!xz)
		return imgp_fail(ENOMEM, "out of memory");
	xz->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (xz->fd < 0) {
		int err = errno;

		free(xz);
		return imgp_fail(err, "cannot open: %s", strerror(err));
	}
	if (fstat(xz->fd, &st)) {
		int err = errno;

		rc = imgp_fail(err, "cannot stat: %s", strerror(err));
		goto fail;
	}
	/* Blocks are found by seeking: a pipe or device is streamed instead. */
	if (!S_ISREG(st.st_mode)) {
		rc = imgp_fail(ENOTSUP, "not a regular file: its xz blocks cannot "
			       "be reached one by one");
		goto fail;
	}
	xz->file_size = (uint64_t)st.st_size;
	rc = read_index(xz, &idx);
	if (rc)
		goto fail;
	rc = load_blocks(xz, idx);
	lzma_index_end(idx, NULL);
	if (!rc)
		rc = check_headers(xz);
	if (rc)
		goto fail;
	*out = xz;
	return 0;
fail:
	imgp_xz_close_(xz);
	return rc;
}

void imgp_xz_close_(struct imgp_xz *xz)
{
	if (!xz)
		return;
	if (xz->fd >= 0)
		close(xz->fd);
	free(xz->blocks);
	free(xz);
}

uint64_t imgp_xz_size_(const struct imgp_xz *xz)
{
	return xz->size;
}

size_t imgp_xz_nblocks_(const struct imgp_xz *xz)
{
	return xz->nblocks;
}

void imgp_xz_block_range_(const struct imgp_xz *xz, size_t i, uint64_t *off,
			 uint64_t *size)
{
	*off = xz->blocks[i].uoff;
	*size = xz->blocks[i].usize;
}

size_t imgp_xz_block_at_(const struct imgp_xz *xz, uint64_t off)
{
	size_t lo = 0, hi = xz->nblocks;

	/* The last block starting at or before off. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (xz->blocks[mid].uoff <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * LZMA2 never refers further back than the block's own output, so a
 * dictionary larger than the block only costs memory (a header may ask for
 * up to 4 GiB). Applies to the encoder and decoder options, not the header.
 */
static uint32_t dict_for(uint32_t dict, uint64_t usize)
{
	if (usize < dict)
		dict = (uint32_t)usize;
	return dict < LZMA_DICT_SIZE_MIN ? LZMA_DICT_SIZE_MIN : dict;
}

int imgp_xz_decode_block_(struct imgp_xz *xz, size_t i, void *buf)
{
	const struct xz_block *b = &xz->blocks[i];
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	lzma_stream strm = LZMA_STREAM_INIT;
	uint64_t pos, end;
	uint8_t *in = NULL;
	lzma_block blk;
	lzma_ret ret;
	int rc;

	rc = read_header(xz, i, &blk, filters);
	if (rc)
		return rc;
	for (size_t k = 0; filters[k].id != LZMA_VLI_UNKNOWN; k++)
		if (filters[k].id == LZMA_FILTER_LZMA2) {
			lzma_options_lzma *o = filters[k].options;

			o->dict_size = dict_for(o->dict_size, b->usize);
		}
	in = malloc(READ_CHUNK);
	if (!in) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	ret = lzma_block_decoder(&strm, &blk);
	if (ret != LZMA_OK) {
		rc = imgp_fail(lzma_errno(ret), BLK_FMT ": %s", BLK_ARG(xz, i),
			       lzma_text(ret));
		goto out;
	}
	strm.next_out = buf;
	strm.avail_out = (size_t)b->usize;
	pos = b->coff + blk.header_size;
	end = b->coff + b->total;
	do {
		if (strm.avail_in == 0 && pos < end) {
			size_t n = end - pos < READ_CHUNK ? (size_t)(end - pos) : READ_CHUNK;

			rc = read_at(xz->fd, pos, in, n);
			if (rc) {
				rc = imgp_fail_ctx(rc, BLK_FMT, BLK_ARG(xz, i));
				goto out;
			}
			strm.next_in = in;
			strm.avail_in = n;
			pos += n;
		}
		/* Without LZMA_FINISH a cut-off block would wait for more input. */
		ret = lzma_code(&strm, pos < end ? LZMA_RUN : LZMA_FINISH);
	} while (ret == LZMA_OK);
	if (ret != LZMA_STREAM_END || strm.total_out != b->usize ||
	    strm.avail_in != 0 || pos != end) {
		if (ret == LZMA_STREAM_END || ret == LZMA_DATA_ERROR ||
		    ret == LZMA_BUF_ERROR)
			rc = imgp_fail(EIO, BLK_FMT ": corrupt data (bad LZMA2 data "
				       "or check mismatch; \"xz -t\" tells more)",
				       BLK_ARG(xz, i));
		else
			rc = imgp_fail(lzma_errno(ret), BLK_FMT ": %s",
				       BLK_ARG(xz, i), lzma_text(ret));
	}
out:
	lzma_end(&strm);
	free(in);
	lzma_filters_free(filters, NULL);
	return rc;
}

/* ---------------------------------------------------------------- rewrite */

/* One changed block on its way through a worker thread. */
struct job {
	uint64_t usize;
	lzma_check check;
	/* The chain to compress with, and the one its header records. */
	lzma_filter enc[LZMA_FILTERS_MAX + 1];
	lzma_filter hdr[LZMA_FILTERS_MAX + 1];
	union {
		lzma_options_lzma lzma;
		lzma_options_delta delta;
		lzma_options_bcj bcj;
	} opts[LZMA_FILTERS_MAX];
	lzma_options_lzma hdr_lzma;
	uint8_t *ubuf;           /* the new content */
	uint8_t *cbuf;           /* header room, then the compressed block */
	size_t ccap;
	const uint8_t *out;      /* the finished block inside cbuf */
	size_t out_len;
	lzma_vli unpadded;
	pthread_t tid;
	bool threaded;
	int rc;
	char msg[512];
};

/*
 * The header records the dictionary size but not the preset: take the
 * preset that has that dictionary (-6 for 8 MiB, xz's default; -4 rather
 * than -3 and -6 rather than -5, which share theirs).
 */
static uint32_t preset_for(uint32_t dict)
{
	static const struct {
		uint32_t dict;
		uint32_t preset;
	} presets[] = {
		{ 256u << 10, 0 }, { 1u << 20, 1 }, { 2u << 20, 2 },
		{ 4u << 20, 4 }, { 8u << 20, 6 }, { 16u << 20, 7 },
		{ 32u << 20, 8 },
	};

	for (size_t k = 0; k < sizeof(presets) / sizeof(presets[0]); k++)
		if (dict <= presets[k].dict)
			return presets[k].preset;
	return 9;
}

/*
 * lc/lp/pb are not in the block header but in the first LZMA chunk of the
 * LZMA2 data. Walks the chunk headers from the start of block i's data;
 * leaves the values alone when the block holds only uncompressed chunks.
 */
static int lzma2_props(const struct imgp_xz *xz, size_t i, uint64_t pos,
		       uint64_t end, lzma_options_lzma *o)
{
	while (pos < end) {
		uint8_t c[6];
		size_t want = end - pos < sizeof(c) ? (size_t)(end - pos) : sizeof(c);
		unsigned p;
		int rc = read_at(xz->fd, pos, c, want);

		if (rc)
			return imgp_fail_ctx(rc, BLK_FMT, BLK_ARG(xz, i));
		if (c[0] == 0x00)
			return 0;
		if ((c[0] == 0x01 || c[0] == 0x02) && want >= 3) {
			/* Uncompressed chunk: 16-bit big-endian size - 1. */
			pos += 3 + (((uint64_t)c[1] << 8) | c[2]) + 1;
			continue;
		}
		/* The first LZMA chunk resets the state and sets the properties. */
		if (c[0] < 0xc0 || want < 6 || c[5] >= 9 * 5 * 5)
			break;
		p = c[5];
		o->lc = p % 9;
		p /= 9;
		o->lp = p % 5;
		o->pb = p / 5;
		return 0;
	}
	return imgp_fail(EIO, BLK_FMT ": corrupt LZMA2 data", BLK_ARG(xz, i));
}

/* Builds the job's filter chains from block i's header and data. */
static int job_filters(const struct imgp_xz *xz, struct job *j, size_t i)
{
	const struct xz_block *b = &xz->blocks[i];
	lzma_filter dec[LZMA_FILTERS_MAX + 1];
	lzma_block blk;
	size_t k;
	int rc;

	rc = read_header(xz, i, &blk, dec);
	if (rc)
		return rc;
	rc = check_filters(xz, i, dec);
	for (k = 0; !rc && dec[k].id != LZMA_VLI_UNKNOWN; k++) {
		j->enc[k].id = j->hdr[k].id = dec[k].id;
		j->enc[k].options = j->hdr[k].options = &j->opts[k];
		/* Copied field by field: the decoded options are partly unset. */
		if (dec[k].id == LZMA_FILTER_LZMA2) {
			const lzma_options_lzma *o = dec[k].options;
			lzma_options_lzma *e = &j->opts[k].lzma;

			if (lzma_lzma_preset(e, preset_for(o->dict_size))) {
				rc = imgp_fail(EINVAL, "bad xz preset");
				break;
			}
			rc = lzma2_props(xz, i, b->coff + blk.header_size,
					 b->coff + blk.header_size + blk.compressed_size, e);
			j->hdr_lzma = *e;
			j->hdr_lzma.dict_size = o->dict_size;
			j->hdr[k].options = &j->hdr_lzma;
			e->dict_size = dict_for(o->dict_size, b->usize);
		} else if (dec[k].id == LZMA_FILTER_DELTA) {
			const lzma_options_delta *o = dec[k].options;

			j->opts[k].delta.type = o->type;
			j->opts[k].delta.dist = o->dist;
		} else if (dec[k].options) {
			const lzma_options_bcj *o = dec[k].options;

			j->opts[k].bcj.start_offset = o->start_offset;
		} else {
			/* A BCJ filter with the default start offset. */
			j->enc[k].options = j->hdr[k].options = NULL;
		}
	}
	j->enc[k].id = j->hdr[k].id = LZMA_VLI_UNKNOWN;
	j->enc[k].options = j->hdr[k].options = NULL;
	lzma_filters_free(dec, NULL);
	return rc;
}

/* Compresses j->ubuf into j->cbuf with the block header in front. */
static int job_encode(struct job *j)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	lzma_block blk = {
		.version = 1,
		.check = j->check,
		.filters = j->enc,
		.compressed_size = LZMA_VLI_UNKNOWN,
		.uncompressed_size = LZMA_VLI_UNKNOWN,
	};
	const size_t room = LZMA_BLOCK_HEADER_SIZE_MAX;
	lzma_ret ret;
	int rc = 0;

	ret = lzma_block_encoder(&strm, &blk);
	if (ret != LZMA_OK)
		return imgp_fail(lzma_errno(ret), "cannot compress: %s",
				 lzma_text(ret));
	strm.next_in = j->ubuf;
	strm.avail_in = (size_t)j->usize;
	strm.next_out = j->cbuf + room;
	strm.avail_out = j->ccap - room;
	for (;;) {
		ret = lzma_code(&strm, LZMA_FINISH);
		if (ret != LZMA_OK || strm.avail_out)
			break;
		/* More than the bound: grow rather than trust it. */
		size_t used = j->ccap - room;
		size_t cap = j->ccap + j->ccap / 8 + READ_CHUNK;
		uint8_t *p = realloc(j->cbuf, cap);

		if (!p) {
			ret = LZMA_MEM_ERROR;
			break;
		}
		j->cbuf = p;
		j->ccap = cap;
		strm.next_out = p + room + used;
		strm.avail_out = cap - room - used;
	}
	if (ret != LZMA_STREAM_END) {
		rc = imgp_fail(lzma_errno(ret), "cannot compress: %s", lzma_text(ret));
		goto out;
	}
	/* Both sizes are known now, so the header records them (as xz -T). */
	blk.filters = j->hdr;
	ret = lzma_block_header_size(&blk);
	if (ret == LZMA_OK)
		ret = lzma_block_header_encode(&blk, j->cbuf + room - blk.header_size);
	if (ret != LZMA_OK) {
		rc = imgp_fail(lzma_errno(ret), "cannot write the block header: %s",
			       lzma_text(ret));
		goto out;
	}
	j->out = j->cbuf + room - blk.header_size;
	j->out_len = blk.header_size + (size_t)strm.total_out;
	j->unpadded = lzma_block_unpadded_size(&blk);
	if (j->unpadded == 0 || j->out_len != lzma_block_total_size(&blk))
		rc = imgp_fail(EINVAL, "compressed block of unexpected size");
out:
	lzma_end(&strm);
	return rc;
}

static void *job_run(void *arg)
{
	struct job *j = arg;

	imgp_errclear_();
	j->rc = job_encode(j);
	/* The message is thread-local: carry it back to the writing thread. */
	if (j->rc)
		snprintf(j->msg, sizeof(j->msg), "%s", imgp_errmsg());
	return NULL;
}

static void job_free(struct job *j)
{
	free(j->ubuf);
	free(j->cbuf);
	j->ubuf = j->cbuf = NULL;
}

static void job_wait(struct job *j)
{
	if (j->threaded)
		pthread_join(j->tid, NULL);
	j->threaded = false;
}

/* Sets up a job for block i, has fill() write its content, starts it. */
static int job_start(struct imgp_xz *xz, struct job *j, size_t i,
		     int (*fill)(void *ctx, size_t block, void *buf), void *ctx)
{
	const struct xz_block *b = &xz->blocks[i];
	int rc;

	memset(j, 0, sizeof(*j));
	j->usize = b->usize;
	j->check = xz->check;
	rc = job_filters(xz, j, i);
	if (rc)
		return rc;
	/* Usually enough: LZMA2 falls back to stored chunks (3 bytes per 64 KiB). */
	j->ccap = LZMA_BLOCK_HEADER_SIZE_MAX + (size_t)b->usize +
		  (size_t)b->usize / 1024 + READ_CHUNK;
	j->ubuf = malloc(b->usize ? (size_t)b->usize : 1);
	j->cbuf = malloc(j->ccap);
	if (!j->ubuf || !j->cbuf) {
		job_free(j);
		return imgp_fail(ENOMEM, "out of memory");
	}
	rc = fill(ctx, i, j->ubuf);
	if (rc) {
		job_free(j);
		return rc;
	}
	if (pthread_create(&j->tid, NULL, job_run, j) == 0)
		j->threaded = true;
	else
		job_run(j); /* no thread to be had: compress right here */
	return 0;
}

static int copy_block(const struct imgp_xz *xz, size_t i, int fd, uint8_t *buf)
{
	const struct xz_block *b = &xz->blocks[i];
	uint64_t pos = b->coff, end = b->coff + b->total;
	int rc;

	while (pos < end) {
		size_t n = end - pos < COPY_CHUNK ? (size_t)(end - pos) : COPY_CHUNK;

		rc = read_at(xz->fd, pos, buf, n);
		if (rc)
			return imgp_fail_ctx(rc, BLK_FMT, BLK_ARG(xz, i));
		rc = write_all(fd, buf, n);
		if (rc)
			return rc;
		pos += n;
	}
	return 0;
}

/* Index and footer of the new stream. */
static int write_tail(const struct imgp_xz *xz, int fd, const lzma_index *idx)
{
	lzma_stream_flags sf = { .version = 0, .check = xz->check };
	uint8_t footer[LZMA_STREAM_HEADER_SIZE];
	lzma_vli size = lzma_index_size(idx);
	size_t pos = 0;
	uint8_t *buf;
	lzma_ret ret;
	int rc;

	if (size > SIZE_MAX)
		return imgp_fail(ENOMEM, "xz index too large");
	buf = malloc((size_t)size);
	if (!buf)
		return imgp_fail(ENOMEM, "out of memory");
	ret = lzma_index_buffer_encode(idx, buf, &pos, (size_t)size);
	sf.backward_size = size;
	if (ret == LZMA_OK)
		ret = lzma_stream_footer_encode(&sf, footer);
	if (ret != LZMA_OK) {
		free(buf);
		return imgp_fail(lzma_errno(ret), "cannot write the xz index: %s",
				 lzma_text(ret));
	}
	rc = write_all(fd, buf, pos);
	free(buf);
	if (!rc)
		rc = write_all(fd, footer, sizeof(footer));
	return rc;
}

int imgp_xz_rewrite_(struct imgp_xz *xz, int fd, const bool *changed,
		    int (*fill)(void *ctx, size_t block, void *buf), void *ctx,
		    unsigned threads, struct imgp_ctx *run)
{
	lzma_stream_flags sf = { .version = 0, .check = xz->check };
	uint8_t header[LZMA_STREAM_HEADER_SIZE];
	size_t nslots, head = 0, busy = 0, next = 0;
	struct job *jobs = NULL;
	uint8_t *copybuf = NULL;
	lzma_index *idx = NULL;
	lzma_ret ret;
	int rc = 0;

	for (size_t i = 0; changed && !fill && i < xz->nblocks; i++)
		if (changed[i])
			return imgp_fail(EINVAL, "changed xz blocks but no way to fill them");
	if (!threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		threads = n > 0 ? (unsigned)(n < THREADS_MAX ? n : THREADS_MAX) : 1;
	}
	nslots = threads < THREADS_MAX ? threads : THREADS_MAX;
	jobs = calloc(nslots, sizeof(*jobs));
	copybuf = malloc(COPY_CHUNK);
	idx = lzma_index_init(NULL);
	if (!jobs || !copybuf || !idx) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	ret = lzma_stream_header_encode(&sf, header);
	if (ret != LZMA_OK) {
		rc = imgp_fail(EINVAL, "cannot write the xz stream header: %s",
			       lzma_text(ret));
		goto out;
	}
	rc = write_all(fd, header, sizeof(header));
	if (rc)
		goto out;

	/*
	 * Blocks are written in order. Changed blocks ahead of the one being
	 * written are filled and handed to the workers while slots are free,
	 * so compression overlaps the copying of unchanged blocks.
	 */
	for (size_t w = 0; w < xz->nblocks; w++) {
		const struct xz_block *b = &xz->blocks[w];
		lzma_vli unpadded;

		for (; next < xz->nblocks && busy < nslots; next++) {
			if (!changed || !changed[next])
				continue;
			rc = job_start(xz, &jobs[(head + busy) % nslots], next,
				       fill, ctx);
			if (rc)
				goto out;
			busy++;
		}
		if (changed && changed[w]) {
			struct job *j = &jobs[head];

			job_wait(j);
			if (j->rc)
				rc = imgp_fail(-j->rc, BLK_FMT ": %s", BLK_ARG(xz, w),
					       j->msg);
			else
				rc = write_all(fd, j->out, j->out_len);
			unpadded = j->unpadded;
			job_free(j);
			head = (head + 1) % nslots;
			busy--;
		} else {
			rc = copy_block(xz, w, fd, copybuf);
			unpadded = b->unpadded;
		}
		if (rc)
			goto out;
		ret = lzma_index_append(idx, NULL, unpadded, b->usize);
		if (ret != LZMA_OK) {
			rc = imgp_fail(lzma_errno(ret), "cannot add to the xz index: %s",
				       lzma_text(ret));
			goto out;
		}
		rc = imgp_progress_(run, "compressing", b->uoff + b->usize, xz->size);
		if (rc)
			goto out;
	}
	rc = write_tail(xz, fd, idx);
out:
	/* After a failure, workers still running must finish before their memory goes. */
	while (jobs && busy) {
		job_wait(&jobs[head]);
		job_free(&jobs[head]);
		head = (head + 1) % nslots;
		busy--;
	}
	if (idx)
		lzma_index_end(idx, NULL);
	free(copybuf);
	free(jobs);
	return rc;
}
