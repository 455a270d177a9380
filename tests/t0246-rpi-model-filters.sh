#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi: [board-type=N] read as the firmware reads it; a change for one model reaches no other, and every edit of config.txt ends it in [all]'
. "$(dirname "$0")/lib.sh"

test_require_tools dtc fdtget fdtoverlay mcopy mtype mdel fsck.fat

OFF=$((8192 * 512))

# Board types are those of Raspberry Pi's revision codes
# (raspberrypi/documentation, documentation/asciidoc/computers/raspberry-pi/
# revision-codes.adoc, commit 0456a78c93ba57be2d9e95733df961069925555b):
# 0x08 3B, 0x11 4B, 0x13 400, 0x14 CM4, 0x17 5. Its config.txt page
# (config_txt/conditional.adoc, commit
# 010d81518516e7f57418a6b2ecc6da6aced1b940) lists [board-type=Type] among
# the model filters, [pi4] for the 4B, 400, CM4 and CM4S, and says a
# [board-type=0x11] filter maps one to one to a product.
#
# Each tree is the reduced Raspberry Pi 4 tree under the board's name:
# which lines reach a tree depends on its name only.
TREES="bcm2711-rpi-400 bcm2711-rpi-cm4 bcm2711-rpi-cm4s bcm2710-rpi-3-b bcm2710-rpi-3-b-plus"
OTHERS="pi400 cm4 cm4s pi3 pi3+"
SET="mmc@7e340000:max-frequency=<150000000>"

config() { mtype -i "$1@@$OFF" ::config.txt | tr -d "\r"; }

# effective IMG MODEL OUT: imgpatch's effective tree of MODEL as DTS.
effective()
{
	$IMGPATCH cat "$1" --dtb --model "$2" >"$3" 2>"$3.err"
}

test_expect_success 'build: pi-gen'"'"'s config.txt, the Pi 4 tree and four other models'"'"'' '
	"$FIXTURES/mkimage-rpi.sh" base.img --rpi-trees &&
	mcopy -n -i "base.img@@$OFF" ::bcm2711-rpi-4-b.dtb pi4.dtb &&
	mdel -i "base.img@@$OFF" ::bcm2712-rpi-5-b.dtb &&
	for t in $TREES; do
		cp pi4.dtb "$t.dtb" && mcopy -i "base.img@@$OFF" "$t.dtb" ::/ || return 1
	done &&
	config base.img >config.orig &&
	test "$(tail -n 1 config.orig)" = "[all]"
'

test_expect_success 'reading: [board-type=0x11] reaches the Pi 4 B alone, [pi4] the 400 and CM4 too' '
	cp base.img read.img &&
	cat config.orig >config.txt &&
	printf "dtoverlay=\n[board-type=0x11]\ndtparam=sd_poll_once\n[pi4]\ndtparam=audio=off\n[board-type=0x13]\ndtparam=i2c_arm=on\n[all]\n" >>config.txt &&
	mcopy -o -i "read.img@@$OFF" config.txt ::/ &&
	$IMGPATCH info read.img >info.txt 2>err &&
	test ! -s err &&
	grep -F "tree: /bcm2711-rpi-4-b.dtb + " info.txt | grep -F "+ dtparam=sd_poll_once + dtparam=audio=off (model pi4)" &&
	grep -F "tree: /bcm2711-rpi-400.dtb + " info.txt | grep -F "+ dtparam=audio=off + dtparam=i2c_arm=on (model pi400)" &&
	grep -F "tree: /bcm2711-rpi-cm4.dtb + " info.txt | grep "/vc4-kms-v3d.dtbo + dtparam=audio=off\$" &&
	grep -F "tree: /bcm2710-rpi-3-b.dtb + " info.txt >pi3.line &&
	! grep -e sd_poll_once -e audio=off -e i2c_arm pi3.line &&
	effective read.img pi4 pi4.dts && dtc -q -I dts -O dtb -o pi4.eff pi4.dts &&
	fdtget pi4.eff /emmc2bus/mmc@7e340000 non-removable &&
	effective read.img pi400 pi400.dts && dtc -q -I dts -O dtb -o pi400.eff pi400.dts &&
	test_must_fail fdtget pi400.eff /emmc2bus/mmc@7e340000 non-removable
'

test_expect_success 'reading: a board type no board has matches none, with a warning' '
	cat config.orig >config.txt &&
	printf "[board-type=a02082]\ndtparam=sd_poll_once\n[all]\n" >>config.txt &&
	mcopy -o -i "read.img@@$OFF" config.txt ::/ &&
	$IMGPATCH info read.img >info.txt 2>err &&
	grep -Fx "imgpatch: warning: read.img: p1 (vfat): /config.txt: [board-type=a02082]: no board type of Raspberry Pi'"'"'s revision codes (0x00..0x1b): no board takes the lines under it" err &&
	test $(wc -l <err) = 1 &&
	! grep sd_poll_once info.txt
'

test_expect_success 'before: every model'"'"'s effective tree' '
	for m in pi4 $OTHERS; do
		effective base.img $m "before.$m" || return 1
	done
'

test_expect_success 'patch --model pi4: dtoverlay= under [board-type=0x11], then [all]' '
	cp base.img p.img &&
	$IMGPATCH patch p.img --model pi4 --dt-set "$SET" >plan &&
	grep -Fx "    under [board-type=0x11]" plan &&
	config p.img >config.p &&
	name=$(sed -n "s/^dtoverlay=\(imgpatch-.*\)\$/\1/p" config.p) && test -n "$name" &&
	{ cat config.orig; printf "[board-type=0x11]\ndtoverlay=%s\n[all]\n" "$name"; } >config.want &&
	test_cmp config.want config.p &&
	mcopy -n -i "p.img@@$OFF" "::overlays/$name.dtbo" new.dtbo &&
	fdtoverlay -i pi4.dtb -o applied.dtb new.dtbo &&
	test "$(fdtget applied.dtb /emmc2bus/mmc@7e340000 max-frequency)" = 150000000 &&
	extract_part p.img 1 p.fat && fsck.fat -n p.fat >/dev/null
'

test_expect_success 'the Pi 4 B'"'"'s effective tree has the change; the 400'"'"'s, CM4'"'"'s, CM4S'"'"'s and Pi 3'"'"'s are byte-identical' '
	effective p.img pi4 after.pi4 &&
	! cmp -s before.pi4 after.pi4 &&
	dtc -q -I dts -O dtb -o after-pi4.dtb after.pi4 &&
	test "$(fdtget after-pi4.dtb /emmc2bus/mmc@7e340000 max-frequency)" = 150000000 &&
	for m in $OTHERS; do
		effective p.img $m "after.$m" && cmp "before.$m" "after.$m" || return 1
	done
'

test_expect_success 'again: nothing changes' '
	sum=$(sum_file p.img) &&
	rm -f p.img.imgpatch-undo &&
	$IMGPATCH patch p.img --model pi4 --dt-set "$SET" >plan2 &&
	test_file_unchanged p.img "$sum"
'

test_expect_success 'patch --model pi400 and cm4: their own named filters, the file again ends in [all]' '
	rm -f p.img.imgpatch-undo &&
	$IMGPATCH patch p.img --model pi400 --dt-set "$SET" >/dev/null &&
	rm -f p.img.imgpatch-undo &&
	$IMGPATCH patch p.img --model cm4 --dt-set "$SET" >/dev/null &&
	config p.img >config.p2 &&
	grep -c "^\[pi400\]\$" config.p2 | grep -x 1 &&
	grep -A1 -x "\[cm4\]" config.p2 | grep -x "dtoverlay=imgpatch-.*" &&
	test "$(tail -n 1 config.p2)" = "[all]" &&
	effective p.img pi3 after2.pi3 && cmp before.pi3 after2.pi3 &&
	effective p.img cm4s after2.cm4s && cmp before.cm4s after2.cm4s
'

test_expect_success 'patch --model pi3+: the 3B+ and 3A+ share a tree, a filter each' '
	cp base.img plus.img &&
	$IMGPATCH patch plus.img --model pi3+ --dt-set "$SET" >/dev/null &&
	config plus.img >config.plus &&
	name=$(sed -n "s/^dtoverlay=\(imgpatch-.*\)\$/\1/p" config.plus | head -n 1) &&
	{ cat config.orig; printf "[board-type=0x0d]\ndtoverlay=%s\n[board-type=0x0e]\ndtoverlay=%s\n[all]\n" "$name" "$name"; } >plus.want &&
	test_cmp plus.want config.plus &&
	effective plus.img pi3 plus.pi3 && cmp before.pi3 plus.pi3
'

test_expect_success 'a file that ends under a filter: [all] before the new header and after it' '
	cp base.img open.img &&
	{ cat config.orig; printf "[EDID=DEL-DELL_U2422H]\nhdmi_group=2\n"; } >config.txt &&
	mcopy -o -i "open.img@@$OFF" config.txt ::/ &&
	$IMGPATCH patch open.img --model pi4 --dt-set "$SET" >/dev/null &&
	config open.img >config.open &&
	name=$(sed -n "s/^dtoverlay=\(imgpatch-.*\)\$/\1/p" config.open) &&
	{ cat config.txt; printf "[all]\n[board-type=0x11]\ndtoverlay=%s\n[all]\n" "$name"; } >open.want &&
	test_cmp open.want config.open
'

test_expect_success 'every recipe edit of config.txt ends the file in [all]' '
	cp base.img r.img &&
	$IMGPATCH apply rpi-sd-overclock r.img --set model=pi3 --set sd_overclock=100 >/dev/null &&
	config r.img >config.r1 && test "$(tail -n 1 config.r1)" = "[all]" &&
	grep -A1 -x "\[pi3\]" config.r1 | grep -x "dtparam=sd_overclock=100" &&
	rm -f r.img.imgpatch-undo &&
	cp "$FIXTURES/../dtb/bcm2711-rpi-4-b.dtb" bcm2712-rpi-5-b.dtb &&
	mcopy -i "r.img@@$OFF" bcm2712-rpi-5-b.dtb ::/ &&
	$IMGPATCH apply rpi5-sd-cqe r.img --set sd_cqe=on >/dev/null &&
	config r.img >config.r2 && test "$(tail -n 1 config.r2)" = "[all]" &&
	grep -A1 -x "\[pi5\]" config.r2 | grep -x "dtparam=sd_cqe=on" &&
	effective r.img pi4 r.pi4 && cmp before.pi4 r.pi4
'

test_expect_success 'refused, image unchanged: a tree no filter singles out, through an overlay' '
	cp base.img cm2.img &&
	mdel -i "cm2.img@@$OFF" ::bcm2711-rpi-4-b.dtb &&
	for t in $TREES; do mdel -i "cm2.img@@$OFF" "::$t.dtb" || return 1; done &&
	cp pi4.dtb bcm2709-rpi-cm2.dtb && mcopy -i "cm2.img@@$OFF" bcm2709-rpi-cm2.dtb ::/ &&
	test_refuses cm2.img "^imgpatch: cm2.img: --via overlay: /bcm2709-rpi-cm2.dtb: no config.txt filter holds for the boards of this tree alone: use --via file\$" \
		$IMGPATCH patch cm2.img --dt-set "$SET" &&
	$IMGPATCH patch cm2.img --via file --dt-set "$SET" >/dev/null &&
	config cm2.img >config.cm2 && test_cmp config.orig config.cm2
'

test_done
