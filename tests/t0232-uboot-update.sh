#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='a change to a Debian extlinux image survives u-boot-update, run on the patched root'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs fdtoverlay fdtget dtc u-boot-update linux-version unshare chroot

if [ "$(id -u)" != 0 ]; then
	test_skip "u-boot-update runs chrooted on the image's root" "needs root (unshare -m, chroot)"
	test_done
fi

dtbs=/usr/lib/linux-image-6.1.0-13-arm64
PINE=allwinner/sun50i-a64-pinephone-1.2.dtb
MMC="mmc@1c0f000"
SET="$MMC:max-frequency=<50000000>"

# regenerate IMG DIR: the image's root unpacked into DIR, its extlinux.conf
# kept as DIR.before, then u-boot-update run on it (DIR.after: what it wrote).
regenerate()
{
	unpack_root "$1" 1 "$2" &&
	cp "$2/boot/extlinux/extlinux.conf" "$2.before" &&
	uboot_update "$PWD/$2" &&
	cp "$2/boot/extlinux/extlinux.conf" "$2.after"
}

# booted_by CONF ROOT OUT [TREE]: the tree the first label of CONF boots
# (its fdt, or TREE under its fdtdir) with its fdtoverlays applied by
# fdtoverlay, files taken from ROOT, as DTS in OUT.
booted_by()
{
	local conf=$1 root=$2 out=$3 tree=${4:-} base ovl=()

	base=$(sed -n '/^label l0$/,/^label/{s/^\tfdt \(.*\)$/\1/p}' "$conf")
	[ -n "$base" ] ||
		base=$(sed -n '/^label l0$/,/^label/{s/^\tfdtdir \(.*\)$/\1/p}' "$conf")/$tree
	read -r -a ovl < <(sed -n '/^label l0$/,/^label/{s/^\tfdtoverlays //p}' "$conf")
	[ ${#ovl[@]} -gt 0 ] || return 1
	fdtoverlay -i "$root/$base" -o "$out.dtb" "${ovl[@]/#/$root/}" &&
	dtc -q -I dtb -O dts -o "$out" "$out.dtb"
}

# cat_dtb IMG OUT [ARGS]: what imgpatch cat --dtb gives, without its comment line.
cat_dtb()
{
	local img=$1 out=$2

	shift 2
	imgpatch cat "$img" --dtb "$@" >"$out.all" && sed 1d "$out.all" >"$out"
}

test_expect_success 'fixtures' '
	"$FIXTURES/mkimage-extlinux.sh" fdt.img --fdt &&
	"$FIXTURES/mkimage-extlinux.sh" fdtdir.img &&
	cp fdt.img fdtsym.img && with_symbols fdtsym.img 2048 $dtbs/allwinner
'

test_expect_success 'u-boot-update on the fixtures writes their extlinux.conf byte for byte' '
	regenerate fdtdir.img a && cmp a.before a.after &&
	! grep "Updating" uboot-update.log &&
	regenerate fdt.img b && cmp b.before b.after
'

test_expect_success 'fdtdir: the overlay in /boot/dtbo and U_BOOT_FDT_OVERLAYS, kept by u-boot-update' '
	cp fdtdir.img x.img &&
	imgpatch patch x.img --model $PINE --dt-set "$SET" >plan &&
	grep "^p1 (ext4) /boot/dtbo: new folder$" plan &&
	grep "in /etc/default/u-boot U_BOOT_FDT_OVERLAYS: u-boot-update, which writes extlinux.conf anew" plan &&
	regenerate x.img x &&
	name=$(cd x/boot/dtbo && ls) && test -n "$name" &&
	printf "%s\n\n%s\n" "## /etc/default/u-boot - configuration file for u-boot-update(8)" \
		"U_BOOT_FDT_OVERLAYS=\"$name\"" >defaults.want &&
	test_cmp defaults.want x/etc/default/u-boot &&
	grep -Fx "	fdtoverlays /boot/dtbo/$name" x.before &&
	grep -Fx "	fdtoverlays  /boot/dtbo/$name" x.after &&
	tr -s " " <x.before >x.b && tr -s " " <x.after >x.a && test_cmp x.b x.a &&
	booted_by x.after x x.dts $PINE &&
	cat_dtb x.img x.cat --model $PINE && test_cmp x.cat x.dts &&
	test "$(fdtget x.dts.dtb /soc/$MMC max-frequency)" = 50000000
'

test_expect_success 'fdt + every *.dtbo of /boot/dtbo/: the owner'"'"'s overlay named first, extlinux.conf as u-boot-update writes it' '
	cp fdtsym.img y.img &&
	imgpatch patch y.img --dt-set "$SET" >plan &&
	grep "U_BOOT_FDT_OVERLAYS was unset (every \*.dtbo of /boot/dtbo/): it names the ones there first" plan &&
	regenerate y.img y &&
	name=$(cd y/boot/dtbo && ls | grep "^imgpatch-") &&
	printf "%s\n%s\n%s\n" "U_BOOT_FDT=\"$PINE\"" "U_BOOT_FDT_OVERLAYS_DIR=\"/boot/dtbo/\"" \
		"U_BOOT_FDT_OVERLAYS=\"sdfix.dtbo $name\"" >defaults.want &&
	test_cmp defaults.want y/etc/default/u-boot &&
	grep -Fx "	fdtoverlays  /boot/dtbo//sdfix.dtbo /boot/dtbo//$name" y.before &&
	cmp y.before y.after &&
	booted_by y.after y y.dts &&
	cat_dtb y.img y.cat && test_cmp y.cat y.dts &&
	test "$(fdtget y.dts.dtb /soc/$MMC max-frequency)" = 50000000
'

test_expect_success 'the owner'"'"'s U_BOOT_FDT_OVERLAYS: the name added inside its quotes' '
	cp fdtsym.img z.img &&
	printf "%s\n" "U_BOOT_FDT=\"$PINE\"" "U_BOOT_FDT_OVERLAYS_DIR=\"/boot/dtbo/\"" \
		"U_BOOT_FDT_OVERLAYS='"'"'sdfix.dtbo'"'"' # mine" >u-boot &&
	extract_part z.img 1 z.ext4 &&
	debugfs -w -R "rm /etc/default/u-boot" z.ext4 >/dev/null 2>&1 &&
	debugfs -w -R "write u-boot /etc/default/u-boot" z.ext4 >/dev/null 2>&1 &&
	put_part z.img 1 z.ext4 &&
	imgpatch patch z.img --dt-set "$SET" >plan &&
	! grep "was unset" plan &&
	regenerate z.img z &&
	name=$(cd z/boot/dtbo && ls | grep "^imgpatch-") &&
	grep -Fx "U_BOOT_FDT_OVERLAYS='"'"'sdfix.dtbo $name'"'"' # mine" z/etc/default/u-boot &&
	cmp z.before z.after &&
	booted_by z.after z z.dts && cat_dtb z.img z.cat && test_cmp z.cat z.dts
'

# A package's own conf.d file is replaced at its next upgrade (dpkg owns
# it): the setting goes into the administrator's conf.d, sourced after it.
test_expect_success 'U_BOOT_FDT_OVERLAYS of a package'"'"'s conf.d: carried into /etc/u-boot-menu/conf.d, the package file untouched' '
	cp fdtsym.img p.img &&
	printf "%s\n" "U_BOOT_FDT=\"$PINE\"" "U_BOOT_FDT_OVERLAYS_DIR=\"/boot/dtbo/\"" >u-boot &&
	printf "%s\n" "U_BOOT_FDT_OVERLAYS=\"sdfix.dtbo\"" >board.conf &&
	extract_part p.img 1 p.ext4 &&
	debugfs -w -R "rm /etc/default/u-boot" p.ext4 >/dev/null 2>&1 &&
	debugfs -w -R "write u-boot /etc/default/u-boot" p.ext4 >/dev/null 2>&1 &&
	for d in /usr/share /usr/share/u-boot-menu /usr/share/u-boot-menu/conf.d; do
		debugfs -w -R "mkdir $d" p.ext4 >/dev/null 2>&1 || return 1
	done &&
	debugfs -w -R "write board.conf /usr/share/u-boot-menu/conf.d/board.conf" p.ext4 >/dev/null 2>&1 &&
	put_part p.img 1 p.ext4 &&
	imgpatch patch p.img --dt-set "$SET" >p.plan &&
	grep -F "/etc/u-boot-menu/conf.d/imgpatch.conf" p.plan &&
	regenerate p.img p &&
	test_cmp board.conf p/usr/share/u-boot-menu/conf.d/board.conf &&
	name=$(cd p/boot/dtbo && ls | grep "^imgpatch-") &&
	grep -Fx "U_BOOT_FDT_OVERLAYS=\"sdfix.dtbo $name\"" p/etc/u-boot-menu/conf.d/imgpatch.conf &&
	cmp p.before p.after &&
	booted_by p.after p p.dts && cat_dtb p.img p.cat && test_cmp p.cat p.dts &&
	sum_file p.img >sum &&
	imgpatch patch p.img --dt-set "$SET" >again &&
	test_file_unchanged p.img "$(cat sum)" &&
	extract_part p.img 1 p2.ext4 && e2fsck -fn p2.ext4
'

test_expect_success 'a hand-written extlinux.conf: the overlay beside the tree, nothing else' '
	cp fdtdir.img h.img &&
	extract_part h.img 1 h.ext4 &&
	debugfs -R "cat /boot/extlinux/extlinux.conf" h.ext4 2>/dev/null | sed 1,7d >conf &&
	debugfs -w -R "rm /boot/extlinux/extlinux.conf" h.ext4 >/dev/null 2>&1 &&
	debugfs -w -R "write conf /boot/extlinux/extlinux.conf" h.ext4 >/dev/null 2>&1 &&
	put_part h.img 1 h.ext4 &&
	imgpatch info h.img >info && ! grep "updates:" info &&
	imgpatch patch h.img --model $PINE --dt-set "$SET" >plan &&
	! grep -e U_BOOT_FDT_OVERLAYS -e /boot/dtbo -e /etc/default plan &&
	grep "^p1 (ext4) $dtbs/allwinner/imgpatch-.*: new file" plan
'

test_expect_success 'info says what u-boot-update will do' '
	imgpatch info fdt.img >info &&
	grep -Fx "  updates: extlinux.conf is regenerated by u-boot-update at every kernel install or removal: fdtoverlays then lists /boot/dtbo//sdfix.dtbo (every *.dtbo of /boot/dtbo/); the trees are the new kernel'"'"'s, an edited tree file is not carried over" info &&
	imgpatch info y.img >info &&
	grep -F "fdtoverlays then lists /boot/dtbo//sdfix.dtbo /boot/dtbo//imgpatch-" info &&
	grep -F "(U_BOOT_FDT_OVERLAYS of /etc/default/u-boot)" info
'

test_expect_success 'a line added by hand: info and doctor say u-boot-update drops it, and it does' '
	cp fdtdir.img d.img &&
	extract_part d.img 1 d.ext4 &&
	debugfs -R "cat /boot/extlinux/extlinux.conf" d.ext4 2>/dev/null |
		sed "0,/^\tfdtdir .*/s//&\n\tfdtoverlays \/boot\/mine.dtbo/" >conf &&
	grep -c "fdtoverlays /boot/mine.dtbo" conf >n && echo 1 >n.want && test_cmp n.want n &&
	debugfs -w -R "rm /boot/extlinux/extlinux.conf" d.ext4 >/dev/null 2>&1 &&
	debugfs -w -R "write conf /boot/extlinux/extlinux.conf" d.ext4 >/dev/null 2>&1 &&
	debugfs -w -R "write x/boot/dtbo/$(cd x/boot/dtbo && ls) /boot/mine.dtbo" d.ext4 >/dev/null 2>&1 &&
	put_part d.img 1 d.ext4 &&
	imgpatch info d.img >info &&
	grep -F "fdtoverlays then lists nothing (every *.dtbo of /boot/dtbo, which is not there); dropped: /boot/mine.dtbo;" info &&
	imgpatch doctor d.img --model $PINE >doctor &&
	grep "overlay-not-durable" doctor &&
	grep -F "/boot/mine.dtbo" doctor &&
	imgpatch doctor d.img --model $PINE --json >doctor.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/doctor.schema.json" doctor.json &&
	python3 -c "import json,sys; d=json.load(open(\"doctor.json\")); f=[x for x in d[\"findings\"] if x[\"id\"]==\"overlay-not-durable\"]; assert len(f)==1 and f[0][\"evidence\"][\"file\"]==\"/boot/mine.dtbo\", f" &&
	regenerate d.img d &&
	grep -F "/boot/mine.dtbo" d.before && ! grep -F "/boot/mine.dtbo" d.after
'

test_expect_success '--via file: the plan says a kernel upgrade does not carry the edit over' '
	cp fdt.img f.img &&
	imgpatch patch f.img --via file --dt-delete "$MMC:max-frequency" >plan &&
	grep "not carried over by a kernel upgrade: u-boot-update then names the new kernel'"'"'s trees" plan
'

test_done
