// SPDX-License-Identifier: MIT
/*
 * SOURCE_DATE_EPOCH (reproducible-builds.org): one strict parser, so that
 * the FAT, ext and boot script writers agree on what a value means and a
 * bad one is refused the same way everywhere.
 */
#include <errno.h>
#include <stdlib.h>

#include "imgpatch.h"
#include "core/epoch.h"

int imgp_source_date_epoch_(int64_t *out)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	unsigned long long v;
	char *end;

	*out = -1;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || v > (unsigned long long)INT64_MAX)
		return imgp_fail(EINVAL, "SOURCE_DATE_EPOCH '%s' is not a number of seconds",
				 s);
	*out = (int64_t)v;
	return 0;
}
