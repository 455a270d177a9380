# SPDX-License-Identifier: MIT
# MBR: the first EBR links to a sector past the end of the extended
# partition (and of the image).
fixture kv260-mbr bad.img
mbr_entry bad.img 231424 2 0x05 1000000 2048
CMD=(cat bad.img 5:/lost+found)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: MBR: EBR link to sector 1231424 points outside extended partition 3 \(sectors 231424\.\.239615\)$'
