#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='recipe grub-serial-console on Debian'"'"'s UEFI layouts (grub.cfg naming the tree; trees on the ESP for U-Boot'"'"'s EFI boot): the linux line GRUB boots and /etc/default/grub, read back by debugfs, sh and grub-script-check; a rerun and a dry run change nothing'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mcopy mke2fs debugfs e2fsck grub-script-check dtc fdtput fdtget

. "$FIXTURES/lib-fixture.sh"

# root_file IMG PATH: the root's (p2) file, read by debugfs after e2fsck -fn.
root_file()
{
	local -; set +x
	extract_part "$1" 2 "$1.p2" && e2fsck -fn "$1.p2" >/dev/null 2>&1 &&
	ext_cat "$1.p2" "$2"
}

# sourced FILE VAR: VAR's value after sh sources FILE, as grub-mkconfig does.
sourced()
{
	sh -c '. "$1" && eval "printf %s \"\$$2\""' sh "./$1" "$2"
}

test_expect_success 'build Debian'"'"'s GRUB layout and the ESP-trees layout' '
	"$FIXTURES/mkimage-debian-grub.sh" grub.img &&
	"$FIXTURES/mkimage-efi.sh" efi.img
'

for img in grub efi; do
	test_expect_success "$img: apply sets console= and drops quiet on the booted linux line and in /etc/default/grub" '
		cp '$img'.img '$img'-c.img &&
		imgpatch apply grub-serial-console '$img'-c.img >'$img'.plan &&
		root_file '$img'-c.img /boot/grub/grub.cfg >'$img'.cfg &&
		grub-script-check '$img'.cfg &&
		imgpatch cat '$img'-c.img --cmdline | tail -1 >'$img'.line &&
		grep -q " console=ttyS2,1500000n8\$" '$img'.line &&
		! grep -qw quiet '$img'.line &&
		grep -F "$(cat '$img'.line)" '$img'.cfg | grep -q "^[[:space:]]*linux[[:space:]]" &&
		root_file '$img'-c.img /etc/default/grub >'$img'.default &&
		test "$(sourced '$img'.default GRUB_CMDLINE_LINUX)" = "console=ttyS2,1500000n8" &&
		test -z "$(sourced '$img'.default GRUB_CMDLINE_LINUX_DEFAULT)"
	'

	test_expect_success "$img: applying again and a dry run leave the image byte-identical" '
		sum=$(sum_file '$img'-c.img) &&
		imgpatch apply grub-serial-console '$img'-c.img >/dev/null &&
		test_file_unchanged '$img'-c.img "$sum" &&
		sum=$(sum_file '$img'.img) &&
		imgpatch apply grub-serial-console '$img'.img --dry-run >/dev/null &&
		test_file_unchanged '$img'.img "$sum"
	'
done

test_done
