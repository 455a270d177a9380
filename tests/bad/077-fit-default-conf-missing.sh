# SPDX-License-Identifier: MIT
# FIT: the default configuration does not exist.
fixture kv260 bad.img
fat_get bad.img 1 /image.fit image.fit
fdtput -t s image.fit /configurations default conf-gone
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: default configuration 'conf-gone' is not in /configurations$"
