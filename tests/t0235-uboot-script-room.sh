#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='postmarketOS boot.scr and user.scr as U-Boot runs them: test, if, and the room fdt resize gives'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs e2fsck dtc fdtoverlay fdtget mkimage

# ext_get IMG PATH OUT: a file of IMG's pmOS_boot (p1).
ext_get()
{
	debugfs -R "dump $2 $3" "$1?offset=$(part_offset "$1" 1)" 2>/dev/null && test -s "$3"
}

# boot_put IMG FILE...: writes each FILE as /FILE into IMG's pmOS_boot.
boot_put()
{
	local -; set +x
	local img=$1 f

	shift
	extract_part "$img" 1 "$img.p1" || return 1
	for f in "$@"; do
		debugfs -w -R "rm /$f" "$img.p1" >/dev/null 2>&1
		debugfs -w -R "write $f /$f" "$img.p1" >/dev/null 2>&1 || return 1
	done
	e2fsck -fn "$img.p1" >/dev/null 2>&1 && put_part "$img" 1 "$img.p1" && rm -f "$img.p1"
}

# user_scr IMG: user.cmd made a script image and put on IMG as /user.scr.
user_scr()
{
	mkimage -A arm -O linux -T script -C none -d user.cmd user.scr >/dev/null &&
		boot_put "$1" user.scr
}

# room USED EXTRA: fdt_shrink_to_minimum's size, worked out here: the
# tree's blocks, five 16-byte reserve entries and EXTRA, up to 4 KiB.
room()
{
	echo $(( ($1 + 80 + $2 + 4095) / 4096 * 4096 ))
}

# big_dtbo OUT BYTES: an overlay adding a property of BYTES bytes to /.
big_dtbo()
{
	{
		printf '/dts-v1/;\n/plugin/;\n&{/} {\n\tbig-blob = ['
		head -c "$2" /dev/zero | od -An -v -tx1 | tr -d '\n'
		printf '];\n};\n'
	} | dtc -q -@ -I dts -O dtb -o "$1" -
}

test_expect_success 'build the postmarketOS image and the overlays' '
	"$FIXTURES/mkimage-pmos.sh" pmos.img &&
	ext_get pmos.img /sun50i-a64-pinephone-1.2.dtb base.dtb &&
	ext_get pmos.img /sun50i-a64-psci.dtbo psci.dtbo &&
	fdtoverlay -i base.dtb -o stock.dtb psci.dtbo &&
	big_dtbo big.dtbo 9000 &&
	test "$(stat -c %s big.dtbo)" -gt 9000 &&
	fdtoverlay -i stock.dtb -o stock-big.dtb big.dtbo
'

test_expect_success 'stock: the tree booti gets has the PSCI idle states (test -eq 1 is true)' '
	imgpatch cat pmos.img --dtb >got.all 2>err &&
	sed 1d got.all >got &&
	dtc -q -I dtb -O dts stock.dtb >expect &&
	test_cmp expect got &&
	test "$(fdtget stock.dtb /cpus/idle-states entry-method)" = psci &&
	grep "cpu-idle-states" got
'

test_expect_success 'stock: info names the board variable and both outcomes' '
	imgpatch info pmos.img >info.txt &&
	grep -Fx "  tree: /sun50i-a64-pinephone-1.2.dtb + /sun50i-a64-psci.dtbo" info.txt &&
	grep "^warning: /boot.scr: what is applied depends on iscpscienabled, which the image does not set: unset (the board.s default environment): /sun50i-a64-psci.dtbo; with iscpscienabled=0 on the board: no overlay$" info.txt
'

test_expect_success 'a user.scr overlay after a bare "fdt resize" that needs more room: NOSPACE, no tree left' '
	cp pmos.img bare.img &&
	cat >user.cmd <<-\EOF &&
	load mmc ${mmc_bootdev}:1 ${fdtoverlay_addr_r} big.dtbo
	fdt resize
	fdt apply ${fdtoverlay_addr_r}
	EOF
	boot_put bare.img big.dtbo && user_scr bare.img &&
	used=$(stat -c %s stock.dtb) && need=$(stat -c %s stock-big.dtb) &&
	give=$(room "$used" 0) &&
	test "$need" -gt "$give" &&
	sum=$(sum_file bare.img) &&
	test_must_fail_with 1 imgpatch cat bare.img --dtb >out 2>err &&
	test_cmp /dev/null out &&
	grep "/big.dtbo: does not fit (FDT_ERR_NOSPACE): the tree needs $need bytes, the loader gives it $give ($((need - give)) more): U-Boot.s fdt apply leaves no valid tree behind" err &&
	test_file_unchanged bare.img "$sum"
'

test_expect_success 'doctor: overlay-no-room for the user.scr overlay, the fix an fdt resize' '
	sum=$(sum_file bare.img) &&
	{ imgpatch doctor bare.img --json >doctor.json; test $? -le 1; } &&
	test_file_unchanged bare.img "$sum" &&
	python3 - doctor.json >found <<-\EOF &&
	import json, sys
	for f in json.load(open(sys.argv[1]))["findings"]:
	    if f["id"] == "overlay-no-room":
	        print(f["severity"], f["evidence"]["partition"], f["evidence"]["file"])
	        print(f["fix"]["hint"])
	EOF
	head -n 1 found >got &&
	echo "warning 1 /big.dtbo" >expect &&
	test_cmp expect got &&
	grep "fdt resize N" found &&
	grep "FDT_ERR_NOSPACE" doctor.json
'

test_expect_success '"fdt resize 4000" (hex: 16 KiB more) makes room: the tree is fdtoverlay'"'"'s' '
	cp pmos.img resized.img &&
	cat >user.cmd <<-\EOF &&
	load mmc ${mmc_bootdev}:1 ${fdtoverlay_addr_r} big.dtbo
	fdt resize 4000
	fdt apply ${fdtoverlay_addr_r}
	EOF
	boot_put resized.img big.dtbo && user_scr resized.img &&
	test "$(room "$(stat -c %s stock.dtb)" $((0x4000)))" -ge "$(stat -c %s stock-big.dtb)" &&
	imgpatch cat resized.img --dtb >got.all &&
	sed 1d got.all >got &&
	dtc -q -I dtb -O dts stock-big.dtb >expect &&
	test_cmp expect got &&
	echo "// boot path script: /sun50i-a64-pinephone-1.2.dtb + /sun50i-a64-psci.dtbo + /big.dtbo" >head.expect &&
	head -n 1 got.all >head &&
	test_cmp head.expect head
'

test_expect_success 'no resize in user.scr: what boot.scr'"'"'s "fdt resize 2048" (0x2048) left is the room' '
	cp pmos.img left.img &&
	cat >user.cmd <<-\EOF &&
	load mmc ${mmc_bootdev}:1 ${fdtoverlay_addr_r} big.dtbo && fdt apply ${fdtoverlay_addr_r}
	EOF
	boot_put left.img big.dtbo && user_scr left.img &&
	give=$(room "$(stat -c %s base.dtb)" $((0x2048))) &&
	need=$(stat -c %s stock-big.dtb) &&
	test "$need" -gt "$give" &&
	test_must_fail_with 1 imgpatch cat left.img --dtb >out 2>err &&
	grep "the tree needs $need bytes, the loader gives it $give " err &&
	big_dtbo small.dtbo 2000 &&
	fdtoverlay -i stock.dtb -o stock-small.dtb small.dtbo &&
	test "$(stat -c %s stock-small.dtb)" -le "$give" &&
	sed -i s/big.dtbo/small.dtbo/ user.cmd &&
	boot_put left.img small.dtbo && user_scr left.img &&
	imgpatch cat left.img --dtb >got.all &&
	sed 1d got.all >got &&
	dtc -q -I dtb -O dts stock-small.dtb >expect &&
	test_cmp expect got
'

test_expect_success 'iscpscienabled=0 in a script the image holds: no PSCI overlay, no warning' '
	cp pmos.img off.img &&
	extract_part off.img 1 off.p1 &&
	debugfs -R "dump /boot.scr boot.scr" off.p1 2>/dev/null &&
	tail -c +73 boot.scr >boot.cmd &&
	sed -i "s/^if test \${iscpscienabled} -eq 1; then/setenv iscpscienabled 0\n&/" boot.cmd &&
	mkimage -A arm -O linux -T script -C none -a 0 -e 0 -n postmarketos -d boot.cmd boot.scr >/dev/null &&
	debugfs -w -R "rm /boot.scr" off.p1 >/dev/null 2>&1 &&
	debugfs -w -R "write boot.scr /boot.scr" off.p1 >/dev/null 2>&1 &&
	put_part off.img 1 off.p1 &&
	imgpatch cat off.img --dtb >got.all 2>err &&
	echo "// boot path script: /sun50i-a64-pinephone-1.2.dtb" >head.expect &&
	head -n 1 got.all >head &&
	test_cmp head.expect head &&
	sed 1d got.all >got &&
	dtc -q -I dtb -O dts base.dtb >expect &&
	test_cmp expect got &&
	! grep iscpscienabled err
'

test_done
