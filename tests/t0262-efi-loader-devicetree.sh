#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='boot path efi and the loader it starts: an ESP that holds trees is U-Boot'"'"'s EFI boot'"'"'s unless the entry the loader boots names its own devicetree (GRUB'"'"'s devicetree command, the Boot Loader Specification key), which then is the tree info, cat --dtb and patch act on; the kernel command line is the loader'"'"'s entry'"'"'s. Reads back with mtype, debugfs, fdtget, fsck.fat -n, e2fsck -fn'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mcopy mtype debugfs e2fsck fsck.fat dtc fdtget fdtput

export MTOOLS_SKIP_CHECK=1
V=6.1.0-18-arm64
GTREE=/boot/dtbs/$V/rockchip/rk3399-rockpro64.dtb
MID=4f3c1a2b5d6e7f8091a2b3c4d5e6f708
NEW=6.8.9-300.fc40.aarch64
BTREE=/dtb-$NEW/rockchip/rk3399-rockpro64.dtb
ESPTREE=/dtb/rockchip/rk3399-rockpro64.dtb
MMC=/mmc@fe320000

# esp_tree IMG OUT: the ESP's tree of IMG, as mtype reads it.
esp_tree()
{
	mtype -i "$(part_mtools "$1" 1)" "::$ESPTREE" >"$2"
}

# clean IMG N...: partition 1 passes fsck.fat -n, each other N e2fsck -fn.
clean()
{
	local -; set +x
	local img=$1 n

	shift
	extract_part "$img" 1 "$img.p1" && fsck.fat -n "$img.p1" >/dev/null || return 1
	for n in "$@"; do
		extract_part "$img" "$n" "$img.p$n" && e2fsck -fn "$img.p$n" >/dev/null 2>&1 || return 1
	done
}

test_expect_success 'build the images: GRUB and boot loader entries, each with the trees on the ESP too' '
	"$FIXTURES/mkimage-debian-grub.sh" grub.img --esp-dtb &&
	"$FIXTURES/mkimage-fedora-bls.sh" blsdt.img --esp-dtb --devicetree &&
	"$FIXTURES/mkimage-fedora-bls.sh" bls.img --esp-dtb &&
	for i in grub blsdt bls; do cp $i.img $i.orig || return 1; done &&
	esp_tree grub.img esp.dtb &&
	test "$(fdtget -t s esp.dtb / imgpatch-test)" = esp &&
	clean grub.img 2 && clean blsdt.img 2 3
'

test_expect_success 'GRUB'"'"'s default menuentry has devicetree: its tree, not the ESP'"'"'s, is the one booted' '
	imgpatch info grub.img >info &&
	grep "^boot path: GRUB /boot/grub/grub.cfg, menuentry '"'"'Debian GNU/Linux'"'"' (set default=0), devicetree /boot/dtb-$V (p2)" info &&
	grep -x "  tree: $GTREE" info &&
	! grep -q "tree: $ESPTREE" info &&
	imgpatch info --json grub.img >info.json &&
	python3 -c "import json, sys
b = json.load(open(sys.argv[1]))[\"boot_path\"]
assert b[\"name\"] == \"grub\", b[\"name\"]
assert [t[\"path\"] for t in b[\"trees\"]] == [\"$GTREE\"], b[\"trees\"]" info.json
'

test_expect_success 'cat --dtb: the devicetree line'"'"'s file as it is on the root' '
	extract_part grub.img 2 g.root &&
	debugfs -R "dump $GTREE want.dtb" g.root >/dev/null 2>&1 &&
	dtc -q -I dtb -O dts want.dtb >want.dts &&
	imgpatch cat grub.img --dtb >got &&
	head -1 got | grep "^// boot path grub: $GTREE" &&
	tail -n +2 got >got.dts && test_cmp want.dts got.dts &&
	! grep -q imgpatch-test got.dts
'

test_expect_success 'patch: the root'"'"'s tree edited, the ESP'"'"'s byte for byte as it was' '
	cp grub.img grub-p.img &&
	imgpatch patch grub-p.img --dt-set "$MMC:max-frequency=<50000000>" >plan &&
	grep -q "via file" plan &&
	clean grub-p.img 2 &&
	debugfs -R "dump $GTREE edited.dtb" grub-p.img.p2 >/dev/null 2>&1 &&
	test "$(fdtget edited.dtb $MMC max-frequency)" = 50000000 &&
	esp_tree grub-p.img esp.after && cmp esp.dtb esp.after
'

test_expect_success 'a boot loader entry with devicetree: the entry'"'"'s tree on /boot, not the ESP'"'"'s' '
	imgpatch info blsdt.img >info.bls &&
	grep "^boot path: Boot Loader Specification entry /loader/entries/$MID-$NEW.conf .*devicetree $BTREE, overlays: none (p2)" info.bls &&
	grep -x "  tree: $BTREE" info.bls &&
	imgpatch cat blsdt.img --dtb >bls.got &&
	head -1 bls.got | grep "^// boot path bls: $BTREE" &&
	! grep -q imgpatch-test bls.got &&
	cp blsdt.img blsdt-p.img &&
	imgpatch patch blsdt-p.img --via file --dt-set "$MMC:max-frequency=<50000000>" >plan.bls &&
	clean blsdt-p.img 2 3 &&
	debugfs -R "dump $BTREE bls.edited" blsdt-p.img.p2 >/dev/null 2>&1 &&
	test "$(fdtget bls.edited $MMC max-frequency)" = 50000000 &&
	esp_tree blsdt-p.img bls.esp && esp_tree blsdt.img bls.esp0 && cmp bls.esp0 bls.esp
'

test_expect_success 'entries without devicetree: U-Boot'"'"'s ESP tree, and the entry'"'"'s options as the command line' '
	imgpatch info bls.img >info.efi &&
	grep "^boot path: U-Boot EFI boot of /EFI/BOOT/BOOTAA64.EFI" info.efi &&
	grep -x "  tree: $ESPTREE" info.efi &&
	grep -x "    kept in: p2 (ext4): /loader/entries/$MID-$NEW.conf, entry $MID-$NEW.conf, options" info.efi &&
	imgpatch cat bls.img --dtb --model rk3399-rockpro64.dtb >efi.got &&
	grep -q "imgpatch-test = \"esp\"" efi.got &&
	imgpatch cat bls.img --cmdline >efi.cmdline &&
	head -1 efi.cmdline | grep -x "# p2 (ext4): /loader/entries/$MID-$NEW.conf, entry $MID-$NEW.conf, options; the boot loader joins every options line with a blank and hands them over as they are" &&
	tail -1 efi.cmdline | grep -x "root=UUID=f3d0b007-0000-4000-8000-000000000003 ro rhgb quiet"
'

test_expect_success 'patch --cmdline on the efi path: the entry'"'"'s options line, the ESP untouched' '
	cp bls.img bls-c.img &&
	imgpatch patch bls-c.img --cmdline +console=ttyS2,1500000 --cmdline -rhgb >plan.c &&
	clean bls-c.img 2 3 &&
	debugfs -R "cat /loader/entries/$MID-$NEW.conf" bls-c.img.p2 2>/dev/null >entry &&
	extract_part bls.img 2 bls.img.p2 &&
	debugfs -R "cat /loader/entries/$MID-$NEW.conf" bls.img.p2 2>/dev/null >entry.orig &&
	grep -q "^options " entry.orig &&
	grep -x "options root=UUID=f3d0b007-0000-4000-8000-000000000003 ro quiet console=ttyS2,1500000" entry &&
	diff entry.orig entry >d || test $? = 1 &&
	test "$(grep -c "^[<>]" d)" = 2 &&
	extract_part bls.img 1 esp0.fat && cmp esp0.fat bls-c.img.p1
'

# bootctl takes the ESP and XBOOTLDR folders from these variables, but
# ignores an XBOOTLDR on the ESP's device: the ESP goes to /dev/shm (as in
# t0680-bls-bootctl.sh).
SHM=
if command -v bootctl >/dev/null && [ -d /dev/shm ] && [ -w /dev/shm ] &&
	[ "$(stat -c %d /dev/shm)" != "$(stat -c %d .)" ]; then
	SHM=$(mktemp -d /dev/shm/imgpatch-t0262.XXXXXX)
	trap 'rm -rf -- "$SHM"' EXIT
fi
if [ -n "$SHM" ]; then
	test_expect_success 'bootctl: the default entry of the patched image has the options cat --cmdline prints' '
		mcopy -s -n -i "$(part_mtools bls-c.img 1)" ::/ "$SHM/" &&
		mkdir -p bls-c.boot &&
		debugfs -R "rdump / $PWD/bls-c.boot" bls-c.img.p2 >/dev/null 2>&1 &&
		SYSTEMD_ESP_PATH=$SHM SYSTEMD_XBOOTLDR_PATH=$PWD/bls-c.boot \
			bootctl list --no-pager >bootctl.list 2>bootctl.err &&
		awk "/^ *title: .*\\(default\\)/ { on = 1 } on && /^\$/ { exit } on { sub(/^ */, \"\"); print }" \
			bootctl.list >bootctl.default &&
		grep -x "id: $MID-$NEW.conf" bootctl.default &&
		imgpatch cat bls-c.img --cmdline | tail -1 | sed "s/^/options: /" >want &&
		grep "^options: " bootctl.default >got &&
		test_cmp want got
	'
else
	test_skip "bootctl: the default entry of the patched image has the options cat --cmdline prints" \
		"bootctl (systemd-boot) missing, or no /dev/shm on its own filesystem"
fi

test_expect_success 'an ESP with trees whose loader has no configuration: --cmdline refused, image byte-identical' '
	cp bls.img noconf.img &&
	extract_part noconf.img 2 noconf.p2 &&
	debugfs -w -R "rm /loader/entries/$MID-$NEW.conf" noconf.p2 >/dev/null 2>&1 &&
	for f in $MID-6.8.5-301.fc40.aarch64.conf $MID-0-rescue-$MID.conf; do
		debugfs -w -R "rm /loader/entries/$f" noconf.p2 >/dev/null 2>&1 || return 1
	done &&
	e2fsck -fn noconf.p2 >/dev/null 2>&1 &&
	put_part noconf.img 2 noconf.p2 &&
	imgpatch info noconf.img >info.noconf &&
	grep "^boot path: U-Boot EFI boot of /EFI/BOOT/BOOTAA64.EFI" info.noconf &&
	test_refuses noconf.img "no partition has a boot loader entry or GRUB'"'"'s grub.cfg" \
		imgpatch patch noconf.img --cmdline +quiet
'

test_done
