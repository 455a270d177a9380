# SPDX-License-Identifier: MIT
# FIT cut to its first 100000 bytes (an interrupted copy).
fixture kv260 bad.img
fat_get bad.img 1 /image.fit full.fit
head -c 100000 full.fit >image.fit
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: FIT structure is [0-9]+ bytes but the file has only 100000 \(truncated\?\)$'
