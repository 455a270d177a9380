#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='cat --dtb: the effective tree of each boot path, compared with fdtoverlay'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mtype mcopy mke2fs debugfs e2fsck dtc fdtoverlay \
	fdtget dumpimage mkimage

export IMGPATCH_RECIPE_PATH=$IMGPATCH_BUILD/recipes

# expect_dts DTB OUT: what cat --dtb must print after its comment line.
expect_dts()
{
	dtc -q -I dtb -O dts -o "$2" "$1"
}

# effective IMG OUT [ARGS]: cat IMG --dtb ARGS, the comment line into
# OUT.head and the DTS into OUT; fails when the image changed or dtc does
# not take the DTS back.
effective()
{
	local -; set +x
	local img=$1 out=$2 sum

	shift 2
	sum=$(sum_file "$img") || return 1
	imgpatch cat "$img" --dtb "$@" >"$out.all" || return 1
	test_file_unchanged "$img" "$sum" || return 1
	head -n 1 "$out.all" >"$out.head" && sed 1d "$out.all" >"$out" &&
		dtc -q -I dts -O dtb -o /dev/null "$out"
}

# ext_get IMG N PATH OUT: a file of the ext filesystem of partition N.
ext_get()
{
	debugfs -R "dump $3 $4" "$1?offset=$(part_offset "$1" "$2")" 2>/dev/null &&
		test -s "$4"
}

# ext_put IMG N LOCAL PATH: writes LOCAL as PATH into partition N's ext
# filesystem (replacing it), checked with e2fsck.
ext_put()
{
	local -; set +x
	local part=$TEST_OUT/part.$$

	extract_part "$1" "$2" "$part" &&
		debugfs -w -R "rm $4" "$part" >/dev/null 2>&1
	debugfs -w -R "write $3 $4" "$part" >/dev/null 2>&1 &&
		e2fsck -fn "$part" >/dev/null 2>&1 &&
		put_part "$1" "$2" "$part" && rm -f "$part"
}

test_expect_success 'build fixtures (the PinePhone tree with __symbols__, as U-Boot builds it)' '
	mkdir symbols &&
	cp "$DTB_DIR"/*.dtb symbols/ &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" symbols/sun50i-a64-pinephone-1.2.dtb &&
	make_kv260 kv.img &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-armbian.sh" armbian.img &&
	"$FIXTURES/mkimage-armbian.sh" armbian-nosym.img &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-extlinux.sh" extlinux.img --fdt &&
	"$FIXTURES/mkimage-extlinux.sh" extlinux-nosym.img --fdt &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-pmos.sh" pmos.img
'

test_expect_success 'kv260: several FIT trees and no --model: one line listing them, exit 1' '
	sum=$(sum_file kv.img) &&
	test_must_fail_with 1 imgpatch cat kv.img --dtb 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep "^imgpatch: kv.img: 5 trees (conf-zynqmp-smk-k26-revA, .*conf-smk-k26-revA-sck-kv-g-revB): name one$" err &&
	test_must_fail_with 2 imgpatch cat kv.img --dtb --model nosuch 2>err &&
	grep "no tree .nosuch. (have: conf-zynqmp-smk-k26-revA, " err &&
	test_file_unchanged kv.img "$sum"
'

test_expect_success 'kv260 without override: the configuration'"'"'s fdt, as dumpimage extracts it' '
	mcopy -i "$(part_mtools kv.img 1)" ::/image.fit image.fit &&
	dumpimage -T flat_dt -p 6 -o revB.dtb image.fit >/dev/null &&
	expect_dts revB.dtb expect &&
	effective kv.img got --model conf-smk-k26-revA-sck-kv-g-revB &&
	test_cmp expect got &&
	echo "// boot path fit: /image.fit fdt-smk-k26-revA-sck-kv-g-revB.dtb" >head.expect &&
	test_cmp head.expect got.head &&
	effective kv.img got2 --model fdt-smk-k26-revA-sck-kv-g-revB.dtb &&
	test_cmp expect got2
'

test_expect_success 'kv260 with user-override.dtb: the override replaces every FIT tree' '
	cp kv.img kv-ovr.img &&
	imgpatch patch kv-ovr.img --fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb \
		--dt-delete mmc@ff170000:no-1-8-v >/dev/null &&
	mcopy -i "$(part_mtools kv-ovr.img 1)" ::/user-override.dtb ovr.dtb &&
	expect_dts ovr.dtb expect &&
	effective kv-ovr.img got &&
	test_cmp expect got &&
	echo "// boot path fit: /user-override.dtb, loaded by /boot.scr.uimg instead of the FIT'"'"'s tree" >head.expect &&
	test_cmp head.expect got.head &&
	! grep no-1-8-v got
'

test_expect_success 'Armbian: fdtfile with overlays= then user_overlays= of armbianEnv.txt, as fdtoverlay applies them' '
	ext_get armbian.img 1 /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb base.dtb &&
	ext_get armbian.img 1 /boot/dtb/allwinner/overlay/sun50i-a64-uart1.dtbo uart1.dtbo &&
	ext_get armbian.img 1 /boot/dtb/allwinner/overlay/sun50i-a64-i2c0.dtbo i2c0.dtbo &&
	ext_get armbian.img 1 /boot/overlay-user/sdfix.dtbo sdfix.dtbo &&
	fdtoverlay -i base.dtb -o merged.dtb uart1.dtbo i2c0.dtbo sdfix.dtbo &&
	expect_dts merged.dtb expect &&
	effective armbian.img got 2>err &&
	test_cmp expect got &&
	test_cmp /dev/null err &&
	d=/boot/dtb/allwinner &&
	echo "// boot path armbian: $d/sun50i-a64-pinephone-1.2.dtb + $d/overlay/sun50i-a64-uart1.dtbo + $d/overlay/sun50i-a64-i2c0.dtbo + /boot/overlay-user/sdfix.dtbo" >head.expect &&
	test_cmp head.expect got.head &&
	test "$(fdtget -t s merged.dtb /soc/serial@1c28400 status)" = okay
'

test_expect_success 'Armbian: a missing overlay is skipped (the script guards its load), with a warning' '
	cp armbian.img armbian-missing.img &&
	ext_get armbian.img 1 /boot/armbianEnv.txt env &&
	sed "s/^overlays=.*/overlays=uart1 nosuch i2c0/" env >env.new &&
	ext_put armbian-missing.img 1 env.new /boot/armbianEnv.txt &&
	effective armbian-missing.img got 2>err &&
	test_cmp expect got &&
	grep "^imgpatch: warning: armbian-missing.img: .*/overlay/sun50i-a64-nosuch.dtbo: .*not loaded, the boot goes on without it (booting [^ ]*)$" err
'

test_expect_success 'Armbian: an overlay that does not apply: boot.scr reloads the base tree' '
	ext_get armbian-nosym.img 1 /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb nosym.dtb &&
	expect_dts nosym.dtb expect &&
	effective armbian-nosym.img got 2>err &&
	test_cmp expect got &&
	grep "sun50i-a64-uart1.dtbo: the base tree has no __symbols__.*reloads the base tree, without any overlay (booting [^ ]*)$" err &&
	echo "// boot path armbian: /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb" >head.expect &&
	test_cmp head.expect got.head
'

test_expect_success 'extlinux: FDT with FDTOVERLAYS, as fdtoverlay applies them' '
	v=/usr/lib/linux-image-6.1.0-13-arm64 &&
	ext_get extlinux.img 1 $v/allwinner/sun50i-a64-pinephone-1.2.dtb base.dtb &&
	ext_get extlinux.img 1 /boot/dtbo/sdfix.dtbo sdfix.dtbo &&
	fdtoverlay -i base.dtb -o merged.dtb sdfix.dtbo &&
	expect_dts merged.dtb expect &&
	effective extlinux.img got &&
	test_cmp expect got &&
	grep -x "// boot path extlinux: $v/allwinner/sun50i-a64-pinephone-1.2.dtb + /boot/dtbo//sdfix.dtbo" got.head &&
	grep "no-1-8-v" got
'

test_expect_success 'extlinux: an overlay that does not apply: sysboot boots the next label (rescue, ro single) without it' '
	v=/usr/lib/linux-image-6.1.0-13-arm64 &&
	sum=$(sum_file extlinux-nosym.img) &&
	imgpatch cat extlinux-nosym.img --dtb >got.all 2>err &&
	test_file_unchanged extlinux-nosym.img "$sum" &&
	ext_get extlinux-nosym.img 1 $v/allwinner/sun50i-a64-pinephone-1.2.dtb nosym.dtb &&
	expect_dts nosym.dtb expect &&
	sed 1d got.all >got &&
	test_cmp expect got &&
	grep -x "// boot path extlinux: $v/allwinner/sun50i-a64-pinephone-1.2.dtb (label l0r: sysboot.s next, label l0 failed)" got.all &&
	grep "sdfix.dtbo: the base tree has no __symbols__ (compile it with dtc -@): U-Boot.s fdt apply leaves no valid tree behind (libfdt erases it): booti fails, and sysboot goes on to label l0r (append root=UUID=[-0-9a-f]* ro single)" err &&
	ext_get extlinux-nosym.img 1 /boot/extlinux/extlinux.conf conf &&
	sed -n "/^label l0r/,/^\$/p" conf | grep -x "	append root=UUID=[-0-9a-f]* ro single"
'

test_expect_success 'pmOS: boot.scr applies its PSCI overlay ("test -eq 1" is true with iscpscienabled unset)' '
	ext_get pmos.img 1 /sun50i-a64-pinephone-1.2.dtb base.dtb &&
	ext_get pmos.img 1 /sun50i-a64-psci.dtbo psci.dtbo &&
	fdtoverlay -i base.dtb -o stock.dtb psci.dtbo &&
	expect_dts stock.dtb expect &&
	effective pmos.img got 2>err &&
	test_cmp expect got &&
	echo "// boot path script: /sun50i-a64-pinephone-1.2.dtb + /sun50i-a64-psci.dtbo" >head.expect &&
	test_cmp head.expect got.head &&
	grep "idle-states" got &&
	grep "depends on iscpscienabled, which the image does not set: unset (the board.s default environment): /sun50i-a64-psci.dtbo; with iscpscienabled=0 on the board: no overlay" err
'

test_expect_success 'pmOS: after pinephone-vccq-mod, the overlay user.scr applies' '
	cp pmos.img pmos-vccq.img &&
	imgpatch apply pinephone-vccq-mod pmos-vccq.img --set hardware-mod=done --quiet >/dev/null &&
	ext_get pmos-vccq.img 1 /pinephone-vccq-mod.dtbo vccq.dtbo &&
	fdtoverlay -i base.dtb -o merged.dtb psci.dtbo vccq.dtbo &&
	expect_dts merged.dtb expect &&
	effective pmos-vccq.img got &&
	test_cmp expect got &&
	echo "// boot path script: /sun50i-a64-pinephone-1.2.dtb + /sun50i-a64-psci.dtbo + /pinephone-vccq-mod.dtbo" >head.expect &&
	test_cmp head.expect got.head &&
	grep "mmc-hs200-1_8v" got
'

test_expect_success 'pmOS: an owner'"'"'s user.scr: each fdt apply takes the file last loaded at its address' '
	cat >a.dts <<-\EOF &&
	/dts-v1/;
	/plugin/;
	&mmc0 { max-frequency = <50000000>; };
	EOF
	cat >b.dts <<-\EOF &&
	/dts-v1/;
	/plugin/;
	&mmc0 { max-frequency = <25000000>; bus-width = <1>; };
	EOF
	dtc -q -@ -I dts -O dtb -o a.dtbo a.dts &&
	dtc -q -@ -I dts -O dtb -o b.dtbo b.dts &&
	cat >user.cmd <<-\EOF &&
	# not applied: loaded, never applied
	load mmc ${mmc_bootdev}:1 ${kernel_addr_r} notes.txt
	setenv ov 0x4fe00000
	load mmc ${mmc_bootdev}:1 ${ov} a.dtbo && fdt apply ${ov}
	if load mmc ${mmc_bootdev}:1 ${fdtoverlay_addr_r} /b.dtbo; then fdt resize 8192; fdt apply ${fdtoverlay_addr_r}; fi
	EOF
	mkimage -A arm -O linux -T script -C none -d user.cmd user.scr >/dev/null &&
	cp pmos.img pmos-owner.img &&
	extract_part pmos-owner.img 1 boot.ext2 &&
	for f in a.dtbo b.dtbo user.scr; do
		debugfs -w -R "write $f /$f" boot.ext2 >/dev/null 2>&1 || return 1
	done &&
	e2fsck -fn boot.ext2 >/dev/null 2>&1 &&
	put_part pmos-owner.img 1 boot.ext2 &&
	fdtoverlay -i base.dtb -o merged.dtb psci.dtbo a.dtbo b.dtbo &&
	expect_dts merged.dtb expect &&
	effective pmos-owner.img got &&
	test_cmp expect got &&
	echo "// boot path script: /sun50i-a64-pinephone-1.2.dtb + /sun50i-a64-psci.dtbo + /a.dtbo + /b.dtbo" >head.expect &&
	test_cmp head.expect got.head
'

test_expect_success 'usage: --model and --fit need --dtb; --dtb takes no PART:PATH' '
	test_must_fail_with 2 imgpatch cat kv.img 1:/boot.scr.uimg --model x &&
	test_must_fail_with 2 imgpatch cat kv.img 1:/boot.scr.uimg --fit x &&
	test_must_fail_with 2 imgpatch cat kv.img --dtb 1:/boot.scr.uimg
'

test_done
