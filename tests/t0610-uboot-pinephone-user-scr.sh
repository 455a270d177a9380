#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot under QEMU runs the pinephone-vccq-mod user.scr as postmarketOS boots it: the initramfs survives'
. "$(dirname "$0")/lib.sh"

. "$TEST_DIR/uboot/uboot-lib.sh"
CMDS=$TEST_DIR/uboot/pinephone.cmds
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"
# The initramfs goes to ramdisk_addr_r (0x4ff00000) and runs past 0x50800000
# (9 MiB above it), where a fixed overlay address would land; 1 GiB of RAM
# holds both and U-Boot relocated above them.
export UBOOT_MEM=1024
INITRD_SIZE=$((12 << 20))

uboot_missing sfdisk debugfs mkimage gzip od fdtoverlay dtc timeout

# put_boot_file IMG NAME FILE: writes FILE as /NAME on IMG's ext2 pmOS_boot
# (replacing one there), with debugfs on a copy of the partition.
put_boot_file()
{
	local -; set +x
	local start

	start=$(part_offset "$1" 1) &&
	extract_part "$1" 1 "$1.p1" &&
	debugfs -w -R "rm $2" "$1.p1" >/dev/null 2>&1
	debugfs -w -R "write $3 $2" "$1.p1" >/dev/null 2>&1 &&
	e2fsck -fn "$1.p1" >/dev/null 2>&1 &&
	dd if="$1.p1" of="$1" bs=512 seek=$((start / 512)) conv=notrunc status=none &&
	rm -f "$1.p1"
}

# boot_file IMG NAME OUT: /NAME from IMG's pmOS_boot.
boot_file()
{
	extract_part "$1" 1 "$1.p1" &&
	debugfs -R "dump $2 $3" "$1.p1" >/dev/null 2>&1 &&
	rm -f "$1.p1" && test -s "$3"
}

# qemu_script SCR OUT: the script image SCR with its one board-specific
# word changed: QEMU's machine has its card on virtio, the PinePhone on mmc.
qemu_script()
{
	tail -c +73 "$1" | tr -d '\000' >"$1.txt" &&
	sed "s/^\([[:space:]]*\)\(if \)\{0,1\}load mmc /\1\2load virtio /" "$1.txt" >"$1.qemu.txt" &&
	{ diff "$1.txt" "$1.qemu.txt"; test $? = 1; } &&
	mkimage -A arm -O linux -T script -C none -n qemu -d "$1.qemu.txt" "$2" >/dev/null
}

check 'build a postmarketOS image with a 12 MiB initramfs and apply the recipe' '
	mkdir -p dtb && cp "$DTB_DIR"/u-boot-sunxi-pinephone.dtb dtb/sun50i-a64-pinephone-1.2.dtb &&
	DTB_DIR=$PWD/dtb "$FIXTURES/mkimage-pmos.sh" pmos.img &&
	seq -w 1 2000000 | head -c $INITRD_SIZE >initramfs &&
	put_boot_file pmos.img initramfs initramfs &&
	cp pmos.img control.img &&
	imgpatch apply pinephone-vccq-mod pmos.img --set hardware-mod=done >apply.out &&
	boot_file pmos.img user.scr recipe.scr &&
	boot_file pmos.img pinephone-vccq-mod.dtbo recipe.dtbo
'

check 'control: a user.scr with the overlay at a fixed 0x50800000' '
	cat >fixed.cmd <<-\EOF &&
	setenv vccq_overlay_addr 0x50800000
	if load mmc ${mmc_bootdev}:1 ${vccq_overlay_addr} pinephone-vccq-mod.dtbo; then
		fdt resize 8192
		fdt apply ${vccq_overlay_addr}
	fi
	EOF
	mkimage -A arm -O linux -T script -C none -n fixed -d fixed.cmd fixed.scr >/dev/null &&
	put_boot_file control.img pinephone-vccq-mod.dtbo recipe.dtbo &&
	qemu_script fixed.scr fixed.qemu.scr &&
	put_boot_file control.img user.scr fixed.qemu.scr
'

check 'the QEMU copy differs from the recipe'"'"'s user.scr in the device word only' '
	cp pmos.img qemu.img &&
	qemu_script recipe.scr recipe.qemu.scr &&
	{ diff recipe.scr.txt recipe.scr.qemu.txt >words.diff; test $? = 1; } &&
	test "$(grep -c "^<" words.diff)" = 1 &&
	grep "^> if load virtio \${mmc_bootdev}:1 \${fdtoverlay_addr_r} pinephone-vccq-mod.dtbo; then\$" words.diff &&
	put_boot_file qemu.img user.scr recipe.qemu.scr
'

# QEMU's virt machine gives the last virtio disk the lowest address, and
# U-Boot numbers them by address: control.img is virtio 1, qemu.img virtio 0.
check 'U-Boot runs both boot sequences' '
	boot_uboot pinephone "$CMDS" control.img qemu.img &&
	uboot_ok pinephone user0 &&
	grep -q "^$(stat -c %s recipe.qemu.scr) bytes read" pinephone/user0.out &&
	uboot_ok pinephone user1 &&
	grep -q "^$(stat -c %s fixed.qemu.scr) bytes read" pinephone/user1.out
'

check 'the initramfs is loaded whole at ramdisk_addr_r, past 0x50800000' '
	uboot_ok pinephone initrd0 &&
	grep -q "^$INITRD_SIZE bytes read" pinephone/initrd0.out &&
	uboot_ok pinephone size0 &&
	grep -qx "ramdisk_size=$(printf %x $INITRD_SIZE)" pinephone/size0.out &&
	test $((0x4ff00000 + INITRD_SIZE)) -gt $((0x50800000)) &&
	crc=$(crc32_of initramfs) &&
	uboot_ok pinephone before0 && grep -q " ==> $crc\$" pinephone/before0.out
'

check 'the recipe'"'"'s user.scr loads the overlay at fdtoverlay_addr_r; the initramfs is intact' '
	uboot_ok pinephone user0 && uboot_ok pinephone source0 &&
	grep "^Applying pinephone-vccq-mod.dtbo" pinephone/source0.out &&
	grep -q "^$(stat -c %s recipe.dtbo) bytes read" pinephone/source0.out &&
	crc=$(crc32_of initramfs) &&
	uboot_ok pinephone after0 && grep -q " ==> $crc\$" pinephone/after0.out &&
	uboot_ok pinephone magic0 && grep -q "^4fe00000: " pinephone/magic0.out &&
	if uboot_has_fdt_apply pinephone/fdthelp.out; then
		grep -q "^4fe00000: ffffffff " pinephone/magic0.out
	else
		uboot_ok pinephone dtbo0 &&
		grep -q " ==> $(crc32_of recipe.dtbo)\$" pinephone/dtbo0.out
	fi
'

check 'the overlay is applied where this U-Boot can (CONFIG_OF_LIBFDT_OVERLAY)' '
	cat pinephone/fdthelp.out && uboot_ok pinephone mmc0 &&
	if uboot_has_fdt_apply pinephone/fdthelp.out; then
		grep "mmc-hs200-1_8v" pinephone/mmc0.out &&
		uboot_ok pinephone tree0 &&
		uboot_tree_dts pinephone/tree0.out uboot.dts &&
		fdtoverlay -i dtb/sun50i-a64-pinephone-1.2.dtb -o expected.dtb recipe.dtbo &&
		dtb_dts expected.dtb expected.dts &&
		test_cmp expected.dts uboot.dts
	else
		echo "this U-Boot has no fdt apply: the tree is checked with fdtoverlay in t1000" &&
		grep -q "^Usage:" pinephone/source0.out
	fi
'

check 'control: the fixed address overwrites the same initramfs' '
	crc=$(crc32_of initramfs) &&
	uboot_ok pinephone before1 && grep -q " ==> $crc\$" pinephone/before1.out &&
	uboot_ok pinephone source1 &&
	uboot_ok pinephone after1 && ! grep -q " ==> $crc\$" pinephone/after1.out
'

test_done
