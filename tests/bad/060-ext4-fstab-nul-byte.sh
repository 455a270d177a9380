# SPDX-License-Identifier: MIT
# /etc/fstab with a NUL byte in it: not a text file.
fixture kv260 bad.img
printf 'LABEL=writable\t/\text4\tdefaults\0\t0 1\n' >fstab
ext_edit bad.img 2 "rm /etc/fstab" "write fstab /etc/fstab"
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p2 \(ext4\): /etc/fstab: .*NUL byte'
