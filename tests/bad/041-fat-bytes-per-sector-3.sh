# SPDX-License-Identifier: MIT
# FAT32 boot sector with 3 bytes per sector (not a power of two), read
# through an explicit partition.
fixture kv260 bad.img
put_le16 bad.img $(($(part_offset bad.img 1) + 11)) 3
CMD=(cat bad.img 1:/boot.scr.uimg)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1\b.*bytes per sector 3\b'
