#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='roots imgpatch cannot write (btrfs, xfs, f2fs, squashfs): info names each filesystem at the superblock magic the real tools read, says which partition is the likely root (text and JSON, valid against the schema); doctor judges the boot side and says what went unjudged'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mkswap dtc python3 blkid \
	mkfs.btrfs btrfs mkfs.xfs xfs_db mkfs.f2fs sload.f2fs dump.f2fs fsck.f2fs \
	mksquashfs unsquashfs

ROOTS="btrfs xfs f2fs squashfs"

# json_get FILE EXPR: one value out of a JSON document (python3's json).
json_get()
{
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# magic_at FILE OFFSET LEN: the bytes at OFFSET of FILE, in hex.
magic_at()
{
	od -An -tx1 -j "$2" -N "$3" "$1" | tr -d ' \n'
}

test_expect_success 'build the Fedora-like images, one per root filesystem' '
	for fs in $ROOTS; do
		"$FIXTURES/mkimage-fedora.sh" $fs.img --root=$fs &&
		extract_part $fs.img 4 $fs.p4 || return 1
	done &&
	extract_part btrfs.img 3 swap.p3
'

test_expect_success 'the real tools read each root where the magic table says it is' '
	btrfs inspect-internal dump-super btrfs.p4 >super.btrfs &&
	grep -E "^magic[[:space:]]+_BHRfS_M \[match\]" super.btrfs &&
	grep -E "^label[[:space:]]+fedora$" super.btrfs &&
	test "$(magic_at btrfs.p4 $((0x10040)) 8)" = "$(printf _BHRfS_M | od -An -tx1 | tr -d " \n")" &&
	test "$(xfs_db -r -c "sb 0" -c "p magicnum" xfs.p4)" = "magicnum = 0x58465342" &&
	test "$(magic_at xfs.p4 0 4)" = 58465342 &&
	fsck.f2fs -f f2fs.p4 >fsck.f2fs.out 2>&1 &&
	dump.f2fs -d 1 f2fs.p4 >dump.f2fs.out 2>&1 &&
	grep -E "^magic[[:space:]]+\[0xf2f52010 " dump.f2fs.out &&
	test "$(magic_at f2fs.p4 1024 4)" = 1020f5f2 &&
	unsquashfs -s squashfs.p4 >sq.out &&
	grep "^Found a valid SQUASHFS 4:0 superblock" sq.out &&
	test "$(magic_at squashfs.p4 0 4)" = 68737173 &&
	test "$(magic_at swap.p3 $((4096 - 10)) 10)" = "$(printf SWAPSPACE2 | od -An -tx1 | tr -d " \n")"
'

test_expect_success 'info names every partition'"'"'s filesystem as blkid does' '
	for fs in $ROOTS; do
		imgpatch info $fs.img >info.$fs &&
		blkid -p -o value -s TYPE $fs.p4 >want &&
		echo $fs >want.fs && test_cmp want.fs want &&
		grep -E "^ +4 +[0-9]+ +[0-9.]+M +Linux +$fs( |$)" info.$fs &&
		grep -E "^ +3 +[0-9]+ +8.0M +Linux swap / Solaris +swap +swap" info.$fs &&
		grep -E "^ +1 +2048 +16.0M +W95 FAT32 \(LBA\) +vfat +FW" info.$fs &&
		grep -E "^ +2 +\* +[0-9]+ +32.0M +Linux +ext4 +boot" info.$fs || return 1
	done
'

test_expect_success 'info: the root fstab line names the likely root and why it is not read' '
	for fs in $ROOTS; do
		subvol=
		[ $fs != btrfs ] || subvol="; the kernel mounts the subvolume rootflags= names: subvol=root"
		grep -x "root fstab: /etc/fstab: p4 ($fs) is likely the root, and imgpatch reads and writes only FAT and ext2/3/4 (no partition has /etc/fstab (searched p1 (vfat), p2 (ext4)))$subvol" info.$fs ||
			return 1
	done
'

# btrfs-progs 6.2 (Debian 12) makes no subvolumes without mounting: its
# mkfs.btrfs has --rootdir but not --subvol (a later release added it), and
# "btrfs subvolume create" needs a mounted filesystem. So the fixture's
# root/ and home/ are folders; what the kernel mounts is read from the
# command line, which imgpatch does read: rootflags=subvol=.
test_expect_success 'info: a btrfs root shows the subvolume rootflags= names, or the default one' '
	mkfs.btrfs --help >mkfs.help 2>&1 || :
	grep -e "--rootdir" mkfs.help && ! grep -e "--subvol" mkfs.help &&
	imgpatch info --json btrfs.img >info.btrfs.json &&
	imgpatch info --json xfs.img >info.xfs.json &&
	test "$(json_get info.btrfs.json "d[\"root_unread\"][\"subvol\"]")" = subvol=root &&
	test "$(json_get info.xfs.json "\"subvol\" in d[\"root_unread\"]")" = False &&
	cp btrfs.img id.img &&
	imgpatch patch id.img --cmdline +rootflags=subvolid=256,noatime >plan &&
	imgpatch info id.img >info.id &&
	grep "^root fstab: .*; the kernel mounts the subvolume rootflags= names: subvolid=256$" info.id &&
	cp btrfs.img top.img &&
	imgpatch patch top.img --cmdline -rootflags >plan &&
	imgpatch cat top.img --cmdline | tail -1 >line &&
	! grep rootflags line &&
	imgpatch info --json top.img >top.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/info.schema.json" top.json &&
	test "$(json_get top.json "d[\"root_unread\"][\"subvol\"]")" = None &&
	imgpatch info top.img >info.top &&
	grep "^root fstab: .*; the kernel mounts its default subvolume (rootflags= names none)$" info.top
'

test_expect_success 'info: the boot side is still read (extlinux on /boot, its command line)' '
	grep "^boot path: extlinux /extlinux/extlinux.conf, label Fedora-Minimal-39-1.5 (6.5.6-300.fc39.aarch64), fdtdir" info.btrfs &&
	grep -x "  cmdline: ro root=UUID=46656472-6100-0000-0000-000000000004 rootflags=subvol=root LANG=en_US.UTF-8" info.btrfs &&
	grep -x "  cmdline: ro root=UUID=46656472-6100-0000-0000-000000000004 LANG=en_US.UTF-8" info.xfs
'

test_expect_success 'info --json: fstype per partition, root_unread, valid against the schema' '
	for fs in $ROOTS; do
		imgpatch info --json $fs.img >info.$fs.json &&
		python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/info.schema.json" info.$fs.json &&
		test "$(json_get info.$fs.json "\" \".join(p[\"fstype\"] for p in d[\"partitions\"])")" = "vfat ext4 swap $fs" &&
		test "$(json_get info.$fs.json "d[\"root_unread\"][\"partition\"]")" = 4 &&
		test "$(json_get info.$fs.json "d[\"root_unread\"][\"fstype\"]")" = $fs &&
		test "$(json_get info.$fs.json "d[\"fstab\"]")" = None || return 1
	done
'

test_expect_success 'info: a superblock blkid rejects is still named by its magic' '
	cp xfs.img xfs-bad.img &&
	off=$(part_offset xfs-bad.img 4) &&
	printf "\000\000\000\000" | dd of=xfs-bad.img bs=1 seek=$((off + 4)) conv=notrunc status=none &&
	extract_part xfs-bad.img 4 bad.p4 &&
	test_must_fail blkid -p bad.p4 &&
	imgpatch info xfs-bad.img >info.bad &&
	grep -E "^ +4 +[0-9]+ +300.0M +Linux +xfs *$" info.bad &&
	grep "^root fstab: /etc/fstab: p4 (xfs) is likely the root" info.bad
'

test_expect_success 'doctor: judges the boot side, says the root was not read and what went unjudged' '
	for fs in $ROOTS; do
		imgpatch doctor $fs.img >doctor.$fs &&
		grep "^warning  uhs-modes-missing: " doctor.$fs &&
		grep "^warning  swap-on-sd: swap partition p3 on the card" doctor.$fs &&
		grep -x "root: p4 ($fs), the likely root, could not be read (imgpatch reads FAT and ext2/3/4); not judged: fstab-discard, fstab-atime, fstrim-timer-off" doctor.$fs &&
		! grep -E "^(warning|info) +(fstab-|fstrim-)" doctor.$fs || return 1
	done
'

test_expect_success 'doctor --json: root_unread, valid against the schema; --fail-on still works' '
	imgpatch doctor --json btrfs.img >doctor.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/doctor.schema.json" doctor.json &&
	json_get doctor.json "d[\"root_unread\"]" | grep "^p4 (btrfs), the likely root, could not be read" &&
	test "$(json_get doctor.json "d[\"summary\"][\"warning\"]")" = 2 &&
	test_must_fail_with 3 imgpatch doctor btrfs.img --fail-on warning >/dev/null
'

test_expect_success 'an ext4 root is still read as before: no root_unread' '
	"$FIXTURES/mkimage-extlinux.sh" ext.img &&
	imgpatch info --json ext.img >ext.json &&
	test "$(json_get ext.json "\"root_unread\" in d")" = False &&
	imgpatch doctor --json ext.img >ext-doctor.json &&
	test "$(json_get ext-doctor.json "d[\"root_unread\"]")" = None
'

test_done
