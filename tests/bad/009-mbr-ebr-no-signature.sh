# SPDX-License-Identifier: MIT
# MBR: the second EBR lost its 0x55aa signature.
fixture kv260-mbr bad.img
poke bad.img $((235520 * 512 + 510)) 0000
CMD=(info bad.img)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: MBR: EBR at sector 235520 \(in extended partition 3\) has no 0x55aa signature$'
