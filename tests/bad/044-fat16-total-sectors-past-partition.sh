# SPDX-License-Identifier: MIT
# The same on FAT16 (MBR type 0x0e), through patch, which searches the
# partitions for /image.fit: the error must say why p1 cannot be used,
# not only that no partition has the file.
fixture kv260-fat16 bad.img
put_le32 bad.img $(($(part_offset bad.img 1) + 32)) 262144
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*p1 \(vfat\).*FAT filesystem \(134217728 bytes\) is larger than its partition \(67108864 bytes\)'
