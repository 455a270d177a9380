# SPDX-License-Identifier: MIT
# GPT: 0xffffffff entries of 128 bytes (512 GiB of entries; 32 bits
# overflow), header CRCs recomputed so that only the size rule fails.
fixture kv260 bad.img
gptedit bad.img num_entries=0xffffffff
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT is corrupt: primary header entry count 4294967295 is invalid \(549755813760 bytes of entries, at most 4194304\) and backup header .*entry count 4294967295 is invalid'
