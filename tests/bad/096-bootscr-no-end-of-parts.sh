# SPDX-License-Identifier: MIT
# boot.scr.uimg whose part length list never ends in a 0 word (CRCs
# recomputed).
fixture kv260 bad.img
fat_get bad.img 1 /boot.scr.uimg boot.scr.uimg
printf '\0\0\0\020\0\0\0\020\0\0\0\020' >payload
uimgedit boot.scr.uimg payload=@payload
fat_put bad.img 1 boot.scr.uimg /boot.scr.uimg
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /boot\.scr\.uimg: part length list has no terminating 0 word$'
