# SPDX-License-Identifier: MIT
# ext4 root (postmarketOS) marked as having errors (s_state 2).
fixture pmos bad.img
ext_edit bad.img 2 "ssv state 2"
CMD=(patch bad.img --fstab /:+noatime)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*p2 \(ext4\).*has errors.*e2fsck'
