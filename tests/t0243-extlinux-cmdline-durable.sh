#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='patch --cmdline on an extlinux.conf u-boot-update wrote: the edit also goes into U_BOOT_PARAMETERS, and u-boot-update run on the patched root writes the same append line'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs e2fsck u-boot-update linux-version unshare chroot

if [ "$(id -u)" != 0 ]; then
	test_skip "u-boot-update runs chrooted on the image's root" "needs root (unshare -m, chroot, mount)"
	test_done
fi

# u-boot-update (u-boot-menu 4.2.2) writes each default label's line as
# "append ${U_BOOT_ROOT} ${U_BOOT_PARAMETERS}", the parameters "ro quiet"
# when /etc/default/u-boot and its conf.d files leave them unset.
ROOT_WORD=root=UUID=44656269-616e-0000-0000-000000000001

# The /etc/default/u-boot u-boot-menu 4.2.2 ships (a conffile, every
# setting commented out).
stock_defaults()
{
	printf '%s\n' "## /etc/default/u-boot - configuration file for u-boot-update(8)" "" \
		'#U_BOOT_UPDATE="true"' "" '#U_BOOT_ALTERNATIVES="default recovery"' \
		'#U_BOOT_DEFAULT="l0"' '#U_BOOT_PROMPT="0"' '#U_BOOT_ENTRIES="all"' \
		'#U_BOOT_MENU_LABEL="Debian GNU/Linux"' '#U_BOOT_PARAMETERS="ro quiet"' \
		'#U_BOOT_ROOT=""' '#U_BOOT_TIMEOUT="50"' '#U_BOOT_FDT=""' \
		'#U_BOOT_FDT_DIR="/usr/lib/linux-image-"' '#U_BOOT_FDT_OVERLAYS=""' \
		'#U_BOOT_FDT_OVERLAYS_DIR="/boot/dtbo/"' ""
}

# put_file IMG PATH FILE: FILE as PATH on the root (p1) of IMG, with debugfs.
put_file()
{
	local off

	off=$(part_offset "$1" 1) &&
	printf 'rm %s\nwrite %s %s\n' "$2" "$3" "$2" >put.cmd &&
	debugfs -w -f put.cmd "$1?offset=$off" >/dev/null 2>&1
}

# root_cat IMG PATH: the root's file, read with debugfs.
root_cat()
{
	debugfs -R "cat $2" "$1?offset=$(part_offset "$1" 1)" 2>/dev/null
}

# regenerated IMG DIR: u-boot-update run chrooted on IMG's root (unpacked
# into DIR); the append line of its label l0.
regenerated()
{
	unpack_root "$1" 1 "$2" &&
	uboot_update "$PWD/$2" &&
	sed -n '/^label l0$/,/^label/{s/^\tappend //p}' "$2/boot/extlinux/extlinux.conf"
}

test_expect_success 'fixture: Debian'"'"'s extlinux.conf as u-boot-update writes it, u-boot-menu'"'"'s stock /etc/default/u-boot' '
	"$FIXTURES/mkimage-extlinux.sh" x.img &&
	stock_defaults >defaults.stock &&
	put_file x.img /etc/default/u-boot defaults.stock &&
	root_cat x.img /etc/default/u-boot >defaults.read && cmp defaults.stock defaults.read &&
	test "$(regenerated x.img a)" = "$ROOT_WORD ro quiet"
'

test_expect_success 'info and cat --cmdline name U_BOOT_PARAMETERS of /etc/default/u-boot as where the line is kept' '
	imgpatch info x.img >info &&
	grep -Fx "    kept in: p1 (ext4): /boot/extlinux/extlinux.conf, label l0, append; also kept in p1 (ext4): /etc/default/u-boot, U_BOOT_PARAMETERS" info &&
	imgpatch cat x.img --cmdline >cat.out &&
	test "$(tail -1 cat.out)" = "$ROOT_WORD ro quiet"
'

test_expect_success 'patch --cmdline: the append line and U_BOOT_PARAMETERS, from its default "ro quiet"' '
	cp x.img p.img &&
	imgpatch patch p.img --cmdline "+console=ttyS2,1500000n8,-quiet" >plan &&
	grep -F "the distribution'"'"'s generator makes this line anew from U_BOOT_PARAMETERS of /etc/default/u-boot (p1): edited there too" plan &&
	grep -Fx "    before: ro quiet (not set: its default)" plan &&
	root_cat p.img /etc/default/u-boot >defaults.after &&
	{ cat defaults.stock && echo "U_BOOT_PARAMETERS=\"ro console=ttyS2,1500000n8\""; } >defaults.want &&
	test_cmp defaults.want defaults.after &&
	imgpatch cat p.img --cmdline >p.cat &&
	test "$(tail -1 p.cat)" = "$ROOT_WORD ro console=ttyS2,1500000n8" &&
	extract_part p.img 1 p.ext4 && e2fsck -fn p.ext4 >fsck.log 2>&1
'

test_expect_success 'u-boot-update run on the patched root writes the line cat --cmdline reports' '
	test "$(regenerated p.img b)" = "$(tail -1 p.cat)"
'

test_expect_success 'a second edit changes the assignment where it stands; running it again changes nothing' '
	imgpatch patch p.img --cmdline +cgroup_enable=memory >plan2 &&
	root_cat p.img /etc/default/u-boot >defaults.2 &&
	test "$(grep -c "^U_BOOT_PARAMETERS=" defaults.2)" = 1 &&
	grep -Fx "U_BOOT_PARAMETERS=\"ro console=ttyS2,1500000n8 cgroup_enable=memory\"" defaults.2 &&
	test "$(regenerated p.img c)" = "$ROOT_WORD ro console=ttyS2,1500000n8 cgroup_enable=memory" &&
	sum=$(sum_file p.img) &&
	imgpatch patch p.img --cmdline +cgroup_enable=memory >plan3 &&
	test_file_unchanged p.img "$sum"
'

test_expect_success 'a value the shell would expand is refused, the image byte-identical' '
	cp x.img s.img &&
	{ cat defaults.stock && echo "U_BOOT_PARAMETERS=\"ro \$EXTRA\""; } >defaults.sh &&
	put_file s.img /etc/default/u-boot defaults.sh &&
	sum=$(sum_file s.img) &&
	test_must_fail imgpatch patch s.img --cmdline +quiet2 2>err &&
	grep "^imgpatch: s.img: p1 (ext4): /etc/default/u-boot: line [0-9]*: U_BOOT_PARAMETERS=\"ro \$EXTRA\": not a value imgpatch edits safely" err &&
	test_file_unchanged s.img "$sum"
'

test_done
