# SPDX-License-Identifier: MIT
# FIT: image 6 gets external data (data-offset 16 MiB, data-size 16) far
# beyond the end of the 190 KiB file; external data wins over "data".
fixture kv260 bad.img
fat_get bad.img 1 /image.fit image.fit
fdtput -t x image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb data-offset 1000000
fdtput -t x image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb data-size 10
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: image 'fdt-smk-k26-revA-sck-kv-g-revB\.dtb': data-offset 16777216 \+ data-size 16 is beyond the end of the FIT \([0-9]+ bytes\)$"
