// SPDX-License-Identifier: MIT
/*
 * Images as they are downloaded: detecting raw, compressed (xz, gzip, zstd,
 * bzip2, lz4) and archived (zip, 7z, tar) files by content with libarchive's
 * bidders, and unpacking the one disk image they hold into a sparse file.
 */
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "format/format.h"
#include "core/io.h"
#include "format/formats.h"

/* Read size for the compressed input. */
#define READ_BLOCK ((size_t)1 << 20)
/* Zero blocks of this size (aligned in the output) become holes. */
#define HOLE_BLOCK 4096
/*
 * An all-zero stream up to this size is an empty tar archive (tar pads its
 * end-of-archive mark to a record of 10 KiB by default); anything longer,
 * or anything with data after leading zero blocks (a bare ext4 image), is
 * an image that only starts like one.
 */
#define EMPTY_TAR_MAX ((size_t)1 << 20)
/* A tar header block, and the zero padding that ends every writer's. */
#define TAR_BLOCK 512
#define TAR_PAD 12
/* Entry names listed in the "expected exactly one disk image" message. */
#define NAMES_MAX 8

static bool is_archive(enum imgp_format fmt)
{
	const struct imgp_format_entry_ *e = imgp_format_entry_(fmt);

	return e && e->archive_format;
}

/*
 * Records libarchive's reason for a failure, prefixed by what was being
 * done. Its messages start with a capital ("Truncated xz input"): lowered
 * unless the word is an acronym. A corrupt input (libarchive's "file
 * format" errno, EILSEQ where EFTYPE is missing) is -EINVAL.
 */
static int arch_fail_hint(struct archive *a, const char *what,
			  const char *hint)
{
	const char *msg = archive_error_string(a);
	int err = archive_errno(a);
	char first[2] = "";

	/* The 7z reader fails on a cut-off file without a word. */
	if (!msg || !*msg)
		msg = err > 0 ? strerror(err) : "damaged or truncated data";
	if (err == EILSEQ)
		err = EINVAL;
	else if (err <= 0)
		err = EIO;
	if (hint && strstr(msg, "runcated"))
		hint = NULL;
	if (isupper((unsigned char)msg[0]) && islower((unsigned char)msg[1])) {
		first[0] = (char)tolower((unsigned char)msg[0]);
		msg++;
	}
	return imgp_fail(err, "%s: %s%s%s%s%s", what, first, msg,
			 hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

static int arch_fail(struct archive *a, const char *what)
{
	return arch_fail_hint(a, what, NULL);
}

static struct archive *reader_new(void)
{
	struct archive *a = archive_read_new();

	if (!a) {
		imgp_fail(ENOMEM, "out of memory");
		return NULL;
	}
	archive_read_support_filter_all(a);
	return a;
}

/*
 * Opens a reader on path, or on fd from its start when fd >= 0 (the file
 * a caller already holds: no second open; libarchive leaves it open).
 */
static int reader_open(struct archive *a, const char *path, int fd)
{
	int err;

	if (fd >= 0 && lseek(fd, 0, SEEK_SET) < 0) {
		err = errno;
		return imgp_fail(err, "cannot read: %s", strerror(err));
	}
	if ((fd >= 0 ? archive_read_open_fd(a, fd, READ_BLOCK) :
	     archive_read_open_filename(a, path, READ_BLOCK)) == ARCHIVE_OK)
		return 0;
	/* libarchive's own text repeats the path the caller prints. */
	err = archive_errno(a);
	if (err > 0 && err != EILSEQ)
		return imgp_fail(err, "cannot open: %s", strerror(err));
	return arch_fail(a, "cannot open");
}

/*
 * A reader of the (decompressed) stream itself, at its one raw entry.
 * Returns 0 with *out, or -errno.
 */
static int raw_stream_open(const char *path, int fd, struct archive **out)
{
	struct archive *a = reader_new();
	struct archive_entry *e;
	int rc;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	archive_read_support_format_raw(a);
	rc = reader_open(a, path, fd);
	if (!rc && archive_read_next_header(a, &e) < ARCHIVE_WARN)
		rc = arch_fail(a, "cannot read");
	if (rc)
		archive_read_free(a);
	else
		*out = a;
	return rc;
}

/*
 * Whether the (decompressed) stream is all zeroes and at most EMPTY_TAR_MAX
 * long: then libarchive's "empty tar archive" is one. Returns 1, 0 or -errno.
 */
static int stream_is_empty_tar(const char *path, int fd)
{
	struct archive *a;
	uint64_t seen = 0;
	int rc = raw_stream_open(path, fd, &a);

	if (rc)
		return rc;
	for (;;) {
		const uint8_t *p;
		size_t len;
		la_int64_t off;
		int r = archive_read_data_block(a, (const void **)&p, &len, &off);

		if (r == ARCHIVE_EOF) {
			rc = 1;
			break;
		}
		if (r < ARCHIVE_WARN) {
			rc = arch_fail(a, "cannot read");
			break;
		}
		seen += len;
		if (seen > EMPTY_TAR_MAX ||
		    (len && (p[0] || memcmp(p, p + 1, len - 1)))) {
			rc = 0;
			break;
		}
	}
	archive_read_free(a);
	return rc;
}

/*
 * Reads the first size bytes of the (decompressed) stream into buf.
 * Returns how many it held, or -errno.
 */
static int stream_head(const char *path, int fd, uint8_t *buf, size_t size)
{
	struct archive *a;
	size_t got = 0;
	int rc = raw_stream_open(path, fd, &a);

	if (rc)
		return rc;
	while (got < size) {
		la_ssize_t n = archive_read_data(a, buf + got, size - got);

		if (n < 0) {
			rc = arch_fail(a, "cannot read");
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	rc = (int)got;
out:
	archive_read_free(a);
	return rc;
}

/*
 * Whether a stream whose first header libarchive's tar reader took is a
 * tar archive. The old tar checksum is a byte sum, which the first sector
 * of one disk in a few hundred matches by chance (an MBR's random disk id
 * and its partition entries). Tar writers leave a header's last 12 bytes
 * zero, where an MBR has its boot signature, and never write an entry
 * without a name. Returns 1, 0 or -errno.
 */
static int stream_is_tar(const char *path, int fd, struct archive_entry *e)
{
	uint8_t head[TAR_BLOCK];
	const char *name = archive_entry_pathname(e);
	int n;

	if (!name || !*name)
		return 0;
	n = stream_head(path, fd, head, sizeof(head));
	if (n < 0)
		return n;
	if ((size_t)n < sizeof(head))
		return 1;
	for (size_t i = TAR_BLOCK - TAR_PAD; i < TAR_BLOCK; i++)
		if (head[i])
			return 0;
	return 1;
}

static int map_filter(struct archive *a, enum imgp_format *fmt)
{
	int n = archive_filter_count(a);
	int code = n > 1 ? archive_filter_code(a, 0) : ARCHIVE_FILTER_NONE;
	const struct imgp_format_entry_ *e;
	char list[128];

	/* Filter -1 (the last) is always the file itself. */
	if (n > 2)
		return imgp_fail(ENOTSUP, "nested compression (%s inside %s) is not supported",
				 archive_filter_name(a, 0), archive_filter_name(a, 1));
	e = imgp_format_by_filter_(code);
	if (e) {
		*fmt = e->fmt;
		return 0;
	}
	return imgp_fail(ENOTSUP, "%s compression is not supported (use %s)",
			 archive_filter_name(a, 0),
			 imgp_format_list_(list, sizeof(list), false, NULL));
}

int imgp_format_detect_fd_(const char *path, int fd, enum imgp_format *fmt)
{
	struct archive *a = reader_new();
	struct archive_entry *e;
	enum imgp_format stream = IMGP_FMT_RAW, found = IMGP_FMT_RAW;
	const struct imgp_format_entry_ *container;
	int r, rc;

	if (!a)
		return -ENOMEM;
	/* The raw "format" bids least, so any real archive wins over it. */
	archive_read_support_format_all(a);
	archive_read_support_format_raw(a);
	rc = reader_open(a, path, fd);
	if (rc)
		goto out;
	r = archive_read_next_header(a, &e);
	rc = map_filter(a, &stream);
	if (rc)
		goto out;
	container = imgp_format_by_archive_(archive_format(a) & ARCHIVE_FORMAT_BASE_MASK);
	switch (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) {
	case ARCHIVE_FORMAT_TAR:
		found = IMGP_FMT_TAR;
		/*
		 * tar bids for any stream that starts with a zero block, as
		 * a bare ext4 image does: only a stream of nothing but zeroes
		 * is really an (empty) archive. A first header it took is
		 * checked again, as a disk's first sector can pass its sum.
		 */
		if (r == ARCHIVE_EOF || r >= ARCHIVE_WARN) {
			int is_tar = r == ARCHIVE_EOF ?
				stream_is_empty_tar(path, fd) :
				stream_is_tar(path, fd, e);

			if (is_tar < 0) {
				rc = is_tar;
				goto out;
			}
			if (!is_tar)
				found = stream;
		}
		break;
	case ARCHIVE_FORMAT_EMPTY:
		rc = stream == IMGP_FMT_RAW ?
			imgp_fail(EINVAL, "empty file") :
			imgp_fail(EINVAL, "empty %s stream", imgp_format_name(stream));
		goto out;
	case ARCHIVE_FORMAT_RAW:
	/* A hybrid ISO is a disk image; text is no archive either. */
	case ARCHIVE_FORMAT_ISO9660:
	case ARCHIVE_FORMAT_MTREE:
		found = stream;
		break;
	default:
		if (container) {
			found = container->fmt;
			break;
		}
		rc = imgp_fail(ENOTSUP, "'%s' archives are not supported (use zip, 7z or tar)",
			       archive_format_name(a));
		goto out;
	}
	if (is_archive(found) && r < ARCHIVE_WARN && r != ARCHIVE_EOF)
		rc = arch_fail(a, imgp_format_name(found));
	else
		*fmt = found;
out:
	archive_read_free(a);
	return rc;
}

int imgp_format_detect_(const char *path, enum imgp_format *fmt)
{
	return imgp_format_detect_fd_(path, -1, fmt);
}

/* The output file: data is written at its offsets, zero blocks skipped. */
struct sink {
	int fd;
	const char *path;
	bool holes;              /* a new regular file: unwritten ranges read as zero */
	uint64_t end;            /* end of the data seen so far */
	struct imgp_ctx *ctx;    /* where progress goes */
};

static bool all_zero(const uint8_t *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

static int write_at(struct sink *s, const uint8_t *p, size_t len, uint64_t off)
{
	int rc = imgp_write_all_(s->fd, p, len, (off_t)off);

	if (rc)
		return imgp_fail(-rc, "%s: write error: %s", s->path, strerror(-rc));
	return 0;
}

/*
 * Writes len bytes at off, cut at HOLE_BLOCK boundaries of the output so
 * that a zero block left out is a whole block; neighbouring data pieces go
 * out in one write.
 */
static int sink_write(struct sink *s, const uint8_t *p, size_t len, uint64_t off)
{
	size_t pos = 0, run = 0, run_len = 0;
	int rc;

	while (pos < len) {
		size_t n = HOLE_BLOCK - (size_t)((off + pos) % HOLE_BLOCK);

		if (n > len - pos)
			n = len - pos;
		if (s->holes && all_zero(p + pos, n)) {
			if (run_len) {
				rc = write_at(s, p + run, run_len, off + run);
				if (rc)
					return rc;
				run_len = 0;
			}
		} else {
			if (!run_len)
				run = pos;
			run_len += n;
		}
		pos += n;
	}
	if (run_len) {
		rc = write_at(s, p + run, run_len, off + run);
		if (rc)
			return rc;
	}
	if (off + len > s->end)
		s->end = off + len;
	return 0;
}

/* Streams the current entry's data into the sink, honouring its offsets. */
static int extract_data(struct archive *a, struct sink *s, const char *what,
			uint64_t total)
{
	imgp_test_pause_("unpack");
	for (;;) {
		const void *buf;
		size_t len;
		la_int64_t off;
		la_int64_t in;
		int r = archive_read_data_block(a, &buf, &len, &off);
		int rc;

		if (r == ARCHIVE_EOF)
			return 0;
		in = archive_filter_bytes(a, -1);
		/* liblzma says "no progress is possible" of a cut-off stream. */
		if (r < ARCHIVE_WARN)
			return arch_fail_hint(a, what, in >= 0 && (uint64_t)in >= total ?
					      "the input ends early: is the file complete?" :
					      NULL);
		/* Offsets come from the archive: no negative or wrapping ones. */
		if (off < 0 || (uint64_t)off > (uint64_t)INT64_MAX - len)
			return imgp_fail(EINVAL, "%s: data at a bad offset", what);
		rc = sink_write(s, buf, len, (uint64_t)off);
		if (rc)
			return rc;
		if (in > 0)
			rc = imgp_progress_(s->ctx, "decompressing",
					   (uint64_t)in < total ? (uint64_t)in : total, total);
		if (rc)
			return rc;
	}
}

/* Appends "name" to the list of entries for the error message. */
static int note_name(struct imgp_buf *names, size_t count,
		     struct archive_entry *e)
{
	const char *name = archive_entry_pathname(e);

	if (count > NAMES_MAX)
		return 0;
	if (count == NAMES_MAX)
		return imgp_buf_append(names, ", ...", 5);
	return imgp_buf_printf(names, "%s%s", count ? ", " : "",
			       name ? name : "?");
}

/*
 * Extracts the one regular file of an archive, skipping directories. With
 * several files the first is extracted before the next header shows the
 * second: one pass over the input in the good case.
 */
static int extract_one(struct archive *a, struct sink *s, uint64_t total,
		       uint64_t *size)
{
	struct imgp_buf names = { 0 };
	struct archive_entry *e;
	size_t count = 0;
	bool extracted = false;
	int rc = 0;

	for (;;) {
		int r = archive_read_next_header(a, &e);

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			rc = arch_fail(a, "cannot read the archive");
			goto out;
		}
		if (archive_entry_filetype(e) == AE_IFDIR)
			continue;
		rc = note_name(&names, count, e);
		if (rc) {
			rc = imgp_fail(ENOMEM, "out of memory");
			goto out;
		}
		if (count++ || archive_entry_filetype(e) != AE_IFREG)
			continue;
		rc = extract_data(a, s, archive_entry_pathname(e) ?
				  archive_entry_pathname(e) : "?", total);
		if (rc)
			goto out;
		if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0)
			*size = (uint64_t)archive_entry_size(e);
		extracted = true;
	}
	if (count == 0)
		rc = imgp_fail(EINVAL, "archive holds no files: expected exactly one disk image");
	else if (count > 1)
		rc = imgp_fail(EINVAL, "archive holds %zu files (%s): expected exactly one disk image",
			       count, (const char *)names.data);
	else if (!extracted)
		rc = imgp_fail(EINVAL, "archive entry '%s' is not a regular file: expected a disk image",
			       (const char *)names.data);
out:
	imgp_buf_free(&names);
	return rc;
}

/* The decompressed stream is the image (libarchive's "raw" format). */
static int extract_stream(struct archive *a, struct sink *s,
			  enum imgp_format fmt, uint64_t total)
{
	struct archive_entry *e;

	if (archive_read_next_header(a, &e) < ARCHIVE_WARN)
		return arch_fail(a, imgp_format_name(fmt));
	return extract_data(a, s, imgp_format_name(fmt), total);
}

int imgp_unpack_(struct imgp_ctx *ctx, const char *path, const char *dst, bool zero_holes)
{
	struct sink s = { .fd = -1, .path = dst, .ctx = ctx };
	struct archive *a = NULL;
	enum imgp_format fmt;
	struct stat st;
	uint64_t in_size, size = 0;
	int rc, err;

	rc = imgp_format_detect_(path, &fmt);
	if (rc)
		return rc;
	/* A raw image is only copied (sparse): the raw "packing" of it. */
	if (fmt == IMGP_FMT_RAW) {
		struct imgp_pack_opts raw = { .format = IMGP_FMT_RAW, .level = -1 };

		return imgp_pack_(ctx, path, dst, &raw);
	}
	if (stat(path, &st) < 0) {
		err = errno;
		return imgp_fail(err, "cannot open: %s", strerror(err));
	}
	in_size = (uint64_t)st.st_size;
	a = reader_new();
	if (!a)
		return -ENOMEM;
	/*
	 * Only the detected kind: a compressed image that starts with a zero
	 * block must not be taken for a tar archive here either.
	 */
	imgp_format_entry_(fmt)->read_support(a);
	rc = reader_open(a, path, -1);
	if (rc)
		goto out;

	s.fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s.fd < 0 || fstat(s.fd, &st) < 0) {
		err = errno;
		rc = imgp_fail(err, "%s: cannot create: %s", dst, strerror(err));
		goto out;
	}
	/* A device keeps its old bytes: there every block is written. */
	s.holes = zero_holes && S_ISREG(st.st_mode);
	if (is_archive(fmt))
		rc = extract_one(a, &s, in_size, &size);
	else
		rc = extract_stream(a, &s, fmt, in_size);
	if (rc)
		goto out;
	if (s.end > size)
		size = s.end;
	/* Trailing zero blocks (and a sparse entry's trailing hole) stay holes. */
	if (s.holes && ftruncate(s.fd, (off_t)size) < 0) {
		err = errno;
		rc = imgp_fail(err, "%s: cannot set size: %s", dst, strerror(err));
		goto out;
	}
	if (fsync(s.fd) < 0) {
		err = errno;
		rc = imgp_fail(err, "%s: cannot sync: %s", dst, strerror(err));
		goto out;
	}
	imgp_progress_(ctx, "decompressing", in_size, in_size);
out:
	if (s.fd >= 0 && close(s.fd) < 0 && !rc) {
		err = errno;
		rc = imgp_fail(err, "%s: %s", dst, strerror(err));
	}
	archive_read_free(a);
	return rc;
}
