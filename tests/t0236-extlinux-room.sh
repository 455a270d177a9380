#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='extlinux fdtoverlays as sysboot applies them: 8 KiB of room each, the next label when one fails'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs e2fsck dtc fdtoverlay fdtget

V=/usr/lib/linux-image-6.1.0-13-arm64
TREE=$V/allwinner/sun50i-a64-pinephone-1.2.dtb

# root_get IMG PATH OUT
root_get()
{
	debugfs -R "dump $2 $3" "$1?offset=$(part_offset "$1" 1)" 2>/dev/null && test -s "$3"
}

# big_dtbo OUT BYTES [NAME]: an overlay adding a property of BYTES bytes to /.
big_dtbo()
{
	{
		printf '/dts-v1/;\n/plugin/;\n&{/} {\n\t%s = [' "${3:-big-blob}"
		head -c "$2" /dev/zero | od -An -v -tx1 | tr -d '\n'
		printf '];\n};\n'
	} | dtc -q -@ -I dts -O dtb -o "$1" -
}

test_expect_success 'build the Debian extlinux image (fdt + fdtoverlays, a rescue label)' '
	mkdir symbols &&
	cp "$DTB_DIR"/*.dtb symbols/ &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" symbols/sun50i-a64-pinephone-1.2.dtb &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-extlinux.sh" ext.img --fdt &&
	root_get ext.img $TREE base.dtb
'

test_expect_success 'an 18 KB overlay needs more than the 8 KiB sysboot gives: label l0 fails, l0r boots without it' '
	cp ext.img big.img &&
	big_dtbo big.dtbo 18000 &&
	root_put big.img big.dtbo /boot/dtbo/sdfix.dtbo &&
	fdtoverlay -i base.dtb -o want-big.dtb big.dtbo &&
	need=$(stat -c %s want-big.dtb) &&
	give=$(( ($(stat -c %s base.dtb) + 80 + 8192 + 4095) / 4096 * 4096 )) &&
	test "$need" -gt "$give" &&
	sum=$(sum_file big.img) &&
	imgpatch cat big.img --dtb >got.all 2>err &&
	test_file_unchanged big.img "$sum" &&
	sed 1d got.all >got &&
	dtc -q -I dtb -O dts base.dtb >expect &&
	test_cmp expect got &&
	grep -x "// boot path extlinux: $TREE (label l0r: sysboot.s next, label l0 failed)" got.all &&
	grep "/boot/dtbo//sdfix.dtbo: does not fit (FDT_ERR_NOSPACE): the tree needs $need bytes, the loader gives it $give ($((need - give)) more): U-Boot.s fdt apply leaves no valid tree behind (libfdt erases it): booti fails, and sysboot goes on to label l0r (append root=UUID=[-0-9a-f]* ro single)" err
'

test_expect_success 'doctor: overlay-no-room for the FDTOVERLAYS entry, the 8 KiB named' '
	{ imgpatch doctor big.img --json >doctor.json; test $? -le 1; } &&
	python3 - doctor.json >found <<-\EOF &&
	import json, sys
	for f in json.load(open(sys.argv[1]))["findings"]:
	    if f["id"] == "overlay-no-room":
	        print(f["severity"], f["evidence"]["partition"], f["evidence"]["file"])
	        print(f["fix"]["hint"])
	EOF
	head -n 1 found >got &&
	echo "warning 1 /boot/dtbo//sdfix.dtbo" >expect &&
	test_cmp expect got &&
	grep "gives each FDTOVERLAYS entry 8 KiB" found
'

test_expect_success 'each overlay gets its own 8 KiB: two 6 KB overlays both apply, as fdtoverlay merges them' '
	cp ext.img two.img &&
	big_dtbo a.dtbo 6000 blob-a &&
	big_dtbo b.dtbo 6000 blob-b &&
	root_put two.img a.dtbo /boot/dtbo/a.dtbo &&
	root_put two.img b.dtbo /boot/dtbo/b.dtbo &&
	root_get two.img /boot/extlinux/extlinux.conf conf &&
	sed -i "s|^\tfdtoverlays .*|\tfdtoverlays /boot/dtbo/a.dtbo /boot/dtbo/b.dtbo|" conf &&
	root_put two.img conf /boot/extlinux/extlinux.conf &&
	fdtoverlay -i base.dtb -o want.dtb a.dtbo b.dtbo &&
	test "$(stat -c %s want.dtb)" -gt $(( ($(stat -c %s base.dtb) + 80 + 8192 + 4095) / 4096 * 4096 )) &&
	imgpatch cat two.img --dtb >got.all &&
	sed 1d got.all >got &&
	dtc -q -I dtb -O dts want.dtb >expect &&
	test_cmp expect got &&
	grep -x "// boot path extlinux: $TREE + /boot/dtbo/a.dtbo + /boot/dtbo/b.dtbo" got.all
'

test_expect_success 'patch --via overlay: a new overlay larger than the 8 KiB is refused before any write, --via file works' '
	cp ext.img refuse.img &&
	big=$(head -c 18000 /dev/zero | tr "\0" x) &&
	test_refuses refuse.img "overlay imgpatch-[0-9a-f]* would not take effect, the loader gives each overlay 8192 bytes of room (use --via file): does not fit (FDT_ERR_NOSPACE): the tree needs [0-9]* bytes, the loader gives it [0-9]*" \
		imgpatch patch refuse.img --via overlay --dt-set "/:big=\"$big\"" &&
	test "$(wc -l <err)" = 1 &&
	imgpatch patch refuse.img --via file --dt-set "/:big=\"$big\"" --quiet >/dev/null &&
	root_get refuse.img $TREE file.dtb &&
	test "$(fdtget file.dtb / big)" = "$big"
'

test_expect_success 'no label after the failed one: the boot ends, no tree' '
	cp big.img last.img &&
	root_get last.img /boot/extlinux/extlinux.conf conf &&
	sed -i "/^label l0r/,\$d" conf &&
	root_put last.img conf /boot/extlinux/extlinux.conf &&
	test_must_fail_with 1 imgpatch cat last.img --dtb >out 2>err &&
	test_cmp /dev/null out &&
	grep "does not fit (FDT_ERR_NOSPACE).*booti fails, and label l0 is the last sysboot can boot: this boot fails" err
'

test_done
