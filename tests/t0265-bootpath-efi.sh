#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='boot path efi: U-Boot'"'"'s distro EFI boot hands BOOTAA64.EFI ${fdtfile} from the ESP'"'"'s last prefix that has it; --via file edits that one, --via overlay is refused, the command line is the loader'"'"'s (GRUB'"'"'s)'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs e2fsck mkfs.vfat mcopy mdir mtype mmd fsck.fat dtc fdtget fdtput python3 dpkg-deb

export MTOOLS_SKIP_CHECK=1
RP=rockchip/rk3399-rockpro64.dtb
PP=allwinner/sun50i-a64-pinephone-1.2.dtb
ROOT_UUID=45464930-726f-6f74-0000-000000000002
RKDEB=$(compgen -G "$DEB_CACHE/u-boot-rockchip_*.deb" | head -n 1) || RKDEB=

# esp IMG: the ESP of IMG for mtools.
esp()
{
	part_mtools "$1" 1
}

# tree_of IMG PATH OUT: the ESP's file PATH of IMG, as mtype reads it.
tree_of()
{
	mtype -i "$(esp "$1")" "::$2" >"$3"
}

test_expect_success 'build the generic arm64 EFI image (FreedomBox layout)' '
	"$FIXTURES/mkimage-efi.sh" efi.img &&
	cp efi.img efi.orig &&
	mdir -i "$(esp efi.img)" ::/EFI/BOOT/BOOTAA64.EFI >/dev/null &&
	extract_part efi.img 1 esp.fat && fsck.fat -n esp.fat >/dev/null
'

test_expect_success 'info: boot path efi, every tree of /dtb/ by its vendor folder' '
	imgpatch info efi.img >info &&
	grep "^boot path: U-Boot EFI boot of /EFI/BOOT/BOOTAA64.EFI, tree \${fdtfile} from the last of / /dtb/ /dtb/current/ that has it (2 trees)" info &&
	grep -x "  tree: /dtb/$PP" info &&
	grep -x "  tree: /dtb/$RP" info &&
	imgpatch info --json efi.img >info.json &&
	python3 -c "import json, sys
b = json.load(open(sys.argv[1]))[\"boot_path\"]
assert b[\"name\"] == \"efi\", b[\"name\"]
assert b[\"partition\"] == 1
assert sorted(t[\"path\"] for t in b[\"trees\"]) == [\"/dtb/$PP\", \"/dtb/$RP\"]" info.json
'

test_expect_success 'cat --dtb --model: the ESP'"'"'s file, by fdtfile'"'"'s name or the file name' '
	for m in $RP rk3399-rockpro64.dtb; do
		imgpatch cat efi.img --dtb --model $m >m.dts &&
		grep -q "^// boot path efi: /dtb/$RP" m.dts &&
		dtc -q -I dtb -O dts "$DTB_DIR/rk3399-rockpro64.dtb" >want.dts &&
		grep -v "^//" m.dts >got.dts && test_cmp want.dts got.dts || return 1
	done
'

# scan_dev_for_efi loads every prefix that has the file to ${fdt_addr_r}:
# the last one loaded stays.
test_expect_success 'a copy under /dtb/current/ (and one under /) replaces /dtb/'"'"'s' '
	cp efi.img cur.img &&
	cp "$DTB_DIR/rk3399-rockpro64.dtb" current.dtb && fdtput -t s current.dtb / imgpatch-test current &&
	cp "$DTB_DIR/rk3399-rockpro64.dtb" root.dtb && fdtput -t s root.dtb / imgpatch-test root &&
	mmd -i "$(esp cur.img)" ::/dtb/current ::/dtb/current/rockchip ::/rockchip &&
	mcopy -i "$(esp cur.img)" current.dtb ::/dtb/current/$RP &&
	mcopy -i "$(esp cur.img)" root.dtb ::/$RP &&
	imgpatch info cur.img >cur.info &&
	grep -x "  tree: /dtb/current/$RP" cur.info &&
	! grep -q "  tree: /$RP\$" cur.info &&
	! grep -q "  tree: /dtb/$RP\$" cur.info &&
	imgpatch cat cur.img --dtb --model $RP >cur.dts &&
	grep -q "imgpatch-test = \"current\"" cur.dts
'

test_expect_success '--via file writes the last prefix'"'"'s file; the others stay' '
	tree_of cur.img /dtb/$RP dtb.before && tree_of cur.img /$RP root.before &&
	imgpatch patch cur.img --via file --model $RP \
		--dt-set mmc@fe320000:max-frequency=50000000 >patch.log &&
	tree_of cur.img /dtb/current/$RP cur.after &&
	test "$(fdtget cur.after /mmc@fe320000 max-frequency)" = 50000000 &&
	test "$(fdtget -t s cur.after / imgpatch-test)" = current &&
	tree_of cur.img /dtb/$RP dtb.after && cmp dtb.before dtb.after &&
	tree_of cur.img /$RP root.after && cmp root.before root.after &&
	extract_part cur.img 1 cur.fat && fsck.fat -n cur.fat >/dev/null
'

test_expect_success 'by default a single tree file is edited in place (no overlay list)' '
	cp efi.img def.img &&
	imgpatch patch def.img --model $PP --dt-set mmc@1c0f000:max-frequency=25000000 >def.log &&
	grep -q "via file" def.log &&
	tree_of def.img /dtb/$PP pp.after &&
	test "$(fdtget pp.after /soc/mmc@1c0f000 max-frequency)" = 25000000
'

test_expect_success '--via overlay: refused (U-Boot'"'"'s EFI boot applies no overlay), image unchanged' '
	cp efi.img ovl.img &&
	test_must_fail imgpatch patch ovl.img --via overlay --model $RP \
		--dt-set mmc@fe320000:max-frequency=50000000 2>ovl.err &&
	grep -q "no overlay list.*applies no list of overlays imgpatch can add to: use --via file" ovl.err &&
	cmp efi.orig ovl.img
'

test_expect_success 'without --model and no U-Boot in the image: the trees are listed' '
	test_must_fail imgpatch patch efi.img --dt-set mmc@fe320000:max-frequency=1 2>nomodel.err &&
	grep -q "choose one with --model (have: /dtb/$PP, /dtb/$RP)" nomodel.err &&
	cmp efi.orig efi.img
'

test_expect_success 'cat --cmdline and info: the EFI loader'"'"'s, GRUB'"'"'s grub.cfg on the root (which the ESP'"'"'s stub loads)' '
	imgpatch cat efi.img --cmdline >cat.out &&
	head -1 cat.out | grep -x "# p2 (ext4): /boot/grub/grub.cfg, menuentry '"'"'Debian GNU/Linux'"'"', linux; also kept in p2 (ext4): /etc/default/grub, GRUB_CMDLINE_LINUX_DEFAULT= then GRUB_CMDLINE_LINUX; GRUB puts BOOT_IMAGE=<the kernel'"'"'s path> first, then the arguments after the kernel, one blank between words, its variables filled in" &&
	tail -1 cat.out >line && echo "root=UUID=$ROOT_UUID ro  quiet" >want && test_cmp want line &&
	grep -x "    kept in: p2 (ext4): /boot/grub/grub.cfg, menuentry '"'"'Debian GNU/Linux'"'"', linux; also kept in p2 (ext4): /etc/default/grub, GRUB_CMDLINE_LINUX_DEFAULT= then GRUB_CMDLINE_LINUX" info &&
	grep "^  updates: the EFI loader'"'"'s kernel command line (GRUB, p2): update-grub (grub-mkconfig) writes grub.cfg anew" info &&
	cmp efi.orig efi.img
'

test_expect_success 'patch --cmdline: grub.cfg'"'"'s linux line and GRUB_CMDLINE_LINUX of /etc/default/grub, the ESP untouched' '
	cp efi.img cl.img &&
	imgpatch patch cl.img --cmdline +console=ttyS2,1500000 >cl.log &&
	grep -q "makes this line anew from GRUB_CMDLINE_LINUX of /etc/default/grub (p2): edited there too" cl.log &&
	extract_part cl.img 2 cl.root && e2fsck -fn cl.root >/dev/null 2>&1 &&
	debugfs -R "cat /boot/grub/grub.cfg" cl.root 2>/dev/null >cl.cfg &&
	grep -x "	linux	/boot/vmlinuz-6.1.0-13-arm64 root=UUID=$ROOT_UUID ro  quiet console=ttyS2,1500000" cl.cfg &&
	debugfs -R "cat /etc/default/grub" cl.root 2>/dev/null >cl.default &&
	test "$(sh -c ". ./cl.default && printf %s \"\$GRUB_CMDLINE_LINUX\"")" = console=ttyS2,1500000 &&
	test "$(sh -c ". ./cl.default && printf %s \"\$GRUB_CMDLINE_LINUX_DEFAULT\"")" = quiet &&
	extract_part efi.img 1 esp.before && extract_part cl.img 1 esp.after && cmp esp.before esp.after &&
	imgpatch cat cl.img --cmdline | tail -1 >line &&
	echo "root=UUID=$ROOT_UUID ro  quiet console=ttyS2,1500000" >want && test_cmp want line
'

if command -v grub-script-check >/dev/null; then
	test_expect_success 'grub-script-check accepts the edited grub.cfg' '
		grub-script-check cl.cfg
	'
else
	test_skip_tool "grub-script-check accepts the edited grub.cfg" grub-script-check
fi

if [ -n "$RKDEB" ]; then
	test_expect_success 'with the ROCKPro64'"'"'s U-Boot: its fdtfile is the default tree' '
		mkdir -p deb/rk && dpkg-deb -x "$RKDEB" deb/rk &&
		"$FIXTURES/mkimage-efi.sh" rk.img --uboot="$PWD/deb/rk" &&
		imgpatch info rk.img >rk.info &&
		grep -q "the image'"'"'s U-Boot: fdtfile $RP -> /dtb/$RP (p1)$" rk.info &&
		imgpatch cat rk.img --dtb >rk.dts &&
		grep -q "^// boot path efi: /dtb/$RP" rk.dts &&
		imgpatch patch rk.img --dt-set mmc@fe320000:max-frequency=50000000 >rk.log &&
		tree_of rk.img /dtb/$RP rk.after &&
		test "$(fdtget rk.after /mmc@fe320000 max-frequency)" = 50000000
	'
else
	test_skip_tool 'with the ROCKPro64'"'"'s U-Boot: its fdtfile is the default tree' \
		u-boot-rockchip
fi

test_done
