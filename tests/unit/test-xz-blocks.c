// SPDX-License-Identifier: MIT
/*
 * Block-wise .xz access: the real xz makes multi-block files (check types,
 * presets, BCJ and delta filters, two streams with padding between them);
 * the block table is compared with "xz --robot -lvv", every block decodes
 * to its slice of the data, and rewritten files are checked with "xz -t",
 * "xz -dc" and "xz -lvv": unchanged blocks byte for byte, changed ones with
 * the same filters and LZMA2 properties. Corrupt files give errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "unit.h"
#include "format/xz-blocks.h"

#define KiB ((size_t)1024)
#define MiB (1024 * KiB)
/* Random, zeros, text and a mix of them; not a multiple of any block size. */
#define DATA_SIZE (2 * MiB + 1234)
/* Where the two-stream file's first stream ends. */
#define SPLIT (900 * KiB)
#define TEXT_START (1 * MiB)
#define TEXT_END (1664 * KiB)
/* Each fixture's block holding this starts with zeros or text. */
#define TEXT_AT (1324 * KiB)
#define NO_BLOCK ((size_t)-1)

static uint8_t *data;

/* One block as "xz --robot -lvv" shows it. */
struct xzl_block {
	uint64_t coff, uoff, total, usize;
	unsigned header_size;
	char sizes[4];           /* "cu" when the header records both sizes */
	char filters[96];
};

struct xzl {
	size_t nstreams, nblocks;
	uint64_t size;
	char check[16];
	struct xzl_block *b;
};

struct fixture {
	const char *name;
	const char *args[6];     /* xz options, NULL-terminated */
	unsigned threads;        /* for imgp_xz_rewrite_ */
	bool two_streams;
};

/* Presets below the default keep the test fast and try each dictionary size. */
static const struct fixture fixtures[] = {
	{ "crc64.xz", { "-T2", "--block-size=1MiB" }, 2, false },
	{ "sha256.xz", { "-T2", "-0", "--block-size=512KiB", "--check=sha256" }, 0, false },
	{ "crc32.xz", { "-T2", "-1", "--block-size=384KiB", "--check=crc32" }, 1, false },
	{ "none.xz", { "-T2", "-3", "--block-size=1MiB", "--check=none" }, 3, false },
	{ "e9.xz", { "-T2", "-e", "-9", "--block-size=256KiB" }, 2, false },
	{ "x86.xz", { "-T2", "--block-size=512KiB", "--x86",
		      "--lzma2=preset=1,lc=1,lp=3,pb=0" }, 2, false },
	{ "delta.xz", { "-T2", "--block-size=768KiB", "--delta=dist=4",
			"--lzma2=preset=2" }, 2, false },
	/* Single-threaded with blocks: headers without sizes. */
	{ "t1blocks.xz", { "-T1", "-0", "--block-size=640KiB" }, 2, false },
	{ "two.xz", { "-T2", "-1", "--block-size=512KiB" }, 2, true },
};

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint8_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)(rng_state >> 24);
}

static void make_data(void)
{
	size_t i = 0, line = 0;

	for (; i < 512 * KiB; i++)
		data[i] = rnd();
	for (; i < TEXT_START; i++)
		data[i] = 0;
	while (i < TEXT_END) {
		char text[96];
		int n = snprintf(text, sizeof(text),
				 "line %zu: the quick brown fox jumps over %u lazy dogs\n",
				 line++, rnd());

		for (int k = 0; k < n && i < TEXT_END; k++)
			data[i++] = (uint8_t)text[k];
	}
	/* 4 KiB runs, random or zero. */
	for (bool on = true; i < DATA_SIZE; on = !on)
		for (size_t k = 0; k < 4 * KiB && i < DATA_SIZE; k++)
			data[i++] = on ? rnd() : 0;
}

/* Runs xz OPTIONS -c on the file in, into out. */
static int xz_compress(const char *const *opts, const char *in, const char *out)
{
	const char *argv[12] = { "xz", "-q", "-c" };
	size_t n = 3;
	int rc;

	for (size_t k = 0; opts[k] && n < 10; k++)
		argv[n++] = opts[k];
	argv[n++] = in;
	argv[n] = NULL;
	rc = unit_spawn(argv, NULL, out);
	if (rc)
		printf("# xz %s exited with %d\n", opts[0], rc);
	return rc;
}

static bool xz_test(const char *path)
{
	const char *argv[] = { "xz", "-q", "-t", path, NULL };

	return unit_spawn(argv, NULL, NULL) == 0;
}

/* "xz -dc path" equals want. */
static bool xz_decodes_to(const char *path, const uint8_t *want, size_t len)
{
	const char *argv[] = { "xz", "-q", "-dc", path, NULL };
	char out[PATH_MAX];
	size_t got_len;
	uint8_t *got;
	bool ok;

	unit_path_keep(out, sizeof(out), "decoded.bin");
	if (unit_spawn(argv, NULL, out))
		return false;
	got = unit_read_file(out, &got_len);
	ok = got && got_len == len && memcmp(got, want, len) == 0;
	free(got);
	unlink(out);
	return ok;
}

static void xzl_free(struct xzl *l)
{
	free(l->b);
	memset(l, 0, sizeof(*l));
}

/* Splits a line at tabs, keeping empty fields. Returns the field count. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p;

	while ((p = strsep(&line, "\t")) && n < max)
		f[n++] = p;
	return n;
}

/* Reads the file's streams and blocks from "xz --robot -lvv". */
static int xz_list(const char *path, struct xzl *l)
{
	const char *argv[] = { "xz", "--robot", "-lvv", path, NULL };
	struct imgp_buf out = { 0 };
	char *text, *line;
	size_t cap = 0;
	int rc = -1;

	memset(l, 0, sizeof(*l));
	if (unit_run(argv, NULL, &out))
		goto out;
	text = (char *)out.data;
	while ((line = strsep(&text, "\n"))) {
		char *f[20];
		size_t n = split(line, f, 20);

		if (n >= 8 && strcmp(f[0], "file") == 0) {
			l->nstreams = strtoull(f[1], NULL, 10);
			l->size = strtoull(f[4], NULL, 10);
			snprintf(l->check, sizeof(l->check), "%s", f[6]);
		} else if (n >= 16 && strcmp(f[0], "block") == 0) {
			struct xzl_block *b;

			if (l->nblocks == cap) {
				void *p = realloc(l->b, (cap = cap * 2 + 8) * sizeof(*b));

				if (!p)
					goto out;
				l->b = p;
			}
			b = &l->b[l->nblocks++];
			b->coff = strtoull(f[4], NULL, 10);
			b->uoff = strtoull(f[5], NULL, 10);
			b->total = strtoull(f[6], NULL, 10);
			b->usize = strtoull(f[7], NULL, 10);
			b->header_size = (unsigned)strtoul(f[11], NULL, 10);
			snprintf(b->sizes, sizeof(b->sizes), "%s", f[12]);
			snprintf(b->filters, sizeof(b->filters), "%s", f[15]);
		}
	}
	rc = l->nblocks ? 0 : -1;
out:
	imgp_buf_free(&out);
	if (rc)
		xzl_free(l);
	return rc;
}

/*
 * lc/lp/pb of a block's first LZMA2 chunk when that chunk is an LZMA one
 * (it then carries them); -1 when the block starts with a stored chunk.
 */
static int first_props(const uint8_t *file, size_t len, const struct xzl_block *b)
{
	const uint8_t *c = file + b->coff + b->header_size;

	if (b->coff + b->header_size + 6 > len)
		return -2;
	return c[0] >= 0xe0 ? c[5] : -1;
}

struct fill_ctx {
	struct imgp_xz *xz;
	uint8_t *expect;         /* the whole new content, updated by fill */
	size_t fail_at;          /* this block's fill fails */
	unsigned calls;
	bool in_order;
	size_t last;
};

/* Decodes the block and writes a marker at its start, middle and end. */
static int fill_block(void *ctx, size_t i, void *buf)
{
	struct fill_ctx *c = ctx;
	uint64_t off, size, step;
	uint8_t *p = buf;
	int rc;

	if (c->calls++ && i <= c->last)
		c->in_order = false;
	c->last = i;
	if (i == c->fail_at)
		return imgp_fail(EIO, "no content for block %zu", i);
	rc = imgp_xz_decode_block_(c->xz, i, buf);
	if (rc)
		return rc;
	imgp_xz_block_range_(c->xz, i, &off, &size);
	step = size / 2 > 7 ? size / 2 - 7 : size;
	for (uint64_t at = 0; at < size; at += step) {
		char mark[40];
		int n = snprintf(mark, sizeof(mark), "patched block %zu at %llu", i,
				 (unsigned long long)at);

		if ((uint64_t)n > size - at)
			n = (int)(size - at);
		memcpy(p + at, mark, (size_t)n);
	}
	memcpy(c->expect + off, buf, size);
	return 0;
}

/* The context rewrites report progress to: NULL, but while progress is checked. */
static struct imgp_ctx *progress_ctx;

static int rewrite_to(struct imgp_xz *xz, const char *out, const bool *changed,
		      struct fill_ctx *c, unsigned threads)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0)
		return -errno;
	imgp_errclear_();
	rc = imgp_xz_rewrite_(xz, fd, changed, c ? fill_block : NULL, c, threads, progress_ctx);
	if (rc)
		printf("# rewrite: %s\n", imgp_errmsg());
	close(fd);
	return rc;
}

/* The table of imgp_xz_open_() against xz -lvv, and every block decoded. */
static void check_table(const struct fixture *fx, struct imgp_xz *xz,
			const struct xzl *l)
{
	char name[256];
	bool ranges = true, at = true, decoded = true;
	size_t n = imgp_xz_nblocks_(xz);

	snprintf(name, sizeof(name), "%s: %zu blocks and %llu bytes as xz -lvv says",
		 fx->name, l->nblocks, (unsigned long long)l->size);
	CHECK(n == l->nblocks && imgp_xz_size_(xz) == l->size &&
	      l->size == DATA_SIZE, name);
	for (size_t i = 0; i < n && n == l->nblocks; i++) {
		uint64_t off, size;
		uint8_t *buf;
		int rc;

		imgp_xz_block_range_(xz, i, &off, &size);
		ranges &= off == l->b[i].uoff && size == l->b[i].usize;
		at &= imgp_xz_block_at_(xz, off) == i &&
		      imgp_xz_block_at_(xz, off + size - 1) == i &&
		      imgp_xz_block_at_(xz, off + size / 2) == i;
		buf = malloc(size);
		rc = buf ? imgp_xz_decode_block_(xz, i, buf) : -ENOMEM;
		if (rc)
			printf("# block %zu: %s\n", i, imgp_errmsg());
		decoded &= rc == 0 && off + size <= DATA_SIZE &&
			   memcmp(buf, data + off, size) == 0;
		free(buf);
	}
	snprintf(name, sizeof(name), "%s: block ranges agree with xz -lvv", fx->name);
	CHECK(ranges, name);
	snprintf(name, sizeof(name), "%s: block_at finds each block's bytes", fx->name);
	CHECK(at, name);
	snprintf(name, sizeof(name), "%s: every block decodes to its slice", fx->name);
	CHECK(decoded, name);
}

/* Rewrite with nothing changed: the same file (one stream) or the same blocks. */
static void check_unchanged(const struct fixture *fx, struct imgp_xz *xz,
			    const char *path, const struct xzl *l)
{
	char name[256], out[PATH_MAX];
	uint8_t *a = NULL, *b = NULL;
	size_t alen, blen;
	struct xzl lo = { 0 };
	bool same = true;
	int rc;

	unit_path_keep(out, sizeof(out), "same.xz");
	rc = rewrite_to(xz, out, NULL, NULL, fx->threads);
	snprintf(name, sizeof(name), "%s: rewrite with nothing changed", fx->name);
	CHECK(rc == 0, name);
	a = unit_read_file(path, &alen);
	b = unit_read_file(out, &blen);
	if (!fx->two_streams) {
		snprintf(name, sizeof(name), "%s: ... is the input byte for byte", fx->name);
		CHECK(a && b && alen == blen && memcmp(a, b, alen) == 0, name);
		goto out;
	}
	snprintf(name, sizeof(name), "%s: ... is one stream xz -t accepts, same data",
		 fx->name);
	CHECK(xz_test(out) && xz_decodes_to(out, data, DATA_SIZE), name);
	rc = xz_list(out, &lo);
	same = rc == 0 && lo.nstreams == 1 && lo.nblocks == l->nblocks && a && b;
	for (size_t i = 0; same && i < l->nblocks; i++)
		same = lo.b[i].total == l->b[i].total &&
		       l->b[i].coff + l->b[i].total <= alen &&
		       lo.b[i].coff + lo.b[i].total <= blen &&
		       memcmp(a + l->b[i].coff, b + lo.b[i].coff, l->b[i].total) == 0;
	snprintf(name, sizeof(name), "%s: ... with every block copied verbatim", fx->name);
	CHECK(same, name);
out:
	xzl_free(&lo);
	free(a);
	free(b);
	unlink(out);
}

/* Rewrite with two blocks changed, checked with xz itself. */
static void check_changed(const struct fixture *fx, struct imgp_xz *xz,
			  const char *path, const struct xzl *l)
{
	size_t n = imgp_xz_nblocks_(xz);
	/* A text block (LZMA chunks, so lc/lp/pb show) and the last one. */
	size_t text = imgp_xz_block_at_(xz, TEXT_AT);
	struct fill_ctx c = { .xz = xz, .fail_at = NO_BLOCK, .in_order = true };
	char name[256], out[PATH_MAX];
	uint8_t *a = NULL, *b = NULL;
	bool *changed = calloc(n, sizeof(*changed));
	bool verbatim = true, filters = true, props = true, reread = true;
	size_t alen, blen;
	struct imgp_xz *again = NULL;
	struct xzl lo = { 0 };
	int rc;

	c.expect = malloc(DATA_SIZE);
	if (!changed || !c.expect) {
		CHECK(0, "out of memory");
		goto out;
	}
	memcpy(c.expect, data, DATA_SIZE);
	changed[text] = changed[n - 1] = true;
	unit_path_keep(out, sizeof(out), "changed.xz");
	rc = rewrite_to(xz, out, changed, &c, fx->threads);
	snprintf(name, sizeof(name), "%s: rewrite with blocks %zu and %zu changed",
		 fx->name, text, n - 1);
	CHECK(rc == 0 && c.calls == 2 && c.in_order, name);
	snprintf(name, sizeof(name), "%s: xz -t accepts it", fx->name);
	CHECK(xz_test(out), name);
	snprintf(name, sizeof(name), "%s: xz -dc gives the changed data", fx->name);
	CHECK(xz_decodes_to(out, c.expect, DATA_SIZE) &&
	      memcmp(c.expect, data, DATA_SIZE) != 0, name);

	rc = xz_list(out, &lo);
	snprintf(name, sizeof(name), "%s: xz -lvv: one stream, %s, %zu blocks",
		 fx->name, l->check, l->nblocks);
	CHECK(rc == 0 && lo.nstreams == 1 && strcmp(lo.check, l->check) == 0 &&
	      lo.nblocks == l->nblocks && lo.size == l->size, name);
	if (rc || lo.nblocks != l->nblocks)
		goto out;
	a = unit_read_file(path, &alen);
	b = unit_read_file(out, &blen);
	for (size_t i = 0; a && b && i < n; i++) {
		const struct xzl_block *x = &l->b[i], *y = &lo.b[i];

		if (x->uoff != y->uoff || x->usize != y->usize ||
		    x->coff + x->total > alen || y->coff + y->total > blen) {
			verbatim = false;
			break;
		}
		if (!changed[i]) {
			verbatim &= x->total == y->total &&
				    memcmp(a + x->coff, b + y->coff, x->total) == 0;
			continue;
		}
		filters &= strcmp(x->filters, y->filters) == 0 &&
			   strcmp(y->sizes, "cu") == 0;
		/* Whether a chunk is stored depends on the content; text never is. */
		if (i == text)
			props &= first_props(a, alen, x) >= 0 &&
				 first_props(a, alen, x) == first_props(b, blen, y);
	}
	snprintf(name, sizeof(name), "%s: unchanged blocks are the input's bytes",
		 fx->name);
	CHECK(a && b && verbatim, name);
	snprintf(name, sizeof(name), "%s: changed blocks keep their filters (%s), "
		 "header records both sizes", fx->name, l->b[text].filters);
	CHECK(a && b && filters, name);
	snprintf(name, sizeof(name), "%s: a changed text block keeps lc/lp/pb", fx->name);
	CHECK(a && b && props, name);

	rc = imgp_xz_open_(&again, out);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		uint64_t off, size;
		uint8_t *buf;

		if (!changed[i])
			continue;
		imgp_xz_block_range_(again, i, &off, &size);
		buf = malloc(size);
		reread &= buf && imgp_xz_decode_block_(again, i, buf) == 0 &&
			  memcmp(buf, c.expect + off, size) == 0;
		free(buf);
	}
	snprintf(name, sizeof(name), "%s: the rewritten file opens and decodes", fx->name);
	CHECK(rc == 0 && reread, name);
	imgp_xz_close_(again);
out:
	xzl_free(&lo);
	free(a);
	free(b);
	free(changed);
	free(c.expect);
	unlink(out);
}

static void check_fixture(const struct fixture *fx)
{
	char path[PATH_MAX], name[160];
	struct imgp_xz *xz = NULL;
	struct xzl l;
	int rc;

	unit_path_keep(path, sizeof(path), fx->name);
	if (xz_list(path, &l)) {
		snprintf(name, sizeof(name), "%s: xz -lvv lists it", fx->name);
		CHECK(0, name);
		return;
	}
	imgp_errclear_();
	rc = imgp_xz_open_(&xz, path);
	if (rc)
		printf("# %s\n", imgp_errmsg());
	snprintf(name, sizeof(name), "%s: opens (%zu streams, %zu blocks)", fx->name,
		 l.nstreams, l.nblocks);
	CHECK(rc == 0 && l.nstreams == (fx->two_streams ? 2u : 1u), name);
	if (rc == 0) {
		check_table(fx, xz, &l);
		check_unchanged(fx, xz, path, &l);
		check_changed(fx, xz, path, &l);
	}
	imgp_xz_close_(xz);
	xzl_free(&l);
}

static int concat(const char *out, const char *a, size_t padding, const char *b)
{
	size_t alen, blen;
	uint8_t *pa = unit_read_file(a, &alen), *pb = unit_read_file(b, &blen);
	uint8_t *all = pa && pb ? calloc(1, alen + padding + blen) : NULL;
	int rc = -1;

	if (all) {
		memcpy(all, pa, alen);
		memcpy(all + alen + padding, pb, blen);
		rc = unit_write_file(out, all, alen + padding + blen);
	}
	free(all);
	free(pa);
	free(pb);
	return rc;
}

static int make_fixtures(void)
{
	static const char *const crc32[] = { "-T2", "-0", "--block-size=256KiB",
					     "--check=crc32", NULL };
	static const char *const t1[] = { "-T1", "-0", NULL };
	char plain[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX];

	make_data();
	unit_path_keep(plain, sizeof(plain), "data.bin");
	unit_path_keep(p1, sizeof(p1), "part1.bin");
	unit_path_keep(p2, sizeof(p2), "part2.bin");
	if (unit_write_file(plain, data, DATA_SIZE) ||
	    unit_write_file(p1, data, SPLIT) ||
	    unit_write_file(p2, data + SPLIT, DATA_SIZE - SPLIT))
		return -1;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		const struct fixture *fx = &fixtures[i];

		if (!fx->two_streams) {
			if (xz_compress(fx->args, plain, unit_path(fx->name)))
				return -1;
			continue;
		}
		/* Eight bytes of stream padding between the streams. */
		if (xz_compress(fx->args, p1, unit_path("part1.xz")) ||
		    xz_compress(fx->args, p2, unit_path("part2.xz")) ||
		    concat(unit_path(fx->name), unit_path("part1.xz"), 8,
			   unit_path("part2.xz")))
			return -1;
	}
	/* Two streams with different checks; one block. */
	if (xz_compress(crc32, p1, unit_path("part1-crc32.xz")) ||
	    concat(unit_path("mixed.xz"), unit_path("part1-crc32.xz"), 0,
		   unit_path("part2.xz")) ||
	    xz_compress(t1, plain, unit_path("single.xz")))
		return -1;
	return 0;
}

static int open_rc(const char *file)
{
	struct imgp_xz *xz = NULL;
	int rc;

	imgp_errclear_();
	rc = imgp_xz_open_(&xz, unit_path(file));
	printf("# %s: %d %s\n", file, rc, imgp_errmsg());
	imgp_xz_close_(xz);
	return rc;
}

static bool msg_has(const char *s)
{
	return strstr(imgp_errmsg(), s) != NULL;
}

/* Writes a changed copy of crc64.xz: cut at len, or one byte inverted. */
static int mangle(const char *file, size_t cut, size_t flip)
{
	size_t len;
	uint8_t *p = unit_read_file(unit_path("crc64.xz"), &len);
	int rc = -1;

	if (p && cut <= len && (flip == NO_BLOCK || flip < len)) {
		if (flip != NO_BLOCK)
			p[flip] ^= 0xff;
		rc = unit_write_file(unit_path(file), p, cut == 0 ? len : cut);
	}
	free(p);
	return rc;
}

static void check_errors(void)
{
	struct xzl l;
	struct imgp_xz *xz = NULL;
	struct fill_ctx c = { .fail_at = NO_BLOCK, .in_order = true };
	bool changed[16] = { false };
	uint64_t index_at, size;
	size_t text, n;
	int rc;

	CHECK(open_rc("single.xz") == -ENOTSUP && msg_has("single block"),
	      "xz -T1 (one block): -ENOTSUP, caller streams instead");
	CHECK(open_rc("mixed.xz") == -ENOTSUP && msg_has("different check"),
	      "streams with different checks: -ENOTSUP");
	unit_write_text(unit_path("text.xz"), "this is not compressed at all, "
			"just some words long enough to look like a file\n");
	CHECK(open_rc("text.xz") == -EINVAL && msg_has("not an xz file"),
	      "a text file: -EINVAL not an xz file");
	unit_write_file(unit_path("empty.xz"), "", 0);
	CHECK(open_rc("empty.xz") == -EINVAL, "an empty file: -EINVAL");
	CHECK(open_rc("missing.xz") == -ENOENT, "a missing file: -ENOENT");
	CHECK(open_rc("") == -ENOTSUP, "a directory: -ENOTSUP");

	if (xz_list(unit_path("crc64.xz"), &l)) {
		CHECK(0, "crc64.xz: xz -lvv lists it");
		return;
	}
	n = l.nblocks;
	index_at = l.b[n - 1].coff + l.b[n - 1].total;
	mangle("cut.xz", (size_t)index_at + 5, NO_BLOCK);
	CHECK(open_rc("cut.xz") == -EINVAL && msg_has("complete"),
	      "a file cut in its index: -EINVAL");
	mangle("cut2.xz", (size_t)l.b[1].coff + 100, NO_BLOCK);
	CHECK(open_rc("cut2.xz") == -EINVAL, "a file cut in a block: -EINVAL");
	mangle("index.xz", 0, (size_t)index_at + 2);
	CHECK(open_rc("index.xz") == -EINVAL, "a flipped byte in the index: -EINVAL");
	mangle("header.xz", 0, (size_t)l.b[1].coff + 3);
	CHECK(open_rc("header.xz") == -EINVAL && msg_has("xz block 2 of"),
	      "a flipped byte in a block header: -EINVAL naming the block");

	/* Open works (headers intact); decoding that block fails. */
	text = 1;
	mangle("data.xz", 0, (size_t)(l.b[text].coff + l.b[text].total / 2));
	imgp_errclear_();
	rc = imgp_xz_open_(&xz, unit_path("data.xz"));
	CHECK(rc == 0, "a flipped byte in block data: opens");
	if (rc == 0) {
		uint64_t off;
		uint8_t *buf;

		imgp_xz_block_range_(xz, text, &off, &size);
		buf = malloc(size);
		rc = buf ? imgp_xz_decode_block_(xz, text, buf) : -ENOMEM;
		printf("# %d %s\n", rc, imgp_errmsg());
		CHECK(rc == -EIO && msg_has("xz block 2 of"),
		      "... decoding that block: -EIO naming the block");
		rc = buf ? imgp_xz_decode_block_(xz, text + 1, buf) : -ENOMEM;
		CHECK(rc == 0 && memcmp(buf, data + off + size, 16) == 0,
		      "... the next block still decodes");
		free(buf);
		imgp_xz_close_(xz);
		xz = NULL;
	}

	/* A fill that fails while other blocks are being compressed. */
	rc = imgp_xz_open_(&xz, unit_path("sha256.xz"));
	n = rc == 0 ? imgp_xz_nblocks_(xz) : 0;
	if (n >= 5 && n <= 16) {
		c.xz = xz;
		c.expect = malloc(DATA_SIZE);
		changed[1] = changed[2] = changed[3] = changed[4] = true;
		c.fail_at = 4;
		rc = c.expect ? rewrite_to(xz, unit_path("fail.xz"), changed, &c, 3) : 0;
		CHECK(rc == -EIO && msg_has("no content for block 4"),
		      "a failing fill: its error, workers stopped");
		/* Four changed blocks through two slots. */
		c.fail_at = NO_BLOCK;
		c.calls = 0;
		if (c.expect)
			memcpy(c.expect, data, DATA_SIZE);
		rc = c.expect ? rewrite_to(xz, unit_path("four.xz"), changed, &c, 2) : -1;
		CHECK(rc == 0 && c.calls == 4 && c.in_order &&
		      xz_decodes_to(unit_path("four.xz"), c.expect, DATA_SIZE),
		      "four changed blocks on two threads");
		free(c.expect);
	} else {
		CHECK(0, "sha256.xz: opens with 5 to 16 blocks");
	}
	imgp_xz_close_(xz);
	xzl_free(&l);
}

static struct {
	unsigned calls;
	uint64_t done, total;
} seen;

static void on_progress(const char *what, uint64_t done, uint64_t total, void *ctx)
{
	(void)ctx;
	if (strcmp(what, "compressing") == 0) {
		seen.calls++;
		seen.done = done;
		seen.total = total;
	}
}

static void check_progress(void)
{
	struct imgp_xz *xz = NULL;
	int rc;

	rc = imgp_ctx_new(&progress_ctx);
	if (rc == 0) {
		imgp_ctx_set_progress(progress_ctx, on_progress, NULL);
		rc = imgp_xz_open_(&xz, unit_path("crc64.xz"));
	}
	if (rc == 0)
		rc = rewrite_to(xz, unit_path("progress.xz"), NULL, NULL, 1);
	CHECK(rc == 0 && seen.calls > 0 && seen.done == DATA_SIZE &&
	      seen.total == DATA_SIZE, "progress ends at the uncompressed size");
	imgp_xz_close_(xz);
	imgp_ctx_free(progress_ctx);
	progress_ctx = NULL;
}

int main(void)
{
	if (unit_tmpdir_create("xz-blocks")) {
		perror("mkdtemp");
		return 1;
	}
	data = malloc(DATA_SIZE);
	if (!data || make_fixtures()) {
		CHECK(0, "fixtures: xz makes every file");
		goto out;
	}
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		check_fixture(&fixtures[i]);
	check_errors();
	check_progress();
out:
	free(data);
	unit_tmpdir_remove();
	return unit_done();
}
