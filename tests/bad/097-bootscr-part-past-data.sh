# SPDX-License-Identifier: MIT
# boot.scr.uimg whose one part claims 256 bytes of a 13-byte payload (CRCs
# recomputed).
fixture kv260 bad.img
fat_get bad.img 1 /boot.scr.uimg boot.scr.uimg
printf '\0\0\001\0\0\0\0\0echo\n' >payload
uimgedit boot.scr.uimg payload=@payload
fat_put bad.img 1 boot.scr.uimg /boot.scr.uimg
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /boot\.scr\.uimg: part 1 \(256 bytes at data offset 8\) is beyond the end of the data \(13 bytes\)$'
