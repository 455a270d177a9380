# SPDX-License-Identifier: MIT
# A FIT whose flat_dt payload has a valid header and a broken structure
# block: fdt_check_full on the payload must refuse it.
fixture kv260 bad.img
cp "$DTB_DIR/smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb" payload.dtb
dtb_break_struct payload.dtb
make_fit payload.dtb none image.fit
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img --fdt fdt-1 --dt-delete mmc@ff170000:no-1-8-v)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: fdt-1: broken device tree: FDT_ERR_BADOFFSET$'
