# SPDX-License-Identifier: MIT
# FIT whose header is sound but whose structure block is not (a property
# name offset far past the strings): the structure walk must catch it.
fixture kv260 bad.img
fat_get bad.img 1 /image.fit image.fit
dtb_break_struct image.fit
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: broken FIT structure: property name offset [0-9]+ outside the strings block$'
