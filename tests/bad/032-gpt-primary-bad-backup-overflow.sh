# SPDX-License-Identifier: MIT
# GPT: the primary header has a stale CRC, and the backup that would stand
# in for it has an entry count whose array overflows (CRC recomputed): the
# fallback must not trust the backup either.
fixture kv260 bad.img
gptedit bad.img --primary --keep-crc disk_guid.flip
gptedit bad.img --backup num_entries=0x80000000 entry_size=4096
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT is corrupt: primary header CRC mismatch and backup header \(LBA 233471\) entry count 2147483648 is invalid'
