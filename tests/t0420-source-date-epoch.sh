#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='SOURCE_DATE_EPOCH: one strict reading for FAT, ext and U-Boot scripts; a bad value is refused before the plan'
. "$(dirname "$0")/lib.sh"

KV260_ARGS="--fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

# refuses_epoch VALUE ARGS...: exit 1, one line naming the image and the
# value, no plan on stdout, and kv.img byte-identical.
refuses_epoch()
{
	value=$1
	shift
	sum_file kv.img >before.sum &&
	test_must_fail_with 1 env SOURCE_DATE_EPOCH="$value" \
		$IMGPATCH patch kv.img $KV260_ARGS "$@" >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -qF "imgpatch: kv.img: SOURCE_DATE_EPOCH '$value' is not a number of seconds" err &&
	test ! -s out &&
	sum_file kv.img >after.sum && test_cmp before.sum after.sum
}

test_expect_success 'build fixture' '
	"$FIXTURES/mkimage-kv260.sh" kv.img &&
	cp kv.img kv.orig
'

test_expect_success 'not a number: refused before the plan (FAT and ext writes)' '
	refuses_epoch abc &&
	refuses_epoch 12x &&
	refuses_epoch " 1700000000" &&
	refuses_epoch +1700000000
'

test_expect_success 'negative or beyond 64 bits: refused' '
	refuses_epoch -1 &&
	refuses_epoch 9223372036854775808 &&
	refuses_epoch 99999999999999999999
'

test_expect_success 'refused in a dry run too' '
	refuses_epoch abc --dry-run
'

test_expect_success 'a FAT-only patch refuses it as well' '
	sum_file kv.img >before.sum &&
	test_must_fail_with 1 env SOURCE_DATE_EPOCH=abc $IMGPATCH patch kv.img \
		--fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb \
		--dt-delete mmc@ff170000:no-1-8-v >out 2>err &&
	grep -q "SOURCE_DATE_EPOCH .abc. is not a number of seconds" err &&
	test ! -s out &&
	sum_file kv.img >after.sum && test_cmp before.sum after.sum
'

test_expect_success 'empty means unset' '
	cp kv.orig empty.img &&
	SOURCE_DATE_EPOCH= $IMGPATCH patch empty.img $KV260_ARGS >out &&
	kv260_patched empty.img
'

test_expect_success 'beyond 32 bits: the FAT file and the ext inode get it' '
	cp kv.orig big.img &&
	SOURCE_DATE_EPOCH=4102444800 $IMGPATCH patch big.img $KV260_ARGS >out &&
	kv260_patched big.img &&
	mdir -i "$(part_mtools big.img 1)" ::/user-override.dtb >dir &&
	grep -q "2100-01-01" dir &&
	extract_part big.img 2 big.ext4 &&
	debugfs -R "stat /etc/fstab" big.ext4 2>/dev/null >stat &&
	grep -q "mtime: .*Jan  1 00:00:00 2100" stat
'

test_expect_success 'beyond 32 bits: a U-Boot script image refuses it, never wraps' '
	cp kv.orig scr.img &&
	cat >scr.recipe <<-\EOD &&
	name = "scr"
	summary = "a boot script"
	description = "Writes a U-Boot script image."
	source = "this test"
	risks = "none"
	undo = "delete it"
	step { action = "boot-script" part = "boot" path = "/test.scr" script = "echo hello" }
	EOD
	sum_file scr.img >before.sum &&
	test_must_fail_with 1 env SOURCE_DATE_EPOCH=4294967296 \
		$IMGPATCH apply ./scr.recipe scr.img >out 2>err &&
	cat err &&
	grep -q "SOURCE_DATE_EPOCH 4294967296 does not fit in a U-Boot image header (32 bits)" err &&
	sum_file scr.img >after.sum && test_cmp before.sum after.sum &&
	SOURCE_DATE_EPOCH=4294967295 $IMGPATCH apply ./scr.recipe scr.img >out &&
	mtype -i "$(part_mtools scr.img 1)" ::/test.scr >test.scr &&
	dumpimage -l test.scr >info &&
	grep -q "Created: .*2106" info
'

test_done
