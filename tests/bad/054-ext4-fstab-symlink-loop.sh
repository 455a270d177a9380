# SPDX-License-Identifier: MIT
# /etc/fstab -> /etc/fstab.b -> /etc/fstab: a symbolic link loop.
fixture kv260 bad.img
ext_edit bad.img 2 "rm /etc/fstab" \
	"symlink /etc/fstab /etc/fstab.b" "symlink /etc/fstab.b /etc/fstab"
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p2 \(ext4\): /etc/fstab: [Tt]oo many (levels of )?symbolic links'
