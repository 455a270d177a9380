# SPDX-License-Identifier: MIT
# A hand-made FIT with one image, asked for index 9.
fixture kv260 bad.img
make_fit "$DTB_DIR/smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb" none image.fit
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img --fdt 9 --dt-delete mmc@ff170000:no-1-8-v)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: fdt '9' not found \(have: fdt-1\)$"
