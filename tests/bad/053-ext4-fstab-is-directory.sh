# SPDX-License-Identifier: MIT
# /etc/fstab is a directory.
fixture kv260 bad.img
ext_edit bad.img 2 "rm /etc/fstab" "mkdir /etc/fstab"
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p2 \(ext4\): /etc/fstab: is a directory$'
