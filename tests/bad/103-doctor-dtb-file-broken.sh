# SPDX-License-Identifier: MIT
# postmarketOS: doctor examines the plain .dtb files of the boot partition
# when there is no FIT; a broken one is named (its name was read after it
# was freed).
fixture pmos bad.img
cp "$DTB_DIR/sun50i-a64-pinephone-1.2.dtb" tree.dtb
dtb_break_struct tree.dtb
ext_edit bad.img 1 "rm /sun50i-a64-pinephone-1.2.dtb" \
	"write tree.dtb /sun50i-a64-pinephone-1.2.dtb"
CMD=(doctor bad.img)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(ext2\): /sun50i-a64-pinephone-1\.2\.dtb: broken device tree: FDT_ERR_BADOFFSET$'
