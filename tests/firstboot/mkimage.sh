#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mkimage.sh VARIANT [OUT.img]: a disk image of build-rootfs.sh's VARIANT
# (cloud-init or plain), laid out as Ubuntu's preinstalled server images:
#
#   MBR (lubuntu-team/livecd-rootfs 5fb3d42d36bdbd710f6f7e92ebe6c1b0f650699c,
#   live-build/ubuntu-cpc/hooks.d/base/disk-image.binary: "mklabel msdos",
#   the boot partition FAT32 and bootable, "mkfs.vfat -n system-boot")
#     p1  FAT32 (type 0c) "system-boot", 256 MiB from 1 MiB: the root's
#         /boot/firmware (the seed in the cloud-init variant) and copies of
#         the kernel and initrd (vmlinuz, initrd.img)
#     p2  ext4 "writable": the root, made with mke2fs -d (e2fsprogs 1.47.0
#         takes a folder, not a tarball: the tarball is unpacked first, as
#         root or under fakeroot, which keeps the owners)
#
# The kernel and initrd are also written beside the image, as OUT.img.vmlinuz
# and OUT.img.initrd, for QEMU to boot directly (lib.sh's fb_boot). Both
# filesystems are checked (e2fsck -fn, fsck.fat -n) before the image is
# used. The image is made once for each tarball and kept beside it in the
# cache (VARIANT-HASH.img, .vmlinuz, .initrd); OUT.img is a sparse copy.
# Without OUT.img it only fills the cache, and prints the cached image's
# path (make check does so before the tests, so that no test's time limit
# pays for a cold build).
#
# Exits as build-rootfs.sh does: 0, 1 (failed), 3 (a tool is missing or
# the mirror cannot be reached; stdout says which).

set -u

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ $# -ne 1 ] && [ $# -ne 2 ]; then
	echo "usage: $prog cloud-init|plain [OUT.img]" >&2
	exit 2
fi
variant=$1
out=${2:-}
export PATH=$PATH:/usr/sbin:/sbin

. "$here/common.sh"
need_tools sfdisk mke2fs e2fsck mkfs.vfat fsck.fat mcopy tar

tarball=$(bash "$here/build-rootfs.sh" "$variant")
rc=$?
if [ $rc -ne 0 ]; then
	[ -z "$tarball" ] || echo "$tarball"
	exit $rc
fi
key=$(cat "$0" "$here/common.sh" | sha256sum | cut -c1-8)
cached=${tarball%.tar}-$key

# deliver: OUT.img and its kernel and initrd, copied from the cache.
deliver()
{
	touch "$cached.img"
	[ -n "$out" ] || { echo "$cached.img"; return; }
	cp --sparse=always "$cached.img" "$out" &&
	cp "$cached.vmlinuz" "$out.vmlinuz" &&
	cp "$cached.initrd" "$out.initrd"
}

[ ! -s "$cached.img" ] || { deliver; exit; }
exec 9>"$(dirname "$tarball")/$variant-image.lock" || exit 1
flock 9 || exit 1
[ ! -s "$cached.img" ] || { deliver; exit; }

work=$(mktemp -d "$(dirname "$tarball")/image.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP

fail()
{
	echo "$prog: $*" >&2
	exit 1
}

fat_mib=256

# Unpack, split /boot/firmware off to the FAT side, make the ext4 with the
# owners the tarball gives. The root is sized to what it holds plus room
# for what the tests add and the first boot writes.
"${as_root[@]}" bash -euc '
	work=$1
	mkdir "$work/root" "$work/fat"
	tar -C "$work/root" --numeric-owner -xpf "$2"
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
' make-root "$work" "$tarball" >"$work/log" 2>&1 ||
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

# The kernel and initrd first, the image last: its name says all is there.
# Images that no caller has used for a day go (the cache is shared by
# checkouts of different versions of this folder).
for old in "$(dirname "$tarball")/$variant-"*.img; do
	[ -n "$(find "$old" -mmin +1440 2>/dev/null)" ] || continue
	rm -f "$old" "${old%.img}.vmlinuz" "${old%.img}.initrd"
done
mcopy -i "$work/boot.fat" ::/vmlinuz "$cached.vmlinuz" &&
mcopy -i "$work/boot.fat" ::/initrd.img "$cached.initrd" &&
mv "$img" "$cached.img" || fail "storing the image in the cache failed"
deliver
