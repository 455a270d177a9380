#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='cat --dtb --model takes the forms patch --model takes (path, vendor/name.dtb, name.dtb)'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs dtc

V=/usr/lib/linux-image-6.1.0-13-arm64
TREE=$V/rockchip/rk3399-rockpro64.dtb

test_expect_success 'build the Debian extlinux image (fdtdir: one tree per board)' '
	"$FIXTURES/mkimage-extlinux.sh" fdtdir.img &&
	debugfs -R "dump $TREE rockpro64.dtb" "fdtdir.img?offset=$(part_offset fdtdir.img 1)" 2>/dev/null &&
	dtc -q -I dtb -O dts rockpro64.dtb >expect
'

for model in $TREE ${TREE#/} rockchip/rk3399-rockpro64.dtb rk3399-rockpro64.dtb; do
	test_expect_success "cat --dtb --model $model is that tree" '
		sum=$(sum_file fdtdir.img) &&
		imgpatch cat fdtdir.img --dtb --model '"$model"' >got.all &&
		test_file_unchanged fdtdir.img "$sum" &&
		echo "// boot path extlinux: $TREE" >head.expect &&
		head -n 1 got.all >head &&
		test_cmp head.expect head &&
		sed 1d got.all >got &&
		test_cmp expect got
	'
done

test_expect_success 'patch --model takes the same names: the same tree is changed' '
	cp fdtdir.img p.img &&
	imgpatch patch p.img --model rockchip/rk3399-rockpro64.dtb --via file \
		--dt-set "/:imgpatch-test=\"x\"" --quiet >/dev/null &&
	imgpatch cat p.img --dtb --model rk3399-rockpro64.dtb >got.all &&
	grep "imgpatch-test = \"x\"" got.all
'

test_expect_success 'a name that is no tree: the trees are listed, exit 2 (what was typed)' '
	test_must_fail_with 2 imgpatch cat fdtdir.img --dtb --model nosuch.dtb 2>err &&
	grep "no tree .nosuch.dtb. (have: " err
'

test_done
