#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='one sync of the undo journal: a journal whose regions never reached the disk restores nothing; the FIT is mapped (size and clusters) without mdir, on FAT32 and FAT16'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mtype mdir fdtget fsck.fat strace od

KV260_ARGS="--fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

# state J: the journal's state field (little-endian, at byte 12): 1 being
# written, 2 ready, 3 done, 4 undone.
state()
{
	od -An -tu4 -j12 -N4 "$1" | tr -d ' '
}

# fit_size IMG: the size of p1's /image.fit as mtype reads it.
fit_size()
{
	mtype -i "$1@@$(part_offset "$1" 1)" ::/image.fit | wc -c
}

test_expect_success 'KV260 fixtures: FAT32 and FAT16 boot partitions' '
	make_kv260 kv32.img && make_kv260 kv16.img --fat16
'

if grep -aq IMGPATCH_TEST_PAUSE "$IMGPATCH"; then
	test_expect_success 'killed once its journal is synced: ready, the image untouched' '
		cp kv32.img k.img &&
		paused_run journal patch k.img $KV260_ARGS &&
		kill -KILL $pid && finish && test "$status" = 137 &&
		cmp kv32.img k.img &&
		test "$(state k.img.imgpatch-undo)" = 2 &&
		cp k.img.imgpatch-undo ready.undo
	'

	test_expect_success 'a ready journal with a region that never reached the disk: refused, then undo restores nothing' '
		cp ready.undo k.img.imgpatch-undo &&
		size=$(stat -c %s k.img.imgpatch-undo) &&
		printf "\377" | dd of=k.img.imgpatch-undo bs=1 seek=$((size - 1)) conv=notrunc 2>/dev/null &&
		! cmp -s ready.undo k.img.imgpatch-undo &&
		test_must_fail_with 1 imgpatch patch k.img $KV260_ARGS 2>err &&
		grep "interrupted imgpatch run.*undo" err &&
		cmp kv32.img k.img &&
		imgpatch undo k.img >out &&
		grep "^restored k.img: 0 regions (0 bytes)" out &&
		cmp kv32.img k.img &&
		test "$(state k.img.imgpatch-undo)" = 4
	'

	test_expect_success 'a ready journal cut short: undo restores nothing, the patch then runs' '
		cp ready.undo k.img.imgpatch-undo &&
		truncate -s -4096 k.img.imgpatch-undo &&
		imgpatch undo k.img >out &&
		grep "^restored k.img: 0 regions (0 bytes)" out &&
		cmp kv32.img k.img &&
		imgpatch patch k.img $KV260_ARGS >out && grep "patched k.img: 2 changes" out &&
		test "$(state k.img.imgpatch-undo)" = 3 &&
		mtype -i "k.img@@$(part_offset k.img 1)" ::/user-override.dtb >o.dtb &&
		test_must_fail fdtget o.dtb /axi/mmc@ff170000 no-1-8-v
	'

	test_expect_success 'a damaged header is refused, the image byte-identical' '
		cp kv32.img h.img && cp ready.undo h.img.imgpatch-undo &&
		printf "x" | dd of=h.img.imgpatch-undo bs=1 seek=100 conv=notrunc 2>/dev/null &&
		test_must_fail_with 1 imgpatch undo h.img 2>err &&
		grep "header checksum mismatch" err &&
		cmp kv32.img h.img
	'
else
	test_skip 'a journal that never reached the disk' 'this build has no test hooks (test builds: make SAN=1)'
fi

for fat in 32 16; do
	test_expect_success "FAT$fat: info gives the size of the FIT as mtype reads it, with one mdir run (the listing)" '
		want=$(fit_size kv'$fat'.img) &&
		rm -f info'$fat'.trace.* &&
		ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 strace -ff -qq -o info'$fat'.trace \
			-e trace=execve "$IMGPATCH" info kv'$fat'.img >out &&
		grep "^fit: p1 /image.fit, $want bytes, 7 images" out &&
		test "$(cat info'$fat'.trace.* | grep -c "^execve(\"[^\"]*/mdir\", .*= 0$")" = 1
	'

	test_expect_success "FAT$fat: patched in place, read back by mtools and fsck.fat" '
		cp kv'$fat'.img p'$fat'.img &&
		imgpatch patch p'$fat'.img $KV260_ARGS >out && grep "patched p'$fat'.img: 2 changes" out &&
		off=$(part_offset p'$fat'.img 1) &&
		mtype -i "p'$fat'.img@@$off" ::/user-override.dtb >o.dtb &&
		test_must_fail fdtget o.dtb /axi/mmc@ff170000 no-1-8-v &&
		extract_part p'$fat'.img 1 p1.fat && fsck.fat -n p1.fat >/dev/null
	'
done

test_done
