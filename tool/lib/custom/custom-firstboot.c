// SPDX-License-Identifier: MIT
/*
 * The first-boot runner (custom.h): scripts that run once each, in the
 * order given, at the first boot, and are then gone. virt-customize's
 * FIRST BOOT SCRIPTS (virt-customize(1); libguestfs mllib/firstboot.ml)
 * is the model: a folder of numbered scripts, a runner that runs and
 * deletes them, a oneshot unit that starts the runner. Written afresh
 * for systemd: the unit runs only while the folder holds a script
 * (ConditionDirectoryNotEmpty=), so a later boot costs nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "custom/custom.h"

/* A numbered name past this would sort before 9999-: name order is run order. */
#define FIRSTBOOT_SEQ_MAX 9999
#define FIRSTBOOT_NAME_MAX 64

/*
 * The runner, POSIX sh (dash runs it on Debian). Each script is moved out
 * of the folder before it runs, so a script that reboots, or a power cut,
 * never makes it run twice; its output goes to the unit's journal (and the
 * console), with a line naming it before and its exit status after. The
 * folder can be given as $1 or IMGPATCH_FIRSTBOOT_DIR (for tests); the
 * unit gives neither.
 */
static const char firstboot_runner[] =
	"#!/bin/sh\n"
	"# imgpatch first-boot runner: runs each script of the folder once, in\n"
	"# name order, and removes it whatever its exit status.\n"
	"LC_ALL=C\n"
	"export LC_ALL\n"
	"dir=${1:-${IMGPATCH_FIRSTBOOT_DIR:-" IMGP_FIRSTBOOT_DIR "}}\n"
	"running=$dir.running\n"
	"rm -f \"$running\"\n"
	"[ -d \"$dir\" ] || exit 0\n"
	"for script in \"$dir\"/*; do\n"
	"\t[ -f \"$script\" ] || continue\n"
	"\tname=${script##*/}\n"
	"\tmv -f \"$script\" \"$running\" || { rm -f \"$script\"; continue; }\n"
	"\tchmod 0755 \"$running\"\n"
	"\techo \"imgpatch-firstboot: running $name\"\n"
	"\t\"$running\" </dev/null\n"
	"\tstatus=$?\n"
	"\trm -f \"$running\"\n"
	"\techo \"imgpatch-firstboot: $name exited with status $status\"\n"
	"done\n"
	"exit 0\n";

/*
 * The unit. After= and Wants= network-online.target: first-boot scripts
 * mostly fetch or install things, and on a system with no wait-online
 * service the target is reached at once, so this costs nothing there.
 * Not Before= any login: a long script must not hold the console. The
 * timeout bounds a hung script (oneshot units have none by default) yet
 * leaves room for package installs on a slow card.
 */
static const char firstboot_unit[] =
	"[Unit]\n"
	"Description=imgpatch first-boot scripts\n"
	"ConditionDirectoryNotEmpty=" IMGP_FIRSTBOOT_DIR "\n"
	"Wants=network-online.target\n"
	"After=network-online.target\n"
	"\n"
	"[Service]\n"
	"Type=oneshot\n"
	"ExecStart=" IMGP_FIRSTBOOT_RUNNER "\n"
	"StandardOutput=journal+console\n"
	"StandardError=inherit\n"
	"TimeoutStartSec=1h\n"
	"\n"
	"[Install]\n"
	"WantedBy=multi-user.target\n";

/*
 * The script's file name: the last part of name, every byte outside
 * [A-Za-z0-9._-] made '_', no leading dot, at most FIRSTBOOT_NAME_MAX
 * bytes; "script" when nothing is left.
 */
static void firstboot_safe_name(const char *name, char *out, size_t size)
{
	const char *base = name ? strrchr(name, '/') : NULL;
	size_t n = 0;

	base = base ? base + 1 : (name ? name : "");
	while (*base == '.')
		base++;
	for (; *base && n + 1 < size && n < FIRSTBOOT_NAME_MAX; base++) {
		char ch = *base;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';

		out[n++] = ok ? ch : '_';
	}
	if (!n)
		n = (size_t)snprintf(out, size, "script");
	out[n] = '\0';
}

int imgp_firstboot_files_(unsigned seq, const char *name, const char *script,
			 size_t len, struct imgp_gen_files *out)
{
	char safe[FIRSTBOOT_NAME_MAX + 1], path[sizeof(IMGP_FIRSTBOOT_DIR) + 80];
	struct imgp_buf text = { 0 };
	int rc;

	if (seq > FIRSTBOOT_SEQ_MAX)
		return imgp_fail(EINVAL, "first-boot script %u: at most %d scripts",
				 seq, FIRSTBOOT_SEQ_MAX);
	firstboot_safe_name(name, safe, sizeof(safe));
	snprintf(path, sizeof(path), IMGP_FIRSTBOOT_DIR "/%04u-%s", seq, safe);
	/*
	 * A script without "#!" is a shell script (as --firstboot-command's
	 * text is); an ELF program runs as it is.
	 */
	if (!(len >= 2 && !memcmp(script, "#!", 2)) &&
	    !(len >= 4 && !memcmp(script, "\177ELF", 4)))
		rc = imgp_buf_append(&text, "#!/bin/sh\n", 10);
	else
		rc = 0;
	if (!rc)
		rc = imgp_buf_append(&text, script, len);
	if (!rc)
		rc = imgp_gen_files_add_(out, IMGP_FIRSTBOOT_RUNNER, firstboot_runner,
					sizeof(firstboot_runner) - 1, 0755, false);
	if (!rc)
		rc = imgp_gen_files_add_(out, IMGP_FIRSTBOOT_UNIT_PATH, firstboot_unit,
					sizeof(firstboot_unit) - 1, 0644, false);
	if (!rc)
		rc = imgp_gen_files_add_(out, path, (const char *)text.data, text.len,
					0755, false);
	imgp_buf_free(&text);
	return rc;
}
