#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='images whose names mtools would parse ("@@", "|") or have a shell expand ("$(...)", backquotes), or that start with "-", hold spaces, a newline or ":": info, cat, patch -o, --in-place, undo, write and apply work, and messages name the file'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mtype fdtget dtc debugfs e2fsck fsck.fat xz
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
KV260_ARGS="--fdt $FDT --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"
# A name mtools expanded ran "touch PWNED" through /bin/sh.
NAMES=('a@@b.img' '@@.img' '-x.img' 'sp ace.img' 'p|q.img' '$(touch PWNED).img'
	'`touch PWNED`[x]*?.img' $'new\nline.img' 'c:d.img' 'e@@f@@1048576.img')

NL=$'\n'

# plain IMG: a hard link to IMG with a name mtools takes, as the checks' own tools need.
plain()
{
	ln -f -- "$1" plain.img
}

# patched IMG: IMG's user-override.dtb lacks no-1-8-v (mtype, fdtget), its
# fstab mounts / with noatime (debugfs), FAT and ext4 are clean.
patched()
{
	plain "$1" &&
	mtype -i "$(part_mtools plain.img 1)" ::/user-override.dtb >ovr.dtb &&
	fdtget -p ovr.dtb /axi/mmc@ff170000 >props &&
	grep -qx disable-wp props && ! grep -qx no-1-8-v props &&
	extract_part plain.img 1 p1.fat && fsck.fat -n p1.fat >/dev/null &&
	extract_part plain.img 2 p2.ext4 && e2fsck -fn p2.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /etc/fstab" p2.ext4 2>/dev/null | head -n 1 >fstab &&
	grep -q "^LABEL=writable	/	ext4	errors=remount-ro,noatime	0 1$" fstab
}

# no_shell: nothing ran a shell on a name.
no_shell()
{
	test ! -e PWNED
}

test_expect_success 'the images, one per odd name' '
	make_kv260 kv.img &&
	for n in "${NAMES[@]}"; do
		cp kv.img "./$n" || return 1
	done &&
	mtype -i "$(part_mtools kv.img 1)" ::/boot.scr.uimg >boot.scr.expect &&
	mtype -i "$(part_mtools kv.img 1)" ::/image.fit >fit.expect &&
	test -s boot.scr.expect && test -s fit.expect
'

test_expect_success 'info reads the FAT (the FIT) of each' '
	for n in "${NAMES[@]}"; do
		imgpatch info "./$n" >info.out 2>info.err &&
		test ! -s info.err &&
		grep -q "^fit: p1 /image.fit, 190748 bytes, 7 images, 5 configurations$" info.out &&
		grep -q "^user-override.dtb: " info.out || return 1
	done &&
	no_shell
'

test_expect_success 'cat of a small file (mtype) and of the FIT (read by its clusters)' '
	for n in "${NAMES[@]}"; do
		imgpatch cat "./$n" 1:/boot.scr.uimg >boot.scr.got &&
		cmp boot.scr.expect boot.scr.got &&
		imgpatch cat "./$n" 1:/image.fit >fit.got &&
		cmp fit.expect fit.got || return 1
	done &&
	no_shell
'

test_expect_success 'a refusal names the file as it was given, on one line' '
	for n in "${NAMES[@]}"; do
		test_must_fail_with 1 imgpatch cat "./$n" 1:/nosuch >out 2>err &&
		test "$(cat err)" = "imgpatch: ./$n: p1 (vfat): /nosuch: no such file" &&
		cmp kv.img "./$n" || return 1
	done &&
	no_shell
'

test_expect_success 'patch -o into an odd name: written and read back' '
	for n in "${NAMES[@]}"; do
		imgpatch patch "./$n" $KV260_ARGS -o "./o-$n" >out &&
		[[ $(cat out) == *"$NL""wrote ./o-$n (raw): 2 changes" ]] &&
		cmp kv.img "./$n" && patched "./o-$n" || return 1
	done &&
	no_shell
'

test_expect_success 'patch --in-place, then undo from its journal' '
	for n in "${NAMES[@]}"; do
		imgpatch patch "./$n" $KV260_ARGS --in-place >out &&
		[[ $(cat out) == *"$NL""patched ./$n: 2 changes" ]] &&
		patched "./$n" && cmp "./o-$n" "./$n" &&
		test -f "./$n.imgpatch-undo" &&
		imgpatch undo "./$n" >out &&
		cmp kv.img "./$n" || return 1
	done &&
	no_shell
'

test_expect_success 'a compressed image and its output: apply -o, and write to odd targets' '
	xz -T1 -0 -c kv.img >"a@@b\$(touch PWNED).img.xz" &&
	imgpatch apply kv260-uhs "a@@b\$(touch PWNED).img.xz" --set board=kv --set carrier=revB \
		-o "o@@\`touch PWNED\`.img.xz" >out &&
	xz -dc "o@@\`touch PWNED\`.img.xz" >o-apply.img && patched o-apply.img &&
	imgpatch write "a@@b\$(touch PWNED).img.xz" "w@@1.img" "./-w|2.img" \
		--apply kv260-uhs --set board=kv --set carrier=revB --quiet >out &&
	grep -q "^write: 2 cards, 0 failed$" out &&
	patched "w@@1.img" && patched "./-w|2.img" &&
	no_shell
'

test_done
