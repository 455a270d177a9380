#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Debian extlinux fdtdir with as many trees as its arm64 kernel: no cap, U-Boot'"'"'s tree by default'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs e2fsck dtc fdtget fdtoverlay dpkg-deb
test_require_debs u-boot-rockchip

export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"
# Debian 12's linux-image-6.1.0-*-arm64 installs about this many trees.
TREES=576
K=/usr/lib/linux-image-6.1.0-13-arm64

test_expect_success 'build: u-boot-update'"'"'s fdtdir over '"$TREES"' trees, Debian'"'"'s u-boot-rockchip at its sectors' '
	"$FIXTURES/mkimage-extlinux.sh" many.img --trees=$TREES --uboot="$PWD/deb/u-boot-rockchip" &&
	extract_part many.img 1 p1.ext4 &&
	debugfs -R "rdump $K ." p1.ext4 >/dev/null 2>&1 &&
	find linux-image-6.1.0-13-arm64 -name "*.dtb" | wc -l >count &&
	test "$(cat count)" = $TREES &&
	cp many.img many.orig
'

test_expect_success 'info: one line for the trees and the tree the image'"'"'s U-Boot picks; --json lists every tree' '
	imgpatch info many.img >info &&
	grep "^boot path: extlinux /boot/extlinux/extlinux.conf, label l0, fdtdir $K/ + \${fdtfile}, overlays: none; the image'"'"'s U-Boot: fdtfile rockchip/rk3399-rockpro64.dtb (p1)$" info &&
	grep -Fx "  trees: $TREES, U-Boot picks one by its fdtfile: the image'"'"'s U-Boot picks the tree below; imgpatch info many.img --model TREE for another, --json lists them all" info &&
	grep "^  tree: " info >trees &&
	echo "  tree: $K/rockchip/rk3399-rockpro64.dtb" >expect &&
	test_cmp expect trees &&
	grep "^effective tree " info >eff &&
	test "$(wc -l <eff)" = 1 &&
	grep -q "^effective tree $K/rockchip/rk3399-rockpro64.dtb: " eff &&
	test "$(wc -l <info)" -lt 40 &&
	imgpatch info --json many.img >info.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/info.schema.json" info.json &&
	python3 - "$K" <<-\EOF
	import json, os, sys
	bp = json.load(open("info.json"))["boot_path"]
	got = sorted(t["path"] for t in bp["trees"])
	want = sorted(os.path.join(sys.argv[1], os.path.relpath(os.path.join(d, f), "linux-image-6.1.0-13-arm64"))
	              for d, _, fs in os.walk("linux-image-6.1.0-13-arm64") for f in fs if f.endswith(".dtb"))
	assert got == want, (len(got), len(want))
	assert bp["tree_count"] == len(want) and bp["chooser"] == "fdtfile", bp["tree_count"]
	EOF
'

test_expect_success 'info --model: that tree alone, its controllers as dtc reads them, in JSON as in the full list' '
	imgpatch info many.img --model rockchip/rk3399-rockpro64.dtb >m.info &&
	grep "^  tree: " m.info >trees &&
	echo "  tree: $K/rockchip/rk3399-rockpro64.dtb" >expect &&
	test_cmp expect trees &&
	! grep -q "^  trees: " m.info &&
	grep "^  /mmc@" m.info | cut -d" " -f3 | sort >paths &&
	dtc -q -I dtb -O dts linux-image-6.1.0-13-arm64/rockchip/rk3399-rockpro64.dtb |
		sed -n "s/^\t\(mmc@[0-9a-f]*\) {$/\/\1/p" | sort >want &&
	test_cmp want paths &&
	imgpatch info --json many.img --model rk3399-rockpro64.dtb >m.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/info.schema.json" m.json &&
	python3 - "$K" <<-\EOF
	import json, sys
	bp = json.load(open("m.json"))["boot_path"]
	assert [t["path"] for t in bp["trees"]] == [sys.argv[1] + "/rockchip/rk3399-rockpro64.dtb"], bp["trees"]
	assert bp["trees"][0]["booted"] == bp["trees"][0]["path"], bp["trees"][0]
	a = json.load(open("info.json"))["boot_path"]["trees"]
	assert [t for t in a if t["path"] == bp["trees"][0]["path"]] == bp["trees"]
	EOF
'

test_expect_success 'info --model naming no tree: one line, exit 2, image unchanged' '
	cp many.orig m2.img &&
	test_refuses_usage m2.img "no such tree" imgpatch info m2.img --model rk3399-nope.dtb &&
	echo "imgpatch: m2.img: --model '"'"'rk3399-nope.dtb'"'"': no such tree among the $TREES the boot path offers (imgpatch info --json lists them)" >expect &&
	test_cmp expect err
'

test_expect_success 'cat --dtb: without --model U-Boot'"'"'s tree; with it, any of them' '
	imgpatch cat many.img --dtb >default.dts &&
	grep -q "^// boot path extlinux: $K/rockchip/rk3399-rockpro64.dtb" default.dts &&
	dtc -q -I dtb -O dts linux-image-6.1.0-13-arm64/rockchip/rk3399-rockpro64.dtb >rp.dts &&
	grep -v "^//" default.dts >a && test_cmp rp.dts a &&
	last=$(ls linux-image-6.1.0-13-arm64/*/*.dtb | tail -n 1) &&
	imgpatch cat many.img --dtb --model "${last#linux-image-6.1.0-13-arm64/}" >last.dts &&
	dtc -q -I dtb -O dts "$last" >want.dts &&
	grep -v "^//" last.dts >b && test_cmp want.dts b
'

test_expect_success 'doctor: only the tree the image'"'"'s U-Boot picks, its recipe named with the exact command' '
	imgpatch doctor many.img >doc &&
	head -n 1 doc >first &&
	echo "tree judged: $K/rockchip/rk3399-rockpro64.dtb, picked by the image'"'"'s U-Boot (its default environment'"'"'s fdtfile), of the $TREES the boot path offers" >expect &&
	test_cmp expect first &&
	grep "^         tree:" doc | sort -u >trees &&
	echo "         tree:  boot path extlinux: $K/rockchip/rk3399-rockpro64.dtb" >expect &&
	test_cmp expect trees &&
	grep -A6 "^warning  uhs-modes-missing:" doc | grep -Fx "                imgpatch apply rockpro64-sd-uhs many.img" &&
	imgpatch doctor --json many.img >doc.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/doctor.schema.json" doc.json &&
	python3 - <<-\EOF
	import json
	f = [x for x in json.load(open("doc.json"))["findings"] if x["id"] == "uhs-modes-missing"]
	assert len(f) == 1 and f[0]["fix"]["recipe"] == "rockpro64-sd-uhs", f
	assert f[0]["fix"]["apply"] == "imgpatch apply rockpro64-sd-uhs many.img", f
	EOF
'

test_expect_success 'doctor without U-Boot in the image: which variable chooses, one line per tree' '
	cp many.img nouboot.img &&
	dd if=/dev/zero of=nouboot.img bs=512 seek=64 count=32000 conv=notrunc status=none &&
	imgpatch info nouboot.img >info2 && ! grep "^boot loader:" info2 &&
	grep -Fx "  trees: $TREES, U-Boot picks one by its fdtfile, and the image does not say which (no U-Boot before its first partition names one); imgpatch info nouboot.img --model TREE for one, --json lists them all" info2 &&
	! grep -q "^  tree: " info2 && ! grep -q "^effective tree " info2 &&
	imgpatch doctor nouboot.img >doc2 &&
	grep -Fx "$TREES trees: U-Boot picks one by its fdtfile, and the image does not say which (no U-Boot before its first partition names one); findings by tree (imgpatch doctor nouboot.img --model TREE for one in full):" doc2 &&
	imgpatch doctor --json nouboot.img >doc2.json &&
	python3 -c "import json; print(len({f[\"evidence\"][\"tree\"] for f in json.load(open(\"doc2.json\"))[\"findings\"] if f[\"evidence\"][\"tree\"]}))" >ntrees &&
	test "$(grep -c "^  $K/" doc2)" = "$(cat ntrees)" &&
	grep -Fx "  $K/rockchip/rk3399-rockpro64.dtb: uhs-modes-missing (warning)" doc2 &&
	! grep -q "^warning  uhs-modes-missing" doc2 &&
	test "$(wc -l <doc2)" -lt 1000
'

test_expect_success 'doctor --model: that tree alone, as U-Boot'"'"'s pick gave it' '
	imgpatch doctor --json nouboot.img --model rockchip/rk3399-rockpro64.dtb >m.json &&
	python3 - <<-\EOF
	import json
	a = json.load(open("m.json"))["findings"]
	b = json.load(open("doc.json"))["findings"]
	strip = lambda fs: [json.dumps(f, sort_keys=True).replace("nouboot.img", "many.img") for f in fs]
	assert strip(a) == strip(b), (a, b)
	EOF
'

test_expect_success 'doctor --model naming no tree: one line, exit 2 (what was typed), image unchanged' '
	test_refuses_usage nouboot.img "no such tree" imgpatch doctor nouboot.img --model rk3399-nope.dtb &&
	echo "imgpatch: nouboot.img: --model '"'"'rk3399-nope.dtb'"'"': no such tree among the $TREES the boot path offers (imgpatch info --json lists them)" >expect &&
	test_cmp expect err
'

test_expect_success 'patch and cat without U-Boot or --model: refused in one line of a dozen names, image unchanged' '
	test_refuses nouboot.img "boots $TREES trees: choose one with --model" \
		imgpatch patch nouboot.img --dt-set mmc@fe320000:sd-uhs-sdr50= &&
	test "$(wc -l <err)" = 1 &&
	grep -q ", \.\.\. $TREES in all: imgpatch info --json lists them)$" err &&
	test "$(grep -o "\.dtb" err | wc -l)" = 12 &&
	test_must_fail_with 1 imgpatch cat nouboot.img --dtb >out 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^imgpatch: nouboot.img: $TREES trees (.*, \.\.\. $TREES in all: imgpatch info --json lists them): name one$" err
'

test_expect_success 'apply rockpro64-sd-uhs with no parameter: the overlay where u-boot-update looks, in fdtoverlays' '
	imgpatch apply rockpro64-sd-uhs many.img >out &&
	extract_part many.img 1 p1.ext4 &&
	e2fsck -fn p1.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /boot/extlinux/extlinux.conf" p1.ext4 2>/dev/null >conf &&
	grep -Fx "	fdtoverlays /boot/dtbo/rockpro64-sd-uhs.dtbo" conf &&
	debugfs -R "cat /etc/default/u-boot" p1.ext4 2>/dev/null >defaults &&
	grep -Fx "U_BOOT_FDT_OVERLAYS=\"rockpro64-sd-uhs.dtbo\"" defaults &&
	debugfs -R "cat /boot/dtbo/rockpro64-sd-uhs.dtbo" p1.ext4 2>/dev/null >uhs.dtbo &&
	fdtoverlay -i linux-image-6.1.0-13-arm64/rockchip/rk3399-rockpro64.dtb -o applied.dtb uhs.dtbo &&
	for p in sd-uhs-sdr12 sd-uhs-sdr25 sd-uhs-sdr50 sd-uhs-sdr104 sd-uhs-ddr50; do
		fdtget applied.dtb /mmc@fe320000 $p >/dev/null || return 1
	done
'

test_done
