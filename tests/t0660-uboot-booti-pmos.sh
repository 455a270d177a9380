#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot'"'"'s distro boot sources postmarketOS'"'"'s boot.scr (and the user.scr it sources) as the PinePhone does: the tree booti hands the kernel is the one imgpatch cat --dtb reports, before and after each patch'
. "$(dirname "$0")/lib.sh"

. "$TEST_DIR/uboot/uboot-lib.sh"
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

uboot_missing sfdisk debugfs mkimage dtc fdtget fdtput mkenvimage \
	aarch64-linux-gnu-as aarch64-linux-gnu-ld aarch64-linux-gnu-objcopy timeout

# with_kernel IMG: IMG's /vmlinuz on pmOS_boot (the ext2 at sector 2048)
# replaced by the stand-in that hands the tree it gets to the host.
with_kernel()
{
	local -; set +x
	local fs="$1?offset=$((2048 * 512))"

	printf 'rm /vmlinuz\nwrite booti.kernel /vmlinuz\n' >kernel.cmd &&
	debugfs -w -f kernel.cmd "$fs" >/dev/null 2>&1 &&
	debugfs -R "stat /vmlinuz" "$fs" 2>/dev/null | grep -q "Size: $(stat -c %s booti.kernel)\$"
}

# boots KIND IMG: IMG boots on the PinePhone, and booti hands the kernel
# the tree that "imgpatch cat IMG --dtb" prints.
boots()
{
	booti_boot "$1" env.txt "$2" &&
	imgpatch cat "$2" --dtb >"$1.imgpatch.dts" &&
	booti_matches "$1" "$1.imgpatch.dts"
}

# The PinePhone's U-Boot sets mmc_bootdev to the card it booted from
# (board/sunxi/board.c), 0 for the SD card; its fdtfile names the vendor
# folder, which pmOS's /allwinner link resolves.
check 'build the postmarketOS images with the stand-in kernel, and the board environment' '
	booti_kernel booti.kernel &&
	symbols_dtb_dir symbols &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-pmos.sh" pmos.img &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-pmos.sh" nohook.img --no-user-scr-hook &&
	with_kernel pmos.img && with_kernel nohook.img &&
	board_env env.txt mmc_bootdev=0
'

check 'as shipped, no user.scr on the card: booti gets the tree file' '
	boots pmos pmos.img &&
	grep -q "^No user script found" pmos.console
'

check 'as shipped, a boot.scr that never sources user.scr: the same' '
	boots nohook nohook.img
'

check 'recipe pinephone-vccq-mod (user.scr applies its overlay): booti gets it applied' '
	cp pmos.img vccq.img &&
	imgpatch apply pinephone-vccq-mod vccq.img --set hardware-mod=done >vccq.log &&
	boots vccq vccq.img &&
	grep -q "^Applying pinephone-vccq-mod.dtbo" vccq.console &&
	fdtget vccq/booti.dtb /soc/mmc@1c11000 mmc-hs200-1_8v
'

check '--via file: the tree file edited in place, booti gets it' '
	cp pmos.img file.img &&
	imgpatch patch file.img --via file --dt-delete mmc@1c0f000:cd-gpios >file.log &&
	boots file file.img &&
	! fdtget file/booti.dtb /soc/mmc@1c0f000 cd-gpios 2>/dev/null
'

check '--via file after the recipe: booti gets the edited file with the overlay applied' '
	cp vccq.img both.img &&
	imgpatch patch both.img --via file --dt-delete mmc@1c0f000:cd-gpios >both.log &&
	boots both both.img &&
	! fdtget both/booti.dtb /soc/mmc@1c0f000 cd-gpios 2>/dev/null &&
	fdtget both/booti.dtb /soc/mmc@1c11000 mmc-hs200-1_8v
'

test_done
