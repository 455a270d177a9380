# SPDX-License-Identifier: MIT
# FIT: a configuration names an fdt image that is not in /images (U-Boot
# would fail at boot).
fixture kv260 bad.img
fat_get bad.img 1 /image.fit image.fit
fdtput -t s image.fit /configurations/conf-smk-k26-revA-sck-kv-g-revB fdt fdt-gone.dtb
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: configuration 'conf-smk-k26-revA-sck-kv-g-revB': fdt image 'fdt-gone\.dtb' is not in /images$"
