# SPDX-License-Identifier: MIT
# FAT32 boot sector with 0 sectors per cluster (a division by zero for a
# naive reader).
fixture kv260 bad.img
poke bad.img $(($(part_offset bad.img 1) + 13)) 00
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*p1\b.*sectors per cluster 0\b'
