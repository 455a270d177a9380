#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='patch --dtb-out never replaces a file the board loads as something else (the FIT, the boot script, config.txt, cmdline.txt, a kernel, an initrd, extlinux.conf, an overlay, another tree), whatever its spelling (case, FAT short alias) and with --force too; a path naming a folder is refused up front; each refusal is one line naming image, partition and path, exit 1, the image byte-identical (cmp) and no staging file left (mdir); a new name still gets the tree (fdtget, dtc, fsck.fat, e2fsck)'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mcopy mdir mmd mtype mkimage dtc fdtget fsck.fat \
	mke2fs debugfs e2fsck

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
EDIT="--fdt $FDT --dt-delete mmc@ff170000:no-1-8-v"

# no_stage IMG: the FAT of IMG's first partition holds no staging file.
no_stage()
{
	local -; set +x
	local off

	off=$(part_offset "$1" 1) &&
	mdir -/ -a -i "$1@@$off" :: >listing &&
	! grep -i "imgpatch-stage\|IMGPAT~" listing
}

# refused IMG PATH WHY ARGS...: patch IMG ARGS --dtb-out PATH --force exits
# 1 with the one line "p1 (TYPE): PATH: WHY", IMG byte-identical, no stage file.
refused()
{
	local img=$1 path=$2 why=$3

	shift 3
	refused_intact "$img" 1 "imgpatch: $img: $why" \
		imgpatch patch "$img" "$@" --dtb-out "$path" --force &&
	{ [ "$img" = ext.img ] || no_stage "$img"; }
}

test_expect_success 'build the KV260, Raspberry Pi and extlinux images, a FIT on the last two' '
	"$FIXTURES/mkimage-kv260.sh" kv.img &&
	mmd -i "kv.img@@$(part_offset kv.img 1)" ::/my-long-folder &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	"$FIXTURES/mkimage-extlinux.sh" ext.img &&
	mtype -i "kv.img@@$(part_offset kv.img 1)" ::/image.fit >kv.fit &&
	mcopy -i "rpi.img@@$(part_offset rpi.img 1)" kv.fit ::/kv.fit &&
	extract_part ext.img 1 ext.p1 &&
	debugfs -w -R "write kv.fit /boot/kv.fit" ext.p1 &&
	put_part ext.img 1 ext.p1 &&
	test "$(stat -c %s kv.fit)" = 190748
'

test_expect_success 'KV260: the FIT the boot script loads is refused, with and without --force, by any case' '
	refused kv.img /image.fit "p1 (vfat): /image.fit: --dtb-out would replace the FIT the boot script loads" $EDIT &&
	refused_intact kv.img 1 "imgpatch: kv.img: p1 (vfat): /image.fit: --dtb-out would replace the FIT the boot script loads" \
		imgpatch patch kv.img $EDIT --dtb-out /image.fit &&
	refused kv.img /IMAGE.FIT "p1 (vfat): /IMAGE.FIT: --dtb-out would replace the FIT the boot script loads" $EDIT &&
	refused_intact kv.img 1 "imgpatch: kv.img: p1 (vfat): /image.fit: --dtb-out would replace the FIT the boot script loads" \
		imgpatch patch kv.img $EDIT --dtb-out /image.fit --dry-run
'

test_expect_success 'KV260: the boot script, by its name and by its FAT short alias, and the other script names' '
	refused kv.img /boot.scr.uimg "p1 (vfat): /boot.scr.uimg: --dtb-out would replace the boot script" $EDIT &&
	refused kv.img /BOOTSC~1.UIM "p1 (vfat): /BOOTSC~1.UIM: --dtb-out would replace a file that is no device tree" $EDIT &&
	refused kv.img /boot.scr "p1 (vfat): /boot.scr: --dtb-out would replace a file the script boot path loads (\*/boot.scr)" $EDIT &&
	refused kv.img /user.scr "p1 (vfat): /user.scr: --dtb-out would replace a file the script boot path loads (\*/user.scr)" $EDIT &&
	refused kv.img /extlinux/extlinux.conf "p1 (vfat): /extlinux/extlinux.conf: --dtb-out would replace a file the extlinux boot path loads (\*/extlinux.conf)" $EDIT
'

test_expect_success 'KV260: a folder or no file name is refused up front, --force or not (no staging file)' '
	refused kv.img /. "p1 (vfat): /\.: --dtb-out names a folder, not a file" $EDIT &&
	refused kv.img / "p1 (vfat): /: --dtb-out names a folder, not a file" $EDIT &&
	refused kv.img /x/ "p1 (vfat): /x/: --dtb-out names a folder, not a file" $EDIT &&
	refused kv.img /x/.. "p1 (vfat): /x/\.\.: --dtb-out names a folder, not a file" $EDIT &&
	refused kv.img /x/../image.fit "p1 (vfat): /x/\.\./image\.fit: --dtb-out is not a file name: a part of it is \"\.\.\"" $EDIT &&
	refused kv.img //x.dtb "p1 (vfat): //x\.dtb: --dtb-out is not a file name: an empty part (//)" $EDIT &&
	refused_intact kv.img 1 "imgpatch: kv.img: p1 (vfat): /\.: --dtb-out names a folder, not a file" \
		imgpatch patch kv.img $EDIT --dtb-out /.
'

test_expect_success 'KV260: a folder by its FAT short alias, and names FAT or mtools would not take as spelled' '
	refused kv.img /my-long-folder "p1 (vfat): /my-long-folder: --dtb-out names a folder, not a file" $EDIT &&
	refused kv.img /MY-LON~1 "p1 (vfat): /MY-LON~1: --dtb-out names a folder, not a file" $EDIT &&
	refused kv.img "/ima*" "p1 (vfat): /ima\*: --dtb-out is not a FAT file name: \"ima\*\" holds .\*." $EDIT &&
	refused kv.img "/image.f?t" "p1 (vfat): /image\.f?t: --dtb-out is not a FAT file name: \"image\.f?t\" holds .?." $EDIT &&
	refused kv.img "/[i]mage.dtb" "p1 (vfat): /\[i\]mage\.dtb: --dtb-out is not a FAT file name: \"\[i\]mage\.dtb\" holds .\[." $EDIT &&
	refused kv.img "/image.fit." "p1 (vfat): /image\.fit\.: --dtb-out is not a FAT file name: \"image\.fit\.\" ends in a dot, which FAT drops" $EDIT &&
	refused kv.img "/my-long-folder/x*/y.dtb" "p1 (vfat): /my-long-folder/x\*/y\.dtb: --dtb-out is not a FAT file name: \"x\*\" holds .\*." $EDIT
'

test_expect_success 'a recipe'"'"'s write-dtb step is held to the same: the FIT is refused, a new name written' '
	cat >over-fit.recipe <<-\EOD &&
	name = "over-fit"
	summary = "write the tree over the FIT"
	description = "A recipe that names the wrong file."
	source = "this test"
	risks = "the board no longer boots"
	undo = "none"
	step { action = "fdt-from-fit" fit = "/image.fit" fdt = "6" }
	step { action = "dt-delete-property" node = "mmc@ff170000" property = "no-1-8-v" }
	step { action = "write-dtb" path = "/image.fit" }
	EOD
	refused_intact kv.img 1 "imgpatch: kv.img: step 3 (write-dtb): p1 (vfat): /image.fit: the tree would replace the FIT the boot script loads" \
		imgpatch apply ./over-fit.recipe kv.img &&
	no_stage kv.img &&
	sed -e "s|path = \"/image.fit\"|path = \"/recipe-tree.dtb\"|" -e "s|\"over-fit\"|\"new-name\"|" over-fit.recipe >new-name.recipe &&
	cp kv.img recipe.img &&
	imgpatch apply ./new-name.recipe recipe.img &&
	mtype -i "recipe.img@@$(part_offset recipe.img 1)" ::/recipe-tree.dtb >recipe.dtb &&
	! fdtget -p recipe.dtb /axi/mmc@ff170000 | grep -x no-1-8-v
'

test_expect_success 'Raspberry Pi: config.txt, cmdline.txt, the kernel, the initramfs, an overlay, a tree, the FIT' '
	F="--fit /kv.fit $EDIT" &&
	refused rpi.img /config.txt "p1 (vfat): /config.txt: --dtb-out would replace a file the rpi boot path loads (\*/config.txt)" $F &&
	refused rpi.img /Config.TXT "p1 (vfat): /Config.TXT: --dtb-out would replace a file the rpi boot path loads (\*/config.txt)" $F &&
	refused rpi.img /cmdline.txt "p1 (vfat): /cmdline.txt: --dtb-out would replace the file the boot path reads the kernel command line from" $F &&
	refused rpi.img /kernel8.img "p1 (vfat): /kernel8.img: --dtb-out would replace a file the rpi boot path loads (\*/kernel\*.img)" $F &&
	refused rpi.img /initramfs8 "p1 (vfat): /initramfs8: --dtb-out would replace a file the rpi boot path loads (\*/initramfs\*)" $F &&
	refused rpi.img /overlays/vc4-kms-v3d.dtbo "p1 (vfat): /overlays/vc4-kms-v3d.dtbo: --dtb-out would replace an overlay the boot path applies to /bcm2711-rpi-4-b.dtb" $F &&
	refused rpi.img /bcm2711-rpi-4-b.dtb "p1 (vfat): /bcm2711-rpi-4-b.dtb: --dtb-out would replace a tree the boot path boots for pi4" $F &&
	refused rpi.img /kv.fit "p1 (vfat): /kv.fit: --dtb-out would replace the FIT the tree comes from" $F &&
	refused rpi.img /overlays "p1 (vfat): /overlays: --dtb-out names a folder, not a file" $F &&
	refused rpi.img /OVERLAYS "p1 (vfat): /OVERLAYS: --dtb-out names a folder, not a file" $F
'

test_expect_success 'extlinux: extlinux.conf, the kernel, the initrd, a tree, a folder, a file that is no tree' '
	F="--fit /boot/kv.fit $EDIT" &&
	refused ext.img /boot/extlinux/extlinux.conf "p1 (ext4): /boot/extlinux/extlinux.conf: --dtb-out would replace a file the extlinux boot path loads (\*/extlinux.conf)" $F &&
	refused ext.img /boot/vmlinuz-6.1.0-13-arm64 "p1 (ext4): /boot/vmlinuz-6.1.0-13-arm64: --dtb-out would replace a file the extlinux boot path loads (\*/vmlinuz\*)" $F &&
	refused ext.img /boot/initrd.img-6.1.0-13-arm64 "p1 (ext4): /boot/initrd.img-6.1.0-13-arm64: --dtb-out would replace a file the extlinux boot path loads (\*/initrd.img\*)" $F &&
	T=/usr/lib/linux-image-6.1.0-13-arm64/rockchip/rk3399-rockpro64.dtb &&
	refused ext.img $T "p1 (ext4): $T: --dtb-out would replace a tree the boot path boots" $F &&
	refused ext.img /boot/extlinux "p1 (ext4): /boot/extlinux: --dtb-out names a folder, not a file" $F &&
	refused ext.img /etc/fstab "p1 (ext4): /etc/fstab: --dtb-out would replace a file that is no device tree" $F
'

test_expect_success 'KV260: a new name still gets the tree with --force (fdtget, dtc, fsck.fat, no staging file)' '
	cp kv.img new.img &&
	imgpatch patch new.img $EDIT --dtb-out /my-tree.dtb --force >out 2>err &&
	grep "writing /my-tree.dtb anyway" err &&
	off=$(part_offset new.img 1) &&
	mtype -i "new.img@@$off" ::/my-tree.dtb >tree.dtb &&
	dtc -q -I dtb -O dts tree.dtb >tree.dts &&
	fdtget tree.dtb /axi/mmc@ff170000 compatible &&
	! fdtget -p tree.dtb /axi/mmc@ff170000 | grep -x no-1-8-v &&
	mtype -i "new.img@@$off" ::/image.fit | cmp - kv.fit &&
	no_stage new.img &&
	extract_part new.img 1 new.p1 && fsck.fat -n new.p1
'

test_expect_success 'KV260: a broken user-override.dtb the script loads is still replaced by the tree' '
	cp kv.img hook.img &&
	printf "not a tree\n" >broken &&
	mcopy -i "hook.img@@$(part_offset hook.img 1)" broken ::/user-override.dtb &&
	imgpatch patch hook.img $EDIT >out &&
	mtype -i "hook.img@@$(part_offset hook.img 1)" ::/user-override.dtb >hook.dtb &&
	! fdtget -p hook.dtb /axi/mmc@ff170000 | grep -x no-1-8-v &&
	no_stage hook.img
'

test_expect_success 'Raspberry Pi and extlinux: a new name gets the tree (fdtget, e2fsck)' '
	cp rpi.img newpi.img &&
	imgpatch patch newpi.img --fit /kv.fit $EDIT --dtb-out /kv-tree.dtb --force &&
	mtype -i "newpi.img@@$(part_offset newpi.img 1)" ::/kv-tree.dtb >pi.dtb &&
	! fdtget -p pi.dtb /axi/mmc@ff170000 | grep -x no-1-8-v &&
	no_stage newpi.img &&
	cp ext.img newext.img &&
	imgpatch patch newext.img --fit /boot/kv.fit $EDIT --dtb-out /boot/kv-tree.dtb --force &&
	extract_part newext.img 1 newext.p1 && e2fsck -fn newext.p1 &&
	debugfs -R "dump /boot/kv-tree.dtb ext.dtb" newext.p1 &&
	fdtget ext.dtb /axi/mmc@ff170000 compatible &&
	! fdtget -p ext.dtb /axi/mmc@ff170000 | grep -x no-1-8-v
'

test_done
