#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot boots Debian'"'"'s extlinux.conf, Armbian'"'"'s and postmarketOS'"'"'s boot.scr as a board does: the bootargs booti hands the kernel (/chosen of its tree, fdt_chosen() of ${bootargs}) hold the line imgpatch cat --cmdline reports, before and after patch --cmdline'
. "$(dirname "$0")/lib.sh"

. "$TEST_DIR/uboot/uboot-lib.sh"

uboot_missing sfdisk debugfs mkimage dtc fdtget fdtput mkenvimage python3 \
	aarch64-linux-gnu-as aarch64-linux-gnu-ld aarch64-linux-gnu-objcopy timeout

debian=6.1.0-13-arm64
armbian=6.6.63-current-sunxi64
pinephone=allwinner/sun50i-a64-pinephone-1.2.dtb

# with_kernel IMG SECTOR PATH: the kernel PATH of IMG's ext4 (at SECTOR)
# replaced by the stand-in that hands the tree it gets to the host.
with_kernel()
{
	local -; set +x
	local fs="$1?offset=$(($2 * 512))"

	printf 'rm %s\nwrite booti.kernel %s\n' "$3" "$3" >kernel.cmd &&
	debugfs -w -f kernel.cmd "$fs" >/dev/null 2>&1 &&
	debugfs -R "stat $3" "$fs" 2>/dev/null | grep -q "Size: $(stat -c %s booti.kernel)\$"
}

# uinitrd IMG PATH: Armbian's initramfs made the legacy ramdisk image its
# hook makes (booti ${ramdisk_addr_r} takes no other without a size).
uinitrd()
{
	local -; set +x
	local fs="$1?offset=$((8192 * 512))"

	debugfs -R "dump $2 initrd.gz" "$fs" >/dev/null 2>&1 &&
	mkimage -A arm64 -O linux -T ramdisk -C gzip -n uInitrd -d initrd.gz uInitrd >/dev/null &&
	printf 'rm %s\nwrite uInitrd %s\n' "$2" "$2" >uinitrd.cmd &&
	debugfs -w -f uinitrd.cmd "$fs" >/dev/null 2>&1
}

# bootargs KIND IMG [ENV]: boots IMG (with ENV, default env.txt); prints
# the bootargs booti handed the kernel.
bootargs()
{
	booti_boot "$1" "${3:-env.txt}" "$2" >/dev/null &&
	fdtget -t s "$1/booti.dtb" /chosen bootargs
}

# line IMG: the line imgpatch cat --cmdline prints after its comment.
line()
{
	imgpatch cat "$1" --cmdline >"$1.cmdline" &&
	test "$(wc -l <"$1.cmdline")" = 2 &&
	tail -1 "$1.cmdline"
}

# armbian_has BOOTARGS LINE: LINE's words stand in BOOTARGS right after
# boot.cmd's usb-storage.quirks= word, where ${extraargs} is.
armbian_has()
{
	python3 - "$1" "$2" <<-\EOP
	import sys
	got, line = sys.argv[1].split(), sys.argv[2].split()
	at = [i for i, w in enumerate(got) if w.startswith("usb-storage.quirks=")]
	assert len(at) == 1, got
	assert got[at[0] + 1:at[0] + 1 + len(line)] == line, (got, line)
	EOP
}

check 'build the images with the stand-in kernel, and the board environment' '
	booti_kernel booti.kernel &&
	symbols_dtb_dir symbols &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-extlinux.sh" extlinux.img --fdt &&
	with_kernel extlinux.img 2048 /boot/vmlinuz-$debian &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-armbian.sh" armbian.img &&
	with_kernel armbian.img 8192 /boot/vmlinuz-$armbian &&
	uinitrd armbian.img /boot/uInitrd-$armbian &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-pmos.sh" pmos.img &&
	with_kernel pmos.img 2048 /vmlinuz &&
	board_env env.txt "fdtfile=$pinephone" &&
	board_env pmos.env "fdtfile=$pinephone" mmc_bootdev=0
'

check 'extlinux, as shipped: bootargs is the append line cat --cmdline prints' '
	got=$(bootargs ext extlinux.img) &&
	test "$got" = "$(line extlinux.img)" &&
	grep -q " ro quiet\$" extlinux.img.cmdline
'

check 'extlinux, patched: the serial console and no quiet, as cat --cmdline says' '
	cp extlinux.img ext-con.img &&
	imgpatch patch ext-con.img --cmdline +console=ttyS0,115200n8,-quiet,+cgroup_enable=memory >/dev/null &&
	got=$(bootargs ext-con ext-con.img) &&
	test "$got" = "$(line ext-con.img)" &&
	case " $got " in *" quiet "*) false ;; *" ro console=ttyS0,115200n8 cgroup_enable=memory "*) true ;; *) false ;; esac
'

check 'Armbian, as shipped: no extraargs; boot.cmd'"'"'s own words, cgroup_enable=memory at the end (docker_optimizations)' '
	got=$(bootargs armbian armbian.img) &&
	test "$(line armbian.img)" = "" &&
	armbian_has "$got" "" &&
	case "$got" in *" cgroup_enable=memory") true ;; *) false ;; esac
'

check 'Armbian, patched: extraargs lands where boot.cmd puts ${extraargs}' '
	cp armbian.img armbian-p.img &&
	imgpatch patch armbian-p.img --cmdline +cgroup_memory=1,+usbcore.autosuspend=-1 >/dev/null &&
	got=$(bootargs armbian-p armbian-p.img) &&
	test "$(line armbian-p.img)" = "cgroup_memory=1 usbcore.autosuspend=-1" &&
	armbian_has "$got" "cgroup_memory=1 usbcore.autosuspend=-1"
'

# The PinePhone's U-Boot boots the SD card with mmc_bootdev=0: boot.scr sets
# bootdev 0, which U-Boot fills in for ${bootdev}.
check 'postmarketOS, as shipped: bootargs is boot.scr'"'"'s line cat --cmdline prints' '
	got=$(bootargs pmos pmos.img pmos.env) &&
	test "$got" = "$(line pmos.img | sed "s/\${bootdev}/0/g")" &&
	grep -q "^# p1 (ext2): /user.scr, setenv bootargs (not set: the boot script" pmos.img.cmdline
'

check 'postmarketOS, patched: the hook user.scr sets the edited line, booti hands it over' '
	cp pmos.img pmos-p.img &&
	imgpatch patch pmos-p.img --cmdline -loglevel,+quiet >/dev/null &&
	got=$(bootargs pmos-p pmos-p.img pmos.env) &&
	test "$got" = "$(line pmos-p.img | sed "s/\${bootdev}/0/g")" &&
	case " $got " in *" loglevel="*) false ;; *" pmos_root=/dev/mmcblk0p2 quiet ") true ;; *) false ;; esac
'

check 'postmarketOS, recipe pinephone-vccq-mod then patched: one user.scr does both' '
	cp pmos.img pmos-v.img &&
	imgpatch apply pinephone-vccq-mod pmos-v.img --set hardware-mod=done >/dev/null &&
	imgpatch patch pmos-v.img --cmdline +console=ttyS0,115200n8 >/dev/null &&
	got=$(bootargs pmos-v pmos-v.img pmos.env) &&
	test "$got" = "$(line pmos-v.img | sed "s/\${bootdev}/0/g")" &&
	fdtget pmos-v/booti.dtb /soc/mmc@1c11000 mmc-hs200-1_8v
'

test_done
