/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer for machine-readable output: pretty-printed
 * with two-space indents, strings escaped (control characters as \uXXXX,
 * bytes that are not valid UTF-8 replaced by U+FFFD, one per byte).
 *
 * Misuse (a value where a key is due, a key outside an object, unbalanced
 * ends, a second top-level value, nesting deeper than JSON_MAX_DEPTH) writes
 * nothing, is remembered, and is returned by that call, every later call and
 * json_finish(): callers may check only the final result.
 */
#ifndef IMGP_JSON_H
#define IMGP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json_level {
	bool object;             /* object rather than array */
	bool empty;              /* nothing written inside yet */
};

struct json {
	FILE *out;
	int err;                 /* first error (negative errno), sticky */
	int depth;
	bool key_done;           /* a key was written, its value is due */
	bool done;               /* the top-level value is complete */
	struct json_level level[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *out);

/* Each returns 0, or -EINVAL on misuse (see above). */
int json_object_begin(struct json *j);
int json_object_end(struct json *j);
int json_array_begin(struct json *j);
int json_array_end(struct json *j);
int json_key(struct json *j, const char *key);
/* A NUL-terminated string; NULL writes null. */
int json_string(struct json *j, const char *s);
/* len bytes, which may include NUL (written as \u0000). */
int json_string_len(struct json *j, const char *s, size_t len);
int json_uint(struct json *j, uint64_t v);
int json_int(struct json *j, int64_t v);
int json_bool(struct json *j, bool v);
int json_null(struct json *j);

/* "key": value in one call. */
int json_kv_string(struct json *j, const char *key, const char *s);
/* A number with three decimals (seconds); null for NaN or huge values. */
int json_fixed3(struct json *j, double v);
int json_kv_fixed3(struct json *j, const char *key, double v);
int json_kv_uint(struct json *j, const char *key, uint64_t v);
int json_kv_int(struct json *j, const char *key, int64_t v);
int json_kv_bool(struct json *j, const char *key, bool v);
int json_kv_null(struct json *j, const char *key);

/*
 * Length of the well-formed UTF-8 sequence at s (n > 0 bytes available):
 * 1 to 4, or 0 when it is not one. Stray continuation bytes, overlong forms,
 * UTF-16 surrogates, code points above U+10FFFF and truncated sequences all
 * count as invalid. Text output uses it to sanitize names from images.
 */
size_t json_utf8_len(const unsigned char *s, size_t n);

/*
 * Ends the document with a newline and flushes. Returns 0, the first misuse
 * error, -EINVAL when the document is incomplete, or -EIO when writing failed.
 */
int json_finish(struct json *j);

#endif
