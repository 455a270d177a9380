#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi OS bookworm: rpios-interfaces lists i2c-dev in /etc/modules as raspi-config do_i2c does (on and off alike), names compared as modprobe compares them, comments kept; read back with debugfs and e2fsck'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs e2fsck

# modules IMG: /etc/modules of the root partition (2), read with debugfs.
modules()
{
	extract_part "$1" 2 "$1.ext4" &&
	debugfs -R "cat /etc/modules" "$1.ext4" 2>/dev/null
}

# root_clean IMG: the root filesystem passes e2fsck.
root_clean()
{
	extract_part "$1" 2 "$1.ext4" && e2fsck -fn "$1.ext4" >/dev/null 2>&1
}

# with_modules IMG FILE: a copy of the fixture whose /etc/modules is FILE
# (written with debugfs into the root partition).
with_modules()
{
	cp rpi.img "$1" && extract_part "$1" 2 "$1.ext4" &&
	debugfs -w -R "rm /etc/modules" "$1.ext4" >/dev/null 2>&1 &&
	debugfs -w -R "write $2 /etc/modules" "$1.ext4" >/dev/null 2>&1 &&
	e2fsck -fn "$1.ext4" >/dev/null 2>&1 && put_part "$1" 2 "$1.ext4"
}

test_expect_success 'build: pi-gen bookworm, kmod'"'"'s /etc/modules' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	modules rpi.img >modules.orig &&
	grep -x "# /etc/modules: kernel modules to load at boot time." modules.orig &&
	! grep -v "^#" modules.orig | grep .
'

test_expect_success 'dry run: the plan adds i2c-dev, the image byte-identical' '
	sum=$(sum_file rpi.img) &&
	$IMGPATCH apply rpios-interfaces rpi.img --set i2c=on --dry-run >plan &&
	grep "^+i2c-dev$" plan && test_file_unchanged rpi.img "$sum"
'

test_expect_success 'i2c=on: i2c-dev after the header, every comment byte for byte' '
	cp rpi.img on.img &&
	$IMGPATCH apply rpios-interfaces on.img --set i2c=on >/dev/null &&
	modules on.img >got &&
	{ cat modules.orig && echo i2c-dev; } >want && test_cmp want got &&
	root_clean on.img
'

test_expect_success 'again: byte-identical (cmp), the module listed once' '
	cp on.img again.img &&
	$IMGPATCH apply rpios-interfaces again.img --set i2c=on >out &&
	grep "already applied" out && cmp on.img again.img &&
	test "$(modules again.img | grep -c "^i2c-dev$")" = 1
'

test_expect_success 'i2c=off: raspi-config lists i2c-dev too and never removes it' '
	cp rpi.img off.img &&
	$IMGPATCH apply rpios-interfaces off.img --set i2c=off >/dev/null &&
	modules off.img >got && { cat modules.orig && echo i2c-dev; } >want &&
	test_cmp want got && root_clean off.img &&
	cp on.img onoff.img &&
	$IMGPATCH apply rpios-interfaces onoff.img --set i2c=off >/dev/null &&
	modules onoff.img >got && test_cmp want got
'

test_expect_success 'i2c_dev already listed: the same module to modprobe (and to grep ^i2c[-_]dev), unchanged' '
	{ cat modules.orig && printf "%s\n" "snd-bcm2835" "i2c_dev"; } >mine &&
	with_modules own.img mine &&
	cp own.img own.before &&
	$IMGPATCH apply rpios-interfaces own.img --set i2c=on >/dev/null &&
	modules own.img >got && test_cmp mine got &&
	extract_part own.before 2 before.ext4 && extract_part own.img 2 after.ext4 &&
	cmp before.ext4 after.ext4
'

test_expect_success 'a commented #i2c-dev stays a comment; no newline at the end gets one' '
	printf "#i2c-dev\nspidev" >mine &&
	with_modules com.img mine &&
	$IMGPATCH apply rpios-interfaces com.img --set i2c=on >/dev/null &&
	modules com.img >got &&
	printf "#i2c-dev\nspidev\ni2c-dev\n" >want && test_cmp want got && root_clean com.img
'

test_expect_success 'refused: a root without /etc/modules, the image byte-identical' '
	cp rpi.img none.img && extract_part none.img 2 none.ext4 &&
	debugfs -w -R "rm /etc/modules" none.ext4 >/dev/null 2>&1 &&
	put_part none.img 2 none.ext4 &&
	test_refuses none.img "expected root:/etc/modules" \
		$IMGPATCH apply rpios-interfaces none.img --set i2c=on
'

test_done
