# SPDX-License-Identifier: MIT
# A FIT whose flat_dt image is gzip-compressed (valid, but imgpatch
# cannot write such a tree back): refused, with the reason.
fixture kv260 bad.img
gzip -n -9 <"$DTB_DIR/smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb" >payload.gz
make_fit payload.gz gzip image.fit
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img --fdt fdt-1 --dt-delete mmc@ff170000:no-1-8-v)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: .*'fdt-1' is gzip-compressed; compressed fdt payloads are not supported$"
