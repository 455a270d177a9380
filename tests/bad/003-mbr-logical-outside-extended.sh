# SPDX-License-Identifier: MIT
# MBR: logical partition 6 runs past the end of its extended partition
# (the image is grown so that it still ends inside the image).
fixture kv260-mbr bad.img
truncate -s +4M bad.img
# p6's data entry in EBR 2 (sector 235520): start 2048 after the EBR, and
# 6144 sectors instead of 2048.
mbr_entry bad.img 235520 1 0x83 2048 6144
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: MBR: logical partition 6 \(start 237568, 6144 sectors\) is not inside extended partition 3 \(start 231424, 8192 sectors\)$'
