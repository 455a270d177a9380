# SPDX-License-Identifier: MIT
# postmarketOS: the plain .dtb that pinephone-vccq-mod loads (dtb-from-file
# on the ext2 boot partition) has a broken structure block.
fixture pmos bad.img
cp "$DTB_DIR/sun50i-a64-pinephone-1.2.dtb" tree.dtb
dtb_break_struct tree.dtb
ext_edit bad.img 1 "rm /sun50i-a64-pinephone-1.2.dtb" \
	"write tree.dtb /sun50i-a64-pinephone-1.2.dtb"
CMD=(apply pinephone-vccq-mod bad.img --set hardware-mod=done)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: step 2 \(dtb-from-file\): p1 \(ext2\): /sun50i-a64-pinephone-1\.2\.dtb: broken device tree: FDT_ERR_BADOFFSET$'
