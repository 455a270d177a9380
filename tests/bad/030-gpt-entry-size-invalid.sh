# SPDX-License-Identifier: MIT
# GPT: entries of 100 bytes (less than 128, not a multiple of 8).
fixture kv260 bad.img
gptedit bad.img entry_size=100
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT is corrupt: primary header entry size 100 is invalid'
