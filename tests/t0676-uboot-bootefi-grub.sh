#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot'"'"'s distro EFI boot starts Debian'"'"'s GRUB for arm64 from the ESP; GRUB reads the grub.cfg grub-mkconfig writes and boots Debian'"'"'s arm64 kernel: the command line and the machine model the kernel prints are what imgpatch cat --cmdline and cat --dtb report after patch --cmdline and --dt-set'
. "$(dirname "$0")/lib.sh"

# What is exercised, end to end, nothing replaced: U-Boot (Debian 12's
# 2023.01, tests/uboot/build-uboot.sh) boots the card as a board does
# (uboot-boot.sh): its distro boot's scan_dev_for_efi finds
# /EFI/BOOT/BOOTAA64.EFI on the ESP and starts it with bootefi. That is
# Debian's own GRUB (grub-efi-arm64-bin, its monolithic grubaa64.efi,
# whose built-in prefix /EFI/debian makes it read the ESP's
# /EFI/debian/grub.cfg, the stub that finds the root as grub-install
# writes it), which reads the root's /boot/grub/grub.cfg (as grub-mkconfig
# writes it: tests/fixtures/mkimage-debian-grub.sh), runs its default
# menuentry, loads the tree of its devicetree line and starts Debian's
# arm64 kernel (linux-image-arm64) through its EFI stub. The kernel prints
# "Machine model: ..." (the tree's /model) and "Kernel command line: ..."
# on the serial console, then stops at the first device the board's tree
# names and QEMU's machine lacks (the interrupt controller), with a panic,
# where the run ends.
#
# The kernel prints on this machine only with earlycon for QEMU's PL011
# and, under the shipped "quiet", ignore_loglevel: the first patch adds
# both through imgpatch patch --cmdline (ignore_loglevel first, since each
# early parameter acts when parsed, and earlycon prints what came before
# at once). QEMU runs with virtualization=on: the RockPro64's tree calls
# PSCI with "smc", which QEMU's virt machine answers only when it has EL2
# and no EL3; without EL2 that first smc is an undefined instruction and
# the kernel stops before printing its command line.

. "$TEST_DIR/uboot/uboot-lib.sh"
export UBOOT_MACHINE=virt,virtualization=on
export UBOOT_TIMEOUT=${UBOOT_TIMEOUT:-150}
export UBOOT_UNTIL='Kernel panic - not syncing'

uboot_missing sfdisk mkfs.vfat mcopy debugfs e2fsck dtc fdtget fdtput mkenvimage \
	dpkg-deb tar strings timeout

require_grub_kernel

V=6.1.0-18-arm64
CONSOLE_ARGS=+ignore_loglevel,+earlycon=pl011,0x9000000

# boots KIND IMG: boots IMG until the kernel panics; the console in
# KIND.console.
boots()
{
	booti_boot "$1" env.txt "$2" &&
	tr -d '\r' <"$1.console" | grep -x "Found EFI removable media binary efi/boot/bootaa64.efi" &&
	tr -d '\r' <"$1.console" | grep -x "Loading Linux $V ..." &&
	tr -d '\r' <"$1.console" | grep -x "Loading device tree blob..."
}

# cmdline_is KIND IMG: the kernel's command line is GRUB's BOOT_IMAGE= (the
# path of the linux line) and then, word for word, the line imgpatch cat
# --cmdline prints (GRUB hands the words over joined by single spaces).
cmdline_is()
{
	local -; set +x
	local got want

	got=$(kernel_said "$1" "Kernel command line") &&
	imgpatch cat "$2" --cmdline >"$2.cmdline" &&
	want="BOOT_IMAGE=/boot/vmlinuz-$V $(tail -n 1 "$2.cmdline" | awk '{ $1 = $1; print }')" &&
	echo "kernel: $got" && echo "wanted: $want" &&
	test "$got" = "$want"
}

# model_is KIND IMG: the kernel's machine model is the /model of the tree
# imgpatch cat --dtb reports.
model_is()
{
	local -; set +x
	local got

	got=$(kernel_said "$1" "Machine model") &&
	imgpatch cat "$2" --dtb >"$2.dts" &&
	dtc -q -I dts -O dtb -o "$2.dtb" "$2.dts" &&
	echo "kernel: $got" &&
	test "$got" = "$(fdtget -t s "$2.dtb" / model)"
}

# root IMG: IMG's root file system (p2), which patch wrote, passes e2fsck -fn.
root()
{
	local -; set +x
	extract_part "$1" 2 "$1.p2" && e2fsck -fn "$1.p2" >/dev/null 2>&1
}

check 'build the image with Debian'"'"'s GRUB and kernel, and the board environment' '
	kernel_image vmlinuz >kernel.pkg &&
	sed "s/^/# /" kernel.pkg &&
	strings "$GRUB_EFI" | grep -x /EFI/debian &&
	"$FIXTURES/mkimage-debian-grub.sh" grub.img --loader="$GRUB_EFI" --kernel=vmlinuz &&
	board_env env.txt
'

check 'patch --cmdline adds the console: the kernel prints the line cat --cmdline reports, and the model of cat --dtb'"'"'s tree' '
	cp grub.img con.img &&
	imgpatch patch con.img --cmdline "$CONSOLE_ARGS" >con.log &&
	root con.img &&
	boots con con.img &&
	cmdline_is con con.img &&
	grep -q " ro  quiet ignore_loglevel earlycon=pl011,0x9000000\$" con.img.cmdline &&
	model_is con con.img &&
	test "$(kernel_said con "Machine model")" = "Pine64 RockPro64 v2.1"
'

check 'patch --cmdline and --dt-set again: no quiet, one more word, a new model; the kernel sees them all' '
	cp con.img more.img &&
	imgpatch patch more.img --cmdline -quiet,+cgroup_enable=memory \
		--dt-set "/:model=\"imgpatch RockPro64\"" >more.log &&
	root more.img &&
	boots more more.img &&
	cmdline_is more more.img &&
	case " $(kernel_said more "Kernel command line") " in *" quiet "*) false ;; *" cgroup_enable=memory "*) true ;; *) false ;; esac &&
	model_is more more.img &&
	test "$(kernel_said more "Machine model")" = "imgpatch RockPro64"
'

test_done
