# SPDX-License-Identifier: MIT
# GPT: both entry arrays damaged (a name byte of p1 flipped), the headers
# and their entries CRCs left as they were.
fixture kv260 bad.img
gptedit bad.img --keep-crc 1.name.flip
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT is corrupt: primary header entries array CRC mismatch and backup header \(LBA 233471\) entries array CRC mismatch$'
