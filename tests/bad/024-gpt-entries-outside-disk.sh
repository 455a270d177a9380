# SPDX-License-Identifier: MIT
# GPT: the entries array is said to be at LBA 2^40, far past the end.
fixture kv260 bad.img
gptedit bad.img entries_lba=0x10000000000
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT is corrupt: primary header entries array \(LBA 1099511627776, 16384 bytes\) lies outside the image and backup header'
