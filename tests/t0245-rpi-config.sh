#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi: config.txt read as the firmware reads it: the documented model filters per tree, [none], [tryboot], other filters combined, include (Ubuntu for Raspberry Pi'"'"'s files in tests/fixtures/ubuntu-rpi)'
. "$(dirname "$0")/lib.sh"

test_require_tools dtc fdtget mcopy mtype mdel mkfs.vfat fsck.fat mkimage

UBUNTU=$FIXTURES/ubuntu-rpi
OFF=$((8192 * 512))

# What each filter covers is Raspberry Pi's documented table (repository
# raspberrypi/documentation, documentation/asciidoc/computers/config_txt/
# conditional.adoc, "Model Filters", at commit
# 010d81518516e7f57418a6b2ecc6da6aced1b940; the rows of [pi5], [pi500],
# [cm0], [cm1], [cm3], [cm3+] and [cm5] from its later versions): [pi0]
# Zero, Zero W, Zero 2 W; [pi0w] Zero W, and the Zero 2 W, which also sees
# [pi0w]; [cm0] the CM0, which also sees [pi02]; [pi1] 1A/1B/1A+/1B+ and CM1,
# not the Zeros; [pi2] the 2B, BCM2836 or BCM2837 (bcm2710-rpi-2-b.dtb);
# [pi3] 3B, 3B+, 3A+, CM3, CM3+; [pi3+] 3B+, 3A+, and the CM3+, which also
# sees it; [pi4] 4B, 400, CM4, CM4S; [pi5] 5, 500, CM5; [pi400], [pi500],
# [cm1], [cm3], [cm3+], [cm4], [cm4s], [cm5] each their board only. Its
# page on config.txt (what_is_config_txt.adoc, commit
# 0ff39f5198129cd41d35c5ae8baa3cc3ab8dfa22) says "include" inserts the
# file's content at that point. The tree names are those of the firmware's
# boot/ folder (raspberrypi/firmware) and the upstream ones of
# raspberrypi/linux arch/arm/boot/dts/broadcom/Makefile (commit
# 1e71c0c0e8aeda093a7c7a951a50060c4b5ee615).
#
# Every tree here is the reduced Raspberry Pi 4 tree under the board's
# name: which lines reach a tree depends on its name only.
TREES="bcm2708-rpi-zero bcm2708-rpi-zero-w bcm2710-rpi-zero-2-w bcm2708-rpi-b-plus
bcm2708-rpi-cm bcm2710-rpi-2-b bcm2710-rpi-3-b bcm2710-rpi-3-b-plus bcm2710-rpi-cm3
bcm2711-rpi-400 bcm2711-rpi-cm4 bcm2711-rpi-cm4s bcm2710-rpi-cm0 bcm2712-rpi-500
bcm2712-rpi-cm5-cm5io bcm2837-rpi-3-a-plus bcm2835-rpi-zero-w"

# put IMG FILE...: copies FILEs into the FAT root of IMG, replacing them.
put()
{
	local img=$1; shift
	mcopy -o -i "$img@@$OFF" "$@" ::/
}

test_expect_success 'build: Ubuntu'"'"'s config.txt, syscfg.txt, usercfg.txt and a tree per board' '
	"$FIXTURES/mkimage-rpi.sh" base.img --rpi-trees &&
	mcopy -n -i "base.img@@$OFF" ::bcm2711-rpi-4-b.dtb pi4.dtb &&
	for t in $TREES; do
		cp pi4.dtb "$t.dtb" && put base.img "$t.dtb" || return 1
	done &&
	cp "$UBUNTU/config.txt" "$UBUNTU/syscfg.txt" "$UBUNTU/usercfg.txt" . &&
	put base.img config.txt syscfg.txt usercfg.txt &&
	cp base.img ubuntu.img &&
	mtype -i "ubuntu.img@@$OFF" ::/config.txt | tr -d "\r" >got &&
	test_cmp "$UBUNTU/config.txt" got &&
	extract_part ubuntu.img 1 boot.fat &&
	fsck.fat -n boot.fat >/dev/null
'

# The lines every model reads from Ubuntu's files: its config.txt's base
# parameters, dtoverlay=dwc2, and syscfg.txt's dtparam= lines, which the
# firmware gives to the overlay before them (dwc2), as the documentation
# says of dtparam= after dtoverlay=.
BASE="dtparam=audio=on + dtparam=i2c_arm=on + dtparam=spi=on + /overlays/dwc2.dtbo"
SYS="audio=on,i2c_arm=on,spi=on"

test_expect_success 'Ubuntu as shipped: syscfg.txt is read where config.txt includes it; [cm4] only for the CM4' '
	sum=$(sum_file ubuntu.img) &&
	$IMGPATCH info ubuntu.img >info.txt 2>err &&
	test_file_unchanged ubuntu.img "$sum" &&
	test ! -s err &&
	grep -Fx "  tree: /bcm2711-rpi-4-b.dtb + $BASE,$SYS (model pi4)" info.txt &&
	grep -Fx "  tree: /bcm2711-rpi-cm4.dtb + $BASE + /overlays/dwc2.dtbo,dr_mode=host,$SYS" info.txt &&
	grep -Fx "  tree: /bcm2711-rpi-cm4s.dtb + $BASE,$SYS" info.txt &&
	grep -Fx "  tree: /bcm2710-rpi-zero-2-w.dtb + $BASE,$SYS (model pi02)" info.txt &&
	test $(grep -c "^  tree: " info.txt) = 19
'

test_expect_success 'JSON: the most specific filter names each tree'"'"'s model' '
	$IMGPATCH info ubuntu.img --json >info.json &&
	python3 -c "
import json, sys
d = json.load(open(\"info.json\"))
print(\" \".join(t[\"path\"].strip(\"/\")[:-4] + \"=\" + t[\"model\"] for t in d[\"boot_path\"][\"trees\"]))
" | tr " " "\n" | sort >models &&
	sort >models.want <<-\EOF &&
	bcm2708-rpi-b-plus=pi1
	bcm2708-rpi-cm=cm1
	bcm2708-rpi-zero-w=pi0w
	bcm2708-rpi-zero=pi0
	bcm2710-rpi-2-b=pi2
	bcm2710-rpi-3-b-plus=pi3+
	bcm2710-rpi-3-b=pi3
	bcm2710-rpi-cm3=cm3
	bcm2710-rpi-zero-2-w=pi02
	bcm2711-rpi-4-b=pi4
	bcm2711-rpi-400=pi400
	bcm2711-rpi-cm4=cm4
	bcm2711-rpi-cm4s=cm4s
	bcm2712-rpi-5-b=pi5
	bcm2710-rpi-cm0=cm0
	bcm2712-rpi-500=pi500
	bcm2712-rpi-cm5-cm5io=cm5
	bcm2837-rpi-3-a-plus=pi3+
	bcm2835-rpi-zero-w=pi0w
	EOF
	test_cmp models.want models
'

test_expect_success 'cat --dtb --model: dr_mode=host reaches the CM4'"'"'s tree, not the CM4S'"'"'s' '
	$IMGPATCH cat ubuntu.img --dtb --model cm4 >cm4.all 2>cm4.err &&
	$IMGPATCH cat ubuntu.img --dtb --model cm4s >cm4s.all 2>cm4s.err &&
	for m in cm4 cm4s; do
		sed 1d $m.all >$m.dts && dtc -q -I dts -O dtb -o $m.dtb $m.dts || return 1
	done &&
	test "$(fdtget cm4.dtb /soc/usb@7e980000 dr_mode)" = host &&
	test "$(fdtget cm4s.dtb /soc/usb@7e980000 dr_mode)" = otg &&
	test "$(fdtget cm4s.dtb /soc/usb@7e980000 status)" = okay &&
	head -n 1 cm4s.all >head &&
	echo "// boot path rpi: /bcm2711-rpi-cm4s.dtb + $BASE,$SYS" >head.want &&
	test_cmp head.want head
'

test_expect_success 'a usercfg.txt missing: passed over, as the firmware does' '
	cp ubuntu.img nouser.img &&
	mdel -i "nouser.img@@$OFF" ::usercfg.txt &&
	$IMGPATCH info nouser.img >nouser.txt 2>err &&
	test ! -s err &&
	sed 1d info.txt >info.body && sed 1d nouser.txt >nouser.body &&
	test_cmp info.body nouser.body
'

# The user's usercfg.txt: one dtoverlay= line per filter (the overlays need
# not be there for info), filters of another kind after a model filter,
# [none] and [tryboot], includes under a filter and setting one.
cat >usercfg.txt <<'EOF'
# SPDX-License-Identifier: MIT
[pi0]
dtoverlay=f-pi0
[pi0w]
dtoverlay=f-pi0w
[pi02]
dtoverlay=f-pi02
[cm0]
dtoverlay=f-cm0
[pi1]
dtoverlay=f-pi1
[cm1]
dtoverlay=f-cm1
[pi2]
dtoverlay=f-pi2
[pi3]
dtoverlay=f-pi3
[pi3+]
dtoverlay=f-pi3p
[cm3]
dtoverlay=f-cm3
[cm3+]
dtoverlay=f-cm3p
[pi4]
dtoverlay=f-pi4
[HDMI:0]
dtoverlay=f-pi4-hdmi0
[pi400]
dtoverlay=f-pi400
[cm4]
dtoverlay=f-cm4
[cm4s]
dtoverlay=f-cm4s
[pi4]
include pi4.txt
[pi5]
dtoverlay=f-pi5
[pi500]
dtoverlay=f-pi500
[cm5]
dtoverlay=f-cm5
[all]
[gpio4=1]
dtoverlay=f-gpio
[all]
[none]
dtoverlay=f-none
[pi4]
dtoverlay=f-none-pi4
[all]
[tryboot]
dtoverlay=f-tryboot
[all]
[pi5]
include nosuch.txt
[all]
include extra.txt
dtoverlay=f-after-extra
EOF
printf "dtoverlay=f-inc-pi4\n" >pi4.txt
printf "dtoverlay=f-extra\n[pi5]\n" >extra.txt

# want TREE MODEL OVERLAY...: the info line of TREE, Ubuntu's lines first;
# info names the model unless the tree's name holds it.
want()
{
	local tree=$1 model=$2 line
	shift 2
	line="  tree: /$tree.dtb + $BASE,$SYS"
	for o in "$@"; do
		line="$line + /overlays/$o.dtbo"
	done
	case "$tree" in
	*"$model"*) echo "$line" ;;
	*) echo "$line (model $model)" ;;
	esac
}

test_expect_success 'filters: each tree gets the lines of the filters its boards see' '
	cp ubuntu.img user.img &&
	put user.img usercfg.txt pi4.txt extra.txt &&
	sum=$(sum_file user.img) &&
	$IMGPATCH info user.img >user.txt 2>user.err &&
	test_file_unchanged user.img "$sum" &&
	{
		want bcm2708-rpi-zero pi0 f-pi0 f-gpio f-extra &&
		want bcm2708-rpi-zero-w pi0w f-pi0 f-pi0w f-gpio f-extra &&
		want bcm2710-rpi-zero-2-w pi02 f-pi0 f-pi0w f-pi02 f-gpio f-extra &&
		want bcm2708-rpi-b-plus pi1 f-pi1 f-gpio f-extra &&
		want bcm2708-rpi-cm cm1 f-pi1 f-cm1 f-gpio f-extra &&
		want bcm2710-rpi-2-b pi2 f-pi2 f-gpio f-extra &&
		want bcm2710-rpi-3-b pi3 f-pi3 f-gpio f-extra &&
		want bcm2710-rpi-3-b-plus pi3+ f-pi3 f-pi3p f-gpio f-extra &&
		want bcm2710-rpi-cm3 cm3 f-pi3 f-pi3p f-cm3 f-cm3p f-gpio f-extra &&
		want bcm2711-rpi-4-b pi4 f-pi4 f-pi4-hdmi0 f-inc-pi4 f-gpio f-extra &&
		want bcm2711-rpi-400 pi400 f-pi4 f-pi4-hdmi0 f-pi400 f-inc-pi4 f-gpio f-extra &&
		want bcm2711-rpi-cm4 cm4 f-pi4 f-pi4-hdmi0 f-cm4 f-inc-pi4 f-gpio f-extra |
			sed "s|$BASE,$SYS|$BASE + /overlays/dwc2.dtbo,dr_mode=host,$SYS|" &&
		want bcm2711-rpi-cm4s cm4s f-pi4 f-pi4-hdmi0 f-cm4s f-inc-pi4 f-gpio f-extra &&
		want bcm2712-rpi-5-b pi5 f-pi5 f-gpio f-extra f-after-extra &&
		want bcm2710-rpi-cm0 cm0 f-pi0 f-pi0w f-pi02 f-cm0 f-gpio f-extra &&
		want bcm2712-rpi-500 pi500 f-pi5 f-pi500 f-gpio f-extra f-after-extra &&
		want bcm2712-rpi-cm5-cm5io cm5 f-pi5 f-cm5 f-gpio f-extra f-after-extra &&
		want bcm2837-rpi-3-a-plus pi3+ f-pi3 f-pi3p f-gpio f-extra &&
		want bcm2835-rpi-zero-w pi0w f-pi0 f-pi0w f-gpio f-extra
	} | sort >trees.want &&
	grep "^  tree: " user.txt | sort >trees &&
	test_cmp trees.want trees
'

test_expect_success 'filters: a filter true for only some of a tree'"'"'s boards keeps its lines, with a warning' '
	for f in "pi3+" cm3 "cm3+"; do
		grep -Fx "imgpatch: warning: user.img: p1 (vfat): /usercfg.txt: [$f]: true for only some of the boards /bcm2710-rpi-cm3.dtb serves: its lines are taken as applying" user.err ||
			return 1
	done &&
	test $(wc -l <user.err) = 3
'

test_expect_success 'include: a loop ends after eight levels, with a warning' '
	cp ubuntu.img loop.img &&
	printf "dtoverlay=f-loop\ninclude usercfg.txt\n" >usercfg.txt &&
	put loop.img usercfg.txt &&
	for t in $TREES bcm2712-rpi-5-b; do
		mdel -i "loop.img@@$OFF" "::$t.dtb" || return 1
	done &&
	$IMGPATCH info loop.img >loop.txt 2>loop.err &&
	want bcm2711-rpi-4-b pi4 f-loop f-loop f-loop f-loop f-loop f-loop f-loop f-loop >loop.want &&
	grep "^  tree: " loop.txt >loop.got &&
	test_cmp loop.want loop.got &&
	echo "imgpatch: warning: loop.img: p1 (vfat): /usercfg.txt: include usercfg.txt: more than 8 nested includes, not read" >err.want &&
	test_cmp err.want loop.err
'

# syscfg.txt and 31 reads of usercfg.txt make the 32 files; each limit is
# told once.
test_expect_success 'include: a file that includes itself twice: 32 files at most' '
	cp loop.img twice.img &&
	printf "dtoverlay=f-twice\ninclude usercfg.txt\ninclude usercfg.txt\n" >usercfg.txt &&
	put twice.img usercfg.txt &&
	$IMGPATCH info twice.img >twice.txt 2>twice.err &&
	test $(grep "^  tree: " twice.txt | grep -o "f-twice" | wc -l) = 31 &&
	cat >err.want <<-\EOF &&
	imgpatch: warning: twice.img: p1 (vfat): /usercfg.txt: include usercfg.txt: more than 8 nested includes, not read
	imgpatch: warning: twice.img: p1 (vfat): /usercfg.txt: include usercfg.txt: more than 32 included files, not read
	EOF
	test_cmp err.want twice.err
'

test_expect_success 'list: a dtoverlay= added to Ubuntu'"'"'s config.txt gets its own [all] after the includes' '
	cat >lists.recipe <<-\EOF &&
	name = "lists"
	summary = "lists"
	description = "Adds an overlay to config.txt."
	source = "this test"
	step { action = "add-to-list" part = "boot" path = "/config.txt" key = "dtoverlay" word = "mine" }
	EOF
	cp ubuntu.img list.img &&
	printf "[pi5]\ndtoverlay=f-pi5\n" >usercfg.txt &&
	put list.img usercfg.txt &&
	$IMGPATCH apply ./lists.recipe list.img >out &&
	mtype -i "list.img@@$OFF" ::/config.txt | tr -d "\r" >config.after &&
	{ cat "$UBUNTU/config.txt"; printf "[all]\ndtoverlay=mine\n"; } >config.want &&
	test_cmp config.want config.after &&
	$IMGPATCH info list.img >list.txt &&
	grep -Fx "  tree: /bcm2711-rpi-4-b.dtb + $BASE,$SYS + /overlays/mine.dtbo (model pi4)" list.txt &&
	grep -Fx "  tree: /bcm2712-rpi-5-b.dtb + $BASE,$SYS + /overlays/f-pi5.dtbo + /overlays/mine.dtbo (model pi5)" list.txt &&
	sum=$(sum_file list.img) &&
	$IMGPATCH apply ./lists.recipe list.img >/dev/null &&
	test_file_unchanged list.img "$sum"
'

# Ubuntu's boot.scr (tests/fixtures/ubuntu-rpi/boot.cmd) boots the tree the
# firmware made: the boot path is still the firmware's. A script that loads
# a tree file of its own replaces that tree: then it is the script's.
test_expect_success 'Ubuntu'"'"'s U-Boot script boots the firmware'"'"'s tree: boot path rpi' '
	mkimage -A arm64 -O linux -T script -C none -n boot.scr \
		-d "$UBUNTU/boot.cmd" boot.scr >/dev/null &&
	cp ubuntu.img uboot.img &&
	put uboot.img boot.scr &&
	sum=$(sum_file uboot.img) &&
	$IMGPATCH info uboot.img >uboot.txt &&
	test_file_unchanged uboot.img "$sum" &&
	grep -x "boot path: Raspberry Pi firmware /config.txt, .* (p1)" uboot.txt &&
	grep -Fx "  tree: /bcm2711-rpi-4-b.dtb + $BASE,$SYS (model pi4)" uboot.txt &&
	$IMGPATCH cat uboot.img --dtb --model cm4 >cm4u.all &&
	head -n 1 cm4u.all | grep -F "// boot path rpi: /bcm2711-rpi-cm4.dtb" &&
	grep "dr_mode = \"host\"" cm4u.all
'

test_expect_success 'a script that loads ${fdtfile} itself: boot path script' '
	sed "s|^fdt get value|load \${devtype} \${devnum}:\${distro_bootpart} \${fdt_addr_r} \${fdtfile}\nfdt addr \${fdt_addr_r}\nfdt get value|" \
		"$UBUNTU/boot.cmd" >own.cmd &&
	grep -F "\${fdtfile}" own.cmd &&
	mkimage -A arm64 -O linux -T script -C none -n boot.scr -d own.cmd boot.scr >/dev/null &&
	cp ubuntu.img own.img &&
	put own.img boot.scr &&
	$IMGPATCH info own.img >own.txt &&
	grep -x "boot path: U-Boot script /boot.scr.*" own.txt
'

test_done
