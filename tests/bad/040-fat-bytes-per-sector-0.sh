# SPDX-License-Identifier: MIT
# FAT32 boot sector with 0 bytes per sector: every offset in the volume
# is a multiple of it. The boot partition must be reported as broken, not
# skipped as if it were not there.
fixture kv260 bad.img
put_le16 bad.img $(($(part_offset bad.img 1) + 11)) 0
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*p1\b.*bytes per sector 0\b'
