/* SPDX-License-Identifier: MIT */
/*
 * Minimal unit-test harness: each CHECK prints one TAP line ("ok - name" or
 * "not ok - name") so tests/run.sh counts C and shell tests alike.
 * unit_done() returns the exit status (1 when any check failed).
 */
#ifndef IMGP_UNIT_H
#define IMGP_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_failed, unit_count;

#define CHECK(cond, name)                                                     \
	do {                                                                  \
		unit_count++;                                                 \
		if (cond) {                                                   \
			printf("ok %d - %s\n", unit_count, name);             \
		} else {                                                      \
			unit_failed++;                                        \
			printf("not ok %d - %s (%s:%d: %s)\n", unit_count,    \
			       name, __FILE__, __LINE__, #cond);              \
		}                                                             \
	} while (0)

#define CHECK_STR(got, want, name)                                            \
	do {                                                                  \
		const char *g_ = (got), *w_ = (want);                         \
		CHECK(g_ && strcmp(g_, w_) == 0, name);                       \
		if (!g_ || strcmp(g_, w_) != 0)                               \
			printf("#   got:  '%s'\n#   want: '%s'\n",            \
			       g_ ? g_ : "(null)", w_);                       \
	} while (0)

static inline int unit_done(void)
{
	printf("# %d checks, %d failed\n", unit_count, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
