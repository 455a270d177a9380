#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='changes that need a root imgpatch cannot write (btrfs, xfs, f2fs, squashfs) are refused in one line naming file, partition and filesystem, with the alternative where one exists (rootflags= on the kernel command line, cloud-init seed); the image byte-identical (cmp); the suggested --cmdline +rootflags= patch works on the writable boot side (read back with debugfs)'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mkswap dtc debugfs e2fsck fsck.fat mtype \
	mkfs.btrfs btrfs mkfs.xfs mkfs.f2fs sload.f2fs mksquashfs
export IMGPATCH_RECIPE_PATH=$IMGPATCH_BUILD/recipes

. "$FIXTURES/lib-fixture.sh"

ROOTS="btrfs xfs f2fs squashfs"

# boot_file IMG PATH: a file of the ext4 /boot (p2), read by debugfs after e2fsck -fn.
boot_file()
{
	local -; set +x
	extract_part "$1" 2 "$1.p2" && e2fsck -fn "$1.p2" >/dev/null 2>&1 &&
	ext_cat "$1.p2" "$2"
}

NOWRITE='is a filesystem imgpatch cannot write (it writes FAT and ext2/3/4)'

test_expect_success 'build the images' '
	for fs in $ROOTS; do
		"$FIXTURES/mkimage-fedora.sh" $fs.img --root=$fs || return 1
	done &&
	"$FIXTURES/mkimage-fedora.sh" cidata.img --nocloud
'

test_expect_success '--fstab / on btrfs: refused, the rootflags= edit that keeps subvol=root suggested' '
	refused_intact btrfs.img 1 \
		"imgpatch: btrfs.img: /etc/fstab: p4 (btrfs), the likely root, $NOWRITE; the root'"'"'s mount options can go into rootflags= on the kernel command line instead: imgpatch patch IMAGE --cmdline +rootflags=subvol=root,noatime" \
		imgpatch patch btrfs.img --fstab /:+noatime
'

test_expect_success '--fstab / on xfs: the suggestion adds rootflags=; --dry-run refuses the same' '
	refused_intact xfs.img 1 \
		"imgpatch: xfs.img: /etc/fstab: p4 (xfs), the likely root, $NOWRITE; the root'"'"'s mount options can go into rootflags= on the kernel command line instead: imgpatch patch IMAGE --cmdline +rootflags=noatime,commit=60" \
		imgpatch patch xfs.img --fstab /:+noatime,+commit=60 &&
	refused_intact xfs.img 1 "imgpatch: xfs.img: /etc/fstab: p4 (xfs), the likely root, $NOWRITE; .*" \
		imgpatch patch xfs.img --dry-run --fstab /:+noatime
'

test_expect_success '--fstab / removing what rootflags= does not set: nothing to suggest' '
	refused_intact f2fs.img 1 \
		"imgpatch: f2fs.img: /etc/fstab: p4 (f2fs), the likely root, $NOWRITE; rootflags= on the kernel command line (none) needs no such change" \
		imgpatch patch f2fs.img --fstab /:-discard
'

test_expect_success '--fstab of another mount point, --root naming the btrfs: refused without a rootflags= hint' '
	refused_intact btrfs.img 1 \
		"imgpatch: btrfs.img: /etc/fstab: p4 (btrfs), the likely root, $NOWRITE" \
		imgpatch patch btrfs.img --fstab /home:+noatime &&
	refused_intact btrfs.img 1 \
		"imgpatch: btrfs.img: /etc/fstab: p4 (btrfs), the likely root, $NOWRITE; .* +rootflags=subvol=root,noatime" \
		imgpatch patch btrfs.img --fstab /:+noatime --root 4
'

test_expect_success 'a recipe that needs the root, on each root filesystem: refused, image intact' '
	for fs in $ROOTS; do
		refused_intact $fs.img 1 \
			"imgpatch: $fs.img: recipe '"'"'hostname'"'"' does not match this image: expected root:/etc/fstab, found: p4 ($fs), the likely root, $NOWRITE" \
			imgpatch apply hostname $fs.img --set hostname=lab-1 || return 1
	done &&
	refused_intact squashfs.img 1 "imgpatch: squashfs.img: recipe '"'"'fstab-noatime'"'"' does not match this image: .*p4 (squashfs), the likely root, $NOWRITE" \
		imgpatch apply fstab-noatime squashfs.img
'

test_expect_success 'with a cloud-init seed on the boot side, the refusal points to it, and that way works' '
	refused_intact cidata.img 1 \
		"imgpatch: cidata.img: recipe '"'"'hostname'"'"' does not match this image: expected root:/etc/fstab, found: p4 (btrfs), the likely root, $NOWRITE; first-boot settings can go to cloud-init'"'"'s seed on p1 (vfat, cidata), which the image reads at first boot: the cloud-init-\* recipes (imgpatch recipes)" \
		imgpatch apply hostname cidata.img --set hostname=lab-1 &&
	imgpatch apply cloud-init-hostname cidata.img --set hostname=lab-1 >plan &&
	extract_part cidata.img 1 cidata.p1 && fsck.fat -n cidata.p1 >/dev/null &&
	mtype -i "$(part_mtools cidata.img 1)" ::/meta-data >meta &&
	grep -x "local-hostname: lab-1" meta
'

test_expect_success 'the suggested command: patch --cmdline +rootflags= edits extlinux.conf on the ext4 /boot' '
	cp btrfs.img flags.img &&
	imgpatch patch btrfs.img --fstab /:+noatime 2>err || :
	cmd=$(sed -n "s/.*instead: imgpatch patch IMAGE //p" err) &&
	test "$cmd" = "--cmdline +rootflags=subvol=root,noatime" &&
	imgpatch patch flags.img $cmd >plan &&
	boot_file flags.img /extlinux/extlinux.conf >conf &&
	grep -x "	append ro root=UUID=46656472-6100-0000-0000-000000000004 rootflags=subvol=root,noatime LANG=en_US.UTF-8" conf &&
	test "$(grep -c rootflags conf)" = 1 &&
	imgpatch cat flags.img --cmdline | tail -1 >line &&
	echo "ro root=UUID=46656472-6100-0000-0000-000000000004 rootflags=subvol=root,noatime LANG=en_US.UTF-8" >want &&
	test_cmp want line &&
	sum=$(sum_file flags.img) &&
	imgpatch patch flags.img $cmd >again && grep "unchanged (already applied)" again &&
	test_file_unchanged flags.img "$sum"
'

test_expect_success 'only the boot partition changed: the btrfs root is byte-identical' '
	extract_part btrfs.img 4 a.p4 && extract_part flags.img 4 b.p4 && cmp a.p4 b.p4 &&
	extract_part btrfs.img 1 a.p1 && extract_part flags.img 1 b.p1 && cmp a.p1 b.p1
'

test_done
