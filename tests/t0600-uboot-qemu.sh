#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='a real consumer: U-Boot under QEMU reads the patched dtb and fstab as a board would'
. "$(dirname "$0")/lib.sh"

. "$TEST_DIR/uboot/uboot-lib.sh"
CMDS=$TEST_DIR/uboot/kv260.cmds

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
KV260_ARGS="--fdt $FDT --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

uboot_missing sfdisk mtype debugfs gzip od xxd timeout

# uboot_parts FILE: the partitions in `part list` output, "N START SIZE" in
# sectors; GPT lists start and end LBA in hex, DOS start and size.
uboot_parts()
{
	local -; set +x
	local num a b rest

	tr '\t' ' ' <"$1" | while read -r num a b rest; do
		case "$num" in ''|*[!0-9]*) continue ;; esac
		case "$a" in
		0x*) echo "$num $((a)) $((b - a + 1))" ;;
		*) echo "$num $a $b" ;;
		esac
	done
}

# sfdisk_parts IMG: the same list as sfdisk reads it.
sfdisk_parts()
{
	local -; set +x
	sfdisk -d "$1" |
		sed -n 's/^.*[^0-9]\([0-9][0-9]*\) *: start= *\([0-9]*\), size= *\([0-9]*\).*/\1 \2 \3/p'
}

# md_bytes FILE: the bytes of an `md.b` dump ("ADDR: xx xx ...  ascii").
md_bytes()
{
	local -; set +x
	awk '/^[0-9a-f]+: / { sub(/^[0-9a-f]+: /, ""); print substr($0, 1, 48) }' "$1" |
		xxd -r -p
}

for kind in gpt mbr; do
	case $kind in
	gpt) opts='' label=EFI what='GPT / FAT32' ;;
	mbr) opts='--mbr --fat16' label=DOS what='MBR / FAT16' ;;
	esac

	check "$what: build and patch the fixture" '
		make_kv260 $kind.img $opts &&
		imgpatch patch $kind.img $KV260_ARGS >$kind.patch.log &&
		mtype -i "$(part_mtools $kind.img 1)" ::/user-override.dtb >$kind.dtb &&
		extract_part $kind.img 2 $kind.ext4 &&
		debugfs -R "cat /etc/fstab" $kind.ext4 >$kind.fstab 2>/dev/null &&
		test -s $kind.fstab
	'

	check "$what: U-Boot boots on the image and runs every command" '
		boot_uboot $kind "$CMDS" $kind.img
	'

	check "$what: virtio scan finds the disk, part list shows the $label partitions" '
		uboot_ok $kind scan &&
		uboot_ok $kind info && grep -q "Device 0: QEMU VirtIO Block Device" $kind/info.out &&
		uboot_ok $kind part &&
		grep -q "Partition Type: $label\$" $kind/part.out &&
		uboot_parts $kind/part.out >$kind.parts.uboot &&
		sfdisk_parts $kind.img >$kind.parts.sfdisk &&
		test_cmp $kind.parts.sfdisk $kind.parts.uboot
	'

	check "$what: fatls shows /user-override.dtb by its long name and size" '
		uboot_ok $kind fatls &&
		size=$(stat -c %s $kind.dtb) &&
		grep -E "^ +$size +user-override\.dtb\$" $kind/fatls.out &&
		grep -E "^ +[0-9]+ +image\.fit\$" $kind/fatls.out
	'

	check "$what: control: the fdt U-Boot takes from image.fit has no-1-8-v" '
		uboot_ok $kind fit && uboot_ok $kind extract &&
		uboot_ok $kind origaddr && uboot_ok $kind origlist &&
		grep -q "^mmc@ff170000 {\$" $kind/origlist.out &&
		grep -qx "$(printf "\tno-1-8-v;")" $kind/origlist.out
	'

	check "$what: fatload reads user-override.dtb byte for byte" '
		uboot_ok $kind load && uboot_ok $kind crc &&
		grep -q "^$(stat -c %s $kind.dtb) bytes read" $kind/load.out &&
		crc=$(crc32_of $kind.dtb) &&
		grep -q " ==> $crc\$" $kind/crc.out
	'

	check "$what: fdt list of user-override.dtb: mmc@ff170000 without no-1-8-v" '
		uboot_ok $kind addr && uboot_ok $kind list &&
		grep -q "^Working FDT set to " $kind/addr.out &&
		grep -q "^mmc@ff170000 {\$" $kind/list.out &&
		grep -q "compatible = \"xlnx,zynqmp-8.9a\"" $kind/list.out &&
		! grep "no-1-8-v" $kind/list.out &&
		{ diff $kind/origlist.out $kind/list.out >$kind.list.diff; test $? = 1; } &&
		printf "<\tno-1-8-v;\n" >list.diff.expect &&
		grep "^[<>]" $kind.list.diff | tr -d " " >list.diff.got &&
		test_cmp list.diff.expect list.diff.got
	'

	check "$what: ext4load reads /etc/fstab: errors=remount-ro,noatime, no discard" '
		uboot_ok $kind fstab && uboot_ok $kind size && uboot_ok $kind dump &&
		md_bytes $kind/dump.out >$kind.fstab.uboot &&
		cat $kind.fstab.uboot &&
		test "size=$(grep "^filesize=" $kind/size.out | cut -d= -f2)" = \
			"size=$(printf %x $(stat -c %s $kind.fstab.uboot))" &&
		test_cmp $kind.fstab $kind.fstab.uboot &&
		printf "LABEL=writable\t/\text4\terrors=remount-ro,noatime\t0 1\n" >fstab.line &&
		head -n 1 $kind.fstab.uboot >fstab.first && test_cmp fstab.line fstab.first &&
		! grep discard $kind.fstab.uboot
	'
done

test_done
