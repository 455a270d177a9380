#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='BeagleBone uEnv.txt optargs= and cmdline=: the bootargs U-Boot builds from them hold the words cat --cmdline prints, in its order, before and after patch --cmdline'
. "$(dirname "$0")/lib.sh"

# What is exercised: U-Boot (tests/uboot/build-uboot.sh) imports the
# image's /boot/uEnv.txt as BeagleBoard's "boot" does (t0640's
# beagle-uname-boot.cmd), then runs args_mmc_uuid as BeagleBoard's U-Boot
# defines it (RobertCNelson/Bootloader-Builder at commit
# 24491084c6511a185591245ac5ab4ba1ed391d9f, patches/v2021.10/am335x_evm/
# 0002/include/environment/ti/mmc.h, typed here): "setenv bootargs
# console=${console} ${optargs} ${cape_uboot} root=UUID=${uuid} ro
# rootfstype=${mmcrootfstype} ${uboot_detected_capes} ${cmdline}".
# The bootargs it ends with, without the loader's own words (console=,
# root=, ro, rootfstype=, rootwait), must be the line cat --cmdline
# prints, word for word.

. "$TEST_DIR/uboot/uboot-lib.sh"
CMDS=$TEST_DIR/uboot/beagle.cmds
export UBOOT_MEM=2048

uboot_missing sfdisk debugfs mkimage mkfs.vfat mcopy dtc fdtget timeout

# ext IMG PATH: a file of IMG's ext4 (at sector 8192).
ext()
{
	debugfs -R "cat $2" "$1?offset=$((8192 * 512))" 2>/dev/null
}

# with_optargs IMG LINE: IMG's uEnv.txt with LINE added after console=.
with_optargs()
{
	local fs="$1?offset=$((8192 * 512))"

	ext "$1" /boot/uEnv.txt | sed "s/^console=.*/&\n$2/" >uenv.new &&
	printf 'rm /boot/uEnv.txt\nwrite uenv.new /boot/uEnv.txt\n' >uenv.cmd &&
	debugfs -w -f uenv.cmd "$fs" >/dev/null 2>&1 &&
	ext "$1" /boot/uEnv.txt | grep -qx "$2"
}

# bootargs_of KIND: the words of the bootargs U-Boot built in session
# KIND that come from uEnv.txt, one line.
bootargs_of()
{
	sed -n 's/^bootargs=//p' $1/show.out |
		tr ' ' '\n' | grep -v -e '^console=' -e '^root=' -e '^ro$' \
			-e '^rootfstype=' -e '^rootwait$' -e '^$' | paste -sd ' '
}

check 'build the BeagleBone image with optargs=, and the script disk' '
	"$FIXTURES/mkimage-beagle.sh" opt.img &&
	with_optargs opt.img "optargs=quiet drm.debug=7" &&
	cp opt.img opt.orig &&
	cp opt.img edited.img &&
	imgpatch patch edited.img --cmdline -quiet,+drm.debug=0,+lpj=1000000,+video=HDMI-A-1:e >patch.log &&
	mkimage -A arm -O linux -T script -C none -n uname_boot \
		-d "$TEST_DIR/uboot/beagle-uname-boot.cmd" uname-boot.scr >/dev/null &&
	truncate -s 8M scripts.img && PATH=$PATH:/usr/sbin:/sbin mkfs.vfat scripts.img >/dev/null &&
	MTOOLS_SKIP_CHECK=1 mcopy -i scripts.img uname-boot.scr ::uname-boot.scr &&
	{
		cat "$CMDS"
		echo "defs setenv mmcrootfstype ext4 rootwait; setenv bootpart 1:1; setenv finduuid part uuid \${devtype} \${bootpart} uuid"
		echo "argdef setenv args_mmc_uuid setenv bootargs console=\\\${console} \\\${optargs} \\\${cape_uboot} root=UUID=\\\${uuid} ro rootfstype=\\\${mmcrootfstype} \\\${uboot_detected_capes} \\\${cmdline}"
		echo "args run finduuid; run args_mmc_uuid"
		echo "show printenv bootargs"
	} >args.cmds
'

check 'cat --cmdline: optargs= words, then cmdline= words; patch: existing ones edited in place, new ones in cmdline=' '
	imgpatch cat opt.img --cmdline >opt.cat &&
	head -n 1 opt.cat | grep -q "^# p1 (ext4): /boot/uEnv.txt, optargs= then cmdline=; " &&
	test "$(sed -n 2p opt.cat)" = "quiet drm.debug=7 $(ext opt.img /boot/uEnv.txt | sed -n "s/^cmdline=//p")" &&
	ext edited.img /boot/uEnv.txt >edited.uenv &&
	grep -x "optargs=drm.debug=0" edited.uenv &&
	grep -x "cmdline=fsck.repair=yes earlycon coherent_pool=1M net.ifnames=0 lpj=1000000 rng_core.default_quality=100 video=HDMI-A-1:e" edited.uenv &&
	ext opt.img /boot/uEnv.txt | grep -v "^optargs=\|^cmdline=" >a &&
	grep -v "^optargs=\|^cmdline=" edited.uenv >b && test_cmp a b
'

check 'U-Boot builds bootargs from optargs= and cmdline=: the words cat --cmdline prints' '
	for s in opt edited; do
		boot_uboot $s args.cmds $s.img scripts.img &&
		uboot_ok $s source && uboot_ok $s show &&
		grep -q "^bootargs=console=ttyS0,115200n8 " $s/show.out &&
		bootargs_of $s >$s.uboot &&
		imgpatch cat $s.img --cmdline | sed -n 2p >$s.imgpatch &&
		test_cmp $s.imgpatch $s.uboot || return 1
	done &&
	grep -q "^bootargs=console=ttyS0,115200n8 drm.debug=0 root=UUID=" edited/show.out
'

check 'patch --cmdline with nothing to change: image unchanged' '
	cp opt.orig same.img &&
	imgpatch patch same.img --cmdline +quiet,+drm.debug=7 >same.log &&
	cmp opt.orig same.img
'

test_done
