# SPDX-License-Identifier: MIT
# A FIT (mkimage -f) whose flat_dt image holds text, not a device tree.
fixture kv260 bad.img
echo "this is not a device tree blob, only some text" >payload
make_fit payload none image.fit
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img --fdt fdt-1 --dt-delete mmc@ff170000:no-1-8-v)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: fdt-1: not a device tree blob: FDT_ERR_BADMAGIC$'
