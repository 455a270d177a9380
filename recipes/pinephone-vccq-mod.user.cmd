# SPDX-License-Identifier: MIT
# user.scr for the PinePhone VCCQ modification (imgpatch recipe
# pinephone-vccq-mod). postmarketOS's boot.scr sources this after it has
# loaded the device tree and set "fdt addr": apply the overlay on top.
echo Applying pinephone-vccq-mod.dtbo (eMMC VCCQ from ELDO1, HS200)
setenv vccq_overlay_addr 0x50800000
if load mmc ${mmc_bootdev}:1 ${vccq_overlay_addr} pinephone-vccq-mod.dtbo; then
	fdt resize 8192
	fdt apply ${vccq_overlay_addr}
else
	echo pinephone-vccq-mod.dtbo not found: booting without it
fi
