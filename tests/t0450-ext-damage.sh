#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='patch on damaged ext2/3/4 roots: refused with the problem named and the image byte-identical, or written and e2fsck -fn clean'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs e2fsck tune2fs timeout

export E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH
FS_MB=16

# make_root DIR BYTES: a root tree whose /etc/fstab is BYTES long (BYTES
# 4092: one more option grows it past its 4 KiB block), with more files.
make_root()
{
	rm -rf "$1" && mkdir -p "$1/etc" "$1/srv" &&
	{
		printf "LABEL=writable\t/\text4\tdefaults\t0 1\n"
		head -c $(($2 - 36)) /dev/zero | tr "\0" "#"
		echo
	} >"$1/etc/fstab" &&
	test "$(stat -c %s "$1/etc/fstab")" = "$2" &&
	echo "other" >"$1/etc/other" &&
	seq 1 2000 >"$1/srv/data"
}

# make_fs FS BYTES MKE2FS-ARGS...: FS made from a root with a BYTES fstab.
make_fs()
{
	fs=$1 bytes=$2
	shift 2
	make_root root "$bytes" &&
	mke2fs -q -F -b 4096 -U 4e1bc25a-9d3c-4a5e-8d47-6f2a9c3e1b10 \
		-E root_owner=0:0 "$@" -d root "$fs" ${FS_MB}M
}

# damage FS DEBUGFS-COMMAND...: runs each command read-write on FS; FB in
# a command is the first block of /etc/fstab.
damage()
{
	fs=$1
	shift
	fb=$(debugfs -R "blocks /etc/fstab" "$fs" 2>/dev/null | awk '{ print $1 }') &&
	test -n "$fb" &&
	for cmd in "$@"; do
		debugfs -w -R "${cmd//FB/$fb}" "$fs" >debugfs.log 2>&1 || return 1
		! grep -q "^debugfs: \|: Operation not permitted\|not found" debugfs.log ||
			{ cat debugfs.log; return 1; }
	done
}

# make_disk IMG FS: a GPT disk whose only partition (at 1 MiB) holds FS.
make_disk()
{
	rm -f "$1" &&
	truncate -s $((FS_MB + 2))M "$1" &&
	printf "label: gpt\nstart=2048, size=%d, type=L\n" $((FS_MB * 2048)) |
		sfdisk -q --no-reread --no-tell-kernel "$1" &&
	dd if="$2" of="$1" bs=1M seek=1 conv=notrunc status=none
}

# damaged NAME MKE2FS-ARGS DEBUGFS-COMMAND...: NAME.img, a disk whose
# filesystem NAME.ext4 (made with MKE2FS-ARGS, a 4092-byte fstab) the
# commands damaged.
damaged()
{
	name=$1 args=$2
	shift 2
	# shellcheck disable=SC2086 # the arguments are words
	make_fs "$name.ext4" 4092 $args &&
	damage "$name.ext4" "$@" &&
	make_disk "$name.img" "$name.ext4"
}

# refused IMG PATTERN: patching exits 1 with one error line naming IMG and
# matching PATTERN, and IMG is byte-identical afterwards; a dry run first
# is refused the same way, with the same error.
refused()
{
	sum_file "$1" >before.sum &&
	test_must_fail_with 1 timeout 60 $IMGPATCH patch "$1" --fstab /:+noatime \
		--dry-run >dry.out 2>dry.err &&
	sum_file "$1" >after.sum && test_cmp before.sum after.sum &&
	! grep -q "^dry run:" dry.out &&
	test_must_fail_with 1 timeout 60 $IMGPATCH patch "$1" --fstab /:+noatime \
		>out 2>err &&
	cat err &&
	test_cmp err dry.err &&
	test "$(grep -vc "^imgpatch: warning:" err)" = 1 &&
	grep -q "^imgpatch: $1: " err &&
	grep -q -- "$2" err &&
	sum_file "$1" >after.sum && test_cmp before.sum after.sum
}

# patched IMG: patching works, and the partition is clean and has noatime.
patched()
{
	$IMGPATCH patch "$1" --fstab /:+noatime >out &&
	extract_part "$1" 1 part.ext4 &&
	e2fsck -fn part.ext4 >e2fsck.log 2>&1 &&
	debugfs -R "cat /etc/fstab" part.ext4 2>/dev/null | head -n 1 >fstab.got &&
	grep -q "defaults,noatime" fstab.got
}

test_expect_success 'healthy ext4: fstab grows past its block, e2fsck clean' '
	make_fs ok.ext4 4092 -t ext4 && make_disk ok.img ok.ext4 &&
	sum_file ok.img >before.sum &&
	$IMGPATCH patch ok.img --fstab /:+noatime --dry-run >dry.out &&
	grep -q "^dry run: 1 change planned, nothing written$" dry.out &&
	sum_file ok.img >after.sum && test_cmp before.sum after.sum &&
	patched ok.img
'

test_expect_success 'ext3 (block maps): fstab grows, e2fsck clean' '
	make_fs ok3.ext4 4092 -t ext3 && make_disk ok3.img ok3.ext4 &&
	patched ok3.img
'

test_expect_success 'quota: a change that allocates a block is refused' '
	make_fs quota.ext4 4092 -t ext4 && tune2fs -O quota quota.ext4 >/dev/null &&
	e2fsck -fn quota.ext4 >/dev/null &&
	make_disk quota.img quota.ext4 &&
	refused quota.img "has quota, and this change would change the space used (+1 blocks"
'

test_expect_success 'quota: a change within the same blocks is written, quota exact' '
	make_fs quota2.ext4 200 -t ext4 && tune2fs -O quota quota2.ext4 >/dev/null &&
	make_disk quota2.img quota2.ext4 &&
	patched quota2.img &&
	! grep -i quota e2fsck.log
'

test_expect_success 'MMP: a healthy filesystem is patched' '
	make_fs mmp.ext4 4092 -t ext4 -O mmp && make_disk mmp.img mmp.ext4 &&
	patched mmp.img &&
	debugfs -R dump_mmp part.ext4 >mmp.log 2>&1 &&
	grep -q "^sequence: ff4d4d50" mmp.log
'

test_expect_success 'MMP: a filesystem in use (sequence not clean) is refused, without a wait' '
	make_fs mmpbusy.ext4 4092 -t ext4 -O mmp,^metadata_csum &&
	mmp_block=$(debugfs -R dump_mmp mmpbusy.ext4 2>/dev/null | sed -n "s/^block_number: //p") &&
	test -n "$mmp_block" &&
	printf "\064\022\000\000" |
		dd of=mmpbusy.ext4 bs=1 seek=$((mmp_block * 4096 + 4)) conv=notrunc status=none &&
	debugfs -R dump_mmp mmpbusy.ext4 2>/dev/null | grep -q "^sequence: 0*1234$" &&
	make_disk mmpbusy.img mmpbusy.ext4 &&
	refused mmpbusy.img "in use or was not cleanly unmounted (MMP sequence 0x1234)"
'

# libext2fs used to read the MMP block at its offset in the image file, not
# in the partition, and waited out the MMP interval when it found one there.
test_expect_success 'MMP: an MMP block in use where the image file, not the partition, has it costs no wait' '
	make_disk mmp2.img mmp.ext4 &&
	mmp_block=$(debugfs -R dump_mmp mmp.ext4 2>/dev/null | sed -n "s/^block_number: //p") &&
	test -n "$mmp_block" &&
	busy_block=$(debugfs -R dump_mmp mmpbusy.ext4 2>/dev/null | sed -n "s/^block_number: //p") &&
	dd if=mmpbusy.ext4 of=mmp2.img bs=4096 skip="$busy_block" seek="$mmp_block" \
		count=1 conv=notrunc status=none &&
	timeout 20 $IMGPATCH patch mmp2.img --fstab /:+noatime >out
'

test_expect_success 'MMP: a corrupt MMP block is refused' '
	cp mmp.ext4 mmpbad.ext4 &&
	debugfs -w -R "set_mmp_value magic 0x1234" mmpbad.ext4 >/dev/null 2>&1 &&
	make_disk mmpbad.img mmpbad.ext4 &&
	refused mmpbad.img "the MMP block is corrupt"
'

test_expect_success 'inline_data: a file stored inline is refused' '
	make_fs inline.ext4 100 -t ext4 -O inline_data &&
	make_disk inline.img inline.ext4 &&
	refused inline.img "stored inline in its inode (inline_data)"
'

test_expect_success 'a block in use that the bitmap marks free is refused' '
	damaged freeb "-t ext4 -O ^metadata_csum" "freeb FB" &&
	refused freeb.img "which the block bitmap marks free"
'

test_expect_success 'group counters that disagree with the bitmap are refused' '
	damaged counts "-t ext4 -O ^metadata_csum,^uninit_bg" "set_bg 0 free_blocks_count 7" &&
	refused counts.img "group 0: its free blocks count"
'

test_expect_success 'an inode in use that the inode bitmap marks free is refused' '
	damaged freei "-t ext4" "freei /etc/other" &&
	refused freei.img "free inodes count\|the inode bitmap marks it free"
'

test_expect_success 'a corrupt extent tree of another file is refused' '
	damaged extent "-t ext4" "sif /srv/data block[0] 0x1234" &&
	refused extent.img "its extent tree is corrupt"
'

test_expect_success 'ext3: a block claimed by two inodes (indirect map) is refused' '
	damaged dup "-t ext3" "sif /srv/data block[IND] FB" &&
	refused dup.img "is claimed twice"
'

test_expect_success 'ext3: a block outside the filesystem in a block map is refused' '
	damaged range "-t ext3" "sif /srv/data block[1] 99999999" &&
	refused range.img "outside the filesystem"
'

test_expect_success 'a directory on the path naming a freed inode is refused' '
	damaged dirent "-t ext4" "ln /etc/other /etc/ghost" "sif /etc/other links_count 0" &&
	refused dirent.img "directory .*/etc.* names inode"
'

# The lookup of the path fails first, so the error names the file only.
test_expect_success 'a directory block with a bad checksum is refused' '
	damaged dirblk "-t ext4" "zap_block -f /etc -o 2048 -l 4 -p 0x55 0" &&
	refused dirblk.img "/etc/fstab"
'

test_expect_success 'a group descriptor with a bad checksum is refused' '
	damaged gdcsum "-t ext4" "set_bg 0 checksum 0x1234" &&
	refused gdcsum.img "descriptor checksum"
'

test_expect_success 'a block bitmap with a bad checksum is refused' '
	damaged bmcsum "-t ext4" "set_bg 0 block_bitmap_csum_lo 0x1234" &&
	refused bmcsum.img "Block bitmap checksum does not match"
'

test_expect_success 'reading still works on a damaged filesystem (cat)' '
	$IMGPATCH cat dup.img 1:/etc/fstab >fstab.cat &&
	cmp fstab.cat root/etc/fstab
'

test_done
