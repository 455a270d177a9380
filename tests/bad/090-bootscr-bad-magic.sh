# SPDX-License-Identifier: MIT
# boot.scr.uimg with a wrong magic (CRCs recomputed, so only the magic is
# wrong). patch reads the script to check that it loads user-override.dtb.
fixture kv260 bad.img
fat_get bad.img 1 /boot.scr.uimg boot.scr.uimg
uimgedit boot.scr.uimg magic=0x27051957
fat_put bad.img 1 boot.scr.uimg /boot.scr.uimg
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /boot\.scr\.uimg: not a U-Boot image \(magic 0x27051957, want 0x27051956\)$'
