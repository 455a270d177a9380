# SPDX-License-Identifier: MIT
# FAT32 boot sector claims 262144 sectors (128 MiB) in a 64 MiB partition:
# mtools would write past the partition, into the ext4 root.
fixture kv260 bad.img
put_le32 bad.img $(($(part_offset bad.img 1) + 32)) 262144
CMD=(cat bad.img system-boot:/boot.scr.uimg)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): FAT filesystem \(134217728 bytes\) is larger than its partition \(67108864 bytes\)$'
