#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot under QEMU boots Debian'"'"'s extlinux.conf with sysboot: the tree and overlays it loads are the ones imgpatch reports'
. "$(dirname "$0")/lib.sh"

. "$TEST_DIR/uboot/uboot-lib.sh"
CMDS=$TEST_DIR/uboot/extlinux.cmds
# The board's ramdisk_addr_r (0x4ff00000) lies above 256 MiB of RAM.
export UBOOT_MEM=1024

uboot_missing sfdisk debugfs dtc fdtoverlay fdtget python3 timeout

version=6.1.0-13-arm64
dtbs=/usr/lib/linux-image-$version

# qemu_copy IMG OUT: IMG with its kernel replaced by 16 KiB without the
# arm64 Image magic, so that each label stops at booti ("Bad Linux ARM64
# Image magic!") after U-Boot loaded its files, and sysboot comes back.
qemu_copy()
{
	local -; set +x
	local k=/boot/vmlinuz-$version fs="$2?offset=$((2048 * 512))"

	cp "$1" "$2" &&
	head -c 16384 /dev/zero >dummy.kernel &&
	printf 'rm %s\nwrite dummy.kernel %s\n' "$k" "$k" >dummy.cmd &&
	debugfs -w -f dummy.cmd "$fs" >/dev/null 2>&1 &&
	debugfs -R "stat $k" "$fs" 2>/dev/null | grep -q "Size: 16384"
}

# first_label SYSBOOT: the files U-Boot retrieved for the label it tried
# first but the kernel and initrd: the tree, then its overlays. Each
# attempt starts at a line "N:<tab>MENU LABEL" (after "Enter choice: " when
# the menu was shown; the menu itself lists the labels the same way, but
# retrieves nothing).
first_label()
{
	awk '/^(Enter choice: )?[0-9]+:\t/ { if (done) exit; group = 1; next }
	     group && /^Retrieving file: / && $3 !~ /^\/boot\/(vmlinuz|initrd\.img)-/ { print $3 }
	     group && /^Retrieving file: / { done = 1 }' "$1"
}

check 'build the Debian images and their QEMU copies (a kernel U-Boot will not start)' '
	symbols_dtb_dir symbols &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-extlinux.sh" fdtdir.img &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-extlinux.sh" fdt.img --fdt &&
	qemu_copy fdtdir.img fdtdir.qemu &&
	qemu_copy fdt.img fdt.qemu &&
	imgpatch info --json fdtdir.img >fdtdir.json &&
	imgpatch info --json fdt.img >fdt.json
'

check 'U-Boot'"'"'s sysboot reads extlinux.conf and tries the default label first' '
	boot_uboot fdtdir "$CMDS" fdtdir.qemu &&
	boot_uboot fdt "$CMDS" fdt.qemu &&
	for s in fdtdir fdt; do
		grep "^Retrieving file: /boot/extlinux/extlinux.conf" $s/sysboot.out &&
		grep -A1 "^Enter choice: " $s/sysboot.out | grep -F "1:	Debian GNU/Linux 12 (bookworm) $version" &&
		grep "^append: root=UUID=.* ro quiet\$" $s/sysboot.out | head -n 1 || return 1
	done &&
	uboot_ok fdtdir tree && uboot_ok fdt tree
'

check 'fdt: U-Boot loads the tree imgpatch names; fdtdir: the board'"'"'s ${fdtfile} there, one of imgpatch'"'"'s trees' '
	first_label fdt/sysboot.out >fdt.files &&
	test "$(head -n 1 fdt.files)" = "$dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb" &&
	test "1:$(head -n 1 fdt.files)" = "$(boot_path_files fdt.json | head -n 1)" &&
	first_label fdtdir/sysboot.out >fdtdir.files &&
	test "$(cat fdtdir.files)" = "$dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb" &&
	imgpatch info fdtdir.img | grep -Fx "  tree: $(cat fdtdir.files)"
'

# Debian 12's qemu_arm64 build has no CONFIG_OF_LIBFDT_OVERLAY: its
# sysboot skips FDTOVERLAYS without a word (boot/pxe_utils.c compiles
# label_boot_fdtoverlay out), so there the list is imgpatch's alone.
check 'fdtoverlays: U-Boot loads imgpatch'"'"'s overlays in order where it can apply them' '
	boot_path_files fdt.json | tail -n +2 | sed "s/^1://" >fdt.overlays &&
	test "$(cat fdt.overlays)" = /boot/dtbo//sdfix.dtbo &&
	if uboot_has_fdt_apply fdt/fdthelp.out; then
		tail -n +2 fdt.files >uboot.overlays &&
		test_cmp fdt.overlays uboot.overlays
	else
		echo "this U-Boot has no fdt apply: sysboot skips fdtoverlays" &&
		test "$(wc -l <fdt.files)" = 1
	fi
'

# Each label loads the tree again; the rescue label, tried last, has the
# same fdt line without fdtoverlays. So the tree U-Boot ends with is
# imgpatch'"'"'s base tree, whatever this U-Boot can apply; with overlay
# support the default label'"'"'s overlays were compared by file above.
check 'the tree U-Boot ends with is the tree imgpatch reports' '
	for s in fdt fdtdir; do
		uboot_tree_dts "$s/tree.out" "$s.uboot.dts" &&
		imgpatch cat "$s.img" "1:$(head -n 1 "$s.files")" >"$s.base.dtb" &&
		dtb_dts "$s.base.dtb" "$s.expected.dts" &&
		test_cmp "$s.expected.dts" "$s.uboot.dts" || return 1
	done &&
	grep -c "Bad Linux ARM64 Image magic!" fdt/sysboot.out | grep -qx 2
'

# What u-boot-menu does not write but U-Boot reads: the last DEFAULT, upper
# case, a path relative to extlinux.conf, the first FDT line of a label
# (a second one ends the label: U-Boot then ignores its APPEND).
check 'a hand-written extlinux.conf: U-Boot loads the tree imgpatch names' '
	cat >rel.conf <<-EOF &&
	default first
	label first
		linux /boot/vmlinuz-$version
		fdt /missing.dtb
		append ro
	LABEL second
		LINUX /boot/vmlinuz-$version
		FDT ../../usr/lib/linux-image-$version/allwinner/sun50i-a64-pinephone-1.2.dtb
		FDT /missing.dtb
		APPEND ro
	DEFAULT second
	EOF
	for i in img qemu; do
		cp fdtdir.$i rel.$i &&
		printf "rm /boot/extlinux/extlinux.conf\nwrite rel.conf /boot/extlinux/extlinux.conf\n" >rel.cmd &&
		debugfs -w -f rel.cmd "rel.$i?offset=$((2048 * 512))" >/dev/null 2>&1 || return 1
	done &&
	imgpatch info --json rel.img >rel.json &&
	boot_uboot rel "$CMDS" rel.qemu &&
	first_label rel/sysboot.out >rel.files &&
	test "1:$(cat rel.files)" = "$(boot_path_files rel.json)" &&
	test "$(cat rel.files)" = "/boot/extlinux/../../usr/lib/linux-image-$version/allwinner/sun50i-a64-pinephone-1.2.dtb" &&
	grep -x "Ignoring unknown command: APPEND" rel/sysboot.out &&
	uboot_tree_dts rel/tree.out rel.uboot.dts &&
	test_cmp fdtdir.expected.dts rel.uboot.dts
'

check 'fdt: the effective tree imgpatch reports is its tree with sdfix.dtbo applied' '
	effective_tree fdt.img effective.dts &&
	fdtget effective.dts.dtb /soc/mmc@1c0f000 no-1-8-v &&
	! fdtget fdt.base.dtb /soc/mmc@1c0f000 no-1-8-v 2>/dev/null
'

test_done
