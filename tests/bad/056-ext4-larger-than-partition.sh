# SPDX-License-Identifier: MIT
# The ext4 root's superblock counts 49152 blocks of 1 KiB, but its GPT
# entry was shrunk to 40 MiB (CRCs recomputed): writing near the end of the
# filesystem would land beyond the partition.
fixture kv260 bad.img
gptedit bad.img 2.last_lba=$((133120 + 81920 - 1))
CMD=(cat bad.img writable:/etc/fstab)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p2 \(ext4\): ext4 filesystem \(49152 blocks of 1024 bytes\) is larger than its partition \(41943040 bytes\)'
