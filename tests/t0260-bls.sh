#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='boot path bls: Boot Loader Specification entries (a Fedora aarch64 layout): the default entry by systemd-boot'"'"'s order and loader.conf, its devicetree with its overlays as the effective tree, --via overlay and --via file, --cmdline on its options; every write read back with debugfs and fdtget'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mcopy debugfs e2fsck dtc fdtget fdtoverlay

MID=4f3c1a2b5d6e7f8091a2b3c4d5e6f708
NEW=6.8.9-300.fc40.aarch64
OLD=6.8.5-301.fc40.aarch64
ENTRY=/loader/entries/$MID-$NEW.conf
TREE=/dtb-$NEW/rockchip/rk3399-rockpro64.dtb
MMC=/mmc@fe320000

# boot IMG: partition 2 (/boot) of IMG extracted to IMG.p2, checked by e2fsck -fn.
boot()
{
	local -; set +x
	extract_part "$1" 2 "$1.p2" && e2fsck -fn "$1.p2" >/dev/null 2>&1
}

. "$FIXTURES/lib-fixture.sh"

test_expect_success 'build the images' '
	"$FIXTURES/mkimage-fedora-bls.sh" plain.img &&
	"$FIXTURES/mkimage-fedora-bls.sh" dt.img --devicetree &&
	"$FIXTURES/mkimage-fedora-bls.sh" ovl.img --overlay &&
	"$FIXTURES/mkimage-fedora-bls.sh" old.img --devicetree --default="*-$OLD.conf" &&
	"$FIXTURES/mkimage-fedora-bls.sh" none.img --devicetree --default="nomatch*"
'

test_expect_success 'info: the newest entry is the default, on p2; with no devicetree no tree' '
	imgpatch info plain.img >info &&
	grep "^boot path: Boot Loader Specification entry $ENTRY (the first of 3 in systemd-boot'"'"'s order), devicetree (none: the firmware'"'"'s own), overlays: none (p2)" info &&
	grep "^  updates: kernel-install writes a new entry" info &&
	test_must_fail imgpatch cat plain.img --dtb 2>err &&
	grep "names no tree" err
'

test_expect_success 'info --json: boot path bls with its tree and overlay' '
	imgpatch info ovl.img --json >info.json &&
	python3 -c "
import json, sys
b = json.load(open(\"info.json\"))[\"boot_path\"]
assert b[\"name\"] == \"bls\", b
assert \"$TREE\" in json.dumps(b), b
assert \"/overlays/sdfix.dtbo\" in json.dumps(b), b
"
'

test_expect_success 'loader.conf default glob picks the older entry; one matching none leaves the first' '
	imgpatch info old.img >info.old &&
	grep "^boot path: Boot Loader Specification entry /loader/entries/$MID-$OLD.conf (loader.conf default \*-$OLD.conf)" info.old &&
	imgpatch cat old.img --cmdline >c.old &&
	grep "^# p2 (ext4): /loader/entries/$MID-$OLD.conf, entry" c.old &&
	imgpatch info none.img >info.none &&
	grep "(loader.conf default nomatch\* matches none: the first)" info.none
'

test_expect_success 'cat --dtb: the entry'"'"'s tree with its devicetree-overlay applied (as fdtoverlay applies it)' '
	boot ovl.img &&
	debugfs -R "dump $TREE base.dtb" ovl.img.p2 >/dev/null 2>&1 &&
	debugfs -R "dump /overlays/sdfix.dtbo sdfix.dtbo" ovl.img.p2 >/dev/null 2>&1 &&
	fdtoverlay -i base.dtb -o want.dtb sdfix.dtbo &&
	dtc -q -I dtb -O dts want.dtb >want.dts &&
	imgpatch cat ovl.img --dtb >got &&
	head -1 got | grep "^// boot path bls: $TREE + /overlays/sdfix.dtbo" &&
	tail -n +2 got >got.dts &&
	test_cmp want.dts got.dts
'

test_expect_success 'patch (default: overlay): a new .dtbo beside the tree, appended to the entry'"'"'s devicetree-overlay line' '
	cp ovl.img ovl-p.img &&
	imgpatch patch ovl-p.img --dt-set "$MMC:max-frequency=<50000000>" >plan &&
	grep "via overlay: the boot path applies a list of overlays" plan &&
	boot ovl-p.img &&
	ext_cat ovl-p.img.p2 "$ENTRY" >entry &&
	grep -c "^devicetree-overlay " entry >n && test "$(cat n)" = 1 &&
	new=$(sed -n "s|^devicetree-overlay /overlays/sdfix.dtbo \(/dtb-$NEW/rockchip/imgpatch-[0-9a-f]*\.dtbo\)$|\1|p" entry) &&
	test -n "$new" &&
	debugfs -R "dump $new new.dtbo" ovl-p.img.p2 >/dev/null 2>&1 &&
	fdtoverlay -i base.dtb -o eff.dtb sdfix.dtbo new.dtbo &&
	test "$(fdtget eff.dtb $MMC max-frequency)" = 50000000 &&
	fdtget eff.dtb $MMC no-1-8-v >/dev/null &&
	imgpatch patch ovl-p.img --dt-set "$MMC:max-frequency=<50000000>" >plan2 &&
	grep "nothing to change" plan2
'

test_expect_success 'an entry without devicetree-overlay gets the line after devicetree' '
	cp dt.img dt-p.img &&
	imgpatch patch dt-p.img --dt-set "$MMC:max-frequency=<50000000>" >plan &&
	boot dt-p.img &&
	ext_cat dt-p.img.p2 "$ENTRY" >entry &&
	sed -n "/^devicetree /{n;p}" entry | grep "^devicetree-overlay /dtb-$NEW/rockchip/imgpatch-[0-9a-f]*\.dtbo$"
'

test_expect_success 'patch --via file: the tree file edited in place, the entry untouched' '
	cp ovl.img ovl-f.img &&
	boot ovl-f.img && ext_cat ovl-f.img.p2 "$ENTRY" >entry.before &&
	imgpatch patch ovl-f.img --via file --dt-delete "$MMC:max-frequency" >plan &&
	boot ovl-f.img && ext_cat ovl-f.img.p2 "$ENTRY" >entry.after &&
	test_cmp entry.before entry.after &&
	debugfs -R "dump $TREE edited.dtb" ovl-f.img.p2 >/dev/null 2>&1 &&
	test_must_fail fdtget edited.dtb $MMC max-frequency 2>/dev/null &&
	fdtget edited.dtb $MMC compatible >/dev/null
'

test_expect_success '--cmdline edits the options line of the default entry, the rest kept' '
	cp ovl.img ovl-c.img &&
	imgpatch patch ovl-c.img --cmdline +console=ttyS2,1500000 --cmdline -rhgb >plan &&
	boot ovl-c.img && ext_cat ovl-c.img.p2 "$ENTRY" >entry &&
	grep -x "options root=UUID=f3d0b007-0000-4000-8000-000000000003 ro quiet console=ttyS2,1500000" entry &&
	boot ovl.img && ext_cat ovl.img.p2 "$ENTRY" >entry.orig &&
	grep -v "^options " entry.orig >a && grep -v "^options " entry >b && test_cmp a b &&
	ext_cat ovl-c.img.p2 "/loader/entries/$MID-$OLD.conf" | grep -x "options root=UUID=f3d0b007-0000-4000-8000-000000000003 ro rhgb quiet" &&
	imgpatch cat ovl-c.img --cmdline | tail -1 >line &&
	echo "root=UUID=f3d0b007-0000-4000-8000-000000000003 ro quiet console=ttyS2,1500000" >want &&
	test_cmp want line
'

test_expect_success 'refusals leave the image byte-identical: --via overlay with a deletion, no tree' '
	test_refuses ovl.img "an overlay cannot delete" imgpatch patch ovl.img --via overlay --dt-delete "$MMC:max-frequency" &&
	test_refuses plain.img "names no tree" imgpatch patch plain.img --dt-set "$MMC:max-frequency=<50000000>"
'

test_expect_success 'doctor: the entry'"'"'s devicetree-overlay is not durable (kernel-install'"'"'s next entry drops it)' '
	imgpatch doctor ovl.img >doc || test $? = 3 || true &&
	grep "overlay-not-durable: /overlays/sdfix.dtbo, listed by boot path bls" doc
'

test_done
