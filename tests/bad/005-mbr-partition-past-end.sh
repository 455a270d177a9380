# SPDX-License-Identifier: MIT
# MBR: p2 claims almost 2 TiB, far more than the image has.
fixture kv260-mbr bad.img
mbr_entry bad.img 0 2 0x83 133120 0xfffff000
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: MBR: partition 2 \(start 133120, 4294963200 sectors\) extends past the end of the image \(239616 sectors\)'
