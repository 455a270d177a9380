#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='recipes and apply: shipped board recipes as checked transactions'
. "$(dirname "$0")/lib.sh"

# The shipped recipes as the build installs them (overlays compiled).
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

# fat_cat IMG PART PATH: a file from a FAT partition, read with mtools.
fat_cat()
{
	mtype -i "$1@@$(part_offset "$1" "$2")" "::$3"
}

test_expect_success 'recipes lists the shipped recipes with summaries' '
	$IMGPATCH recipes >list &&
	for r in kv260-uhs fstab-noatime pinephone-vccq-mod rpi-sd-overclock rpi5-sd-cqe; do
		grep -q "^$r  *[A-Z]" list || return 1
	done &&
	grep "pinephone-vccq-mod.*breaks unmodified phones" list
'

test_expect_success 'recipes show: parameters, matches, steps, source, risks, undo' '
	$IMGPATCH recipes show kv260-uhs >show &&
	grep "carrier (required; one of: revA, revB; revZ means revA)" show &&
	grep "board (required; one of: kv, kr)" show &&
	grep "dt-delete-property" show &&
	grep "^source:" show && grep "^risks:" show && grep "^undo:" show &&
	test_must_fail_with 2 $IMGPATCH recipes show no-such-recipe 2>err &&
	grep "no recipe .no-such-recipe." err
'

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-kv260.sh" kv.img &&
	"$FIXTURES/mkimage-kv260.sh" nohook.img --no-hook &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	"$FIXTURES/mkimage-pmos.sh" pmos.img &&
	"$FIXTURES/mkimage-pmos.sh" pmos-nohook.img --no-user-scr-hook &&
	mkdir -p uboot-dtb && cp "$DTB_DIR"/u-boot-sunxi-pinephone.dtb uboot-dtb/sun50i-a64-pinephone-1.2.dtb &&
	DTB_DIR=$PWD/uboot-dtb "$FIXTURES/mkimage-pmos.sh" pmos-symbols.img &&
	cp kv.img kv.orig
'

test_expect_success 'kv260-uhs: a required parameter not given' '
	test_refuses_usage kv.img "parameter .carrier. is required.*--set carrier=" \
		$IMGPATCH apply kv260-uhs kv.img --set board=kv
'

test_expect_success 'kv260-uhs: the board is required, never guessed' '
	test_refuses_usage kv.img "parameter .board. is required (one of: kv, kr): give --set board=kv" \
		$IMGPATCH apply kv260-uhs kv.img --set carrier=revB
'

test_expect_success 'kv260-uhs: carrier revZ boots the revA tree, as Ubuntu'"'"'s FIT does' '
	$IMGPATCH recipes show kv260-uhs >show.kv &&
	grep "carrier (required; one of: revA, revB; revZ means revA)" show.kv &&
	cp kv.orig revz.img && cp kv.orig reva.img &&
	$IMGPATCH apply kv260-uhs revz.img --set board=kv --set carrier=revZ >revz.out &&
	$IMGPATCH apply kv260-uhs reva.img --set board=kv --set carrier=revA >reva.out &&
	sum_file revz.img >a && sum_file reva.img >b && test_cmp a b &&
	grep "fdt-smk-k26-revA-sck-kv-g-revA.dtb" revz.out
'

test_expect_success 'param alias: load errors name the line' '
	mkdir -p alias &&
	for a in "\"revA=revB\"" "\"revZ\"" "\"revZ=revC\"" "\"revZ=revA\", \"revZ=revB\""; do
		cat >alias/al.recipe <<-EOD &&
		name = "al"
		summary = "s"
		description = "d"
		source = "this test"
		param carrier {
			description = "c"
			values = {"revA", "revB"}
			alias = {$a}
			required = true
		}
		step { action = "fstab" mountpoint = "/" options = "+noatime" }
		EOD
		test_must_fail_with 1 $IMGPATCH recipes show ./alias/al.recipe 2>err &&
		cat err && grep -q "al.recipe:8: parameter .carrier.: " err || return 1
	done &&
	grep "alias .revZ. is listed twice" err
'

test_expect_success 'kv260-uhs: board=kr takes the KR260 tree' '
	cp kv.orig kr.img &&
	$IMGPATCH apply kv260-uhs kr.img --set board=kr --set carrier=revB >kr.out &&
	cp kv.orig kr-patch.img &&
	$IMGPATCH patch kr-patch.img --fdt fdt-smk-k26-revA-sck-kr-g-revB.dtb \
		--dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime >/dev/null &&
	sum_file kr.img >a && sum_file kr-patch.img >b && test_cmp a b
'

test_expect_success 'kv260-uhs: a value outside the allowed ones' '
	test_refuses_usage kv.img "revC" $IMGPATCH apply kv260-uhs kv.img --set board=kv --set carrier=revC
'

test_expect_success 'kv260-uhs: the wrong board (a Raspberry Pi OS image)' '
	test_refuses rpi.img "does not match this image: expected" \
		$IMGPATCH apply kv260-uhs rpi.img --set board=kv --set carrier=revB
'

test_expect_success 'kv260-uhs: a boot script without the override hook' '
	test_refuses nohook.img "does not load user-override.dtb" \
		$IMGPATCH apply kv260-uhs nohook.img --set board=kv --set carrier=revB
'

test_expect_success 'kv260-uhs --dry-run: diffs of tree and fstab, nothing written' '
	$IMGPATCH apply kv260-uhs kv.img --set board=kv --set carrier=revB --dry-run >plan &&
	grep "^    -			no-1-8-v;" plan &&
	grep "^-LABEL=writable	/	ext4	discard,errors=remount-ro	0 1" plan &&
	grep "^+LABEL=writable	/	ext4	errors=remount-ro,noatime	0 1" plan &&
	grep "user-override.dtb: new file, [0-9]* bytes, sha256 [0-9a-f]\{64\}" plan &&
	sum_file kv.img >a && sum_file kv.orig >b && test_cmp a b
'

test_expect_success 'kv260-uhs applies: same bytes as the equivalent patch command' '
	$IMGPATCH apply kv260-uhs kv.img --set board=kv --set carrier=revB >out &&
	cp kv.orig via-patch.img &&
	$IMGPATCH patch via-patch.img --fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb \
		--dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime >/dev/null &&
	sum_file kv.img >a && sum_file via-patch.img >b && test_cmp a b &&
	extract_part kv.img 1 p1.fat && fsck.fat -n p1.fat >/dev/null &&
	extract_part kv.img 2 p2.ext4 && e2fsck -fn p2.ext4 >/dev/null 2>&1 &&
	fat_cat kv.img 1 /user-override.dtb >ovr.dtb &&
	fdtget -p ovr.dtb /axi/mmc@ff170000 >props && ! grep -x no-1-8-v props
'

test_expect_success 'kv260-uhs applied twice: already applied, no byte changes' '
	sum_file kv.img >a &&
	$IMGPATCH apply kv260-uhs kv.img --set board=kv --set carrier=revB >out2 &&
	grep "recipe kv260-uhs: already applied" out2 &&
	sum_file kv.img >b && test_cmp a b
'

test_expect_success 'golden: the KV260 carrier overlay on the SOM tree gives Debian'"'"'s merged tree' '
	dtc -q -I dts -O dtb -o kv-g-revB.dtbo "$TEST_DIR/dts/zynqmp-sck-kv-g-revB.dtso" &&
	cp kv.orig golden.img &&
	$IMGPATCH patch golden.img --fdt fdt-zynqmp-smk-k26-revA.dtb --overlay kv-g-revB.dtbo \
		--dtb-out /merged.dtb --force >/dev/null 2>&1 &&
	fat_cat golden.img 1 /merged.dtb >merged.dtb &&
	cmp merged.dtb "$DTB_DIR/smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb"
'

test_expect_success 'patch --dt-set, --dt-delete-node, --overlay, checked with fdtget' '
	cp kv.orig set.img &&
	cat >hs.dts <<-\EOD &&
	/dts-v1/;
	/plugin/;
	&sdhci1 { sd-uhs-sdr104; };
	EOD
	dtc -q -@ -I dts -O dtb -o hs.dtbo hs.dts &&
	$IMGPATCH patch set.img --fdt 6 --overlay hs.dtbo \
		--dt-set mmc@ff170000:max-frequency=150000000 \
		--dt-set "/axi/mmc@ff170000:xlnx,note=\"fast\"" \
		--dt-delete-node /gpio-keys >/dev/null &&
	fat_cat set.img 1 /user-override.dtb >set.dtb &&
	test "$(fdtget set.dtb /axi/mmc@ff170000 max-frequency)" = 150000000 &&
	test "$(fdtget -t s set.dtb /axi/mmc@ff170000 xlnx,note)" = fast &&
	fdtget -p set.dtb /axi/mmc@ff170000 | grep -x sd-uhs-sdr104 &&
	! fdtget -l set.dtb / | grep -x gpio-keys
'

test_expect_success 'a recipe file of the user'"'"'s own, by path' '
	cp kv.orig own.img &&
	cat >my-board.recipe <<-\EOD &&
	name = "my-board"
	summary = "cap the SD clock"
	description = "A board whose SD slot is unreliable above 100 MHz."
	source = "this test"
	risks = "none"
	undo = "delete it"
	step { action = "fdt-from-fit" fit = "/image.fit" fdt = "6" }
	step { action = "dt-set-property" node = "&sdhci1" property = "max-frequency" value = "<100000000>" }
	step { action = "write-dtb" path = "/user-override.dtb" }
	EOD
	$IMGPATCH apply ./my-board.recipe own.img >/dev/null &&
	fat_cat own.img 1 /user-override.dtb >own.dtb &&
	test "$(fdtget own.dtb /axi/mmc@ff170000 max-frequency)" = 100000000
'

test_expect_success 'a broken recipe: file and line in the message, image untouched' '
	cat >bad.recipe <<-\EOD &&
	name = "bad"
	summary = "typo"
	description = "Misspells an option."
	source = "this test"
	risks = "none"
	undo = "delete it"
	step { action = "fstab" mountpoint = "/" optons = "+noatime" }
	EOD
	test_refuses kv.img "bad.recipe:7:.*optons" $IMGPATCH apply ./bad.recipe kv.img
'

test_expect_success 'a recipe cannot reach outside its directory' '
	cat >escape.recipe <<-\EOD &&
	name = "escape"
	summary = "reads a host file"
	description = "Tries to copy a file from outside its folder."
	source = "this test"
	risks = "none"
	undo = "delete it"
	step { action = "write-file" part = "boot" path = "/x" file = "../../etc/passwd" }
	EOD
	test_refuses kv.img "\.\." $IMGPATCH apply ./escape.recipe kv.img
'

test_expect_success 'fstab-noatime on Raspberry Pi OS: fstrim.timer enabled' '
	$IMGPATCH apply fstab-noatime rpi.img >out &&
	extract_part rpi.img 2 rpi-root.ext4 && e2fsck -fn rpi-root.ext4 >/dev/null 2>&1 &&
	debugfs -R "stat /etc/systemd/system/timers.target.wants/fstrim.timer" rpi-root.ext4 2>/dev/null >st &&
	grep "Type: symlink" st &&
	grep "Fast link dest: \"/lib/systemd/system/fstrim.timer\"" st &&
	sum_file rpi.img >a && $IMGPATCH apply fstab-noatime rpi.img >out2 &&
	grep "already applied" out2 && sum_file rpi.img >b && test_cmp a b
'

test_expect_success 'rpi-sd-overclock: bounds, a model, then config.txt in [pi3], closed with [all]' '
	test_refuses_usage rpi.img "sd_overclock.*50.*120" \
		$IMGPATCH apply rpi-sd-overclock rpi.img --set model=pi3 --set sd_overclock=200 &&
	test_refuses_usage rpi.img "parameter .model. is required (one of: pi0, pi1, pi2, pi3)" \
		$IMGPATCH apply rpi-sd-overclock rpi.img --set sd_overclock=100 &&
	test_refuses_usage rpi.img "pi4" \
		$IMGPATCH apply rpi-sd-overclock rpi.img --set model=pi4 --set sd_overclock=100 &&
	fat_cat rpi.img 1 /config.txt >config.before &&
	$IMGPATCH apply rpi-sd-overclock rpi.img --set model=pi3 --set sd_overclock=100 >out &&
	fat_cat rpi.img 1 /config.txt >config.after &&
	{ diff config.before config.after >cfg.diff; test $? = 1; } &&
	cat cfg.diff &&
	printf "> \n> [pi3]\n> dtparam=sd_overclock=100\n> [all]\n" >cfg.expect &&
	grep "^[<>]" cfg.diff | tr -d "\r" >cfg.got && test_cmp cfg.expect cfg.got &&
	extract_part rpi.img 1 rpi-boot.fat && fsck.fat -n rpi-boot.fat >/dev/null
'

test_expect_success 'rpi-sd-overclock: another model gets its own line, [pi3] keeps its own' '
	$IMGPATCH apply rpi-sd-overclock rpi.img --set model=pi2 --set sd_overclock=80 >out &&
	fat_cat rpi.img 1 /config.txt | tr -d "\r" >config.two &&
	sed -n "/^\[pi3\]/,\$p" config.two >tail.got &&
	printf "[pi3]\ndtparam=sd_overclock=100\n[all]\n\n[pi2]\ndtparam=sd_overclock=80\n[all]\n" >tail.expect &&
	test_cmp tail.expect tail.got &&
	sum_file rpi.img >a &&
	$IMGPATCH apply rpi-sd-overclock rpi.img --set model=pi3 --set sd_overclock=100 >out2 &&
	grep "already applied" out2 && sum_file rpi.img >b && test_cmp a b
'

test_expect_success 'rpi5-sd-cqe: dtparam=sd_cqe in [pi5], needs the Pi 5 tree' '
	fat_cat rpi.img 1 /config.txt >cqe.before &&
	$IMGPATCH apply rpi5-sd-cqe rpi.img --set sd_cqe=off >out &&
	fat_cat rpi.img 1 /config.txt | tr -d "\r" >cqe.after &&
	test "$(tail -n 3 cqe.after)" = "$(printf "[pi5]\ndtparam=sd_cqe=off\n[all]")" &&
	$IMGPATCH apply rpi5-sd-cqe rpi.img --set sd_cqe=on >out &&
	fat_cat rpi.img 1 /config.txt | tr -d "\r" >cqe.on &&
	test "$(grep -c "sd_cqe" cqe.on)" = 1 && grep -x "dtparam=sd_cqe=on" cqe.on &&
	test_refuses kv.img "does not match this image" $IMGPATCH apply rpi5-sd-cqe kv.img --set sd_cqe=on &&
	cp rpi.img pi4only.img && mdel -i "pi4only.img@@$(part_offset pi4only.img 1)" ::bcm2712-rpi-5-b.dtb &&
	test_refuses pi4only.img "bcm2712-rpi-5-b.dtb" $IMGPATCH apply rpi5-sd-cqe pi4only.img --set sd_cqe=on
'

# Ubuntu for Raspberry Pi labels its partitions system-boot and writable.
test_expect_success 'the Raspberry Pi recipes match Ubuntu'"'"'s labels too' '
	"$FIXTURES/mkimage-rpi.sh" ubuntu-rpi.img &&
	mlabel -i "ubuntu-rpi.img@@$(part_offset ubuntu-rpi.img 1)" ::system-boot &&
	extract_part ubuntu-rpi.img 2 writable.ext4 &&
	e2label writable.ext4 writable &&
	dd if=writable.ext4 of=ubuntu-rpi.img bs=512 conv=notrunc status=none \
		seek=$(($(part_offset ubuntu-rpi.img 2) / 512)) &&
	$IMGPATCH apply rpi-sd-overclock ubuntu-rpi.img --set model=pi3 --set sd_overclock=100 >out &&
	$IMGPATCH apply rpi5-sd-cqe ubuntu-rpi.img --set sd_cqe=on >out &&
	fat_cat ubuntu-rpi.img 1 /config.txt | tr -d "\r" >ubuntu.config &&
	grep -x "dtparam=sd_overclock=100" ubuntu.config &&
	grep -x "dtparam=sd_cqe=on" ubuntu.config
'

test_expect_success 'cmdline.txt tokens and --recipe-path' '
	mkdir -p mine &&
	cat >mine/rpi-cmdline.recipe <<-\EOD &&
	name = "rpi-cmdline"
	summary = "quiet boot off, a longer SD timeout"
	description = "Edits kernel command-line tokens."
	source = "this test"
	risks = "none"
	undo = "put quiet back"
	step { action = "remove-token" part = "boot" path = "/cmdline.txt" key = "quiet" }
	step { action = "set-token" part = "boot" path = "/cmdline.txt" token = "rootdelay=5" }
	EOD
	fat_cat rpi.img 1 /cmdline.txt >cmd.before &&
	$IMGPATCH apply rpi-cmdline rpi.img --recipe-path mine >out &&
	fat_cat rpi.img 1 /cmdline.txt >cmd.after &&
	sed -e "s/ quiet//" -e "s/\$/ rootdelay=5/" cmd.before >cmd.expect &&
	test_cmp cmd.expect cmd.after &&
	test "$(wc -l <cmd.after)" = 1
'

test_expect_success 'pinephone-vccq-mod: refused without the hardware confirmation' '
	test_refuses_usage pmos-symbols.img "hardware-mod" \
		$IMGPATCH apply pinephone-vccq-mod pmos-symbols.img
'

test_expect_success 'pinephone-vccq-mod: the kernel tree without __symbols__ gets a hint' '
	test_refuses pmos.img "no __symbols__.*dtc -@" \
		$IMGPATCH apply pinephone-vccq-mod pmos.img --set hardware-mod=done
'

test_expect_success 'pinephone-vccq-mod: refused when boot.scr does not source user.scr' '
	test_refuses pmos-nohook.img "user.scr" \
		$IMGPATCH apply pinephone-vccq-mod pmos-nohook.img --set hardware-mod=done
'

test_expect_success 'pinephone-vccq-mod: with a tree that has symbols, overlay and user.scr installed' '
	$IMGPATCH apply pinephone-vccq-mod pmos-symbols.img --set hardware-mod=done >out &&
	extract_part pmos-symbols.img 1 pmos-boot.ext2 && e2fsck -fn pmos-boot.ext2 >/dev/null 2>&1 &&
	debugfs -R "dump /pinephone-vccq-mod.dtbo got.dtbo" pmos-boot.ext2 2>/dev/null &&
	cmp got.dtbo "$IMGPATCH_BUILD/recipes/overlays/pinephone-vccq-mod.dtbo" &&
	debugfs -R "dump /user.scr got.scr" pmos-boot.ext2 2>/dev/null &&
	mkimage -A arm -O linux -T script -C none -n "" \
		-d "$IMGPATCH_BUILD/recipes/pinephone-vccq-mod.user.cmd" want.scr >/dev/null &&
	cmp want.scr got.scr &&
	fdtoverlay -i "$DTB_DIR/u-boot-sunxi-pinephone.dtb" -o merged.dtb got.dtbo &&
	fdtget -p merged.dtb /soc/mmc@1c11000 | grep -x mmc-hs200-1_8v &&
	grep -F "load mmc \${mmc_bootdev}:1 \${fdtoverlay_addr_r} pinephone-vccq-mod.dtbo" \
		"$IMGPATCH_BUILD/recipes/pinephone-vccq-mod.user.cmd" &&
	! grep -i "0x5" "$IMGPATCH_BUILD/recipes/pinephone-vccq-mod.user.cmd"
'

# What postmarketOS's device-pine64-pinephone-vccq-mod package changes in
# the tree (pmaports, device-pine64-pinephone/pinephone-vccq-mod.dts), as
# an overlay of the same properties: the recipe's tree must come out the same.
test_expect_success 'pinephone-vccq-mod: the same tree as the postmarketOS package gives' '
	cat >package.dts <<-\EOD &&
	/dts-v1/;
	/plugin/;
	&mmc2 {
		pinctrl-0 = <&mmc2_pins>, <&mmc2_ds_pin>;
		vqmmc-supply = <&reg_eldo1>;
		mmc-hs200-1_8v;
	};
	&pio {
		vcc-pc-supply = <&reg_eldo1>;
	};
	EOD
	dtc -q -@ -I dts -O dtb -o package.dtbo package.dts &&
	fdtoverlay -i "$DTB_DIR/u-boot-sunxi-pinephone.dtb" -o package.dtb package.dtbo &&
	dtc -q -I dtb -O dts -s package.dtb >package.merged.dts &&
	dtc -q -I dtb -O dts -s merged.dtb >recipe.merged.dts &&
	test_cmp package.merged.dts recipe.merged.dts &&
	eldo1=$(fdtget package.dtb /__symbols__ reg_eldo1) &&
	test "$(fdtget merged.dtb /soc/pinctrl@1c20800 vcc-pc-supply)" = \
		"$(fdtget merged.dtb "$eldo1" phandle)"
'

test_expect_success 'pinephone-vccq-mod: a second run changes nothing' '
	sum_file pmos-symbols.img >a &&
	$IMGPATCH apply pinephone-vccq-mod pmos-symbols.img --set hardware-mod=done >out2 &&
	grep "already applied" out2 &&
	sum_file pmos-symbols.img >b && test_cmp a b
'

test_expect_success 'pinephone-vccq-mod: an owner'"'"'s own user.scr is refused, not replaced' '
	DTB_DIR=$PWD/uboot-dtb "$FIXTURES/mkimage-pmos.sh" pmos-own.img &&
	printf "echo my own user script\n" >own.cmd &&
	mkimage -A arm -O linux -T script -C none -n mine -d own.cmd own.scr >/dev/null &&
	extract_part pmos-own.img 1 own-boot.ext2 &&
	debugfs -w -R "write own.scr user.scr" own-boot.ext2 >/dev/null 2>&1 &&
	dd if=own-boot.ext2 of=pmos-own.img bs=512 seek=$(($(part_offset pmos-own.img 1) / 512)) \
		conv=notrunc status=none &&
	test_refuses pmos-own.img "/user.scr: exists and was not written by this recipe" \
		$IMGPATCH apply pinephone-vccq-mod pmos-own.img --set hardware-mod=done
'

test_expect_success 'kv260-uhs: write-tree gives the bytes the explicit write-dtb gave' '
	mkdir -p explicit &&
	sed "/action = \"write-tree\"/s|.*|\taction = \"write-dtb\"\n\tpath = \"/user-override.dtb\"|" \
		"$IMGPATCH_BUILD/recipes/kv260-uhs.recipe" >explicit/kv260-uhs.recipe &&
	grep -c "write-tree" explicit/kv260-uhs.recipe | grep -x 0 &&
	grep "path = \"/user-override.dtb\"" explicit/kv260-uhs.recipe &&
	cp kv.orig intent.img && cp kv.orig written.img &&
	$IMGPATCH apply kv260-uhs intent.img --set board=kv --set carrier=revB >out &&
	grep "^    via override: the boot script loads /user-override.dtb" out &&
	$IMGPATCH apply ./explicit/kv260-uhs.recipe written.img --set board=kv --set carrier=revB >/dev/null &&
	cmp intent.img written.img
'

# -------------------------------------------- intent, add-to-list, new recipes

ARM_OFF=$((8192 * 512))
EXT_OFF=$((2048 * 512))
LINUX=/usr/lib/linux-image-6.1.0-13-arm64

# ext_cat IMG OFFSET PATH: a file of the ext4 at OFFSET, by debugfs.
ext_cat()
{
	debugfs -R "cat $3" "$1?offset=$2" 2>/dev/null
}

test_expect_success 'intent fixtures: extlinux, Armbian, and Armbian on a NanoPC-T6' '
	"$FIXTURES/mkimage-extlinux.sh" fdtdir.img &&
	"$FIXTURES/mkimage-armbian.sh" armbian.img &&
	"$FIXTURES/mkimage-armbian.sh" t6.img &&
	"$FIXTURES/mkimage-rpi.sh" pi.img &&
	cat >t6.dts <<-\EOD &&
	/dts-v1/;
	/ {
		compatible = "friendlyarm,nanopc-t6", "rockchip,rk3588";
		#address-cells = <2>;
		#size-cells = <2>;
		sdhci: mmc@fe2e0000 {
			compatible = "rockchip,rk3588-dwcmshc";
			reg = <0x0 0xfe2e0000 0x0 0x10000>;
			max-frequency = <200000000>;
			mmc-hs400-1_8v;
			status = "okay";
		};
	};
	EOD
	cat >t6-freq.dts <<-\EOD &&
	/dts-v1/;
	/plugin/;
	/ {
		fragment@0 {
			target = <&sdhci>;
			__overlay__ { status = "okay"; max-frequency = <150000000>; };
		};
	};
	EOD
	dtc -q -@ -I dts -O dtb -o t6.dtb t6.dts &&
	dtc -q -@ -I dts -O dtb -o t6-freq.dtbo t6-freq.dts &&
	ext_cat armbian.img $ARM_OFF /boot/armbianEnv.txt |
		sed -e "s|^fdtfile=.*|fdtfile=rockchip/rk3588-nanopc-t6.dtb|" \
		    -e "s|^overlay_prefix=.*|overlay_prefix=rockchip-rk3588|" >t6.env &&
	extract_part t6.img 1 t6.ext4 &&
	dtbdir=/boot/$(debugfs -R "stat /boot/dtb" t6.ext4 2>/dev/null |
		sed -n "s/^Fast link dest: \"\(.*\)\"$/\1/p") &&
	test "$dtbdir" != /boot/ &&
	debugfs -w -f - t6.ext4 >/dev/null 2>&1 <<-EOD &&
	mkdir $dtbdir/rockchip
	mkdir $dtbdir/rockchip/overlay
	cd $dtbdir/rockchip
	write t6.dtb rk3588-nanopc-t6.dtb
	cd $dtbdir/rockchip/overlay
	write t6-freq.dtbo rockchip-rk3588-nanopc-t6-mmc-frequency.dtbo
	cd /boot
	rm armbianEnv.txt
	write t6.env armbianEnv.txt
	EOD
	e2fsck -fn t6.ext4 >/dev/null 2>&1 &&
	dd if=t6.ext4 of=t6.img bs=512 seek=8192 conv=notrunc status=none &&
	$IMGPATCH info t6.img | grep "fdtfile rockchip/rk3588-nanopc-t6.dtb"
'

test_expect_success 'rockpro64-sd-uhs on extlinux: a new overlay where u-boot-update looks, in fdtoverlays' '
	cp fdtdir.img rp.img &&
	$IMGPATCH apply rockpro64-sd-uhs rp.img >out &&
	grep "via overlay:" out &&
	ext_cat rp.img $EXT_OFF /boot/extlinux/extlinux.conf >conf &&
	grep -Fx "	fdtoverlays /boot/dtbo/rockpro64-sd-uhs.dtbo" conf &&
	test $(grep -c fdtoverlays conf) = 1 &&
	ext_cat rp.img $EXT_OFF /etc/default/u-boot >defaults &&
	grep -Fx "U_BOOT_FDT_OVERLAYS=\"rockpro64-sd-uhs.dtbo\"" defaults &&
	ext_cat rp.img $EXT_OFF /boot/dtbo/rockpro64-sd-uhs.dtbo >uhs.dtbo &&
	ext_cat rp.img $EXT_OFF $LINUX/rockchip/rk3399-rockpro64.dtb >rp.dtb &&
	fdtoverlay -i rp.dtb -o rp.applied uhs.dtbo &&
	for p in sd-uhs-sdr12 sd-uhs-sdr25 sd-uhs-sdr50 sd-uhs-sdr104 sd-uhs-ddr50; do
		fdtget rp.applied /mmc@fe320000 $p >/dev/null || return 1
	done &&
	test_must_fail fdtget rp.dtb /mmc@fe320000 sd-uhs-sdr104 &&
	sum_file rp.img >a && $IMGPATCH apply rockpro64-sd-uhs rp.img >out2 &&
	grep "already applied" out2 && sum_file rp.img >b && test_cmp a b
'

test_expect_success 'rockpro64-sd-uhs: another board is refused, the image untouched' '
	test_refuses armbian.img "expected root compatible .pine64,rockpro64." \
		$IMGPATCH apply rockpro64-sd-uhs armbian.img
'

test_expect_success 'nanopc-t6-emmc-150mhz: Armbian overlays= gets the word, its entries kept' '
	cp t6.img t6a.img &&
	$IMGPATCH apply nanopc-t6-emmc-150mhz t6a.img >out &&
	ext_cat t6a.img $ARM_OFF /boot/armbianEnv.txt >env &&
	grep -Fx "overlays=uart1 i2c0 nanopc-t6-mmc-frequency" env &&
	grep -v "^overlays=" t6.env >env.rest.orig && grep -v "^overlays=" env >env.rest &&
	test_cmp env.rest.orig env.rest &&
	$IMGPATCH info t6a.img | grep "rockchip-rk3588-nanopc-t6-mmc-frequency.dtbo" &&
	fdtoverlay -i t6.dtb -o t6.applied t6-freq.dtbo &&
	test "$(fdtget t6.applied /mmc@fe2e0000 max-frequency)" = 150000000 &&
	sum_file t6a.img >a && $IMGPATCH apply nanopc-t6-emmc-150mhz t6a.img >out2 &&
	grep "already applied" out2 && sum_file t6a.img >b && test_cmp a b
'

test_expect_success 'nanopc-t6-emmc-150mhz: an image without the overlay is refused' '
	test_refuses armbian.img "rockchip-rk3588-nanopc-t6-mmc-frequency.dtbo" \
		$IMGPATCH apply nanopc-t6-emmc-150mhz armbian.img
'

test_expect_success 'add-to-list: config.txt dtoverlay under [all], the owner'"'"'s lines kept' '
	cat >lists.recipe <<-\EOD &&
	name = "lists"
	summary = "lists"
	description = "Adds overlays to the lists."
	source = "this test"
	step { action = "add-to-list" part = "boot" path = "/config.txt" key = "dtoverlay" word = "vc4-kms-v3d" }
	step { action = "add-to-list" part = "boot" path = "/config.txt" key = "dtoverlay" word = "dwc2" }
	EOD
	cp pi.img l.img &&
	$IMGPATCH apply ./lists.recipe l.img >out &&
	fat_cat l.img 1 /config.txt >config &&
	fat_cat pi.img 1 /config.txt >config.orig &&
	{ cat config.orig; echo dtoverlay=dwc2; } >config.want && test_cmp config.want config &&
	sum_file l.img >a && $IMGPATCH apply ./lists.recipe l.img >/dev/null &&
	sum_file l.img >b && test_cmp a b
'

test_expect_success 'add-to-list: a word with a blank is refused at load time' '
	cat >badlist.recipe <<-\EOD &&
	name = "badlist"
	summary = "bad"
	description = "A word with a blank."
	source = "this test"
	step { action = "add-to-list" part = "boot" path = "/config.txt" key = "dtoverlay" word = "a b" }
	EOD
	test_refuses rpi.img "badlist.recipe:5:" $IMGPATCH apply ./badlist.recipe rpi.img
'

test_expect_success 'intent: a deletion in the booted tree edits the Raspberry Pi tree file' '
	cat >del.recipe <<-\EOD &&
	name = "del"
	summary = "delete in the booted tree"
	description = "Deletes broken-cd of the Pi 4 SD controller, wherever the tree is."
	source = "this test"
	step { action = "dt-from-boot" model = "pi4" }
	step { action = "dt-delete-property" node = "mmc@7e340000" property = "broken-cd" }
	step { action = "write-tree" }
	EOD
	cp pi.img del.img &&
	$IMGPATCH apply ./del.recipe del.img >out &&
	grep "via file: an overlay cannot delete" out &&
	mcopy -n -i "del.img@@$(part_offset del.img 1)" ::bcm2711-rpi-4-b.dtb del.dtb &&
	test_must_fail fdtget del.dtb /emmc2bus/mmc@7e340000 broken-cd &&
	sum_file del.img >a && $IMGPATCH apply ./del.recipe del.img >/dev/null &&
	sum_file del.img >b && test_cmp a b
'

test_expect_success 'intent: via overlay with a deletion, and an unknown way, are refused' '
	sed "s/action = \"write-tree\"/action = \"write-tree\" via = \"overlay\"/" del.recipe >delov.recipe &&
	sed -i "s/^name = .*/name = \"delov\"/" delov.recipe &&
	test_refuses rpi.img "an overlay cannot delete.*use --via file" $IMGPATCH apply ./delov.recipe rpi.img &&
	sed "s/action = \"write-tree\"/action = \"write-tree\" via = \"nowhere\"/" del.recipe >delno.recipe &&
	sed -i "s/^name = .*/name = \"delno\"/" delno.recipe &&
	test_refuses rpi.img "delno.recipe:7: .*unknown way .nowhere." $IMGPATCH apply ./delno.recipe rpi.img
'

test_done
