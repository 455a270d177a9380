#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot'"'"'s distro boot sources Armbian'"'"'s boot.scr as the board does: the tree booti hands the kernel is the one imgpatch cat --dtb reports, before and after each patch'
. "$(dirname "$0")/lib.sh"

. "$TEST_DIR/uboot/uboot-lib.sh"

uboot_missing sfdisk debugfs mkimage dtc fdtget fdtput mkenvimage \
	aarch64-linux-gnu-as aarch64-linux-gnu-ld aarch64-linux-gnu-objcopy timeout

version=6.6.63-current-sunxi64

# with_kernel IMG PATH: IMG's kernel PATH (on the ext4 at sector 8192, where
# Armbian's first partition starts) replaced by the stand-in that hands
# the tree it gets to the host.
with_kernel()
{
	local -; set +x
	local fs="$1?offset=$((8192 * 512))"

	printf 'rm %s\nwrite booti.kernel %s\n' "$2" "$2" >kernel.cmd &&
	debugfs -w -f kernel.cmd "$fs" >/dev/null 2>&1 &&
	debugfs -R "stat $2" "$fs" 2>/dev/null | grep -q "Size: $(stat -c %s booti.kernel)\$"
}

# boots KIND IMG: IMG boots on the board, and booti hands the kernel the
# tree that "imgpatch cat IMG --dtb" prints.
boots()
{
	booti_boot "$1" env.txt "$2" &&
	imgpatch cat "$2" --dtb >"$1.imgpatch.dts" &&
	booti_matches "$1" "$1.imgpatch.dts"
}

# uinitrd IMG PATH: IMG's initramfs PATH (the target of the uInitrd link)
# made a U-Boot legacy ramdisk image, as Armbian's initramfs hook makes it
# (mkimage -T ramdisk): booti ${ramdisk_addr_r} without a size takes only
# that format, and the fixture's is a bare gzip.
uinitrd()
{
	local -; set +x
	local fs="$1?offset=$((8192 * 512))"

	debugfs -R "dump $2 initrd.gz" "$fs" >/dev/null 2>&1 &&
	mkimage -A arm64 -O linux -T ramdisk -C gzip -n uInitrd -d initrd.gz uInitrd >/dev/null &&
	printf 'rm %s
write uInitrd %s
' "$2" "$2" >uinitrd.cmd &&
	debugfs -w -f uinitrd.cmd "$fs" >/dev/null 2>&1
}

check 'build the Armbian images with the stand-in kernel, and the board environment' '
	booti_kernel booti.kernel &&
	symbols_dtb_dir symbols &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-armbian.sh" armbian.img &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-armbian.sh" bootfs.img --bootfs &&
	with_kernel armbian.img /boot/vmlinuz-$version &&
	with_kernel bootfs.img /vmlinuz-$version &&
	uinitrd armbian.img /boot/uInitrd-$version &&
	uinitrd bootfs.img /uInitrd-$version &&
	board_env env.txt
'

check 'as shipped (overlays uart1 i2c0, user overlay sdfix): booti gets all three applied' '
	boots armbian armbian.img &&
	grep -q "^Applying user provided DT overlay sdfix.dtbo" armbian.console &&
	! grep -q "restoring original DT" armbian.console &&
	test "$(fdtget armbian/booti.dtb /soc/serial@1c28400 status)" = okay &&
	fdtget armbian/booti.dtb /soc/mmc@1c0f000 no-1-8-v
'

check 'as shipped, with a boot filesystem (prefix /): the same' '
	boots bootfs bootfs.img &&
	grep -q "^Applying user provided DT overlay sdfix.dtbo" bootfs.console
'

check '--via overlay: a new user overlay after sdfix, booti gets it applied' '
	cp armbian.img overlay.img &&
	imgpatch patch overlay.img --via overlay \
		--dt-set mmc@1c0f000:max-frequency=150000000 >overlay.log &&
	boots overlay overlay.img &&
	test "$(fdtget overlay/booti.dtb /soc/mmc@1c0f000 max-frequency)" = 150000000
'

check '--via file: /boot/dtb/FDTFILE edited in place, booti gets it with the overlays applied' '
	cp bootfs.img file.img &&
	imgpatch patch file.img --via file --dt-delete mmc@1c0f000:cd-gpios >file.log &&
	boots file file.img &&
	! fdtget file/booti.dtb /soc/mmc@1c0f000 cd-gpios 2>/dev/null &&
	fdtget file/booti.dtb /soc/mmc@1c0f000 no-1-8-v
'

# Armbian's boot.scr sources the user's ${prefix}fixup.scr after the
# overlays applied ("Applying user provided fixup script"); users set
# properties there with "fdt set". imgpatch lists that script in the boot
# path; the tree booti receives has its changes. Fails until imgpatch
# runs the fixup script's fdt commands on the effective tree (the
# modelling of boot scripts' own fdt commands, issue item 1).
check 'a user fixup.scr that sets a property: booti gets it, as imgpatch reports' '
	cp armbian.img fixup.img &&
	printf "fdt set /soc/mmc@1c0f000 max-frequency <50000000>\n" >fixup.cmd &&
	mkimage -C none -A arm -T script -d fixup.cmd fixup.scr >/dev/null &&
	printf "write fixup.scr /boot/fixup.scr\n" >put-fixup.cmd &&
	debugfs -w -f put-fixup.cmd "fixup.img?offset=$((8192 * 512))" >/dev/null 2>&1 &&
	booti_boot fixup env.txt fixup.img &&
	grep -q "^Applying user provided fixup script (fixup.scr)" fixup.console &&
	test "$(fdtget fixup/booti.dtb /soc/mmc@1c0f000 max-frequency)" = 50000000 &&
	imgpatch cat fixup.img --dtb >fixup.imgpatch.dts &&
	booti_matches fixup fixup.imgpatch.dts
'

test_done
