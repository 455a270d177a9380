#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='recipes for the hook-less FIT path and BeagleBone uEnv.txt path'
. "$(dirname "$0")/lib.sh"

test_require_tools mcopy mtype mren dumpimage fdtget fdtput dtc debugfs e2fsck fsck.fat sha1sum

# The shipped recipes as the build installs them.
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

KV_FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
KV_SET="--set fdt=$KV_FDT"
BB_ROOT=$((8192 * 512))

# fit_of IMG NAME OUT: the FIT NAME from partition 1, read with mtools.
fit_of()
{
	mcopy -n -i "$(part_mtools "$1" 1)" "::/$2" "$3"
}

# uenv_of IMG: /boot/uEnv.txt of the BeagleBone image, read with debugfs.
uenv_of()
{
	debugfs -R "cat /boot/uEnv.txt" "$1?offset=$BB_ROOT" 2>/dev/null
}

# image_index FIT NAME: the dumpimage index of image NAME.
image_index()
{
	dumpimage -l "$1" | awk -v n="$2" '
		/^ Image [0-9]+ \(/ { i = $2; sub(/\(/, "", $3); sub(/\)/, "", $3)
			if ($3 == n) { print i; exit } }'
}

# hashes_hold FIT: every image's sha1 that dumpimage lists is the sha1 of
# the payload dumpimage extracts.
hashes_hold()
{
	dumpimage -l "$1" >list &&
	! grep -i error list &&
	n=$(grep -c "^ Image [0-9]* (" list) &&
	test "$n" -gt 0 &&
	for i in $(seq 0 $((n - 1))); do
		want=$(awk -v i="$i" '
			/^ Image [0-9]+ \(/ { cur = $2 }
			cur == i && /Hash value:/ { print $3; exit }' list) &&
		dumpimage -T flat_dt -p "$i" -o "payload.$i" "$1" >/dev/null &&
		got=$(sha1sum <"payload.$i" | cut -d" " -f1) &&
		test "$want" = "$got" || { echo "image $i: listed $want, payload $got"; return 1; }
	done
}

test_expect_success 'build fixtures: a PetaLinux-like image.ub with no hook, BeagleBone Debian' '
	"$FIXTURES/mkimage-kv260.sh" kvfit.img --no-hook &&
	mren -i "$(part_mtools kvfit.img 1)" ::/image.fit ::/image.ub &&
	fit_of kvfit.img image.ub old.ub &&
	"$FIXTURES/mkimage-kv260.sh" kvhook.img &&
	"$FIXTURES/mkimage-beagle.sh" bb.img --capes &&
	"$FIXTURES/mkimage-beagle.sh" bbplain.img &&
	uenv_of bb.img >uenv.old &&
	cp kvfit.img kvfit.orig && cp bb.img bb.orig
'

test_expect_success 'recipes lists and shows both' '
	$IMGPATCH recipes >list &&
	grep "^kria-fit-sd-uhs  *[A-Z]" list &&
	grep "^beaglebone-emmc-off  *[A-Z]" list &&
	$IMGPATCH recipes show kria-fit-sd-uhs >show &&
	grep "^source:" show && grep "^risks:" show && grep "^undo:" show &&
	$IMGPATCH recipes show beaglebone-emmc-off >show &&
	grep "^source:" show && grep "omap-image-builder" show
'

test_expect_success 'kria-fit-sd-uhs: the tree is required, never guessed' '
	test_refuses_usage kvfit.img "parameter .fdt. is required" \
		$IMGPATCH apply kria-fit-sd-uhs kvfit.img
'

test_expect_success 'kria-fit-sd-uhs --dry-run: the plan says via fit, nothing written' '
	$IMGPATCH apply kria-fit-sd-uhs kvfit.img $KV_SET --dry-run >plan &&
	grep "via fit" plan &&
	grep "^ *-.*no-1-8-v;" plan &&
	test_file_unchanged kvfit.img "$(sum_file kvfit.orig)"
'

test_expect_success 'kria-fit-sd-uhs applies: image.ub rewritten, its hashes hold' '
	$IMGPATCH apply kria-fit-sd-uhs kvfit.img $KV_SET >out &&
	grep "p1 (vfat) /image.ub: " out &&
	fit_of kvfit.img image.ub new.ub &&
	! mtype -i "$(part_mtools kvfit.img 1)" ::/user-override.dtb >/dev/null 2>&1 &&
	hashes_hold new.ub &&
	i=$(image_index new.ub $KV_FDT) && test -n "$i" &&
	dumpimage -T flat_dt -p "$i" -o new.dtb new.ub >/dev/null &&
	dumpimage -T flat_dt -p "$i" -o old.dtb old.ub >/dev/null &&
	fdtget -p new.dtb /axi/mmc@ff170000 >props &&
	! grep -x no-1-8-v props &&
	cp old.dtb expect.dtb && fdtput -d expect.dtb /axi/mmc@ff170000 no-1-8-v &&
	dtc -q -I dtb -O dts expect.dtb >expect.dts &&
	dtc -q -I dtb -O dts new.dtb >new.dts &&
	test_cmp expect.dts new.dts &&
	extract_part kvfit.img 1 p1.fat && fsck.fat -n p1.fat >fsck.log
'

test_expect_success 'kria-fit-sd-uhs: every other image in the FIT unchanged' '
	i=$(image_index new.ub $KV_FDT) && test -n "$i" &&
	n=$(dumpimage -l old.ub | grep -c "^ Image [0-9]* (") &&
	for j in $(seq 0 $((n - 1))); do
		test "$j" = "$i" && continue
		dumpimage -T flat_dt -p "$j" -o "o.$j" old.ub >/dev/null &&
		dumpimage -T flat_dt -p "$j" -o "n.$j" new.ub >/dev/null &&
		cmp "o.$j" "n.$j" || return 1
	done
'

test_expect_success 'kria-fit-sd-uhs applied twice: already applied, no byte changes' '
	once=$(sum_file kvfit.img) &&
	$IMGPATCH apply kria-fit-sd-uhs kvfit.img $KV_SET >out2 &&
	grep "already applied" out2 &&
	test_file_unchanged kvfit.img "$once"
'

test_expect_success 'kria-fit-sd-uhs: a FIT of another name is not there' '
	test_refuses kvfit.orig "image.fit" \
		$IMGPATCH apply kria-fit-sd-uhs kvfit.orig $KV_SET --set fit=image.fit
'

test_expect_success 'kria-fit-sd-uhs: a tree the FIT does not hold' '
	test_refuses kvfit.orig "fdt-system-top.dtb" \
		$IMGPATCH apply kria-fit-sd-uhs kvfit.orig --set fdt=fdt-system-top.dtb
'

test_expect_success 'kria-fit-sd-uhs: the wrong board (a BeagleBone image)' '
	test_refuses bb.img "expected" \
		$IMGPATCH apply kria-fit-sd-uhs bb.img $KV_SET
'

test_expect_success 'beaglebone-emmc-off --dry-run: one line planned, nothing written' '
	$IMGPATCH apply beaglebone-emmc-off bb.img --dry-run >plan &&
	grep "^+disable_uboot_overlay_emmc=1$" plan &&
	test_file_unchanged bb.img "$(sum_file bb.orig)"
'

test_expect_success 'beaglebone-emmc-off applies: the line added, the owner'"'"'s lines kept' '
	$IMGPATCH info bb.img >info.before &&
	grep "^boot path:.*BB-BONE-eMMC1-01-00A0.dtbo" info.before &&
	$IMGPATCH apply beaglebone-emmc-off bb.img >out &&
	uenv_of bb.img >uenv.new &&
	{ cat uenv.old && echo disable_uboot_overlay_emmc=1; } >uenv.expect &&
	test_cmp uenv.expect uenv.new &&
	grep -x "uboot_overlay_addr0=BB-UART1-00A0.dtbo" uenv.new &&
	grep -x "uboot_overlay_addr4=BB-SDFIX-00A0.dtbo" uenv.new &&
	extract_part bb.img 1 p1.ext4 && e2fsck -fn p1.ext4 >e2fsck.log 2>&1
'

test_expect_success 'beaglebone-emmc-off: the boot path no longer applies the eMMC cape' '
	$IMGPATCH info bb.img >info.after &&
	grep "^boot path:.*uEnv.txt" info.after &&
	! grep "^boot path:.*BB-BONE-eMMC1-01-00A0.dtbo" info.after &&
	grep "^boot path:.*BB-UART1-00A0.dtbo" info.after
'

test_expect_success 'beaglebone-emmc-off applied twice: already applied, no byte changes' '
	once=$(sum_file bb.img) &&
	$IMGPATCH apply beaglebone-emmc-off bb.img >out2 &&
	grep "already applied" out2 &&
	test_file_unchanged bb.img "$once"
'

test_expect_success 'beaglebone-emmc-off on the image as BeagleBoard ships it' '
	$IMGPATCH apply beaglebone-emmc-off bbplain.img >out &&
	uenv_of bbplain.img >plain.new &&
	grep -x "#disable_uboot_overlay_emmc=1" plain.new &&
	test "$(tail -n 1 plain.new)" = disable_uboot_overlay_emmc=1
'

test_expect_success 'beaglebone-emmc-off: the wrong image (Kria, no uEnv.txt)' '
	test_refuses kvhook.img "uEnv.txt" \
		$IMGPATCH apply beaglebone-emmc-off kvhook.img
'

test_done
