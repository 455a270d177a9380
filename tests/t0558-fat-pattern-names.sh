#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='FAT names mtools would read as patterns: a path with [, ], *, ? or \ is refused in one line (mtools would pick another file), and a folder so named elsewhere on the partition keeps its clusters through a patch'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mcopy mmd mtype fsck.fat fdtget

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb

# The KV260 image with look-alike names beside each other on its FAT
# (mcopy reads its folders as patterns too, so d[x] is escaped there):
# a[1].txt and a1.txt, folders d[x] and dx, each with a g.txt of its own.
test_expect_success 'fixture: names that are patterns to mtools' '
	make_kv260 kv.img &&
	drive=$(part_mtools kv.img 1) &&
	echo literal >lit.txt && echo pattern >pat.txt &&
	mcopy -i "$drive" pat.txt ::/a1.txt &&
	mcopy -i "$drive" lit.txt "::/a[1].txt" &&
	mmd -i "$drive" "::/d[x]" ::/dx &&
	mcopy -i "$drive" lit.txt "::/d\\[x\\]/g.txt" &&
	mcopy -i "$drive" pat.txt ::/dx/g.txt &&
	mtype -i "$drive" "::/d\[x\]/g.txt" >got && test_cmp lit.txt got &&
	extract_part kv.img 1 p1.fat && fsck.fat -n p1.fat >/dev/null &&
	cp kv.img kv.orig
'

test_expect_success 'cat of a name with [ ] is refused, not answered with a1.txt' '
	test_must_fail_with 1 "$IMGPATCH" cat kv.img "1:/a[1].txt" >out 2>err &&
	cat err &&
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^imgpatch: kv.img: .*a\[1\]\.txt.*not supported on FAT (mtools reads it as a pattern)" err &&
	cmp kv.img kv.orig
'

test_expect_success 'every pattern character is refused the same way' '
	for name in "x*.txt" "x?.txt" "x]y" "d[x]/g.txt"; do
		test_must_fail_with 1 "$IMGPATCH" cat kv.img "1:/$name" >out 2>err &&
		test ! -s out && test "$(wc -l <err)" = 1 &&
		grep -q "not supported on FAT" err || return 1
	done &&
	cmp kv.img kv.orig
'

test_expect_success 'a patch of the same FAT keeps both folders and both files' '
	"$IMGPATCH" patch kv.img --in-place --fdt $FDT \
		--dt-delete mmc@ff170000:no-1-8-v >out 2>err &&
	drive=$(part_mtools kv.img 1) &&
	mtype -i "$drive" ::/user-override.dtb >ovr.dtb &&
	fdtget -p ovr.dtb /axi/mmc@ff170000 >props && ! grep -qx no-1-8-v props &&
	mtype -i "$drive" "::/d\[x\]/g.txt" >got && test_cmp lit.txt got &&
	mtype -i "$drive" ::/dx/g.txt >got && test_cmp pat.txt got &&
	mtype -i "$drive" "::/a\[1\].txt" >got && test_cmp lit.txt got &&
	mtype -i "$drive" ::/a1.txt >got && test_cmp pat.txt got &&
	extract_part kv.img 1 p1.fat && fsck.fat -n p1.fat >/dev/null
'

test_expect_success 'undo gives back the image as it was' '
	"$IMGPATCH" undo kv.img >out 2>err &&
	cmp kv.img kv.orig
'

test_done
