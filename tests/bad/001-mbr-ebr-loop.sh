# SPDX-License-Identifier: MIT
# MBR: the second EBR links back to the first, so the chain never ends.
fixture kv260-mbr bad.img
# EBR 2 is at sector 235520; its link entry (slot 2) gets start 0, which is
# relative to the extended partition: the first EBR again.
mbr_entry bad.img 235520 2 0x05 0 2048
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: MBR: the EBR chain of partition 3 loops back to sector 231424$'
