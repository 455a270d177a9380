# SPDX-License-Identifier: MIT
# FAT32: image.fit's cluster chain loops (cluster 200 links back to 100),
# in both FATs. mshowfat stops where the chain comes back; imgpatch must
# see that the chain holds less than the file's size and say it in one line,
# with its context given once.
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
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: its cluster chain holds [0-9]+ of its [0-9]+ bytes \(FAT is corrupt: run fsck\.fat\)$'
