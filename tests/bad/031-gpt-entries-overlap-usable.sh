# SPDX-License-Identifier: MIT
# GPT: the entries array is said to be at LBA 2048, inside the usable area
# (where p1 is): writing a partition would overwrite the table.
fixture kv260 bad.img
gptedit bad.img entries_lba=2048
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT is corrupt: primary header entries array \(LBA 2048\.\.2079\) overlaps the header or the usable area'
