#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi OS bookworm: rpios-interfaces sets dtparam=spi, dtparam=i2c_arm and enable_uart in config.txt and i2c-dev in /etc/modules as raspi-config nonint does; checked with mtype, debugfs, e2fsck and fsck.fat'
. "$(dirname "$0")/lib.sh"

test_require_tools mtype debugfs e2fsck fsck.fat

# fat_cat IMG PATH: a file of the boot partition (1), read with mtools.
fat_cat()
{
	mtype -i "$1@@$(part_offset "$1" 1)" "::$2"
}

# checked IMG: both filesystems pass their own checkers.
checked()
{
	extract_part "$1" 1 "$1.fat" && fsck.fat -n "$1.fat" >/dev/null &&
	extract_part "$1" 2 "$1.ext4" && e2fsck -fn "$1.ext4" >/dev/null 2>&1
}

# last_section FILE: the last [section] header of a config.txt.
last_section()
{
	grep "^\[" "$1" | tail -n 1
}

test_expect_success 'build: pi-gen bookworm, interfaces commented out, no enable_uart' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	fat_cat rpi.img /config.txt >config.orig &&
	grep -x "#dtparam=spi=on" config.orig && grep -x "#dtparam=i2c_arm=on" config.orig &&
	! grep "^enable_uart" config.orig &&
	fat_cat rpi.img /cmdline.txt >cmdline.orig &&
	test "$(wc -l <cmdline.orig)" = 1 &&
	extract_part rpi.img 2 root.orig &&
	debugfs -R "cat /etc/modules" root.orig 2>/dev/null >modules.orig &&
	test "$(sum_file modules.orig)" = 3cf96140377b898e48b0253522c261de8b473e9aa0ce53317555bda19b4a50bc
'

test_expect_success 'dry run: the plan, the image byte-identical' '
	sum=$(sum_file rpi.img) &&
	$IMGPATCH apply rpios-interfaces rpi.img --set spi=on --set i2c=on \
		--set serial_hardware=on --dry-run >plan &&
	grep "^+dtparam=spi=on$" plan && grep "^+enable_uart=1$" plan &&
	grep "^+i2c-dev$" plan && ! grep "cmdline.txt" plan &&
	test_file_unchanged rpi.img "$sum"
'

test_expect_success 'all on: the three lines under the closing [all], the rest byte for byte' '
	cp rpi.img on.img &&
	$IMGPATCH apply rpios-interfaces on.img --set spi=on --set i2c=on \
		--set serial_hardware=on >/dev/null &&
	fat_cat on.img /config.txt >config &&
	{ cat config.orig && printf "%s\n" dtparam=spi=on dtparam=i2c_arm=on enable_uart=1; } >want &&
	test_cmp want config &&
	test "$(last_section config)" = "[all]" &&
	fat_cat on.img /cmdline.txt >cmdline && test_cmp cmdline.orig cmdline &&
	grep -q "console=serial0,115200" cmdline &&
	checked on.img
'

test_expect_success 'root: i2c-dev added after kmod'"'"'s header in /etc/modules (debugfs)' '
	debugfs -R "cat /etc/modules" on.img.ext4 2>/dev/null >modules &&
	{ cat modules.orig && echo i2c-dev; } >want && test_cmp want modules
'

test_expect_success 'again: already applied, byte-identical' '
	sum=$(sum_file on.img) && rm -f on.img.imgpatch-undo &&
	$IMGPATCH apply rpios-interfaces on.img --set spi=on --set i2c=on \
		--set serial_hardware=on >out &&
	grep "already applied" out && test_file_unchanged on.img "$sum"
'

test_expect_success 'off again: the same lines take the new values where they stand' '
	cp on.img off.img && rm -f off.img.imgpatch-undo &&
	$IMGPATCH apply rpios-interfaces off.img --set serial_hardware=off >/dev/null &&
	fat_cat off.img /config.txt >config &&
	{ cat config.orig && printf "%s\n" dtparam=spi=off dtparam=i2c_arm=off enable_uart=0; } >want &&
	test_cmp want config && checked off.img
'

test_expect_success 'refused: a value raspi-config does not write, an image without config.txt' '
	test_refuses_usage rpi.img "parameter .spi. must be one of: off, on" \
		$IMGPATCH apply rpios-interfaces rpi.img --set spi=yes &&
	make_kv260 kv.img &&
	test_refuses kv.img "expected boot:/config.txt" \
		$IMGPATCH apply rpios-interfaces kv.img
'

test_done
