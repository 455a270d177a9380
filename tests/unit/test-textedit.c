// SPDX-License-Identifier: MIT
/*
 * Text edits: config.txt / uEnv.txt lines and cmdline.txt tokens. Each case
 * gives the whole expected text, so that every byte the edit should keep
 * (comments, spacing, CRLF, a missing final newline) is checked; seeded
 * random texts then check that an edit touches nothing but its own lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"
#include "unit.h"

enum op { SET_LINE, REMOVE_LINE, SET_TOKEN, REMOVE_TOKEN, SET_FIELDS };

static int run_op(enum op op, const char *text, size_t len, const char *arg,
		  const char *value, const char *section, struct imgp_buf *out)
{
	switch (op) {
	case SET_LINE:
		return imgp_text_set_line_(text, len, arg, value, section, out);
	case REMOVE_LINE:
		return imgp_text_remove_line_(text, len, arg, out);
	case SET_TOKEN:
		return imgp_text_set_token_(text, len, arg, out);
	case REMOVE_TOKEN:
		return imgp_text_remove_token_(text, len, arg, out);
	case SET_FIELDS:
		return imgp_text_set_fields_(text, len, arg, value, out);
	}
	return -EINVAL;
}

/* One edit: its return value and the whole resulting text. */
static void expect(enum op op, const char *text, const char *arg,
		   const char *value, const char *section, int want_rc,
		   const char *want, const char *name)
{
	struct imgp_buf out = { 0 };
	int rc;

	/* out holds something already: the result replaces it. */
	imgp_buf_append(&out, "stale", 5);
	rc = run_op(op, text, strlen(text), arg, value, section, &out);
	if (rc != want_rc)
		printf("#   rc %d, want %d (%s)\n", rc, want_rc, imgp_errmsg());
	CHECK(rc == want_rc, name);
	CHECK_STR(out.data ? (char *)out.data : "", want, name);
	CHECK(out.len == strlen(want), name);
	imgp_buf_free(&out);
}

static void set_line(const char *text, const char *key, const char *value,
		     const char *section, int rc, const char *want,
		     const char *name)
{
	expect(SET_LINE, text, key, value, section, rc, want, name);
}

static void check_set_line(void)
{
	set_line("a=1\nb=2\nc=3\n", "b", "9", NULL, 1, "a=1\nb=9\nc=3\n",
		 "replaces the line in place");
	set_line("a=1\nb=9\n", "b", "9", NULL, 0, "a=1\nb=9\n",
		 "already so: unchanged, returns 0");
	set_line("a=1\n  \tb=2 \n", "b", "9", NULL, 1, "a=1\n  \tb=9\n",
		 "leading blanks before the key are kept");
	set_line("#b=2\n  # b=3\n", "b", "9", NULL, 1, "#b=2\n  # b=3\nb=9\n",
		 "commented-out lines are not the key's");
	set_line("b=1\nx=0\nb=2\n# b=3\nb=4\n", "b", "9", NULL, 1,
		 "b=9\nx=0\n# b=3\n",
		 "first active line replaced, later ones removed");
	set_line("b=9\nb=4\n", "b", "9", NULL, 1, "b=9\n",
		 "first already so, a later one removed: changed");
	set_line("bb=1\nb =2\nab=3\n", "b", "9", NULL, 1,
		 "bb=1\nb =2\nab=3\nb=9\n", "only KEY= itself matches");
	set_line("dtparam=audio=on\ndtparam=sd_overclock=50\n",
		 "dtparam=sd_overclock", "100", NULL, 1,
		 "dtparam=audio=on\ndtparam=sd_overclock=100\n",
		 "a key holding '='");
	set_line("a=1\n", "a", "", NULL, 1, "a=\n", "empty value");
	set_line("a=1\r\nb=2\r\n", "b", "3", NULL, 1, "a=1\r\nb=3\r\n",
		 "CRLF line replaced");
	set_line("a=1\r\nb=2\r\n", "c", "4", NULL, 1, "a=1\r\nb=2\r\nc=4\r\n",
		 "CRLF file: the new line ends in CRLF");
	set_line("a=1", "b", "2", NULL, 1, "a=1\nb=2\n",
		 "no final newline: one is added before the new line");
	set_line("a=1\nb=2", "b", "3", NULL, 1, "a=1\nb=3",
		 "last line without newline replaced: still none");
	set_line("", "a", "1", NULL, 1, "a=1\n", "empty file");
	set_line("a=1\n\n\n", "b", "2", NULL, 1, "a=1\nb=2\n\n\n",
		 "trailing blank lines stay trailing");
	set_line("# only a comment\n", "b", "2", NULL, 1,
		 "# only a comment\nb=2\n", "after a comment");
}

static void check_sections(void)
{
	set_line("", "a", "1", "all", 1, "a=1\n",
		 "empty file, [all]: no header needed");
	set_line("a=1\n", "b", "2", "all", 1, "a=1\nb=2\n",
		 "no header at all: the file is [all]");
	set_line("", "a", "1", "pi4", 1, "[pi4]\na=1\n[all]\n",
		 "empty file, [pi4]: header added, closed with [all]");
	set_line("a=1\n", "b", "2", "pi4", 1, "a=1\n\n[pi4]\nb=2\n[all]\n",
		 "no header, [pi4]: header added after a blank line, closed with [all]");
	set_line("a=1\n\n[pi4]\nb=2\n[all]\n", "b", "2", "pi4", 0,
		 "a=1\n\n[pi4]\nb=2\n[all]\n", "[pi4] block written before: unchanged");
	set_line("[gpio4=1]\nx=1\n", "k", "v", "pi3", 1,
		 "[gpio4=1]\nx=1\n\n[all]\n[pi3]\nk=v\n[all]\n",
		 "file ends under another kind of filter: [all] before the header too");
	set_line("include usercfg.txt\r\n", "k", "v", "board-type=0x11", 1,
		 "include usercfg.txt\r\n\r\n[all]\r\n[board-type=0x11]\r\nk=v\r\n[all]\r\n",
		 "after an include (its filter may hold): [all] first, CRLF kept");
	set_line("[pi3]\nx=1\n", "k", "v", "pi3", 1, "[pi3]\nx=1\nk=v\n",
		 "the file's open [pi3] block: the line joins it, the end state as it was");
	set_line("[pi4]\nx=1\n\n[all]\ny=2\n\n", "k", "v", "all", 1,
		 "[pi4]\nx=1\n\n[all]\ny=2\nk=v\n\n",
		 "last header [all]: at the end of its block");
	set_line("[pi4]\nx=1\n[all]\n", "k", "v", "all", 1,
		 "[pi4]\nx=1\n[all]\nk=v\n", "empty [all] block: below its header");
	set_line("[all]\ny=2\n# end\n", "k", "v", "all", 1,
		 "[all]\ny=2\n# end\nk=v\n", "below a trailing comment of the block");
	set_line("[all] # every board\ny=2\n", "k", "v", "all", 1,
		 "[all] # every board\ny=2\nk=v\n", "a header with a comment after it");
	set_line("[all]\ny=2\n[pi4]\nx=1\n", "k", "v", "all", 1,
		 "[all]\ny=2\n[pi4]\nx=1\n\n[all]\nk=v\n",
		 "last header [pi4]: new [all] section at the end");
	set_line("[all]\ny=2\n[pi4]\nx=1\n\n", "k", "v", "all", 1,
		 "[all]\ny=2\n[pi4]\nx=1\n\n[all]\nk=v\n",
		 "new section after a blank line: no second blank line");
	set_line("[pi4]\nx=1", "k", "v", "all", 1,
		 "[pi4]\nx=1\n\n[all]\nk=v\n",
		 "new section after a last line without newline");
	set_line("[pi4]\r\nx=1\r\n", "k", "v", "all", 1,
		 "[pi4]\r\nx=1\r\n\r\n[all]\r\nk=v\r\n", "new section in CRLF");
	set_line("[pi4]\nk=1\n[all]\ny=2\n", "k", "2", "all", 1,
		 "[pi4]\nk=1\n[all]\ny=2\nk=2\n",
		 "key active under [pi4] only: [all] gets its own, [pi4]'s stays");
	set_line("k=1\n[pi4]\nx=1\n[all]\ny=2\n", "k", "2", "all", 1,
		 "k=2\n[pi4]\nx=1\n[all]\ny=2\n",
		 "key above the first header is in [all]: replaced where it stands");
	set_line("[pi3]\nk=1\n[pi4]\nk=5\n", "k", "2", "pi3", 1,
		 "[pi3]\nk=2\n[pi4]\nk=5\n",
		 "[pi3]'s key replaced, [pi4]'s left alone");
	set_line("[pi3]\nk=2\n[pi4]\nk=5\n", "k", "2", "pi3", 0,
		 "[pi3]\nk=2\n[pi4]\nk=5\n", "[pi3]'s key already so");
	set_line("k=1\n[pi4]\nx=1\n", "k", "2", "pi4", 1,
		 "k=1\n[pi4]\nx=1\nk=2\n",
		 "key only in [all]: [pi4] gets its own line");
	set_line("[pi3]\nk=1\n[all]\n[pi3]\nk=3\n", "k", "2", "pi3", 1,
		 "[pi3]\nk=2\n[all]\n[pi3]\n",
		 "[pi3] twice: the first line set, the later one dropped");
}

static void check_remove_line(void)
{
	expect(REMOVE_LINE, "a=1\nb=2\n  b=3\n#b=4\nbb=5\n", "b", NULL, NULL, 1,
	       "a=1\n#b=4\nbb=5\n", "removes every active line of the key");
	expect(REMOVE_LINE, "a=1\n#b=4\n", "b", NULL, NULL, 0, "a=1\n#b=4\n",
	       "absent: unchanged, returns 0");
	expect(REMOVE_LINE, "a=1\r\nb=2\r\nc=3\r\n", "b", NULL, NULL, 1,
	       "a=1\r\nc=3\r\n", "CRLF kept");
	expect(REMOVE_LINE, "a=1\nb=2", "b", NULL, NULL, 1, "a=1\n",
	       "last line without newline removed");
	expect(REMOVE_LINE, "", "b", NULL, NULL, 0, "", "empty file");
}

static const char cmdline[] =
	"console=serial0,115200 console=tty1 root=PARTUUID=1a2b3c4d-02 "
	"rootfstype=ext4 fsck.repair=yes rootwait\n";

static void check_tokens(void)
{
	expect(SET_TOKEN, cmdline, "root=/dev/mmcblk0p2", NULL, NULL, 1,
	       "console=serial0,115200 console=tty1 root=/dev/mmcblk0p2 "
	       "rootfstype=ext4 fsck.repair=yes rootwait\n",
	       "key=value replaced; rootfstype and rootwait are other keys");
	expect(SET_TOKEN, cmdline, "console=ttyS0", NULL, NULL, 1,
	       "console=ttyS0 root=PARTUUID=1a2b3c4d-02 "
	       "rootfstype=ext4 fsck.repair=yes rootwait\n",
	       "first token of the key replaced, later ones removed");
	expect(SET_TOKEN, cmdline, "quiet", NULL, NULL, 1,
	       "console=serial0,115200 console=tty1 root=PARTUUID=1a2b3c4d-02 "
	       "rootfstype=ext4 fsck.repair=yes rootwait quiet\n",
	       "flag appended with one space, newline kept");
	expect(SET_TOKEN, cmdline, "rootwait", NULL, NULL, 0, cmdline,
	       "flag present: unchanged, returns 0");
	expect(SET_TOKEN, cmdline, "rootfstype=ext4", NULL, NULL, 0, cmdline,
	       "same key=value: unchanged");
	expect(SET_TOKEN, "a quiet=0 b\n", "quiet", NULL, NULL, 1, "a quiet b\n",
	       "flag replaces the key's value form");
	expect(SET_TOKEN, "a=1  b=2\t c=3\n", "b=9", NULL, NULL, 1,
	       "a=1  b=9\t c=3\n", "separators kept");
	expect(SET_TOKEN, "  a=1 b=2  \n", "c", NULL, NULL, 1, "  a=1 b=2 c  \n",
	       "leading and trailing blanks kept");
	expect(SET_TOKEN, "a=\"x y\" b=1\n", "a=2", NULL, NULL, 1, "a=2 b=1\n",
	       "a quoted token is one token");
	expect(SET_TOKEN, "a=1 b=1\n", "dyndbg=\"file x.c +p\"", NULL, NULL, 1,
	       "a=1 b=1 dyndbg=\"file x.c +p\"\n", "a quoted token set");
	expect(SET_TOKEN, "a=1", "b", NULL, NULL, 1, "a=1 b",
	       "no final newline: none added");
	expect(SET_TOKEN, "a=1\r\n", "b", NULL, NULL, 1, "a=1 b\r\n", "CRLF kept");
	expect(SET_TOKEN, "", "quiet", NULL, NULL, 1, "quiet", "empty file");
	expect(SET_TOKEN, "\n", "quiet", NULL, NULL, 1, "quiet\n",
	       "empty line keeps its newline");
	expect(SET_TOKEN, "a=1\n# note\n", "b", NULL, NULL, 1, "a=1 b\n# note\n",
	       "only the first line is the command line");

	expect(REMOVE_TOKEN, "a=1  b=2   c=3\n", "b", NULL, NULL, 1,
	       "a=1   c=3\n", "removed with the blanks before it");
	expect(REMOVE_TOKEN, "a=1  b=2   c=3\n", "a", NULL, NULL, 1,
	       "b=2   c=3\n", "first token removed with the blanks after it");
	expect(REMOVE_TOKEN, "a=1 b=2 c=3\n", "c", NULL, NULL, 1, "a=1 b=2\n",
	       "last token removed");
	expect(REMOVE_TOKEN, "quiet a quiet=1 b quiet\n", "quiet", NULL, NULL, 1,
	       "a b\n", "every \"key\" and \"key=...\" removed");
	expect(REMOVE_TOKEN, "a\n", "a", NULL, NULL, 1, "\n", "only token removed");
	expect(REMOVE_TOKEN, cmdline, "quiet", NULL, NULL, 0, cmdline,
	       "absent: unchanged, returns 0");
	expect(REMOVE_TOKEN, "x=\"q r\" s\r\n", "x", NULL, NULL, 1, "s\r\n",
	       "quoted token removed whole");
}

static void check_errors(void)
{
	struct imgp_buf out = { 0 };
	size_t big = 1024 * 1024 + 1;
	char *huge = malloc(big);

	expect(SET_LINE, "a=1\n", "a\nb", "1", NULL, -EINVAL, "", "key with a newline");
	expect(SET_LINE, "a=1\n", "a", "1\r", NULL, -EINVAL, "", "value with a CR");
	expect(SET_LINE, "a=1\n", "", "1", NULL, -EINVAL, "", "empty key");
	expect(SET_LINE, "a=1\n", "#a", "1", NULL, -EINVAL, "", "key starting with '#'");
	expect(REMOVE_LINE, "a=1\n", " a", NULL, NULL, -EINVAL, "",
	       "key starting with a blank");
	expect(SET_LINE, "a=1\n", "a", "1", "pi]4", -EINVAL, "", "section with ']'");
	expect(REMOVE_LINE, "a=1\n", "a\n", NULL, NULL, -EINVAL, "",
	       "remove: key with a newline");
	expect(SET_TOKEN, "a\n", "b c", NULL, NULL, -EINVAL, "", "two tokens");
	expect(SET_TOKEN, "a\n", " b", NULL, NULL, -EINVAL, "", "token with a blank");
	expect(SET_TOKEN, "a\n", "=x", NULL, NULL, -EINVAL, "", "token without key");
	expect(SET_TOKEN, "a\n", "b\n", NULL, NULL, -EINVAL, "", "token with a newline");
	expect(SET_TOKEN, "a\n", "", NULL, NULL, -EINVAL, "", "empty token");
	expect(REMOVE_TOKEN, "a=1\n", "a=1", NULL, NULL, -EINVAL, "",
	       "remove: key with a value");
	CHECK(strstr(imgp_errmsg(), "give the key alone") != NULL,
	      "remove: the message has a hint");

	/* An empty buffer may have no storage at all. */
	CHECK(imgp_text_set_line_(NULL, 0, "a", "1", "all", &out) == 1 &&
	      !strcmp((char *)out.data, "a=1\n"), "set_line: no text at all");
	CHECK(imgp_text_remove_line_(NULL, 0, "a", &out) == 0 && out.len == 0,
	      "remove_line: no text at all");
	CHECK(imgp_text_set_token_(NULL, 0, "quiet", &out) == 1 &&
	      !strcmp((char *)out.data, "quiet"), "set_token: no text at all");
	CHECK(imgp_text_remove_token_(NULL, 0, "quiet", &out) == 0 && out.len == 0,
	      "remove_token: no text at all");

	if (!huge) {
		CHECK(0, "allocate 1 MiB");
		return;
	}
	memset(huge, 'x', big);
	CHECK(imgp_text_set_line_(huge, big, "a", "1", NULL, &out) == -EFBIG,
	      "set_line: over 1 MiB");
	CHECK(imgp_text_remove_line_(huge, big, "a", &out) == -EFBIG,
	      "remove_line: over 1 MiB");
	CHECK(imgp_text_set_token_(huge, big, "a", &out) == -EFBIG,
	      "set_token: over 1 MiB");
	CHECK(imgp_text_remove_token_(huge, big, "a", &out) == -EFBIG,
	      "remove_token: over 1 MiB");
	CHECK(strstr(imgp_errmsg(), "1048577 bytes") != NULL, "size in the message");
	CHECK(imgp_text_set_token_(huge, big - 1, "a", &out) == 1 &&
	      out.len == big + 1, "exactly 1 MiB is edited");
	free(huge);
	imgp_buf_free(&out);
}

/* Random line files: lines of these, some blank, some commented. */
static char *random_lines(unsigned *seed, size_t *len)
{
	static const char *const lines[] = {
		"k=1", "k=2", "#k=3", "  k=4", "kk=5", "a=1", "", "  ", "[all]",
		"[pi4]", "# comment", "dtparam=k=1",
	};
	struct imgp_buf b = { 0 };
	size_t n = (size_t)rand_r(seed) % 12, i;
	const char *eol = rand_r(seed) % 4 ? "\n" : "\r\n";

	imgp_buf_append(&b, "", 0);
	for (i = 0; i < n; i++)
		imgp_buf_printf(&b, "%s%s",
				lines[(unsigned)rand_r(seed) % (sizeof(lines) / sizeof(lines[0]))],
				eol);
	*len = b.len;
	return (char *)b.data;
}

/* Random command lines: tokens of these with random blanks between. */
static char *random_tokens(unsigned *seed, size_t *len)
{
	static const char *const toks[] = {
		"k", "k=1", "k=\"a b\"", "kk=2", "a", "b=k", "quiet", "\"k x\"",
	};
	static const char *const gaps[] = { " ", "  ", "\t", " \t " };
	struct imgp_buf b = { 0 };
	size_t n = (size_t)rand_r(seed) % 8, i;

	imgp_buf_append(&b, "", 0);
	if (rand_r(seed) % 4 == 0)
		imgp_buf_append(&b, " ", 1);
	for (i = 0; i < n; i++) {
		if (i)
			imgp_buf_printf(&b, "%s", gaps[(unsigned)rand_r(seed) % 4]);
		imgp_buf_printf(&b, "%s", toks[(unsigned)rand_r(seed) % 8]);
	}
	if (rand_r(seed) % 2)
		imgp_buf_append(&b, rand_r(seed) % 4 ? "\n" : "\r\n",
				rand_r(seed) % 4 ? 1 : 2);
	*len = b.len;
	return (char *)b.data;
}

/*
 * Removing the key's lines (tokens) after setting it gives what removing
 * them from the original gives: set touched nothing else. Setting twice
 * changes nothing the second time.
 */
static void check_random(void)
{
	struct imgp_buf set = { 0 }, again = { 0 }, r1 = { 0 }, r2 = { 0 };
	unsigned seed = 4242;
	int i, bad_lines = 0, bad_tokens = 0, not_idem = 0;

	for (i = 0; i < 400; i++) {
		size_t len;
		char *t = random_lines(&seed, &len);

		if (imgp_text_set_line_(t, len, "k", "9", NULL, &set) < 0 ||
		    imgp_text_remove_line_((char *)set.data, set.len, "k", &r1) < 0 ||
		    imgp_text_remove_line_(t, len, "k", &r2) < 0 ||
		    r1.len != r2.len || memcmp(r1.data, r2.data, r1.len))
			bad_lines++;
		if (imgp_text_set_line_((char *)set.data, set.len, "k", "9", NULL,
				       &again) != 0)
			not_idem++;
		free(t);

		t = random_tokens(&seed, &len);
		if (imgp_text_set_token_(t, len, "k=9", &set) < 0 ||
		    imgp_text_remove_token_((char *)set.data, set.len, "k", &r1) < 0 ||
		    imgp_text_remove_token_(t, len, "k", &r2) < 0 ||
		    r1.len != r2.len || memcmp(r1.data, r2.data, r1.len)) {
			if (!bad_tokens)
				printf("# '%s' -> '%s'\n", t, (char *)set.data);
			bad_tokens++;
		}
		if (imgp_text_set_token_((char *)set.data, set.len, "k=9", &again) != 0)
			not_idem++;
		free(t);
	}
	CHECK(bad_lines == 0, "random line files: set touches only the key's lines");
	CHECK(bad_tokens == 0, "random command lines: set touches only the key's tokens");
	CHECK(not_idem == 0, "random texts: setting again changes nothing");
	imgp_buf_free(&set);
	imgp_buf_free(&again);
	imgp_buf_free(&r1);
	imgp_buf_free(&r2);
}

/* /etc/hosts as pi-gen leaves it: 127.0.1.1, two tabs, the host name. */
static void check_fields(void)
{
	const char *hosts = "127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n"
			    "ff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n\n"
			    "127.0.1.1\t\traspberrypi\n";

	expect(SET_FIELDS, hosts, "127.0.1.1", "lab-07", NULL, 1,
	       "127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n"
	       "ff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n\n"
	       "127.0.1.1\t\tlab-07\n", "fields: pi-gen's 127.0.1.1 line, its two tabs kept");
	expect(SET_FIELDS, "127.0.1.1 old.lan old # mine\r\n127.0.1.10 x\n", "127.0.1.1",
	       "new", NULL, 1, "127.0.1.1 new # mine\r\n127.0.1.10 x\n",
	       "fields: every field after the key, the comment and CRLF kept; 127.0.1.10 is another key");
	expect(SET_FIELDS, "127.0.1.1\tnew\n", "127.0.1.1", "new", NULL, 0,
	       "127.0.1.1\tnew\n", "fields: already so");
	expect(SET_FIELDS, "127.0.0.1 localhost\n#127.0.1.1 old\n", "127.0.1.1", "new", NULL, 0,
	       "127.0.0.1 localhost\n#127.0.1.1 old\n",
	       "fields: no line of the key (a comment is none): unchanged, none added");
	expect(SET_FIELDS, "127.0.1.1\n  127.0.1.1   a b", "127.0.1.1", "new", NULL, 1,
	       "127.0.1.1\tnew\n  127.0.1.1   new", "fields: a bare key gets a tab; indented, no newline");
	expect(SET_FIELDS, "a b\n", "a b", "x", NULL, -EINVAL, "", "fields: a key with a blank");
	expect(SET_FIELDS, "a b\n", "a", "x\ny", NULL, -EINVAL, "", "fields: a value with a line break");
}

int main(void)
{
	check_set_line();
	check_sections();
	check_remove_line();
	check_fields();
	check_tokens();
	check_errors();
	check_random();
	return unit_done();
}
