#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='partition tables other tools make (sgdisk, parted, xorriso, sfdisk): info lists what sfdisk -J lists, or refuses or warns where sfdisk does'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk fdisk sgdisk parted xorriso blkid jq mkfs.vfat mcopy mtype \
	mdir fsck.fat

# One line per partition: number, start and size in sectors, type (GUID in
# lower case, MBR type in hex without 0x and leading zeros) and GPT name.
# The label comes first.
sfdisk_parts()
{
	sfdisk -J "$@" | jq -r '.partitiontable | .label,
		(.partitions[] | [(.node | capture("(?<n>[0-9]+)$").n),
			.start, .size, (.type | ascii_downcase), (.name // "")] | @tsv)'
}

imgpatch_parts()
{
	jq -r '.table.label, (.partitions[] | [.number, .start_sector, .size_sectors,
		(.type | if startswith("0x") then .[2:] | ltrimstr("0") else . end), (.name // "")] | @tsv)' "$1"
}

# agrees IMG [SFDISK-OPTION...]: info --json lists what sfdisk -J lists,
# with no warning, and changes nothing.
agrees()
{
	local img=$1 sum
	shift
	sum=$(sum_file "$img") &&
	sfdisk_parts "$@" "$img" >sfdisk.list 2>sfdisk.err &&
	$IMGPATCH info --json "$img" >info.json 2>info.err &&
	imgpatch_parts info.json >imgpatch.list &&
	test_cmp sfdisk.list imgpatch.list &&
	test_cmp /dev/null info.err &&
	test_file_unchanged "$img" "$sum"
}

# warns IMG PATTERN [SFDISK-OPTION...]: as agrees, but imgpatch warns (one
# line, matching PATTERN) and so does sfdisk; the exit status is not asked.
warns()
{
	local img=$1 pattern=$2 sum
	shift 2
	sum=$(sum_file "$img") &&
	sfdisk_parts "$@" "$img" >sfdisk.list 2>sfdisk.err &&
	test -s sfdisk.err &&
	{ $IMGPATCH info --json "$img" >info.json 2>info.err; test $? -le 1; } &&
	imgpatch_parts info.json >imgpatch.list &&
	test_cmp sfdisk.list imgpatch.list &&
	grep "^imgpatch: warning: $img: .*$pattern" info.err &&
	test_file_unchanged "$img" "$sum"
}

# refuses IMG PATTERN: info fails with one line matching PATTERN, and the
# image is byte-identical.
refuses()
{
	local img=$1 pattern=$2 sum
	sum=$(sum_file "$img") &&
	test_must_fail $IMGPATCH info "$img" >info.out 2>info.err &&
	test_cmp /dev/null info.out &&
	test "$(wc -l <info.err)" = 1 &&
	grep "^imgpatch: $img: .*$pattern" info.err &&
	test_file_unchanged "$img" "$sum"
}

# A GPT of 64 MiB: an EFI system partition with a FAT, and a Linux one.
make_sgdisk()
{
	rm -f "$1" && truncate -s 64M "$1" &&
	sgdisk -n1:2048:+16M -t1:ef00 -c1:"EFI system" -n2:0:+20M -t2:8300 \
		-c2:rootfs "$1" >/dev/null &&
	mkfs.vfat -n BOOT --offset 2048 "$1" 16384 >/dev/null
}

test_expect_success 'sgdisk GPT' '
	make_sgdisk sg.img && agrees sg.img
'

test_expect_success 'sgdisk hybrid MBR (GPT partition 1 also in the MBR)' '
	make_sgdisk hy.img && sgdisk -h 1 hy.img >/dev/null &&
	sfdisk -J --label-nested dos hy.img | jq -e ".partitiontable.partitions | length == 2" &&
	agrees hy.img
'

test_expect_success 'parted GPT with names' '
	truncate -s 64M pg.img &&
	parted -s pg.img mklabel gpt mkpart boot fat32 1MiB 9MiB \
		mkpart root ext4 9MiB 40MiB set 1 esp on &&
	agrees pg.img
'

test_expect_success 'parted MBR with an extended partition and logical ones' '
	truncate -s 64M pm.img &&
	parted -s pm.img mklabel msdos mkpart primary fat32 1MiB 9MiB \
		mkpart extended 9MiB 60MiB mkpart logical ext4 10MiB 20MiB \
		mkpart logical ext4 21MiB 30MiB &&
	agrees pm.img
'

# Debian 12's sfdisk has no --sector-size; fdisk -b is the same libfdisk.
test_expect_success 'fdisk GPT with 4096-byte sectors' '
	truncate -s 64M g4k.img &&
	printf "g\nn\n\n\n+4M\nn\n\n\n+8M\nx\nn\n2\ndata\nr\nw\n" |
		fdisk -b 4096 g4k.img >fdisk.log 2>&1 &&
	sum=$(sum_file g4k.img) &&
	{ echo gpt; fdisk -b 4096 -l -o Device,Start,Sectors,Type-UUID,Name g4k.img |
		awk -v OFS="\t" "/^g4k.img[0-9]/ { sub(/^g4k.img/, \"\", \$1);
			print \$1, \$2, \$3, tolower(\$4), \$5 }"; } >fdisk.list &&
	$IMGPATCH info --json g4k.img >info.json 2>info.err &&
	imgpatch_parts info.json >imgpatch.list &&
	test_cmp fdisk.list imgpatch.list &&
	test_cmp /dev/null info.err &&
	jq -e ".table.sector_size == 4096" info.json &&
	test_file_unchanged g4k.img "$sum"
'

test_expect_success 'xorriso isohybrid with an appended EFI partition (MBR)' '
	mkdir -p iso && echo hello >iso/hello.txt &&
	mkfs.vfat -C efi.fat 4096 >/dev/null &&
	xorriso -as mkisofs -o isombr.img -V HYBRID -append_partition 2 0xef efi.fat \
		iso 2>xorriso.log &&
	agrees isombr.img &&
	jq -e ".partitions[0].fstype == \"iso9660\" and .partitions[1].fstype == \"vfat\"" info.json
'

test_expect_success 'xorriso isohybrid with the appended partition in a GPT' '
	xorriso -as mkisofs -o isogpt.img -V HYBRID -append_partition 2 0xef efi.fat \
		-appended_part_as_gpt iso 2>xorriso.log &&
	agrees isogpt.img
'

# Shortened after its last partition: the header's usable area and backup
# lie past the end. sfdisk (and libblkid, and Linux) see no GPT in the
# file, only the protective MBR; on a device as large as the table says
# the partitions are whole, and those are what sfdisk lists then.
test_expect_success 'shortened GPT image: listed, with a warning' '
	make_sgdisk short.img && truncate -s 48M short.img &&
	sfdisk -J short.img 2>/dev/null | jq -e ".partitiontable.label == \"dos\"" &&
	cp short.img full.img && truncate -s 64M full.img &&
	sum=$(sum_file short.img) &&
	$IMGPATCH info --json short.img >info.json 2>info.err &&
	sfdisk_parts full.img >sfdisk.list &&
	imgpatch_parts info.json >imgpatch.list &&
	test_cmp sfdisk.list imgpatch.list &&
	test "$(wc -l <info.err)" = 1 &&
	grep "^imgpatch: warning: short.img: GPT: the usable area (LBA 34..131038) runs past the end of the image (98304 sectors): a shortened image?" info.err &&
	test_file_unchanged short.img "$sum"
'

test_expect_success 'shortened GPT image: sgdisk -e silences the warning' '
	cp short.img fixed.img && sgdisk -e fixed.img >/dev/null 2>&1 &&
	agrees fixed.img
'

test_expect_success 'a write onto the shortened image still lands, fsck.fat clean' '
	cat >hello.recipe <<-\EOD &&
	name = "hello"
	summary = "writes a file"
	description = "Writes hello.txt onto the first partition."
	source = "this test"
	risks = "none"
	undo = "delete it"
	step { action = "write-file" part = "1" path = "/hello.txt" content = "hi" }
	EOD
	cp short.img write.img &&
	$IMGPATCH apply ./hello.recipe write.img >apply.out 2>apply.err &&
	grep "warning: write.img: GPT: the usable area" apply.err &&
	test "$(mtype -i write.img@@1048576 ::/hello.txt)" = hi &&
	dd if=write.img of=p1.fat bs=512 skip=2048 count=32768 2>/dev/null &&
	fsck.fat -n p1.fat >fsck.log
'

test_expect_success 'backup GPT header gone (image cut right after the usable area)' '
	make_sgdisk cut.img && truncate -s $((64 * 1048576 - 33 * 512)) cut.img &&
	warns cut.img "GPT: the backup header (LBA 131071) lies past the end of the image (131039 sectors)"
'

test_expect_success 'damaged backup GPT header: the primary is used, with a warning' '
	make_sgdisk bak.img &&
	printf "\132" | dd of=bak.img bs=1 seek=$((64 * 1048576 - 512 + 60)) conv=notrunc 2>/dev/null &&
	warns bak.img "GPT: the backup header (LBA 131071) is damaged (CRC mismatch); using the primary header" &&
	grep "backup GPT table is corrupt" sfdisk.err
'

test_expect_success 'damaged backup GPT entries: the primary is used, with a warning' '
	make_sgdisk bake.img &&
	printf "\132" | dd of=bake.img bs=1 seek=$((64 * 1048576 - 33 * 512 + 60)) conv=notrunc 2>/dev/null &&
	warns bake.img "GPT: the backup header (LBA 131071) is damaged (entries array CRC mismatch)"
'

# Both copies sound but different: sfdisk is silent, Linux warns
# (compare_gpts), and so does imgpatch; the primary is listed.
test_expect_success 'backup GPT differing from the primary: the primary is used, with a warning' '
	make_sgdisk diff.img &&
	python3 "$TEST_DIR/bad/gptedit.py" diff.img --backup 2.name.flip &&
	sum=$(sum_file diff.img) &&
	sfdisk_parts diff.img >sfdisk.list &&
	$IMGPATCH info --json diff.img >info.json 2>info.err &&
	imgpatch_parts info.json >imgpatch.list &&
	test_cmp sfdisk.list imgpatch.list &&
	echo "imgpatch: warning: diff.img: GPT: the backup table (LBA 131071) differs from the primary; using the primary; \`sgdisk -e\` writes the backup again" >expect.err &&
	test_cmp expect.err info.err &&
	test_file_unchanged diff.img "$sum"
'

test_expect_success 'damaged primary GPT header: the backup is used, with a warning' '
	make_sgdisk pri.img &&
	printf "\132" | dd of=pri.img bs=1 seek=$((512 + 60)) conv=notrunc 2>/dev/null &&
	warns pri.img "primary GPT header is corrupt (CRC mismatch); using the backup header" &&
	grep "primary GPT table is corrupt" sfdisk.err &&
	jq -e ".table.used_backup" info.json
'

test_expect_success 'GPT without a protective MBR: refused, as sfdisk and libblkid see none' '
	make_sgdisk nopmbr.img &&
	dd if=/dev/zero of=nopmbr.img bs=512 count=1 conv=notrunc 2>/dev/null &&
	test_must_fail sfdisk -J nopmbr.img >/dev/null 2>&1 &&
	test_must_fail_with 2 blkid -p -o value -s PTTYPE nopmbr.img &&
	refuses nopmbr.img "GPT: there is a GPT header but no protective MBR (sector 0 has no 0x55aa signature)"
'

test_expect_success 'GPT without a protective MBR: sgdisk -e writes one, then it lists' '
	sgdisk -e nopmbr.img >/dev/null 2>&1 && agrees nopmbr.img
'

# Labels imgpatch does not read are named as libblkid names them.
# parted names SGI's label dvh; Sun and SGI labels need no partition to be seen.
for label in atari sun dvh mac; do
	case $label in atari|mac) mkpart="mkpart primary 1MiB 17MiB" ;; *) mkpart= ;; esac
	test_expect_success "parted $label label: refused by name" '
		truncate -s 64M '"$label"'.img &&
		parted -s '"$label"'.img mklabel '"$label $mkpart"' 2>/dev/null &&
		name=$(blkid -p -o value -s PTTYPE '"$label"'.img) && test -n "$name" &&
		refuses '"$label"'.img "$name partition table: not supported (imgpatch reads GPT and MBR)\$"
	'
done

# parted clears a GPT when it writes another label; a Sun label copied
# over sector 0 of a GPT disk leaves both GPT headers: still a Sun disk to
# libblkid and sfdisk.
test_expect_success 'Sun label over a GPT: refused by name, not as a GPT' '
	make_sgdisk sungpt.img &&
	dd if=sun.img of=sungpt.img bs=512 count=1 conv=notrunc 2>/dev/null &&
	sfdisk -J sungpt.img | jq -e ".partitiontable.label == \"sun\"" &&
	refuses sungpt.img "sun partition table: not supported (imgpatch reads GPT and MBR)\$"
'

# mtools 4.0.33 fails "mdir -/ ::/" on an empty root folder.
test_expect_success 'FAT with an empty root folder: info, cat, a write' '
	truncate -s 64M empty.img &&
	printf "label: dos\nstart=2048, size=65536, type=c\n" | sfdisk -q empty.img &&
	mkfs.vfat -n EMPTY --offset 2048 empty.img 32768 >/dev/null &&
	$IMGPATCH info empty.img >info.out 2>info.err &&
	test_cmp /dev/null info.err &&
	grep "searched p1 (vfat)" info.out &&
	sum=$(sum_file empty.img) &&
	test_must_fail $IMGPATCH cat empty.img 1:/x.txt 2>cat.err &&
	echo "imgpatch: empty.img: p1 (vfat): /x.txt: no such file" >cat.expect &&
	test_cmp cat.expect cat.err &&
	test_file_unchanged empty.img "$sum" &&
	$IMGPATCH apply ./hello.recipe empty.img >apply.out &&
	test "$(mtype -i empty.img@@1048576 ::/hello.txt)" = hi &&
	test "$($IMGPATCH cat empty.img 1:/hello.txt)" = hi &&
	dd if=empty.img of=empty.fat bs=512 skip=2048 count=65536 2>/dev/null &&
	fsck.fat -n empty.fat >fsck.log
'

test_expect_success 'FAT root emptied again: still an empty listing, not an error' '
	mdel -i empty.img@@1048576 ::/hello.txt &&
	test_must_fail $IMGPATCH cat empty.img 1:/hello.txt 2>cat.err &&
	grep "hello.txt: no such file$" cat.err
'

test_done
