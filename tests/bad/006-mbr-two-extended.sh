# SPDX-License-Identifier: MIT
# MBR: slot 4 is a second extended partition (type 0x0f) over the first.
fixture kv260-mbr bad.img
mbr_entry bad.img 0 4 0x0f 231424 8192
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: MBR: more than one extended partition \(3 and 4\)$'
