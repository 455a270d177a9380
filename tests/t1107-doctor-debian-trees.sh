#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='doctor on two Debian trees: a Wi-Fi slot with broken-cd is SDIO; an eMMC on a host without HS200 gets no HS200 hint'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools python3 sfdisk mkfs.vfat mcopy mtype mke2fs fdtget fdtput fdtoverlay

JETHUB=meson-axg-jethome-jethub-j110-rev-2.dtb
MBA6=imx6dl-mba6a.dtb
WIFI=/soc/bus@ffe00000/sd@5000
EMMC=/soc/bus@2100000/mmc@2198000

# make_card OUT DTB: a card booted through extlinux.conf (FDT /NAME of DTB)
# on a FAT boot partition holding DTB, and an ext4 root with an fstab.
make_card()
{
	local out=$1 dtb=$2 dir=card.$1

	rm -rf "$dir" && mkdir -p "$dir/boot/extlinux" "$dir/root/etc" &&
	cp "$dtb" "$dir/boot/" &&
	printf "LABEL debian\n  KERNEL /vmlinuz\n  FDT /%s\n" "${dtb##*/}" \
		>"$dir/boot/extlinux/extlinux.conf" &&
	printf "LABEL=root / ext4 defaults,noatime 0 1\n" >"$dir/root/etc/fstab" &&
	truncate -s 40M "$out" &&
	printf "label: dos\nstart=2048, size=32768, type=c\nstart=34816, type=83\n" |
		sfdisk -q "$out" &&
	mkfs.vfat -C "$dir/boot.fat" 16384 >/dev/null &&
	mcopy -s -i "$dir/boot.fat" "$dir"/boot/* :: &&
	mke2fs -q -F -t ext4 -L root -d "$dir/root" "$dir/root.ext4" 20M &&
	dd if="$dir/boot.fat" of="$out" bs=512 seek=2048 conv=notrunc status=none &&
	dd if="$dir/root.ext4" of="$out" bs=512 seek=34816 conv=notrunc status=none
}

# doctor_list IMG: imgpatch doctor --json of IMG, one line per finding
# ("id severity file node property"), into IMG.list; fails when IMG changed.
doctor_list()
{
	local -; set +x
	local img=$1 sum

	sum=$(sum_file "$img") &&
		imgpatch doctor "$img" --json >"$img.json" &&
		test_file_unchanged "$img" "$sum" &&
		python3 - "$img.json" >"$img.list" <<-\EOF
		import json, sys
		for f in json.load(open(sys.argv[1]))["findings"]:
		    e = f["evidence"]
		    print(" ".join("-" if v is None else str(v) for v in
		                   (f["id"], f["severity"], e["file"], e["node"], e["property"])))
		EOF
}


test_expect_success 'the JetHub tree: sd@5000 is a Wi-Fi slot that also says broken-cd' '
	seq=$(fdtget -t u "$DTB_DIR/$JETHUB" $WIFI mmc-pwrseq) &&
	test "$(fdtget -t s "$DTB_DIR/$JETHUB" /sdio-pwrseq compatible)" = mmc-pwrseq-simple &&
	test "$(fdtget -t u "$DTB_DIR/$JETHUB" /sdio-pwrseq phandle)" = "$seq" &&
	fdtget -p "$DTB_DIR/$JETHUB" $WIFI >props &&
	grep -x broken-cd props &&
	! grep -x -e non-removable -e cd-gpios props
'

test_expect_success 'doctor: no broken-cd, nor any finding, for the Wi-Fi slot' '
	make_card jethub.img "$DTB_DIR/$JETHUB" &&
	doctor_list jethub.img &&
	cat jethub.img.list &&
	! grep " $WIFI " jethub.img.list &&
	imgpatch doctor jethub.img >text &&
	! grep "sd@5000" text
'

test_expect_success 'without its power sequence the same slot is an SD slot that polls' '
	cp "$DTB_DIR/$JETHUB" noseq.dtb &&
	fdtput -d noseq.dtb $WIFI mmc-pwrseq &&
	make_card noseq.img noseq.dtb &&
	doctor_list noseq.img &&
	grep -x "broken-cd info /noseq.dtb $WIFI broken-cd" noseq.img.list
'

test_expect_success 'the TQMa6DL tree: mmc@2198000 is an 8-bit eMMC on fsl,imx6q-usdhc' '
	test "$(fdtget -t s "$DTB_DIR/$MBA6" $EMMC compatible)" = fsl,imx6q-usdhc &&
	test "$(fdtget -t u "$DTB_DIR/$MBA6" $EMMC bus-width)" = 8 &&
	fdtget -p "$DTB_DIR/$MBA6" $EMMC >props &&
	grep -x no-sd props && grep -x no-sdio props &&
	! grep -x -e mmc-hs200-1_8v -e mmc-hs400-1_8v -e no-1-8-v props &&
	test "$(fdtget -t s "$DTB_DIR/$MBA6" $EMMC/mmccard@0 compatible)" = mmc-card
'

# Linux's sdhci-esdhc-imx.c gives usdhc_imx6q_data no ESDHC_FLAG_HS200 and
# sets SDHCI_QUIRK2_BROKEN_HS200: adding mmc-hs200-1_8v there would not help.
test_expect_success 'doctor: no emmc-hs200-missing on a host without HS200; the SD slot is judged' '
	make_card mba6.img "$DTB_DIR/$MBA6" &&
	doctor_list mba6.img &&
	cat mba6.img.list &&
	! grep " $EMMC " mba6.img.list &&
	grep -x "uhs-blocked warning /$MBA6 /soc/bus@2100000/mmc@2194000 no-1-8-v" mba6.img.list
'

test_expect_success 'on an HS200 host the same eMMC gets emmc-hs200-missing; its hint, applied, clears it' '
	cp "$DTB_DIR/$MBA6" hs200.dtb &&
	fdtput -t s hs200.dtb $EMMC compatible fsl,imx6sl-usdhc &&
	make_card hs200.img hs200.dtb &&
	doctor_list hs200.img &&
	grep -x "emmc-hs200-missing info /hs200.dtb $EMMC -" hs200.img.list &&
	imgpatch patch hs200.img --dt-set "$EMMC:mmc-hs200-1_8v=" >/dev/null &&
	mtype -i "$(part_mtools hs200.img 1)" ::/extlinux/extlinux.conf >conf &&
	dtbo=$(sed -n "s|^  fdtoverlays /||p" conf) &&
	mcopy -i "$(part_mtools hs200.img 1)" "::/$dtbo" new.dtbo &&
	fdtoverlay -i hs200.dtb -o merged.dtb new.dtbo &&
	fdtget -p merged.dtb $EMMC | grep -x mmc-hs200-1_8v &&
	doctor_list hs200.img &&
	! grep " $EMMC " hs200.img.list
'

test_done
