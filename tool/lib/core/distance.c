// SPDX-License-Identifier: MIT
/* Edit distance of names, for the hints that name what was probably meant. */
#include <stdint.h>
#include <string.h>

#include "core/distance.h"

size_t imgp_word_distance_(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[IMGP_WORD_MAX + 1];

	if (la > IMGP_WORD_MAX || lb > IMGP_WORD_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}
