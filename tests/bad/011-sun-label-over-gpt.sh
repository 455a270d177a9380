# SPDX-License-Identifier: MIT
# A Sun disk label (magic 0xdabe, and a checksum that XORs the sector's
# 16-bit words to 0) written over sector 0 of a GPT disk whose headers
# stay: libblkid and sfdisk see a Sun label, and so it is named.
fixture kv260 bad.img
dd if=/dev/zero of=bad.img bs=512 count=1 conv=notrunc status=none
poke bad.img 508 dabedabe
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: sun partition table: not supported \(imgpatch reads GPT and MBR\)$'
