// SPDX-License-Identifier: MIT
/* Streaming JSON writer: the output is valid JSON or the caller gets an error. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "text/json.h"

void imgp_json_init_(struct imgp_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

static int json_misuse(struct imgp_json *j)
{
	if (!j->err)
		j->err = -EINVAL;
	return j->err;
}

static void json_indent(struct imgp_json *j)
{
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Separator and indent before an array element or an object key. */
static void json_item(struct imgp_json *j, struct imgp_json_level *l)
{
	if (!l->empty)
		fputc(',', j->out);
	l->empty = false;
	json_indent(j);
}

/* Checks that a value may come now and writes what precedes it. */
static int json_value_start(struct imgp_json *j)
{
	struct imgp_json_level *l;

	if (j->err)
		return j->err;
	if (j->depth == 0)
		return j->done ? json_misuse(j) : 0;
	l = &j->level[j->depth - 1];
	if (l->object) {
		if (!j->key_done)
			return json_misuse(j);
		j->key_done = false;
		return 0;
	}
	json_item(j, l);
	return 0;
}

static void json_value_end(struct imgp_json *j)
{
	if (j->depth == 0)
		j->done = true;
}

size_t imgp_json_utf8_len_(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2)
		return 0;
	if (s[0] < 0xe0) {
		need = 2;
	} else if (s[0] < 0xf0) {
		need = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] < 0xf5) {
		need = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (n < need || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return need;
}

static void json_put_string(struct imgp_json *j, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	fputc('"', j->out);
	while (i < len) {
		unsigned char c = s[i];
		size_t n;

		switch (c) {
		case '"':
			fputs("\\\"", j->out);
			break;
		case '\\':
			fputs("\\\\", j->out);
			break;
		case '\b':
			fputs("\\b", j->out);
			break;
		case '\f':
			fputs("\\f", j->out);
			break;
		case '\n':
			fputs("\\n", j->out);
			break;
		case '\r':
			fputs("\\r", j->out);
			break;
		case '\t':
			fputs("\\t", j->out);
			break;
		default:
			/* DEL too: legal in JSON, but a hazard on terminals. */
			if (c < 0x20 || c == 0x7f) {
				fprintf(j->out, "\\u%04x", c);
				break;
			}
			n = imgp_json_utf8_len_(s + i, len - i);
			if (n == 0) {
				fputs("\xef\xbf\xbd", j->out);
				break;
			}
			fwrite(s + i, 1, n, j->out);
			i += n;
			continue;
		}
		i++;
	}
	fputc('"', j->out);
}

static int json_begin(struct imgp_json *j, bool object)
{
	int rc;

	if (j->err)
		return j->err;
	if (j->depth >= IMGP_JSON_MAX_DEPTH)
		return json_misuse(j);
	rc = json_value_start(j);
	if (rc)
		return rc;
	fputc(object ? '{' : '[', j->out);
	j->level[j->depth].object = object;
	j->level[j->depth].empty = true;
	j->depth++;
	return 0;
}

static int json_end(struct imgp_json *j, bool object)
{
	struct imgp_json_level *l;

	if (j->err)
		return j->err;
	if (j->depth == 0 || j->key_done)
		return json_misuse(j);
	l = &j->level[j->depth - 1];
	if (l->object != object)
		return json_misuse(j);
	j->depth--;
	if (!l->empty)
		json_indent(j);
	fputc(object ? '}' : ']', j->out);
	json_value_end(j);
	return 0;
}

int imgp_json_object_begin_(struct imgp_json *j)
{
	return json_begin(j, true);
}

int imgp_json_object_end_(struct imgp_json *j)
{
	return json_end(j, true);
}

int imgp_json_array_begin_(struct imgp_json *j)
{
	return json_begin(j, false);
}

int imgp_json_array_end_(struct imgp_json *j)
{
	return json_end(j, false);
}

int imgp_json_key_(struct imgp_json *j, const char *key)
{
	struct imgp_json_level *l;

	if (j->err)
		return j->err;
	if (j->depth == 0 || j->key_done || !key)
		return json_misuse(j);
	l = &j->level[j->depth - 1];
	if (!l->object)
		return json_misuse(j);
	json_item(j, l);
	json_put_string(j, key, strlen(key));
	fputs(": ", j->out);
	j->key_done = true;
	return 0;
}

int imgp_json_string_len_(struct imgp_json *j, const char *s, size_t len)
{
	int rc = json_value_start(j);

	if (rc)
		return rc;
	json_put_string(j, s, len);
	json_value_end(j);
	return 0;
}

int imgp_json_string_(struct imgp_json *j, const char *s)
{
	return s ? imgp_json_string_len_(j, s, strlen(s)) : imgp_json_null_(j);
}

/* Numbers, true, false and null: text that needs no escaping. */
static int json_raw(struct imgp_json *j, const char *text)
{
	int rc = json_value_start(j);

	if (rc)
		return rc;
	fputs(text, j->out);
	json_value_end(j);
	return 0;
}

int imgp_json_uint_(struct imgp_json *j, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return json_raw(j, num);
}

int imgp_json_int_(struct imgp_json *j, int64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRId64, v);
	return json_raw(j, num);
}

int imgp_json_bool_(struct imgp_json *j, bool v)
{
	return json_raw(j, v ? "true" : "false");
}

int imgp_json_null_(struct imgp_json *j)
{
	return json_raw(j, "null");
}

int imgp_json_kv_string_(struct imgp_json *j, const char *key, const char *s)
{
	int rc = imgp_json_key_(j, key);

	return rc ? rc : imgp_json_string_(j, s);
}

int imgp_json_fixed3_(struct imgp_json *j, double v)
{
	char num[40];

	if (v != v || v > 1e15 || v < -1e15)
		return imgp_json_null_(j);
	snprintf(num, sizeof(num), "%.3f", v);
	return json_raw(j, num);
}

int imgp_json_kv_fixed3_(struct imgp_json *j, const char *key, double v)
{
	int rc = imgp_json_key_(j, key);

	return rc ? rc : imgp_json_fixed3_(j, v);
}

int imgp_json_kv_uint_(struct imgp_json *j, const char *key, uint64_t v)
{
	int rc = imgp_json_key_(j, key);

	return rc ? rc : imgp_json_uint_(j, v);
}

int imgp_json_kv_int_(struct imgp_json *j, const char *key, int64_t v)
{
	int rc = imgp_json_key_(j, key);

	return rc ? rc : imgp_json_int_(j, v);
}

int imgp_json_kv_bool_(struct imgp_json *j, const char *key, bool v)
{
	int rc = imgp_json_key_(j, key);

	return rc ? rc : imgp_json_bool_(j, v);
}

int imgp_json_kv_null_(struct imgp_json *j, const char *key)
{
	int rc = imgp_json_key_(j, key);

	return rc ? rc : imgp_json_null_(j);
}

int imgp_json_finish_(struct imgp_json *j)
{
	if (j->err)
		return j->err;
	if (!j->done)
		return json_misuse(j);
	fputc('\n', j->out);
	if (fflush(j->out) != 0 || ferror(j->out))
		return -EIO;
	return 0;
}
