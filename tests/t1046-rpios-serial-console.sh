#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi OS bookworm: rpios-interfaces serial_console=on/off/keep edits cmdline.txt as raspi-config do_serial_cons does (its own sed is the reference); a step'"'"'s when is checked at load time; read back with mtype and fsck.fat'
. "$(dirname "$0")/lib.sh"

test_require_tools mtype fsck.fat sed

# cmdline IMG: cmdline.txt of the boot partition (1), read with mtools.
cmdline()
{
	mtype -i "$1@@$(part_offset "$1" 1)" ::/cmdline.txt
}

# boot_clean IMG: the boot filesystem passes fsck.fat.
boot_clean()
{
	extract_part "$1" 1 "$1.fat" && fsck.fat -n "$1.fat" >/dev/null
}

# raspi-config's do_serial_cons (RPi-Distro/raspi-config, commit
# 9c55e7b4d9c0299514120c7e50b3f482672b36e2), its sed commands as they are:
# 0 (on) where neither console=serial0 nor console=ttyAMA0 is there, and 1 (off).
cons_on()
{
	sed -e "s/root=/console=serial0,115200 root=/"
}
cons_off()
{
	sed -e "s/console=ttyAMA0,[0-9]\+ //" | sed -e "s/console=serial0,[0-9]\+ //"
}

test_expect_success 'build: pi-gen bookworm, console=serial0,115200 first' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	cmdline rpi.img >cmdline.orig &&
	grep -q "^console=serial0,115200 console=tty1 root=" cmdline.orig
'

test_expect_success 'keep (the default): cmdline.txt byte for byte' '
	cp rpi.img keep.img &&
	$IMGPATCH apply rpios-interfaces keep.img >/dev/null &&
	cmdline keep.img >got && test_cmp cmdline.orig got
'

test_expect_success 'on: pi-gen'"'"'s console is there, cmdline.txt unchanged' '
	cp keep.img on.img &&
	$IMGPATCH apply rpios-interfaces on.img --set serial_console=on >out &&
	grep "already applied" out && cmp keep.img on.img
'

test_expect_success 'dry run off: the plan drops the console, the image byte-identical' '
	sum=$(sum_file rpi.img) &&
	$IMGPATCH apply rpios-interfaces rpi.img --set serial_console=off --dry-run >plan &&
	grep "^ *after:  console=tty1 root=" plan && test_file_unchanged rpi.img "$sum"
'

test_expect_success 'off: as raspi-config'"'"'s sed leaves it' '
	cp rpi.img off.img &&
	$IMGPATCH apply rpios-interfaces off.img --set serial_console=off >/dev/null &&
	cmdline off.img >got && cons_off <cmdline.orig >want && test_cmp want got &&
	! grep -q serial0 got && boot_clean off.img
'

test_expect_success 'off again: byte-identical (cmp)' '
	cp off.img off2.img &&
	$IMGPATCH apply rpios-interfaces off2.img --set serial_console=off >out &&
	grep "already applied" out && cmp off.img off2.img
'

test_expect_success 'off, then on: before root=, after console=tty1, as raspi-config'"'"'s sed puts it' '
	cp off.img back.img &&
	$IMGPATCH apply rpios-interfaces back.img --set serial_console=on >/dev/null &&
	cmdline back.img >got && cons_off <cmdline.orig | cons_on >want && test_cmp want got &&
	grep -q "console=tty1 console=serial0,115200 root=" got && boot_clean back.img
'

test_expect_success 'on again: byte-identical (cmp), the console once' '
	cp back.img back2.img &&
	$IMGPATCH apply rpios-interfaces back2.img --set serial_console=on >out &&
	grep "already applied" out && cmp back.img back2.img &&
	test "$(cmdline back2.img | grep -o "console=serial0,115200" | wc -l)" = 1
'

test_expect_success 'recipes show: the steps say when they run' '
	$IMGPATCH recipes show rpios-interfaces >show &&
	grep "++console=serial0,115200 before root (only when serial_console=on)" show &&
	grep "(only when serial_console=off)" show
'

test_expect_success 'refused: a value serial_console does not take, the image byte-identical' '
	test_refuses_usage rpi.img "parameter .serial_console. must be one of: keep, off, on" \
		$IMGPATCH apply rpios-interfaces rpi.img --set serial_console=yes
'

# bad_when DIR OLD NEW: the shipped recipe in DIR with its when OLD made NEW.
bad_when()
{
	mkdir -p "$1" &&
	sed -e "s/when = \"$2\"/when = \"$3\"/" "$REPO_DIR/recipes/rpios-interfaces.recipe" \
		>"$1/rpios-interfaces.recipe" &&
	! cmp -s "$REPO_DIR/recipes/rpios-interfaces.recipe" "$1/rpios-interfaces.recipe"
}

test_expect_success 'refused at load time: a when naming no parameter (file:line)' '
	bad_when unknown "\${serial_console}=on" "\${serial}=on" &&
	line=$(grep -n "when = \"\${serial}=on\"" unknown/rpios-interfaces.recipe | cut -d: -f1) &&
	test_refuses rpi.img "rpios-interfaces.recipe:$line: step 5 (cmdline): when .\${serial}=on.: no parameter .serial." \
		$IMGPATCH apply ./unknown/rpios-interfaces.recipe rpi.img --set serial_console=on
'

test_expect_success 'refused at load time: a when value the parameter cannot take (file:line)' '
	bad_when value "\${serial_console}=off" "\${serial_console}=0" &&
	line=$(grep -n "when = \"\${serial_console}=0\"" value/rpios-interfaces.recipe | cut -d: -f1) &&
	test_refuses rpi.img "rpios-interfaces.recipe:$line: step 6 (cmdline): when .\${serial_console}=0.: .0. is not a value of parameter .serial_console. (values: keep, off, on)" \
		$IMGPATCH apply ./value/rpios-interfaces.recipe rpi.img
'

test_done
