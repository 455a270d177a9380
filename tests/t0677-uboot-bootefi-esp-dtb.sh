#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='boot path efi, end to end: U-Boot loads ${fdtfile} from the ESP'"'"'s /dtb/ and starts Debian'"'"'s GRUB with bootefi; GRUB (no devicetree line) passes that tree on to Debian'"'"'s arm64 kernel, whose machine model is the one imgpatch cat --dtb reports, before and after patch --via file; its command line is the one imgpatch cat --cmdline reports, edited by patch --cmdline in the root'"'"'s grub.cfg'
. "$(dirname "$0")/lib.sh"

# t0675 stops where bootefi would start (the tree U-Boot loaded is
# compared, nothing is started); t0676 boots GRUB's own devicetree line.
# Here U-Boot's distro boot runs unchanged on the image of
# tests/fixtures/mkimage-efi.sh, made to boot (--loader: Debian's GRUB,
# grub-efi-arm64-bin's monolithic grubaa64.efi, as BOOTAA64.EFI and
# grubaa64.efi; --kernel: Debian's arm64 kernel): scan_dev_for_efi loads
# /dtb/${fdtfile} and runs "bootefi ${kernel_addr_r} ${fdt_addr_r}";
# GRUB reads the ESP's /EFI/debian/grub.cfg stub, then the root's
# grub.cfg, whose entry has no devicetree line, so the kernel's EFI stub
# takes the tree from the EFI configuration table, where bootefi put
# U-Boot's. The kernel prints "Machine model: ..." from it and "Kernel
# command line: ...", then stops at the interrupt controller QEMU's
# machine lacks (the run ends at its panic). The console (earlycon,
# ignore_loglevel, see t0676) goes in with patch --cmdline: on this boot
# path the line is the EFI loader's, the root's grub.cfg.
# QEMU runs with virtualization=on for the same reason as in t0676 (PSCI
# on "smc").

. "$TEST_DIR/uboot/uboot-lib.sh"
export UBOOT_MACHINE=virt,virtualization=on
export UBOOT_TIMEOUT=${UBOOT_TIMEOUT:-150}
export UBOOT_UNTIL='Kernel panic - not syncing'

uboot_missing sfdisk mkfs.vfat mcopy mtype debugfs e2fsck dtc fdtget mkenvimage \
	dpkg-deb tar timeout

require_grub_kernel

RP=rockchip/rk3399-rockpro64.dtb
V=6.1.0-13-arm64
ROOT=$((65536 * 512))
LINE="root=UUID=45464930-726f-6f74-0000-000000000002 ro quiet ignore_loglevel earlycon=pl011,0x9000000"

# boots KIND IMG: boots IMG until the kernel panics; U-Boot started
# BOOTAA64.EFI.
boots()
{
	booti_boot "$1" env.txt "$2" &&
	tr -d '\r' <"$1.console" | grep -x "Found EFI removable media binary efi/boot/bootaa64.efi"
}

# model_is KIND IMG: the kernel's machine model is the /model of the tree
# "imgpatch cat IMG --dtb --model $RP" reports.
model_is()
{
	local -; set +x
	local got

	got=$(kernel_said "$1" "Machine model") &&
	imgpatch cat "$2" --dtb --model $RP >"$2.dts" &&
	dtc -q -I dts -O dtb -o "$2.dtb" "$2.dts" &&
	echo "kernel: $got" &&
	test "$got" = "$(fdtget -t s "$2.dtb" / model)"
}

check 'build the EFI image with Debian'"'"'s GRUB and kernel; patch --cmdline puts the console into the root'"'"'s grub.cfg' '
	kernel_image vmlinuz >kernel.pkg &&
	sed "s/^/# /" kernel.pkg &&
	"$FIXTURES/mkimage-efi.sh" efi.img --loader="$GRUB_EFI" --kernel=vmlinuz &&
	debugfs -R "cat /boot/grub/grub.cfg" "efi.img?offset=$ROOT" 2>/dev/null >grub.cfg &&
	! grep devicetree grub.cfg &&
	imgpatch patch efi.img --cmdline +ignore_loglevel,+earlycon=pl011,0x9000000 >cl.log &&
	grep "^p2 (ext4) /boot/grub/grub.cfg: " cl.log && grep "^p2 (ext4) /etc/default/grub: " cl.log &&
	debugfs -R "cat /boot/grub/grub.cfg" "efi.img?offset=$ROOT" 2>/dev/null |
		grep -x "	linux	/boot/vmlinuz-$V root=UUID=.* ro  quiet ignore_loglevel earlycon=pl011,0x9000000" &&
	extract_part efi.img 2 efi.p2 && e2fsck -fn efi.p2 >/dev/null 2>&1 &&
	imgpatch cat efi.img --cmdline >cat.out &&
	test "$(tail -1 cat.out | tr -s " ")" = "$LINE" &&
	board_env env.txt "fdtfile=$RP"
'

check 'as built: the kernel gets U-Boot'"'"'s /dtb/ tree, the one cat --dtb reports, and the line cat --cmdline reports' '
	boots efi efi.img &&
	model_is efi efi.img &&
	test "$(kernel_said efi "Machine model")" = "Pine64 RockPro64 v2.1" &&
	test "$(kernel_said efi "Kernel command line")" = "BOOT_IMAGE=/boot/vmlinuz-$V $LINE"
'

check 'patched --via file: the kernel gets the edited tree from U-Boot, as cat --dtb says' '
	cp efi.img patched.img &&
	imgpatch patch patched.img --via file --model $RP \
		--dt-set "/:model=\"imgpatch EFI RockPro64\"" >patch.log &&
	mtype -i "$(part_mtools patched.img 1)" ::/dtb/$RP >edited.dtb &&
	test "$(fdtget -t s edited.dtb / model)" = "imgpatch EFI RockPro64" &&
	boots patched patched.img &&
	model_is patched patched.img &&
	test "$(kernel_said patched "Machine model")" = "imgpatch EFI RockPro64" &&
	test "$(kernel_said patched "Kernel command line")" = "BOOT_IMAGE=/boot/vmlinuz-$V $LINE"
'

test_done
