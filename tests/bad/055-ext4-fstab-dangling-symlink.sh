# SPDX-License-Identifier: MIT
# /etc/fstab is a symbolic link to a file that does not exist.
fixture kv260 bad.img
ext_edit bad.img 2 "rm /etc/fstab" "symlink /etc/fstab /etc/fstab.real"
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p2 \(ext4\): /etc/fstab: .*(not found|missing|dangling)'
