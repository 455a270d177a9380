#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot boots images whose overlay does not fit the room the loader gives it: what booti receives (or that nothing boots) is what imgpatch reports'
. "$(dirname "$0")/lib.sh"

. "$TEST_DIR/uboot/uboot-lib.sh"

uboot_missing sfdisk debugfs mkimage dtc fdtget fdtput mkenvimage python3 \
	aarch64-linux-gnu-as aarch64-linux-gnu-ld aarch64-linux-gnu-objcopy timeout

version=6.1.0-13-arm64

# put_file IMG SECTOR NAME FILE: FILE as NAME on the ext filesystem of IMG
# at SECTOR (replacing one there).
put_file()
{
	local -; set +x
	local fs="$1?offset=$(($2 * 512))"

	printf 'rm %s\nwrite %s %s\n' "$3" "$4" "$3" >put.cmd &&
	debugfs -w -f put.cmd "$fs" >/dev/null 2>&1 &&
	debugfs -R "stat $3" "$fs" 2>/dev/null | grep -q "Size: $(stat -c %s "$4")\$"
}

# big_overlay OUT BYTES: an overlay of about BYTES bytes: sdfix's no-1-8-v
# on &mmc0 and a filler property of BYTES zero bytes.
big_overlay()
{
	local -; set +x

	python3 -c 'import sys
print("/dts-v1/;\n/plugin/;\n\n&mmc0 {\n\tno-1-8-v;\n\timgpatch,filler = [" +
      " 00" * int(sys.argv[1]) + " ];\n};")' "$2" >"$1.dts" &&
	dtc -q -@ -I dts -O dtb -o "$1" "$1.dts"
}

check 'build an extlinux and a postmarketOS image with the stand-in kernel' '
	booti_kernel booti.kernel &&
	symbols_dtb_dir symbols &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-extlinux.sh" fdt.img --fdt &&
	put_file fdt.img 2048 /boot/vmlinuz-$version booti.kernel &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-pmos.sh" pmos.img &&
	put_file pmos.img 2048 /vmlinuz booti.kernel &&
	board_env env.txt mmc_bootdev=0
'

# U-Boot's sysboot gives each overlay the tree's size plus 8 KiB
# (label_boot_fdtoverlay(), boot/pxe_utils.c: fdt_shrink_to_minimum(fdt,
# 8192)). An 18 KB overlay fails with FDT_ERR_NOSPACE, which erases the
# tree's magic (libfdt's fdt_overlay_apply()); booti then finds no tree,
# the label fails, and sysboot boots the next label: the rescue one,
# without fdtoverlays. Fails until imgpatch models that room and
# sysboot's next label (issue items 2 and 4): today it reports the tree
# with the overlay applied.
check 'extlinux, an 18 KB overlay in fdtoverlays: sysboot boots the rescue label, booti gets what imgpatch reports' '
	cp fdt.img big.img &&
	big_overlay big.dtbo 18000 && test "$(stat -c %s big.dtbo)" -gt 18000 &&
	put_file big.img 2048 /boot/dtbo/sdfix.dtbo big.dtbo &&
	booti_boot big env.txt big.img &&
	tr -d "\r" <big.console >big.log &&
	grep -q "FDT_ERR_NOSPACE" big.log &&
	grep -Fq "Failed to apply overlay /boot/dtbo//sdfix.dtbo" big.log &&
	grep -q "append: root=UUID=.* ro single\$" big.log &&
	! fdtget big/booti.dtb /soc/mmc@1c0f000 no-1-8-v 2>/dev/null &&
	imgpatch cat big.img --dtb >big.imgpatch.dts &&
	booti_matches big big.imgpatch.dts
'

# postmarketOS's boot.scr resizes the tree with a bare "fdt resize" (the
# tree's size rounded up to 4 KiB: cmd/fdt.c, fdt_shrink_to_minimum(fdt,
# 0)) before it sources user.scr. A user.scr that applies a 9.3 KB overlay
# without a resize of its own fails with FDT_ERR_NOSPACE, the tree is
# erased, booti has none and nothing boots. Fails until imgpatch models
# that room (issue item 3): today cat --dtb prints the tree with the
# overlay applied, and doctor says nothing.
check 'pmOS, a user.scr applying a 9.3 KB overlay after a bare fdt resize: nothing boots, imgpatch says so' '
	cp pmos.img room.img &&
	big_overlay room.dtbo 9300 &&
	cat >user.cmd <<-\EOF &&
	if load mmc ${mmc_bootdev}:1 ${fdtoverlay_addr_r} room.dtbo; then
		fdt apply ${fdtoverlay_addr_r}
	fi
	EOF
	mkimage -A arm -O linux -T script -C none -n user -d user.cmd user.scr >/dev/null &&
	put_file room.img 2048 /user.scr user.scr &&
	put_file room.img 2048 /room.dtbo room.dtbo &&
	! booti_boot room env.txt room.img >room.out &&
	test ! -e room/booti.dtb &&
	tr -d "\r" <room.console >room.log &&
	grep -q "FDT_ERR_NOSPACE" room.log &&
	{ ! imgpatch cat room.img --dtb >room.imgpatch.dts ||
	  ! grep -q "imgpatch,filler" room.imgpatch.dts; } &&
	imgpatch doctor room.img >room.doctor 2>&1 &&
	cat room.doctor && grep -q "room\.dtbo" room.doctor
'

test_done
