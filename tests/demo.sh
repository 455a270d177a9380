#!/bin/bash
# SPDX-License-Identifier: MIT
# make demo: build a KV260-like sample image, look at it, patch it, check it.
set -euo pipefail

imgpatch=${1:?usage: demo.sh PATH-TO-IMGPATCH}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$here/out/demo
rm -rf "$out"
mkdir -p "$out"
cd "$out"
export MTOOLS_SKIP_CHECK=1

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

"$here/fixtures/mkimage-kv260.sh" kv260.img
echo "sample image: $out/kv260.img (GPT, FAT32 system-boot with image.fit, ext4 writable)"

step "$imgpatch" info kv260.img
step "$imgpatch" cat kv260.img writable:/etc/fstab
step "$imgpatch" patch kv260.img --fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb \
	--dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime --dry-run
step "$imgpatch" patch kv260.img --fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb \
	--dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime
step "$imgpatch" patch kv260.img --fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb \
	--dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime

echo
echo "Checked with independent tools:"
# Partition starts in sectors, as sfdisk reports them.
start() { sfdisk -d kv260.img | sed -n "s/^kv260.img$1 : start= *\([0-9]*\),.*/\1/p"; }
size() { sfdisk -d kv260.img | sed -n "s/^kv260.img$1 : .*size= *\([0-9]*\),.*/\1/p"; }
s1=$(start 1) s2=$(start 2) n2=$(size 2)
mtype -i "kv260.img@@$((s1 * 512))" ::/user-override.dtb > user-override.dtb
if fdtget -p user-override.dtb /axi/mmc@ff170000 | grep -qx no-1-8-v; then
	echo "FAIL: no-1-8-v still present" >&2
	exit 1
fi
echo "  mtype + fdtget: /axi/mmc@ff170000 has no 'no-1-8-v' in user-override.dtb"
dd if=kv260.img of=root.ext4 bs=512 skip="$s2" count="$n2" status=none
e2fsck -fn root.ext4 >/dev/null 2>&1 && echo "  e2fsck -fn: root filesystem clean"
debugfs -R "cat /etc/fstab" root.ext4 2>/dev/null | sed 's/^/  debugfs: /'
