# SPDX-License-Identifier: MIT
# boot.scr.uimg made with mkimage -T script -C gzip: U-Boot can run it,
# but imgpatch cannot read the script to find the hook.
fixture kv260 bad.img
echo 'load mmc 0:1 ${fdt_addr} user-override.dtb' | gzip -n -9 >boot.cmd.gz
mkimage -A arm64 -O linux -T script -C gzip -n "boot script" \
	-d boot.cmd.gz boot.scr.uimg >/dev/null
fat_put bad.img 1 boot.scr.uimg /boot.scr.uimg
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /boot\.scr\.uimg: script is gzip-compressed; compressed scripts are not supported$'
