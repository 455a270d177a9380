#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='apply --via: the way a recipe'"'"'s tree reaches the board, as the refusals suggest it'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mtype mcopy mkimage dumpimage dtc fdtget

export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

test_expect_success 'build the KV260 image (its boot script loads user-override.dtb)' '
	make_kv260 kv.img
'

test_expect_success 'apply --via fit: the FIT itself rewritten, no override file, the plan says why' '
	imgpatch apply kv260-uhs kv.img --set board=kv --set carrier=revB --via fit >out &&
	grep -x "    via fit: --via fit" out &&
	! mtype -i "$(part_mtools kv.img 1)" ::/user-override.dtb >/dev/null 2>&1 &&
	mtype -i "$(part_mtools kv.img 1)" ::/image.fit >image.fit &&
	dumpimage -l image.fit >list &&
	dumpimage -T flat_dt -p 6 -o revb.dtb image.fit >/dev/null &&
	fdtget -p revb.dtb /axi/mmc@ff170000 >props &&
	! grep -qx no-1-8-v props && grep -qx disable-wp props
'

test_expect_success 'apply --via with a way that is none: a usage error, the image unchanged' '
	sum=$(sum_file kv.img) &&
	test_must_fail_with 2 imgpatch apply kv260-uhs kv.img --set board=kv --set carrier=revB --via default 2>err &&
	echo "imgpatch: --via '"'"'default'"'"': expected override, fit, overlay or file" >expect &&
	head -n 1 err >first && test_cmp expect first &&
	test_file_unchanged kv.img "$sum"
'

test_done
