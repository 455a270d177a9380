/* SPDX-License-Identifier: MIT */
/*
 * The registry of image formats (formats.c), private to tool/lib/format:
 * each compression and archive format is one entry with its names, file
 * suffix, how libarchive recognises and reads it, and how it is written.
 * unpack.c and pack.c only look formats up here; a new format is
 * one entry.
 */
#ifndef IMGP_FORMATS_H
#define IMGP_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

#include "imgpatch.h"

struct archive;

struct imgp_format_entry_ {
	enum imgp_format fmt;
	const char *name;          /* imgp_format_name(): "gzip" */
	const char *short_name;    /* --compress and lists: "gz" (the suffix's word) */
	const char *suffix;        /* an output named so is written so: ".gz"; NULL: never */
	/*
	 * Reading: the libarchive filter (ARCHIVE_FILTER_*) whose bidder
	 * recognises a compressed stream by its magic, or the archive format
	 * (ARCHIVE_FORMAT_*) of a container; read_support enables exactly that
	 * reader, so nothing else can claim the file.
	 */
	int filter;
	int archive_format;        /* 0: a compressed stream, not a container */
	int (*read_support)(struct archive *a);
	/* Writing: archive_write_add_filter_by_name(); NULL: read only. */
	const char *writer;
	int min_level, max_level;  /* --level range */
	bool threads;              /* the writer takes "threads" */
};

/* The entry of fmt (RAW has one too, without reader or writer). */
const struct imgp_format_entry_ *imgp_format_entry_(enum imgp_format fmt);
/* The entry of a compressed stream's libarchive filter, or NULL. */
const struct imgp_format_entry_ *imgp_format_by_filter_(int filter);
/* The entry of a container's libarchive format (base code), or NULL. */
const struct imgp_format_entry_ *imgp_format_by_archive_(int archive_format);
/*
 * The writable formats' names (or short names) into buf: "xz, gzip, zstd,
 * bzip2 or lz4", or with last "xz, ..., lz4 or LAST". Returns buf.
 */
const char *imgp_format_list_(char *buf, size_t size, bool short_names,
			     const char *last);
/*
 * imgp_format_detect_() on the file open as fd (read from its start; path
 * names it in messages), which stays open. Returns 0 or -errno.
 */
int imgp_format_detect_fd_(const char *path, int fd, enum imgp_format *fmt);

#endif
