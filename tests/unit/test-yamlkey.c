// SPDX-License-Identifier: MIT
/*
 * One top-level entry of a YAML block mapping (yamlkey.c): each case gives
 * the whole expected text, so every byte outside the entry (comments,
 * blank lines, other entries) is checked to stay.
 */
#include <errno.h>
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"
#include "unit.h"

#define CC "#cloud-config"

static void expect(const char *text, const char *header, const char *key,
		   const char *entry, int want_rc, const char *want,
		   const char *name)
{
	struct imgp_buf out = { 0 };
	int rc;

	imgp_buf_append(&out, "stale", 5);
	rc = imgp_yaml_set_key_(text, strlen(text), header, key, entry, &out);
	if (rc != want_rc)
		printf("#   rc %d, want %d (%s)\n", rc, want_rc, imgp_errmsg());
	CHECK(rc == want_rc, name);
	if (want_rc >= 0) {
		imgp_buf_append(&out, "", 1);
		CHECK_STR((char *)out.data, want, name);
		CHECK(out.len == strlen(want) + 1, name);
	}
	imgp_buf_free(&out);
}

static void check_set(void)
{
	expect("", CC, "timezone", "timezone: UTC\n", 1, CC "\ntimezone: UTC\n",
	       "an empty file gets the header and the entry");
	expect("", NULL, "instance-id", "instance-id: a\n", 1, "instance-id: a\n",
	       "an empty meta-data gets the entry alone");
	expect(CC "\n# only comments\n#users:\n#- default\n", CC, "user",
	       "user:\n  name: lab\n", 1,
	       CC "\n# only comments\n#users:\n#- default\nuser:\n  name: lab\n",
	       "pi-gen's comments kept, the entry appended");
	expect(CC "\na: 1\nb: 2", CC, "c", "c: 3\n", 1, CC "\na: 1\nb: 2\nc: 3\n",
	       "a text without a final newline gets one before the entry");
	expect(CC "\nruncmd:\n  - [ ls ]\n\n  - [ pwd ]\n\n\n# after\nlocale: C\n", CC,
	       "runcmd", "runcmd:\n  - [ id ]\n", 1,
	       CC "\nruncmd:\n  - [ id ]\n\n\n# after\nlocale: C\n",
	       "blank lines inside an entry go with it, those after it stay");
	expect(CC "\npackages:\n- avahi-daemon\n- git\ntimezone: UTC\n", CC, "packages",
	       "packages:\n- vim\n", 1, CC "\npackages:\n- vim\ntimezone: UTC\n",
	       "'- ' items at column 0 belong to the entry (Imager writes them so)");
	expect(CC "\nwrite_files:\n- content: |\n    a\n\n    b\n  path: /x\nuser: u\n", CC,
	       "write_files", "write_files: []\n", 1, CC "\nwrite_files: []\nuser: u\n",
	       "a block scalar with a blank line is one entry");
	expect(CC "\nuser: a\nusers: b\n", CC, "user", "user: c\n", 1,
	       CC "\nuser: c\nusers: b\n", "a key is matched whole, not as a prefix");
	expect(CC "\nssh_pwauth: false\n", CC, "ssh_pwauth", "ssh_pwauth: false\n", 0,
	       CC "\nssh_pwauth: false\n", "already so: unchanged");
	expect(CC "   \nlocale: C\n", CC, "locale", "locale: C.UTF-8\n", 1,
	       CC "   \nlocale: C.UTF-8\n", "blanks after the header are allowed");
}

static void check_remove(void)
{
	expect(CC "\nchpasswd:\n  expire: true\n  users:\n  - name: ubuntu\nssh_pwauth: true\n",
	       CC, "chpasswd", NULL, 1, CC "\nssh_pwauth: true\n",
	       "remove: Ubuntu's chpasswd entry, the next key kept");
	expect(CC "\nlocale: C\n", CC, "chpasswd", NULL, 0, CC "\nlocale: C\n",
	       "remove: no such key, unchanged");
	expect("", CC, "chpasswd", NULL, 0, "", "remove: an empty text stays empty");
}

static void check_refused(void)
{
	expect("#!/bin/sh\n", CC, "a", "a: 1\n", -EINVAL, "", "a script is not cloud-config");
	expect("#cloud-config-archive\n", CC, "a", "a: 1\n", -EINVAL, "",
	       "#cloud-config-archive is another kind");
	expect(CC "\na: 1\na: 2\n", CC, "a", "a: 3\n", -EINVAL, "", "a key twice");
	expect(CC "\na:\n\t- x\n", CC, "b", "b: 1\n", -EINVAL, "", "a tab indent");
	expect(CC "\n---\na: 1\n", CC, "b", "b: 1\n", -EINVAL, "", "a document marker");
	expect(CC "\n{a: 1}\n", CC, "b", "b: 1\n", -EINVAL, "", "flow style at the top");
	expect(CC "\n  a: 1\n", CC, "b", "b: 1\n", -EINVAL, "", "indented before any key");
	expect(CC "\r\na: 1\r\n", CC, "b", "b: 1\n", -EINVAL, "", "CR line ends");
	expect(CC "\n\"a\": 1\n", CC, "b", "b: 1\n", -EINVAL, "", "a quoted key");
	expect(CC "\n", CC, "a", "b: 1\n", -EINVAL, "", "an entry for another key");
	expect(CC "\n", CC, "a", "a: 1", -EINVAL, "", "an entry without its newline");
	expect(CC "\n", CC, "a", "a:\nb: 1\n", -EINVAL, "", "an entry with a second key");
	expect(CC "\n", CC, "a b", "a b: 1\n", -EINVAL, "", "a key with a blank");
	CHECK(imgp_yaml_entry_check_(NULL, "rpi:\n  interfaces:\n    spi: true\n") == 0,
	      "entry check: any plain key first");
	CHECK(imgp_yaml_entry_check_(NULL, "- x\n") == -EINVAL, "entry check: no key");
}

static void check_get(void)
{
	struct imgp_buf out = { 0 };
	const char *t = CC "\nuser: a\nusers:\n  - default\n\n  - name: b\n# c\nlocale: C\n";

	CHECK(imgp_yaml_get_key_(t, strlen(t), CC, "users", &out) == 1 &&
	      out.len == 32 && !memcmp(out.data, "users:\n  - default\n\n  - name: b\n", 32),
	      "get: an entry from its key line to its last line, blank lines inside kept");
	CHECK(imgp_yaml_get_key_(t, strlen(t), CC, "use", &out) == 0 && out.len == 0,
	      "get: a key that is a prefix of another is absent");
	CHECK(imgp_yaml_get_key_("", 0, CC, "users", &out) == 0, "get: an empty text has none");
	t = CC "\na: 1\na: 2\n";
	CHECK(imgp_yaml_get_key_(t, strlen(t), CC, "a", &out) == -EINVAL &&
	      strstr(imgp_errmsg(), "appears twice"), "get: a key twice is refused as set refuses it");
	imgp_buf_free(&out);
}

int main(void)
{
	check_get();
	check_set();
	check_remove();
	check_refused();
	return unit_done();
}
