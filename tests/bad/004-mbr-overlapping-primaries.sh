# SPDX-License-Identifier: MIT
# MBR: p2 starts inside p1.
fixture kv260-mbr bad.img
mbr_entry bad.img 0 2 0x83 100000 98304
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*partitions 1 and 2 overlap'
