# SPDX-License-Identifier: MIT
# FIT: image 6 carries the (valid-looking) sha1 of image 4.
fixture kv260 bad.img
fat_get bad.img 1 /image.fit image.fit
fdtput -t bx image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb/hash-1 value \
	$(fdtget -t bx image.fit /images/fdt-smk-k26-revA-sck-kv-g-revA.dtb/hash-1 value)
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: .*'fdt-smk-k26-revA-sck-kv-g-revB\.dtb': sha1 hash mismatch"
