# SPDX-License-Identifier: MIT
# The superblock's blocks_count raised to 100000 (more than the 48 MiB
# partition holds), checksum recomputed by debugfs; through patch, which
# looks for the partition with /etc/fstab.
fixture kv260 bad.img
ext_edit bad.img 2 "ssv blocks_count 100000"
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*p2 \(ext4\).*(superblock is corrupt|larger than its partition)'
