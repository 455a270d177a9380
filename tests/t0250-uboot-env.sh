#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='the image'"'"'s own U-Boot: found before the first partition, its version and default environment read (never run)'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk dd mkimage dumpimage strings gzip xz python3 dpkg-deb
test_require_debs u-boot-rockchip u-boot-sunxi u-boot-imx

RK=$PWD/deb/u-boot-rockchip
SX=$PWD/deb/u-boot-sunxi
MX=$PWD/deb/u-boot-imx
SCHEMA=$REPO_DIR/tool/schema/info.schema.json

# blank OUT LABEL FIRST: a 48 MiB image with one Linux partition at sector FIRST.
blank()
{
	truncate -s 48M "$1" &&
	printf 'label: %s\nstart=%s, size=32768, type=%s\n' "$2" "$3" \
		"$([ "$2" = gpt ] && echo L || echo 83)" | sfdisk -q "$1" >/dev/null
}

# env_of FILE KEY: KEY's value in the default environment of the U-Boot
# binary FILE, as strings(1) finds it: the oracle for imgpatch's reading.
env_of()
{
	strings -n 4 "$1" | sed -n "s/^$2=//p" | head -n 1
}

# version_of FILE: U-Boot proper's version, as strings(1) finds it.
version_of()
{
	strings -n 8 "$1" | sed -n 's/^U-Boot \(20[0-9][0-9]\.[^ ]*\) (.*/\1/p' | head -n 1
}

test_expect_success 'Rockchip: u-boot.itb at sector 16384, as u-boot-install-rockchip writes it' '
	blank rk.img gpt 32768 &&
	TARGET=$RK/usr/lib/u-boot/rockpro64-rk3399 "$RK/usr/bin/u-boot-install-rockchip" rk.img >log 2>&1 &&
	itb=$RK/usr/lib/u-boot/rockpro64-rk3399/u-boot.itb &&
	fdtfile=$(env_of "$itb" fdtfile) && test -n "$fdtfile" &&
	version=$(version_of "$itb") && test -n "$version" &&
	sum_file rk.img >before &&
	imgpatch info rk.img >info &&
	grep -Fx "boot loader: U-Boot $version, fdtfile=$fdtfile (u-boot.itb at sector 16384 (Rockchip))" info &&
	test "$fdtfile" = rockchip/rk3399-rockpro64.dtb &&
	test_file_unchanged rk.img "$(cat before)"
'

test_expect_success 'Rockchip: info --json has every setting, valid against the schema' '
	imgpatch info --json rk.img >rk.json &&
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" rk.json &&
	itb=$RK/usr/lib/u-boot/rockpro64-rk3399/u-boot.itb &&
	python3 - "$(env_of "$itb" board)" "$(env_of "$itb" soc)" "$(env_of "$itb" vendor)" <<-\EOF
	import json, sys
	b = json.load(open("rk.json"))["boot_loader"]
	assert b["name"] == "U-Boot" and b["offset"] == 16384 * 512, b
	assert (b["board"], b["soc"], b["vendor"]) == tuple(sys.argv[1:4]), b
	assert b["tree"] == b["fdtfile"] == "rockchip/rk3399-rockpro64.dtb", b
	EOF
'

test_expect_success 'Allwinner 64-bit: SPL at 8 KiB and the FIT at 40 KiB, as u-boot-install-sunxi64 writes them' '
	blank sx.img dos 2048 &&
	TARGET=$SX/usr/lib/u-boot/pinephone "$SX/usr/bin/u-boot-install-sunxi64" sx.img >log 2>&1 &&
	itb=$SX/usr/lib/u-boot/pinephone/u-boot-sunxi-with-spl.fit.itb &&
	fdtfile=$(env_of "$itb" fdtfile) && test -n "$fdtfile" &&
	imgpatch info sx.img >info &&
	grep -Fx "boot loader: U-Boot $(version_of "$itb"), fdtfile=$fdtfile (u-boot-sunxi-with-spl.fit.itb at 40 KiB (Allwinner))" info
'

test_expect_success 'i.MX6: u-boot-dtb.imx at 1 KiB (README.Debian of u-boot-imx)' '
	blank mx.img dos 2048 &&
	imx=$MX/usr/lib/u-boot/mx6qsabrelite/u-boot-dtb.imx &&
	dd conv=notrunc bs=1024 seek=1 if="$imx" of=mx.img status=none &&
	imgpatch info mx.img >info &&
	grep -Fx "boot loader: U-Boot $(version_of "$imx"), fdtfile=$(env_of "$imx" fdtfile) (u-boot.imx at 1 KiB (i.MX))" info
'

test_expect_success 'i.MX6: SPL at 1 KiB, u-boot.img at 69 KiB; fdtfile=undefined names no tree' '
	blank wb.img dos 2048 &&
	dd conv=notrunc bs=1k seek=1 if=$MX/usr/lib/u-boot/wandboard/SPL of=wb.img status=none &&
	dd conv=notrunc bs=1k seek=69 if=$MX/usr/lib/u-boot/wandboard/u-boot.img of=wb.img status=none &&
	test "$(env_of $MX/usr/lib/u-boot/wandboard/u-boot.img fdtfile)" = undefined &&
	imgpatch info wb.img >info &&
	grep "^boot loader: U-Boot .*, fdtfile=undefined (u-boot.img at 69 KiB (i.MX))$" info &&
	imgpatch info --json wb.img >wb.json &&
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" wb.json &&
	python3 -c "import json; b = json.load(open(\"wb.json\"))[\"boot_loader\"]; assert b[\"tree\"] is None and b[\"soc\"] == \"mx6\", b"
'

# A FIT whose U-Boot image is compressed: Debian's u-boot-nodtb.bin, packed
# with gzip or as .lzma, in a FIT made by mkimage as a board's build makes it.
for comp in gzip lzma; do
	test_expect_success "a FIT whose U-Boot image is $comp-compressed is unpacked before it is read" '
		bin=$RK/usr/lib/u-boot/rockpro64-rk3399/u-boot-nodtb.bin &&
		if [ '"$comp"' = gzip ]; then gzip -n -9 <"$bin" >uboot.'"$comp"'; else xz --format=lzma <"$bin" >uboot.'"$comp"'; fi &&
		cat >c.its <<-EOF &&
		/dts-v1/;
		/ {
			description = "U-Boot, compressed";
			#address-cells = <1>;
			images {
				uboot {
					description = "U-Boot (64-bit)";
					type = "standalone";
					os = "u-boot";
					arch = "arm64";
					compression = "'"$comp"'";
					load = <0x00200000>;
					data = /incbin/("uboot.'"$comp"'");
				};
			};
			configurations {
				default = "config-1";
				config-1 { firmware = "uboot"; };
			};
		};
		EOF
		mkimage -f c.its c.itb >/dev/null &&
		dumpimage -l c.itb | grep "Compression:  '"$comp"'" &&
		! strings c.itb | grep -q "^fdtfile=" &&
		blank c.img gpt 32768 &&
		dd conv=notrunc seek=16384 if=c.itb of=c.img status=none &&
		imgpatch info c.img >info &&
		grep -Fx "boot loader: U-Boot $(version_of "$bin"), fdtfile=$(env_of "$bin" fdtfile) (u-boot.itb at sector 16384 (Rockchip))" info
	'
done

test_expect_success 'no U-Boot before the first partition: no boot loader line, null in JSON' '
	blank none.img gpt 32768 &&
	imgpatch info none.img >info &&
	! grep "^boot loader:" info &&
	imgpatch info --json none.img >none.json &&
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA" none.json &&
	python3 -c "import json; assert json.load(open(\"none.json\"))[\"boot_loader\"] is None"
'

test_expect_success 'only the space before the first partition is read: U-Boot inside a partition is not found' '
	blank inside.img gpt 8192 &&
	dd conv=notrunc seek=16384 if=$RK/usr/lib/u-boot/rockpro64-rk3399/u-boot.itb of=inside.img status=none &&
	imgpatch info inside.img >info &&
	! grep "^boot loader:" info
'

test_expect_success 'hostile bytes at the places: a broken FIT, an environment cut short, nothing found, exit 0' '
	blank bad.img dos 32768 &&
	itb=$RK/usr/lib/u-boot/rockpro64-rk3399/u-boot.itb &&
	head -c 4096 "$itb" | dd conv=notrunc seek=16384 of=bad.img status=none &&
	printf "\0\0\0\0eGON.BT0board=x\0soc=y" | dd conv=notrunc bs=1024 seek=8 of=bad.img status=none &&
	printf "\321\000\040\100fdtfile=a\0bootcmd=b" | dd conv=notrunc bs=1024 seek=1 of=bad.img status=none &&
	imgpatch info bad.img >info &&
	! grep "^boot loader:" info
'

test_expect_success 'the truncated FIT still yields what its bytes hold: its environment, read raw' '
	blank cut.img gpt 32768 &&
	itb=$RK/usr/lib/u-boot/rockpro64-rk3399/u-boot.itb &&
	head -c 900000 "$itb" | dd conv=notrunc seek=16384 of=cut.img status=none &&
	imgpatch info cut.img >info &&
	grep "^boot loader: U-Boot .*, fdtfile=rockchip/rk3399-rockpro64.dtb (u-boot.itb at sector 16384 (Rockchip))$" info
'

test_done
