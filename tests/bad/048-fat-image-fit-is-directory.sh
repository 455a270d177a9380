# SPDX-License-Identifier: MIT
# FAT: /image.fit is a directory.
fixture kv260 bad.img
mdel -i "$(part_mtools bad.img 1)" ::image.fit
mmd -i "$(part_mtools bad.img 1)" ::image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: is a directory, not a file$'
