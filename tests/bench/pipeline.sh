#!/bin/bash
# SPDX-License-Identifier: MIT
#
# pipeline.sh IMAGE FDT_INDEX
#
# The job `imgpatch patch IMAGE --fdt N --dt-delete mmc@ff170000:no-1-8-v
# --fstab /:-discard,+noatime` does, done by hand with the standard tools
# as Kria users do it, but on the image file: sfdisk for the offsets,
# mtools for the FAT, dumpimage + dtc + sed for the tree, debugfs for the
# fstab, and a sync at the end, as imgpatch's run ends with the image on
# disk. It is what the benchmark measures imgpatch against.

set -euo pipefail

[ $# = 2 ] || { echo "usage: $0 IMAGE FDT_INDEX" >&2; exit 2; }
img=$1 index=$2

export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
export PATH=$PATH:/usr/sbin:/sbin

work=$(mktemp -d "${img}.pipeline.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Byte offsets of the partitions, by GPT name.
sfdisk -J "$img" >"$work/table.json"
offset()
{
	jq -e -r --arg name "$1" '.partitiontable as $t | $t.partitions[] |
		select(.name == $name) | .start * ($t.sectorsize // 512)' "$work/table.json"
}
boot=$(offset system-boot)
root=$(offset writable)

# The carrier's tree out of image.fit, without no-1-8-v in the SD
# controller's node, back onto the boot partition as user-override.dtb.
mcopy -i "$img@@$boot" ::image.fit "$work/image.fit"
dumpimage -T flat_dt -p "$index" -o "$work/fdt.dtb" "$work/image.fit" >/dev/null
dtc -q -I dtb -O dts -o "$work/fdt.dts" "$work/fdt.dtb"
sed -i '/mmc@ff170000 {/,/};/{/no-1-8-v;/d}' "$work/fdt.dts"
dtc -q -I dts -O dtb -o "$work/user-override.dtb" "$work/fdt.dts"
mcopy -o -i "$img@@$boot" "$work/user-override.dtb" ::user-override.dtb

# fstab out, edited, and in again.
debugfs -R "dump /etc/fstab $work/fstab" "$img?offset=$root" 2>/dev/null
sed -i 's/^\(LABEL=writable\t\/\t[^\t]*\t\)discard,errors=remount-ro/\1errors=remount-ro,noatime/' \
	"$work/fstab"
printf 'cd /etc\nrm fstab\nwrite %s fstab\n' "$work/fstab" >"$work/debugfs.cmd"
debugfs -w -f "$work/debugfs.cmd" "$img?offset=$root" >/dev/null 2>"$work/debugfs.err"
if grep -v '^debugfs [0-9]' "$work/debugfs.err" >&2; then
	echo "$0: debugfs failed" >&2
	exit 1
fi

# imgpatch syncs what it wrote before it returns; so does the pipeline.
sync "$img"
