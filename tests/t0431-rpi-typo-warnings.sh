#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='a tree edited in place: a property it never had is a typo, one an earlier run deleted is not; warnings only of the trees touched, a shared one said once with its count'
. "$(dirname "$0")/lib.sh"

test_require_tools mcopy mtype fdtget debugfs e2fsck

OFF=$((8192 * 512))
NODE=/emmc2bus/mmc@7e340000
HAS="compatible, reg, interrupts, clocks, status, vqmmc-supply, vmmc-supply"
AUDIO="dtparam=audio=on: unknown parameter 'audio': ignored, as the firmware does"

# refused IMAGE MESSAGE ARGS...: patch exits 1 with MESSAGE as its one
# error line (warnings aside), prints nothing, and IMAGE is byte-identical.
refused()
{
	img=$1 msg=$2
	shift 2
	sum=$(sum_file "$img") &&
	test_must_fail_with 1 $IMGPATCH patch "$img" "$@" >out 2>err &&
	cat err &&
	grep -v "^imgpatch: warning: " err >errors &&
	test "$(wc -l <errors)" = 1 &&
	test "$(cat errors)" = "imgpatch: $img: $msg" &&
	test ! -s out &&
	test_file_unchanged "$img" "$sum"
}

tree_of() { mtype -i "$1@@$OFF" "::$2" >"$3"; }

# already IMAGE ARGS...: patch says "unchanged (already applied)", exits 0
# and IMAGE is byte-identical.
already()
{
	img=$1
	shift
	sum=$(sum_file "$img") &&
	$IMGPATCH patch "$img" "$@" >out &&
	grep "unchanged (already applied)" out &&
	test_file_unchanged "$img" "$sum"
}

# root_rm IMAGE OUT PATH: OUT is IMAGE with PATH removed from its root
# filesystem (debugfs), which e2fsck still finds clean.
root_rm()
{
	cp "$1" "$2" &&
	extract_part "$2" 2 root.ext4 &&
	debugfs -w -R "rm $3" root.ext4 &&
	e2fsck -fn root.ext4 >/dev/null &&
	put_part "$2" 2 root.ext4
}

test_expect_success 'build: a Raspberry Pi OS-like image, dpkg listing the kernel package'"'"'s trees' '
	"$FIXTURES/mkimage-rpi.sh" pi.img &&
	cp pi.img pi.orig
'

test_expect_success 'a typo with no close name, --via file: refused, the node'"'"'s names given' '
	refused pi.img "p1 /bcm2711-rpi-4-b.dtb: $NODE: delete cap-sd-higspeed: property '"'"'cap-sd-higspeed'"'"' not found (the node has: $HAS, broken-cd)" \
		--model pi4 --via file --dt-delete $NODE:cap-sd-higspeed &&
	refused pi.img "p1 /bcm2711-rpi-4-b.dtb: $NODE: delete cap-sd-higspeed: property '"'"'cap-sd-higspeed'"'"' not found (the node has: $HAS, broken-cd)" \
		--model pi4 --via file --dt-delete $NODE:cap-sd-higspeed --dry-run
'

test_expect_success 'a typo with a close name: refused, the close name given' '
	refused pi.img "p1 /bcm2711-rpi-4-b.dtb: $NODE: delete broken_cd: property '"'"'broken_cd'"'"' not found (candidates: broken-cd)" \
		--model pi4 --via file --dt-delete $NODE:broken_cd
'

test_expect_success 'a real deletion, run twice: the second run is already applied' '
	$IMGPATCH patch pi.img --model pi4 --via file --dt-delete $NODE:broken-cd >one &&
	grep "$NODE: delete broken-cd" one &&
	tree_of pi.img bcm2711-rpi-4-b.dtb once.dtb &&
	test_must_fail fdtget once.dtb $NODE broken-cd &&
	already pi.img --model pi4 --via file --dt-delete $NODE:broken-cd
'

test_expect_success 'after it, a typo is still refused: the copy as shipped never had it' '
	refused pi.img "p1 /bcm2711-rpi-4-b.dtb: $NODE: delete cap-sd-higspeed: property '"'"'cap-sd-higspeed'"'"' not found (the node has: $HAS)" \
		--model pi4 --via file --dt-delete $NODE:cap-sd-higspeed
'

test_expect_success 'no package lists the tree and no run wrote it: refused' '
	root_rm pi.orig nodpkg.img /var/lib/dpkg/info/linux-image-6.6.51+rpt-rpi-v8.md5sums &&
	refused nodpkg.img "p1 /bcm2711-rpi-4-b.dtb: $NODE: delete cap-sd-higspeed: property '"'"'cap-sd-higspeed'"'"' not found (the node has: $HAS, broken-cd)" \
		--model pi4 --via file --dt-delete $NODE:cap-sd-higspeed
'

test_expect_success 'no package lists the tree: the undo journal of the run that wrote it says so' '
	$IMGPATCH patch nodpkg.img --model pi4 --via file --dt-delete $NODE:broken-cd >one &&
	test -f nodpkg.img.imgpatch-undo &&
	already nodpkg.img --model pi4 --via file --dt-delete $NODE:broken-cd
'

test_expect_success 'a copy without that journal, or once undone: nothing shows the run, refused' '
	cp nodpkg.img copy.img &&
	refused copy.img "p1 /bcm2711-rpi-4-b.dtb: $NODE: delete broken-cd: property '"'"'broken-cd'"'"' not found (the node has: $HAS)" \
		--model pi4 --via file --dt-delete $NODE:broken-cd &&
	$IMGPATCH undo nodpkg.img >/dev/null &&
	refused nodpkg.img "p1 /bcm2711-rpi-4-b.dtb: $NODE: delete cap-sd-higspeed: property '"'"'cap-sd-higspeed'"'"' not found (the node has: $HAS, broken-cd)" \
		--model pi4 --via file --dt-delete $NODE:cap-sd-higspeed
'

test_expect_success 'a tree edited since (not as dpkg lists it) and no copy as shipped: an earlier edit' '
	root_rm pi.img edited.img /usr/lib/linux-image-6.6.51+rpt-rpi-v8/broadcom/bcm2711-rpi-4-b.dtb &&
	already edited.img --model pi4 --via file --dt-delete $NODE:broken-cd
'

test_expect_success 'build: four trees with the same dtparam' '
	cp pi.orig many.img &&
	tree_of many.img bcm2711-rpi-4-b.dtb pi4.dtb &&
	for t in bcm2711-rpi-400 bcm2711-rpi-cm4; do
		cp pi4.dtb $t.dtb && mcopy -i "many.img@@$OFF" $t.dtb ::/ || return 1
	done &&
	$IMGPATCH info many.img >info &&
	test "$(grep -c "^  tree: .*dtparam=audio=on" info)" = 4
'

test_expect_success 'patch --model pi4: the warnings of that tree alone, once' '
	$IMGPATCH patch many.img --model pi4 --via file --dt-delete $NODE:broken-cd --dry-run >out 2>err &&
	cat err &&
	echo "imgpatch: warning: many.img: p1 (vfat): /bcm2711-rpi-4-b.dtb: $AUDIO" >expect &&
	test_cmp expect err
'

test_expect_success 'patch --cmdline touches no tree: no tree'"'"'s warning' '
	$IMGPATCH patch many.img --cmdline +loglevel=7 --dry-run >out 2>err &&
	test ! -s err
'

test_expect_success 'cat --dtb --model pi5: the warnings of that tree alone' '
	$IMGPATCH cat many.img --dtb --model pi5 >pi5.dts 2>err &&
	cat err &&
	echo "imgpatch: warning: many.img: p1 (vfat): /bcm2712-rpi-5-b.dtb: $AUDIO" >expect &&
	test_cmp expect err
'

test_expect_success 'doctor judges every tree: the shared warning once, with its count' '
	$IMGPATCH doctor many.img >out 2>err &&
	cat err &&
	echo "imgpatch: warning: many.img: p1 (vfat): $AUDIO (4 trees)" >expect &&
	test_cmp expect err &&
	$IMGPATCH doctor many.img --model pi400 >out 2>err &&
	echo "imgpatch: warning: many.img: p1 (vfat): /bcm2711-rpi-400.dtb: $AUDIO" >expect &&
	test_cmp expect err
'

test_done
