#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='a card in a reader: block devices (loop devices stand in for it)'
. "$(dirname "$0")/lib.sh"

test_require_tools python3

KV260_ARGS="--fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

loops=()
cleanup_loops() { for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done; umount mnt 2>/dev/null; }
trap cleanup_loops EXIT

# A loop device needs root and a kernel that lends one: skip where not.
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null ||
   ! make_kv260 kv.img || ! dev=$(losetup -f --show kv.img 2>/dev/null); then
	test_skip 'patch a block device' 'no loop device here (needs root and loop support)'
	test_done
fi
loops+=("$dev")

test_expect_success 'info and cat read the device' '
	imgpatch info "$dev" >info.txt &&
	grep "system-boot" info.txt &&
	imgpatch cat "$dev" writable:/etc/fstab >fstab &&
	grep "^LABEL=writable" fstab
'

test_expect_success 'patch the device in place: same bytes as patching the file' '
	make_kv260 ref.img &&
	imgpatch patch ref.img $KV260_ARGS >/dev/null &&
	imgpatch patch "$dev" $KV260_ARGS >out &&
	grep "patched $dev: 2 changes" out &&
	cmp ref.img kv.img
'

make_kv260 busy.img && busy=$(losetup -f --show busy.img) && loops+=("$busy")
test_expect_success 'a device held exclusively by another program is refused' '
	sum_file busy.img >a &&
	{ python3 -c "import os,sys,time; fd=os.open(sys.argv[1], os.O_RDWR|os.O_EXCL); print(1, flush=True); time.sleep(30)" "$busy" >held & } &&
	holder=$! &&
	for i in 1 2 3 4 5 6 7 8 9 10; do test -s held && break; sleep 0.2; done &&
	{ test_must_fail_with 1 imgpatch patch "$busy" $KV260_ARGS 2>err; status=$?; } ;
	kill $holder; wait $holder 2>/dev/null || true;
	test "$status" = 0 && cat err && grep "in use" err &&
	sum_file busy.img >b && test_cmp a b
'

test_expect_success 'a mounted device is refused before anything is read' '
	truncate -s 16M fs.img && mke2fs -q -t ext4 fs.img &&
	fsdev=$(losetup -f --show fs.img) && loops+=("$fsdev") &&
	mkdir -p mnt && mount "$fsdev" mnt &&
	test_must_fail_with 1 imgpatch patch "$fsdev" --fstab /:+noatime 2>err;
	status=$?; umount mnt;
	test $status = 0 && grep "is mounted on" err
'

test_done
