# SPDX-License-Identifier: MIT
# boot.scr.uimg with a byte of the script flipped, the data CRC stale.
fixture kv260 bad.img
fat_get bad.img 1 /boot.scr.uimg boot.scr.uimg
uimgedit boot.scr.uimg --keep-dcrc flip=200
fat_put bad.img 1 boot.scr.uimg /boot.scr.uimg
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /boot\.scr\.uimg: data CRC mismatch \(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\): the image is corrupt$'
