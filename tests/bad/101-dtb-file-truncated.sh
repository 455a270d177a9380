# SPDX-License-Identifier: MIT
# postmarketOS: the .dtb is cut to 3000 bytes; its header says 32 KiB.
fixture pmos bad.img
head -c 3000 "$DTB_DIR/sun50i-a64-pinephone-1.2.dtb" >tree.dtb
ext_edit bad.img 1 "rm /sun50i-a64-pinephone-1.2.dtb" \
	"write tree.dtb /sun50i-a64-pinephone-1.2.dtb"
CMD=(apply pinephone-vccq-mod bad.img --set hardware-mod=done)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: step 2 \(dtb-from-file\): p1 \(ext2\): /sun50i-a64-pinephone-1\.2\.dtb: device tree is [0-9]+ bytes but only 3000 are there \(truncated\?\)$'
