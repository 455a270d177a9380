# SPDX-License-Identifier: MIT
# GPT: both headers damaged (a disk GUID byte flipped, CRC left stale).
fixture kv260 bad.img
gptedit bad.img --keep-crc disk_guid.flip
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT is corrupt: primary header CRC mismatch and backup header \(LBA 233471\) CRC mismatch$'
