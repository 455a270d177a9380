#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi OS: hostname names the host in /etc/hostname and /etc/hosts together, as Raspberry Pi Imager'"'"'s first boot does; per card with write --each'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs e2fsck fsck.fat mtype

# pi-gen appends "127.0.1.1<TAB><TAB>NAME" to /etc/hosts
# (RPi-Distro/pi-gen stage1/02-net-tweaks/00-run.sh, commit
# 314262cb286b8f33327a6f0cbabe14c625021ca0); Raspberry Pi Imager's
# firstrun.sh rewrites that line with the new name
# (raspberrypi/rpi-imager src/customization_generator.cpp, commit
# 72ad1179ff46a8355291898416fe65cbe6bbd450: sed of "127.0.1.1.*OLD").

# root IMG PATH: a file of the root partition (2), after e2fsck -fn.
root()
{
	extract_part "$1" 2 "$1.ext4" &&
	e2fsck -fn "$1.ext4" >/dev/null 2>&1 &&
	debugfs -R "cat $2" "$1.ext4" 2>/dev/null
}

test_expect_success 'build: pi-gen'"'"'s /etc/hostname and /etc/hosts' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	root rpi.img /etc/hosts >hosts.orig &&
	grep -Fx "$(printf "127.0.1.1\t\traspberrypi")" hosts.orig &&
	make_kv260 kv.img
'

test_expect_success 'hostname: /etc/hostname and the 127.0.1.1 line, every other byte kept' '
	cp rpi.img h.img &&
	$IMGPATCH apply hostname h.img --set hostname=lab-07 >plan &&
	grep "/etc/hosts" plan &&
	root h.img /etc/hostname >name && echo lab-07 >want && test_cmp want name &&
	root h.img /etc/hosts >hosts &&
	sed "s/^127\.0\.1\.1\t\traspberrypi\$/127.0.1.1\t\tlab-07/" hosts.orig >hosts.want &&
	! cmp -s hosts.orig hosts.want &&
	test_cmp hosts.want hosts &&
	extract_part h.img 1 h.fat && fsck.fat -n h.fat >/dev/null
'

test_expect_success 'hostname again: already applied, image unchanged' '
	sum=$(sum_file h.img) &&
	rm -f h.img.imgpatch-undo &&
	$IMGPATCH apply hostname h.img --set hostname=lab-07 >out &&
	grep "already applied" out &&
	test_file_unchanged h.img "$sum"
'

test_expect_success 'an image without /etc/hosts: /etc/hostname only' '
	cp kv.img k.img &&
	$IMGPATCH apply hostname k.img --set hostname=kv-01 >/dev/null &&
	extract_part k.img 2 k.ext4 && e2fsck -fn k.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /etc/hostname" k.ext4 2>/dev/null >name &&
	echo kv-01 >want && test_cmp want name &&
	debugfs -R "stat /etc/hosts" k.ext4 2>&1 | grep "File not found"
'

test_expect_success 'refused, image unchanged: a name that is no DNS label' '
	test_refuses_usage rpi.img "^imgpatch: recipe .hostname.: parameter .hostname. must be one DNS label" \
		$IMGPATCH apply hostname rpi.img --set hostname="lab 07"
'

test_expect_success 'write --each: each card its own name in both files' '
	{ echo "target,hostname" && echo "c1.img,pi-01" && echo "c2.img,pi-02"; } >lab.csv &&
	$IMGPATCH write rpi.img --apply hostname --each lab.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	for n in 1 2; do
		root c$n.img /etc/hostname >name && echo pi-0$n >want && test_cmp want name &&
		root c$n.img /etc/hosts >hosts &&
		grep -Fx "$(printf "127.0.1.1\t\tpi-0$n")" hosts &&
		test $(grep -c raspberrypi hosts) = 0 || return 1
	done
'

test_done
