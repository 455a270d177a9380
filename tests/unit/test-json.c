// SPDX-License-Identifier: MIT
/* The CLI's JSON writer: exact output, escaping, and refusal of misuse. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

/* The writer belongs to the command line, not to the library the tests link. */
#include "text/json.h"

struct capture {
	FILE *f;
	char *text;
	size_t len;
};

static void cap_open(struct capture *c, struct imgp_json *j)
{
	c->text = NULL;
	c->len = 0;
	c->f = open_memstream(&c->text, &c->len);
	if (!c->f) {
		perror("open_memstream");
		exit(1);
	}
	imgp_json_init_(j, c->f);
}

/* Returns the captured text (caller frees). */
static char *cap_close(struct capture *c)
{
	fclose(c->f);
	return c->text;
}

static void test_nested(void)
{
	struct capture c;
	struct imgp_json j;
	char *out;
	int rc = 0;

	cap_open(&c, &j);
	rc |= imgp_json_object_begin_(&j);
	rc |= imgp_json_kv_uint_(&j, "schema_version", 1);
	rc |= imgp_json_key_(&j, "list");
	rc |= imgp_json_array_begin_(&j);
	rc |= imgp_json_uint_(&j, 1);
	rc |= imgp_json_string_(&j, "two");
	rc |= imgp_json_object_begin_(&j);
	rc |= imgp_json_object_end_(&j);
	rc |= imgp_json_array_begin_(&j);
	rc |= imgp_json_array_end_(&j);
	rc |= imgp_json_bool_(&j, true);
	rc |= imgp_json_null_(&j);
	rc |= imgp_json_array_begin_(&j);
	rc |= imgp_json_object_begin_(&j);
	rc |= imgp_json_kv_string_(&j, "deep", "yes");
	rc |= imgp_json_object_end_(&j);
	rc |= imgp_json_array_end_(&j);
	rc |= imgp_json_array_end_(&j);
	rc |= imgp_json_key_(&j, "obj");
	rc |= imgp_json_object_begin_(&j);
	rc |= imgp_json_kv_int_(&j, "neg", -5);
	rc |= imgp_json_kv_bool_(&j, "f", false);
	rc |= imgp_json_kv_null_(&j, "n");
	rc |= imgp_json_kv_string_(&j, "s", NULL);
	rc |= imgp_json_object_end_(&j);
	rc |= imgp_json_object_end_(&j);
	CHECK(rc == 0, "nested: every call succeeds");
	CHECK(imgp_json_finish_(&j) == 0, "nested: finish succeeds");
	out = cap_close(&c);
	CHECK_STR(out,
		  "{\n"
		  "  \"schema_version\": 1,\n"
		  "  \"list\": [\n"
		  "    1,\n"
		  "    \"two\",\n"
		  "    {},\n"
		  "    [],\n"
		  "    true,\n"
		  "    null,\n"
		  "    [\n"
		  "      {\n"
		  "        \"deep\": \"yes\"\n"
		  "      }\n"
		  "    ]\n"
		  "  ],\n"
		  "  \"obj\": {\n"
		  "    \"neg\": -5,\n"
		  "    \"f\": false,\n"
		  "    \"n\": null,\n"
		  "    \"s\": null\n"
		  "  }\n"
		  "}\n",
		  "nested: exact pretty-printed output");
	free(out);
}

static void test_top_level_scalars(void)
{
	struct capture c;
	struct imgp_json j;
	char *out;

	cap_open(&c, &j);
	CHECK(imgp_json_string_(&j, "x") == 0, "scalar: top-level string");
	CHECK(imgp_json_finish_(&j) == 0, "scalar: finish");
	out = cap_close(&c);
	CHECK_STR(out, "\"x\"\n", "scalar: output");
	free(out);

	cap_open(&c, &j);
	imgp_json_array_begin_(&j);
	imgp_json_array_end_(&j);
	CHECK(imgp_json_finish_(&j) == 0, "scalar: empty array document");
	out = cap_close(&c);
	CHECK_STR(out, "[]\n", "scalar: empty array output");
	free(out);
}

/* Renders one string value and returns the output without the newline. */
static char *render(const char *s, size_t len)
{
	struct capture c;
	struct imgp_json j;
	char *out;

	cap_open(&c, &j);
	imgp_json_string_len_(&j, s, len);
	imgp_json_finish_(&j);
	out = cap_close(&c);
	if (c.len && out[c.len - 1] == '\n')
		out[c.len - 1] = '\0';
	return out;
}

#define CHECK_RENDER(in, want, name)                                          \
	do {                                                                  \
		char *got_ = render(in, sizeof(in) - 1);                      \
		CHECK_STR(got_, want, name);                                  \
		free(got_);                                                   \
	} while (0)

#define FFFD "\xef\xbf\xbd"

static void test_escaping(void)
{
	CHECK_RENDER("plain text", "\"plain text\"", "escape: plain ASCII untouched");
	CHECK_RENDER("a\"b\\c/d", "\"a\\\"b\\\\c/d\"",
		     "escape: quote and backslash, slash left alone");
	CHECK_RENDER("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"",
		     "escape: short escapes");
	CHECK_RENDER("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"",
		     "escape: other control characters and DEL as \\u00XX");
	CHECK_RENDER("a\0b", "\"a\\u0000b\"", "escape: embedded NUL");
	CHECK_RENDER("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		     "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
		     "utf-8: valid 2-, 3- and 4-byte sequences kept");
	CHECK_RENDER("\xef\xbf\xbf\xf4\x8f\xbf\xbf",
		     "\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\"",
		     "utf-8: U+FFFF and U+10FFFF kept");
	CHECK_RENDER("a\xff" "b", "\"a" FFFD "b\"", "utf-8: 0xff replaced");
	CHECK_RENDER("\x80", "\"" FFFD "\"", "utf-8: stray continuation byte");
	CHECK_RENDER("\xc0\xaf", "\"" FFFD FFFD "\"", "utf-8: overlong 2-byte form");
	CHECK_RENDER("\xe0\x80\xaf", "\"" FFFD FFFD FFFD "\"",
		     "utf-8: overlong 3-byte form");
	CHECK_RENDER("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"",
		     "utf-8: UTF-16 surrogate");
	CHECK_RENDER("\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"",
		     "utf-8: above U+10FFFF");
	CHECK_RENDER("\xe2\x82x", "\"" FFFD FFFD "x\"",
		     "utf-8: sequence cut by an ASCII byte");
	CHECK_RENDER("\xf0\x9f\x98", "\"" FFFD FFFD FFFD "\"",
		     "utf-8: sequence cut by the end of the string");
}

static void test_numbers_and_keys(void)
{
	struct capture c;
	struct imgp_json j;
	char *out;

	cap_open(&c, &j);
	imgp_json_object_begin_(&j);
	imgp_json_kv_int_(&j, "min", INT64_MIN);
	imgp_json_kv_int_(&j, "max", INT64_MAX);
	imgp_json_kv_uint_(&j, "umax", UINT64_MAX);
	imgp_json_kv_uint_(&j, "zero", 0);
	imgp_json_kv_string_(&j, "k\"\n\xff", "v");
	imgp_json_object_end_(&j);
	CHECK(imgp_json_finish_(&j) == 0, "numbers: finish");
	out = cap_close(&c);
	CHECK_STR(out,
		  "{\n"
		  "  \"min\": -9223372036854775808,\n"
		  "  \"max\": 9223372036854775807,\n"
		  "  \"umax\": 18446744073709551615,\n"
		  "  \"zero\": 0,\n"
		  "  \"k\\\"\\n" FFFD "\": \"v\"\n"
		  "}\n",
		  "numbers: 64-bit extremes and an escaped key");
	free(out);
}

/* One misuse scenario; want is everything that may have been written. */
static void check_misuse(int step, const char *name, const char *want)
{
	struct capture c;
	struct imgp_json j;
	char *out;
	int rc = 0, bad;
	char label[160];

	cap_open(&c, &j);
	switch (step) {
	case 0:
		bad = imgp_json_key_(&j, "k");
		break;
	case 1:
		imgp_json_object_begin_(&j);
		bad = imgp_json_uint_(&j, 1);
		break;
	case 2:
		imgp_json_object_begin_(&j);
		bad = imgp_json_array_end_(&j);
		break;
	case 3:
		imgp_json_object_begin_(&j);
		imgp_json_key_(&j, "a");
		bad = imgp_json_key_(&j, "b");
		break;
	case 4:
		imgp_json_object_begin_(&j);
		imgp_json_key_(&j, "a");
		bad = imgp_json_object_end_(&j);
		break;
	case 5:
		imgp_json_uint_(&j, 1);
		bad = imgp_json_uint_(&j, 2);
		break;
	case 6:
		imgp_json_array_begin_(&j);
		bad = imgp_json_key_(&j, "k");
		break;
	case 7:
		bad = imgp_json_array_end_(&j);
		break;
	default:
		imgp_json_object_begin_(&j);
		imgp_json_key_(&j, NULL);
		bad = j.err;
		break;
	}
	snprintf(label, sizeof(label), "misuse: %s is refused", name);
	CHECK(bad == -EINVAL, label);
	/* Sticky: a later, otherwise valid call fails too and writes nothing. */
	rc = imgp_json_null_(&j);
	snprintf(label, sizeof(label), "misuse: %s: error is sticky", name);
	CHECK(rc == -EINVAL && imgp_json_finish_(&j) == -EINVAL, label);
	out = cap_close(&c);
	snprintf(label, sizeof(label), "misuse: %s writes nothing more", name);
	CHECK_STR(out, want, label);
	free(out);
}

static void test_misuse(void)
{
	static const char *const cases[][2] = {
		{ "key at top level", "" },
		{ "value without key", "{" },
		{ "mismatched end", "{" },
		{ "two keys in a row", "{\n  \"a\": " },
		{ "end after a dangling key", "{\n  \"a\": " },
		{ "second top-level value", "1" },
		{ "key inside an array", "[" },
		{ "end with nothing open", "" },
		{ "NULL key", "{" },
	};
	struct capture c;
	struct imgp_json j;
	char *out;
	int rc = 0, i;

	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++)
		check_misuse(i, cases[i][0], cases[i][1]);

	cap_open(&c, &j);
	CHECK(imgp_json_finish_(&j) == -EINVAL, "incomplete: empty document");
	out = cap_close(&c);
	CHECK_STR(out, "", "incomplete: nothing written");
	free(out);

	cap_open(&c, &j);
	imgp_json_object_begin_(&j);
	imgp_json_kv_uint_(&j, "a", 1);
	CHECK(imgp_json_finish_(&j) == -EINVAL, "incomplete: object left open");
	out = cap_close(&c);
	CHECK_STR(out, "{\n  \"a\": 1", "incomplete: no newline added");
	free(out);

	cap_open(&c, &j);
	for (i = 0; i < IMGP_JSON_MAX_DEPTH; i++)
		rc |= imgp_json_array_begin_(&j);
	CHECK(rc == 0, "depth: IMGP_JSON_MAX_DEPTH levels allowed");
	CHECK(imgp_json_array_begin_(&j) == -EINVAL, "depth: one more is refused");
	out = cap_close(&c);
	free(out);

}

static void test_write_error(void)
{
	FILE *f = fopen("/dev/full", "w");
	struct imgp_json j;

	if (!f) {
		unit_count++;
		printf("ok %d # SKIP write error: no /dev/full\n", unit_count);
		return;
	}
	imgp_json_init_(&j, f);
	imgp_json_object_begin_(&j);
	imgp_json_kv_string_(&j, "a", "b");
	imgp_json_object_end_(&j);
	CHECK(imgp_json_finish_(&j) == -EIO, "write error: finish reports -EIO");
	fclose(f);
}

/* A document with every kind of value must parse with an independent reader. */
static void test_python_parses(void)
{
	char path[] = "/tmp/test-json-XXXXXX";
	struct imgp_json j;
	FILE *f;
	pid_t pid;
	int fd, status;

	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		CHECK(0, "python: temporary file");
		return;
	}
	imgp_json_init_(&j, f);
	imgp_json_object_begin_(&j);
	imgp_json_kv_uint_(&j, "schema_version", 1);
	imgp_json_kv_string_(&j, "controls", "\x01\x02\x1f\x7f\t\n\"\\");
	imgp_json_kv_string_(&j, "invalid", "\xff\xfe\xc0\xaf\xed\xa0\x80\xe2\x82");
	imgp_json_kv_string_(&j, "valid", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	imgp_json_key_(&j, "nul");
	imgp_json_string_len_(&j, "a\0b", 3);
	imgp_json_kv_int_(&j, "min", INT64_MIN);
	imgp_json_kv_uint_(&j, "umax", UINT64_MAX);
	imgp_json_key_(&j, "list");
	imgp_json_array_begin_(&j);
	imgp_json_object_begin_(&j);
	imgp_json_object_end_(&j);
	imgp_json_array_begin_(&j);
	imgp_json_array_end_(&j);
	imgp_json_bool_(&j, false);
	imgp_json_null_(&j);
	imgp_json_array_end_(&j);
	imgp_json_object_end_(&j);
	CHECK(imgp_json_finish_(&j) == 0, "python: document written");
	fclose(f);

	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("python3", "python3", "-m", "json.tool", path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		CHECK(0, "python: run python3");
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		unit_count++;
		printf("ok %d - python3 -m json.tool # SKIP missing tool: python3\n",
		       unit_count);
	} else {
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "python: python3 -m json.tool accepts the document");
	}
	unlink(path);
}

int main(void)
{
	test_nested();
	test_top_level_scalars();
	test_escaping();
	test_numbers_and_keys();
	test_misuse();
	test_write_error();
	test_python_parses();
	return unit_done();
}
