# SPDX-License-Identifier: MIT
# The ext4 superblock magic (0xef53 at byte 0x38) is zeroed: p2 is no
# longer a filesystem anyone recognises.
fixture kv260 bad.img
put_le16 bad.img $(($(part_offset bad.img 2) + 1024 + 0x38)) 0
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: no partition has /etc/fstab \(searched p1 \(vfat\)\)$'
