// SPDX-License-Identifier: MIT
/*
 * The byte ranges of a FAT partition the capture copy holds, and the ones
 * a commit compares: a sorted list, each new range merged with those it
 * touches, so a folder read twice is held once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "fs/fs.h"

int imgp_fat_ranges_add_(struct imgp_fat_ranges *set, uint64_t off, uint64_t len)
{
	size_t i = 0, j;
	struct imgp_extent *grown;

	while (i < set->n && set->r[i].file_off + set->r[i].len < off)
		i++;
	j = i;
	while (j < set->n && set->r[j].file_off <= off + len) {
		uint64_t end = set->r[j].file_off + set->r[j].len;

		if (set->r[j].file_off < off) {
			len += off - set->r[j].file_off;
			off = set->r[j].file_off;
		}
		if (end > off + len)
			len = end - off;
		j++;
	}
	if (j > i) {
		/* Ranges i..j-1 merge into one at i. */
		set->r[i].file_off = off;
		set->r[i].len = len;
		memmove(&set->r[i + 1], &set->r[j], (set->n - j) * sizeof(*set->r));
		set->n -= j - i - 1;
		return 0;
	}
	grown = realloc(set->r, (set->n + 1) * sizeof(*grown));
	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	set->r = grown;
	memmove(&set->r[i + 1], &set->r[i], (set->n - i) * sizeof(*set->r));
	set->r[i].file_off = off;
	set->r[i].len = len;
	set->r[i].img_off = 0;
	set->n++;
	return 0;
}
