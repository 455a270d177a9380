// SPDX-License-Identifier: MIT
/*
 * Unified diffs of two texts, printed as GNU diff -u prints them, so that a
 * plan shows its changes the way people are used to reading them.
 *
 * The edit script is a shortest one: Myers' O(ND) algorithm in linear space
 * (divide and conquer on the middle snake), run on the lines between the
 * common head and tail that occur in both texts; a line that the other text
 * lacks is a change whatever the alignment. Shortest scripts are not
 * unique, so each run of changed lines is then slid, over equal lines, to
 * where GNU diff puts it: down as far as it goes, or up to the lowest place
 * where it meets a change of the other text (a replacement then reads as
 * one block).
 *
 * Bound: when what lies between the common head and tail is more than
 * DIFF_MAX_LINES lines or DIFF_MAX_BYTES bytes on either side, all of it is
 * taken as changed (one hunk: the old lines, then the new) rather than
 * spending time quadratic in the worst case on text nobody reads line by
 * line.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"

#define DIFF_CONTEXT 3
#define DIFF_MAX_LINES 20000
#define DIFF_MAX_BYTES (1024 * 1024)

struct dfile {
	const char *text;
	size_t n;                /* lines; the last may lack its '\n' */
	size_t *off;             /* n + 1 starts: line i is [off[i], off[i + 1]) */
	size_t *cls;             /* equivalence class of each line */
	uint8_t *changed;        /* n + 1 flags, the last a 0 that ends scans */
};

/* One change: del lines of a from line a, replaced by ins lines of b from b. */
struct dchange {
	size_t a, del, b, ins;
};

/* Myers' search over two sequences of class numbers. */
struct myers {
	const size_t *xv, *yv;
	uint8_t *xchg, *ychg;
	/* Indexed by diagonal x - y, from -(ny + 1) to nx + 1. */
	ptrdiff_t *fd, *bd;
};

static void dfile_free(struct dfile *f)
{
	free(f->off);
	free(f->cls);
	free(f->changed);
}

static int dfile_split(struct dfile *f, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	size_t n = 0;

	memset(f, 0, sizeof(*f));
	f->text = text;
	for (p = text; p < end && (nl = memchr(p, '\n', (size_t)(end - p)));
	     p = nl + 1)
		n++;
	if (p < end)
		n++;
	f->n = n;
	f->off = calloc(n + 1, sizeof(*f->off));
	f->cls = calloc(n + 1, sizeof(*f->cls));
	f->changed = calloc(n + 1, 1);
	if (!f->off || !f->cls || !f->changed)
		return -ENOMEM;
	n = 0;
	for (p = text; p < end && (nl = memchr(p, '\n', (size_t)(end - p)));
	     p = nl + 1)
		f->off[++n] = (size_t)(nl + 1 - text);
	if (p < end)
		f->off[++n] = len;
	return 0;
}

static const char *dline(const struct dfile *f, size_t i, size_t *len)
{
	*len = f->off[i + 1] - f->off[i];
	return f->text + f->off[i];
}

/* FNV-1a: lines are short and the table only needs a spread. */
static uint64_t dline_hash(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ (uint8_t)*p++) * 0x100000001b3ull;
	return h;
}

/*
 * Numbers the distinct lines of both texts, so that comparing two lines is
 * comparing two numbers. Returns 0 or -ENOMEM.
 */
static int diff_classify(struct dfile *a, struct dfile *b)
{
	struct dfile *files[2] = { a, b };
	size_t total = a->n + b->n, cap = 64, nclass = 0, i, f;
	size_t *slot, *rep_file, *rep_line;
	uint64_t *hash;
	int rc = -ENOMEM;

	if (total > SIZE_MAX / 4 / sizeof(*slot))
		return -ENOMEM;
	while (cap < total * 2)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	hash = malloc((total + 1) * sizeof(*hash));
	rep_file = malloc((total + 1) * sizeof(*rep_file));
	rep_line = malloc((total + 1) * sizeof(*rep_line));
	if (!slot || !hash || !rep_file || !rep_line)
		goto out;
	memset(slot, 0xff, cap * sizeof(*slot));
	for (f = 0; f < 2; f++) {
		for (i = 0; i < files[f]->n; i++) {
			size_t len, rlen, s;
			const char *p = dline(files[f], i, &len);
			uint64_t h = dline_hash(p, len);

			/* Open addressing: the table is at most half full. */
			for (s = h & (cap - 1); slot[s] != SIZE_MAX;
			     s = (s + 1) & (cap - 1)) {
				size_t c = slot[s];
				const char *r = dline(files[rep_file[c]],
						      rep_line[c], &rlen);

				if (hash[c] == h && rlen == len &&
				    !memcmp(r, p, len))
					break;
			}
			if (slot[s] == SIZE_MAX) {
				slot[s] = nclass;
				hash[nclass] = h;
				rep_file[nclass] = f;
				rep_line[nclass] = i;
				nclass++;
			}
			files[f]->cls[i] = slot[s];
		}
	}
	rc = 0;
out:
	free(rep_line);
	free(rep_file);
	free(hash);
	free(slot);
	return rc;
}

/*
 * Finds a point on a shortest edit path from (xoff, yoff) to (xlim, ylim)
 * that splits its cost in two halves, searching from both corners at once
 * until the searches meet (Myers 1986, section 4b). Diagonals that leave
 * the rectangle are not searched; the ones beside the searched range hold
 * sentinels that lose every comparison.
 */
static void myers_split(struct myers *m, ptrdiff_t xoff, ptrdiff_t xlim,
			ptrdiff_t yoff, ptrdiff_t ylim, ptrdiff_t *xmid,
			ptrdiff_t *ymid)
{
	const ptrdiff_t dmin = xoff - ylim, dmax = xlim - yoff;
	const ptrdiff_t fmid = xoff - yoff, bmid = xlim - ylim;
	const bool odd = (fmid - bmid) & 1;
	ptrdiff_t fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid, k;
	ptrdiff_t *fd = m->fd, *bd = m->bd;

	fd[fmid] = xoff;
	bd[bmid] = xlim;
	for (;;) {
		/* Forward: the furthest x each diagonal reaches with one more edit. */
		if (fmin > dmin)
			fd[--fmin - 1] = -1;
		else
			fmin++;
		if (fmax < dmax)
			fd[++fmax + 1] = -1;
		else
			fmax--;
		for (k = fmax; k >= fmin; k -= 2) {
			ptrdiff_t x = fd[k - 1] >= fd[k + 1] ? fd[k - 1] + 1 : fd[k + 1];
			ptrdiff_t y = x - k;

			while (x < xlim && y < ylim && m->xv[x] == m->yv[y]) {
				x++;
				y++;
			}
			fd[k] = x;
			if (odd && bmin <= k && k <= bmax && bd[k] <= x) {
				*xmid = x;
				*ymid = y;
				return;
			}
		}
		/* Backward: the least x each diagonal reaches from the far corner. */
		if (bmin > dmin)
			bd[--bmin - 1] = PTRDIFF_MAX;
		else
			bmin++;
		if (bmax < dmax)
			bd[++bmax + 1] = PTRDIFF_MAX;
		else
			bmax--;
		for (k = bmax; k >= bmin; k -= 2) {
			ptrdiff_t x = bd[k - 1] < bd[k + 1] ? bd[k - 1] : bd[k + 1] - 1;
			ptrdiff_t y = x - k;

			while (x > xoff && y > yoff && m->xv[x - 1] == m->yv[y - 1]) {
				x--;
				y--;
			}
			bd[k] = x;
			if (!odd && fmin <= k && k <= fmax && x <= fd[k]) {
				*xmid = x;
				*ymid = y;
				return;
			}
		}
	}
}

/*
 * Marks the lines a shortest edit script changes. Each split halves the
 * cost, so the recursion is about log2(cost) deep.
 */
static void myers_compare(struct myers *m, ptrdiff_t xoff, ptrdiff_t xlim,
			  ptrdiff_t yoff, ptrdiff_t ylim)
{
	ptrdiff_t xmid, ymid;

	while (xoff < xlim && yoff < ylim && m->xv[xoff] == m->yv[yoff]) {
		xoff++;
		yoff++;
	}
	while (xlim > xoff && ylim > yoff && m->xv[xlim - 1] == m->yv[ylim - 1]) {
		xlim--;
		ylim--;
	}
	if (xoff == xlim) {
		while (yoff < ylim)
			m->ychg[yoff++] = 1;
	} else if (yoff == ylim) {
		while (xoff < xlim)
			m->xchg[xoff++] = 1;
	} else {
		myers_split(m, xoff, xlim, yoff, ylim, &xmid, &ymid);
		myers_compare(m, xoff, xmid, yoff, ymid);
		myers_compare(m, xmid, xlim, ymid, ylim);
	}
}

/*
 * The lines of f[lo, hi) whose class the other text's [olo, ohi) has:
 * their classes into v and their line numbers into map. The others are
 * marked changed. Returns how many were kept.
 */
static size_t diff_keep(struct dfile *f, size_t lo, size_t hi,
			const uint8_t *in_other, size_t *v, size_t *map)
{
	size_t i, n = 0;

	for (i = lo; i < hi; i++) {
		if (in_other[f->cls[i]]) {
			v[n] = f->cls[i];
			map[n++] = i;
		} else {
			f->changed[i] = 1;
		}
	}
	return n;
}

/* Runs Myers on a[alo, ahi) and b[blo, bhi). Returns 0 or -ENOMEM. */
static int diff_middle(struct dfile *a, size_t alo, size_t ahi,
		       struct dfile *b, size_t blo, size_t bhi)
{
	size_t nclass = 0, i, nx, ny, *xv, *yv, *xmap, *ymap;
	uint8_t *ina = NULL, *inb = NULL;
	ptrdiff_t *fd = NULL, *bd = NULL;
	struct myers m = { 0 };
	int rc = -ENOMEM;

	for (i = alo; i < ahi; i++)
		nclass = a->cls[i] >= nclass ? a->cls[i] + 1 : nclass;
	for (i = blo; i < bhi; i++)
		nclass = b->cls[i] >= nclass ? b->cls[i] + 1 : nclass;
	ina = calloc(nclass + 1, 1);
	inb = calloc(nclass + 1, 1);
	xv = calloc(ahi - alo + 1, sizeof(*xv));
	xmap = calloc(ahi - alo + 1, sizeof(*xmap));
	yv = calloc(bhi - blo + 1, sizeof(*yv));
	ymap = calloc(bhi - blo + 1, sizeof(*ymap));
	m.xchg = calloc(ahi - alo + 1, 1);
	m.ychg = calloc(bhi - blo + 1, 1);
	if (!ina || !inb || !xv || !xmap || !yv || !ymap || !m.xchg || !m.ychg)
		goto out;
	for (i = alo; i < ahi; i++)
		ina[a->cls[i]] = 1;
	for (i = blo; i < bhi; i++)
		inb[b->cls[i]] = 1;
	nx = diff_keep(a, alo, ahi, inb, xv, xmap);
	ny = diff_keep(b, blo, bhi, ina, yv, ymap);

	fd = calloc(nx + ny + 3, sizeof(*fd));
	bd = calloc(nx + ny + 3, sizeof(*bd));
	if (!fd || !bd)
		goto out;
	m.xv = xv;
	m.yv = yv;
	m.fd = fd + ny + 1;
	m.bd = bd + ny + 1;
	myers_compare(&m, 0, (ptrdiff_t)nx, 0, (ptrdiff_t)ny);
	for (i = 0; i < nx; i++)
		a->changed[xmap[i]] = m.xchg[i];
	for (i = 0; i < ny; i++)
		b->changed[ymap[i]] = m.ychg[i];
	rc = 0;
out:
	free(bd);
	free(fd);
	free(m.ychg);
	free(m.xchg);
	free(ymap);
	free(yv);
	free(xmap);
	free(xv);
	free(inb);
	free(ina);
	return rc;
}

/*
 * j, the place in o that lines up with the start of a run of f, after the
 * run moved up by one: back over the o line that the f line now unchanged
 * pairs with, then over the changed o lines before it (not below olo).
 */
static size_t shift_back(const uint8_t *ochg, size_t olo, size_t j)
{
	j--;
	while (j > olo && ochg[j - 1])
		j--;
	return j;
}

/*
 * Slides the runs of changed lines of f[lo, hi) over equal lines (see the
 * top of the file), never out of [lo, hi): GNU diff's runs stay inside what
 * it compared, the middle and DIFF_CONTEXT lines each side. j tracks the
 * place in o that lines up with the start of the run: just after the o line
 * that pairs with the last unchanged f line before it, so that ochg[j]
 * tells whether o has a change right there.
 */
static void diff_shift(struct dfile *f, size_t lo, size_t hi,
		       const struct dfile *o, size_t olo)
{
	uint8_t *chg = f->changed;
	const uint8_t *ochg = o->changed;
	const size_t *cls = f->cls;
	size_t i = lo, j = olo, start, end, run, meet;
	bool meets;

	for (;;) {
		while (i < hi && !chg[i]) {
			while (ochg[j])
				j++;
			i++;
			j++;
		}
		if (i == hi)
			break;
		start = i;
		end = i;
		while (chg[end])
			end++;
		/* Runs that touch while sliding merge; slide the whole again. */
		do {
			run = end - start;
			while (start > lo && cls[start - 1] == cls[end - 1]) {
				chg[--start] = 1;
				chg[--end] = 0;
				j = shift_back(ochg, olo, j);
				while (start > lo && chg[start - 1])
					start--;
			}
			meets = ochg[j];
			meet = end;
			while (end < hi && cls[start] == cls[end]) {
				while (ochg[j])
					j++;
				j++;
				chg[start++] = 0;
				chg[end++] = 1;
				while (chg[end])
					end++;
				if (ochg[j]) {
					meets = true;
					meet = end;
				}
			}
		} while (run != end - start);
		while (meets && end > meet) {
			chg[--start] = 1;
			chg[--end] = 0;
			j = shift_back(ochg, olo, j);
		}
		i = end;
	}
}

/* The changes as runs: the unchanged lines of a and b pair up in order. */
static size_t diff_changes(const struct dfile *a, const struct dfile *b,
			   struct dchange *ch)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->n || j < b->n) {
		if (!a->changed[i] && !b->changed[j] && i < a->n && j < b->n) {
			i++;
			j++;
			continue;
		}
		ch[n].a = i;
		ch[n].b = j;
		while (a->changed[i])
			i++;
		while (b->changed[j])
			j++;
		ch[n].del = i - ch[n].a;
		ch[n].ins = j - ch[n].b;
		/* Unchanged lines left on one side only cannot be; never spin. */
		if (!ch[n].del && !ch[n].ins)
			break;
		n++;
	}
	return n;
}

/* "l,n" as diff -u writes a range: "l" alone for one line, "l-1,0" for none. */
static int diff_range(struct imgp_buf *out, size_t start, size_t count)
{
	if (count == 0)
		return imgp_buf_printf(out, "%zu,0", start);
	if (count == 1)
		return imgp_buf_printf(out, "%zu", start + 1);
	return imgp_buf_printf(out, "%zu,%zu", start + 1, count);
}

static int diff_lines(struct imgp_buf *out, char mark, const struct dfile *f,
		      size_t from, size_t to)
{
	static const char nonl[] = "\n\\ No newline at end of file\n";
	const char *p;
	size_t len;
	int rc = 0;

	for (; from < to && !rc; from++) {
		p = dline(f, from, &len);
		rc = imgp_buf_append(out, &mark, 1);
		if (!rc)
			rc = imgp_buf_append(out, p, len);
		if (!rc && (len == 0 || p[len - 1] != '\n'))
			rc = imgp_buf_append(out, nonl, sizeof(nonl) - 1);
	}
	return rc;
}

/* One hunk: changes ch[0..n), with context around them. */
static int diff_hunk(struct imgp_buf *out, const struct dfile *a,
		     const struct dfile *b, const struct dchange *ch, size_t n)
{
	const struct dchange *last = &ch[n - 1];
	size_t lead = ch[0].a < DIFF_CONTEXT ? ch[0].a : DIFF_CONTEXT;
	size_t aend = last->a + last->del, bend = last->b + last->ins;
	size_t trail = a->n - aend < DIFF_CONTEXT ? a->n - aend : DIFF_CONTEXT;
	size_t alo = ch[0].a - lead, blo = ch[0].b - lead, i, pos;
	int rc;

	rc = imgp_buf_printf(out, "@@ -");
	if (!rc)
		rc = diff_range(out, alo, aend + trail - alo);
	if (!rc)
		rc = imgp_buf_printf(out, " +");
	if (!rc)
		rc = diff_range(out, blo, bend + trail - blo);
	if (!rc)
		rc = imgp_buf_printf(out, " @@\n");
	pos = alo;
	for (i = 0; i < n && !rc; i++) {
		rc = diff_lines(out, ' ', a, pos, ch[i].a);
		if (!rc)
			rc = diff_lines(out, '-', a, ch[i].a, ch[i].a + ch[i].del);
		if (!rc)
			rc = diff_lines(out, '+', b, ch[i].b, ch[i].b + ch[i].ins);
		pos = ch[i].a + ch[i].del;
	}
	if (!rc)
		rc = diff_lines(out, ' ', a, pos, aend + trail);
	return rc;
}

static int diff_print(struct imgp_buf *out, const struct dfile *a,
		      const struct dfile *b, const struct dchange *ch, size_t n,
		      const char *label_a, const char *label_b)
{
	size_t first, next;
	int rc;

	rc = imgp_buf_printf(out, "--- %s\n+++ %s\n", label_a, label_b);
	/* Changes at most 2 * context unchanged lines apart share a hunk. */
	for (first = 0; first < n && !rc; first = next) {
		for (next = first + 1; next < n; next++)
			if (ch[next].a - (ch[next - 1].a + ch[next - 1].del) >
			    2 * DIFF_CONTEXT)
				break;
		rc = diff_hunk(out, a, b, ch + first, next - first);
	}
	return rc;
}

int imgp_diff_unified_(const char *a, size_t alen, const char *b, size_t blen,
		      const char *label_a, const char *label_b,
		      struct imgp_buf *out)
{
	struct dfile fa, fb;
	struct dchange *ch = NULL;
	size_t head = 0, tail = 0, nch, keep = out->len, i;
	int rc;

	if (alen == blen && (alen == 0 || !memcmp(a, b, alen)))
		return 0;
	/* An empty buffer may come without storage. */
	if (!alen)
		a = "";
	if (!blen)
		b = "";
	rc = dfile_split(&fa, a, alen);
	if (!rc)
		rc = dfile_split(&fb, b, blen);
	else
		memset(&fb, 0, sizeof(fb));
	if (!rc)
		rc = diff_classify(&fa, &fb);
	if (rc)
		goto out;

	while (head < fa.n && head < fb.n && fa.cls[head] == fb.cls[head])
		head++;
	while (tail < fa.n - head && tail < fb.n - head &&
	       fa.cls[fa.n - 1 - tail] == fb.cls[fb.n - 1 - tail])
		tail++;
	if (fa.n - head - tail > DIFF_MAX_LINES ||
	    fb.n - head - tail > DIFF_MAX_LINES ||
	    fa.off[fa.n - tail] - fa.off[head] > DIFF_MAX_BYTES ||
	    fb.off[fb.n - tail] - fb.off[head] > DIFF_MAX_BYTES) {
		for (i = head; i < fa.n - tail; i++)
			fa.changed[i] = 1;
		for (i = head; i < fb.n - tail; i++)
			fb.changed[i] = 1;
	} else {
		/*
		 * Which lines the other text lacks is judged over the middle
		 * and DIFF_CONTEXT lines of the common head and tail, as GNU
		 * diff does: it decides between equally short scripts.
		 */
		size_t hh = head < DIFF_CONTEXT ? head : DIFF_CONTEXT;
		size_t ht = tail < DIFF_CONTEXT ? tail : DIFF_CONTEXT;

		size_t lo = head - hh, ahi = fa.n - tail + ht, bhi = fb.n - tail + ht;

		rc = diff_middle(&fa, lo, ahi, &fb, lo, bhi);
		if (rc)
			goto out;
		diff_shift(&fa, lo, ahi, &fb, lo);
		diff_shift(&fb, lo, bhi, &fa, lo);
	}

	ch = calloc(fa.n + fb.n + 1, sizeof(*ch));
	if (!ch) {
		rc = -ENOMEM;
		goto out;
	}
	nch = diff_changes(&fa, &fb, ch);
	rc = diff_print(out, &fa, &fb, ch, nch, label_a, label_b);
out:
	free(ch);
	dfile_free(&fb);
	dfile_free(&fa);
	if (rc) {
		out->len = keep;
		if (out->data)
			out->data[keep] = '\0';
		return imgp_fail(ENOMEM, "out of memory");
	}
	return 0;
}
