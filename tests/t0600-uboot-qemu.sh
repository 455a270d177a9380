#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='a real consumer: U-Boot under QEMU reads the patched dtb and fstab as a board would'
. "$(dirname "$0")/lib.sh"

# Debian's u-boot-qemu and qemu-system-arm; without them every check is
# skipped, not failed.
export QEMU_AARCH64=${QEMU_AARCH64:-qemu-system-aarch64}
export UBOOT_BIN=${UBOOT_BIN:-/usr/lib/u-boot/qemu_arm64/u-boot.bin}
CONSOLE=$TEST_DIR/uboot/uboot-console.sh
CMDS=$TEST_DIR/uboot/kv260.cmds

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
KV260_ARGS="--fdt $FDT --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

# The missing tool: a command, or the package of a file.
missing=
if ! command -v "$QEMU_AARCH64" >/dev/null 2>&1; then
	missing=$QEMU_AARCH64
elif [ ! -r "$UBOOT_BIN" ]; then
	missing=u-boot-qemu
else
	test_require_imgpatch
	test_require_tools sfdisk mtype debugfs gzip od xxd timeout
fi

# check NAME BODY: a test, or a skipped one when QEMU or U-Boot is missing.
check()
{
	if [ -n "$missing" ]; then
		test_skip_tool "$1" "$missing"
	else
		test_expect_success "$1" "$2"
	fi
}

# boot_uboot KIND: one U-Boot session on KIND.img running every command of
# $CMDS; outputs in KIND/, the whole console in KIND.console, shown when
# the session fails.
boot_uboot()
{
	local -; set +x
	local kind=$1 start=$SECONDS

	if "$CONSOLE" "$kind.console" "$kind" "$kind.img" <"$CMDS"; then
		echo "U-Boot session on $kind.img: $((SECONDS - start))s"
		return 0
	fi
	echo "--- console of the U-Boot session on $kind.img:"
	tr -d '\r' <"$kind.console"
	echo
	return 1
}

# uboot_ok KIND NAME: shows what command NAME printed; fails unless it
# succeeded.
uboot_ok()
{
	local -; set +x
	local out=$1/$2.out rc

	if [ ! -f "$out" ]; then
		echo "no output for '$2': the U-Boot session did not get that far"
		return 1
	fi
	rc=$(cat "$1/$2.rc")
	echo "--- U-Boot '$2' (status $rc):"
	cat "$out"
	test "$rc" = 0
}

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

# crc32_of FILE: the CRC-32 U-Boot's crc32 prints, from gzip's trailer
# (stored little-endian).
crc32_of()
{
	local -; set +x
	gzip -c <"$1" | tail -c 8 | od -An -tx1 -N4 |
		awk '{ print $4 $3 $2 $1 }'
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
		boot_uboot $kind
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
