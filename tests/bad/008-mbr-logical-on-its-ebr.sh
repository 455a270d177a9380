# SPDX-License-Identifier: MIT
# MBR: logical partition 5 starts on its own EBR (relative start 0), so
# writing it would overwrite the chain.
fixture kv260-mbr bad.img
mbr_entry bad.img 231424 1 0x83 0 2048
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: MBR: logical partition 5 starts on its own EBR \(sector 231424\)$'
