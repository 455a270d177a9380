# SPDX-License-Identifier: MIT
# FAT32: image.fit's cluster chain loops (cluster 200 links back to 100),
# in both FATs. mshowfat stops where the chain comes back and mtype reads
# the loop as content; imgpatch's own check of every chain refuses it in one
# line, the file named as fsck.fat names it, with its context given once.
fixture kv260 bad.img
off=$(part_offset bad.img 1)
# 512-byte sectors; the first FAT follows the reserved sectors (field at
# 14), the second follows the first (FAT32 size in sectors at 36).
fat=$((off + $(get_le16 bad.img $((off + 14))) * 512))
fatsize=$(get_le32 bad.img $((off + 36)))
mshowfat -i "$(part_mtools bad.img 1)" ::image.fit | grep -q '<6-378>'
put_le32 bad.img $((fat + 4 * 200)) 100
put_le32 bad.img $((fat + fatsize * 512 + 4 * 200)) 100
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: FAT filesystem has errors \(/IMAGE\.FIT: circular cluster chain \(cluster 200 points back to cluster 100\)\): run fsck\.fat first$'
