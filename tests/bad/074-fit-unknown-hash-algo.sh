# SPDX-License-Identifier: MIT
# FIT: a hash algorithm imgpatch cannot check is refused, not skipped.
fixture kv260 bad.img
fat_get bad.img 1 /image.fit image.fit
fdtput -t s image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb/hash-1 algo sha3-256
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: .*hash algorithm 'sha3-256' is not supported"
