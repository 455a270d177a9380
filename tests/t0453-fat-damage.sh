#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='damaged FAT cluster chains (a loop in a file or a folder, a cluster past the data area, a free, reserved or bad cluster in a chain, two files sharing a cluster, a size its chain does not match), FAT12, FAT16 and FAT32, each reported by fsck.fat -n: cat and patch refuse in one line naming the partition and the file, the image byte-identical; a healthy file next to the damage still reads'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mcopy mmd mshowfat mtype fsck.fat od

# make_tree: the boot files, extlinux.conf two 512-byte clusters long.
make_tree()
{
	rm -rf tree && mkdir -p tree/extlinux tree/docs &&
	{
		printf "default l0\nlabel l0\n\tkernel /Image\n"
		printf "\tappend root=/dev/mmcblk0p2 rw console=ttyS0,115200\n"
		for i in $(seq 1 12); do printf "# padding line %02d of the menu, to fill a second cluster\n" "$i"; done
	} >tree/extlinux/extlinux.conf &&
	test "$(stat -c %s tree/extlinux/extlinux.conf)" -gt 512 &&
	test "$(stat -c %s tree/extlinux/extlinux.conf)" -le 1024 &&
	seq 1 300 >tree/other.txt &&
	seq 1 200 >tree/two.txt &&
	echo "kernel" >tree/Image &&
	for i in $(seq 1 20); do echo "$i" >"tree/docs/a-long-file-name-$i.txt"; done
}

# make_fat FS BITS MB: a FAT of BITS bits (one sector a cluster) holding the tree.
make_fat()
{
	rm -f "$1" &&
	mkfs.vfat -C -F "$2" -s 1 -i 1234abcd "$1" $(($3 * 1024)) >/dev/null &&
	mcopy -s -m -i "$1" tree/extlinux tree/docs tree/other.txt tree/two.txt tree/Image ::/ &&
	fsck.fat -n "$1" >/dev/null
}

# le16 FILE OFFSET / le32 FILE OFFSET: a little-endian field.
le16() { od -An -tu2 -j"$2" -N2 "$1" | tr -d " "; }
le32() { od -An -tu4 -j"$2" -N4 "$1" | tr -d " "; }

# put_bytes FILE OFFSET VALUE N: VALUE as N little-endian bytes.
put_bytes()
{
	local v=$3 i esc=
	for i in $(seq 1 "$4"); do
		esc="$esc$(printf '\\%03o' $((v & 255)))"
		v=$((v >> 8))
	done
	printf "$esc" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# set_fat FS BITS CLUSTER VALUE [COPY]: the FAT entry of CLUSTER, in every
# copy of the FAT or in copy COPY (0: the first).
set_fat()
{
	local fs=$1 bits=$2 c=$3 v=$4 bps res nfats fatsz base f off old
	bps=$(le16 "$fs" 11) && res=$(le16 "$fs" 14) &&
	nfats=$(od -An -tu1 -j16 -N1 "$fs" | tr -d " ") && fatsz=$(le16 "$fs" 22) &&
	if [ "$fatsz" = 0 ]; then fatsz=$(le32 "$fs" 36); fi &&
	for f in ${5:-$(seq 0 $((nfats - 1)))}; do
		base=$(((res + f * fatsz) * bps))
		case $bits in
		32) put_bytes "$fs" $((base + 4 * c)) "$v" 4 ;;
		16) put_bytes "$fs" $((base + 2 * c)) "$v" 2 ;;
		12)
			off=$((base + c * 3 / 2))
			old=$(le16 "$fs" "$off")
			if [ $((c & 1)) = 1 ]; then
				put_bytes "$fs" "$off" $(((old & 0xf) | (v << 4))) 2
			else
				put_bytes "$fs" "$off" $(((old & 0xf000) | v)) 2
			fi
			;;
		esac || return 1
	done
}

# chain FS PATH: the clusters of PATH, one a line (from mshowfat).
chain()
{
	mshowfat -i "$1" "::$2" | sed "s/^[^<]*//" | tr " " "\n" | tr -d "<>" |
		awk -F- 'NF { for (c = $1; c <= (NF > 1 ? $2 : $1); c++) print c }'
}

# make_disk IMG FS: a dos disk whose only partition (FAT, at 1 MiB) holds FS.
make_disk()
{
	local mb=$(($(stat -c %s "$2") / 1048576))
	rm -f "$1" &&
	truncate -s $((mb + 2))M "$1" &&
	printf "label: dos\nstart=2048, size=%d, type=c\n" $((mb * 2048)) |
		sfdisk -q --no-reread --no-tell-kernel "$1" &&
	dd if="$2" of="$1" bs=1M seek=1 conv=notrunc status=none
}

# fsck_finds FS PATTERN: fsck.fat -n itself reports the damage (exit 1).
fsck_finds()
{
	test_must_fail_with 1 fsck.fat -n "$1" >fsck.log 2>&1 &&
	grep -q -- "$2" fsck.log || { cat fsck.log; false; }
}

# refused IMG PATTERN CMD...: exit 1, one line naming IMG and p1 (vfat)
# and matching PATTERN, the image byte-identical.
refused()
{
	local img=$1 pattern=$2
	shift 2
	cp "$img" before.img &&
	test_must_fail_with 1 "$@" >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^imgpatch: $img: p1 (vfat): " err &&
	grep -q -- "$pattern" err &&
	grep -q "run fsck.fat first$" err &&
	cmp before.img "$img"
}

# refused_all IMG PATTERN: cat of extlinux.conf and a patch of its command
# line (also as a dry run) are refused.
refused_all()
{
	refused "$1" "$2" $IMGPATCH cat "$1" 1:/extlinux/extlinux.conf &&
	refused "$1" "$2" $IMGPATCH patch "$1" --cmdline +loglevel=7 --dry-run &&
	refused "$1" "$2" $IMGPATCH patch "$1" --cmdline +loglevel=7
}

# damaged NAME BITS N VALUE FSCK-PATTERN: NAME.img, whose FAT (a copy of
# fBITS.fat) has the entry of cluster CN of extlinux.conf set to VALUE, C1
# and C2 being its two clusters (VALUE may be C1 or C2), and fsck.fat -n
# reports FSCK-PATTERN on it.
damaged()
{
	local v
	cp "f$2.fat" "$1.fat" &&
	set -- "$@" $(chain "$1.fat" /extlinux/extlinux.conf) && test $# = 7 &&
	C1=$6 C2=$7 && v=${4//C1/$C1} && v=${v//C2/$C2} &&
	set_fat "$1.fat" "$2" "$(if [ "$3" = 1 ]; then echo "$C1"; else echo "$C2"; fi)" "$v" &&
	fsck_finds "$1.fat" "$5" &&
	make_disk "$1.img" "$1.fat"
}

test_expect_success 'healthy FAT12, FAT16, FAT32: cat reads, patch --cmdline writes, fsck.fat clean' '
	make_tree &&
	make_fat f12.fat 12 2 && make_fat f16.fat 16 16 && make_fat f32.fat 32 40 &&
	for b in 12 16 32; do
		make_disk ok$b.img f$b.fat &&
		$IMGPATCH cat ok$b.img 1:/extlinux/extlinux.conf >conf &&
		cmp conf tree/extlinux/extlinux.conf &&
		$IMGPATCH cat ok$b.img 1:/docs/a-long-file-name-7.txt >doc &&
		test "$(cat doc)" = 7 &&
		$IMGPATCH patch ok$b.img --cmdline +loglevel=7 >out &&
		extract_part ok$b.img 1 after.fat &&
		fsck.fat -n after.fat >/dev/null &&
		mtype -i after.fat ::/extlinux/extlinux.conf >conf &&
		test "$(grep -c "append" conf)" = 1 &&
		grep -q "append root=/dev/mmcblk0p2 rw console=ttyS0,115200 loglevel=7$" conf || return 1
	done
'

# The example of the report: the second cluster of extlinux.conf points
# back to its first. mtype printed the first cluster twice, and a patch
# wrote that back with two append lines.
for b in 12 16 32; do
	test_expect_success "FAT$b: extlinux.conf's second cluster points back to its first: refused" '
		damaged loop'$b' '$b' 2 C1 "Circular cluster chain" &&
		grep -qi "^/extlinux/extlinux.conf$" fsck.log &&
		refused_all loop'$b'.img "(/EXTLINUX/extlinux.conf: circular cluster chain (cluster $C2 points back to cluster $C1))"
	'
done

test_expect_success 'a cluster that points to itself' '
	damaged self 16 1 C1 "Circular cluster chain" &&
	refused_all self.img "/EXTLINUX/extlinux.conf: circular cluster chain (cluster $C1 points back to cluster $C1)"
'

test_expect_success 'FAT16 and FAT32: a folder whose chain loops: what is in it is refused, the rest reads' '
	for b in 16 32; do
		cp f$b.fat dloop$b.fat &&
		set -- $(chain dloop$b.fat /docs) && test $# -ge 2 &&
		set_fat dloop$b.fat $b "$2" "$1" &&
		fsck_finds dloop$b.fat "Circular cluster chain" &&
		grep -qi "^/docs$" fsck.log &&
		make_disk dloop$b.img dloop$b.fat &&
		refused dloop$b.img "(/DOCS: circular cluster chain" \
			$IMGPATCH cat dloop$b.img 1:/docs/a-long-file-name-3.txt &&
		refused dloop$b.img "(/DOCS: circular cluster chain" \
			$IMGPATCH patch dloop$b.img --cmdline +loglevel=7 &&
		$IMGPATCH cat dloop$b.img 1:/extlinux/extlinux.conf >conf &&
		cmp conf tree/extlinux/extlinux.conf || return 1
	done
'

test_expect_success 'FAT32: a root folder whose chain loops: every read is refused' '
	cp f32.fat rloop.fat &&
	root=$(le32 rloop.fat 44) &&
	set_fat rloop.fat 32 "$root" "$root" &&
	fsck_finds rloop.fat "" &&
	make_disk rloop.img rloop.fat &&
	refused rloop.img "(/: circular cluster chain" \
		$IMGPATCH cat rloop.img 1:/extlinux/extlinux.conf &&
	refused rloop.img "(/: circular cluster chain" \
		$IMGPATCH patch rloop.img --cmdline +loglevel=7
'

test_expect_success 'FAT12 and FAT32: a chain that leaves the data area' '
	damaged range12 12 1 4070 "out of range (4070 > " &&
	refused_all range12.img "(/EXTLINUX/extlinux.conf: cluster $C1 points to cluster 4070, outside the data area" &&
	damaged range32 32 1 200000 "out of range (200000 > " &&
	refused_all range32.img "(/EXTLINUX/extlinux.conf: cluster $C1 points to cluster 200000, outside the data area"
'

test_expect_success 'a free cluster in a chain' '
	damaged free 16 2 0 "Contains a free cluster" &&
	refused_all free.img "(/EXTLINUX/extlinux.conf: its chain contains a free cluster ($C2))"
'

test_expect_success 'a cluster marked bad in a chain (fsck.fat fails on it too)' '
	damaged bad 32 2 $((0x0ffffff7)) "" &&
	refused_all bad.img "(/EXTLINUX/extlinux.conf: its chain contains a bad cluster ($C2))"
'

test_expect_success 'a reserved value in a chain' '
	damaged res 16 1 $((0xfff2)) "out of range" &&
	refused_all res.img "(/EXTLINUX/extlinux.conf: cluster $C1 holds the reserved value 0xfff2"
'

# two.txt (two clusters) gets extlinux.conf's second cluster as its own
# second, its old one freed: both files still match their sizes.
test_expect_success 'two files sharing a cluster: reading either, or any write, is refused' '
	cp f16.fat cross.fat &&
	set -- $(chain cross.fat /extlinux/extlinux.conf) $(chain cross.fat /two.txt) &&
	test $# = 4 &&
	set_fat cross.fat 16 "$3" "$2" && set_fat cross.fat 16 "$4" 0 &&
	fsck_finds cross.fat "share clusters" &&
	make_disk cross.img cross.fat &&
	refused_all cross.img "(/EXTLINUX/extlinux.conf and /TWO.TXT share cluster $2)\|(/TWO.TXT and /EXTLINUX/extlinux.conf share cluster $2)" &&
	refused cross.img "share cluster $2" $IMGPATCH cat cross.img 1:/TWO.TXT &&
	$IMGPATCH cat cross.img 1:/other.txt >other &&
	cmp other tree/other.txt
'

test_expect_success 'a chain too short for the file size: that file is refused, any write too' '
	cp f16.fat short.fat &&
	set -- $(chain short.fat /other.txt) &&
	set_fat short.fat 16 "$1" $((0xffff)) &&
	fsck_finds short.fat "File size is 1092 bytes, cluster chain length is 512 bytes" &&
	make_disk short.img short.fat &&
	refused short.img "(/OTHER.TXT: file size is 1092 bytes, cluster chain length is 512 bytes)" \
		$IMGPATCH cat short.img 1:/other.txt &&
	refused short.img "(/OTHER.TXT: file size is 1092 bytes" \
		$IMGPATCH patch short.img --cmdline +loglevel=7 &&
	$IMGPATCH cat short.img 1:/extlinux/extlinux.conf >conf &&
	cmp conf tree/extlinux/extlinux.conf
'

test_expect_success 'a chain too long for the file size (a free cluster added at its end)' '
	cp f12.fat long.fat &&
	set -- $(chain long.fat /extlinux/extlinux.conf) &&
	spare=$(($(chain long.fat /Image) + 40)) &&
	set_fat long.fat 12 "$2" "$spare" && set_fat long.fat 12 "$spare" $((0xfff)) &&
	fsck_finds long.fat "cluster chain length is > " &&
	make_disk long.img long.fat &&
	refused_all long.img "(/EXTLINUX/extlinux.conf: file size is $(stat -c %s tree/extlinux/extlinux.conf) bytes, cluster chain length is 1536 bytes)"
'

# mtools reads the FAT a FAT32 names in use when it does not mirror them.
test_expect_success 'FAT32 using its second FAT alone: a loop in that FAT is refused' '
	cp f32.fat active.fat &&
	set -- $(chain active.fat /extlinux/extlinux.conf) &&
	backup=$(le16 active.fat 50) &&
	put_bytes active.fat 40 $((0x81)) 1 &&
	put_bytes active.fat $((backup * 512 + 40)) $((0x81)) 1 &&
	set_fat active.fat 32 "$2" "$1" 1 &&
	fsck_finds active.fat "FATs differ" &&
	mshowfat -i active.fat ::/extlinux/extlinux.conf | grep -q "<$1-$2> <$1>" &&
	make_disk active.img active.fat &&
	refused_all active.img "(/EXTLINUX/extlinux.conf: circular cluster chain (cluster $2 points back to cluster $1))"
'

# set_first FS NAME11 CLUSTER: the first cluster of the 8.3 entry NAME11 (FAT16).
set_first()
{
	local at
	at=$(grep -obUaF "$2" "$1" | head -n 1 | cut -d: -f1) && test -n "$at" &&
	put_bytes "$1" $((at + 26)) "$3" 2
}

# entry_damaged NAME CLUSTER FSCK-PATTERN: NAME.img, extlinux.conf's entry starting at CLUSTER.
entry_damaged()
{
	cp f16.fat "$1.fat" &&
	set_first "$1.fat" "EXTLIN~1CON" "$2" &&
	fsck_finds "$1.fat" "$3" &&
	make_disk "$1.img" "$1.fat"
}

test_expect_success 'an entry whose first cluster is past the data area, or none for 759 bytes' '
	entry_damaged start 60000 "Start cluster beyond limit (60000 > " &&
	refused_all start.img "(/EXTLINUX/extlinux.conf: starts at cluster 60000, outside the data area" &&
	entry_damaged nocl 0 "File size is 759 bytes, cluster chain length is 0 bytes" &&
	refused_all nocl.img "(/EXTLINUX/extlinux.conf: file size is 759 bytes, but it has no cluster)"
'

test_expect_success 'a folder entry whose first cluster is another folder'"'"'s: both named' '
	cp f16.fat dcross.fat &&
	set -- $(chain dcross.fat /extlinux) &&
	set_first dcross.fat "DOCS       " "$1" &&
	fsck_finds dcross.fat "" &&
	make_disk dcross.img dcross.fat &&
	refused dcross.img "(/EXTLINUX and /DOCS share cluster $1)" \
		$IMGPATCH cat dcross.img 1:/docs/a-long-file-name-3.txt &&
	refused_all dcross.img "(/EXTLINUX and /DOCS share cluster $1)"
'

test_done
