# SPDX-License-Identifier: MIT
# user.scr for the PinePhone VCCQ modification, written by the
# imgpatch recipe pinephone-vccq-mod (the marker by which the recipe knows
# its own script). postmarketOS's boot.scr sources this after it has
# loaded the device tree, the initramfs (at ramdisk_addr_r) and the kernel,
# with "fdt addr" set: apply the overlay on top. The overlay goes to
# fdtoverlay_addr_r, the slot U-Boot's own memory layout keeps for it below
# the initramfs; any fixed address above ramdisk_addr_r lands inside a large
# enough initramfs.
echo Applying pinephone-vccq-mod.dtbo (eMMC VCCQ from ELDO1, HS200)
if load mmc ${mmc_bootdev}:1 ${fdtoverlay_addr_r} pinephone-vccq-mod.dtbo; then
	fdt resize 8192
	fdt apply ${fdtoverlay_addr_r}
else
	echo pinephone-vccq-mod.dtbo not found: booting without it
fi
