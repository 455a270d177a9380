#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='--dt-delete of a property the tree never had: refused with the close names; a re-run stays a no-op'
. "$(dirname "$0")/lib.sh"

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb

# refuses_dt IMAGE PATTERN ARGS...: exit 1, one stderr line naming the image
# and matching PATTERN, nothing planned, and IMAGE byte-identical.
refuses_dt()
{
	img=$1 pattern=$2
	shift 2
	sum_file "$img" >before.sum &&
	test_must_fail_with 1 $IMGPATCH patch "$img" "$@" >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^imgpatch: $img: " err &&
	grep -q -- "$pattern" err &&
	test ! -s out &&
	sum_file "$img" >after.sum && test_cmp before.sum after.sum
}

test_expect_success 'build fixture' '
	"$FIXTURES/mkimage-kv260.sh" kv.img &&
	cp kv.img kv.orig
'

test_expect_success 'a typo in the case: refused, the right name offered' '
	refuses_dt kv.img "$FDT in p1 /image.fit: /axi/mmc@ff170000: delete no-1-8-V: property .no-1-8-V. not found (candidates: no-1-8-v)$" \
		--fdt $FDT --dt-delete mmc@ff170000:no-1-8-V
'

test_expect_success 'a misspelt name: refused, the close one offered' '
	refuses_dt kv.img "property .no-18-v. not found (candidates: no-1-8-v)" \
		--fdt $FDT --dt-delete mmc@ff170000:no-18-v &&
	refuses_dt kv.img "property .disable_wp. not found (candidates: disable-wp)" \
		--fdt $FDT --dt-delete "&sdhci1:disable_wp"
'

test_expect_success 'nothing close: the node'"'"'s properties are listed' '
	refuses_dt kv.img "property .frobnicate. not found (the node has: clk-phase-uhs-ddr50, .*, disable-wp, no-1-8-v, .*, \.\.\.)$" \
		--fdt $FDT --dt-delete mmc@ff170000:frobnicate
'

test_expect_success 'refused with --dry-run and with --fstab alongside' '
	refuses_dt kv.img "candidates: no-1-8-v" \
		--fdt $FDT --dt-delete mmc@ff170000:no-1-8-V --dry-run &&
	refuses_dt kv.img "candidates: no-1-8-v" \
		--fdt $FDT --dt-delete mmc@ff170000:no-1-8-V --fstab /:+noatime
'

test_expect_success 'the same property deleted twice in one run: already without' '
	$IMGPATCH patch kv.img --fdt $FDT --dry-run \
		--dt-delete mmc@ff170000:no-1-8-v \
		--dt-delete /axi/mmc@ff170000:no-1-8-v >out &&
	grep -q "/axi/mmc@ff170000: delete no-1-8-v" out &&
	grep -q "/axi/mmc@ff170000: already without no-1-8-v" out &&
	cmp kv.orig kv.img
'

test_expect_success 'a correct patch: applied, and a second run is a no-op' '
	$IMGPATCH patch kv.img --fdt $FDT --dt-delete mmc@ff170000:no-1-8-v >out1 &&
	mtype -i "$(part_mtools kv.img 1)" ::/user-override.dtb >ovr.dtb &&
	! fdtget -p ovr.dtb /axi/mmc@ff170000 | grep -qx no-1-8-v &&
	cp kv.img once.img &&
	$IMGPATCH patch kv.img --fdt $FDT --dt-delete mmc@ff170000:no-1-8-v >out2 &&
	grep -q "already patched" out2 &&
	cmp once.img kv.img
'

test_expect_success 'the same refusal from a recipe step' '
	cat >typo.recipe <<-\EOD &&
	name = "typo"
	summary = "a misspelt property"
	description = "Deletes a property under a wrong name."
	source = "this test"
	risks = "none"
	undo = "nothing"
	step { action = "fdt-from-fit" fit = "/image.fit" fdt = "fdt-smk-k26-revA-sck-kv-g-revB.dtb" }
	step { action = "dt-delete-property" node = "mmc@ff170000" property = "no-1-8-V" }
	step { action = "write-dtb" path = "/user-override.dtb" }
	EOD
	cp kv.orig rcp.img &&
	test_must_fail_with 1 $IMGPATCH apply ./typo.recipe rcp.img >out 2>err &&
	cat err &&
	grep -q "property .no-1-8-V. not found (candidates: no-1-8-v)" err &&
	cmp kv.orig rcp.img
'

test_done
