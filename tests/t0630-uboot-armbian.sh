#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='U-Boot under QEMU sources Armbian'"'"'s boot.scr as the board does: the tree it ends with is the one imgpatch reports'
. "$(dirname "$0")/lib.sh"

. "$TEST_DIR/uboot/uboot-lib.sh"
CMDS=$TEST_DIR/uboot/armbian.cmds
# Armbian's ramdisk_addr_r (0x4ff00000) lies above 256 MiB of RAM.
export UBOOT_MEM=1024

uboot_missing sfdisk debugfs mkimage dtc fdtoverlay fdtget python3 timeout

# qemu_copy IMG OUT START KERNEL: IMG with the file KERNEL of the ext4 at
# sector START replaced by 16 KiB without the arm64 Image magic, so that
# the script's booti stops ("Bad Linux ARM64 Image magic!") and U-Boot
# comes back to its prompt with the tree still at ${fdt_addr_r}.
qemu_copy()
{
	local -; set +x

	cp "$1" "$2" &&
	head -c 16384 /dev/zero >dummy.kernel &&
	printf 'rm %s\nwrite dummy.kernel %s\n' "$4" "$4" >dummy.cmd &&
	debugfs -w -f dummy.cmd "$2?offset=$(($3 * 512))" >/dev/null 2>&1 &&
	debugfs -R "stat $4" "$2?offset=$(($3 * 512))" 2>/dev/null | grep -q "Size: 16384"
}

# uboot_overlays SOURCE: each overlay the script loaded and went on to
# apply, as "NAME SIZE", from the output of its source command: the load
# prints "N bytes read", then the script "Applying ... DT overlay NAME".
uboot_overlays()
{
	awk '/ bytes read/ { size = $1 }
	     /^Applying (kernel|user) provided DT overlay / { print $NF, size }' "$1"
}

# imgpatch_overlays IMG JSON: the overlays imgpatch lists, as "NAME SIZE".
imgpatch_overlays()
{
	local -; set +x
	local f

	for f in $(boot_path_files "$2" | tail -n +2); do
		echo "$(basename "$f") $(imgpatch cat "$1" "$f" | wc -c)" || return 1
	done
}

# session NAME IMG PREFIX: U-Boot sources IMG's boot script with ${prefix}
# PREFIX; outputs in NAME/.
session()
{
	local -; set +x
	{ echo "prefix    setenv prefix $3"; cat "$CMDS"; } >"$1.cmds" &&
	boot_uboot "$1" "$1.cmds" "$2"
}

version=6.6.63-current-sunxi64

check 'build the Armbian images and their QEMU copies (a kernel U-Boot will not start)' '
	symbols_dtb_dir symbols &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-armbian.sh" armbian.img &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-armbian.sh" bootfs.img --bootfs &&
	qemu_copy armbian.img armbian.qemu 8192 /boot/vmlinuz-$version &&
	qemu_copy bootfs.img bootfs.qemu 8192 /vmlinuz-$version &&
	imgpatch info --json armbian.img >armbian.json &&
	imgpatch info --json bootfs.img >bootfs.json
'

check 'U-Boot sources /boot/boot.scr from the root (prefix /boot/) and from a boot filesystem (prefix /)' '
	session root armbian.qemu /boot/ &&
	uboot_ok root script && uboot_ok root tree &&
	grep "^## Executing script at 4fc00000" root/source.out &&
	session bootfs bootfs.qemu / &&
	uboot_ok bootfs script && uboot_ok bootfs tree
'

check 'U-Boot loads the tree imgpatch names' '
	for s in root:armbian bootfs:bootfs; do
		tree=$(boot_path_files "${s#*:}.json" | head -n 1) &&
		grep -Fx "Load fdt: ${tree#*:}" "${s%%:*}/source.out" || return 1
	done
'

check 'U-Boot loads the overlays imgpatch lists, in its order, the same files' '
	for s in root:armbian bootfs:bootfs; do
		uboot_overlays "${s%%:*}/source.out" >"${s%%:*}.overlays" &&
		imgpatch_overlays "${s#*:}.img" "${s#*:}.json" >"${s#*:}.overlays" &&
		test_cmp "${s#*:}.overlays" "${s%%:*}.overlays" || return 1
	done &&
	test "$(wc -l <root.overlays)" = 3
'

# With CONFIG_OF_LIBFDT_OVERLAY, U-Boot ends with the overlays applied: the
# effective tree. Debian 12'"'"'s qemu_arm64 build has no "fdt apply": each
# "fdt apply" fails, and Armbian'"'"'s script then reloads the plain tree
# ("Error applying DT overlays, restoring original DT"), so there the
# tree U-Boot ends with is the base tree, and the overlays are compared
# by the files loaded (above).
check 'the tree U-Boot ends with is the one imgpatch reports' '
	for s in root:armbian bootfs:bootfs; do
		img=${s#*:}.img json=${s#*:}.json out=${s%%:*} &&
		uboot_tree_dts "$out/tree.out" "$out.uboot.dts" || return 1
		if uboot_has_fdt_apply "$out/fdthelp.out"; then
			effective_tree "$img" "$out.expected.dts"
		else
			echo "this U-Boot has no fdt apply: the script restores the base tree" &&
			grep -Fx "Error applying DT overlays, restoring original DT" "$out/source.out" &&
			imgpatch cat "$img" "$(boot_path_files "$json" | head -n 1)" >"$out.base.dtb" &&
			dtb_dts "$out.base.dtb" "$out.expected.dts"
		fi &&
		test_cmp "$out.expected.dts" "$out.uboot.dts" || return 1
	done
'

check 'cat --dtb: the tree with the overlays U-Boot loaded applied' '
	effective_tree armbian.img effective.dts &&
	test "$(fdtget effective.dts.dtb /soc/serial@1c28400 status)" = okay &&
	test "$(fdtget effective.dts.dtb /soc/i2c@1c2ac00 status)" = okay &&
	fdtget effective.dts.dtb /soc/mmc@1c0f000 no-1-8-v
'

test_done
