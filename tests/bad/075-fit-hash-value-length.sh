# SPDX-License-Identifier: MIT
# FIT: a sha1 hash value of 4 bytes instead of 20.
fixture kv260 bad.img
fat_get bad.img 1 /image.fit image.fit
fdtput -t x image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb/hash-1 value 12345678
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: .*sha1 value is 4 bytes, expected 20"
