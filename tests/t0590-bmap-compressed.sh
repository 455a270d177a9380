#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='--bmap with a compressed input: a sparse output, its map from the filesystems, flashed by bmaptool'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk xz bmaptool e2fsck fsck.fat cmp du
KV260_ARGS="--fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb --fstab /:+noatime"

test_expect_success 'an .img.xz download' '
	make_kv260 kv.img && xz -T1 -0 -k kv.img
'

test_expect_success '-o IMG --bmap from an .img.xz: as sparse as without --bmap, the same bytes' '
	imgpatch patch kv.img.xz $KV260_ARGS -o plain.img >/dev/null &&
	imgpatch patch kv.img.xz $KV260_ARGS -o mapped.img --bmap mapped.bmap >/dev/null &&
	cmp plain.img mapped.img &&
	size=$(stat -c %s mapped.img) &&
	used=$(du -k mapped.img | cut -f1) && plain=$(du -k plain.img | cut -f1) &&
	echo "size $size, on disk ${used} KiB (without --bmap ${plain} KiB)" &&
	test $used -le $((plain + 64)) && test $((used * 1024)) -lt $((size / 4))
'

test_expect_success 'bmaptool flashes it over a blank and over a used card' '
	size=$(stat -c %s mapped.img) &&
	truncate -s $size blank.img &&
	bmaptool copy --bmap mapped.bmap mapped.img blank.img 2>/dev/null &&
	cmp plain.img blank.img &&
	head -c $size /dev/zero | tr "\0" "\245" >used.img &&
	bmaptool copy --bmap mapped.bmap mapped.img used.img 2>/dev/null &&
	extract_part used.img 1 used.fat && fsck.fat -n used.fat >/dev/null &&
	extract_part used.img 2 used.ext4 && e2fsck -fn used.ext4 >/dev/null 2>&1
'

test_done
