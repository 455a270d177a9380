// SPDX-License-Identifier: MIT
/*
 * Partition tables: the label registry, checks every label shares (no
 * overlapping partitions), lookup by number/name/label and bounded reads
 * inside a partition.
 */
#include <blkid.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"

/* GPT first: a GPT disk also carries a (protective or hybrid) MBR. */
static const struct {
	const struct imgp_label_ops *ops;
	const char *title;       /* how messages name the label */
} labels[] = {
	{ &imgp_label_gpt_, "GPT" },
	{ &imgp_label_mbr_, "MBR" },
};

static int part_cmp_start(const void *a, const void *b)
{
	const struct imgp_part *x = *(const struct imgp_part *const *)a;
	const struct imgp_part *y = *(const struct imgp_part *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->number > y->number) - (x->number < y->number);
}

static bool part_overlap(const struct imgp_part *a, const struct imgp_part *b)
{
	return a->start < b->start + b->size && b->start < a->start + a->size;
}

static int part_overlap_fail(const struct imgp_table *tab, const char *title,
			     const struct imgp_part *a, const struct imgp_part *b)
{
	uint64_t ss = tab->sector_size;

	if (a->number > b->number) {
		const struct imgp_part *t = a;

		a = b;
		b = t;
	}
	return imgp_fail(EINVAL,
			 "%s: partitions %d and %d overlap (" IMGP_PART_FMT ": sectors %llu..%llu, " IMGP_PART_FMT ": sectors %llu..%llu)",
			 title, a->number, b->number, a->number,
			 (unsigned long long)(a->start / ss),
			 (unsigned long long)((a->start + a->size) / ss - 1),
			 b->number, (unsigned long long)(b->start / ss),
			 (unsigned long long)((b->start + b->size) / ss - 1));
}

/*
 * No two partitions may share a sector, except that logical partitions lie
 * inside their extended container (the label checks that they do). Sorting
 * keeps this O(n log n) for GPTs with many entries.
 */
static int table_check_overlaps(const struct imgp_table *tab, const char *title)
{
	const struct imgp_part **sorted;
	const struct imgp_part *widest = NULL;
	size_t n = 0;
	int rc = 0;

	if (!tab->nparts)
		return 0;
	sorted = calloc(tab->nparts, sizeof(*sorted));
	if (!sorted)
		return imgp_fail(ENOMEM, "%s: out of memory", title);
	for (size_t i = 0; i < tab->nparts; i++)
		if (!tab->parts[i].container)
			sorted[n++] = &tab->parts[i];
	qsort(sorted, n, sizeof(*sorted), part_cmp_start);
	for (size_t i = 0; i < n; i++) {
		if (widest && part_overlap(widest, sorted[i])) {
			rc = part_overlap_fail(tab, title, widest, sorted[i]);
			goto out;
		}
		if (!widest || sorted[i]->start + sorted[i]->size >
			       widest->start + widest->size)
			widest = sorted[i];
	}
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *c = &tab->parts[i];

		if (!c->container)
			continue;
		for (size_t j = 0; j < tab->nparts; j++) {
			const struct imgp_part *p = &tab->parts[j];

			if (p != c && !p->logical && part_overlap(c, p)) {
				rc = part_overlap_fail(tab, title, c, p);
				goto out;
			}
		}
	}
out:
	free(sorted);
	return rc;
}

/*
 * Refuses the labels imgpatch does not read (Atari, BSD, Sun, SGI, Mac...)
 * by the name libblkid gives them, so that the refusal says what is there;
 * 0 when libblkid names none and !last, else "no partition table". It
 * reads the file itself: an image unpacked on demand must hold both ends.
 */
static int table_refuse_foreign(const struct imgp_image *img, bool last)
{
	const char *val;
	char pttype[32] = "";
	blkid_probe pr;
	uint64_t span = img->size < IMGP_PROBE_SPAN ? img->size : IMGP_PROBE_SPAN;
	int rc;

	rc = imgp_image_fill_(img, 0, span);
	if (!rc)
		rc = imgp_image_fill_(img, img->size - span, span);
	if (rc)
		return rc;
	pr = blkid_new_probe();
	if (pr && !blkid_probe_set_device(pr, img->fd, 0, (blkid_loff_t)img->size)) {
		blkid_probe_enable_superblocks(pr, 0);
		blkid_probe_enable_partitions(pr, 1);
		if (!blkid_do_safeprobe(pr) &&
		    !blkid_probe_lookup_value(pr, "PTTYPE", &val, NULL))
			imgp_copy_utf8_(pttype, sizeof(pttype), val);
	}
	if (pr)
		blkid_free_probe(pr);
	/* "dos", "gpt" and "PMBR" are tables the labels above refused to read. */
	if (pttype[0] && strcmp(pttype, "dos") && strcmp(pttype, "gpt") &&
	    strcmp(pttype, "PMBR"))
		return imgp_fail(ENOTSUP, "%s partition table: not supported (imgpatch reads GPT and MBR)",
				 pttype);
	return last ? imgp_fail(ENOENT, "no partition table (neither GPT nor MBR)") : 0;
}

int imgp_table_read_(const struct imgp_image *img, struct imgp_table *tab)
{
	uint8_t sig[2];
	bool no_mbr;
	int rc;

	memset(tab, 0, sizeof(*tab));
	if (img->size < 512)
		return imgp_fail(EINVAL,
				 "image is too small to hold a partition table (%llu bytes, an MBR needs 512)",
				 (unsigned long long)img->size);
	/*
	 * Without 0x55aa in sector 0 there is no MBR, nor a GPT's protective
	 * one: a label over a stale GPT header (parted's Sun label) is that.
	 */
	rc = imgp_image_read_(img, 510, sig, sizeof(sig));
	if (rc)
		return rc;
	no_mbr = sig[0] != 0x55 || sig[1] != 0xaa;
	if (no_mbr) {
		rc = table_refuse_foreign(img, false);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		rc = labels[i].ops->probe(img);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		rc = labels[i].ops->read(img, tab);
		if (!rc)
			rc = table_check_overlaps(tab, labels[i].title);
		if (rc)
			imgp_table_free_(tab);
		return rc;
	}
	/* libblkid was asked already when there is no MBR. */
	return no_mbr ? imgp_fail(ENOENT, "no partition table (neither GPT nor MBR)")
		      : table_refuse_foreign(img, true);
}

void imgp_table_free_(struct imgp_table *tab)
{
	free(tab->parts);
	memset(tab, 0, sizeof(*tab));
}

/* Describes the partitions for "not found" messages. */
static void table_list(const struct imgp_table *tab, struct imgp_buf *b)
{
	if (!tab->nparts) {
		imgp_buf_printf(b, "the table has no partitions");
		return;
	}
	imgp_buf_printf(b, "have: ");
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];

		imgp_buf_printf(b, "%s%d", i ? ", " : "", p->number);
		if (p->name[0])
			imgp_buf_printf(b, " '%s'", p->name);
		if (p->container)
			imgp_buf_printf(b, " (extended)");
		if (p->fstype[0])
			imgp_buf_printf(b, " %s", p->fstype);
		if (p->fslabel[0])
			imgp_buf_printf(b, " %s", p->fslabel);
	}
}

/* Numbers of the partitions matching a GPT name or filesystem label. */
static const struct imgp_part *table_find_text(const struct imgp_table *tab,
					       const char *spec, bool by_name,
					       size_t *count, struct imgp_buf *nums)
{
	const struct imgp_part *found = NULL;

	*count = 0;
	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];
		const char *s = by_name ? p->name : p->fslabel;

		if (!s[0] || strcmp(s, spec))
			continue;
		imgp_buf_printf(nums, "%s%d", *count ? ", " : "", p->number);
		if (!found)
			found = p;
		(*count)++;
	}
	return found;
}

static bool is_number(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n > 0 && n <= 9 && !s[n];
}

const struct imgp_part *imgp_table_find_(const struct imgp_table *tab,
					const char *spec)
{
	struct imgp_buf b = { 0 };
	const struct imgp_part *p = NULL;
	size_t count = 0;

	if (is_number(spec)) {
		int n = atoi(spec);

		for (size_t i = 0; i < tab->nparts; i++)
			if (tab->parts[i].number == n)
				return &tab->parts[i];
	} else {
		for (int pass = 0; pass < 2 && !p; pass++) {
			imgp_buf_free(&b);
			p = table_find_text(tab, spec, pass == 0, &count, &b);
		}
		if (count == 1) {
			imgp_buf_free(&b);
			return p;
		}
		if (count > 1) {
			/* Patching the wrong one of two would be worse than asking. */
			imgp_fail(EEXIST,
				  "partition %s '%s' is ambiguous (partitions %s): give the number",
				  p->name[0] && !strcmp(p->name, spec) ? "name" : "label",
				  spec, b.data ? (const char *)b.data : "");
			imgp_buf_free(&b);
			return NULL;
		}
	}
	imgp_buf_free(&b);
	table_list(tab, &b);
	imgp_fail(ENOENT, "no partition '%s' (%s)", spec,
		  b.data ? (const char *)b.data : "out of memory");
	imgp_buf_free(&b);
	return NULL;
}

int imgp_part_read_(const struct imgp_image *img, const struct imgp_part *part,
		   uint64_t off, void *buf, size_t len)
{
	if (off > part->size || len > part->size - off)
		return imgp_fail(ERANGE,
				 IMGP_PART_FMT ": read of %zu bytes at offset %llu is past the end of the partition (%llu bytes)",
				 part->number, len, (unsigned long long)off,
				 (unsigned long long)part->size);
	return imgp_image_read_(img, part->start + off, buf, len);
}
