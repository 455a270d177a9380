# SPDX-License-Identifier: MIT
# GPT: first usable LBA after the last usable one.
fixture kv260 bad.img
gptedit bad.img first_usable=233439 last_usable=34
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT is corrupt: primary header has an invalid usable area \(LBA 233439\.\.34\) and backup header'
