#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='cat: files from FAT and ext4 partitions, by number, GPT name and label'
. "$(dirname "$0")/lib.sh"

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-kv260.sh" gpt.img &&
	"$FIXTURES/mkimage-kv260.sh" mbr.img --mbr --fat16 &&
	extract_part gpt.img 2 root.ext4 &&
	debugfs -R "cat /etc/fstab" root.ext4 >fstab.expect 2>/dev/null &&
	test -s fstab.expect
'

test_expect_success 'ext4 file by filesystem label' '
	$IMGPATCH cat gpt.img writable:/etc/fstab >fstab.got &&
	test_cmp fstab.expect fstab.got
'

test_expect_success 'ext4 file by partition number' '
	$IMGPATCH cat gpt.img 2:/etc/fstab >fstab.got2 &&
	test_cmp fstab.expect fstab.got2
'

test_expect_success 'FAT file by GPT name matches mtype' '
	off=$(part_offset gpt.img 1) &&
	mtype -i "gpt.img@@$off" ::/image.fit >fit.expect &&
	$IMGPATCH cat gpt.img system-boot:/image.fit >fit.got &&
	cmp fit.expect fit.got &&
	$IMGPATCH cat gpt.img 1:boot.scr.uimg >scr.got &&
	mtype -i "gpt.img@@$off" ::/boot.scr.uimg >scr.expect &&
	cmp scr.expect scr.got
'

test_expect_success 'MBR: FAT16 and a logical ext2 partition' '
	off=$(part_offset mbr.img 1) &&
	mtype -i "mbr.img@@$off" ::/boot.scr.uimg >mscr.expect &&
	$IMGPATCH cat mbr.img 1:/boot.scr.uimg >mscr.got && cmp mscr.expect mscr.got &&
	$IMGPATCH cat mbr.img writable:/etc/fstab >mfstab.got &&
	grep "^LABEL=writable" mfstab.got &&
	test_must_fail_with 1 $IMGPATCH cat mbr.img data:/lost+found 2>err &&
	grep "^imgpatch: mbr.img: p5 (ext2): /lost+found: .*directory" err
'

test_expect_success 'missing file: one-line error naming image, partition and path' '
	test_must_fail_with 1 $IMGPATCH cat gpt.img writable:/etc/nope 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep "^imgpatch: gpt.img: p2 (ext4): /etc/nope: " err &&
	test_must_fail_with 1 $IMGPATCH cat gpt.img 1:/nope.txt 2>err2 &&
	grep "^imgpatch: gpt.img: p1 (vfat): /nope.txt: " err2
'

test_expect_success 'a directory is not a file' '
	test_must_fail_with 1 $IMGPATCH cat gpt.img writable:/etc 2>err &&
	grep -i "directory" err
'

test_expect_success 'unknown partition lists the partitions' '
	test_must_fail_with 1 $IMGPATCH cat gpt.img nosuch:/etc/fstab 2>err &&
	grep "system-boot" err && grep "writable" err
'

test_expect_success 'usage errors' '
	test_must_fail_with 2 $IMGPATCH cat gpt.img &&
	test_must_fail_with 2 $IMGPATCH cat gpt.img /etc/fstab
'

test_done
