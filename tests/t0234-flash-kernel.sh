#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Debian's flash-kernel (3.107, Debian 12's), run offline on the image's
# root: it is a shell program, so it runs chrooted in the unpacked root
# with the host's programs bound in (run_chrooted), the board named by
# /etc/flash-kernel/machine as the owner of a board whose
# /proc/device-tree/model it cannot read would name it ("Pine64
# RockPro64", whose entry in its /usr/share/flash-kernel/db/all.db says
# DTB-Id rockchip/rk3399-rockpro64.dtb, Boot-Script-Path /boot/boot.scr,
# U-Boot-Script-Name bootscr.uboot-generic). It makes the fixture's
# /boot/boot.scr and /boot/dtbs, and after a patch it runs again as a
# kernel install runs it: the tree it copies must be the edited one.
test_description='a tree edit on a flash-kernel image survives flash-kernel, run on the patched root'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs mke2fs e2fsck fdtget dtc mkimage dumpimage linux-version unshare chroot

if [ "$(id -u)" != 0 ]; then
	test_skip "flash-kernel runs chrooted on the image's root" "needs root (unshare -m, chroot)"
	test_done
fi
test_require_debs flash-kernel

V=6.1.0-13-arm64
TREE=/boot/dtbs/$V/rockchip/rk3399-rockpro64.dtb
KEPT=/etc/flash-kernel/dtbs/rk3399-rockpro64.dtb
MMC="mmc@fe320000"
SET="$MMC:max-frequency=<50000000>"

# repack DIR IMG: DIR as IMG's p1 (ext4, made anew with mke2fs -d).
repack()
{
	rm -f repack.ext4 &&
	mke2fs -q -F -t ext4 -L root -d "$1" repack.ext4 $(($(part_size "$2" 1) / 1024))k &&
	put_part "$2" 1 repack.ext4
}

# kernel_install IMG DIR: IMG's root unpacked into DIR and flash-kernel
# run there as the kernel's postinst hook runs it.
kernel_install()
{
	unpack_root "$1" 1 "$2" && flash_kernel "$PWD/$2" "$V"
}

test_expect_success 'fixture: a Debian root with flash-kernel installed, its boot files made by flash-kernel' '
	"$FIXTURES/mkimage-extlinux.sh" base.img &&
	all=deb/flash-kernel/usr/share/flash-kernel/db/all.db &&
	sed -n "/^Machine: Pine64 RockPro64\$/,/^\$/p" $all >entry &&
	grep -Fx "DTB-Id: rockchip/rk3399-rockpro64.dtb" entry &&
	grep -Fx "Boot-Script-Path: /boot/boot.scr" entry &&
	unpack_root base.img 1 r &&
	rm -r r/boot/extlinux &&
	cp -a deb/flash-kernel/. r/ &&
	cp r/usr/share/flash-kernel/default/flash-kernel r/etc/default/flash-kernel &&
	echo "Pine64 RockPro64" >r/etc/flash-kernel/machine &&
	flash_kernel "$PWD/r" "$V" &&
	grep "Installing new boot.scr" flash-kernel.log &&
	cmp r/usr/lib/linux-image-$V/rockchip/rk3399-rockpro64.dtb r$TREE &&
	dumpimage -l r/boot/boot.scr | grep "Script" &&
	cp base.img fk.img && repack r fk.img
'

test_expect_success 'info: the flash-kernel boot path, its tree, and what flash-kernel will do' '
	imgpatch info fk.img >info &&
	grep -F "boot path: flash-kernel /boot/boot.scr, kernel $V, tree /boot/dtbs/$V/\${fdtfile}" info &&
	grep -Fx "  tree: $TREE" info &&
	grep -F "  updates: boot.scr and /boot/dtbs/VERSION are written anew by flash-kernel at every kernel install or removal" info &&
	grep -F "$KEPT is not there: flash-kernel copies the new kernel'"'"'s tree, an edited tree file is not carried over" info
'

test_expect_success 'without the kept copy flash-kernel undoes an edit of /boot/dtbs' '
	cp fk.img e.img &&
	extract_part e.img 1 e.ext4 &&
	debugfs -R "dump $TREE tree.dtb" e.ext4 >/dev/null 2>&1 &&
	fdtput -t u tree.dtb /$MMC max-frequency 50000000 &&
	debugfs -w -R "rm $TREE" e.ext4 >/dev/null 2>&1 &&
	debugfs -w -R "write tree.dtb $TREE" e.ext4 >/dev/null 2>&1 &&
	put_part e.img 1 e.ext4 &&
	kernel_install e.img e &&
	test "$(fdtget e$TREE /$MMC max-frequency)" = 150000000
'

test_expect_success 'patch: the tree edited, and kept in /etc/flash-kernel/dtbs' '
	cp fk.img x.img &&
	imgpatch patch x.img --dt-set "$SET" >plan &&
	grep "^p1 (ext4) $TREE: 62801 -> 62801 bytes" plan &&
	grep "^p1 (ext4) $KEPT: new file" plan &&
	! grep "/etc/flash-kernel/dtbs: " plan &&
	extract_part x.img 1 x.ext4 && e2fsck -fn x.ext4 >fsck.log 2>&1 &&
	debugfs -R "dump $KEPT kept.dtb" x.ext4 >/dev/null 2>&1 &&
	debugfs -R "dump $TREE booted.dtb" x.ext4 >/dev/null 2>&1 &&
	cmp kept.dtb booted.dtb &&
	test "$(fdtget kept.dtb /$MMC max-frequency)" = 50000000 &&
	imgpatch info x.img >info &&
	grep -F "$KEPT is there: flash-kernel copies it" info
'

test_expect_success 'flash-kernel at the next kernel install copies the edited tree' '
	kernel_install x.img k &&
	grep -F "Installing /etc/flash-kernel/dtbs/rk3399-rockpro64.dtb into $TREE" flash-kernel.log &&
	test "$(fdtget k$TREE /$MMC max-frequency)" = 50000000 &&
	imgpatch cat x.img --dtb >cat.all && sed 1d cat.all >cat.dts &&
	dtc -q -I dtb -O dts -o k.dts k$TREE && test_cmp cat.dts k.dts &&
	sum_file x.img >sum &&
	imgpatch patch x.img --dt-set "$SET" >again &&
	test_file_unchanged x.img "$(cat sum)"
'

test_done
