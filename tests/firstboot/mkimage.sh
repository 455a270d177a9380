#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mkimage.sh VARIANT OUT.img: a disk image of build-rootfs.sh's VARIANT
# (cloud-init or plain), laid out as Ubuntu's preinstalled server images:
#
#   MBR (lubuntu-team/livecd-rootfs 5fb3d42d36bdbd710f6f7e92ebe6c1b0f650699c,
#   live-build/ubuntu-cpc/hooks.d/base/disk-image.binary: "mklabel msdos",
#   the boot partition FAT32 and bootable, "mkfs.vfat -n system-boot")
#     p1  FAT32 (type 0c) "system-boot", 256 MiB from 1 MiB: the root's
#         /boot/firmware (the seed in the cloud-init variant) and copies of
#         the kernel and initrd (vmlinuz, initrd.img)
#     p2  ext4 "writable": the root, made with mke2fs -d (e2fsprogs 1.47.0
#         takes a folder, not a tarball: the tarball is unpacked under
#         fakeroot, which keeps the owners without root)
#
# The kernel and initrd are also written beside the image, as OUT.img.vmlinuz
# and OUT.img.initrd, for QEMU to boot directly (lib.sh's fb_boot). Both
# filesystems are checked (e2fsck -fn, fsck.fat -n) before OUT.img appears.
#
# Exits as build-rootfs.sh does: 0, 1 (failed), 3 (a tool is missing or
# the mirror cannot be reached; stdout says which).

set -u

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ $# -ne 2 ]; then
	echo "usage: $prog cloud-init|plain OUT.img" >&2
	exit 2
fi
variant=$1
out=$2
export PATH=$PATH:/usr/sbin:/sbin

# Root keeps the owners of unpacked files by itself; a user needs fakeroot.
as_root=()
[ "$(id -u)" = 0 ] || as_root=(fakeroot --)
missing=()
for t in sfdisk mke2fs e2fsck mkfs.vfat fsck.fat mcopy tar ${as_root[0]:+fakeroot}; do
	command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
if [ ${#missing[@]} -ne 0 ]; then
	echo "missing: ${missing[*]}"
	exit 3
fi

work=$(mktemp -d "$(dirname "$out")/.mkimage.XXXXXX") &&
	work=$(cd "$work" && pwd) || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP

msg=$(bash "$here/build-rootfs.sh" "$variant" "$work/root.tar")
rc=$?
[ -z "$msg" ] || echo "$msg"
[ $rc -eq 0 ] || exit $rc

fail()
{
	echo "$prog: $*" >&2
	exit 1
}

fat_mib=256

# As root or under fakeroot: unpack, split /boot/firmware off to the FAT side, make
# the ext4 with the owners the tarball gives. The root is sized to what it
# holds plus room for what the tests add and the first boot writes.
"${as_root[@]}" bash -euc '
	work=$1
	mkdir "$work/root" "$work/fat"
	tar -C "$work/root" --numeric-owner -xpf "$work/root.tar"
	rm -f "$work/root.tar"
	if [ -n "$(ls -A "$work/root/boot/firmware")" ]; then
		mv "$work/root/boot/firmware"/* "$work/fat/"
	fi
	kernel=$(ls "$work"/root/boot/vmlinuz-* | sort -V | tail -n 1)
	initrd=$work/root/boot/initrd.img-${kernel##*/vmlinuz-}
	cp "$kernel" "$work/fat/vmlinuz"
	cp "$initrd" "$work/fat/initrd.img"
	used=$(du -sm "$work/root" | cut -f1)
	mke2fs -q -F -t ext4 -L writable -d "$work/root" \
		"$work/root.ext4" "$((used * 3 / 2 + 512))M"
' make-root "$work" >"$work/log" 2>&1 ||
	{ cat "$work/log" >&2; fail "making the $variant root failed"; }

e2fsck -fn "$work/root.ext4" >"$work/log" 2>&1 ||
	{ cat "$work/log" >&2; fail "e2fsck finds the $variant root damaged"; }

# (mkfs.vfat warns of the lowercase label, which is Ubuntu's.)
mkfs.vfat -F 32 -n system-boot -C "$work/boot.fat" $((fat_mib * 1024)) \
	>"$work/log" 2>&1 || { cat "$work/log" >&2; fail "mkfs.vfat failed"; }
export MTOOLS_SKIP_CHECK=1
(cd "$work/fat" && for f in *; do
	mcopy -s -i "$work/boot.fat" "$f" ::/ || exit 1
done) || fail "copying the files of system-boot failed"
fsck.fat -n "$work/boot.fat" >/dev/null || fail "fsck.fat finds system-boot damaged"

root_bytes=$(stat -c %s "$work/root.ext4")
root_mib=$(((root_bytes + 1048575) / 1048576))
img=$work/disk.img
truncate -s $((1 + fat_mib + root_mib))M "$img" || exit 1
sfdisk -q "$img" <<SFDISK || fail "sfdisk failed"
label: dos
start=1MiB, size=${fat_mib}MiB, type=c, bootable
start=$((1 + fat_mib))MiB, type=83
SFDISK
dd if="$work/boot.fat" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none &&
dd if="$work/root.ext4" of="$img" bs=1M seek=$((1 + fat_mib)) \
	conv=notrunc,sparse status=none || fail "writing the partitions failed"

mcopy -i "$work/boot.fat" ::/vmlinuz "$work/vmlinuz" &&
mcopy -i "$work/boot.fat" ::/initrd.img "$work/initrd" || exit 1
mv "$work/vmlinuz" "$out.vmlinuz" && mv "$work/initrd" "$out.initrd" &&
mv "$img" "$out"
