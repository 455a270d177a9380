// SPDX-License-Identifier: MIT
/*
 * The doctor's pure helpers: shell words of fix commands, severities, fstab
 * listing, and picking the effective tree a finding or cat --dtb names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"
#include "unit.h"

static void check_quote(const char *arg, const char *want, const char *name)
{
	struct imgp_buf b = { 0 };
	int rc = imgp_shell_quote_(&b, arg);

	CHECK_STR(rc == 0 && b.data ? (const char *)b.data : "(failed)", want, name);
	imgp_buf_free(&b);
}

static void test_quote(void)
{
	check_quote("kv260.img", "kv260.img", "quote: a plain name stays as it is");
	check_quote("/axi/mmc@ff170000:no-1-8-v", "/axi/mmc@ff170000:no-1-8-v",
		    "quote: a node:property stays as it is");
	check_quote("my card.img", "'my card.img'", "quote: a blank is quoted");
	check_quote("it's.img", "'it'\\''s.img'", "quote: a single quote is closed and escaped");
	check_quote("$(rm -rf x)", "'$(rm -rf x)'", "quote: shell syntax is inert");
	check_quote("", "''", "quote: the empty word");
}

static void test_severity(void)
{
	enum imgp_severity s = IMGP_SEVERITY_INFO;

	CHECK(imgp_severity_parse("warning", &s) == 0 && s == IMGP_SEVERITY_WARNING,
	      "severity: warning parses");
	CHECK(imgp_severity_parse("info", &s) == 0 && s == IMGP_SEVERITY_INFO,
	      "severity: info parses");
	CHECK(imgp_severity_parse("Warning", &s) == -EINVAL, "severity: names are exact");
	CHECK_STR(imgp_severity_name_(IMGP_SEVERITY_WARNING), "warning", "severity: name");
	CHECK(IMGP_SEVERITY_WARNING > IMGP_SEVERITY_INFO, "severity: warning ranks above info");
}

static void test_fstab_list(void)
{
	const char *text = "# <file system> <mount point> <type> <options>\n"
			   "LABEL=writable\t/\text4\tdiscard,errors=remount-ro\t0 1\r\n"
			   "\n"
			   "/swapfile none swap sw 0 0\n"
			   "/dev/sdb1 none swap sw\n"
			   "/dev/sdc1 /mnt/my\\040disk ext4 defaults\n"
			   "tmpfs /tmp tmpfs mode=1777 0 0";
	struct imgp_fstab_entry *e;
	size_t n = 0;
	int rc;

	rc = imgp_fstab_list_(text, strlen(text), &e, &n);
	CHECK(rc == 0, "fstab list: parses");
	CHECK(n == 5, "fstab list: every entry");
	if (rc || n != 5)
		return;
	CHECK(e[0].line == 2 && strcmp(e[0].file, "/") == 0 &&
	      strcmp(e[0].options, "discard,errors=remount-ro") == 0,
	      "fstab list: root with its line number, CR dropped");
	CHECK(e[1].line == 4 && strcmp(e[1].spec, "/swapfile") == 0,
	      "fstab list: first swap line");
	CHECK(e[2].line == 5 && strcmp(e[2].spec, "/dev/sdb1") == 0,
	      "fstab list: two lines with the same mount point are both there");
	CHECK(e[3].line == 6 && strcmp(e[3].file, "/mnt/my disk") == 0,
	      "fstab list: an escaped mount point, unescaped");
	CHECK(e[4].line == 7 && strcmp(e[4].vfstype, "tmpfs") == 0,
	      "fstab list: a last line without newline");
	imgp_fstab_list_free_(e, n);

	rc = imgp_fstab_list_("/ / ext4\n", 9, &e, &n);
	CHECK(rc == -EINVAL && n == 0, "fstab list: a malformed line fails the file");
	CHECK(strstr(imgp_errmsg(), "line 1") != NULL, "fstab list: the message names the line");

	rc = imgp_fstab_list_("", 0, &e, &n);
	CHECK(rc == 0 && n == 0, "fstab list: an empty file has no entries");
	imgp_fstab_list_free_(e, n);
}

static void test_effective_pick(void)
{
	struct imgp_fit_image img = { .name = (char *)"fdt-b.dtb" };
	struct imgp_effective trees[2] = {
		{ .model = (char *)"pi4", .path = (char *)"/bcm2711-rpi-4-b.dtb" },
		{ .path = (char *)"/image.fit", .image = &img },
	};
	const struct imgp_effective *t;

	CHECK(imgp_effective_pick_(trees, 2, "pi4", &t) == 0 && t == &trees[0],
	      "effective pick: by model");
	CHECK(imgp_effective_pick_(trees, 2, "/bcm2711-rpi-4-b.dtb", &t) == 0 && t == &trees[0],
	      "effective pick: by the tree's file");
	CHECK(imgp_effective_pick_(trees, 2, "fdt-b.dtb", &t) == 0 && t == &trees[1],
	      "effective pick: by the FIT image's name");
	CHECK(imgp_effective_pick_(trees, 2, "/image.fit", &t) == -ENOENT && !t,
	      "effective pick: a FIT's path names none of its trees");
	CHECK(imgp_effective_pick_(trees, 2, NULL, &t) == -EEXIST && !t,
	      "effective pick: several trees need a name");
	CHECK_STR(imgp_errmsg(), "2 trees (pi4, fdt-b.dtb): name one",
		  "effective pick: the message lists the names");
	CHECK(imgp_effective_pick_(trees, 2, "pi5", &t) == -ENOENT,
	      "effective pick: an unknown name");
	CHECK_STR(imgp_errmsg(), "no tree 'pi5' (have: pi4, fdt-b.dtb)",
		  "effective pick: the message says what there is");
	CHECK(imgp_effective_pick_(trees, 1, NULL, &t) == 0 && t == &trees[0],
	      "effective pick: the only tree needs no name");
	CHECK(imgp_effective_pick_(trees, 0, NULL, &t) == -ENOENT, "effective pick: no tree");
	imgp_errclear_();
}

int main(void)
{
	test_quote();
	test_severity();
	test_fstab_list();
	test_effective_pick();
	return unit_done();
}
