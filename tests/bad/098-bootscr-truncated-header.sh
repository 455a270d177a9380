# SPDX-License-Identifier: MIT
# boot.scr.uimg cut inside its 64-byte header.
fixture kv260 bad.img
fat_get bad.img 1 /boot.scr.uimg full.uimg
head -c 40 full.uimg >boot.scr.uimg
fat_put bad.img 1 boot.scr.uimg /boot.scr.uimg
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /boot\.scr\.uimg: too short for a U-Boot image header \(40 bytes, need 64\)$'
