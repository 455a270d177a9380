/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer for machine-readable output: pretty-printed
 * with two-space indents, strings escaped (control characters as \uXXXX,
 * bytes that are not valid UTF-8 replaced by U+FFFD, one per byte).
 *
 * Misuse (a value where a key is due, a key outside an object, unbalanced
 * ends, a second top-level value, nesting deeper than IMGP_JSON_MAX_DEPTH) writes
 * nothing, is remembered, and is returned by that call, every later call and
 * imgp_json_finish_(): callers may check only the final result.
 */
#ifndef IMGP_JSON_H
#define IMGP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IMGP_JSON_MAX_DEPTH 32

struct imgp_json_level {
	bool object;             /* object rather than array */
	bool empty;              /* nothing written inside yet */
};

struct imgp_json {
	FILE *out;
	int err;                 /* first error (negative errno), sticky */
	int depth;
	bool key_done;           /* a key was written, its value is due */
	bool done;               /* the top-level value is complete */
	struct imgp_json_level level[IMGP_JSON_MAX_DEPTH];
};

void imgp_json_init_(struct imgp_json *j, FILE *out);

/* Each returns 0, or -EINVAL on misuse (see above). */
int imgp_json_object_begin_(struct imgp_json *j);
int imgp_json_object_end_(struct imgp_json *j);
int imgp_json_array_begin_(struct imgp_json *j);
int imgp_json_array_end_(struct imgp_json *j);
int imgp_json_key_(struct imgp_json *j, const char *key);
/* A NUL-terminated string; NULL writes null. */
int imgp_json_string_(struct imgp_json *j, const char *s);
/* len bytes, which may include NUL (written as \u0000). */
int imgp_json_string_len_(struct imgp_json *j, const char *s, size_t len);
int imgp_json_uint_(struct imgp_json *j, uint64_t v);
int imgp_json_int_(struct imgp_json *j, int64_t v);
int imgp_json_bool_(struct imgp_json *j, bool v);
int imgp_json_null_(struct imgp_json *j);

/* "key": value in one call. */
int imgp_json_kv_string_(struct imgp_json *j, const char *key, const char *s);
/* A number with three decimals (seconds); null for NaN or huge values. */
int imgp_json_fixed3_(struct imgp_json *j, double v);
int imgp_json_kv_fixed3_(struct imgp_json *j, const char *key, double v);
int imgp_json_kv_uint_(struct imgp_json *j, const char *key, uint64_t v);
int imgp_json_kv_int_(struct imgp_json *j, const char *key, int64_t v);
int imgp_json_kv_bool_(struct imgp_json *j, const char *key, bool v);
int imgp_json_kv_null_(struct imgp_json *j, const char *key);

/*
 * Length of the well-formed UTF-8 sequence at s (n > 0 bytes available):
 * 1 to 4, or 0 when it is not one. Stray continuation bytes, overlong forms,
 * UTF-16 surrogates, code points above U+10FFFF and truncated sequences all
 * count as invalid. Text output uses it to sanitize names from images.
 */
size_t imgp_json_utf8_len_(const unsigned char *s, size_t n);

/*
 * Ends the document with a newline and flushes. Returns 0, the first misuse
 * error, -EINVAL when the document is incomplete, or -EIO when writing failed.
 */
int imgp_json_finish_(struct imgp_json *j);

#endif
