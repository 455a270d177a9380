#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot'"'"'s own scan_dev_for_efi loads, from the ESP, the tree imgpatch says BOOTAA64.EFI gets: as built, with copies under / and /dtb/current/, after patch --via file'
. "$(dirname "$0")/lib.sh"

# What is exercised: U-Boot (Debian 12's 2023.01, tests/uboot/build-uboot.sh)
# runs scan_dev_for_efi exactly as its default environment defines it
# (include/config_distro_bootcmd.h): "setenv efi_fdtfile ${fdtfile}", the
# loop over efi_dtb_prefixes (/ /dtb/ /dtb/current/) that runs
# load_efi_dtb ("load ... ${fdt_addr_r} ${prefix}${efi_fdtfile}") for each
# prefix whose file "test -e" finds, and its "test -e ...
# efi/boot/bootaa64.efi" on the FAT. Only its two boot steps are replaced:
# boot_efi_bootmgr does nothing and boot_efi_binary only says it was
# reached, since the fixture's BOOTAA64.EFI is a stand-in, not an EFI
# application bootefi could start. The tree at ${fdt_addr_r} afterwards,
# which boot_efi_binary would hand to "bootefi ${kernel_addr_r}
# ${fdt_addr_r}", is printed whole with "fdt print /" and compared with
# "imgpatch cat --dtb --model FDTFILE". Not exercised: bootefi itself
# (its fixups of /chosen and the memory map) and the EFI loader.

. "$TEST_DIR/uboot/uboot-lib.sh"
export MTOOLS_SKIP_CHECK=1

# QEMU's U-Boot sets no fdt_addr_r (it hands over QEMU's own tree): a
# board's, 64-bit sunxi's (as board_env has them), in 1 GiB of RAM.
export UBOOT_MEM=1024

uboot_missing sfdisk mke2fs debugfs mkfs.vfat mcopy mmd mtype gzip dtc fdtget fdtput timeout

RP=rockchip/rk3399-rockpro64.dtb
PP=allwinner/sun50i-a64-pinephone-1.2.dtb

# scan DEVNUM FDTFILE NAME: typed commands that run scan_dev_for_efi on
# virtio DEVNUM, partition 1, with fdtfile=FDTFILE, and print the tree
# it leaves at ${fdt_addr_r} (NAME-efi, NAME-addr, NAME-tree) and the
# CRC-32 of the file it loaded last (NAME-crc).
scan()
{
	printf '%s-efi setenv devtype virtio; setenv devnum %s; setenv distro_bootpart 1; setenv fdtfile %s; run scan_dev_for_efi\n' \
		"$3" "$1" "$2"
	printf '%s-addr fdt addr ${fdt_addr_r}\n' "$3"
	printf '%s-tree fdt print /\n' "$3"
	printf '%s-crc crc32 ${fdt_addr_r} ${filesize}\n' "$3"
}

check 'build the EFI image, a copy with trees under / and /dtb/current/, that copy patched --via file' '
	"$FIXTURES/mkimage-efi.sh" efi.img &&
	cp efi.img cur.img &&
	fat=$(part_mtools cur.img 1) &&
	cp "$DTB_DIR/rk3399-rockpro64.dtb" current.dtb && fdtput -t s current.dtb / imgpatch-test current &&
	cp "$DTB_DIR/rk3399-rockpro64.dtb" root.dtb && fdtput -t s root.dtb / imgpatch-test root &&
	mmd -i "$fat" ::/dtb/current ::/dtb/current/rockchip ::/rockchip &&
	mcopy -i "$fat" current.dtb ::/dtb/current/$RP &&
	mcopy -i "$fat" root.dtb ::/$RP &&
	cp cur.img patched.img &&
	imgpatch patch patched.img --via file --model $RP \
		--dt-set mmc@fe320000:max-frequency=50000000 >patch.log
'

# QEMU gives the last disk the lowest address: patched.img is virtio 0.
check 'U-Boot runs its scan_dev_for_efi on each ESP and reaches BOOTAA64.EFI' '
	{
		echo "scan virtio scan"
		echo "addrs setenv fdt_addr_r 0x4fa00000; setenv kernel_addr_r 0x40080000"
		echo "hooks setenv boot_efi_bootmgr true; setenv boot_efi_binary echo EFI binary reached"
		scan 2 $RP efi-rp
		scan 2 $PP efi-pp
		scan 1 $RP cur
		scan 0 $RP patched
	} >efi.cmds &&
	boot_uboot efi efi.cmds efi.img cur.img patched.img &&
	for s in efi-rp efi-pp cur patched; do
		uboot_ok efi $s-efi && uboot_ok efi $s-tree &&
		grep -x "Found EFI removable media binary efi/boot/bootaa64.efi" efi/$s-efi.out &&
		grep -x "EFI binary reached" efi/$s-efi.out || return 1
	done
'

# same NAME IMG FDTFILE: the tree U-Boot left for NAME is the one
# "imgpatch cat IMG --dtb --model FDTFILE" prints.
same()
{
	uboot_tree_dts efi/$1-tree.out $1.uboot.dts &&
	imgpatch cat "$2" --dtb --model "$3" >$1.cat &&
	dtc -q -I dts -O dtb -o $1.cat.dtb $1.cat &&
	dtb_dts $1.cat.dtb $1.imgpatch.dts &&
	test_cmp $1.imgpatch.dts $1.uboot.dts
}

# loaded NAME IMG FDTFILE: U-Boot's last load for NAME was the ESP file
# that "imgpatch cat IMG --dtb --model FDTFILE" names, by its CRC-32.
loaded()
{
	imgpatch cat "$2" --dtb --model "$3" | sed -n "1s|^// boot path efi: ||p" >$1.path &&
	mtype -i "$(part_mtools "$2" 1)" "::$(cat $1.path)" >$1.file &&
	grep -q "==> $(crc32_of $1.file)\$" efi/$1-crc.out
}

# The PinePhone tree has a property fdt print shows as strings that dtc
# reads back otherwise ("\01" is octal there): its file is compared.
check 'as built: U-Boot loads /dtb/FDTFILE, the tree imgpatch reports, for either board' '
	same efi-rp efi.img $RP && loaded efi-rp efi.img $RP &&
	fdtget -t s efi-rp.uboot.dts.dtb / compatible | grep -q "pine64,rockpro64" &&
	loaded efi-pp efi.img $PP && test "$(cat efi-pp.path)" = /dtb/$PP
'

check 'with copies under / and /dtb/current/: U-Boot ends with /dtb/current/'"'"'s, as imgpatch says' '
	same cur cur.img $RP && loaded cur cur.img $RP &&
	test "$(fdtget -t s cur.uboot.dts.dtb / imgpatch-test)" = current &&
	grep -q "^// boot path efi: /dtb/current/$RP" cur.cat
'

check 'patched --via file: U-Boot hands over the edited tree' '
	same patched patched.img $RP && loaded patched patched.img $RP &&
	test "$(fdtget patched.uboot.dts.dtb /mmc@fe320000 max-frequency)" = 50000000 &&
	test "$(fdtget -t s patched.uboot.dts.dtb / imgpatch-test)" = current
'

test_done
