// SPDX-License-Identifier: MIT
/* CSV tables (RFC 4180): quoting, line breaks, and every malformed record refused. */
#include <errno.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "unit.h"

static int parse(const char *text, struct imgp_csv **c)
{
	imgp_errclear_();
	return imgp_csv_parse(text, strlen(text), c);
}

static void test_plain(void)
{
	struct imgp_csv *c = NULL;
	int rc = parse("target,hostname\n/dev/sdb,lab-01\r\n/dev/sdc,lab-02", &c);

	CHECK(rc == 0, "plain: parsed");
	CHECK(imgp_csv_nrows(c) == 3 && imgp_csv_ncols(c) == 2, "plain: 3 rows of 2");
	CHECK_STR(imgp_csv_cell(c, 0, 1), "hostname", "plain: header cell");
	CHECK_STR(imgp_csv_cell(c, 1, 1), "lab-01", "plain: CRLF ends a record");
	CHECK_STR(imgp_csv_cell(c, 2, 0), "/dev/sdc", "plain: last line without a break");
	CHECK(imgp_csv_cell(c, 3, 0) == NULL, "plain: no row past the end");
	imgp_csv_free(c);
}

static void test_quoted(void)
{
	struct imgp_csv *c = NULL;
	int rc = parse("target,key,note\n"
		       "a.img,\"ssh-ed25519 AAAA x@y, z\",\"say \"\"hi\"\"\"\n"
		       "\n"
		       "b.img,\"two\nlines\",\n", &c);

	CHECK(rc == 0, "quoted: parsed");
	CHECK(imgp_csv_nrows(c) == 3, "quoted: blank line skipped");
	CHECK_STR(imgp_csv_cell(c, 1, 1), "ssh-ed25519 AAAA x@y, z", "quoted: comma inside quotes");
	CHECK_STR(imgp_csv_cell(c, 1, 2), "say \"hi\"", "quoted: doubled quotes");
	CHECK_STR(imgp_csv_cell(c, 2, 1), "two\nlines", "quoted: line break inside quotes");
	CHECK_STR(imgp_csv_cell(c, 2, 2), "", "quoted: empty last field");
	imgp_csv_free(c);
}

static void test_trimmed(void)
{
	struct imgp_csv *c = NULL;
	int rc = parse(" Target ,\tHostname\t, note\n"
		       "a.img , lab-01 ,\" keep \" \n"
		       "\n"
		       "b.img,\"x\ny\" ,  \n", &c);

	CHECK(rc == 0, "trimmed: parsed");
	CHECK_STR(imgp_csv_cell(c, 0, 0), "Target", "trimmed: header cell");
	CHECK_STR(imgp_csv_cell(c, 0, 1), "Hostname", "trimmed: tabs too");
	CHECK_STR(imgp_csv_cell(c, 1, 1), "lab-01", "trimmed: value cell");
	CHECK_STR(imgp_csv_cell(c, 1, 2), " keep ", "trimmed: quoted value keeps its spaces");
	CHECK_STR(imgp_csv_cell(c, 2, 1), "x\ny", "trimmed: spaces after a closing quote");
	CHECK_STR(imgp_csv_cell(c, 2, 2), "", "trimmed: spaces only is empty");
	CHECK(imgp_csv_line(c, 0) == 1 && imgp_csv_line(c, 1) == 2 &&
	      imgp_csv_line(c, 2) == 4 && imgp_csv_line(c, 3) == 0,
	      "trimmed: each row's line, past a blank one");
	imgp_csv_trim(c, 1, 2);
	imgp_csv_trim(c, 9, 9);
	CHECK_STR(imgp_csv_cell(c, 1, 2), "keep", "trimmed: a quoted cell's spaces dropped when asked");
	CHECK_STR(imgp_csv_cell(c, 1, 1), "lab-01", "trimmed: the other cells as they were");
	imgp_csv_free(c);
}

static void test_bad(void)
{
	struct imgp_csv *c = NULL;

	CHECK(parse("a,b\n1,2,3\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "line 2: 3 fields, the header has 2"), "bad: field count");
	CHECK(parse("a,b\n1,\"open\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "line 2: a quoted field is not closed"), "bad: unclosed quote");
	CHECK(parse("a,b\n1,\"x\"y\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "text after the closing quote"), "bad: text after quote");
	CHECK(parse("a,b\n1,x\"y\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "a quote inside an unquoted field"), "bad: stray quote");
	CHECK(parse("\n\n", &c) == -EINVAL, "bad: no header");
}

/* What spreadsheets write: Excel's byte order mark, the semicolon of comma-decimal locales. */
static void test_spreadsheet(void)
{
	struct imgp_csv *c = NULL;

	CHECK(parse("\xef\xbb\xbftarget,hostname\r\n/dev/sdb,lab-01\r\n", &c) == 0 &&
	      imgp_csv_ncols(c) == 2 && !strcmp(imgp_csv_cell(c, 0, 0), "target"),
	      "spreadsheet: a UTF-8 byte order mark is not part of the first cell");
	imgp_csv_free(c);
	CHECK(parse("target;hostname;key\n/dev/sdb;lab-01;\"ssh-ed25519 A x;y, z\"\n", &c) == 0 &&
	      imgp_csv_ncols(c) == 3 && !strcmp(imgp_csv_cell(c, 1, 1), "lab-01") &&
	      !strcmp(imgp_csv_cell(c, 1, 2), "ssh-ed25519 A x;y, z"),
	      "spreadsheet: semicolons separate when the header has no comma");
	imgp_csv_free(c);
	CHECK(parse("target,\"a;b\"\nx,y\n", &c) == 0 && imgp_csv_ncols(c) == 2 &&
	      !strcmp(imgp_csv_cell(c, 0, 1), "a;b"),
	      "spreadsheet: a comma in the header keeps the comma, a quoted semicolon is text");
	imgp_csv_free(c);
	CHECK(parse("\"t,x\";h\n1;2\n", &c) == 0 && imgp_csv_ncols(c) == 2 &&
	      !strcmp(imgp_csv_cell(c, 0, 0), "t,x"),
	      "spreadsheet: a quoted comma in a semicolon header is text");
	imgp_csv_free(c);
}

/* Read by length: a NUL cuts no cell short; no control character gets into one. */
static int parse_len(const char *text, size_t len, struct imgp_csv **c)
{
	imgp_errclear_();
	*c = NULL;
	return imgp_csv_parse(text, len, c);
}

static void test_control(void)
{
	static const char nul[] = "target,user\na.img,ubu\0ntu\n";
	static const char nul_quoted[] = "target,user\na.img,\"ubu\0ntu\"\n";
	static const char nul_header[] = "tar\0get,user\na.img,x\n";
	struct imgp_csv *c = NULL;

	CHECK(parse_len(nul, sizeof(nul) - 1, &c) == -EINVAL && !c &&
	      strstr(imgp_errmsg(), "line 2: control character \\x00 (NUL) in a field"),
	      "control: a NUL in an unquoted cell, its line named");
	CHECK(parse_len(nul_quoted, sizeof(nul_quoted) - 1, &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "line 2: control character \\x00 (NUL)"),
	      "control: a NUL in a quoted cell");
	CHECK(parse_len(nul_header, sizeof(nul_header) - 1, &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "line 1: control character \\x00"),
	      "control: a NUL in the header");
	CHECK(parse("target,user\na.img,\"x\ny\"\nb.img,\"p\x1bq\"\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "line 4: control character \\x1b (ESC)"),
	      "control: ESC in a quoted cell, on the line after a line break in quotes");
	CHECK(parse("target,user\na.img,a\tb\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "line 2: control character \\x09 (tab)"),
	      "control: a tab inside an unquoted cell");
	CHECK(parse("target,user\na.img,\"a\tb\"\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "(tab)"), "control: a tab inside a quoted cell");
	CHECK(parse("target,user\na.img,a\rb\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "line 2: control character \\x0d (CR without LF)"),
	      "control: a lone CR");
	CHECK(parse("target,user\na.img,ab\x7f\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "\\x7f (DEL)"), "control: DEL");
	CHECK(parse("target,user\na.img,\x01\n", &c) == -EINVAL &&
	      strstr(imgp_errmsg(), "\\x01 in a field"), "control: any byte below space");
	CHECK(parse("target,user\r\na.img,\tx \t\r\nb.img,\"y\"\t\r", &c) == 0 &&
	      !strcmp(imgp_csv_cell(c, 1, 1), "x") && !strcmp(imgp_csv_cell(c, 2, 1), "y"),
	      "control: tabs around a cell, CRLF and a last CR are no part of it");
	imgp_csv_free(c);
	CHECK(parse("target,note\na.img,\"x\r\ny\"\n", &c) == 0 &&
	      !strcmp(imgp_csv_cell(c, 1, 1), "x\r\ny"),
	      "control: a CRLF inside quotes is a line break, kept");
	imgp_csv_free(c);
}

int main(void)
{
	test_plain();
	test_quoted();
	test_spreadsheet();
	test_trimmed();
	test_bad();
	test_control();
	return unit_done();
}
