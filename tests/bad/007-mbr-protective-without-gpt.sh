# SPDX-License-Identifier: MIT
# A protective MBR (type 0xee) whose GPT headers were wiped, both copies.
fixture kv260 bad.img
size=$(stat -c %s bad.img)
dd if=/dev/zero of=bad.img bs=512 seek=1 count=1 conv=notrunc status=none
dd if=/dev/zero of=bad.img bs=512 seek=$((size / 512 - 1)) count=1 conv=notrunc status=none
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT: the MBR is protective \(type 0xee\) but there is no GPT header'
