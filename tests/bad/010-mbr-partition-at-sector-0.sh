# SPDX-License-Identifier: MIT
# MBR: p1 starts at sector 0, on top of the partition table.
fixture kv260-mbr bad.img
mbr_entry bad.img 0 1 0x0c 0 2048
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: MBR: partition 1 starts at sector 0, on top of the partition table$'
