#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='one survey: info, doctor and patch find the boot script by one rule; a lookup that fails keeps its cause in each, and in cat; nothing written'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs e2fsck

# same_cause IMAGE PATTERN: info (its fstab line and exit 1), doctor, patch
# and cat all report PATTERN, never "no partition has" or "not found"; the
# image stays byte-identical.
same_cause()
{
	img=$1 pattern=$2
	sum=$(sum_file "$img") &&
	test_must_fail_with 1 $IMGPATCH info "$img" >info.out 2>info.err &&
	grep -F "root fstab: error: p2 (ext4): /etc/fstab: $pattern" info.out &&
	grep -x "imgpatch: $img: 1 problem found" info.err &&
	test_must_fail_with 1 $IMGPATCH info --json "$img" >info.json &&
	grep -F "$pattern" info.json &&
	test_must_fail_with 1 $IMGPATCH doctor "$img" >doctor.out 2>doctor.err &&
	grep -xF "imgpatch: $img: p2 (ext4): /etc/fstab: $pattern" doctor.err &&
	test_must_fail_with 1 $IMGPATCH patch "$img" --fstab /:+noatime >patch.out 2>patch.err &&
	grep -xF "imgpatch: $img: p2 (ext4): /etc/fstab: $pattern" patch.err &&
	test_must_fail_with 1 $IMGPATCH cat "$img" 2:/etc/fstab >cat.out 2>cat.err &&
	grep -xF "imgpatch: $img: p2 (ext4): /etc/fstab: $pattern" cat.err &&
	! grep -h "no partition has /etc/fstab\|: not found$" info.out doctor.err patch.err cat.err &&
	test_file_unchanged "$img" "$sum"
}

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-kv260.sh" good.img &&
	extract_part good.img 2 root.ext4 &&
	e2fsck -fn root.ext4
'

test_expect_success 'corrupt directory block on the way to /etc/fstab' '
	cp root.ext4 dirblock.ext4 &&
	block=$(debugfs -R "blocks /etc" dirblock.ext4 2>/dev/null) &&
	bsize=$(debugfs -R "stats" dirblock.ext4 2>/dev/null | sed -n "s/^Block size: *//p") &&
	test -n "$block" && test -n "$bsize" &&
	printf "garbage!garbage!" | dd of=dirblock.ext4 bs=1 conv=notrunc status=none \
		seek=$((${block%% *} * bsize + 40)) &&
	test_must_fail e2fsck -fn dirblock.ext4 >fsck.out 2>&1 &&
	cp good.img dirblock.img && put_part dirblock.img 2 dirblock.ext4 &&
	same_cause dirblock.img "Directory block checksum does not match directory block"
'

test_expect_success 'dangling symbolic link at /etc/fstab' '
	cp root.ext4 link.ext4 &&
	debugfs -w -R "rm /etc/fstab" link.ext4 &&
	debugfs -w -R "symlink /etc/fstab /etc/nowhere" link.ext4 &&
	debugfs -R "stat /etc/fstab" link.ext4 2>/dev/null | grep "Type: symlink" &&
	cp good.img link.img && put_part link.img 2 link.ext4 &&
	same_cause link.img "dangling symbolic link to /etc/nowhere"
'

test_expect_success 'a boot script away from the FIT is the same news in info, doctor and patch' '
	cp good.img away.img &&
	mcopy -n -i "$(part_mtools away.img 1)" ::/boot.scr.uimg boot.scr.uimg &&
	mdel -i "$(part_mtools away.img 1)" ::/boot.scr.uimg &&
	extract_part away.img 2 away.ext4 &&
	debugfs -w -R "write boot.scr.uimg /boot.scr.uimg" away.ext4 &&
	put_part away.img 2 away.ext4 &&
	sum=$(sum_file away.img) &&
	$IMGPATCH info away.img >info.out &&
	grep -x "boot script: p1 (vfat) has no /boot.scr.uimg or /boot.scr next to /image.fit" info.out &&
	grep -x "user-override.dtb: not on p1" info.out &&
	$IMGPATCH doctor away.img >doctor.out &&
	grep "boot-override-ignored: no boot script (boot.scr.uimg, boot.scr) loads user-override.dtb" doctor.out &&
	test_must_fail_with 1 $IMGPATCH patch away.img --fdt 6 --via override \
		--dt-delete mmc@ff170000:no-1-8-v 2>patch.err &&
	grep -x "imgpatch: away.img: p1 (vfat): no boot script (/boot.scr.uimg or /boot.scr) to load user-override.dtb: the board will ignore it; not writing it (use --force to write it anyway)" patch.err &&
	test_file_unchanged away.img "$sum" &&
	$IMGPATCH patch away.img --fdt 6 --dry-run --dt-delete mmc@ff170000:no-1-8-v >plan.out &&
	grep "via fit: the boot script loads no override file" plan.out &&
	test_file_unchanged away.img "$sum"
'

test_done
