#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='the postmarketOS and Raspberry Pi OS fixtures and the KV260 golden overlay, checked with independent tools only'
. "$(dirname "$0")/lib.sh"
. "$FIXTURES/lib-fixture.sh"

test_require_tools sfdisk fsck.fat mdir mtype mcopy dumpimage e2fsck \
	debugfs dumpe2fs fdtget dtc fdtoverlay blkid gzip xxd cmp

# script_text SCR OUT: the script inside a single-script U-Boot image; the
# payload after the 64-byte header starts with a table of image lengths
# that ends in a zero word.
script_text()
{
	test "$(dd if="$1" bs=4 skip=16 count=2 status=none | xxd -p)" = \
		"$(printf "%08x00000000" $(($(stat -c %s "$1") - 72)))" &&
	tail -c +73 "$1" >"$2"
}

# ext_dirs_empty FS DIR...: succeeds when each DIR of the ext filesystem FS
# holds nothing but "." and "..".
ext_dirs_empty()
{
	local -; set +x
	local fs=$1 dir

	shift
	for dir in "$@"; do
		test "$(ext_ls "$fs" "$dir" | tr '\n' ' ')" = ". .. " ||
			{ echo "ext_dirs_empty: '$dir' in '$fs' is not empty" >&2; return 1; }
	done
}

# ------------------------------------------------------ postmarketOS (PinePhone)

test_expect_success 'build the postmarketOS image' '
	"$FIXTURES/mkimage-pmos.sh" pmos.img &&
	test "$(stat -c %s pmos.img)" = $((133120 * 512))
'

test_expect_success 'pmOS: sfdisk sees a dos label, boot flagged bootable' '
	sfdisk_dump_is pmos.img dos 0x706d4f53 <<-\EOF &&
	pmos.img1 : start=        2048, size=       65536, type=83, bootable
	pmos.img2 : start=       67584, size=       65536, type=83
	EOF
	blkid -p -o export pmos.img >blkid &&
	grep -x PTTYPE=dos blkid &&
	grep -x PTUUID=706d4f53 blkid
'

test_expect_success 'pmOS: the boot loader stand-in sits at 8 KiB, before p1' '
	cmp -n $((8192 - 512)) -i 512:0 pmos.img /dev/zero &&
	dd if=pmos.img bs=4 skip=2048 count=3 status=none | xxd -p >magic &&
	echo 160000ea65474f4e2e425430 >expect &&
	test_cmp expect magic &&
	dd if=pmos.img bs=512 skip=16 count=64 status=none | sha256sum >sum &&
	grep -q "^5266d40e825b6dda0798958b48bccc9b8d36c8cbc3d246116491caa9db07ea99 " sum &&
	cmp -n $((2048 * 512 - 40960)) -i 40960:0 pmos.img /dev/zero &&
	test "$(part_offset pmos.img 1)" -ge 40960
'

test_expect_success 'pmOS: p1 is a clean ext2 labelled pmOS_boot' '
	part_fs_is pmos.img 1 boot.ext2 TYPE=ext2 LABEL=pmOS_boot \
		UUID=706d4f53-626f-6f74-0000-000000000001
'

test_expect_success 'pmOS: pmOS_boot holds the boot files and the allwinner link' '
	ext_ls boot.ext2 / >actual &&
	cat >expect <<-\EOF &&
	.
	..
	lost+found
	allwinner
	boot.scr
	initramfs
	initramfs-extra
	sun50i-a64-pinephone-1.2.dtb
	sun50i-a64-psci.dtbo
	vmlinuz
	EOF
	test_cmp expect actual &&
	debugfs -R "stat /allwinner" boot.ext2 2>/dev/null >stat &&
	grep -q "Type: symlink" stat &&
	grep -q "Fast link dest: \"..\"" stat
'

test_expect_success 'pmOS: the tree is Debian'\''s PinePhone 1.2 tree, without __symbols__' '
	debugfs -R "dump /sun50i-a64-pinephone-1.2.dtb pp.dtb" boot.ext2 2>/dev/null &&
	cmp pp.dtb "$DTB_DIR/sun50i-a64-pinephone-1.2.dtb" &&
	test "$(fdtget pp.dtb / model)" = "Pine64 PinePhone (1.2)" &&
	fdtget -l pp.dtb / >nodes &&
	! grep -x __symbols__ nodes &&
	debugfs -R "dump /allwinner/sun50i-a64-pinephone-1.2.dtb via-link.dtb" \
		boot.ext2 2>/dev/null &&
	cmp pp.dtb via-link.dtb
'

test_expect_success 'pmOS: vmlinuz has the arm64 Image magic, the initramfs are gzip' '
	debugfs -R "dump /vmlinuz vmlinuz" boot.ext2 2>/dev/null &&
	test "$(stat -c %s vmlinuz)" = 16384 &&
	test "$(dd if=vmlinuz bs=1 skip=56 count=4 status=none)" = ARMd &&
	debugfs -R "dump /initramfs initramfs" boot.ext2 2>/dev/null &&
	gzip -t <initramfs &&
	debugfs -R "dump /initramfs-extra initramfs-extra" boot.ext2 2>/dev/null &&
	gzip -t <initramfs-extra
'

test_expect_success 'pmOS: boot.scr is pmOS'\''s script image' '
	debugfs -R "dump /boot.scr boot.scr" boot.ext2 2>/dev/null &&
	dumpimage -l boot.scr >list &&
	grep -q "^Image Name:   postmarketos$" list &&
	grep -q "^Image Type:   ARM Linux Script (uncompressed)$" list &&
	script_text boot.scr boot.cmd &&
	grep -qx "load mmc \${mmc_bootdev}:1 \${fdt_addr_r} \${fdtfile}" boot.cmd &&
	grep -qx "load mmc \${mmc_bootdev}:1 \${kernel_addr_r} vmlinuz" boot.cmd &&
	grep -qx "booti \${kernel_addr_r} \${ramdisk_addr_r}:\${ramdisk_size} \${fdt_addr_r}" boot.cmd
'

test_expect_success 'pmOS: boot.scr applies the PSCI overlay pmaports installs, after "fdt resize 2048"' '
	grep -qx "fdt resize 2048" boot.cmd &&
	grep -qx "if test \${iscpscienabled} -eq 1; then" boot.cmd &&
	grep -qx "	load mmc \${mmc_bootdev}:1 \${fdtoverlay_addr_r} sun50i-a64-psci.dtbo" boot.cmd &&
	grep -qx "	fdt apply \${fdtoverlay_addr_r}" boot.cmd &&
	debugfs -R "dump /sun50i-a64-psci.dtbo psci.dtbo" boot.ext2 2>/dev/null &&
	test "$(fdtget psci.dtbo /fragment@0 target-path)" = /cpus &&
	fdtget -l psci.dtbo /fragment@0/__overlay__/idle-states >states &&
	printf "cpu-sleep\ncluster-sleep\n" >expect &&
	test_cmp expect states
'

test_expect_success 'pmOS: user.scr is sourced after "fdt addr", before booti' '
	fdt=$(grep -n "^fdt addr \${fdt_addr_r}$" boot.cmd | cut -d: -f1) &&
	load=$(grep -n "^load mmc \${mmc_bootdev}:1 \${user_scriptaddr} user.scr$" boot.cmd | cut -d: -f1) &&
	src=$(grep -n "^if test \$? -eq 0; then source \${user_scriptaddr}; " boot.cmd | cut -d: -f1) &&
	boot=$(grep -n "^booti " boot.cmd | cut -d: -f1) &&
	test "$fdt" -lt "$load" &&
	test "$load" -lt "$src" &&
	test "$src" -lt "$boot"
'

test_expect_success 'pmOS: p2 is a clean ext4 labelled pmOS_root, no metadata_csum' '
	part_fs_is pmos.img 2 root.ext4 TYPE=ext4 LABEL=pmOS_root \
		UUID=706d4f53-726f-6f74-0000-000000000002 &&
	dumpe2fs -h root.ext4 2>/dev/null | grep "^Filesystem features:" >features &&
	grep -q " extent" features &&
	! grep -q metadata_csum features
'

test_expect_success 'pmOS: fstab is pmbootstrap'\''s and names both filesystems by UUID' '
	ext_cat root.ext4 /etc/fstab >actual &&
	cat >expect <<-\EOF &&
	# <file system> <mount point> <type> <options> <dump> <pass>
	UUID=706d4f53-726f-6f74-0000-000000000002 / ext4 defaults 0 0
	UUID=706d4f53-626f-6f74-0000-000000000001 /boot ext2 defaults 0 0
	EOF
	test_cmp expect actual &&
	root_uuid=$(blkid -p -s UUID -o value root.ext4) &&
	boot_uuid=$(blkid -p -s UUID -o value boot.ext2) &&
	grep -q "^UUID=$root_uuid / " actual &&
	grep -q "^UUID=$boot_uuid /boot " actual
'

test_expect_success 'pmOS: fstrim.timer exists, timers.target.wants is empty' '
	ext_cat root.ext4 /lib/systemd/system/fstrim.timer >timer &&
	grep -qx "WantedBy=timers.target" timer &&
	ext_dirs_empty root.ext4 /etc/systemd/system/timers.target.wants /boot
'

test_expect_success 'pmOS: --no-user-scr-hook leaves user.scr out of boot.cmd' '
	"$FIXTURES/mkimage-pmos.sh" nohook.img --no-user-scr-hook &&
	part_fs_is nohook.img 1 nohook.ext2 TYPE=ext2 LABEL=pmOS_boot &&
	debugfs -R "dump /boot.scr nohook.scr" nohook.ext2 2>/dev/null &&
	dumpimage -l nohook.scr >/dev/null &&
	script_text nohook.scr nohook.cmd &&
	! grep -q user nohook.cmd &&
	grep -q "^booti " nohook.cmd &&
	grep -v -e "user" -e "^$" boot.cmd >with &&
	grep -v -e "^$" nohook.cmd >without &&
	test_cmp with without
'

test_expect_success 'the postmarketOS image is reproducible' '
	"$FIXTURES/mkimage-pmos.sh" again.img &&
	test "$(sum_file pmos.img)" = "$(sum_file again.img)" &&
	test "$(sum_file pmos.img)" != "$(sum_file nohook.img)"
'

# ------------------------------------------------------ Raspberry Pi OS

test_expect_success 'build the Raspberry Pi OS image' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	test "$(stat -c %s rpi.img)" = $((204800 * 512))
'

test_expect_success 'RPi: sfdisk sees bootfs at 8192 and rootfs on 4 MiB' '
	sfdisk_dump_is rpi.img dos 0x52506934 <<-\EOF
	rpi.img1 : start=        8192, size=      131072, type=c
	rpi.img2 : start=      139264, size=       65536, type=83
	EOF
'

test_expect_success 'RPi: p1 is a clean FAT32 labelled bootfs' '
	part_fs_is rpi.img 1 bootfs.fat TYPE=vfat VERSION=FAT32 LABEL=bootfs \
		UUID=5250-6934
'

test_expect_success 'RPi: mdir lists the firmware files and overlays/' '
	fat_ls rpi.img 1 >actual &&
	cat >expect <<-\EOF &&
	::/config.txt
	::/cmdline.txt
	::/kernel8.img
	::/initramfs8
	::/bcm2711-rpi-4-b.dtb
	::/bcm2712-rpi-5-b.dtb
	::/overlays/
	EOF
	test_cmp expect actual &&
	fat_ls rpi.img 1 overlays >actual &&
	echo ::/overlays/vc4-kms-v3d.dtbo >expect &&
	test_cmp expect actual
'

test_expect_success 'RPi: config.txt is bookworm'\''s' '
	mtype -i "$(part_mtools rpi.img 1)" ::config.txt >config.txt &&
	grep -v -e "^#" -e "^$" config.txt >actual &&
	cat >expect <<-\EOF &&
	dtparam=audio=on
	camera_auto_detect=1
	display_auto_detect=1
	auto_initramfs=1
	dtoverlay=vc4-kms-v3d
	max_framebuffers=2
	disable_fw_kms_setup=1
	arm_64bit=1
	disable_overscan=1
	arm_boost=1
	[cm4]
	otg_mode=1
	[cm5]
	dtoverlay=dwc2,dr_mode=host
	[all]
	EOF
	test_cmp expect actual &&
	head -n 2 config.txt >actual &&
	printf "%s\n" "# For more options and information see" \
		"# http://rptl.io/configtxt" >expect &&
	test_cmp expect actual
'

test_expect_success 'RPi: cmdline.txt is one line naming rootfs by PARTUUID' '
	mtype -i "$(part_mtools rpi.img 1)" ::cmdline.txt >actual &&
	test "$(wc -l <actual)" = 1 &&
	echo "console=serial0,115200 console=tty1 root=PARTUUID=52506934-02 rootfstype=ext4 fsck.repair=yes rootwait quiet init=/usr/lib/raspberrypi-sys-mods/firstboot" >expect &&
	test_cmp expect actual &&
	ptuuid=$(blkid -p -s PTUUID -o value rpi.img) &&
	grep -q "root=PARTUUID=$ptuuid-02 " actual
'

test_expect_success 'RPi: kernel8.img has the arm64 Image magic, initramfs8 is gzip' '
	mcopy -i "$(part_mtools rpi.img 1)" ::kernel8.img ::initramfs8 . &&
	test "$(stat -c %s kernel8.img)" = 16384 &&
	test "$(dd if=kernel8.img bs=1 skip=56 count=4 status=none)" = ARMd &&
	gzip -t <initramfs8
'

test_expect_success 'RPi: the Pi 4 tree is Debian'\''s, the Pi 5 stand-in has __symbols__' '
	mcopy -i "$(part_mtools rpi.img 1)" ::bcm2711-rpi-4-b.dtb \
		::bcm2712-rpi-5-b.dtb ::overlays/vc4-kms-v3d.dtbo . &&
	cmp bcm2711-rpi-4-b.dtb "$DTB_DIR/bcm2711-rpi-4-b.dtb" &&
	test "$(fdtget bcm2711-rpi-4-b.dtb / model)" = "Raspberry Pi 4 Model B" &&
	test "$(fdtget bcm2711-rpi-4-b.dtb / compatible)" = "raspberrypi,4-model-b brcm,bcm2711" &&
	test "$(fdtget bcm2712-rpi-5-b.dtb / compatible)" = "raspberrypi,5-model-b brcm,bcm2712" &&
	test "$(fdtget bcm2712-rpi-5-b.dtb /__symbols__ v3d)" = /soc@107c000000/v3d@2000000
'

test_expect_success 'RPi: overlays/vc4-kms-v3d.dtbo applies to the Pi 5 stand-in' '
	test "$(fdtget bcm2712-rpi-5-b.dtb /soc@107c000000/v3d@2000000 status)" = disabled &&
	fdtoverlay -i bcm2712-rpi-5-b.dtb -o pi5-v3d.dtb vc4-kms-v3d.dtbo &&
	test "$(fdtget pi5-v3d.dtb /soc@107c000000/v3d@2000000 status)" = okay
'

test_expect_success 'RPi: p2 is a clean ext4 labelled rootfs, without 64bit or huge_file' '
	part_fs_is rpi.img 2 rootfs.ext4 TYPE=ext4 LABEL=rootfs &&
	dumpe2fs -h rootfs.ext4 2>/dev/null | grep "^Filesystem features:" >features &&
	grep -q " extent" features &&
	! grep -q -e 64bit -e huge_file features
'

test_expect_success 'RPi: fstab is pi-gen'\''s, with the disk id in both PARTUUIDs' '
	ext_cat rootfs.ext4 /etc/fstab >actual &&
	cat >expect <<-\EOF &&
	proc            /proc           proc    defaults          0       0
	PARTUUID=52506934-01  /boot/firmware  vfat    defaults          0       2
	PARTUUID=52506934-02  /               ext4    defaults,noatime  0       1
	EOF
	test_cmp expect actual &&
	ptuuid=$(blkid -p -s PTUUID -o value rpi.img) &&
	grep -q "^PARTUUID=$ptuuid-01 " actual &&
	grep -q "^PARTUUID=$ptuuid-02 " actual
'

test_expect_success 'RPi: fstrim.timer exists, timers.target.wants and /boot/firmware are empty' '
	ext_cat rootfs.ext4 /lib/systemd/system/fstrim.timer >timer &&
	grep -qx "WantedBy=timers.target" timer &&
	ext_dirs_empty rootfs.ext4 /etc/systemd/system/timers.target.wants \
		/boot/firmware
'

test_expect_success 'the Raspberry Pi OS image is reproducible' '
	"$FIXTURES/mkimage-rpi.sh" again-rpi.img &&
	test "$(sum_file rpi.img)" = "$(sum_file again-rpi.img)"
'

test_expect_success 'RPi --trixie: pi-gen'"'"'s config.txt, cmdline.txt and NoCloud seed on bootfs, reproducible' '
	"$FIXTURES/mkimage-rpi.sh" tx.img --trixie &&
	extract_part tx.img 1 tx.fat && fsck.fat -n tx.fat >/dev/null &&
	for f in config.txt user-data meta-data network-config; do
		mtype -i "$(part_mtools tx.img 1)" ::$f >$f.tx &&
		test_cmp "$FIXTURES/pi-gen-trixie/$f" $f.tx || return 1
	done &&
	echo "console=serial0,115200 console=tty1 root=PARTUUID=52506934-02 rootfstype=ext4 fsck.repair=yes rootwait resize" >expect &&
	mtype -i "$(part_mtools tx.img 1)" ::cmdline.txt >actual && test_cmp expect actual &&
	"$FIXTURES/mkimage-rpi.sh" again-tx.img --trixie &&
	test "$(sum_file tx.img)" = "$(sum_file again-tx.img)"
'

# ------------------------------------------------------ device trees

test_expect_success 'U-Boot'\''s PinePhone tree has __symbols__, the kernel'\''s has none' '
	ub="$DTB_DIR/u-boot-sunxi-pinephone.dtb" &&
	test "$(fdtget "$ub" / model)" = "Pine64 PinePhone (1.2)" &&
	test "$(fdtget "$ub" / compatible)" = "pine64,pinephone-1.2 pine64,pinephone allwinner,sun50i-a64" &&
	test "$(fdtget "$ub" /__symbols__ mmc0)" = /soc/mmc@1c0f000 &&
	test_must_fail fdtget "$DTB_DIR/sun50i-a64-pinephone-1.2.dtb" /__symbols__ mmc0
'

test_expect_success 'the KV260 carrier overlay source is preprocessed' '
	dtso="$TEST_DIR/dts/zynqmp-sck-kv-g-revB.dtso" &&
	head -n 1 "$dtso" >actual &&
	echo "// SPDX-License-Identifier: GPL-2.0" >expect &&
	test_cmp expect actual &&
	! grep -q "^#include" "$dtso" &&
	! grep -q -e GPIO_ACTIVE_HIGH -e PHY_TYPE_ -e DP83867_ "$dtso" &&
	grep -qx "/plugin/;" "$dtso"
'

# Kbuild compiles the overlay without -@ (only base trees get it) and merges
# with fdtoverlay: smk-k26-revA-sm-k26-revA-sck-kv-g-revB-dtbs :=
# zynqmp-smk-k26-revA.dtb zynqmp-sck-kv-g-revB.dtbo.
test_expect_success 'golden: the overlay on the SMK-K26 tree gives Debian'\''s KV260 revB tree' '
	dtc -I dts -O dtb -o kv-g-revB.dtbo "$TEST_DIR/dts/zynqmp-sck-kv-g-revB.dtso" 2>dtc.err &&
	! test -s dtc.err &&
	test "$(fdtget -l kv-g-revB.dtbo / | grep -c fragment@)" -gt 0 &&
	fdtoverlay -i "$DTB_DIR/zynqmp-smk-k26-revA.dtb" -o merged.dtb kv-g-revB.dtbo &&
	cmp merged.dtb "$DTB_DIR/smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb"
'

test_expect_success 'golden: the same overlay on the SM-K26 tree gives Debian'\''s tree too' '
	fdtoverlay -i "$DTB_DIR/zynqmp-sm-k26-revA.dtb" -o merged-sm.dtb kv-g-revB.dtbo &&
	cmp merged-sm.dtb "$DTB_DIR/sm-k26-revA-sck-kv-g-revB.dtb"
'

test_expect_success 'golden: an overlay built with -@ adds its labels, so it differs' '
	dtc -@ -I dts -O dtb -o kv-g-revB-at.dtbo "$TEST_DIR/dts/zynqmp-sck-kv-g-revB.dtso" &&
	fdtoverlay -i "$DTB_DIR/zynqmp-smk-k26-revA.dtb" -o merged-at.dtb kv-g-revB-at.dtbo &&
	test_must_fail cmp -s merged-at.dtb merged.dtb &&
	test "$(fdtget merged-at.dtb /__symbols__ si5332_0)" = /axi/si5332_0 &&
	test_must_fail fdtget merged.dtb /__symbols__ si5332_0 &&
	test "$(fdtget -p merged-at.dtb /axi/mmc@ff170000 | grep -c no-1-8-v)" = 1
'

test_done
