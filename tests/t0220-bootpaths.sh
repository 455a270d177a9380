#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='info: the boot path (extlinux, Armbian, Raspberry Pi firmware, FIT, script) and the trees it boots'
. "$(dirname "$0")/lib.sh"

# json_get FILE EXPR: one value out of a JSON document (python3's json module).
json_get()
{
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

dtbs=/usr/lib/linux-image-6.1.0-13-arm64

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-armbian.sh" armbian.img &&
	"$FIXTURES/mkimage-armbian.sh" bootfs.img --bootfs &&
	"$FIXTURES/mkimage-extlinux.sh" fdtdir.img &&
	"$FIXTURES/mkimage-extlinux.sh" fdt.img --fdt &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	"$FIXTURES/mkimage-kv260.sh" kv260.img &&
	"$FIXTURES/mkimage-pmos.sh" pmos.img
'

test_expect_success 'the new fixtures are clean ext4 and the same bytes twice' '
	dd if=armbian.img of=armbian.p1 bs=512 skip=8192 status=none &&
	e2fsck -fn armbian.p1 >/dev/null 2>&1 &&
	dd if=fdt.img of=fdt.p1 bs=512 skip=2048 status=none &&
	e2fsck -fn fdt.p1 >/dev/null 2>&1 &&
	"$FIXTURES/mkimage-armbian.sh" again.img &&
	cmp again.img armbian.img &&
	"$FIXTURES/mkimage-extlinux.sh" again.img &&
	cmp again.img fdtdir.img
'

test_expect_success 'Armbian: boot.scr made by mkimage, its files where Armbian puts them' '
	debugfs -R "cat /boot/boot.scr" "armbian.img?offset=$((8192 * 512))" 2>/dev/null >boot.scr &&
	dumpimage -l boot.scr | grep -i "script" &&
	debugfs -R "ls -p /boot/dtb/allwinner/overlay" "armbian.img?offset=$((8192 * 512))" 2>/dev/null >ovl.ls &&
	grep -F "/sun50i-a64-uart1.dtbo/" ovl.ls &&
	grep -F "/sun50i-a64-i2c0.dtbo/" ovl.ls
'

test_expect_success 'Armbian: info names the script, fdtfile and overlays, and the tree with them in order' '
	$IMGPATCH info armbian.img >armbian.txt &&
	grep -Fx "boot path: U-Boot script /boot/boot.scr (Armbian), fdtfile allwinner/sun50i-a64-pinephone-1.2.dtb, overlays: uart1 i2c0, user_overlays: sdfix (p1)" armbian.txt &&
	grep -Fx "  tree: /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb + /boot/dtb/allwinner/overlay/sun50i-a64-uart1.dtbo, /boot/dtb/allwinner/overlay/sun50i-a64-i2c0.dtbo, /boot/overlay-user/sdfix.dtbo" armbian.txt
'

test_expect_success 'Armbian: JSON' '
	$IMGPATCH info --json armbian.img >armbian.json &&
	test "$(json_get armbian.json "d[\"boot_path\"][\"name\"]")" = armbian &&
	test "$(json_get armbian.json "d[\"boot_path\"][\"partition\"]")" = 1 &&
	test "$(json_get armbian.json "d[\"boot_path\"][\"trees\"][0][\"path\"]")" = /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb &&
	test "$(json_get armbian.json "\" \".join(d[\"boot_path\"][\"trees\"][0][\"overlays\"])")" = \
		"/boot/dtb/allwinner/overlay/sun50i-a64-uart1.dtbo /boot/dtb/allwinner/overlay/sun50i-a64-i2c0.dtbo /boot/overlay-user/sdfix.dtbo" &&
	test "$(json_get armbian.json "d[\"boot_path\"][\"error\"]")" = None
'

test_expect_success 'Armbian with a boot filesystem: its script, not the plain script path, under prefix /' '
	$IMGPATCH info bootfs.img >bootfs.txt &&
	grep -Fx "boot path: U-Boot script /boot.scr (Armbian), fdtfile allwinner/sun50i-a64-pinephone-1.2.dtb, overlays: uart1 i2c0, user_overlays: sdfix (p1)" bootfs.txt &&
	grep -Fx "  tree: /dtb/allwinner/sun50i-a64-pinephone-1.2.dtb + /dtb/allwinner/overlay/sun50i-a64-uart1.dtbo, /dtb/allwinner/overlay/sun50i-a64-i2c0.dtbo, /overlay-user/sdfix.dtbo" bootfs.txt &&
	grep "^root fstab: p2 " bootfs.txt
'

test_expect_success 'every tree and overlay Armbian names is in the image' '
	for f in $(json_get armbian.json "\" \".join(p for t in d[\"boot_path\"][\"trees\"] for p in [t[\"path\"]] + t[\"overlays\"])"); do
		debugfs -R "stat $f" "armbian.img?offset=$((8192 * 512))" 2>&1 | grep -q "Type: regular" || return 1
	done
'

test_expect_success 'extlinux with fdtdir: the default label, every tree in the directory' '
	$IMGPATCH info fdtdir.img >fdtdir.txt &&
	grep -Fx "boot path: extlinux /boot/extlinux/extlinux.conf, label l0, fdtdir $dtbs/ + \${fdtfile}, overlays: none (p1)" fdtdir.txt &&
	grep -Fx "  tree: $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb" fdtdir.txt &&
	grep -Fx "  tree: $dtbs/rockchip/rk3399-rockpro64.dtb" fdtdir.txt &&
	$IMGPATCH info --json fdtdir.img >fdtdir.json &&
	test "$(json_get fdtdir.json "d[\"boot_path\"][\"name\"]")" = extlinux &&
	test "$(json_get fdtdir.json "len(d[\"boot_path\"][\"trees\"])")" = 2
'

test_expect_success 'extlinux with fdt and fdtoverlays' '
	$IMGPATCH info fdt.img >fdt.txt &&
	grep -Fx "boot path: extlinux /boot/extlinux/extlinux.conf, label l0, fdt $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb, overlays: /boot/dtbo//sdfix.dtbo (p1)" fdt.txt &&
	grep -Fx "  tree: $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb + /boot/dtbo//sdfix.dtbo" fdt.txt &&
	$IMGPATCH info --json fdt.img >fdt.json &&
	test "$(json_get fdt.json "\" \".join(d[\"boot_path\"][\"trees\"][0][\"overlays\"])")" = /boot/dtbo//sdfix.dtbo
'

test_expect_success 'Raspberry Pi: a tree per model, [cm5] lines only for the CM5' '
	$IMGPATCH info rpi.img >rpi.txt &&
	grep -Fx "boot path: Raspberry Pi firmware /config.txt, a tree by model from the FAT root (p1)" rpi.txt &&
	grep -Fx "  pi4: /bcm2711-rpi-4-b.dtb + dtparam=audio=on, /overlays/vc4-kms-v3d.dtbo" rpi.txt &&
	grep -Fx "  pi5: /bcm2712-rpi-5-b.dtb + dtparam=audio=on, /overlays/vc4-kms-v3d.dtbo" rpi.txt &&
	! grep dwc2 rpi.txt &&
	$IMGPATCH info --json rpi.img >rpi.json &&
	test "$(json_get rpi.json "\" \".join(t[\"model\"] for t in d[\"boot_path\"][\"trees\"])")" = "pi4 pi5"
'

test_expect_success 'Raspberry Pi: overlay entries keep their parameters, dtparam= lines after dtoverlay= included' '
	cat >params.txt <<-\EOF &&
	[pi4]
	dtoverlay=sdio,poll_once=off
	dtparam=bus_width=1
	dtoverlay=
	dtparam=sd_overclock=62,sd_poll_once
	[all]
	EOF
	"$FIXTURES/mkimage-rpi.sh" rpi-params.img --rpi-trees --config=params.txt &&
	$IMGPATCH info rpi-params.img >rpi-params.txt &&
	grep -Fx "  pi4: /bcm2711-rpi-4-b.dtb + dtparam=audio=on, /overlays/vc4-kms-v3d.dtbo, /overlays/sdio.dtbo,poll_once=off,bus_width=1, dtparam=sd_overclock=62,sd_poll_once" rpi-params.txt &&
	grep -Fx "  pi5: /bcm2712-rpi-5-b.dtb + dtparam=audio=on, /overlays/vc4-kms-v3d.dtbo" rpi-params.txt &&
	$IMGPATCH info --json rpi-params.img >rpi-params.json &&
	test "$(json_get rpi-params.json "d[\"boot_path\"][\"trees\"][0][\"overlays\"][2]")" = \
		/overlays/sdio.dtbo,poll_once=off,bus_width=1
'

test_expect_success 'FIT and script boot paths are named' '
	$IMGPATCH info kv260.img >kv260.txt &&
	grep -Fx "boot path: FIT /image.fit, picked by the boot script, hook user-override.dtb (p1)" kv260.txt &&
	$IMGPATCH info pmos.img >pmos.txt &&
	grep -Fx "boot path: U-Boot script /boot.scr, hook user.scr (p1)" pmos.txt
'

test_expect_success 'the JSON of every boot path validates against the schema' '
	python3 "$TEST_DIR/json/validate.py" "$TEST_DIR/../tool/schema/info.schema.json" \
		armbian.json fdtdir.json fdt.json rpi.json rpi-params.json
'

test_expect_success 'Armbian settings that cannot be read: an error, a problem, the image unchanged' '
	cp armbian.img dangling.img &&
	printf "rm /boot/armbianEnv.txt\nsymlink /boot/armbianEnv.txt /boot/nowhere.txt\n" >dangling.cmd &&
	debugfs -w -f dangling.cmd "dangling.img?offset=$((8192 * 512))" >/dev/null 2>&1 &&
	sum_file dangling.img >before.sum &&
	test_must_fail $IMGPATCH info dangling.img >dangling.txt &&
	grep -Fx "error: p1 (ext4): /boot/armbianEnv.txt: dangling symbolic link to /boot/nowhere.txt" dangling.txt &&
	test_must_fail $IMGPATCH info --json dangling.img >dangling.json &&
	test "$(json_get dangling.json "d[\"problems\"]")" = 1 &&
	python3 "$TEST_DIR/json/validate.py" "$TEST_DIR/../tool/schema/info.schema.json" dangling.json &&
	sum_file dangling.img >after.sum &&
	test_cmp before.sum after.sum
'

test_expect_success 'info only reads: the images are unchanged' '
	sum_file armbian.img >a.sum &&
	$IMGPATCH info armbian.img >/dev/null &&
	sum_file armbian.img >b.sum &&
	test_cmp a.sum b.sum
'

test_done
