// SPDX-License-Identifier: MIT
/*
 * Unified diffs, checked against GNU diff -u at test time: hand-made cases
 * must match it byte for byte; seeded random pairs must too, except where
 * diff's own heuristics pick another alignment of a script that is as short
 * or longer. Every diff must also give back the new text through patch(1)
 * with no fuzz and no offset, and change as few lines as possible (checked
 * against a longest common subsequence computed here).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "text/text.h"
#include "unit.h"

/* One text as an array of lines (each with its '\n', the last maybe not). */
struct lines {
	size_t n;
	const char **p;
	size_t *len;
};

static int lines_split(struct lines *l, const char *text, size_t len)
{
	const char *end = text + len, *p, *nl;
	size_t n = 0;

	for (p = text; p < end; p = nl ? nl + 1 : end, n++)
		nl = memchr(p, '\n', (size_t)(end - p));
	l->n = n;
	l->p = calloc(n + 1, sizeof(*l->p));
	l->len = calloc(n + 1, sizeof(*l->len));
	if (!l->p || !l->len)
		return -1;
	n = 0;
	for (p = text; p < end; p = nl ? nl + 1 : end, n++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		l->p[n] = p;
		l->len[n] = (size_t)((nl ? nl + 1 : end) - p);
	}
	return 0;
}

static void lines_free(struct lines *l)
{
	free(l->p);
	free(l->len);
}

/* Lines a shortest edit script changes: |a| + |b| - 2 * LCS(a, b). */
static size_t min_changes(const char *a, size_t alen, const char *b, size_t blen)
{
	struct lines la, lb;
	size_t *prev, *cur, *tmp, i, j, lcs = 0;

	if (lines_split(&la, a, alen) || lines_split(&lb, b, blen))
		return SIZE_MAX;
	prev = calloc(lb.n + 1, sizeof(*prev));
	cur = calloc(lb.n + 1, sizeof(*cur));
	if (prev && cur) {
		for (i = 1; i <= la.n; i++) {
			for (j = 1; j <= lb.n; j++) {
				if (la.len[i - 1] == lb.len[j - 1] &&
				    !memcmp(la.p[i - 1], lb.p[j - 1], la.len[i - 1]))
					cur[j] = prev[j - 1] + 1;
				else
					cur[j] = prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
			}
			tmp = prev;
			prev = cur;
			cur = tmp;
		}
		lcs = prev[lb.n];
	}
	i = prev && cur ? la.n + lb.n - 2 * lcs : SIZE_MAX;
	free(prev);
	free(cur);
	lines_free(&la);
	lines_free(&lb);
	return i;
}

/* The '-' and '+' lines of a unified diff (its two header lines skipped). */
static size_t count_changes(const struct imgp_buf *d)
{
	const char *p = (const char *)d->data, *end = p + d->len, *nl;
	size_t n = 0, line = 0;

	for (; p && p < end; p = nl + 1, line++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		if (line >= 2 && (*p == '-' || *p == '+'))
			n++;
	}
	return n;
}

static size_t count_hunks(const struct imgp_buf *d)
{
	const char *p = (const char *)d->data;
	size_t n = 0;

	while (p && (p = strstr(p, "\n@@ ")) != NULL) {
		n++;
		p++;
	}
	return n;
}

/* GNU diff -u of two texts; its exit status 1 only says that they differ. */
static int gnu_diff(const char *a, size_t alen, const char *b, size_t blen,
		    struct imgp_buf *out)
{
	char pa[PATH_MAX], pb[PATH_MAX];
	const char *argv[] = { "diff", "-u", "--label", "A", "--label", "B",
			       pa, pb, NULL };
	int rc;

	snprintf(pa, sizeof(pa), "%s", unit_path("a.txt"));
	snprintf(pb, sizeof(pb), "%s", unit_path("b.txt"));
	out->len = 0;
	if (unit_write_file(pa, a, alen) || unit_write_file(pb, b, blen))
		return -EIO;
	rc = imgp_run_(argv, NULL, out);
	if (rc == -EIO && strstr(imgp_errmsg(), "(exit status 1)"))
		rc = 0;
	if (rc)
		printf("# diff: %s\n", imgp_errmsg());
	return rc;
}

/* Whether patch(1) turns a into b with diff d exactly: no fuzz, no offset. */
static bool patch_gives(const char *a, size_t alen, const char *b, size_t blen,
			const struct imgp_buf *d)
{
	char orig[PATH_MAX], pd[PATH_MAX], res[PATH_MAX];
	const char *argv[] = { "patch", "--fuzz=0", "--force", "-i", pd, "-o",
			       res, orig, NULL };
	struct imgp_buf log = { 0 };
	size_t rlen;
	char *got;
	bool ok;

	snprintf(orig, sizeof(orig), "%s", unit_path("orig.txt"));
	snprintf(pd, sizeof(pd), "%s", unit_path("ours.diff"));
	snprintf(res, sizeof(res), "%s", unit_path("result.txt"));
	remove(res);
	if (unit_write_file(orig, a, alen) || unit_write_file(pd, d->data, d->len))
		return false;
	ok = unit_run(argv, NULL, &log) == 0;
	if (ok && log.data && (strstr((char *)log.data, "offset") ||
			       strstr((char *)log.data, "fuzz"))) {
		printf("# patch: %s", (char *)log.data);
		ok = false;
	}
	got = ok ? unit_read_file(res, &rlen) : NULL;
	ok = got && rlen == blen && !memcmp(got, b, blen);
	free(got);
	imgp_buf_free(&log);
	return ok;
}

static void show(const char *what, const struct imgp_buf *b)
{
	printf("# %s:\n", what);
	if (b->data && b->len)
		printf("%s", (const char *)b->data);
}

/* Ours must equal diff -u byte for byte, and patch must give b back. */
static void expect_gnu(const char *a, const char *b, const char *name)
{
	struct imgp_buf ours = { 0 }, gnu = { 0 };
	size_t alen = strlen(a), blen = strlen(b);
	int rc = imgp_diff_unified_(a, alen, b, blen, "A", "B", &ours);
	bool same;

	CHECK(rc == 0, name);
	if (gnu_diff(a, alen, b, blen, &gnu)) {
		CHECK(0, "diff -u runs");
		goto out;
	}
	same = ours.len == gnu.len && (!ours.len || !memcmp(ours.data, gnu.data, ours.len));
	CHECK(same, name);
	if (!same) {
		show("ours", &ours);
		show("diff -u", &gnu);
	}
	if (ours.len)
		CHECK(patch_gives(a, alen, b, blen, &ours), name);
out:
	imgp_buf_free(&ours);
	imgp_buf_free(&gnu);
}

static void expect_text(const char *a, const char *b, const char *want,
			const char *name)
{
	struct imgp_buf out = { 0 };

	CHECK(imgp_diff_unified_(a, strlen(a), b, strlen(b), "old", "new", &out) == 0,
	      name);
	CHECK_STR(out.data ? (char *)out.data : "", want, name);
	imgp_buf_free(&out);
}

static void check_format(void)
{
	struct imgp_buf out = { 0 };

	CHECK(imgp_diff_unified_("a\n", 2, "a\n", 2, "x", "y", &out) == 0 &&
	      out.len == 0, "equal texts: nothing");
	CHECK(imgp_diff_unified_("", 0, "", 0, "x", "y", &out) == 0 && out.len == 0,
	      "two empty texts: nothing");
	CHECK(imgp_diff_unified_(NULL, 0, NULL, 0, "x", "y", &out) == 0 &&
	      out.len == 0, "two empty texts without buffers: nothing");
	CHECK(imgp_diff_unified_(NULL, 0, "x\n", 2, "x", "y", &out) == 0 &&
	      out.data && !strcmp((char *)out.data, "--- x\n+++ y\n@@ -0,0 +1 @@\n+x\n"),
	      "an empty text without storage");
	out.len = 0;
	imgp_buf_append(&out, "kept\n", 5);
	CHECK(imgp_diff_unified_("a\n", 2, "b\n", 2, "x", "y", &out) == 0, "appends");
	CHECK_STR((char *)out.data, "kept\n--- x\n+++ y\n@@ -1 +1 @@\n-a\n+b\n",
		  "appends after what out holds");
	imgp_buf_free(&out);

	expect_text("", "x\n", "--- old\n+++ new\n@@ -0,0 +1 @@\n+x\n",
		    "from nothing: -0,0");
	expect_text("x\ny\n", "", "--- old\n+++ new\n@@ -1,2 +0,0 @@\n-x\n-y\n",
		    "to nothing: +0,0");
	expect_text("a\nb", "a\nb\n",
		    "--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		    "newline added at the end");
	expect_text("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
		    "--- old\n+++ new\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		    "three lines of context each side");
}

/* Cases whose output diff -u decides; ours must be the same bytes. */
static void check_gnu_cases(void)
{
	static const char config[] =
		"# For more options see the documentation\n"
		"[pi4]\n"
		"dtoverlay=vc4-fkms-v3d\n"
		"max_framebuffers=2\n"
		"\n"
		"[all]\n"
		"dtparam=audio=on\n"
		"camera_auto_detect=1\n"
		"display_auto_detect=1\n"
		"arm_64bit=1\n";
	static const char config2[] =
		"# For more options see the documentation\n"
		"[pi4]\n"
		"dtoverlay=vc4-kms-v3d\n"
		"max_framebuffers=2\n"
		"\n"
		"[all]\n"
		"dtparam=audio=on\n"
		"camera_auto_detect=1\n"
		"display_auto_detect=1\n"
		"arm_64bit=1\n"
		"\n"
		"[all]\n"
		"dtparam=sd_overclock=100\n";

	expect_gnu("", "one\n", "empty to one line");
	expect_gnu("one\n", "", "one line to empty");
	expect_gnu("one\n", "two\n", "one line changed");
	expect_gnu("one", "two", "one line changed, no newlines");
	expect_gnu("a\nb\nc", "a\nb\nc\n", "final newline added");
	expect_gnu("a\nb\nc\n", "a\nb\nc", "final newline removed");
	expect_gnu("a\nb\nc\nd\ne\nf", "a\nB\nc\nd\ne\nf",
		   "change above a last line without newline");
	expect_gnu("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n",
		   "1\nX\n3\n4\n5\n6\n7\n8\nY\n10\n11\n12\n13\n14\n15\n16\n",
		   "6 unchanged lines between changes: one hunk");
	expect_gnu("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n",
		   "1\nX\n3\n4\n5\n6\n7\n8\n9\nY\n11\n12\n13\n14\n15\n16\n",
		   "7 unchanged lines between changes: two hunks");
	expect_gnu("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
		   "lines added at both ends");
	expect_gnu("a\n\n\n\nb\n", "a\n\n\n\n\nb\n", "a blank line added among blank lines");
	expect_gnu("}\n}\n}\n", "}\n}\n}\n}\n}\n", "equal lines added");
	expect_gnu("x\r\ny\r\nz\r\n", "x\r\nY\r\nz\r\n", "CRLF lines");
	expect_gnu("x\ny\nz\n", "x\r\ny\r\nz\r\n", "LF to CRLF");
	expect_gnu("a\nb\nc\nd\n", "d\nc\nb\na\n", "reversed");
	expect_gnu(config, config2, "a config.txt edit");
	expect_gnu(config2, config, "a config.txt edit undone");
}

/*
 * A pair where diff -u's heuristics (it sets aside lines with many matches)
 * pick another, equally short, alignment than ours: the checks are then as
 * few changed lines as diff's, and patch giving the new text back.
 */
static void check_other_alignment(void)
{
	static const char a[] =
		"a\nd\nc\nd\na\nc\nd\nb\nb\nb\nc\nb\na\na\nc\nb\nd\nb\nd\nd\n"
		"c\ne\nc\nb\nc\na\nd\nb\nd\nd\nd\nb\ne\ne\nd\na\ne\nc\ne\na\n"
		"d\na\nb\nc\nd\na\nb\na\ne\nb\nc\ne\na\nc\nc\nc\nd\nc\nb\nd\n"
		"a\na\nc\nc\nb\ne\ne\nb\nb\nb\na\nc\ne\ne\nb\ne\ne\ne\nd\na\nb\n";
	static const char b[] = "e\ne\ne\nc\nc\ne\nd\nc\ne\ne\nc\nd\nc\nc\n";
	struct imgp_buf ours = { 0 }, gnu = { 0 };

	CHECK(imgp_diff_unified_(a, sizeof(a) - 1, b, sizeof(b) - 1, "A", "B",
				&ours) == 0, "other alignment: diff");
	CHECK(gnu_diff(a, sizeof(a) - 1, b, sizeof(b) - 1, &gnu) == 0,
	      "other alignment: diff -u runs");
	CHECK(count_changes(&ours) == count_changes(&gnu) &&
	      count_changes(&ours) == min_changes(a, sizeof(a) - 1, b, sizeof(b) - 1),
	      "other alignment: as many changed lines as diff -u, the fewest");
	CHECK(patch_gives(a, sizeof(a) - 1, b, sizeof(b) - 1, &ours),
	      "other alignment: patch gives the new text back");
	imgp_buf_free(&ours);
	imgp_buf_free(&gnu);
}

/* Random text: up to maxlines lines drawn from nwords words, CRLF or not. */
static char *random_text(unsigned *seed, size_t maxlines, unsigned nwords,
			 size_t *len)
{
	static const char *const words[] = {
		"a", "b", "c", "d", "e", "f", "g", "h", "", "}", "\t};",
		"dtparam=audio=on", "[all]", "#",
	};
	struct imgp_buf b = { 0 };
	size_t n = (size_t)rand_r(seed) % (maxlines + 1), i;
	bool crlf = rand_r(seed) % 8 == 0;

	imgp_buf_append(&b, "", 0);
	for (i = 0; i < n; i++)
		imgp_buf_printf(&b, "%s%s", words[(unsigned)rand_r(seed) % nwords],
				crlf ? "\r\n" : "\n");
	if (b.len && rand_r(seed) % 5 == 0)
		b.len--;
	*len = b.len;
	return (char *)b.data;
}

/* b made from a by a few random edits, as real edits look. */
static char *edited_text(unsigned *seed, const char *a, size_t alen,
			 unsigned nwords, size_t *len)
{
	struct lines l;
	struct imgp_buf b = { 0 };
	size_t i;

	imgp_buf_append(&b, "", 0);
	if (lines_split(&l, a, alen)) {
		*len = 0;
		return (char *)b.data;
	}
	for (i = 0; i <= l.n; i++) {
		unsigned r = (unsigned)rand_r(seed) % 10;

		if (r == 0)
			imgp_buf_printf(&b, "new %u\n", (unsigned)rand_r(seed) % nwords);
		if (i < l.n && r != 1)
			imgp_buf_append(&b, l.p[i], l.len[i]);
	}
	lines_free(&l);
	*len = b.len;
	return (char *)b.data;
}

static void check_random(void)
{
	static const struct {
		size_t maxlines;
		unsigned nwords;
		int count;
		bool edit;
	} sets[] = {
		{ 8, 2, 120, false },   { 12, 3, 120, false }, { 30, 4, 60, false },
		{ 60, 14, 40, false },  { 120, 6, 20, false }, { 200, 14, 20, true },
		{ 40, 3, 40, true },
	};
	unsigned seed = 20240501;
	int total = 0, same = 0, bad_patch = 0, not_min = 0, longer = 0;
	bool shown = false;
	size_t s;
	int k;

	for (s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		for (k = 0; k < sets[s].count; k++) {
			struct imgp_buf ours = { 0 }, gnu = { 0 };
			size_t alen, blen, n;
			char *a = random_text(&seed, sets[s].maxlines, sets[s].nwords, &alen);
			char *b = sets[s].edit ?
				  edited_text(&seed, a, alen, sets[s].nwords, &blen) :
				  random_text(&seed, sets[s].maxlines, sets[s].nwords, &blen);

			total++;
			if (imgp_diff_unified_(a, alen, b, blen, "A", "B", &ours) ||
			    gnu_diff(a, alen, b, blen, &gnu)) {
				bad_patch++;
				goto next;
			}
			n = count_changes(&ours);
			if (ours.len == gnu.len &&
			    (!ours.len || !memcmp(ours.data, gnu.data, ours.len)))
				same++;
			else if (count_changes(&gnu) < n)
				longer++;
			if (n != min_changes(a, alen, b, blen))
				not_min++;
			if (ours.len ? !patch_gives(a, alen, b, blen, &ours) :
				       alen != blen || memcmp(a, b, alen))
				bad_patch++;
			if (!shown && not_min + bad_patch + longer) {
				printf("# first failing pair: set %zu, case %d\n", s, k);
				show("ours", &ours);
				show("diff -u", &gnu);
				shown = true;
			}
next:
			imgp_buf_free(&ours);
			imgp_buf_free(&gnu);
			free(a);
			free(b);
		}
	}
	printf("# random pairs: %d of %d byte-identical to diff -u\n", same, total);
	CHECK(bad_patch == 0, "random pairs: patch gives the new text back exactly");
	CHECK(not_min == 0, "random pairs: as few changed lines as possible");
	CHECK(longer == 0, "random pairs: never more changed lines than diff -u");
	/* Differences come only from diff's heuristics on repeated lines. */
	CHECK(same * 100 >= total * 95, "random pairs: nearly all byte-identical to diff -u");
}

/* Numbered lines: n of them, with "changed" in place of the listed ones. */
static char *numbered(size_t n, const size_t *changed, size_t nchanged, size_t *len)
{
	struct imgp_buf b = { 0 };
	size_t i, c = 0;

	for (i = 0; i < n; i++) {
		if (c < nchanged && changed[c] == i) {
			imgp_buf_printf(&b, "changed %zu\n", i);
			c++;
		} else {
			imgp_buf_printf(&b, "line %zu\n", i);
		}
	}
	*len = b.len;
	return (char *)b.data;
}

static void check_large(void)
{
	static const size_t few[] = { 10, 4000, 4001, 9000, 14990 };
	static const size_t far[] = { 100, 28999 };
	struct imgp_buf ours = { 0 }, gnu = { 0 };
	size_t alen, blen;
	char *a, *b;

	/* Within the bound: the real diff, as diff -u writes it. */
	a = numbered(15000, NULL, 0, &alen);
	b = numbered(15000, few, 5, &blen);
	CHECK(a && b && imgp_diff_unified_(a, alen, b, blen, "A", "B", &ours) == 0,
	      "15000 lines diff");
	CHECK(gnu_diff(a, alen, b, blen, &gnu) == 0 && ours.len == gnu.len &&
	      !memcmp(ours.data, gnu.data, ours.len),
	      "15000 lines: byte-identical to diff -u");
	CHECK(count_changes(&ours) == 10, "15000 lines: 5 lines changed");
	free(a);
	free(b);
	imgp_buf_free(&ours);

	/* Beyond it: one hunk from the first change to the last. */
	a = numbered(30000, NULL, 0, &alen);
	b = numbered(30000, far, 2, &blen);
	CHECK(a && b && imgp_diff_unified_(a, alen, b, blen, "A", "B", &ours) == 0,
	      "30000 lines diff");
	CHECK(ours.data && strstr((char *)ours.data, "\n@@ -98,28906 +98,28906 @@\n") &&
	      count_hunks(&ours) == 1,
	      "changes 28900 lines apart: one hunk of everything between");
	CHECK(count_changes(&ours) == 2 * 28900, "the hunk replaces all of them");
	CHECK(patch_gives(a, alen, b, blen, &ours), "patch applies the large hunk");
	free(a);
	free(b);
	imgp_buf_free(&ours);
	imgp_buf_free(&gnu);
}

int main(void)
{
	if (unit_tmpdir_create("diff")) {
		perror("mkdtemp");
		return 1;
	}
	check_format();
	check_gnu_cases();
	check_other_alignment();
	check_random();
	check_large();
	unit_tmpdir_remove();
	return unit_done();
}
