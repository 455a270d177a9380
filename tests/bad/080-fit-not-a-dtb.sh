# SPDX-License-Identifier: MIT
# image.fit is not a device tree blob at all (a gzip stream).
fixture kv260 bad.img
head -c 8192 "$DTB_DIR/zynqmp-smk-k26-revA.dtb" | gzip -n -9 >image.fit
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: not a FIT: FDT_ERR_BADMAGIC$'
