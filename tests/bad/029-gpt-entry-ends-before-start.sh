# SPDX-License-Identifier: MIT
# GPT: p2's last LBA is before its first (CRCs recomputed).
fixture kv260 bad.img
gptedit bad.img 2.last_lba=133000
CMD=(cat bad.img writable:/etc/fstab)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT: partition 2 ends before it starts \(first LBA 133120, last LBA 133000\)$'
