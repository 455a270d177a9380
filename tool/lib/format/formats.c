// SPDX-License-Identifier: MIT
/*
 * Every image format imgpatch reads or writes, in one table (formats.h):
 * compressed streams (read and written through libarchive's filters) and
 * archives holding one disk image (read only).
 */
#include <archive.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "format/format.h"
#include "format/formats.h"

static const struct imgp_format_entry_ formats[] = {
	{ .fmt = IMGP_FMT_RAW, .name = "raw", .short_name = "none",
	  .filter = ARCHIVE_FILTER_NONE, .min_level = -1, .max_level = -1 },
	{ .fmt = IMGP_FMT_XZ, .name = "xz", .short_name = "xz", .suffix = ".xz",
	  .filter = ARCHIVE_FILTER_XZ, .read_support = archive_read_support_format_raw,
	  .writer = "xz", .min_level = 0, .max_level = 9, .threads = true },
	{ .fmt = IMGP_FMT_GZIP, .name = "gzip", .short_name = "gz", .suffix = ".gz",
	  .filter = ARCHIVE_FILTER_GZIP, .read_support = archive_read_support_format_raw,
	  .writer = "gzip", .min_level = 1, .max_level = 9 },
	{ .fmt = IMGP_FMT_ZSTD, .name = "zstd", .short_name = "zst", .suffix = ".zst",
	  .filter = ARCHIVE_FILTER_ZSTD, .read_support = archive_read_support_format_raw,
	  .writer = "zstd", .min_level = 1, .max_level = 22, .threads = true },
	{ .fmt = IMGP_FMT_BZIP2, .name = "bzip2", .short_name = "bz2", .suffix = ".bz2",
	  .filter = ARCHIVE_FILTER_BZIP2, .read_support = archive_read_support_format_raw,
	  .writer = "bzip2", .min_level = 1, .max_level = 9 },
	{ .fmt = IMGP_FMT_LZ4, .name = "lz4", .short_name = "lz4", .suffix = ".lz4",
	  .filter = ARCHIVE_FILTER_LZ4, .read_support = archive_read_support_format_raw,
	  .writer = "lz4", .min_level = 1, .max_level = 9 },
	{ .fmt = IMGP_FMT_ZIP, .name = "zip", .short_name = "zip", .filter = -1,
	  .archive_format = ARCHIVE_FORMAT_ZIP,
	  .read_support = archive_read_support_format_zip },
	{ .fmt = IMGP_FMT_7Z, .name = "7z", .short_name = "7z", .filter = -1,
	  .archive_format = ARCHIVE_FORMAT_7ZIP,
	  .read_support = archive_read_support_format_7zip },
	{ .fmt = IMGP_FMT_TAR, .name = "tar", .short_name = "tar", .filter = -1,
	  .archive_format = ARCHIVE_FORMAT_TAR,
	  .read_support = archive_read_support_format_tar },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const struct imgp_format_entry_ *imgp_format_entry_(enum imgp_format fmt)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].fmt == fmt)
			return &formats[i];
	return NULL;
}

const struct imgp_format_entry_ *imgp_format_by_filter_(int filter)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (!formats[i].archive_format && formats[i].filter == filter)
			return &formats[i];
	return NULL;
}

const struct imgp_format_entry_ *imgp_format_by_archive_(int archive_format)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].archive_format && formats[i].archive_format == archive_format)
			return &formats[i];
	return NULL;
}

const char *imgp_format_list_(char *buf, size_t size, bool short_names,
			     const char *last)
{
	size_t n = 0, len = 0, count = 0;

	for (size_t i = 0; i < NFORMATS; i++)
		count += formats[i].writer != NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < NFORMATS && len < size; i++) {
		if (!formats[i].writer)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					n == 0 ? "" : n + 1 == count && !last ? " or " : ", ",
					short_names ? formats[i].short_name : formats[i].name);
		n++;
	}
	if (last && len < size)
		snprintf(buf + len, size - len, " or %s", last);
	return buf;
}

const char *imgp_format_name(enum imgp_format fmt)
{
	const struct imgp_format_entry_ *e = imgp_format_entry_(fmt);

	return e ? e->name : "unknown";
}

enum imgp_format imgp_format_from_name_(const char *path)
{
	size_t len = strlen(path);

	for (size_t i = 0; i < NFORMATS; i++) {
		size_t n = formats[i].suffix ? strlen(formats[i].suffix) : 0;

		if (n && len > n && !strcasecmp(path + len - n, formats[i].suffix))
			return formats[i].fmt;
	}
	return IMGP_FMT_RAW;
}

int imgp_format_parse(const char *name, enum imgp_format *fmt)
{
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct imgp_format_entry_ *e = &formats[i];

		if (!e->writer && e->fmt != IMGP_FMT_RAW)
			continue;
		if (!strcmp(name, e->name) || !strcmp(name, e->short_name)) {
			*fmt = e->fmt;
			return 0;
		}
	}
	return -EINVAL;
}

static char choices[128];
static pthread_once_t choices_once = PTHREAD_ONCE_INIT;

static void choices_make(void)
{
	imgp_format_list_(choices, sizeof(choices), true, "none");
}

/* Made once, so that two threads asking first do not write it together. */
const char *imgp_format_choices(void)
{
	pthread_once(&choices_once, choices_make);
	return choices;
}

bool imgp_format_is_compressed_(enum imgp_format fmt)
{
	const struct imgp_format_entry_ *e = imgp_format_entry_(fmt);

	return e && e->writer;
}
