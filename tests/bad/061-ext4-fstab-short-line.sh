# SPDX-License-Identifier: MIT
# /etc/fstab whose second line has only three fields.
fixture kv260 bad.img
printf 'LABEL=writable\t/\text4\tdefaults\t0 1\nLABEL=system-boot /boot/firmware vfat\n' >fstab
ext_edit bad.img 2 "rm /etc/fstab" "write fstab /etc/fstab"
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p2 \(ext4\): /etc/fstab: line 2: expected at least 4 fields$'
