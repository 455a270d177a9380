# SPDX-License-Identifier: MIT
# FIT: data-offset 0 with data-size 0xffffffff (a 32-bit sum that wraps
# for a reader adding in 32 bits).
fixture kv260 bad.img
fat_get bad.img 1 /image.fit image.fit
fdtput -t x image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb data-offset 0
fdtput -t x image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb data-size ffffffff
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: image 'fdt-smk-k26-revA-sck-kv-g-revB\.dtb': data-offset 0 \+ data-size 4294967295 is beyond the end of the FIT"
