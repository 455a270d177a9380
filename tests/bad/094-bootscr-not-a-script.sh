# SPDX-License-Identifier: MIT
# boot.scr.uimg is a valid legacy image, but of a kernel, not a script.
fixture kv260 bad.img
echo 'echo not a script' >boot.cmd
mkimage -A arm64 -O linux -T kernel -C none -a 0x200000 -e 0x200000 \
	-n "a kernel" -d boot.cmd boot.scr.uimg >/dev/null
fat_put bad.img 1 boot.scr.uimg /boot.scr.uimg
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /boot\.scr\.uimg: image type is kernel \(2\), not script \(6\)$'
