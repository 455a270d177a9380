# SPDX-License-Identifier: MIT
# GPT: header size 600, more than the 512-byte sector holding it.
fixture kv260 bad.img
gptedit bad.img header_size=600
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT is corrupt: primary header size 600 is out of range \(92\.\.512\) and backup header .*size 600 is out of range'
