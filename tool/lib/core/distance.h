// SPDX-License-Identifier: MIT
/* How close two names are, for "did you mean" hints in messages. */
#ifndef IMGP_DISTANCE_H
#define IMGP_DISTANCE_H

#include <stddef.h>

/* Longest name imgp_word_distance_() compares; longer ones are never close. */
#define IMGP_WORD_MAX 64

/*
 * Edit distance (insertions, deletions, substitutions) of two short
 * words: enough to catch typos. SIZE_MAX when either is longer than
 * IMGP_WORD_MAX.
 */
size_t imgp_word_distance_(const char *a, const char *b);

#endif
