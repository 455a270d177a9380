# SPDX-License-Identifier: MIT
# FAT16: 65535 root directory entries (4096 sectors) in a volume that
# claims only 4000 sectors: reserved sectors, FATs and root directory
# overflow the volume, so there is no data area at all.
fixture kv260-fat16 bad.img
off=$(part_offset bad.img 1)
put_le16 bad.img $((off + 17)) 65535
put_le16 bad.img $((off + 19)) 4000
put_le32 bad.img $((off + 32)) 0
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*p1\b.*(root director|FAT)'
