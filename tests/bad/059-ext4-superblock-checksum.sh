# SPDX-License-Identifier: MIT
# One byte of the volume name flipped in the superblock, its metadata_csum
# checksum left stale.
fixture kv260 bad.img
poke bad.img $(($(part_offset bad.img 2) + 1024 + 0x78)) 58
CMD=(cat bad.img 2:/etc/fstab)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p2 \(ext4\): cannot open filesystem: Superblock checksum does not match superblock$'
