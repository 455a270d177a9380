#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The kernel command line on a flash-kernel image (Debian's flash-kernel
# 3.107, run chrooted on the image's root as t0234 runs it). Its boot
# script (bootscr.uboot-generic) sets
#   setenv bootargs "LINUX_KERNEL_CMDLINE_DEFAULTS ${bootargs} LINUX_KERNEL_CMDLINE"
# with both values taken from /etc/default/flash-kernel when it writes
# boot.scr (mkimage_script), and puts the /etc/flash-kernel/ubootenv.d
# snippets right after that line (gen_ubootenv). patch --cmdline edits the
# line of today's boot.scr and /etc/default/flash-kernel, so that the
# boot.scr the next kernel install writes holds the same line: checked by
# running flash-kernel on the patched root and comparing the scripts.
test_description='patch --cmdline on a flash-kernel image: boot.scr and /etc/default/flash-kernel, kept by flash-kernel'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs mke2fs e2fsck mkimage dumpimage linux-version unshare chroot

if [ "$(id -u)" != 0 ]; then
	test_skip "flash-kernel runs chrooted on the image's root" "needs root (unshare -m, chroot)"
	test_done
fi
test_require_debs flash-kernel

V=6.1.0-13-arm64
SCR=/boot/boot.scr
DEF=/etc/default/flash-kernel
ROOT_UUID=44656269-616e-0000-0000-000000000001

# repack DIR IMG: DIR as IMG's p1 (ext4, made anew with mke2fs -d, the
# fixture's UUID kept: the fstab names it).
repack()
{
	rm -f repack.ext4 &&
	mke2fs -q -F -t ext4 -L root -U $ROOT_UUID -d "$1" repack.ext4 $(($(part_size "$2" 1) / 1024))k &&
	put_part "$2" 1 repack.ext4
}

# script_text SCR OUT: the script of a U-Boot script image (mkimage -T
# script: a 64-byte header, then a length table of one length and a 0).
script_text()
{
	tail -c +73 "$1" >"$2"
}

# bootargs_line SCR: flash-kernel's line of the script image SCR.
bootargs_line()
{
	strings "$1" | grep "^setenv bootargs \""
}

# from_image IMG PATH OUT: PATH of IMG's root dumped by debugfs.
from_image()
{
	extract_part "$1" 1 from.ext4 && debugfs -R "dump $2 $3" from.ext4 >/dev/null 2>&1 &&
	test -f "$3"
}

test_expect_success 'fixture: a Debian root with flash-kernel, LINUX_KERNEL_CMDLINE_DEFAULTS set' '
	"$FIXTURES/mkimage-extlinux.sh" base.img &&
	unpack_root base.img 1 r &&
	rm -r r/boot/extlinux &&
	cp -a deb/flash-kernel/. r/ &&
	sed "s/^LINUX_KERNEL_CMDLINE_DEFAULTS=\"\"/LINUX_KERNEL_CMDLINE_DEFAULTS=\"rootwait\"/" \
		r/usr/share/flash-kernel/default/flash-kernel >r$DEF &&
	grep -Fx "LINUX_KERNEL_CMDLINE=\"quiet\"" r$DEF &&
	echo "Pine64 RockPro64" >r/etc/flash-kernel/machine &&
	flash_kernel "$PWD/r" "$V" &&
	test "$(bootargs_line r$SCR)" = "setenv bootargs \"rootwait \${bootargs} quiet\"" &&
	cp base.img fk.img && repack r fk.img
'

test_expect_success 'info and cat --cmdline: the line of boot.scr, also kept in /etc/default/flash-kernel' '
	imgpatch info fk.img >info &&
	grep -Fx "  cmdline: rootwait quiet" info &&
	grep -F "    kept in: p1 (ext4): $SCR, LINUX_KERNEL_CMDLINE_DEFAULTS= then LINUX_KERNEL_CMDLINE; also kept in p1 (ext4): $DEF" info &&
	grep -F "    loader: U-Boot'"'"'s own bootargs" info &&
	imgpatch cat fk.img --cmdline >cat.out &&
	test "$(sed 1d cat.out)" = "rootwait quiet"
'

test_expect_success 'patch --cmdline: boot.scr'"'"'s line and /etc/default/flash-kernel edited' '
	cp fk.img x.img &&
	imgpatch patch x.img --cmdline -quiet,+loglevel=7,-rootwait,+rootdelay=2 >plan &&
	grep "^p1 (ext4) $SCR: " plan &&
	grep "^p1 (ext4) $DEF: " plan &&
	extract_part x.img 1 x.ext4 && e2fsck -fn x.ext4 >fsck.log 2>&1 &&
	from_image x.img $SCR x.scr && dumpimage -l x.scr | grep Script &&
	test "$(bootargs_line x.scr)" = "setenv bootargs \" \${bootargs} loglevel=7 rootdelay=2\"" &&
	from_image x.img $DEF x.def &&
	grep -Fx "LINUX_KERNEL_CMDLINE=\"loglevel=7 rootdelay=2\"" x.def &&
	grep -Fx "LINUX_KERNEL_CMDLINE_DEFAULTS=\"\"" x.def &&
	diff r$DEF x.def | grep -c "^[<>]" >n && test "$(cat n)" = 4 &&
	test "$(imgpatch cat x.img --cmdline | sed 1d)" = "loglevel=7 rootdelay=2"
'

test_expect_success 'flash-kernel at the next kernel install writes the same boot script' '
	unpack_root x.img 1 k && flash_kernel "$PWD/k" "$V" &&
	grep "Installing new boot.scr" flash-kernel.log &&
	script_text x.scr before.txt && script_text k$SCR after.txt &&
	test_cmp before.txt after.txt
'

test_expect_success 'rerun: the same edits change nothing' '
	sum_file x.img >sum &&
	imgpatch patch x.img --cmdline -quiet,+loglevel=7,-rootwait,+rootdelay=2 >again &&
	test_file_unchanged x.img "$(cat sum)"
'

test_expect_success 'refused: a word flash-kernel'"'"'s sed would change; the image byte-identical' '
	test_refuses fk.img "cannot go into the line" imgpatch patch fk.img --cmdline "+a=b&c"
'

test_expect_success 'fixture: ubootenv.d snippets, one setting bootargs, one fdtfile, written in by flash-kernel' '
	unpack_root fk.img 1 s &&
	mkdir -p s/etc/flash-kernel/ubootenv.d &&
	printf "setenv bootargs \"\${bootargs} rootwait\"\n" >s/etc/flash-kernel/ubootenv.d/50-args &&
	printf "setenv fdtfile rockchip/rk3399-rockpro64-v2.dtb\n" >s/etc/flash-kernel/ubootenv.d/60-fdt &&
	printf "echo ignored\n" >s/etc/flash-kernel/ubootenv.d/skip.me &&
	flash_kernel "$PWD/s" "$V" &&
	strings s$SCR | grep -Fx "setenv bootargs \"\${bootargs} rootwait\"" &&
	! strings s$SCR | grep -F "echo ignored" &&
	cp fk.img env.img && repack s env.img
'

test_expect_success 'info names the snippets and says which override the line and the tree' '
	imgpatch info env.img >info &&
	grep -F "its ubootenv.d snippets, put into boot.scr after its bootargs line: /etc/flash-kernel/ubootenv.d/50-args, /etc/flash-kernel/ubootenv.d/60-fdt (/etc/flash-kernel/ubootenv.d/50-args sets bootargs" info &&
	! grep -F "skip.me" info &&
	grep -F "then /etc/flash-kernel/ubootenv.d/50-args, put after it, sets bootargs itself: this line is overridden" info &&
	imgpatch cat env.img --dtb >dtb.out 2>dtb.err &&
	grep -F "/etc/flash-kernel/ubootenv.d/60-fdt sets fdtfile in boot.scr" dtb.out dtb.err
'

test_expect_success 'the plan says a snippet overrides the edited line' '
	cp env.img e.img &&
	imgpatch patch e.img --cmdline +loglevel=7 >plan &&
	grep -F "kernel command line (LINUX_KERNEL_CMDLINE_DEFAULTS= then LINUX_KERNEL_CMDLINE (overridden: /etc/flash-kernel/ubootenv.d/50-args sets bootargs after it)):" plan
'

test_expect_success 'a tree edit'"'"'s plan says the snippet that sets fdtfile; a dry run writes nothing' '
	sum_file env.img >sum &&
	imgpatch patch env.img --dry-run --dt-set "mmc@fe320000:max-frequency=<50000000>" >dtplan &&
	grep -F "/etc/flash-kernel/ubootenv.d/60-fdt sets fdtfile in boot.scr: U-Boot loads the tree that names, not this one'"'"'s edit" dtplan &&
	test_file_unchanged env.img "$(cat sum)"
'

test_done
