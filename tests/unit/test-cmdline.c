// SPDX-License-Identifier: MIT
/*
 * Kernel command line edits: each case gives the whole expected line, so
 * that the owner's spacing, quoted values and what follows "--" are seen
 * to stay; the words are split as Linux's next_arg() splits them.
 */
#include <errno.h>
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"
#include "unit.h"

static void expect(const char *line, const char *edits, int want_rc, const char *want,
		   const char *name)
{
	struct imgp_buf out = { 0 };
	int rc;

	imgp_buf_append(&out, "stale", 5);
	rc = imgp_cmdline_edit_(line, strlen(line), edits, &out);
	if (rc != want_rc)
		printf("#   rc %d, want %d (%s)\n", rc, want_rc, imgp_errmsg());
	CHECK(rc == want_rc, name);
	if (want) {
		CHECK_STR(out.data ? (char *)out.data : "", want, name);
		CHECK(out.len == strlen(want), name);
	}
	imgp_buf_free(&out);
}

static void adds(void)
{
	expect("console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait",
	       "+cgroup_enable=memory,+cgroup_memory=1", 1,
	       "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait cgroup_enable=memory cgroup_memory=1",
	       "Raspberry Pi OS: k3s's two words appended");
	expect("a cgroup_enable=memory cgroup_memory=1", "+cgroup_enable=memory,+cgroup_memory=1",
	       0, "a cgroup_enable=memory cgroup_memory=1", "again: nothing changes");
	expect("quiet", "+quiet", 0, "quiet", "+word already there");
	expect("quiet=1", "+quiet", 0, "quiet=1", "+word: a word of that name counts");
	expect("", "+quiet", 1, "quiet", "empty line");
	expect("   ", "+quiet", 1, "   quiet", "blank line: after the blanks");
	expect("a  b\t c  ", "+d", 1, "a  b\t c d  ", "spacing kept, trailing blanks too");
	expect("root=/dev/sda1 ro -- single", "+quiet", 1, "root=/dev/sda1 ro quiet -- single",
	       "before \"--\": what follows is init's");
	expect("-- single", "+quiet", 1, "quiet -- single", "only init's words");
	expect("root=x -- quiet", "+quiet", 1, "root=x quiet -- quiet",
	       "init's quiet is not the kernel's");
}

static void replaces(void)
{
	expect("console=tty1 root=x console=ttyS0,9600 quiet", "+console=ttyS2,1500000n8", 1,
	       "console=ttyS2,1500000n8 root=x quiet",
	       "+key=value: the first takes it, the others go");
	expect("root=x rootwait", "+rootwait=1", 1, "root=x rootwait=1", "a bare word takes a value");
	expect("a dyndbg=\"file x +p\" b", "+dyndbg=\"file y +p\"", 1, "a dyndbg=\"file y +p\" b",
	       "quoted values are one word");
	expect("a \"dyndbg=file x +p\" b", "-dyndbg", 1, "a b",
	       "a word quoted whole is named after the quote");
	expect("a \"quiet\" b", "-quiet", 1, "a b", "a quoted bare word");
	expect("a x=y=z", "+x=1", 1, "a x=1", "the name ends at the first =");
	expect("a ro b", "+ro=x", 1, "a ro=x b", "replaced where it stands");
}

static void removes(void)
{
	expect("quiet splash root=x", "-quiet", 1, "splash root=x", "first word: blanks after it go");
	expect("  quiet splash", "-quiet", 1, "  splash", "leading blanks stay");
	expect("root=x quiet splash", "-splash", 1, "root=x quiet", "last word");
	expect("a console=tty1 b console=ttyS0 c", "-console", 1, "a b c", "-key: every one");
	expect("a console=tty1 b console=ttyS0 c", "-console=tty1", 1, "a b console=ttyS0 c",
	       "-key=value: that word only");
	expect("a b", "-c", 0, "a b", "nothing to remove");
	expect("quiet", "-quiet", 1, "", "the only word");
	expect("a quiet -- quiet", "-quiet", 1, "a -- quiet", "not past \"--\"");
	expect("quietly quiet_x quiet", "-quiet", 1, "quietly quiet_x", "whole names only");
	expect("a quiet b", "-quiet,+quiet", 1, "a b quiet", "edits run in order: removed, then added at the end");
	expect("a quiet b", "+quiet,-quiet", 1, "a b", "the last edit wins");
}

/*
 * "++WORD" and " before KEY": raspi-config's do_serial_cons 0 runs
 * sed -e "s/root=/console=serial0,115200 root=/" on cmdline.txt
 * (RPi-Distro/raspi-config, commit 9c55e7b4d9c0299514120c7e50b3f482672b36e2);
 * the expected lines are that sed's output.
 */
static void more_and_before(void)
{
	const char *off = "console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait";
	const char *on = "console=tty1 console=serial0,115200 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait";

	expect(off, "++console=serial0,115200 before root", 1, on,
	       "raspi-config's place: before root=, after console=tty1");
	expect(on, "++console=serial0,115200 before root", 0, on, "again: that very word is there");
	expect("console=serial0,115200 console=tty1 root=x", "++console=serial0,115200 before root",
	       0, "console=serial0,115200 console=tty1 root=x", "pi-gen's line: already there");
	expect("console=tty1 root=x", "++console=ttyS0", 1, "console=tty1 root=x console=ttyS0",
	       "++word: other words of its name stay, appended at the end");
	expect("console=tty1 root=x", "+console=ttyS0", 1, "console=ttyS0 root=x",
	       "+key=value still replaces");
	expect("console=tty1 rootwait", "++console=ttyS0 before root", 1,
	       "console=tty1 rootwait console=ttyS0", "no word named root: at the end");
	expect("a  root=x", "+quiet before root", 1, "a  quiet root=x", "+word before: spacing kept");
	expect("quiet root=x", "+quiet before root", 0, "quiet root=x", "+word there: nothing moves");
	expect("a ro root=x", "+ro=1 before root", 1, "a ro=1 root=x",
	       "+key=value there: replaced where it stands");
	expect("a -- root=x", "+quiet before root", 1, "a quiet -- root=x", "not past \"--\"");
	expect("a", "+x=\"b before root\"", 1, "a x=\"b before root\"", "quoted: part of the word");
	expect("console=tty1 console=serial0,115200 root=x", "-console=serial0,115200", 1,
	       "console=tty1 root=x", "do_serial_cons 1: that word goes");
}

static void refuses(void)
{
	expect("a", "-quiet before root", -EINVAL, NULL, "before: only for an added word");
	expect("a", "+quiet before", -EINVAL, NULL, "before: no name");
	expect("a", "+quiet after root", -EINVAL, NULL, "only 'before'");
	expect("a", "+quiet before root=x", -EINVAL, NULL, "before: a name, no value");
	expect("a", "++", -EINVAL, NULL, "++: empty word");
	expect("a", "quiet", -EINVAL, NULL, "no sign");
	expect("a", "+", -EINVAL, NULL, "empty word");
	expect("a", "+a b", -EINVAL, NULL, "two words");
	expect("a", "+x=\"a b", -EINVAL, NULL, "quote not closed");
	expect("a", "+--", -EINVAL, NULL, "\"--\" is no edit");
	expect("a", "+x=a\nb", -EINVAL, NULL, "a newline");
	expect("a", "", -EINVAL, NULL, "no edit");
	expect("a", "+b,,+c", 1, "a b, c", "a comma not before a sign is the word's: b,");
	CHECK(imgp_cmdline_check("+console=ttyS0,115200n8,-quiet") == 0,
	      "check: the value keeps its comma");
	CHECK(imgp_cmdline_check("+x=\"a,-b\"") == 0, "check: commas in quotes stay");
	CHECK(imgp_cmdline_check("+a,quiet") == 0, "check: ',q' is part of the value");
}

static void expect_get(const char *line, const char *key, int want_rc, const char *want,
		       const char *name)
{
	struct imgp_buf v = { 0 };
	int rc = imgp_cmdline_get_(line, strlen(line), key, &v);

	CHECK(rc == want_rc, name);
	if (want)
		CHECK_STR(v.data ? (char *)v.data : "", want, name);
	imgp_buf_free(&v);
}

/* The value a --fstab refusal builds its rootflags= suggestion from. */
static void gets(void)
{
	expect_get("ro root=UUID=x rootflags=subvol=root LANG=C", "rootflags", 1,
		   "subvol=root", "Fedora's btrfs root: the value after the first '='");
	expect_get("rootflags=a rootflags=b", "rootflags", 1, "a", "the first word counts");
	expect_get("a rootflags b", "rootflags", 0, NULL, "a bare word has no value");
	expect_get("rootflagsx=a", "rootflags", 0, NULL, "whole names only");
	expect_get("a -- rootflags=x", "rootflags", 0, NULL, "not past \"--\"");
	expect_get("rootflags=\"a b\" c", "rootflags", 1, "\"a b\"", "a quoted value, as it is");
	expect_get("rootflags=", "rootflags", 1, "", "an empty value");
}

int main(void)
{
	adds();
	replaces();
	removes();
	more_and_before();
	refuses();
	gets();
	return unit_done();
}
