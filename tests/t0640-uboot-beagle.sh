#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot under QEMU runs BeagleBoard'"'"'s uname_boot on the BeagleBone image: the tree and overlays it loads are the ones imgpatch reports'
. "$(dirname "$0")/lib.sh"

. "$TEST_DIR/uboot/uboot-lib.sh"
CMDS=$TEST_DIR/uboot/beagle.cmds
# The BeagleBone's load addresses (0x82000000 to 0x88080000) need RAM up to
# 0x90000000; QEMU's starts at 0x40000000.
export UBOOT_MEM=2048

uboot_missing sfdisk debugfs mkimage mkfs.vfat mcopy dtc fdtoverlay fdtget python3 timeout

# uboot_loaded SOURCE: the tree, then each overlay, uname_boot loaded
# ("loading PATH ..." and "uboot_overlays: loading PATH ...").
uboot_loaded()
{
	sed -n -e 's|^loading \(.*\.dtb\) \.\.\.$|\1|p' \
		-e 's|^uboot_overlays: loading \(.*\) \.\.\.$|\1|p' "$1"
}

check 'build the BeagleBone images and the script disk' '
	"$FIXTURES/mkimage-beagle.sh" beagle.img &&
	"$FIXTURES/mkimage-beagle.sh" capes.img --capes &&
	mkimage -A arm -O linux -T script -C none -n uname_boot \
		-d "$TEST_DIR/uboot/beagle-uname-boot.cmd" uname-boot.scr >/dev/null &&
	truncate -s 8M scripts.img && PATH=$PATH:/usr/sbin:/sbin mkfs.vfat scripts.img >/dev/null &&
	MTOOLS_SKIP_CHECK=1 mcopy -i scripts.img uname-boot.scr ::uname-boot.scr &&
	imgpatch info --json beagle.img >beagle.json &&
	imgpatch info --json capes.img >capes.json
'

# QEMU gives the last disk the lowest address: scripts.img is virtio 0.
check 'U-Boot imports /boot/uEnv.txt and runs uname_boot' '
	for s in beagle capes; do
		boot_uboot $s "$CMDS" $s.img scripts.img &&
		uboot_ok $s script && uboot_ok $s tree &&
		grep -x "Running uname_boot ..." $s/source.out || return 1
	done
'

check 'U-Boot loads the tree and the overlays imgpatch lists, in its order' '
	for s in beagle capes; do
		uboot_loaded $s/source.out >$s.uboot &&
		boot_path_files $s.json | sed "s/^1://" >$s.imgpatch &&
		test_cmp $s.imgpatch $s.uboot || return 1
	done &&
	grep -x "uboot_overlays: uboot loading of \[BB-HDMI-TDA998x-00A0.dtbo\] disabled by /boot/uEnv.txt \[disable_uboot_overlay_video=1\]..." capes/source.out &&
	test "$(wc -l <capes.uboot)" = 6
'

# Debian 12'"'"'s qemu_arm64 U-Boot has no "fdt apply" (uname_boot does not
# restore the tree after a failed one): there the tree it ends with is
# the base tree, and the overlays were compared by the files loaded.
check 'the tree U-Boot ends with is the one imgpatch reports' '
	for s in beagle capes; do
		uboot_tree_dts $s/tree.out $s.uboot.dts || return 1
		if uboot_has_fdt_apply $s/fdthelp.out; then
			effective_tree $s.img $s.expected.dts
		else
			echo "this U-Boot has no fdt apply: the base tree stays" &&
			imgpatch cat $s.img "$(boot_path_files $s.json | head -n 1)" >$s.base.dtb &&
			dtb_dts $s.base.dtb $s.expected.dts
		fi &&
		test_cmp $s.expected.dts $s.uboot.dts || return 1
	done
'

check 'cat --dtb: the files U-Boot loaded, applied in its order by fdtoverlay' '
	for s in beagle capes; do
		n=0 && files= &&
		for f in $(cat $s.uboot); do
			imgpatch cat $s.img "1:$f" >$s.file$n || return 1
			files="$files $s.file$n" && n=$((n + 1))
		done &&
		# shellcheck disable=SC2086 # the list of files
		fdtoverlay -i $files -o $s.merged.dtb &&
		dtb_dts $s.merged.dtb $s.merged.dts &&
		effective_tree $s.img $s.effective.dts &&
		test_cmp $s.merged.dts $s.effective.dts || return 1
	done &&
	fdtget capes.effective.dts.dtb /ocp/interconnect@48000000/segment@0/target-module@60000/mmc@0 no-1-8-v
'

test_done
