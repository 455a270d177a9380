#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi OS bookworm: rpios-locale leaves the time zone and keyboard files as Raspberry Pi Imager'"'"'s first-boot script leaves them; checked with debugfs and e2fsck'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs e2fsck

# root IMG PATH: a file of the root partition (2), after e2fsck -fn.
root()
{
	extract_part "$1" 2 "$1.ext4" &&
	e2fsck -fn "$1.ext4" >/dev/null 2>&1 &&
	debugfs -R "cat $2" "$1.ext4" 2>/dev/null
}

# link IMG PATH: the target of a symbolic link of the root partition.
link()
{
	extract_part "$1" 2 "$1.ext4" &&
	debugfs -R "stat $2" "$1.ext4" 2>/dev/null |
		sed -n 's/^Fast link dest: "\(.*\)"$/\1/p'
}

test_expect_success 'build: pi-gen'"'"'s defaults, Europe/London and gb' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	root rpi.img /etc/timezone >tz && echo Europe/London >want && test_cmp want tz &&
	test "$(link rpi.img /etc/localtime)" = /usr/share/zoneinfo/Europe/London &&
	root rpi.img /etc/default/keyboard >kb.orig &&
	make_kv260 kv.img
'

test_expect_success 'rpios-locale: /etc/timezone, the /etc/localtime link, XKBLAYOUT (other lines kept)' '
	cp rpi.img l.img &&
	$IMGPATCH apply rpios-locale l.img --set timezone=America/Argentina/Buenos_Aires \
		--set keyboard=latam >/dev/null &&
	root l.img /etc/timezone >tz &&
	echo America/Argentina/Buenos_Aires >want && test_cmp want tz &&
	test "$(link l.img /etc/localtime)" = /usr/share/zoneinfo/America/Argentina/Buenos_Aires &&
	root l.img /etc/default/keyboard >kb &&
	sed "s/^XKBLAYOUT=.*/XKBLAYOUT=\"latam\"/" kb.orig >want && test_cmp want kb &&
	. ./kb && test "$XKBLAYOUT" = latam && test "$XKBMODEL" = pc105 && test -z "$XKBVARIANT" &&
	extract_part l.img 1 l.fat && fsck.fat -n l.fat >/dev/null
'

test_expect_success 'again: already applied, byte-identical' '
	sum=$(sum_file l.img) && rm -f l.img.imgpatch-undo &&
	$IMGPATCH apply rpios-locale l.img --set timezone=America/Argentina/Buenos_Aires \
		--set keyboard=latam >out &&
	grep "already applied" out && test_file_unchanged l.img "$sum"
'

test_expect_success 'write --each: a zone and a layout per card' '
	{ echo "target,timezone,keyboard" && echo "c1.img,UTC,us" && echo "c2.img,Europe/Berlin,de"; } >c.csv &&
	imgpatch write rpi.img --apply rpios-locale --each c.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	test "$(link c1.img /etc/localtime)" = /usr/share/zoneinfo/UTC &&
	root c2.img /etc/timezone >tz && echo Europe/Berlin >want && test_cmp want tz &&
	root c2.img /etc/default/keyboard | grep -x "XKBLAYOUT=\"de\""
'

test_expect_success 'refused: an image without the files, a path in the zone, a quote in the layout' '
	test_refuses kv.img "expected boot:/config.txt" \
		$IMGPATCH apply rpios-locale kv.img --set timezone=UTC --set keyboard=us &&
	test_refuses_usage rpi.img "parameter .timezone. must be a tz database name" \
		$IMGPATCH apply rpios-locale rpi.img --set timezone=../../etc/shadow --set keyboard=us &&
	test_refuses_usage rpi.img "parameter .keyboard. must be an XKB layout name" \
		$IMGPATCH apply rpios-locale rpi.img --set timezone=UTC --set keyboard="us\" x=\"1"
'

test_done
