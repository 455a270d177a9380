#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='doctor: storage-performance findings, text and JSON, their fixes, and never a write'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools python3 sfdisk mkfs.vfat mcopy mke2fs debugfs dtc fdtget dumpimage mkimage xz

export IMGPATCH_RECIPE_PATH=$IMGPATCH_BUILD/recipes
SCHEMA=$REPO_DIR/tool/schema/doctor.schema.json

# doctor OUT IMG ARGS...: imgpatch doctor IMG ARGS with stdout in OUT; fails
# when IMG was written to (its size or nanosecond mtime changed; the test
# "doctor leaves every image byte-identical" compares checksums). Returns
# doctor's exit status.
doctor()
{
	local -; set +x
	local out=$1 img=$2 before rc

	shift 2
	before=$(stat -c "%s %y" "$img") || return 1
	imgpatch doctor "$img" "$@" >"$out" && rc=0 || rc=$?
	if [ "$(stat -c "%s %y" "$img")" != "$before" ]; then
		_tl_complain "doctor: '$img' was written to"
		return 1
	fi
	return $rc
}

# findings DOC: one line per finding of a doctor --json document:
# "id severity partition file fdt node property line recipe", "-" for null.
findings()
{
	local -; set +x
	python3 - "$1" <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	for f in d["findings"]:
	    e, x = f["evidence"], f["fix"]
	    v = [f["id"], f["severity"], e["partition"], e["file"], e["fdt"],
	         e["node"], e["property"], e["line"], x["recipe"]]
	    print(" ".join("-" if a is None else str(a) for a in v))
	EOF
}

# fix_command DOC ID [FDT]: the fix command of the first finding ID (of the
# tree FDT).
fix_command()
{
	local -; set +x
	python3 - "$@" <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	for f in d["findings"]:
	    if f["id"] == sys.argv[2] and (len(sys.argv) < 4 or f["evidence"]["fdt"] == sys.argv[3]):
	        print(f["fix"]["command"])
	        break
	else:
	    sys.exit(1)
	EOF
}

# make_a20 OUT MODULES [SATA-STATUS]: a small A20 (Cubietruck) card with a
# FAT boot partition (extlinux.conf and the tree, whose SATA node has
# SATA-STATUS, default okay) and an ext4 root whose /lib/modules holds the
# directories MODULES (space separated).
make_a20()
{
	local out=$1 mods=$2 sata=${3:-okay} m

	rm -rf a20 && mkdir -p a20/boot/extlinux a20/root/etc a20/root/lib/modules &&
	for m in $mods; do
		mkdir a20/root/lib/modules/$m && : >a20/root/lib/modules/$m/modules.dep || return 1
	done &&
	cat >a20/a20.dts <<-EOF &&
	/dts-v1/;
	/ {
		compatible = "cubietech,cubietruck", "allwinner,sun7i-a20";
		#address-cells = <1>;
		#size-cells = <1>;
		soc {
			compatible = "simple-bus";
			#address-cells = <1>;
			#size-cells = <1>;
			ranges;
			mmc@1c0f000 {
				compatible = "allwinner,sun7i-a20-mmc";
				reg = <0x01c0f000 0x1000>;
				bus-width = <4>;
				status = "okay";
			};
			sata@1c18000 {
				compatible = "allwinner,sun4i-a10-ahci";
				reg = <0x01c18000 0x1000>;
				status = "$sata";
			};
		};
	};
	EOF
	dtc -q -I dts -O dtb -o a20/boot/sun7i-a20-cubietruck.dtb a20/a20.dts &&
	printf "LABEL debian\n  KERNEL /vmlinuz\n  FDT /sun7i-a20-cubietruck.dtb\n" \
		>a20/boot/extlinux/extlinux.conf &&
	printf "LABEL=root / ext4 defaults,noatime 0 1\n" >a20/root/etc/fstab &&
	truncate -s 40M "$out" &&
	printf "label: dos\nstart=2048, size=32768, type=c\nstart=34816, type=83\n" |
		sfdisk -q "$out" &&
	mkfs.vfat -C a20/boot.fat 16384 >/dev/null &&
	mcopy -s -i a20/boot.fat a20/boot/* :: &&
	mke2fs -q -F -t ext4 -L root -d a20/root a20/root.ext4 20M &&
	dd if=a20/boot.fat of="$out" bs=512 seek=2048 conv=notrunc status=none &&
	dd if=a20/root.ext4 of="$out" bs=512 seek=34816 conv=notrunc status=none
}

# ext_put IMG N LOCAL PATH: replaces PATH in the ext filesystem of
# partition N with the file LOCAL.
ext_put()
{
	local -; set +x
	local off

	off=$(part_offset "$1" "$2") &&
		printf "rm %s\nwrite %s %s\n" "$4" "$3" "$4" >debugfs.cmd &&
		debugfs -w -f debugfs.cmd "$1?offset=$off" >/dev/null 2>&1
}

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-kv260.sh" kv.img &&
	"$FIXTURES/mkimage-kv260.sh" kv-nohook.img --no-hook &&
	"$FIXTURES/mkimage-pmos.sh" pmos.img &&
	"$FIXTURES/mkimage-pmos.sh" pmos-nohook.img --no-user-scr-hook &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	make_a20 a20-old.img "4.19.0-27-armmp" &&
	make_a20 a20-new.img "4.19.0-27-armmp 5.10.0-30-armmp" &&
	make_a20 a20-nosata.img "4.19.0-27-armmp" disabled
'

test_expect_success 'doctor leaves every image byte-identical' '
	for img in kv kv-nohook pmos rpi a20-old; do
		sum=$(sum_file $img.img) &&
		imgpatch doctor $img.img >/dev/null &&
		test_must_fail_with 3 imgpatch doctor $img.img --json --fail-on info >/dev/null &&
		test_file_unchanged $img.img "$sum" || return 1
	done
'

test_expect_success 'kv260: exit 0, the summary counts the findings' '
	doctor kv.txt kv.img &&
	doctor kv.json kv.img --json &&
	findings kv.json >kv.list &&
	cat kv.list &&
	w=$(grep -c " warning " kv.list) && i=$(grep -c " info " kv.list) &&
	tail -n 1 kv.txt | grep -x "kv.img: $((w + i)) findings: $w warnings, $i info" &&
	test $(grep -c "^warning  \|^info     " kv.txt) = $((w + i))
'

test_expect_success 'kv260: uhs-blocked in exactly the FIT trees dumpimage shows with an enabled no-1-8-v node' '
	mcopy -i "kv.img@@$(part_offset kv.img 1)" ::image.fit fit.bin &&
	dumpimage -l fit.bin >fit.list &&
	: >expect &&
	for n in 2 3 4 5 6; do
		name=$(sed -n "s/^ Image $n (\(.*\))$/\1/p" fit.list) &&
		dumpimage -T flat_dt -p $n -o $n.dtb fit.bin >/dev/null &&
		if test "$(fdtget $n.dtb /axi/mmc@ff170000 status)" = okay &&
		   fdtget -p $n.dtb /axi/mmc@ff170000 | grep -qx no-1-8-v; then
			echo "uhs-blocked warning 1 /image.fit $name /axi/mmc@ff170000 no-1-8-v - kv260-uhs" >>expect
		fi || return 1
	done &&
	test $(wc -l <expect) = 4 &&
	grep "^uhs-blocked " kv.list >actual &&
	test_cmp expect actual
'

test_expect_success 'kv260: fstab-discard and fstab-atime at fstab line 1, fit-config per carrier' '
	grep -x "fstab-discard warning 2 /etc/fstab - - discard 1 fstab-noatime" kv.list &&
	grep -x "fstab-atime info 2 /etc/fstab - - - 1 fstab-noatime" kv.list &&
	! grep "^fstrim-timer-off " kv.list &&
	! grep "^boot-override-ignored " kv.list &&
	test $(grep -c "^fit-config info 1 /boot.scr.uimg " kv.list) = 5 &&
	grep "^info     fit-config: card1_name = SCK-KV-G and (card1_rev = B or card1_rev = 1): boots conf-smk-k26-revA-sck-kv-g-revB (fdt-smk-k26-revA-sck-kv-g-revB.dtb)$" kv.txt &&
	grep "^info     fit-config: by default: boots conf-zynqmp-smk-k26-revA " kv.txt
'

test_expect_success 'kv260: emmc-hs200-missing only where the SOM eMMC is enabled' '
	for n in 2 3 4 5 6; do
		name=$(sed -n "s/^ Image $n (\(.*\))$/\1/p" fit.list) &&
		if test "$(fdtget $n.dtb /axi/mmc@ff160000 status)" = okay; then
			echo "emmc-hs200-missing info 1 /image.fit $name /axi/mmc@ff160000 - - -"
		fi || return 1
	done >expect &&
	grep "^emmc-hs200-missing " kv.list >actual &&
	test_cmp expect actual
'

test_expect_success '--json is valid against doctor.schema.json on every fixture' '
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" &&
	for img in kv kv-nohook pmos pmos-nohook rpi a20-old a20-new; do
		doctor $img.json $img.img --json || return 1
	done &&
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" kv.json kv-nohook.json \
		pmos.json pmos-nohook.json rpi.json a20-old.json a20-new.json
'

test_expect_success 'a fix command from the JSON removes its finding' '
	cp kv.img kv-cmd.img &&
	cmd=$(fix_command kv.json uhs-blocked fdt-smk-k26-revA-sck-kv-g-revB.dtb) &&
	echo "$cmd" | grep -x "imgpatch patch kv.img --fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb --dt-delete /axi/mmc@ff170000:no-1-8-v" &&
	eval "${cmd/kv.img/kv-cmd.img} --quiet" >/dev/null &&
	mcopy -i "kv-cmd.img@@$(part_offset kv-cmd.img 1)" ::user-override.dtb override.dtb &&
	! fdtget -p override.dtb /axi/mmc@ff170000 | grep -x no-1-8-v &&
	doctor kv-cmd.json kv-cmd.img --json &&
	findings kv-cmd.json >kv-cmd.list &&
	! grep "^uhs-blocked " kv-cmd.list &&
	grep "^fstab-discard " kv-cmd.list &&
	grep "^uhs-modes-missing info 1 /user-override.dtb - /axi/mmc@ff170000 " kv-cmd.list
'

test_expect_success 'kv260 after kv260-uhs and fstab-noatime: no uhs-blocked, no fstab-discard' '
	cp kv.img kv-fixed.img &&
	imgpatch apply kv260-uhs kv-fixed.img --set board=kv --set carrier=revB --quiet >/dev/null &&
	imgpatch apply fstab-noatime kv-fixed.img --quiet >/dev/null &&
	doctor fixed.json kv-fixed.img --json &&
	findings fixed.json >fixed.list &&
	cat fixed.list &&
	! grep -E "^(uhs-blocked|fstab-discard|fstab-atime|emmc-hs200-missing) " fixed.list &&
	! grep " warning " fixed.list &&
	grep "^fit-config " fixed.list &&
	doctor fixed.txt kv-fixed.img --fail-on warning
'

test_expect_success '--fail-on: exit 3 at or above the severity, findings still printed' '
	test_must_fail_with 3 doctor fail.txt kv.img --fail-on warning &&
	test_cmp kv.txt fail.txt &&
	test_must_fail_with 3 doctor fail.json kv.img --json --fail-on info &&
	test_cmp kv.json fail.json &&
	doctor rpi-w.txt rpi.img --fail-on warning &&
	test_must_fail_with 3 doctor rpi-i.txt rpi.img --fail-on info
'

test_expect_success '--fdt: only that tree; a name the FIT lacks is an error' '
	doctor six.json kv.img --json --fdt 6 &&
	findings six.json >six.list &&
	grep "^uhs-blocked " six.list >uhs &&
	test $(wc -l <uhs) = 1 &&
	grep " fdt-smk-k26-revA-sck-kv-g-revB.dtb " uhs &&
	! grep -v "^fit-config " six.list | grep " fdt-smk-k26-revA-sck-kr-g-" &&
	test_must_fail_with 1 doctor none.txt kv.img --fdt nope 2>err &&
	grep "fdt .nope. not found (have: fdt-zynqmp-smk-k26-revA.dtb," err &&
	test_must_fail_with 1 doctor none.txt rpi.img --fdt 2 2>err &&
	grep "no FIT" err
'

test_expect_success 'kv260 without the boot hook: boot-override-ignored, no fix that the board would ignore' '
	findings kv-nohook.json >nohook.list &&
	grep -x "boot-override-ignored warning 1 /boot.scr.uimg - - user-override.dtb - -" nohook.list &&
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
u = [f for f in d[\"findings\"] if f[\"id\"] == \"uhs-blocked\"]
assert len(u) == 4, u
assert all(f[\"fix\"][\"command\"] is None and f[\"fix\"][\"recipe\"] is None for f in u), u" kv-nohook.json
'

test_expect_success 'max-frequency-cap and bus-width-low in a patched user-override.dtb' '
	cp kv.img kv-slow.img &&
	imgpatch patch kv-slow.img --fdt 6 --quiet \
		--dt-set "mmc@ff170000:max-frequency=<25000000>" \
		--dt-set "mmc@ff170000:bus-width=<1>" >/dev/null &&
	mcopy -i "kv-slow.img@@$(part_offset kv-slow.img 1)" ::user-override.dtb slow.dtb &&
	test "$(fdtget -t u slow.dtb /axi/mmc@ff170000 max-frequency)" = 25000000 &&
	test "$(fdtget -t u slow.dtb /axi/mmc@ff170000 bus-width)" = 1 &&
	doctor slow.json kv-slow.img --json &&
	findings slow.json >slow.list &&
	grep -x "max-frequency-cap info 1 /user-override.dtb - /axi/mmc@ff170000 max-frequency - -" slow.list &&
	grep -x "bus-width-low warning 1 /user-override.dtb - /axi/mmc@ff170000 bus-width - -" slow.list &&
	grep -x "uhs-blocked warning 1 /user-override.dtb - /axi/mmc@ff170000 no-1-8-v - -" slow.list &&
	doctor slow.txt kv-slow.img &&
	grep "^info     max-frequency-cap: SD controller /axi/mmc@ff170000 is capped at 25 MHz; High Speed at 3.3 V allows 50 MHz$" slow.txt
'

test_expect_success 'pmOS: emmc-vqmmc-3v3 where the tree fixes the eMMC rail at 3.3 V' '
	off=$(part_offset pmos.img 1) &&
	debugfs -R "dump /sun50i-a64-pinephone-1.2.dtb pp.dtb" "pmos.img?offset=$off" 2>/dev/null &&
	reg=/soc/rsb@1f03400/pmic@3a3/regulators/dcdc1 &&
	test "$(fdtget pp.dtb /soc/mmc@1c11000 vqmmc-supply)" = "$(fdtget pp.dtb $reg phandle)" &&
	test "$(fdtget pp.dtb $reg regulator-min-microvolt)" = 3300000 &&
	test "$(fdtget pp.dtb $reg regulator-max-microvolt)" = 3300000 &&
	doctor pmos.txt pmos.img &&
	grep "^info     emmc-vqmmc-3v3: eMMC /soc/mmc@1c11000 takes its I/O supply from $reg, fixed at 3.3 V$" pmos.txt &&
	findings pmos.json >pmos.list &&
	cat pmos.list &&
	grep -x "emmc-vqmmc-3v3 info 1 /sun50i-a64-pinephone-1.2.dtb - /soc/mmc@1c11000 vqmmc-supply - pinephone-vccq-mod" pmos.list &&
	! grep "/soc/mmc@1c10000" pmos.list &&
	grep -x "fstab-atime info 2 /etc/fstab - - - 2 fstab-noatime" pmos.list &&
	grep -x "fstrim-timer-off info 2 /etc/systemd/system/timers.target.wants/fstrim.timer - - - - fstab-noatime" pmos.list &&
	! grep "^boot-override-ignored " pmos.list &&
	findings pmos-nohook.json >pmos-nohook.list &&
	grep -x "boot-override-ignored warning 1 /boot.scr - - user.scr - -" pmos-nohook.list
'

test_expect_success 'Raspberry Pi 4/5 image: no sd_overclock promise, broken-cd' '
	findings rpi.json >rpi.list &&
	cat rpi.list &&
	! grep "^rpi-sd-overclock " rpi.list &&
	grep -x "broken-cd info 1 /bcm2711-rpi-4-b.dtb - /emmc2bus/mmc@7e340000 broken-cd - -" rpi.list &&
	grep -x "fstrim-timer-off info 2 /etc/systemd/system/timers.target.wants/fstrim.timer - - - - fstab-noatime" rpi.list &&
	! grep -E "^(fstab-atime|fstab-discard) " rpi.list &&
	! grep "bcm2712" rpi.list
'

# A Pi 3's tree beside them: an image that also boots an sdhost board.
test_expect_success 'Raspberry Pi 3 tree: rpi-sd-overclock for [pi3]; gone after the recipes' '
	cp rpi.img rpi3.img &&
	mcopy -i "rpi3.img@@$(part_offset rpi3.img 1)" "$DTB_DIR/bcm2837-rpi-3-b.dtb" ::bcm2837-rpi-3-b.dtb &&
	doctor rpi3.json rpi3.img --json &&
	findings rpi3.json >rpi3.list &&
	cat rpi3.list &&
	grep -x "rpi-sd-overclock info 1 /config.txt - - dtparam=sd_overclock - rpi-sd-overclock" rpi3.list &&
	grep -F -- "--set model=pi3 --set sd_overclock=100" rpi3.json &&
	grep "\[pi3\] section" rpi3.json &&
	cp rpi3.img rpi-fixed.img &&
	imgpatch apply rpi-sd-overclock rpi-fixed.img --set model=pi3 --set sd_overclock=100 --quiet >/dev/null &&
	imgpatch apply fstab-noatime rpi-fixed.img --quiet >/dev/null &&
	mtype -i "rpi-fixed.img@@$(part_offset rpi-fixed.img 1)" ::config.txt | grep -x "dtparam=sd_overclock=100" &&
	doctor rpi-fixed.json rpi-fixed.img --json &&
	findings rpi-fixed.json >rpi-fixed.list &&
	! grep -E "^(rpi-sd-overclock|fstrim-timer-off) " rpi-fixed.list &&
	grep "^broken-cd " rpi-fixed.list
'

# The finding reads config.txt as the firmware does (the survey's list per
# tree): a setting in an included file counts, one under another model's
# filter does not.
test_expect_success 'Raspberry Pi 3 tree: sd_overclock from an included file counts, one under [pi4] does not' '
	off=$(part_offset rpi3.img 1) &&
	mtype -i "rpi3.img@@$off" ::config.txt >config.txt &&
	printf "[pi4]\ndtparam=sd_overclock=100\n[all]\n" >>config.txt &&
	cp rpi3.img rpi3-pi4.img &&
	mcopy -o -i "rpi3-pi4.img@@$off" config.txt ::config.txt &&
	doctor rpi3-pi4.json rpi3-pi4.img --json &&
	findings rpi3-pi4.json >rpi3-pi4.list &&
	grep "^rpi-sd-overclock " rpi3-pi4.list &&
	printf "include usercfg.txt\n" >>config.txt &&
	printf "dtparam=sd_overclock=90\n" >usercfg.txt &&
	cp rpi3.img rpi3-inc.img &&
	mcopy -o -i "rpi3-inc.img@@$off" config.txt usercfg.txt ::/ &&
	doctor rpi3-inc.json rpi3-inc.img --json &&
	findings rpi3-inc.json >rpi3-inc.list &&
	! grep "^rpi-sd-overclock " rpi3-inc.list
'

test_expect_success 'swap-on-sd and fstab-discard on another flash filesystem' '
	cp rpi.img swap.img &&
	cat >fstab.swap <<-\EOF &&
	proc            /proc           proc    defaults          0       0
	PARTUUID=52506934-01  /boot/firmware  vfat    defaults,discard  0       2
	PARTUUID=52506934-02  /               ext4    defaults,noatime  0       1
	/swapfile none swap sw 0 0
	EOF
	ext_put swap.img 2 fstab.swap /etc/fstab &&
	doctor swap.json swap.img --json &&
	findings swap.json >swap.list &&
	cat swap.list &&
	grep -x "swap-on-sd warning 2 /etc/fstab - - - 4 -" swap.list &&
	grep -x "fstab-discard warning 2 /etc/fstab - - discard 2 -" swap.list &&
	fix_command swap.json fstab-discard | grep -x "imgpatch patch swap.img --fstab /boot/firmware:-discard"
'

test_expect_success 'kernel-storage-fix-missing: an A20 with SATA and a kernel before 5.3' '
	findings a20-old.json >a20-old.list &&
	cat a20-old.list &&
	grep -x "kernel-storage-fix-missing warning 2 /lib/modules/4.19.0-27-armmp - /soc/sata@1c18000 - - -" a20-old.list &&
	findings a20-new.json >a20-new.list &&
	! grep "^kernel-storage-fix-missing " a20-new.list &&
	doctor a20-nosata.json a20-nosata.img --json &&
	findings a20-nosata.json >a20-nosata.list &&
	! grep "^kernel-storage-fix-missing " a20-nosata.list &&
	! grep "^kernel-storage-fix-missing " kv.list rpi.list pmos.list
'

test_expect_success 'a compressed image: the same findings, the input untouched' '
	xz -T1 -c -1 rpi.img >rpi.img.xz &&
	doctor rpi-xz.json rpi.img.xz --json &&
	findings rpi-xz.json >rpi-xz.list &&
	test_cmp rpi.list rpi-xz.list
'

test_expect_success 'a compressed image: its fix commands recompress it (--in-place), and work' '
	xz -T2 --block-size=1MiB -c kv.img >kv.img.xz &&
	doctor kv-xz.json kv.img.xz --json &&
	python3 -c "import json,sys; [print(f[\"fix\"][\"apply\"]) for f in json.load(open(sys.argv[1]))[\"findings\"] if f[\"id\"] == \"fstab-discard\"]" kv-xz.json >cmd &&
	grep -x "imgpatch apply fstab-noatime kv.img.xz --in-place" cmd &&
	eval "$(cat cmd)" >/dev/null &&
	xz -t kv.img.xz &&
	doctor kv-xz2.json kv.img.xz --json &&
	findings kv-xz2.json >kv-xz2.list &&
	! grep "^fstab-discard " kv-xz2.list
'

# The effective trees: a fix that takes effect through the boot path's own
# overlay list takes the finding away. The PinePhone tree built with
# __symbols__ (U-Boot's, as a distribution built with dtc -@ ships it), the
# overlay that of pinephone-vccq-mod (eMMC VCCQ from ELDO1).

# ext_dump IMG PATH OUT, ext_write IMG LOCAL PATH: a file of p1's ext
# filesystem out, or in (replacing it, checked with e2fsck).
ext_dump()
{
	debugfs -R "dump $2 $3" "$1?offset=$(part_offset "$1" 1)" 2>/dev/null && test -s "$3"
}
ext_write()
{
	extract_part "$1" 1 p1.ext4 &&
		{ debugfs -w -R "rm $3" p1.ext4 >/dev/null 2>&1; true; } &&
		debugfs -w -R "write $2 $3" p1.ext4 >/dev/null 2>&1 &&
		e2fsck -fn p1.ext4 >/dev/null 2>&1 && put_part "$1" 1 p1.ext4
}

# tree_of DOC ID: "boot_path model tree" of the first finding ID.
tree_of()
{
	local -; set +x
	python3 - "$@" <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	for f in d["findings"]:
	    if f["id"] == sys.argv[2]:
	        e = f["evidence"]
	        print(" | ".join("-" if a is None else a for a in (e["boot_path"], e["model"], e["tree"])))
	        break
	else:
	    sys.exit(1)
	EOF
}

test_expect_success 'effective trees: PinePhone fixtures of three boot paths, tree with __symbols__' '
	mkdir symbols && cp "$DTB_DIR"/*.dtb symbols/ &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" symbols/sun50i-a64-pinephone-1.2.dtb &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-pmos.sh" pp-pmos.img &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-armbian.sh" pp-armbian.img &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-extlinux.sh" pp-extlinux.img --fdt &&
	cp "$IMGPATCH_BUILD/recipes/overlays/pinephone-vccq-mod.dtbo" vccq.dtbo &&
	for img in pp-pmos pp-armbian pp-extlinux; do
		doctor $img.json $img.img --json &&
		findings $img.json >$img.list &&
		grep "^emmc-vqmmc-3v3 info 1 .* /soc/mmc@1c11000 vqmmc-supply " $img.list || return 1
	done &&
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" pp-pmos.json pp-armbian.json pp-extlinux.json &&
	echo "script | sun50i-a64-pinephone-1.2.dtb | boot path script: /sun50i-a64-pinephone-1.2.dtb + /sun50i-a64-psci.dtbo" >expect &&
	tree_of pp-pmos.json emmc-vqmmc-3v3 >actual && test_cmp expect actual &&
	d=/boot/dtb/allwinner &&
	echo "armbian | - | boot path armbian: $d/sun50i-a64-pinephone-1.2.dtb + $d/overlay/sun50i-a64-uart1.dtbo + $d/overlay/sun50i-a64-i2c0.dtbo + /boot/overlay-user/sdfix.dtbo" >expect &&
	tree_of pp-armbian.json emmc-vqmmc-3v3 >actual && test_cmp expect actual &&
	doctor pp-armbian.txt pp-armbian.img &&
	grep -x "         tree:  boot path armbian: $d/sun50i-a64-pinephone-1.2.dtb + .*/boot/overlay-user/sdfix.dtbo" pp-armbian.txt
'

test_expect_success 'pmOS: emmc-vqmmc-3v3 gone once user.scr applies pinephone-vccq-mod' '
	cp pp-pmos.img pp-pmos-fixed.img &&
	imgpatch apply pinephone-vccq-mod pp-pmos-fixed.img --set hardware-mod=done --quiet >/dev/null &&
	doctor fixed.json pp-pmos-fixed.img --json &&
	findings fixed.json >fixed.list &&
	cat fixed.list &&
	! grep "^emmc-vqmmc-3v3 " fixed.list &&
	doctor fixed.txt pp-pmos-fixed.img &&
	grep -x "         tree:  boot path script: /sun50i-a64-pinephone-1.2.dtb + /sun50i-a64-psci.dtbo + /pinephone-vccq-mod.dtbo" fixed.txt
'

test_expect_success 'Armbian: emmc-vqmmc-3v3 gone with the overlay in overlays= or in user_overlays=' '
	ext_dump pp-armbian.img /boot/armbianEnv.txt env &&
	cp pp-armbian.img pp-armbian-kernel.img &&
	ext_write pp-armbian-kernel.img vccq.dtbo /boot/dtb/allwinner/overlay/sun50i-a64-vccq.dtbo &&
	sed "s/^overlays=.*/overlays=uart1 i2c0 vccq/" env >env.kernel &&
	ext_write pp-armbian-kernel.img env.kernel /boot/armbianEnv.txt &&
	doctor kernel.json pp-armbian-kernel.img --json &&
	findings kernel.json >kernel.list &&
	! grep "^emmc-vqmmc-3v3 " kernel.list &&
	cp pp-armbian.img pp-armbian-user.img &&
	ext_write pp-armbian-user.img vccq.dtbo /boot/overlay-user/vccq.dtbo &&
	sed "s/^user_overlays=.*/user_overlays=sdfix vccq/" env >env.user &&
	ext_write pp-armbian-user.img env.user /boot/armbianEnv.txt &&
	doctor user.json pp-armbian-user.img --json &&
	findings user.json >user.list &&
	! grep "^emmc-vqmmc-3v3 " user.list &&
	tree_of user.json max-frequency-cap | grep " + /boot/overlay-user/sdfix.dtbo + /boot/overlay-user/vccq.dtbo$"
'

test_expect_success 'Armbian: the overlay only on disk, not listed: the finding stays' '
	cp pp-armbian.img pp-armbian-unlisted.img &&
	ext_write pp-armbian-unlisted.img vccq.dtbo /boot/overlay-user/vccq.dtbo &&
	doctor unlisted.json pp-armbian-unlisted.img --json &&
	findings unlisted.json | grep "^emmc-vqmmc-3v3 "
'

test_expect_success 'extlinux: emmc-vqmmc-3v3 gone with the overlay on the FDTOVERLAYS line' '
	cp pp-extlinux.img pp-extlinux-fixed.img &&
	ext_dump pp-extlinux.img /boot/extlinux/extlinux.conf conf &&
	sed "s|^\(\tfdtoverlays .*\)$|\1 /boot/dtbo/vccq.dtbo|" conf >conf.new &&
	! cmp conf conf.new &&
	ext_write pp-extlinux-fixed.img vccq.dtbo /boot/dtbo/vccq.dtbo &&
	ext_write pp-extlinux-fixed.img conf.new /boot/extlinux/extlinux.conf &&
	doctor fixed.json pp-extlinux-fixed.img --json &&
	findings fixed.json >fixed.list &&
	! grep "^emmc-vqmmc-3v3 " fixed.list
'

test_expect_success 'overlay-not-applied: a warning where the loader loses more than the overlay, info where it skips it' '
	"$FIXTURES/mkimage-armbian.sh" armbian-nosym.img &&
	"$FIXTURES/mkimage-extlinux.sh" extlinux-nosym.img --fdt &&
	doctor nosym.json armbian-nosym.img --json &&
	findings nosym.json >nosym.list &&
	grep -x "overlay-not-applied warning 1 /boot/dtb/allwinner/overlay/sun50i-a64-uart1.dtbo - - - - -" nosym.list &&
	grep "reloads the base tree, without any overlay" nosym.json &&
	doctor nosym.json extlinux-nosym.img --json &&
	findings nosym.json >nosym.list &&
	grep -x "overlay-not-applied warning 1 /boot/dtbo//sdfix.dtbo - - - - -" nosym.list &&
	grep "booti fails, and sysboot goes on to label l0r" nosym.json &&
	cp pp-armbian.img pp-armbian-missing.img &&
	sed "s/^overlays=.*/overlays=uart1 nosuch i2c0/" env >env.missing &&
	ext_write pp-armbian-missing.img env.missing /boot/armbianEnv.txt &&
	doctor missing.json pp-armbian-missing.img --json &&
	findings missing.json >missing.list &&
	grep -x "overlay-not-applied info 1 /boot/dtb/allwinner/overlay/sun50i-a64-nosuch.dtbo - - - - -" missing.list &&
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" nosym.json missing.json
'

test_expect_success 'overlay-not-applied: where is the file, the fix the cause (Raspberry Pi: deprecated, missing)' '
	cat >rpi-map.txt <<-\EOF &&
	[pi4]
	dtoverlay=sdtweak,poll_once
	dtparam=sd_debug
	[pi5]
	dtoverlay=nosuch
	[all]
	EOF
	"$FIXTURES/mkimage-rpi.sh" rpi-map.img --rpi-trees --config=rpi-map.txt &&
	doctor rpi-map.json rpi-map.img --json &&
	findings rpi-map.json >rpi-map.list &&
	grep -x "overlay-not-applied info 1 /overlays/sdtweak.dtbo - - - - -" rpi-map.list &&
	grep -x "overlay-not-applied info 1 /overlays/nosuch.dtbo - - - - -" rpi-map.list &&
	doctor rpi-map.txt rpi-map.img &&
	grep -Fx "info     overlay-not-applied: /overlays/sdtweak.dtbo with poll_once,sd_debug, listed by boot path rpi for /bcm2711-rpi-4-b.dtb, is not loaded: overlay_map.dtb deprecates it" rpi-map.txt &&
	grep -Fx "         fix:   overlay_map.dtb says: use '"'"'dtparam=sd_poll_once'"'"' etc.; do that instead, or take the dtoverlay= line out of config.txt" rpi-map.txt &&
	grep -Fx "info     overlay-not-applied: /overlays/nosuch.dtbo, listed by boot path rpi for /bcm2712-rpi-5-b.dtb, is not there" rpi-map.txt &&
	grep -Fx "         fix:   install the overlay there, or correct its name or take it off the boot path'"'"'s list" rpi-map.txt &&
	! grep "dtc -@" rpi-map.txt &&
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" rpi-map.json
'

test_expect_success 'tree-missing: the tree a boot path names is not there (Armbian fdtfile, extlinux FDT)' '
	cp pp-armbian.img pp-armbian-notree.img &&
	sed "s|^fdtfile=.*|fdtfile=allwinner/sun50i-a64-nosuch.dtb|" env >env.notree &&
	ext_write pp-armbian-notree.img env.notree /boot/armbianEnv.txt &&
	doctor notree.json pp-armbian-notree.img --json &&
	findings notree.json >notree.list &&
	grep -x "tree-missing warning 1 /boot/dtb/allwinner/sun50i-a64-nosuch.dtb - - - - -" notree.list &&
	grep "the boot stops" notree.json &&
	! grep "^emmc-vqmmc-3v3 " notree.list &&
	tree_of notree.json tree-missing >tree.txt &&
	grep -x "armbian | - | boot path armbian: /boot/dtb/allwinner/sun50i-a64-nosuch.dtb" tree.txt &&
	cp pp-extlinux.img pp-extlinux-notree.img &&
	sed "s|^\(\tfdt\) .*$|\1 /boot/nosuch.dtb|" conf >conf.notree &&
	! cmp conf conf.notree &&
	ext_write pp-extlinux-notree.img conf.notree /boot/extlinux/extlinux.conf &&
	doctor notree.txt pp-extlinux-notree.img &&
	grep -Fx "warning  tree-missing: /boot/nosuch.dtb, the tree boot path extlinux boots, is not there" notree.txt &&
	grep -Fx "         where: p1 /boot/nosuch.dtb" notree.txt &&
	grep -F "U-Boot skips the label (FDT)" notree.txt &&
	test_must_fail_with 3 doctor notree.txt pp-extlinux-notree.img --fail-on warning &&
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" notree.json
'

test_expect_success 'usage errors exit 2; an unreadable image exits 1' '
	test_must_fail_with 2 imgpatch doctor 2>err && grep "missing IMAGE" err &&
	test_must_fail_with 2 imgpatch doctor kv.img rpi.img 2>err &&
	test_must_fail_with 2 imgpatch doctor kv.img --fail-on error 2>err &&
	grep "expected warning or info" err &&
	test_must_fail_with 2 imgpatch doctor kv.img --frobnicate 2>err &&
	test_must_fail_with 1 imgpatch doctor no-such.img 2>err &&
	truncate -s 1M blank.img &&
	test_must_fail_with 1 doctor blank.txt blank.img 2>err &&
	cat err
'

test_expect_success 'a corrupt boot script is an error that names it, nothing written' '
	cp kv.img kv-junk.img &&
	printf "not a script\n" >junk &&
	mcopy -o -i "kv-junk.img@@$(part_offset kv-junk.img 1)" junk ::boot.scr.uimg &&
	sum=$(sum_file kv-junk.img) &&
	test_must_fail_with 1 imgpatch doctor kv-junk.img 2>err &&
	cat err &&
	grep "^imgpatch: kv-junk.img: p1 (vfat): /boot.scr.uimg: " err &&
	test_file_unchanged kv-junk.img "$sum"
'

test_expect_success 'a FIT of 1,026 trees: no bound on the images, every tree examined, the rest judged' '
	cp kv.img kv-many.img &&
	echo "/dts-v1/; / { compatible = \"imgpatch,tiny\"; model = \"tiny\"; };" >tiny.dts &&
	dtc -q -I dts -O dtb -o tiny.dtb tiny.dts &&
	{
		echo "/dts-v1/;" &&
		echo "/ { description = \"many\"; #address-cells = <1>; images {" &&
		for i in $(seq 0 1025); do
			echo "fdt-$i { data = /incbin/(\"tiny.dtb\"); type = \"flat_dt\"; arch = \"arm64\"; compression = \"none\"; };"
		done &&
		echo "}; configurations { default = \"conf-0\"; conf-0 { fdt = \"fdt-0\"; }; }; };"
	} >many.its &&
	mkimage -f many.its many.fit >/dev/null &&
	test "$(dumpimage -l many.fit | grep -c "^ Image [0-9]* (fdt-")" = 1026 &&
	mcopy -o -i "kv-many.img@@$(part_offset kv-many.img 1)" many.fit ::image.fit &&
	sum=$(sum_file kv-many.img) &&
	imgpatch info kv-many.img >many.info &&
	test "$(grep -cE "^ +[0-9]+  fdt-[0-9]+ " many.info)" = 1026 &&
	doctor many.json kv-many.img --json 2>err &&
	! grep "more than" err &&
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" many.json &&
	findings many.json | cut -d" " -f1 >ids &&
	grep -x fstab-discard ids &&
	test_file_unchanged kv-many.img "$sum"
'

test_done
