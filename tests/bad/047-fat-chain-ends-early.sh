# SPDX-License-Identifier: MIT
# FAT32: image.fit's cluster chain ends (end-of-chain mark) at cluster 200,
# long before the size in its directory entry; mtools would hand back a
# short file without complaint, so every chain is checked against its size.
fixture kv260 bad.img
off=$(part_offset bad.img 1)
# 512-byte sectors; the first FAT follows the reserved sectors (field at
# 14), the second follows the first (FAT32 size in sectors at 36).
fat=$((off + $(get_le16 bad.img $((off + 14))) * 512))
fatsize=$(get_le32 bad.img $((off + 36)))
mshowfat -i "$(part_mtools bad.img 1)" ::image.fit | grep -q '<6-378>'
put_le32 bad.img $((fat + 4 * 200)) 0x0fffffff
put_le32 bad.img $((fat + fatsize * 512 + 4 * 200)) 0x0fffffff
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: FAT filesystem has errors \(/IMAGE\.FIT: file size is [0-9]+ bytes, cluster chain length is 99840 bytes\): run fsck\.fat first$'
