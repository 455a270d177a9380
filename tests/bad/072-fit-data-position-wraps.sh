# SPDX-License-Identifier: MIT
# FIT: data-position 0xfffffff0 + data-size 0x20 wraps to 0x10 in 32 bits.
fixture kv260 bad.img
fat_get bad.img 1 /image.fit image.fit
fdtput -t x image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb data-position fffffff0
fdtput -t x image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb data-size 20
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: image 'fdt-smk-k26-revA-sck-kv-g-revB\.dtb': data-position 4294967280 \+ data-size 32 is beyond the end of the FIT"
