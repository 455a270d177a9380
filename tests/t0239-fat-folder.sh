#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='a folder the distribution'"'"'s own tool makes, made on a FAT boot partition too (mmd), said in the plan'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs mkfs.vfat mcopy mdir mtype fsck.fat dtc fdtoverlay fdtget

export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
SET="mmc@1c0f000:max-frequency=<50000000>"

test_expect_success 'build: Armbian with a separate /boot on FAT (BOOTFS_TYPE=fat), no overlay-user folder as its build makes none' '
	mkdir symbols &&
	cp "$DTB_DIR"/*.dtb symbols/ &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" symbols/sun50i-a64-pinephone-1.2.dtb &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-armbian.sh" ext.img --bootfs &&
	extract_part ext.img 1 boot.ext4 &&
	mkdir bootfs &&
	debugfs -R "rdump / bootfs" boot.ext4 >/dev/null 2>&1 &&
	rm -rf bootfs/lost+found bootfs/overlay-user &&
	grep -q "user_overlays=" bootfs/armbianEnv.txt &&
	sed -i "/^user_overlays=/d" bootfs/armbianEnv.txt &&
	size=$(stat -c %s boot.ext4) &&
	mkfs.vfat -C -i 41524d42 -n armbi_boot boot.fat $((size / 1024)) >/dev/null &&
	mcopy -s -m -i boot.fat bootfs/* ::/ &&
	put_part ext.img 1 boot.fat &&
	cp ext.img fat.img &&
	imgpatch info fat.img >info &&
	grep "^boot path: U-Boot script /boot.scr (Armbian), fdtfile allwinner/sun50i-a64-pinephone-1.2.dtb, overlays: uart1 i2c0 (p1)$" info &&
	! mdir -i "fat.img@@$(part_offset fat.img 1)" ::/overlay-user >/dev/null 2>&1
'

test_expect_success 'dry run: the plan makes the folder, says why, and changes no byte' '
	sum=$(sum_file fat.img) &&
	imgpatch patch fat.img --dt-set "$SET" --dry-run >plan &&
	cat plan &&
	grep -x "p1 (vfat) /overlay-user: new folder" plan &&
	grep -x "    made as Armbian.s armbian-add-overlay makes it (mkdir -p /boot/overlay-user)" plan &&
	grep "^p1 (vfat) /overlay-user/imgpatch-[0-9a-f]*\.dtbo: new file" plan &&
	test_file_unchanged fat.img "$sum"
'

test_expect_success 'patch: mmd made the folder, the overlay is in it and in user_overlays, fsck.fat finds nothing' '
	imgpatch patch fat.img --dt-set "$SET" >out &&
	off=$(part_offset fat.img 1) &&
	mdir -i "fat.img@@$off" -a ::/ | grep -E "<DIR> .* overlay-user$" &&
	name=$(mdir -b -i "fat.img@@$off" ::/overlay-user | sed -n "s|^::/overlay-user/\(imgpatch-[0-9a-f]*\.dtbo\)$|\1|p") &&
	test -n "$name" &&
	mtype -i "fat.img@@$off" ::/armbianEnv.txt >env &&
	grep -x "user_overlays=${name%.dtbo}" env &&
	mcopy -n -i "fat.img@@$off" "::/overlay-user/$name" new.dtbo &&
	fdtoverlay -i symbols/sun50i-a64-pinephone-1.2.dtb -o applied.dtb new.dtbo &&
	test "$(fdtget applied.dtb /soc/mmc@1c0f000 max-frequency)" = 50000000 &&
	extract_part fat.img 1 after.fat &&
	fsck.fat -n after.fat >fsck.out 2>&1 || { cat fsck.out; false; }
'

test_expect_success 'the folder'"'"'s entry is dated SOURCE_DATE_EPOCH, as the files are' '
	mdir -i "fat.img@@$(part_offset fat.img 1)" -a ::/ | grep -E "<DIR> .* overlay-user$" >entry &&
	test -n "$SOURCE_DATE_EPOCH" &&
	date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d >day &&
	grep -q "$(cat day)" entry
'

test_expect_success 'a second patch writes into the folder that is there now, and undo gives the first image back' '
	cp fat.img twice.img &&
	imgpatch patch twice.img --dt-set "mmc@1c0f000:bus-width=<1>" >plan2 &&
	! grep -q "new folder" plan2 &&
	imgpatch undo twice.img >/dev/null && cmp fat.img twice.img &&
	imgpatch undo fat.img >/dev/null && cmp ext.img fat.img
'

test_done
