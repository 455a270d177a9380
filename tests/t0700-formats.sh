#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='image formats: downloads made by the real tools, bmap files flashed by bmaptool'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools script xz gzip zstd bzip2 lz4 zip 7z tar bmaptool sfdisk cmp awk
# Working copies go here, so that no other program's in /tmp is counted.
mkdir -p tmp && export TMPDIR=$PWD/tmp

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
KV260_ARGS="--fdt $FDT --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

# bmap_elements BMAP: the map without its comments, blank lines and own
# checksum, which are all that may differ from what bmaptool writes.
bmap_elements()
{
	awk '/<!--/ { c = 1 } !c && NF && !/BmapFileChecksum/ { print } /-->/ { c = 0 }' "$1"
}

# The image as it is downloaded: each format made by its own tool, each
# read back by the same tool (the inputs of the CLI checks).
test_expect_success 'KV260 image in every download format' '
	make_kv260 kv.img &&
	xz -k -T1 kv.img && gzip -k -n kv.img && zstd -q kv.img &&
	bzip2 -k kv.img && lz4 -q kv.img kv.img.lz4 &&
	zip -q kv.zip kv.img && 7z a -bd kv.7z kv.img >7z.log &&
	tar -cJf kv.tar.xz kv.img &&
	for t in xz gzip:gz zstd:zst bzip2:bz2 lz4; do
		tool=${t%%:*} && ext=${t#*:} &&
		$tool -dc kv.img.$ext >back.img && cmp kv.img back.img || exit 1
	done &&
	unzip -p kv.zip >back.img && cmp kv.img back.img &&
	7z x -so kv.7z >back.img 2>/dev/null && cmp kv.img back.img &&
	tar -xJOf kv.tar.xz >back.img && cmp kv.img back.img &&
	rm back.img
'

# flash_over_junk IMG BMAP OUT: what bmaptool does to a used card: only the
# mapped blocks are written, every other block keeps its old (random) bytes.
flash_over_junk()
{
	head -c "$(stat -c %s "$1")" /dev/urandom >"$3" &&
	sed -n 's/.*<Range[^>]*> *\([0-9]*\)\(-\([0-9]*\)\)\? *<\/Range>.*/\1 \3/p' "$2" |
	while read -r first last; do
		dd if="$1" of="$3" bs=4096 skip="$first" seek="$first" \
			count=$(( ${last:-$first} - first + 1 )) conv=notrunc status=none || exit 1
	done
}

test_expect_success 'the reference: the raw image patched with -o' '
	imgpatch patch kv.img $KV260_ARGS -o ref.img >/dev/null &&
	cp kv.img inplace.img && imgpatch patch inplace.img $KV260_ARGS >/dev/null &&
	cmp ref.img inplace.img
'

for in in kv.img.xz kv.img.gz kv.img.zst kv.img.bz2 kv.img.lz4 kv.zip kv.7z kv.tar.xz; do
	test_expect_success "input $in: patched -o out.img equals the reference" '
		sum_file '$in' >in.sum &&
		imgpatch patch '$in' $KV260_ARGS -o out-'$in'.img >out &&
		cmp ref.img out-'$in'.img &&
		sum_file '$in' >in.sum2 && test_cmp in.sum in.sum2
	'
done

for ext in xz gz zst bz2 lz4; do
	test_expect_success "output .img.$ext: decompresses to the reference" '
		imgpatch patch kv.img.xz $KV260_ARGS -o out.img.'$ext' >/dev/null &&
		case '$ext' in
		xz) xz -t out.img.xz && xz -dc out.img.xz ;;
		gz) gzip -dc out.img.gz ;;
		zst) zstd -dcq out.img.zst ;;
		bz2) bzip2 -dc out.img.bz2 ;;
		lz4) lz4 -dcq out.img.lz4 ;;
		esac >back.img &&
		cmp ref.img back.img
	'
done

test_expect_success '--compress wins over the suffix; --level and --threads are taken' '
	imgpatch patch kv.img $KV260_ARGS -o out.bin --compress xz --level 1 --threads 2 >/dev/null &&
	xz -dc out.bin >back.img && cmp ref.img back.img &&
	imgpatch patch kv.img $KV260_ARGS -o plain.img.xz --compress none >/dev/null &&
	cmp ref.img plain.img.xz
'

test_expect_success 'a raw -o output is sparse, keeping the input'"'"'s holes' '
	test $(($(stat -c %b ref.img) * 512)) -lt $(stat -c %s ref.img) &&
	test $(stat -c %b ref.img) -le $(( $(stat -c %b kv.img) + 2048 ))
'

test_expect_success 'a compressed IMAGE is not patched in place without --in-place' '
	sum_file kv.img.xz >a &&
	test_must_fail_with 2 imgpatch patch kv.img.xz $KV260_ARGS 2>err &&
	grep "give -o OUT (or --in-place" err &&
	sum_file kv.img.xz >b && test_cmp a b
'

test_expect_success '--in-place recompresses over a compressed IMAGE' '
	cp kv.img.xz over.img.xz &&
	imgpatch patch over.img.xz $KV260_ARGS --in-place >/dev/null &&
	xz -t over.img.xz && xz -dc over.img.xz >back.img && cmp ref.img back.img &&
	! ls .over.img.xz.* 2>/dev/null
'

test_expect_success 'an archive with two files is refused, nothing left behind' '
	cp kv.img second.img && zip -q two.zip kv.img second.img &&
	test_must_fail_with 1 imgpatch patch two.zip $KV260_ARGS -o two.img 2>err &&
	grep "2 files" err &&
	test ! -e two.img && ! ls .two.img.* 2>/dev/null
'

test_expect_success 'a truncated download: error, the existing output untouched' '
	head -c 20000 kv.img.xz >cut.img.xz &&
	echo old >cut-out.img &&
	test_must_fail_with 1 imgpatch patch cut.img.xz $KV260_ARGS -o cut-out.img 2>err &&
	cat err &&
	test "$(cat cut-out.img)" = old && ! ls .cut-out.img.* 2>/dev/null
'

test_expect_success 'patch -o IMG --bmap: elements as bmaptool create, flashing a used card works' '
	imgpatch patch kv.img $KV260_ARGS -o out.img --bmap out.bmap >/dev/null &&
	bmaptool copy --bmap out.bmap out.img flashed.img 2>/dev/null &&
	cmp out.img flashed.img &&
	bmaptool create -o tool.bmap out.img &&
	bmap_elements tool.bmap >tool.elements &&
	bmap_elements out.bmap >out.elements &&
	test_cmp tool.elements out.elements
'

test_expect_success 'apply --in-place --bmap on a raw image: the map of the patched image' '
	cp --sparse=always kv.img ipb.img &&
	imgpatch patch ipb.img $KV260_ARGS --in-place --bmap ipb.bmap >/dev/null &&
	cmp ref.img ipb.img &&
	bmaptool copy --bmap ipb.bmap ipb.img flashed-ipb.img 2>/dev/null &&
	cmp ipb.img flashed-ipb.img
'

# xz_blocks FILE: each block's uncompressed offset, compressed size and
# check value, sorted (xz --robot -lvv columns 6, 7 and 11).
xz_blocks()
{
	xz --robot -lvv "$1" | awk -F'\t' '$1 == "block" { print $6, $7, $11 }' | sort
}

test_expect_success 'a multi-block .xz is patched block-wise: the changed blocks re-encoded, the rest copied' '
	xz -T2 --block-size=1MiB -c kv.img >multi.img.xz &&
	imgpatch patch multi.img.xz $KV260_ARGS -o multi-out.img.xz >out &&
	sed -n "s/.*: 2 changes, \([0-9]*\) of \([0-9]*\) xz blocks re-encoded$/\1 \2/p" out >counts &&
	read changed total <counts &&
	test "$total" -eq "$(xz_blocks multi.img.xz | wc -l)" &&
	test "$changed" -ge 1 && test $((changed * 4)) -lt "$total" &&
	xz -t multi-out.img.xz &&
	xz -dc multi-out.img.xz | cmp - ref.img &&
	xz_blocks multi.img.xz >in.blocks && xz_blocks multi-out.img.xz >out.blocks &&
	test "$(comm -12 in.blocks out.blocks | wc -l)" -ge $((total - changed)) &&
	IMGPATCH_XZ_WHOLE=1 imgpatch patch multi.img.xz $KV260_ARGS -o whole.img.xz >out2 &&
	! grep "re-encoded" out2 &&
	xz -dc whole.img.xz | cmp - ref.img &&
	cp multi.img.xz ip.img.xz &&
	imgpatch patch ip.img.xz $KV260_ARGS --in-place >/dev/null &&
	xz -dc ip.img.xz | cmp - ref.img
'

test_expect_success 'a corrupt block of a multi-block .xz: one-line error, no output, the input untouched' '
	cp multi.img.xz bad.img.xz &&
	xz --robot -lvv bad.img.xz | awk -F"\t" "\$1 == \"block\" && \$6 == 1048576 { print \$5 + int(\$7 / 2) }" >pos &&
	test -s pos &&
	printf "\377" | dd of=bad.img.xz bs=1 seek="$(cat pos)" conv=notrunc status=none &&
	sum_file bad.img.xz >bad.sum &&
	test_must_fail_with 1 imgpatch patch bad.img.xz $KV260_ARGS -o bad-out.img.xz 2>err &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^imgpatch: bad\.img\.xz: .*xz block 2 of [0-9]*: corrupt data" err &&
	test_must_fail_with 1 imgpatch patch bad.img.xz $KV260_ARGS --in-place 2>err &&
	grep "xz block 2 of" err &&
	test_file_unchanged bad.img.xz "$(cat bad.sum)" &&
	! ls -a | grep -E "^(bad-out\.img\.xz|\.bad)"
'

# A raw input's holes say "unused" (bmaptool create trusts them too); a
# compressed input has none, so its bmap is made from its filesystems: the
# free blocks of a used card keep their junk, and both filesystems are clean.
test_expect_success 'patch -o IMG.xz --bmap: bmaptool flashes the compressed output' '
	imgpatch patch kv.img.xz $KV260_ARGS -o out.img.xz --bmap out-xz.bmap >/dev/null &&
	bmaptool copy --bmap out-xz.bmap out.img.xz flashed-xz.img 2>/dev/null &&
	cmp ref.img flashed-xz.img &&
	flash_over_junk ref.img out-xz.bmap junk-xz.img &&
	kv260_patched junk-xz.img &&
	mapped=$(sed -n "s/.*<MappedBlocksCount> *\([0-9]*\) *<.*/\1/p" out-xz.bmap) &&
	blocks=$(sed -n "s/.*<BlocksCount> *\([0-9]*\) *<.*/\1/p" out-xz.bmap) &&
	test "$mapped" -lt "$((blocks / 4))"
'

test_expect_success 'info and cat read compressed and archived images' '
	imgpatch info kv.img >raw.info &&
	imgpatch cat kv.img writable:/etc/fstab >raw.fstab &&
	for in in kv.img.zst kv.zip kv.tar.xz; do
		imgpatch info $in >$in.info &&
		tail -n +2 raw.info >a && tail -n +2 $in.info >b && test_cmp a b &&
		imgpatch cat $in writable:/etc/fstab >$in.fstab &&
		test_cmp raw.fstab $in.fstab || return 1
	done &&
	! ls "$TMPDIR"/.imgpatch-work.* 2>/dev/null
'

# One MBR in a few hundred passes the old tar checksum (a byte sum) by its
# random disk id: this one, which GNU tar lists as a member with no name.
test_expect_success 'a disk whose first sector passes tar'"'"'s checksum is read as a disk, raw or compressed' '
	truncate -s 48M sum.img &&
	printf "label: dos\nlabel-id: 0x282511e3\nstart=32768, size=32768, type=83\n" |
		sfdisk -q sum.img &&
	tar -tvf sum.img >tar.list 2>&1 && grep -F "empty member name" tar.list &&
	xz -k -T1 sum.img &&
	for in in sum.img sum.img.xz; do
		imgpatch info $in >$in.info &&
		grep -Fx "$in: 50331648 bytes, dos, disk 0x282511e3; sector size 512" $in.info ||
			return 1
	done
'

test_expect_success 'no progress lines when stderr is not a terminal' '
	imgpatch patch kv.img.xz $KV260_ARGS -o quiet.img.xz >/dev/null 2>err &&
	test ! -s err
'

test_expect_success 'progress on a terminal' '
	script -qec "$IMGPATCH patch kv.img.xz $KV260_ARGS -o tty.img.xz" /dev/null >tty.log &&
	grep "decompressing" tty.log && grep "compressing" tty.log
'

test_done
