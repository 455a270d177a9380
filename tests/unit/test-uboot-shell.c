// SPDX-License-Identifier: MIT
/*
 * U-Boot's script language as imgpatch follows it: test with cmd/test.c's
 * rules (U-Boot 2023.01), hush's dropping of unset variables, if/elif/
 * else/fi, && and ||, and the room fdt_shrink_to_minimum() gives a tree.
 */
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "boot/bootpath.h"
#include "unit.h"

/* "test a b c" split at blanks: 0 true, 1 false. */
static int test_words(const char *line)
{
	char *copy = strdup(line), *argv[16], *save = NULL;
	int argc = 0, rc;

	for (char *w = strtok_r(copy, " ", &save); w && argc < 16; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	rc = imgp_uboot_test_(argc, (const char *const *)argv);
	free(copy);
	return rc;
}

static void check_test(void)
{
	/* The operand that vanished: cmd/test.c finds no operator and says true. */
	CHECK(test_words("test -eq 1") == 0, "test -eq 1 is true");
	CHECK(test_words("test 1 -eq 1") == 0, "test 1 -eq 1 is true");
	CHECK(test_words("test 0 -eq 1") == 1, "test 0 -eq 1 is false");
	CHECK(test_words("test 0x10 -eq 16") == 0, "test: 0x hex");
	CHECK(test_words("test 010 -eq 8") == 0, "test: leading 0 is octal");
	CHECK(test_words("test -1 -lt 0") == 0, "test: a sign");
	CHECK(test_words("test abc -eq 0") == 0, "test: a word with no digits is 0");
	/* Fewer than two words after test: false. */
	CHECK(test_words("test x") == 1, "test with one word is false");
	CHECK(test_words("test") == 1, "test alone is false");
	CHECK(test_words("test -n") == 1, "test -n with its operand gone is false");
	CHECK(test_words("test -z x") == 1, "test -z x is false");
	CHECK(test_words("test -n x") == 0, "test -n x is true");
	CHECK(test_words("test a = a") == 0, "test a = a");
	CHECK(test_words("test a != a") == 1, "test a != a");
	CHECK(test_words("test ! a = a") == 1, "test ! negates");
	CHECK(test_words("test ! ! a = a") == 0, "test ! ! cancels");
	CHECK(test_words("test a = b -o c = c") == 0, "test -o");
	CHECK(test_words("test a = a -a c = d") == 1, "test -a");
	/* An operator short of its words: true, as cmd/test.c stops there. */
	CHECK(test_words("test a = a -a -z") == 0, "an operator short of words is true");
	CHECK(test_words("test 2 -gt 1") == 0 && test_words("test 1 -ge 2") == 1,
	      "test -gt/-ge");
}

static void check_room(void)
{
	/* 32173 bytes of blocks + 80 + 0x2048 = 40517, up to 40960. */
	CHECK(imgp_uboot_fdt_room_(32173, 0x2048) == 40960, "fdt resize 2048 on 32173 bytes");
	/* A bare "fdt resize" only rounds up (with the 80 bytes of reserve entries). */
	CHECK(imgp_uboot_fdt_room_(32173, 0) == 32768, "fdt resize alone rounds up");
	CHECK(imgp_uboot_fdt_room_(4016, 0) == 4096, "exactly one page");
	CHECK(imgp_uboot_fdt_room_(4017, 0) == 8192, "one byte over a page");
	CHECK(imgp_uboot_fdt_room_(32173, 8192) == 40960, "pxe's 8 KiB");
}

/* A run's record: each command the shell hands over, as a line. */
struct record {
	struct imgp_buf out;
};

static const char *board(void *ctx, const char *name)
{
	(void)ctx;
	return strcmp(name, "fdt_addr_r") == 0 ? "0x4fa00000" : NULL;
}

static int run(void *ctx, struct imgp_ushell *sh, int argc, char **argv, int *status)
{
	struct record *r = ctx;
	int rc = 0;

	(void)sh;
	for (int i = 0; !rc && i < argc; i++)
		rc = imgp_buf_printf(&r->out, "%s%s", i ? " " : "", argv[i]);
	if (!rc)
		rc = imgp_buf_printf(&r->out, "\n");
	*status = strcmp(argv[0], "fail") == 0;
	return rc;
}

/* The commands text hands over, one a line ("" when none). */
static char *script(const char *text)
{
	static const struct imgp_ushell_ops ops = { board, run };
	struct record r = { { 0 } };
	struct imgp_ushell *sh = imgp_ushell_new_(&ops, &r);
	char *s;

	if (!sh || imgp_ushell_run_(sh, text) || imgp_buf_printf(&r.out, "%s", ""))
		s = NULL;
	else
		s = (char *)imgp_buf_steal_(&r.out, NULL);
	imgp_ushell_free_(sh);
	imgp_buf_free(&r.out);
	return s;
}

static void check_script(const char *text, const char *want, const char *name)
{
	char *got = script(text);

	CHECK_STR(got, want, name);
	free(got);
}

static void check_hush(void)
{
	check_script("if test ${unset} -eq 1; then a; else b; fi\n", "a\n",
		     "an unset variable is no word: test -eq 1, true");
	check_script("if test \"${unset}\" -eq 1; then a; else b; fi\n", "b\n",
		     "quoted, it is an empty word: test '' -eq 1, false");
	check_script("setenv x 1\nif test ${x} -eq 1; then a; fi\n", "a\n", "setenv");
	check_script("setenv x 1\nsetenv x\nif test -n ${x}; then a; else b; fi\n", "b\n",
		     "setenv NAME unsets");
	check_script("fail && a || b\n", "fail\nb\n", "&& skips, || runs");
	check_script("ok && a || b\n", "ok\na\n", "&& runs, || skips");
	check_script("fail\nif test $? -eq 0; then a; else b; fi\n", "fail\nb\n", "$?");
	check_script("if fail; then a; elif ok; then b; else c; fi\n", "fail\nok\nb\n", "elif");
	check_script("if ok; then\n\tif fail; then a; else b; fi\nelse\n\tc\nfi\nd\n",
		     "ok\nfail\nb\nd\n", "nested if");
	check_script("if fail; then\n\tif ok; then a; fi\n\tb\nfi\nc\n", "fail\nc\n",
		     "a branch not taken runs nothing inside");
	check_script("load mmc 0:1 ${fdt_addr_r} x.dtb # a comment\n",
		     "load mmc 0:1 0x4fa00000 x.dtb\n", "board variables and comments");
	check_script("echo 'a ${x}' \"b ${fdt_addr_r}\"\n", "echo a ${x} b 0x4fa00000\n",
		     "single quotes keep $, double quotes expand");
	check_script("printenv unset || a\n", "a\n", "printenv of an unset variable fails");
}

int main(void)
{
	check_test();
	check_room();
	check_hush();
	return unit_done();
}
