# SPDX-License-Identifier: MIT
# boot.scr.uimg with a byte of its name flipped, the header CRC stale.
fixture kv260 bad.img
fat_get bad.img 1 /boot.scr.uimg boot.scr.uimg
uimgedit boot.scr.uimg --keep-hcrc flip=40
fat_put bad.img 1 boot.scr.uimg /boot.scr.uimg
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /boot\.scr\.uimg: header CRC mismatch \(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\): the image is corrupt$'
