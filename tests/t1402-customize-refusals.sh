#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='customize refuses bad input before writing: one line naming the problem, the image byte-identical; write takes the options per card'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mke2fs debugfs e2fsck mtype ssh-keygen dpkg-deb
test_require_debian_root

test_expect_success 'the image and the inputs' '
	"$FIXTURES/mkimage-debian-root.sh" d.img &&
	echo "a password" >pw && ssh-keygen -q -t ed25519 -N "" -f key &&
	echo "ssh-ed25519 AAAAnot-base64!! x@y" >bad.pub &&
	echo "ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIMCEv0y/zK+aYFXQFnqmC42S6AXDf5WCLs36cUpA6VAo x@y" >mixed.pub
'

# refused STATUS PATTERN OPTION...: customize d.img OPTION... is refused
# with STATUS and one line matching PATTERN (grep -x), d.img untouched; a
# usage error (2) adds the line pointing to --help.
refused()
{
	local status=$1 pattern=$2

	shift 2
	if [ "$status" = 2 ]; then
		cp d.img before.img &&
		test_must_fail_with 2 imgpatch customize d.img "$@" >out 2>err &&
		cat err && test "$(wc -l <err)" = 2 &&
		head -n 1 err | grep -x -- "$pattern" &&
		tail -n 1 err | grep -x "Try .imgpatch customize --help.." &&
		cmp before.img d.img
	else
		refused_intact d.img "$status" "$pattern" imgpatch customize d.img "$@"
	fi
}

test_expect_success 'a host name RFC 1123 does not allow' '
	refused 2 "imgpatch: --hostname -lab: .*RFC 1123.*" --hostname -lab &&
	refused 2 "imgpatch: --hostname a_b: .*RFC 1123.*" --hostname a_b &&
	refused 2 "imgpatch: --hostname $(printf "a%.0s" $(seq 64)): .*RFC 1123.*" \
		--hostname "$(printf "a%.0s" $(seq 64))"
'

test_expect_success 'an address or prefix that is not one, a gateway without an address' '
	refused 1 "imgpatch: d.img: --static-ip 10.0.0.300/24: not an IPv4 or IPv6 address" \
		--static-ip 10.0.0.300/24 &&
	refused 1 "imgpatch: d.img: --static-ip 10.0.0.3/33: .*prefix.*" --static-ip 10.0.0.3/33 &&
	refused 1 "imgpatch: d.img: --gateway 10.0.0.1: needs --static-ip.*" --gateway 10.0.0.1 &&
	refused 2 "imgpatch: --static-ip given twice" --static-ip 10.0.0.3/24 --static-ip 10.0.0.4/24
'

test_expect_success 'a time zone, keyboard layout or locale the image lacks' '
	refused 1 "imgpatch: d.img: --timezone: Mars/Olympus: the image has no such time zone (no /usr/share/zoneinfo/Mars/Olympus)" \
		--timezone Mars/Olympus &&
	refused 1 "imgpatch: d.img: --timezone: \.\./etc/passwd: not a time zone name.*" \
		--timezone ../etc/passwd &&
	refused 1 "imgpatch: d.img: --keymap: zz: the image has no such keyboard layout.*" --keymap zz &&
	refused 1 "imgpatch: d.img: --locale: xx_YY.UTF-8: the image has no such locale.*" \
		--locale xx_YY.UTF-8
'

test_expect_success 'a user name useradd refuses' '
	refused 2 "imgpatch: --user a:b: .*" --user a:b &&
	refused 2 "imgpatch: --user \.\.: .*" --user .. &&
	refused 1 "imgpatch: d.img: --password: nobody-here: no such user.*" \
		--password nobody-here:file:pw
'

test_expect_success 'a password on the command line, an unknown selector' '
	refused 1 "imgpatch: d.img: --password: password:\.\.\.: a password on the command line .*" \
		--password root:password:x &&
	refused 1 "imgpatch: d.img: --password: sideways: the selector is .*" --password root:sideways &&
	! grep -q "a password" err
'

test_expect_success 'a key that does not parse' '
	refused 1 "imgpatch: d.img: --ssh-inject: ssh-ed25519 key: its base64 is damaged" \
		--ssh-inject root:file:bad.pub &&
	refused 1 "imgpatch: d.img: --ssh-inject: ssh-rsa: not an SSH public key.*" \
		--ssh-inject root:file:mixed.pub &&
	refused 1 "imgpatch: d.img: --ssh-inject: .*no key there" --ssh-inject root:string:
'

test_expect_success 'a unit the image does not have' '
	refused 1 "imgpatch: d.img: --enable: no unit nosuch.service in .*" --enable nosuch.service &&
	refused 1 "imgpatch: d.img: --mask: .*nosuch.service.*" --mask nosuch.service
'

test_expect_success 'a --copy-in or --upload source that does not exist, a missing folder' '
	refused 1 "imgpatch: d.img: --copy-in: /nonexistent: No such file or directory" \
		--copy-in /nonexistent:/opt &&
	refused 1 "imgpatch: d.img: --upload: nope: No such file or directory" --upload nope:/etc &&
	refused 1 "imgpatch: d.img: --copy-in: /nowhere: no folder there in the image .*" \
		--copy-in pw:/nowhere &&
	refused 1 "imgpatch: d.img: --write: /nowhere/x: no folder /nowhere in the image .*" \
		--write /nowhere/x:y
'

test_expect_success 'FAT keeps no modes and no links' '
	refused 1 "imgpatch: d.img: --chmod: p1 (vfat): /ssh: .*FAT has no permissions" \
		--touch /boot/firmware/ssh --chmod 0600:/boot/firmware/ssh &&
	refused 1 "imgpatch: d.img: --link: p1 (vfat): /l: this filesystem has no symbolic links" \
		--link /x:/boot/firmware/l
'

test_expect_success 'a whole filesystem is not deleted; a later failure leaves earlier settings unwritten' '
	refused 1 "imgpatch: d.img: --delete: /: refusing to delete a whole filesystem" --delete / &&
	refused 1 "imgpatch: d.img: --enable: no unit nosuch.service in .*" \
		--hostname fine --write /etc/motd:x --enable nosuch.service
'

test_expect_success 'write: every card s row is checked before any card is written' '
	{
		echo "target,hostname,static-ip"
		echo "c1.img,lab-1,10.0.0.1/24"
		echo "c2.img,-bad,10.0.0.2/24"
	} >bad.csv &&
	test_must_fail_with 2 imgpatch write d.img --each bad.csv >out 2>err &&
	grep -x "imgpatch: bad.csv:3: c2.img: --hostname -bad: .*RFC 1123.*" err &&
	test ! -e c1.img && test ! -e c2.img
'

test_expect_success 'write: a card a customize setting cannot be made for fails alone' '
	{
		echo "target,hostname,timezone"
		echo "c1.img,lab-1,Europe/Berlin"
		echo "c2.img,lab-2,Mars/Olympus"
	} >tz.csv &&
	test_must_fail_with 1 imgpatch write d.img --each tz.csv >out 2>err &&
	grep "c2.img: FAILED: .*Mars/Olympus: the image has no such time zone" out &&
	extract_part c1.img 2 r1.ext4 && debugfs -R "cat /etc/hostname" r1.ext4 2>/dev/null >h &&
	echo lab-1 >want && test_cmp want h
'

test_expect_success 'write: a card s cell replaces the option given for every card' '
	{
		echo "target,timezone"
		echo "c4.img,Europe/Berlin"
		echo "c5.img,"
	} >own.csv &&
	imgpatch write d.img --each own.csv --timezone America/New_York >out &&
	for c in 4:Europe/Berlin 5:America/New_York; do
		extract_part c${c%%:*}.img 2 r.ext4 &&
		debugfs -R "cat /etc/timezone" r.ext4 2>/dev/null >tz &&
		echo "${c#*:}" >want && test_cmp want tz || exit 1
	done
'

test_expect_success 'a column a recipe declares stays the recipe s parameter' '
	{
		echo "target,hostname"
		echo "c3.img,lab-3"
	} >rec.csv &&
	imgpatch write d.img --apply hostname --each rec.csv >out &&
	! grep "ssh-host-key\|machine-id" out &&
	extract_part c3.img 2 r3.ext4 && debugfs -R "cat /etc/hostname" r3.ext4 2>/dev/null >h &&
	echo lab-3 >want && test_cmp want h
'

test_done
