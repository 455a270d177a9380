# SPDX-License-Identifier: MIT
# GPT: p2 starts inside p1; every CRC recomputed, so the table is valid
# except for the overlap.
fixture kv260 bad.img
gptedit bad.img 2.first_lba=100000
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*partitions 1 and 2 overlap \(p1: sectors 2048\.\.133119, p2: sectors 100000\.\.231423\)$'
