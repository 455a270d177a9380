# SPDX-License-Identifier: MIT
# boot.scr.uimg whose header says 2 GiB of data (header CRC recomputed).
fixture kv260 bad.img
fat_get bad.img 1 /boot.scr.uimg boot.scr.uimg
uimgedit boot.scr.uimg --keep-dcrc size=0x7fffffff
fat_put bad.img 1 boot.scr.uimg /boot.scr.uimg
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /boot\.scr\.uimg: data size 2147483647 is beyond the end of the file \([0-9]+ bytes after the header; truncated\?\)$'
