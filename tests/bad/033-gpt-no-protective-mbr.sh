# SPDX-License-Identifier: MIT
# GPT: sector 0 wiped, both GPT copies intact. sfdisk, libblkid and Linux
# see no partition table without the protective MBR.
fixture kv260 bad.img
dd if=/dev/zero of=bad.img bs=512 count=1 conv=notrunc status=none
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT: there is a GPT header but no protective MBR \(sector 0 has no 0x55aa signature\)'
