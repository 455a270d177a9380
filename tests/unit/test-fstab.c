// SPDX-License-Identifier: MIT
/* fstab parsing and option edits: every byte outside the edited field stays. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "text/text.h"
#include "unit.h"

#define UBUNTU "LABEL=writable\t/\text4\tdiscard,errors=remount-ro\t0 1\n"

/* Runs one edit; returns rc and leaves the new text (or "") in *out. */
static int edit(const char *text, const char *mnt, const char *ops,
		struct imgp_buf *out)
{
	imgp_errclear_();
	return imgp_fstab_edit_(text, strlen(text), mnt, ops, out);
}

static const char *str(const struct imgp_buf *b)
{
	return b->data ? (const char *)b->data : "";
}

static void test_ubuntu(void)
{
	const char *text = "# /etc/fstab: static file system information.\n" UBUNTU
			   "LABEL=system-boot\t/boot/firmware\tvfat\tdefaults\t0\t1\n";
	const char *want = "# /etc/fstab: static file system information.\n"
			   "LABEL=writable\t/\text4\terrors=remount-ro,noatime\t0 1\n"
			   "LABEL=system-boot\t/boot/firmware\tvfat\tdefaults\t0\t1\n";
	struct imgp_buf out = { 0 }, again = { 0 };
	int rc;

	rc = edit(text, "/", "-discard,+noatime", &out);
	CHECK(rc == 1, "ubuntu: edit reports a change");
	CHECK_STR(str(&out), want, "ubuntu: only the options field changes");

	rc = edit(str(&out), "/", "-discard,+noatime", &again);
	CHECK(rc == 0, "ubuntu: second edit reports no change");
	CHECK_STR(str(&again), want, "ubuntu: second edit keeps the text");

	imgp_buf_free(&out);
	imgp_buf_free(&again);
}

static void test_get(void)
{
	const char *text = "# comment\n" UBUNTU
			   "/swapfile none swap sw 0 0\n"
			   "/dev/sdc1 /mnt/my\\040disk ext4 defaults\n";
	struct imgp_fstab_entry e;
	int rc;

	rc = imgp_fstab_get_(text, strlen(text), "/", &e);
	CHECK(rc == 0, "get: root entry found");
	CHECK(e.line == 2, "get: line number is 1-based and counts comments");
	CHECK_STR(e.spec, "LABEL=writable", "get: spec");
	CHECK_STR(e.file, "/", "get: file");
	CHECK_STR(e.vfstype, "ext4", "get: vfstype");
	CHECK_STR(e.options, "discard,errors=remount-ro", "get: options");
	CHECK(e.freq == 0 && e.passno == 1, "get: freq and passno");
	imgp_fstab_entry_free_(&e);
	CHECK(e.spec == NULL && e.options == NULL, "get: entry_free clears");

	rc = imgp_fstab_get_(text, strlen(text), "/mnt/my disk", &e);
	CHECK(rc == 0, "get: \\040 in the mount point matches a space");
	CHECK_STR(e.file, "/mnt/my disk", "get: mount point is unescaped");
	CHECK(e.freq == 0 && e.passno == 0, "get: missing freq/passno are 0");
	CHECK(e.line == 4, "get: line of the escaped entry");
	imgp_fstab_entry_free_(&e);

	rc = imgp_fstab_get_(text, strlen(text), "/mnt/my\\040disk", &e);
	CHECK(rc == -ENOENT, "get: mount point argument is not unescaped");
	imgp_fstab_entry_free_(&e);

	rc = imgp_fstab_get_(UBUNTU, strlen(UBUNTU), "/boot/firmware/", &e);
	CHECK(rc == -ENOENT, "get: absent entry is -ENOENT");
	imgp_fstab_entry_free_(&e);
}

static void test_not_found(void)
{
	const char *text = UBUNTU
			   "LABEL=system-boot\t/boot/firmware\tvfat\tdefaults\t0\t1\n"
			   "/swapfile\tswap\tswap\tdefaults\t0 0\n"
			   "/swap2\tswap\tswap\tdefaults\t0 0\n";
	struct imgp_buf out = { 0 };
	struct imgp_fstab_entry e;
	int rc;

	rc = edit(text, "/boot", "+noatime", &out);
	CHECK(rc == -ENOENT, "not found: -ENOENT");
	CHECK_STR(imgp_errmsg(),
		  "no fstab entry for '/boot' (have: /, /boot/firmware, swap)",
		  "not found: message lists the mount points once each");
	CHECK(out.len == 0, "not found: no output");

	rc = edit("# nothing here\n", "/", "+noatime", &out);
	CHECK(rc == -ENOENT, "not found: empty fstab");
	CHECK_STR(imgp_errmsg(), "no fstab entry for '/' (the file has no entries)",
		  "not found: empty fstab message");

	rc = imgp_fstab_get_(text, strlen(text), "/boot/firmware/", &e);
	CHECK(rc == 0, "trailing slash in the mount point is ignored");
	imgp_fstab_entry_free_(&e);
	imgp_buf_free(&out);
}

static void test_options(void)
{
	struct {
		const char *opts, *ops, *want;
		int rc;
	} cases[] = {
		{ "noatime", "-noatime", "defaults", 1 },
		{ "defaults", "+noatime", "defaults,noatime", 1 },
		{ "defaults", "-defaults,+noatime", "noatime", 1 },
		{ "defaults", "-discard", "defaults", 0 },
		{ "noatime", "+noatime", "noatime", 0 },
		{ "noatime,commit=5,errors=remount-ro", "+commit=60",
		  "noatime,commit=60,errors=remount-ro", 1 },
		{ "commit=5,noatime,commit=10", "+commit=60", "commit=60,noatime", 1 },
		{ "commit=60", "+commit=60", "commit=60", 0 },
		{ "noatime", "+commit=60", "noatime,commit=60", 1 },
		{ "discard=async,noatime,discard", "-discard", "noatime", 1 },
		{ "commit=5,commit=10", "-commit=5", "commit=10", 1 },
		{ "rw,noatime", "-rw,+ro", "noatime,ro", 1 },
		{ "a,b,c", "-b,+d,-a", "c,d", 1 },
		{ "context=\"system_u:object_r:tmp_t:s0:c127,c456\",noexec",
		  "-noexec", "context=\"system_u:object_r:tmp_t:s0:c127,c456\"", 1 },
		{ "x-systemd.automount,noauto", "+x-systemd.idle-timeout=60",
		  "x-systemd.automount,noauto,x-systemd.idle-timeout=60", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct imgp_buf text = { 0 }, out = { 0 }, want = { 0 };
		char name[160];
		int rc;

		imgp_buf_printf(&text, "/dev/sda2 / ext4 %s 0 1\n", cases[i].opts);
		imgp_buf_printf(&want, "/dev/sda2 / ext4 %s 0 1\n", cases[i].want);
		rc = edit(str(&text), "/", cases[i].ops, &out);
		snprintf(name, sizeof(name), "options: '%s' %s -> rc %d",
			 cases[i].opts, cases[i].ops, cases[i].rc);
		CHECK(rc == cases[i].rc, name);
		snprintf(name, sizeof(name), "options: '%s' %s -> '%s'",
			 cases[i].opts, cases[i].ops, cases[i].want);
		CHECK_STR(str(&out), str(&want), name);
		imgp_buf_free(&text);
		imgp_buf_free(&out);
		imgp_buf_free(&want);
	}
}

static void test_layout(void)
{
	const char *text = "UUID=1234-ABCD  /boot/efi \t vfat    umask=0077      0       1\n"
			   "/dev/sdb1   /data\txfs  noatime,nofail   # trailing words\n"
			   "tmpfs /tmp tmpfs defaults";
	const char *want = "UUID=1234-ABCD  /boot/efi \t vfat    umask=0077      0       1\n"
			   "/dev/sdb1   /data\txfs  nofail   # trailing words\n"
			   "tmpfs /tmp tmpfs defaults";
	struct imgp_buf out = { 0 };
	struct imgp_fstab_entry e;
	int rc;

	rc = edit(text, "/data", "-noatime", &out);
	CHECK(rc == 1, "layout: comment after the options field");
	CHECK_STR(str(&out), want, "layout: trailing comment kept");
	rc = imgp_fstab_get_(text, strlen(text), "/data", &e);
	CHECK(rc == 0 && e.freq == 0 && e.passno == 0,
	      "layout: trailing comment is not freq/passno");
	imgp_fstab_entry_free_(&e);
	imgp_buf_free(&out);
}

static void test_bytes_kept(void)
{
	const char *text = "# <file system> <mount point>   <type>  <options>       <dump>  <pass>\n"
			   "\n"
			   "   \t\n"
			   "  # indented comment\n"
			   "UUID=1234-ABCD  /boot/efi \t vfat    umask=0077      0       1\n"
			   "/dev/sdb1   /data\txfs  noatime,nofail 0 2 # trailing comment\n"
			   "tmpfs /tmp tmpfs defaults";
	const char *want = "# <file system> <mount point>   <type>  <options>       <dump>  <pass>\n"
			   "\n"
			   "   \t\n"
			   "  # indented comment\n"
			   "UUID=1234-ABCD  /boot/efi \t vfat    umask=0077      0       1\n"
			   "/dev/sdb1   /data\txfs  noatime,nofail 0 2 # trailing comment\n"
			   "tmpfs /tmp tmpfs nosuid,nodev";
	const char *want2 = "# <file system> <mount point>   <type>  <options>       <dump>  <pass>\n"
			    "\n"
			    "   \t\n"
			    "  # indented comment\n"
			    "UUID=1234-ABCD  /boot/efi \t vfat    umask=0077      0       1\n"
			    "/dev/sdb1   /data\txfs  nofail 0 2 # trailing comment\n"
			    "tmpfs /tmp tmpfs defaults";
	struct imgp_buf out = { 0 };
	int rc;

	rc = edit(text, "/tmp", "-defaults,+nosuid,+nodev", &out);
	CHECK(rc == 1, "bytes: edit of the last line without a newline");
	CHECK_STR(str(&out), want, "bytes: missing final newline stays missing");

	rc = edit(text, "/data", "-noatime", &out);
	CHECK(rc == 1, "bytes: edit with a trailing comment");
	CHECK_STR(str(&out), want2, "bytes: comments, blank lines and spacing kept");

	rc = edit(text, "/data", "+nofail", &out);
	CHECK(rc == 0, "bytes: no-op edit returns 0");
	CHECK(out.len == strlen(text) && !memcmp(out.data, text, out.len),
	      "bytes: no-op edit returns the input unchanged");
	imgp_buf_free(&out);
}

static void test_crlf(void)
{
	const char *text = "# dos\r\nLABEL=root / ext4 defaults 0 1\r\n"
			   "LABEL=boot /boot vfat defaults\r\n";
	const char *want = "# dos\r\nLABEL=root / ext4 defaults 0 1\r\n"
			   "LABEL=boot /boot vfat defaults,noatime\r\n";
	struct imgp_buf out = { 0 };
	struct imgp_fstab_entry e;
	int rc;

	rc = edit(text, "/boot", "+noatime", &out);
	CHECK(rc == 1, "crlf: edit");
	CHECK_STR(str(&out), want, "crlf: CR LF line ends are kept");
	rc = imgp_fstab_get_(text, strlen(text), "/", &e);
	CHECK(rc == 0 && e.passno == 1, "crlf: CR is not part of passno");
	imgp_fstab_entry_free_(&e);
	imgp_buf_free(&out);
}

static void test_escapes(void)
{
	const char *text = "/dev/sdc1 /mnt/my\\040disk ext4 defaults 0 2\n"
			   "/dev/sdc2 /mnt/tab\\011here ext4 ro 0 2\n";
	const char *want = "/dev/sdc1 /mnt/my\\040disk ext4 defaults,noatime 0 2\n"
			   "/dev/sdc2 /mnt/tab\\011here ext4 ro 0 2\n";
	struct imgp_buf out = { 0 };
	int rc;

	rc = edit(text, "/mnt/my disk", "+noatime", &out);
	CHECK(rc == 1, "escapes: \\040 mount point edited");
	CHECK_STR(str(&out), want, "escapes: escaped field bytes kept");
	rc = edit(text, "/mnt/tab\there", "-ro", &out);
	CHECK(rc == 1, "escapes: \\011 mount point edited");
	CHECK(strstr(str(&out), "tab\\011here ext4 defaults 0 2\n") != NULL,
	      "escapes: tab entry now defaults");
	imgp_buf_free(&out);
}

static void test_duplicates(void)
{
	const char *text = "/dev/sda2 / ext4 discard 0 1\n"
			   "/dev/sda3 / ext4 discard 0 1\n";
	const char *want = "/dev/sda2 / ext4 discard 0 1\n"
			   "/dev/sda3 / ext4 defaults 0 1\n";
	struct imgp_buf out = { 0 };
	struct imgp_fstab_entry e;
	int rc;

	rc = edit(text, "/", "-discard", &out);
	CHECK(rc == 1, "duplicates: edit");
	CHECK_STR(str(&out), want, "duplicates: the last entry wins, as in mount");
	rc = imgp_fstab_get_(text, strlen(text), "/", &e);
	CHECK(rc == 0 && e.line == 2, "duplicates: get returns the last one");
	CHECK_STR(e.spec, "/dev/sda3", "duplicates: get spec of the last one");
	imgp_fstab_entry_free_(&e);
	imgp_buf_free(&out);
}

static void test_errors(void)
{
	const char *bad3 = "# c\n/dev/sda2 / ext4 defaults 0 1\n/dev/sda3 /x\n";
	struct imgp_buf out = { 0 };
	struct imgp_fstab_entry e;
	char *big;
	int rc;

	rc = edit(UBUNTU, "/", "noatime", &out);
	CHECK(rc == -EINVAL, "errors: edit without a sign");
	CHECK_STR(imgp_errmsg(), "fstab option edit 'noatime' must start with + or -",
		  "errors: sign message");
	rc = edit(UBUNTU, "/", "+noatime,discard", &out);
	CHECK(rc == -EINVAL, "errors: second edit without a sign");
	CHECK_STR(imgp_errmsg(), "fstab option edit 'discard' must start with + or -",
		  "errors: message names the bad item");
	rc = edit(UBUNTU, "/", "", &out);
	CHECK(rc == -EINVAL, "errors: empty edit");
	rc = edit(UBUNTU, "/", "+noatime,,-discard", &out);
	CHECK(rc == -EINVAL, "errors: empty item");
	rc = edit(UBUNTU, "/", "+", &out);
	CHECK(rc == -EINVAL, "errors: sign only");
	rc = edit(UBUNTU, "/", "+=5", &out);
	CHECK(rc == -EINVAL, "errors: value without a name");
	rc = edit(UBUNTU, "/", "+a b", &out);
	CHECK(rc == -EINVAL, "errors: blank inside an option");
	CHECK(out.len == 0, "errors: no output on failure");

	rc = edit(bad3, "/", "+noatime", &out);
	CHECK(rc == -EINVAL, "errors: short line");
	CHECK_STR(imgp_errmsg(), "line 3: expected at least 4 fields",
		  "errors: short line message");
	rc = imgp_fstab_get_(bad3, strlen(bad3), "/", &e);
	CHECK(rc == -EINVAL, "errors: get refuses a malformed file too");
	imgp_fstab_entry_free_(&e);

	rc = edit("/dev/a / ext4 defaults x 1\n", "/", "+noatime", &out);
	CHECK(rc == -EINVAL, "errors: freq not a number");
	rc = edit("/dev/a / ext4 defaults 0 1 2\n", "/", "+noatime", &out);
	CHECK(rc == -EINVAL, "errors: seven fields");
	rc = imgp_fstab_edit_("/dev/a / ext4 defaults\0 0 1\n", 27, "/", "+noatime",
			     &out);
	CHECK(rc == -EINVAL, "errors: NUL byte");

	big = malloc(1024 * 1024 + 2);
	if (big) {
		memset(big, '#', 1024 * 1024 + 1);
		big[1024 * 1024 + 1] = '\0';
		rc = imgp_fstab_edit_(big, 1024 * 1024 + 1, "/", "+noatime", &out);
		CHECK(rc == -EFBIG, "errors: more than 1 MiB is -EFBIG");
		rc = imgp_fstab_get_(big, 1024 * 1024 + 1, "/", &e);
		CHECK(rc == -EFBIG, "errors: get bounds the size too");
		imgp_fstab_entry_free_(&e);
		free(big);
	}
	imgp_buf_free(&out);
}

/*
 * A hostile fstab: the "not found" message once compared every entry with
 * every earlier one, so 1 MiB of distinct mount points took seconds.
 */
static void test_many_entries(void)
{
	struct imgp_buf text = { 0 }, tail = { 0 };
	struct imgp_fstab_entry e;
	int rc = 0, n = 0;

	for (; !rc && text.len < 1000 * 1000 - 16; n++)
		rc = imgp_buf_printf(&text, "a /%05x c d\n", n);
	CHECK(rc == 0, "many entries: text made");
	imgp_errclear_();
	rc = imgp_fstab_get_((const char *)text.data, text.len, "/nope", &e);
	CHECK(rc == -ENOENT, "many entries: -ENOENT");
	CHECK(imgp_buf_printf(&tail, ", ... %d entries in all)", n) == 0, "many entries: tail made");
	/* The list is bounded by its bytes, not by a count: 100 fit in it. */
	CHECK(strstr(imgp_errmsg(), "(have: /00000, /00001, ") != NULL &&
	      strstr(imgp_errmsg(), ", /00063, ") != NULL &&
	      strstr(imgp_errmsg(), (const char *)tail.data) != NULL,
	      "many entries: the message lists the first mount points and counts them all");
	imgp_buf_free(&tail);
	imgp_buf_free(&text);
}

int main(void)
{
	test_ubuntu();
	test_get();
	test_not_found();
	test_options();
	test_layout();
	test_bytes_kept();
	test_crlf();
	test_escapes();
	test_duplicates();
	test_errors();
	test_many_entries();
	return unit_done();
}
