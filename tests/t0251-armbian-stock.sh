#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='stock Armbian ROCKPro64: no fdtfile= (U-Boot'"'"'s own names the tree), no overlay-user folder'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs e2fsck mkimage dtc fdtget fdtoverlay dpkg-deb
test_require_debs u-boot-rockchip

export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"
RK=$PWD/deb/u-boot-rockchip
OFF=$((32768 * 512))

# ext_cat IMG PATH: a file of the root, read with debugfs.
ext_cat()
{
	extract_part "$1" 1 part.ext4 && debugfs -R "cat $2" part.ext4 2>/dev/null
}

test_expect_success 'build the stock image, with and without Debian'"'"'s u-boot-rockchip at its sectors' '
	"$FIXTURES/mkimage-armbian-rockpro64.sh" stock.img --uboot "$RK" &&
	"$FIXTURES/mkimage-armbian-rockpro64.sh" bare.img &&
	extract_part stock.img 1 p1.ext4 &&
	debugfs -R "cat /boot/armbianEnv.txt" p1.ext4 2>/dev/null >env &&
	! grep -q "^fdtfile=" env &&
	debugfs -R "stat /boot/overlay-user" p1.ext4 2>&1 | grep -q "File not found" &&
	cp stock.img stock.orig
'

test_expect_success 'info: the tree is the one U-Boot'"'"'s default environment names' '
	imgpatch info stock.img >info &&
	grep -Fx "boot loader: U-Boot 2023.01+dfsg-2+deb12u3, fdtfile=rockchip/rk3399-rockpro64.dtb (u-boot.itb at sector 16384 (Rockchip))" info &&
	grep -Fx "boot path: U-Boot script /boot/boot.scr (Armbian), fdtfile rockchip/rk3399-rockpro64.dtb (U-Boot'"'"'s default environment), overlays: none (p1)" info &&
	grep -Fx "  tree: /boot/dtb/rockchip/rk3399-rockpro64.dtb" info &&
	test $(grep -c "^  tree:" info) = 1
'

test_expect_success 'cat --dtb without --model: the tree U-Boot picks' '
	imgpatch cat stock.img --dtb >booted.dts &&
	ext_cat stock.img /boot/dtb/rockchip/rk3399-rockpro64.dtb >rp.dtb &&
	dtc -q -I dtb -O dts rp.dtb >rp.dts &&
	grep -q "^// boot path armbian: /boot/dtb/rockchip/rk3399-rockpro64.dtb" booted.dts &&
	grep -v "^//" booted.dts >a && test_cmp rp.dts a
'

test_expect_success 'apply rockpro64-sd-uhs --dry-run: the plan says the folder is made, and why; nothing written' '
	sum=$(sum_file stock.img) &&
	imgpatch apply rockpro64-sd-uhs stock.img --dry-run >plan &&
	grep -Fx "p1 (ext4) /boot/overlay-user: new folder" plan &&
	grep -Fx "    made as Armbian'"'"'s armbian-add-overlay makes it (mkdir -p /boot/overlay-user)" plan &&
	test_file_unchanged stock.img "$sum"
'

test_expect_success 'apply rockpro64-sd-uhs with no parameter: folder, overlay and user_overlays= written' '
	imgpatch apply rockpro64-sd-uhs stock.img >out &&
	extract_part stock.img 1 p1.ext4 &&
	e2fsck -fn p1.ext4 >/dev/null 2>&1 &&
	debugfs -R "stat /boot/overlay-user" p1.ext4 2>/dev/null >st &&
	grep -q "Type: directory    Mode:  0755" st &&
	debugfs -R "cat /boot/armbianEnv.txt" p1.ext4 2>/dev/null >env &&
	test "$(tail -n 1 env)" = user_overlays=rockpro64-sd-uhs &&
	debugfs -R "cat /boot/overlay-user/rockpro64-sd-uhs.dtbo" p1.ext4 2>/dev/null >uhs.dtbo &&
	debugfs -R "cat /boot/dtb/rockchip/rk3399-rockpro64.dtb" p1.ext4 2>/dev/null >rp.dtb &&
	fdtoverlay -i rp.dtb -o applied.dtb uhs.dtbo &&
	for p in sd-uhs-sdr12 sd-uhs-sdr25 sd-uhs-sdr50 sd-uhs-sdr104 sd-uhs-ddr50; do
		fdtget applied.dtb /mmc@fe320000 $p >/dev/null || return 1
	done &&
	test_must_fail fdtget rp.dtb /mmc@fe320000 sd-uhs-sdr104
'

test_expect_success 'a second apply changes nothing, the folder not planned again' '
	sum=$(sum_file stock.img) &&
	imgpatch apply rockpro64-sd-uhs stock.img >out2 &&
	! grep "new folder" out2 &&
	test_file_unchanged stock.img "$sum"
'

test_expect_success 'undo removes the folder with the rest' '
	imgpatch undo stock.img >undo.out &&
	cmp stock.img stock.orig
'

test_expect_success 'apply --via file: the recipe'"'"'s tree edited in place, no folder made' '
	cp stock.orig viafile.img &&
	imgpatch apply rockpro64-sd-uhs viafile.img --via file >out &&
	grep "via file" out && ! grep "new folder" out &&
	extract_part viafile.img 1 vf.ext4 &&
	e2fsck -fn vf.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /boot/dtb/rockchip/rk3399-rockpro64.dtb" vf.ext4 2>/dev/null >vf.dtb &&
	fdtget vf.dtb /mmc@fe320000 sd-uhs-sdr104 >/dev/null &&
	debugfs -R "stat /boot/overlay-user" vf.ext4 2>&1 | grep -q "File not found" &&
	test_must_fail_with 2 imgpatch apply rockpro64-sd-uhs viafile.img --via bogus 2>err &&
	grep -Fx "imgpatch: --via '"'"'bogus'"'"': expected override, fit, overlay or file" err
'

test_expect_success 'patch --via file --dt-delete of a property the tree never had (a typo): refused, close names given' '
	cp stock.orig typo.img &&
	test_refuses typo.img "candidates: cap-sd-highspeed" \
		imgpatch patch typo.img --via file --dt-delete mmc@fe320000:cap-sd-higspeed &&
	echo "imgpatch: typo.img: p1 /boot/dtb/rockchip/rk3399-rockpro64.dtb: /mmc@fe320000: delete cap-sd-higspeed: property '"'"'cap-sd-higspeed'"'"' not found (candidates: cap-sd-highspeed)" >expect &&
	test_cmp expect err
'

test_expect_success 'patch --via file --dt-delete run twice: the second run finds its own work, not a typo' '
	cp stock.orig twice.img &&
	imgpatch patch twice.img --via file --dt-delete mmc@fe320000:cap-sd-highspeed >one &&
	sum=$(sum_file twice.img) &&
	imgpatch patch twice.img --via file --dt-delete mmc@fe320000:cap-sd-highspeed >two &&
	grep "unchanged (already applied)" two &&
	test_file_unchanged twice.img "$sum" &&
	extract_part twice.img 1 tw.ext4 &&
	debugfs -R "cat /boot/dtb/rockchip/rk3399-rockpro64.dtb" tw.ext4 2>/dev/null >tw.dtb &&
	test_must_fail fdtget tw.dtb /mmc@fe320000 cap-sd-highspeed
'

test_expect_success 'without U-Boot in the image: refused, one line, the image unchanged' '
	test_refuses bare.img "fdtfile (unset)" \
		imgpatch apply rockpro64-sd-uhs bare.img &&
	echo "imgpatch: bare.img: recipe '"'"'rockpro64-sd-uhs'"'"' does not match this image: expected root compatible '"'"'pine64,rockpro64'"'"', found: U-Boot script /boot/boot.scr (Armbian), fdtfile (unset), overlays: none: the boot path picks its tree itself and names no tree file imgpatch could edit" >expect &&
	test_cmp expect err
'

test_done
