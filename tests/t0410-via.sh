#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='patch --via overlay|file: the change reaches the tree an Armbian, extlinux or Raspberry Pi image boots'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs e2fsck mtype mcopy fsck.fat fdtget fdtoverlay dtc

dtbs=/usr/lib/linux-image-6.1.0-13-arm64
ARM_OFF=$((8192 * 512))
EXT_OFF=$((2048 * 512))
RPI_OFF=$((8192 * 512))
MMC="mmc@1c0f000"
SET="$MMC:max-frequency=<50000000>"

# ext_cat IMG OFFSET PATH: a file of the ext4 at OFFSET, by debugfs.
ext_cat()
{
	debugfs -R "cat $3" "$1?offset=$2" 2>/dev/null
}

# ext_names IMG OFFSET DIR: the names in DIR, by debugfs.
ext_names()
{
	debugfs -R "ls -p $3" "$1?offset=$2" 2>/dev/null | cut -d/ -f6 | grep -v '^\.*$'
}

# ext_clean IMG START_SECTOR: e2fsck finds nothing to fix.
ext_clean()
{
	dd if="$1" of=clean.ext4 bs=512 skip="$2" status=none &&
	e2fsck -fn clean.ext4 >/dev/null 2>&1
}

rpi_clean()
{
	extract_part "$1" 1 clean.fat && fsck.fat -n clean.fat >/dev/null
}

# fails IMG ARGS...: the patch is refused (exit 1) and IMG keeps every byte.
fails()
{
	img=$1; shift
	sum_file "$img" >before.sum &&
	test_must_fail_with 1 imgpatch patch "$img" "$@" 2>err &&
	sum_file "$img" >after.sum && test_cmp before.sum after.sum
}

test_expect_success 'fixtures' '
	"$FIXTURES/mkimage-armbian.sh" armbian.img &&
	"$FIXTURES/mkimage-armbian.sh" bootfs.img --bootfs &&
	"$FIXTURES/mkimage-extlinux.sh" fdt.img --fdt &&
	"$FIXTURES/mkimage-extlinux.sh" fdtdir.img &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	"$FIXTURES/mkimage-pmos.sh" pmos.img &&
	ext_cat armbian.img $ARM_OFF /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb >pine.dtb &&
	ext_cat armbian.img $ARM_OFF /boot/overlay-user/sdfix.dtbo >sdfix.dtbo &&
	cp armbian.img armsym.img && with_symbols armsym.img 8192 /boot/dtb/allwinner &&
	cp bootfs.img bootsym.img && with_symbols bootsym.img 8192 /dtb/allwinner &&
	cp fdt.img fdtsym.img && with_symbols fdtsym.img 2048 $dtbs/allwinner &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" pinesym.dtb
'

# ------------------------------------------------------------------ Armbian

test_expect_success 'Armbian: a dry run plans a new overlay and changes nothing' '
	cp armsym.img a.img &&
	imgpatch patch a.img --dt-set "$SET" --dry-run >plan &&
	grep "^p1 (ext4) /boot/overlay-user/imgpatch-[0-9a-f]*\.dtbo: new file" plan &&
	grep "^    via overlay: the boot path applies a list of overlays" plan &&
	grep "^    from the effective tree (p1 /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb + 3 overlays)" plan &&
	grep "^-user_overlays=sdfix$" plan &&
	grep "^+user_overlays=sdfix imgpatch-[0-9a-f]*$" plan &&
	cmp armsym.img a.img
'

test_expect_success 'Armbian: the overlay is in overlay-user/, its name appended to user_overlays' '
	imgpatch patch a.img --dt-set "$SET" >out &&
	name=$(ext_names a.img $ARM_OFF /boot/overlay-user | grep "^imgpatch-") &&
	ext_cat a.img $ARM_OFF /boot/armbianEnv.txt >env &&
	grep -Fx "user_overlays=sdfix ${name%.dtbo}" env &&
	ext_cat armsym.img $ARM_OFF /boot/armbianEnv.txt | grep -v "^user_overlays=" >env.rest.orig &&
	grep -v "^user_overlays=" env >env.rest && test_cmp env.rest.orig env.rest &&
	ext_cat a.img $ARM_OFF /boot/overlay-user/sdfix.dtbo >sdfix.after && cmp sdfix.dtbo sdfix.after &&
	ext_cat a.img $ARM_OFF "/boot/overlay-user/$name" >new.dtbo &&
	ext_clean a.img 8192
'

test_expect_success 'Armbian: fdtoverlay applies the overlay (by label) after the owner'"'"'s, as the plan said' '
	for o in uart1 i2c0; do
		ext_cat a.img $ARM_OFF /boot/dtb/allwinner/overlay/sun50i-a64-$o.dtbo >$o.dtbo || return 1
	done &&
	fdtoverlay -i pinesym.dtb -o applied.dtb uart1.dtbo i2c0.dtbo sdfix.dtbo new.dtbo &&
	test "$(fdtget applied.dtb /soc/$MMC max-frequency)" = 50000000 &&
	fdtget applied.dtb /soc/$MMC no-1-8-v >/dev/null &&
	test "$(fdtget pinesym.dtb /soc/$MMC max-frequency)" = 150000000 &&
	test "$(fdtget -t s new.dtbo /__fixups__ mmc0)" = "/fragment@0:target:0"
'

test_expect_success 'Armbian: a second run changes nothing; undo restores every byte' '
	cp a.img a2.img &&
	imgpatch patch a2.img --dt-set "$SET" --undo a2.undo >out &&
	grep "nothing to change" out && cmp a.img a2.img &&
	imgpatch undo a.img >/dev/null && cmp armsym.img a.img
'

test_expect_success 'Armbian: where the owner'"'"'s overlays fail, a new one is refused' '
	fails armbian.img --dt-set "$SET" &&
	grep "a new overlay would not take effect: .*; fix that overlay first, or use --via file" err &&
	test $(wc -l <err) = 1
'

test_expect_success 'Armbian: deleting what an overlay sets, not the tree file, is refused' '
	fails armsym.img --dt-delete "$MMC:no-1-8-v" &&
	grep "no-1-8-v is not in the tree file but the board boots it: an overlay sets it (.*sdfix.dtbo.*)" err &&
	fails armsym.img --via file --dt-delete "$MMC:no-1-8-v"
'

test_expect_success 'Armbian: a deletion edits the tree file in place (an overlay cannot delete)' '
	cp armbian.img d.img &&
	imgpatch patch d.img --dt-delete "$MMC:max-frequency" >plan &&
	grep "^p1 (ext4) /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb: 32173 -> 32157 bytes" plan &&
	grep "^    via file: an overlay cannot delete: the tree file is edited in place" plan &&
	ext_cat d.img $ARM_OFF /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb >d.dtb &&
	test_must_fail fdtget d.dtb /soc/$MMC max-frequency &&
	cp pine.dtb want.dtb && fdtput -d want.dtb /soc/$MMC max-frequency &&
	dtc -q -I dtb -O dts want.dtb >want.dts && dtc -q -I dtb -O dts d.dtb >d.dts &&
	test_cmp want.dts d.dts &&
	ext_cat d.img $ARM_OFF /boot/armbianEnv.txt >env &&
	ext_cat armbian.img $ARM_OFF /boot/armbianEnv.txt >env.orig && test_cmp env.orig env &&
	ext_clean d.img 8192 &&
	sum=$(sum_file d.img) &&
	imgpatch patch d.img --dt-delete "$MMC:max-frequency" >again &&
	grep "unchanged (already applied)" again &&
	test_file_unchanged d.img "$sum" &&
	imgpatch undo d.img >/dev/null && cmp armbian.img d.img
'

test_expect_success 'Armbian: --via overlay with a deletion is refused, naming --via file' '
	fails armbian.img --via overlay --dt-delete "$MMC:max-frequency" &&
	grep "an overlay cannot delete a property or node: use --via file" err &&
	test $(wc -l <err) = 1 &&
	fails armbian.img --via overlay --dt-delete-node "$MMC" &&
	grep "use --via file" err
'

test_expect_success 'Armbian: --via file for a property set, --via fit refused' '
	cp armbian.img f.img &&
	imgpatch patch f.img --via file --dt-set "$SET" >plan &&
	grep "^    via file: --via file" plan &&
	ext_cat f.img $ARM_OFF /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb >f.dtb &&
	test "$(fdtget f.dtb /soc/$MMC max-frequency)" = 50000000 &&
	fails armbian.img --via fit --dt-set "$SET" &&
	grep "not a FIT: use --via overlay or file" err &&
	fails armbian.img --via override --dt-set "$SET"
'

test_expect_success 'Armbian with a boot filesystem: the overlay under the prefix /' '
	cp bootsym.img b.img &&
	imgpatch patch b.img --dt-set "$SET" >/dev/null &&
	ext_names b.img $ARM_OFF /overlay-user | grep "^imgpatch-" &&
	ext_cat b.img $ARM_OFF /armbianEnv.txt | grep "^user_overlays=sdfix imgpatch-"
'

test_expect_success 'Armbian: an --overlay file goes in as it is, named by its file' '
	cat >mine.dts <<-EOF &&
	/dts-v1/;
	/plugin/;
	/ {
		fragment@0 {
			target-path = "/soc/$MMC";
			__overlay__ { cap-sd-highspeed; };
		};
	};
	EOF
	dtc -q -I dts -O dtb -o mine.dtbo mine.dts &&
	cp armsym.img o.img &&
	imgpatch patch o.img --overlay mine.dtbo >/dev/null &&
	ext_cat o.img $ARM_OFF /boot/overlay-user/mine.dtbo >mine.got && cmp mine.dtbo mine.got &&
	ext_cat o.img $ARM_OFF /boot/armbianEnv.txt | grep -Fx "user_overlays=sdfix mine" &&
	cp o.img o2.img && imgpatch patch o2.img --overlay mine.dtbo >/dev/null && cmp o.img o2.img
'

test_expect_success 'Armbian: an overlay of that name with other bytes is not replaced' '
	mkdir -p other && cp mine.dtbo other/sdfix.dtbo &&
	fails armsym.img --overlay other/sdfix.dtbo &&
	grep "/boot/overlay-user/sdfix.dtbo: exists with other content" err
'

# ----------------------------------------------------------------- extlinux

# Debian's u-boot-update wrote this extlinux.conf: the overlay goes where it
# looks for overlays, and into /etc/default/u-boot (t0232 runs it).
test_expect_success 'extlinux: the overlay in u-boot-update'"'"'s folder, added to the booted label only' '
	cp fdtsym.img e.img &&
	imgpatch patch e.img --dt-set "$SET" --dry-run >plan && cmp fdtsym.img e.img &&
	imgpatch patch e.img --dt-set "$SET" >plan &&
	name=$(ext_names e.img $EXT_OFF /boot/dtbo | grep "^imgpatch-") &&
	ext_cat e.img $EXT_OFF /boot/extlinux/extlinux.conf >conf &&
	grep -Fx "	fdtoverlays  /boot/dtbo//sdfix.dtbo /boot/dtbo//$name" conf &&
	test $(grep -c fdtoverlays conf) = 1 &&
	ext_cat fdt.img $EXT_OFF /boot/extlinux/extlinux.conf >conf.orig &&
	diff conf.orig conf | grep "^[<>]" | wc -l >n && echo 2 >n.want && test_cmp n.want n &&
	ext_cat e.img $EXT_OFF /etc/default/u-boot >defaults &&
	grep -Fx "U_BOOT_FDT_OVERLAYS=\"sdfix.dtbo $name\"" defaults &&
	ext_cat e.img $EXT_OFF "/boot/dtbo/$name" >e.dtbo &&
	fdtoverlay -i pinesym.dtb -o e.applied sdfix.dtbo e.dtbo &&
	test "$(fdtget e.applied /soc/$MMC max-frequency)" = 50000000 &&
	ext_clean e.img 2048 &&
	cp e.img e2.img && imgpatch patch e2.img --dt-set "$SET" >/dev/null && cmp e.img e2.img &&
	imgpatch undo e.img >/dev/null && cmp fdtsym.img e.img
'

test_expect_success 'extlinux: an FDTOVERLAYS entry that fails leaves U-Boot no tree: refused' '
	fails fdt.img --dt-set "$SET" &&
	grep "a new overlay would not take effect" err
'

test_expect_success 'extlinux fdtdir: several trees need --model, which picks one' '
	fails fdtdir.img --dt-set "$SET" &&
	grep "boots 2 trees: choose one with --model (have: $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb, $dtbs/rockchip/rk3399-rockpro64.dtb)" err &&
	sum_file fdtdir.img >before.sum &&
	test_must_fail_with 2 imgpatch patch fdtdir.img --model nosuch.dtb --dt-set "$SET" 2>err &&
	sum_file fdtdir.img >after.sum && test_cmp before.sum after.sum &&
	grep "no tree for model .nosuch.dtb. (have: $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb, $dtbs/rockchip/rk3399-rockpro64.dtb)" err &&
	cp fdtdir.img x.img &&
	imgpatch patch x.img --model allwinner/sun50i-a64-pinephone-1.2.dtb --dt-set "$SET" >/dev/null &&
	name=$(ext_names x.img $EXT_OFF /boot/dtbo | grep "^imgpatch-") &&
	ext_cat x.img $EXT_OFF /boot/extlinux/extlinux.conf >conf &&
	grep -A1 -F "	fdtdir $dtbs/" conf | head -2 >two &&
	printf "\tfdtdir %s/\n\tfdtoverlays %s\n" $dtbs "/boot/dtbo/$name" >two.want &&
	test_cmp two.want two &&
	test $(grep -c fdtoverlays conf) = 1
'

test_expect_success 'extlinux: a deletion goes into the tree file' '
	cp fdt.img ed.img &&
	imgpatch patch ed.img --dt-delete "$MMC:max-frequency" >/dev/null &&
	ext_cat ed.img $EXT_OFF $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb >ed.dtb &&
	test_must_fail fdtget ed.dtb /soc/$MMC max-frequency &&
	ext_cat ed.img $EXT_OFF /boot/extlinux/extlinux.conf >conf &&
	ext_cat fdt.img $EXT_OFF /boot/extlinux/extlinux.conf >conf.orig && test_cmp conf.orig conf
'

# ------------------------------------------------------------ Raspberry Pi

test_expect_success 'Raspberry Pi: two models, --model needed' '
	fails rpi.img --dt-set "&sdio1:max-frequency=<50000000>" &&
	grep "choose one with --model (have: pi4 /bcm2711-rpi-4-b.dtb, pi5 /bcm2712-rpi-5-b.dtb)" err
'

# [pi5] would also reach the 500 and the CM5: the Pi 5 alone is board type
# 0x17 (Raspberry Pi's revision codes).
test_expect_success 'Raspberry Pi: overlays/NAME.dtbo by label, dtoverlay=NAME under [board-type=0x17], then [all]' '
	cp rpi.img r.img &&
	imgpatch patch r.img --model pi5 --dt-set "&sdio1:max-frequency=<50000000>" >plan &&
	grep "^    via overlay:" plan &&
	grep -Fx "    under [board-type=0x17]" plan &&
	m="r.img@@$RPI_OFF" &&
	mtype -i "$m" ::config.txt >config &&
	name=$(sed -n "s/^dtoverlay=\(imgpatch-.*\)\$/\1/p" config) && test -n "$name" &&
	tail -n 3 config >tail &&
	printf "[board-type=0x17]\ndtoverlay=%s\n[all]\n" "$name" >tail.want && test_cmp tail.want tail &&
	mtype -i "rpi.img@@$RPI_OFF" ::config.txt >config.orig &&
	head -n -3 config >config.head && test_cmp config.orig config.head &&
	mcopy -n -i "$m" "::overlays/$name.dtbo" r.dtbo &&
	test "$(fdtget -t s r.dtbo /__fixups__ sdio1)" = "/fragment@0:target:0" &&
	mcopy -n -i "$m" ::bcm2712-rpi-5-b.dtb pi5.dtb &&
	fdtoverlay -i pi5.dtb -o r.applied r.dtbo &&
	test "$(fdtget r.applied /soc@107c000000/mmc@7fff000 max-frequency)" = 50000000 &&
	rpi_clean r.img &&
	cp r.img r2.img && imgpatch patch r2.img --model pi5 --dt-set "&sdio1:max-frequency=<50000000>" >/dev/null &&
	cmp r.img r2.img &&
	imgpatch undo r.img >/dev/null && cmp rpi.img r.img
'

test_expect_success 'Raspberry Pi: a deletion edits that model tree on the FAT' '
	cp rpi.img rd.img &&
	imgpatch patch rd.img --model bcm2711-rpi-4-b.dtb --dt-delete "mmc@7e340000:broken-cd" >plan &&
	grep "^p1 (vfat) /bcm2711-rpi-4-b.dtb: " plan &&
	mcopy -n -i "rd.img@@$RPI_OFF" ::bcm2711-rpi-4-b.dtb rd.dtb &&
	test_must_fail fdtget rd.dtb /emmc2bus/mmc@7e340000 broken-cd &&
	mcopy -n -i "rd.img@@$RPI_OFF" ::bcm2712-rpi-5-b.dtb pi5.after && cmp pi5.dtb pi5.after &&
	rpi_clean rd.img &&
	cp rd.img rd2.img && imgpatch patch rd2.img --model pi4 --dt-delete "mmc@7e340000:broken-cd" >/dev/null &&
	cmp rd.img rd2.img &&
	imgpatch undo rd.img >/dev/null && cmp rpi.img rd.img
'

# ---------------------------------------------------------------- refusals

test_expect_success 'postmarketOS: the tree the script loads is edited in place; user.scr is no list' '
	cp pmos.img pm.img &&
	imgpatch patch pm.img --dt-set "$SET" >plan &&
	grep "^    via file: the boot path names one tree file and no overlay list" plan &&
	extract_part pm.img 1 pm.ext2 &&
	debugfs -R "cat /sun50i-a64-pinephone-1.2.dtb" pm.ext2 2>/dev/null >pm.dtb &&
	test "$(fdtget pm.dtb /soc/$MMC max-frequency)" = 50000000 &&
	e2fsck -fn pm.ext2 >/dev/null 2>&1 &&
	cp pm.img pm2.img && imgpatch patch pm2.img --dt-set "$SET" >/dev/null && cmp pm.img pm2.img &&
	imgpatch undo pm.img >/dev/null && cmp pmos.img pm.img &&
	fails pmos.img --via overlay --dt-set "$SET" &&
	grep "applies no list of overlays imgpatch can add to (its hook is one script" err
'

test_expect_success 'a FIT image: --via overlay and --via file are refused, naming override and fit' '
	make_kv260 kv.img &&
	fails kv.img --via overlay --dt-delete mmc@ff170000:no-1-8-v &&
	grep "the tree is a FIT.s (/image.fit): use --via override or fit" err &&
	fails kv.img --via file --dt-set "mmc@ff170000:max-frequency=<50000000>" &&
	fails kv.img --model pi4 --dt-delete mmc@ff170000:no-1-8-v &&
	grep "^imgpatch: kv.img: --model: the tree is a FIT.s (/image.fit): pick it with --fdt$" err
'

# A recipe's FIT tree goes through the same choice as patch's: the same
# refusal, before the tree is loaded, and not one byte written.
test_expect_success 'a FIT recipe: apply --via overlay and --via file are refused as patch refuses them' '
	sum_file kv.img >before.sum &&
	for way in overlay file; do
		test_must_fail_with 1 imgpatch apply --via $way kv260-uhs kv.img \
			--set carrier=revB --set board=kv 2>err &&
		grep "^imgpatch: kv.img: step 1 (fdt-from-fit): --via $way: the tree is a FIT.s (/image.fit): use --via override or fit$" err ||
			return 1
	done &&
	sum_file kv.img >after.sum && test_cmp before.sum after.sum
'

test_expect_success 'usage: --model with --fdt, --dtb-out with --via overlay, an unknown way' '
	test_must_fail_with 2 imgpatch patch rpi.img --model pi4 --fdt x --dt-set "a:b=1" &&
	test_must_fail_with 2 imgpatch patch rpi.img --via overlay --dtb-out /x.dtb --dt-set "a:b=1" &&
	test_must_fail_with 2 imgpatch patch rpi.img --via nowhere --dt-set "a:b=1"
'

test_done
