# SPDX-License-Identifier: MIT
# GPT: p1 starts at LBA 2, on the primary entries array, before the first
# usable LBA (CRCs recomputed).
fixture kv260 bad.img
gptedit bad.img 1.first_lba=2
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT: partition 1 \(LBA 2\.\.133119\) lies outside the usable area \(LBA 34\.\.233438\)$'
