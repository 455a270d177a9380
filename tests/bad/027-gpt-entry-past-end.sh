# SPDX-License-Identifier: MIT
# GPT: p2 ends past the end of the image (CRCs recomputed).
fixture kv260 bad.img
gptedit bad.img 2.last_lba=4000000
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: GPT: partition 2 extends past the end of the image \(last LBA 4000000, image has 233472 sectors\)'
