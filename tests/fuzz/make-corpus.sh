#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make-corpus.sh OUTDIR
#
# Writes the seed corpora of the libFuzzer harnesses into OUTDIR/<area>/
# (part, fit, dtb, bootscr, fstab, recipe, xz, fat, ext, rpi-overlay, overlay,
# bootpath, uboot-env).
# The seeds come from the test fixtures (tests/fixtures/mkimage-*.sh,
# tests/dtb, tests/dts/rpi, the shipped recipes and
# the recipes in tests/t1000-recipes.sh), cut down where the fixture is
# large, plus small hand-made inputs that reach the same code faster. Made
# at test time like every fixture; nothing here is checked in.

set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
fixtures=$top/tests/fixtures

export TZ=UTC LC_ALL=C SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
export E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
export PATH=$PATH:/usr/sbin:/sbin
umask 022

for tool in sfdisk mkfs.vfat mcopy mke2fs debugfs mkimage mkenvimage dtc; do
	command -v "$tool" >/dev/null ||
		{ echo "$0: '$tool' not found (run ci/install-deps.sh)" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/imgp-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"/{part,fit,dtb,bootscr,fstab,recipe,xz,fat,ext,rpi-overlay,overlay,bootpath,uboot-env}

# Runs a tool whose warnings about our deliberately odd inputs (a lower-case
# FAT label, an old-style "hash@2" node) are noise; shows them on failure.
quiet()
{
	"$@" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; return 1; }
}

# ------------------------------------------------------------------ images

"$fixtures/mkimage-kv260.sh" "$tmp/kv260.img"
"$fixtures/mkimage-kv260.sh" "$tmp/kv260-mbr.img" --mbr
"$fixtures/mkimage-pmos.sh" "$tmp/pmos.img"
"$fixtures/mkimage-rpi.sh" "$tmp/rpi.img"
"$fixtures/mkimage-rpi.sh" "$tmp/rpi-trees.img" --rpi-trees
"$fixtures/mkimage-armbian.sh" "$tmp/armbian.img"
"$fixtures/mkimage-extlinux.sh" "$tmp/extlinux.img"
"$fixtures/mkimage-extlinux.sh" "$tmp/extlinux-fdt.img" --fdt
"$fixtures/mkimage-beagle.sh" "$tmp/beagle.img"
"$fixtures/mkimage-beagle.sh" "$tmp/beagle-capes.img" --capes

# The fixtures are 65-117 MiB: far too large to mutate. Their first 64 KiB
# hold the MBR, the primary GPT and its entries; with the last 64 KiB after
# them, the backup GPT header sits where a reader of the cut image looks.
for img in kv260 kv260-mbr pmos rpi; do
	head -c 65536 "$tmp/$img.img" >"$out/part/$img-head"
done
{ head -c 65536 "$tmp/kv260.img"; tail -c 65536 "$tmp/kv260.img"; } \
	>"$out/part/kv260-head-tail"

# Small consistent images: the same labels with tiny filesystems that
# libblkid identifies.
quiet mkfs.vfat -C -i 4B563236 -n system-boot "$tmp/fat" 64
truncate -s 64K "$tmp/ext"
mke2fs -q -F -t ext4 -b 1024 -N 16 -O ^has_journal,^resize_inode \
	-L writable -U 4b563236-0000-4000-8000-000000000002 \
	-E hash_seed=4b563236-0000-4000-8000-000000000003 "$tmp/ext"

small_image()	# NAME SECTORS FS_AT_P1 FS_AT_P2 < sfdisk script
{
	local img=$out/part/$1

	rm -f "$img"
	truncate -s $(($2 * 512)) "$img"
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null
	[ "$3" = - ] || dd if="$tmp/fat" of="$img" bs=512 seek="$3" conv=notrunc status=none
	[ "$4" = - ] || dd if="$tmp/ext" of="$img" bs=512 seek="$4" conv=notrunc status=none
}

small_image gpt-fs 512 40 168 <<-EOF
	label: gpt
	label-id: 4B563236-0000-4000-8000-000000000000
	first-lba: 34
	start=40, size=128, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, name="system-boot", uuid=4B563236-0000-4000-8000-000000000001
	start=168, size=128, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name="writable", uuid=4B563236-0000-4000-8000-000000000002
EOF
small_image gpt-short 72 - - <<-EOF
	label: gpt
	label-id: 4B563236-0000-4000-8000-000000000000
	table-length: 4
	first-lba: 6
	start=8, size=16, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, name="system-boot", attrs="LegacyBIOSBootable"
	start=24, size=32, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name="writable"
EOF
small_image mbr-fs 512 8 136 <<-EOF
	label: dos
	label-id: 0x4b563236
	start=8, size=128, type=c, bootable
	start=136, size=128, type=83
	start=264, size=240, type=5
	start=272, size=64, type=83
	start=344, size=64, type=83
EOF
small_image mbr-short 64 - - <<-EOF
	label: dos
	label-id: 0x4b563236
	start=2, size=8, type=e, bootable
	start=10, size=8, type=83
	start=18, size=40, type=f
	start=20, size=8, type=83
	start=30, size=8, type=c
	start=40, size=16, type=83
EOF

# -------------------------------------------------------------------- FAT
# A boot sector, then what mtools prints of that FAT, NUL-separated:
# mshowfat's chains, the "mdir -/ -b -a" listing, an "mdir -a" listing of
# one file, and the name looked up.
fat_seed()	# NAME FAT DRIVE FILE
{
	{
		head -c 512 "$2"
		mshowfat -i "$3" ::/ "$4" ::/boot; printf '\0'
		mdir -/ -b -a -i "$3" ::/; printf '\0'
		mdir -a -i "$3" "$4"; printf '\0'
		printf '%s' "$4"
	} >"$out/fat/$1" 2>/dev/null || true
}
fat_seed kv260 "$tmp/kv260.img" "$tmp/kv260.img@@1M" ::/image.fit
truncate -s 16M "$tmp/fat16"
quiet mkfs.vfat -F 16 -n BOOT "$tmp/fat16"
mmd -i "$tmp/fat16" ::/boot ::/boot/overlays
printf 'hello\n' >"$tmp/hello"
mcopy -i "$tmp/fat16" "$tmp/hello" ::/boot/config.txt
mcopy -i "$tmp/fat16" "$tmp/hello" "::/A long name.txt"
fat_seed fat16 "$tmp/fat16" "$tmp/fat16" ::/boot/config.txt
fat_seed kv260-empty "$tmp/fat" "$tmp/fat" ::/x

# Whole small FAT12s, for the damage check: healthy, then with the second
# cluster of extlinux.conf pointing back to its first, and with other.txt
# sharing that cluster (both FATs changed, as fsck.fat -n reads them).
fat12_set()	# FAT CLUSTER VALUE
{
	local bps res fatsz base off old new
	bps=$(od -An -tu2 -j11 -N2 "$1" | tr -d ' ')
	res=$(od -An -tu2 -j14 -N2 "$1" | tr -d ' ')
	fatsz=$(od -An -tu2 -j22 -N2 "$1" | tr -d ' ')
	for base in $((res * bps)) $(((res + fatsz) * bps)); do
		off=$((base + $2 * 3 / 2))
		old=$(od -An -tu2 -j"$off" -N2 "$1" | tr -d ' ')
		if [ $(($2 & 1)) = 1 ]; then new=$(((old & 0xf) | ($3 << 4)))
		else new=$(((old & 0xf000) | $3)); fi
		printf "$(printf '\\%03o\\%03o' $((new & 255)) $((new >> 8)))" |
			dd of="$1" bs=1 seek="$off" conv=notrunc status=none
	done
}
quiet mkfs.vfat -C -s 1 -i 4B563236 "$tmp/fat12" 128
mmd -i "$tmp/fat12" ::/extlinux
head -c 700 /dev/zero | tr '\0' '#' >"$tmp/conf"
mcopy -i "$tmp/fat12" "$tmp/conf" ::/extlinux/extlinux.conf
mcopy -i "$tmp/fat12" "$tmp/conf" ::/other.txt
cp "$tmp/fat12" "$out/fat/fat12-whole"
chains=$(mshowfat -i "$tmp/fat12" ::/extlinux/extlinux.conf ::/other.txt |
	tr -c '0-9\n' ' ' | awk '{ printf "%s ", $1 }')
read -r conf other <<<"$chains"
cp "$tmp/fat12" "$out/fat/fat12-loop"
fat12_set "$out/fat/fat12-loop" $((conf + 1)) "$conf"
cp "$tmp/fat12" "$out/fat/fat12-shared"
fat12_set "$out/fat/fat12-shared" "$other" $((conf + 1))
fat12_set "$out/fat/fat12-shared" $((other + 1)) 0

# --------------------------------------------------------------- FIT, DTB

mcopy -i "$tmp/kv260.img@@1M" ::image.fit "$tmp/image.fit"
cp "$tmp/image.fit" "$out/fit/kv260-image.fit"

# A small FIT reaches every hash and both payload placements quicker.
cat >"$tmp/small.dts" <<-EOF
	/dts-v1/;
	/ {
		compatible = "xlnx,zynqmp-smk-k26";
		axi {
			sdhci1: mmc@ff170000 {
				compatible = "xlnx,zynqmp-8.9a", "arasan,sdhci-8.9a";
				no-1-8-v;
				bus-width = <4>;
				max-frequency = <200000000>;
			};
		};
	};
EOF
dtc -q -@ -I dts -O dtb -o "$tmp/small.dtb" "$tmp/small.dts"
cp "$tmp/small.dtb" "$out/dtb/small.dtb"
printf 'kernel' >"$tmp/kernel"
cat >"$tmp/small.its" <<-EOF
	/dts-v1/;
	/ {
		description = "fuzz seed";
		#address-cells = <1>;
		images {
			kernel-1 {
				data = /incbin/("kernel");
				type = "kernel"; arch = "arm64"; os = "linux";
				compression = "gzip";
				hash-1 { algo = "crc32"; };
			};
			fdt-1 {
				data = /incbin/("small.dtb");
				type = "flat_dt"; arch = "arm64"; compression = "none";
				hash-1 { algo = "sha1"; };
				hash-2 { algo = "md5"; };
				hash-3 { algo = "sha256"; };
			};
			fdt-smk-k26-revA-sck-kv-g-revB.dtb {
				data = /incbin/("small.dtb");
				type = "flat_dt"; compression = "none";
				hash { algo = "sha512"; };
				hash@2 { algo = "sha384"; };
			};
		};
		configurations {
			default = "conf-1";
			conf-1 { kernel = "kernel-1"; fdt = "fdt-1"; };
			conf-2 { fdt = "fdt-smk-k26-revA-sck-kv-g-revB.dtb"; };
		};
	};
EOF
(cd "$tmp" && quiet mkimage -f small.its small.fit &&
	quiet mkimage -E -f small.its small-ext.fit &&
	quiet mkimage -E -p 0x1000 -f small.its small-pos.fit)
cp "$tmp/small.fit" "$tmp/small-ext.fit" "$tmp/small-pos.fit" "$out/fit/"

cp "$top"/tests/dtb/*.dtb "$out/dtb/"
cp "$tmp/small.fit" "$out/dtb/fit-as-dtb"
for dts in "$top"/recipes/overlays/*.dts "$top"/tests/dts/*.dtso; do
	name=$(basename "${dts%.*}")
	dtc -q -@ -I dts -O dtb -o "$out/dtb/$name.dtbo" "$dts"
done

# The recipes and overlays that tests/t1000-recipes.sh writes inline.
mkdir -p "$tmp/t1000"
awk -v dir="$tmp/t1000" '
	/cat >[^ ]*\.(recipe|dts) <<-\\EOD/ {
		file = $0
		sub(/.*cat >/, "", file)
		sub(/ .*/, "", file)
		gsub(/\//, "-", file)
		file = dir "/" file
		next
	}
	file && /^\t*EOD$/ { close(file); file = ""; next }
	file { line = $0; sub(/^\t+/, "", line); print line > file }
' "$top/tests/t1000-recipes.sh"
for dts in "$tmp"/t1000/*.dts; do
	[ -e "$dts" ] || continue
	dtc -q -@ -I dts -O dtb -o "$out/dtb/t1000-$(basename "${dts%.dts}").dtbo" "$dts"
done

# ------------------------------------------------------------- overlays
# Raspberry Pi: the reduced Pi 4 tree and the kernel's overlays, compiled
# with dtc -@ as the Raspberry Pi kernel build does. Each seed is what one
# line of tests/dts/rpi/cases.txt applies: the base, the overlay of a
# dtoverlay= line, its name, NUL, its parameters; for a dtparam= line the
# base, NUL, the list.
rpi=$top/tests/dts/rpi
mkdir -p "$tmp/rpi"
for dts in "$rpi"/*.dts; do
	dtc -q -@ -I dts -O dtb -o "$tmp/rpi/$(basename "${dts%.dts}").dtb" "$dts"
done
rpi_base=$tmp/rpi/bcm2711-rpi-4-b.dtb
n=0
grep -v '^#' "$rpi/cases.txt" | tr '\t' '\n' | grep -E '^dt(overlay|param)=' | sort -u |
while IFS= read -r line; do
	n=$((n + 1))
	case $line in
	dtoverlay=*)
		spec=${line#dtoverlay=} name=${spec%%,*} params=
		[ "$spec" = "$name" ] || params=${spec#*,}
		{ cat "$rpi_base" "$tmp/rpi/$name-overlay.dtb"; printf '%s\0%s' "$name" "$params"; }
		;;
	*)	{ cat "$rpi_base"; printf '\0%s' "${line#dtparam=}"; } ;;
	esac >"$out/rpi-overlay/case-$n"
done
# Every overlay without parameters, and one onto the overlay map (no __symbols__).
for dtbo in "$tmp"/rpi/*-overlay.dtb; do
	name=$(basename "${dtbo%-overlay.dtb}")
	{ cat "$rpi_base" "$dtbo"; printf '%s' "$name"; } >"$out/rpi-overlay/$name"
	cat "$rpi_base" "$dtbo" >"$out/overlay/rpi-$name"
done
{ cat "$tmp/rpi/overlay_map.dtb" "$tmp/rpi/sdio-overlay.dtb"; printf 'sdio'; } \
	>"$out/rpi-overlay/map-base"

# Generic: each overlay the tests apply, on the tree it is for and on the
# small tree above; two in a row on the K26 tree.
cp "$top/tests/dtb/zynqmp-smk-k26-revA.dtb" "$tmp/k26.dtb"
for dtbo in "$out"/dtb/*.dtbo; do
	name=$(basename "${dtbo%.dtbo}")
	cat "$tmp/small.dtb" "$dtbo" >"$out/overlay/small-$name"
	cat "$tmp/k26.dtb" "$dtbo" >"$out/overlay/k26-$name"
done
cat "$tmp/k26.dtb" "$out/dtb/zynqmp-sck-kv-g-revB.dtbo" "$out"/dtb/t1000-*.dtbo \
	>"$out/overlay/k26-several" 2>/dev/null || true
cat "$top/tests/dtb/sun50i-a64-pinephone-1.2.dtb" "$out/dtb/pinephone-vccq-mod.dtbo" \
	>"$out/overlay/pinephone-vccq-mod"

# Crafted fixups, each as an entry of __fixups__ (written as a plain tree,
# as no /plugin/ source can spell them) on a base whose label has a
# phandle, and aliases that name each other: offsets past the property,
# negative, overflowing, unaligned, not numbers, paths and names missing;
# then target-paths (an alias loop, not a string, empty) with fixups of
# their own.
cat >"$tmp/fixbase.dts" <<-EOF
	/dts-v1/;
	/ {
		aliases { loop = "loop"; mmc0 = "/soc/mmc@1000"; };
		soc {
			sd: mmc@1000 { reg = <0x1000 0x100>; status = "okay"; };
			user { mmc = <&sd>; };
		};
	};
EOF
dtc -q -@ -I dts -O dtb -o "$tmp/fixbase.dtb" "$tmp/fixbase.dts"
# crafted_seed NAME < DTS: on that base, for both overlay harnesses.
crafted_seed()
{
	dtc -q -I dts -O dtb -o "$tmp/crafted.dtbo" -
	cat "$tmp/fixbase.dtb" "$tmp/crafted.dtbo" >"$out/overlay/$1"
	{ cat "$tmp/fixbase.dtb" "$tmp/crafted.dtbo"; printf 'crafted'; } >"$out/rpi-overlay/$1"
}
n=0
for entry in '/fragment@0:target:0' '/fragment@0:target:-4' '/fragment@0:target:4294967292' \
	'/fragment@0:target:99999999999999999999' '/fragment@0:target:1' '/fragment@0:target:4' \
	'/fragment@0:target' '/fragment@0::0' ':target:0' 'fragment@0:target:0' 'loop:target:0' \
	'/fragment@0:target: 0' '/fragment@0:target:+0' '/nothere:target:0' \
	'/fragment@0:nothere:0' '/fragment@0/__overlay__:cells:8", "/fragment@0:target:0'; do
	n=$((n + 1))
	printf '/dts-v1/;\n/ {\n\tfragment@0 {\n\t\ttarget = <0xffffffff>;\n\t\t__overlay__ { cells = <1 2 3>; };\n\t};\n\t__fixups__ { sd = "%s"; };\n};\n' \
		"$entry" | crafted_seed "fixup-$n"
done
for body in 'target-path = "loop";' 'target-path = "mmc0";' 'target-path = [2f 73 6f 63];' \
	'target-path = "";' 'target = <0>; target-path = "/soc";'; do
	n=$((n + 1))
	printf '/dts-v1/;\n/ {\n\tfragment@0 {\n\t\t%s\n\t\t__overlay__ { r = <1>; };\n\t};\n\t__local_fixups__ { fragment@0 { __overlay__ { r = <0 4>; }; }; };\n};\n' \
		"$body" | crafted_seed "target-$n"
done

# ------------------------------------------------------------- boot paths
# fuzz-bootpath's input is the boot partition's files: path, NUL, content
# (a device tree as long as its header says, other content up to a NUL). A
# script image is given as its text, which the harness wraps again; the
# kernels and ramdisks are left empty. The files come from the fixtures'
# boot partitions (mcopy of the FAT, debugfs rdump of ext2/4: /boot, and
# Debian's trees and /lib/firmware, where extlinux.conf and BeagleBone's
# U-Boot look).
part_start()	# IMAGE N: partition N's first sector
{
	sfdisk -d "$1" | sed -n "s/^.*$2 : start= *\([0-9]*\),.*/\1/p"
}
bootpath_seed()	# NAME DIR: the regular files under DIR, as seen from DIR
{
	local file rel

	(cd "$2" && find . -type f | LC_ALL=C sort) | while IFS= read -r rel; do
		file=$2/$rel rel=${rel#.}
		printf '%s\0' "$rel"
		case $rel in
		*.dtb | *.dtbo) cat "$file" ;;
		*.scr | *.scr.uimg) tail -c +73 "$file"; printf '\0' ;;
		*.txt | *.conf | *.cmd) cat "$file"; printf '\0' ;;
		*) printf '\0' ;;
		esac
	done >"$out/bootpath/$1"
}
for img in rpi rpi-trees; do
	mkdir "$tmp/$img-boot"
	mcopy -s -n -i "$tmp/$img.img@@$(($(part_start "$tmp/$img.img" 1) * 512))" \
		'::*' "$tmp/$img-boot/"
	bootpath_seed "$img" "$tmp/$img-boot"
done
# Ubuntu for Raspberry Pi's config.txt includes syscfg.txt and usercfg.txt.
cp -r "$tmp/rpi-trees-boot" "$tmp/ubuntu-boot"
cp "$top"/tests/fixtures/ubuntu-rpi/*.txt "$tmp/ubuntu-boot/"
cp "$tmp/ubuntu-boot/bcm2711-rpi-4-b.dtb" "$tmp/ubuntu-boot/bcm2711-rpi-cm4.dtb"
bootpath_seed ubuntu "$tmp/ubuntu-boot"
# ext2/4 boot partitions: the DIRS of partition N as the partition has them.
debian_trees=/usr/lib/linux-image-6.1.0-13-arm64
for spec in pmos:1:/ armbian:1:/boot extlinux:1:/boot,$debian_trees \
	extlinux-fdt:1:/boot,$debian_trees \
	beagle:1:/boot,/lib/firmware beagle-capes:1:/boot,/lib/firmware; do
	IFS=: read -r name n dirs <<<"$spec"
	dd if="$tmp/$name.img" of="$tmp/$name.part" bs=512 \
		skip="$(part_start "$tmp/$name.img" "$n")" count=65536 status=none
	for dir in ${dirs//,/ }; do
		mkdir -p "$tmp/$name-boot${dir%/*}"
		quiet debugfs -R "rdump $dir $tmp/$name-boot${dir%/*}/" "$tmp/$name.part"
	done
	bootpath_seed "$name" "$tmp/$name-boot"
done
# These name a tree in /boot and one by fdtdir.
ext_tree=/boot/sun50i-a64-pinephone-1.2.dtb
{
	printf '/boot/extlinux/extlinux.conf\0default b\nlabel a\n\tfdtdir /boot/dtbs\nlabel b\n'
	printf '\tfdt %s\n\tfdtoverlays /boot/dtbo/sdfix.dtbo /boot/dtbo/missing.dtbo\n\0' "$ext_tree"
	printf '%s\0' "$ext_tree"
	cat "$top/tests/dtb/sun50i-a64-pinephone-1.2.dtb"
	printf '/boot/dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb\0'
	cat "$top/tests/dtb/sun50i-a64-pinephone-1.2.dtb"
	printf '/boot/dtbo/sdfix.dtbo\0'
	cat "$tmp/extlinux-fdt-boot/boot/dtbo/sdfix.dtbo"
} >"$out/bootpath/extlinux-hand"
# postmarketOS with a user.scr that applies overlays as the recipe's does.
cp "$out/dtb/pinephone-vccq-mod.dtbo" "$tmp/pmos-boot/"
cat >"$tmp/user.cmd" <<-\EOF
	setenv ov 0x4fe00000
	load mmc ${mmc_bootdev}:1 ${ov} pinephone-vccq-mod.dtbo && fdt apply ${ov}
	if load mmc ${mmc_bootdev}:1 ${fdtoverlay_addr_r} /missing.dtbo; then fdt resize 8192; fdt apply ${fdtoverlay_addr_r}; fi
EOF
mkimage -A arm -O linux -T script -C none -d "$tmp/user.cmd" "$tmp/pmos-boot/user.scr" >/dev/null
bootpath_seed pmos-user "$tmp/pmos-boot"

# ---------------------------------------------------------- boot scripts

mcopy -i "$tmp/kv260.img@@1M" ::boot.scr.uimg "$out/bootscr/kv260-boot.scr.uimg"
printf 'echo user script\nload mmc 0:1 ${fdt_addr_r} user-override.dtb\n' >"$tmp/boot.cmd"
mkimage -q -A arm -O linux -T script -C none -a 0 -e 0 -n postmarketos \
	-d "$tmp/boot.cmd" "$out/bootscr/small.scr" >/dev/null
# A multi-file script image: the reader takes its first part.
printf 'x' >"$tmp/second"
mkimage -q -A arm64 -O linux -T script -C none \
	-d "$tmp/boot.cmd:$tmp/second" "$out/bootscr/multi.scr" >/dev/null

# ------------------------------------------------------------------ fstab

# Each seed: fstab text, NUL, mount point, NUL, option edits.
fstab_seed()	# NAME MOUNTPOINT OPS < text
{
	{ cat; printf '\0%s\0%s' "$2" "$3"; } >"$out/fstab/$1"
}
printf 'LABEL=writable\t/\text4\tdiscard,errors=remount-ro\t0 1\nLABEL=system-boot\t/boot/firmware\tvfat\tdefaults\t0 1\n' |
	fstab_seed kv260 / -discard,+noatime
fstab_seed pmos /boot +noatime,+commit=600 <<-EOF
	# <file system> <mount point> <type> <options> <dump> <pass>
	UUID=706d4f53-726f-6f74-0000-000000000002 / ext4 defaults 0 0
	UUID=706d4f53-626f-6f74-0000-000000000001 /boot ext2 defaults 0 0
EOF
fstab_seed rpi / -noatime,-defaults <<-EOF
	proc            /proc           proc    defaults          0       0
	PARTUUID=52506934-01  /boot/firmware  vfat    defaults          0       2
	PARTUUID=52506934-02  /               ext4    defaults,noatime  0       1
EOF
printf '/dev/sda1 /mnt/my\\040disk ext4 rw,x-systemd.automount\t0\t2\r\n#/dev/sdb /x\n' |
	fstab_seed escaped '/mnt/my disk' +x=1,-rw,+ro

# ----------------------------------------------------------------- recipes

cp "$top"/recipes/*.recipe "$out/recipe/"
for r in "$tmp"/t1000/*.recipe; do
	[ -e "$r" ] || continue
	cp "$r" "$out/recipe/t1000-$(basename "$r")"
done
cat >"$out/recipe/every-step.recipe" <<-\EOF
	/* every step kind */
	name = "every-step"
	summary = "seed"
	description = "one of each
	step"
	source = "s"
	risks = "r"
	undo = "u"
	param carrier { description = "c" values = {"revA", "revB"} required = true }
	param mhz { description = "m" type = "int" min = 50 max = 120 default = "100" }
	match {
		partition-label = {"system-boot"}
		file = {"boot:/image.fit"}
		fit-fdt = {"fdt-${carrier}.dtb"}
		compatible = {'xlnx,zynqmp-smk-k26'}
	}
	step { action = "fdt-from-fit" fit = "/image.fit" fdt = "fdt-${carrier}.dtb" }
	step { action = "dt-set-property" node = "&sdhci1" property = "max-frequency" value = "<${mhz}000000>" }
	step { action = "dt-delete-property" node = "mmc@ff170000" property = "no-1-8-v" }
	step { action = "dt-add-node" path = "/chosen/x" }
	step { action = "dt-delete-node" node = "/gpio-keys" }
	step { action = "write-dtb" path = "/user-override.dtb" }
	step { action = "require-boot-hook" word = "user-override.dtb" }
	step { action = "set-line" part = "boot" path = "/config.txt" key = "dtparam=sd_overclock" value = '${mhz}' section = "all" }
	step { action = "remove-line" part = "boot" path = "/config.txt" key = "arm_boost" }
	step { action = "set-token" part = "boot" path = "/cmdline.txt" token = "rootdelay=5" }
	step { action = "remove-token" part = "boot" path = "/cmdline.txt" key = "quiet" }
	step { action = "boot-script" part = "boot" path = "/boot.scr" script = "echo $${x} ${carrier}\n" name = "boot" }
	step { action = "write-file" part = "root" path = "/etc/motd" content = "hello\n" }
	step { action = "fstab" mountpoint = "/" options = "-discard,+noatime" }
	step { action = "symlink" part = "root" path = "/etc/a" target = "../b" }
EOF

# Text edit seeds: the recipe harness cuts its input in two halves, the
# text and "KEY\nVALUE\n" (padded to the same length).
text_seed()	# NAME KEY VALUE < text
{
	local text rest
	text=$(cat; echo x)
	text=${text%x}
	rest=$(printf '%s\n%s\n' "$2" "$3"; echo x)
	rest=${rest%x}
	while [ ${#rest} -lt ${#text} ]; do rest+=' '; done
	while [ ${#text} -lt ${#rest} ]; do text+='#'; done
	printf '%s%s' "$text" "$rest" >"$out/recipe/$1"
}
text_seed config.txt dtparam=sd_overclock 100 <<-EOF
	# comment
	dtparam=audio=on
	camera_auto_detect=1
	[cm4]
	otg_mode=1
	[all]
	#dtparam=sd_overclock=50
	dtparam=sd_overclock=80
EOF
text_seed cmdline.txt quiet rootdelay=5 <<-EOF
	console=serial0,115200 console=tty1 root=PARTUUID=52506934-02 rootfstype=ext4 fsck.repair=yes rootwait quiet
EOF

# xz: small multi-block streams as xz -T makes them (text, zeros and FIT
# bytes, so blocks compress differently), with each check type, and two
# streams with padding between them.
{ head -c 40000 "$tmp/image.fit"; head -c 30000 /dev/zero; seq 1 6000; } >"$tmp/xz.bin"
for check in crc32 crc64 sha256 none; do
	xz -T2 --block-size=16KiB --check=$check -c "$tmp/xz.bin" >"$out/xz/blocks-$check.xz"
done
xz -T1 --block-size=32KiB -e -c "$tmp/xz.bin" >"$out/xz/sizes-unrecorded.xz"
{ cat "$out/xz/blocks-crc64.xz"; head -c 8 /dev/zero; cat "$out/xz/blocks-crc64.xz"; } >"$out/xz/two-streams.xz"

# ext: small filesystems holding what fuzz-ext reads and writes (/etc/fstab,
# symlinks, a loop), one per layout the backend meets: ext2 block maps,
# ext4 with and without metadata_csum, inline_data, MMP, quota.
mkdir -p "$tmp/extroot/etc"
printf 'LABEL=writable\t/\text4\tdefaults\t0 1\n' >"$tmp/extroot/etc/fstab"
ln -s fstab "$tmp/extroot/etc/link"
ln -s /etc/fstab "$tmp/extroot/etc/abs"
ln -s loop1 "$tmp/extroot/etc/loop1"
ext_seed()	# NAME MKE2FS-ARGS...
{
	local name=$1

	shift
	rm -f "$out/ext/$name"
	truncate -s 256K "$out/ext/$name"
	mke2fs -q -F -b 1024 -N 32 -U 4b563236-0000-4000-8000-000000000002 \
		-E hash_seed=4b563236-0000-4000-8000-000000000003,root_owner=0:0 \
		"$@" -d "$tmp/extroot" "$out/ext/$name" 256
}
ext_seed ext2 -t ext2 -O ^resize_inode
ext_seed ext4 -t ext4 -O ^has_journal,^resize_inode
ext_seed ext4-nocsum -t ext4 -O ^has_journal,^resize_inode,^metadata_csum
ext_seed ext4-inline -t ext4 -O ^has_journal,^resize_inode,inline_data
ext_seed ext4-mmp -t ext4 -O ^has_journal,^resize_inode,mmp
ext_seed ext4-quota -t ext4 -O ^has_journal,^resize_inode
# mke2fs -d of e2fsprogs 1.47.0 counts quota wrong; tune2fs counts it right.
quiet tune2fs -O quota "$out/ext/ext4-quota"

# uboot-env: a place's number (fuzz-uboot-env.c's order: 0 Rockchip
# u-boot.itb, 1 Allwinner FIT at 40 KiB, 2 Allwinner eGON at 8 KiB, 3 i.MX
# u-boot.img, 6 i.MX IVT at 1 KiB), then what is there. Debian's own U-Boot
# builds where the package cache has them (as the U-Boot tests use them),
# cut down, and made ones: a saved environment with its CRC (mkenvimage), in a FIT's
# U-Boot image as it is, gzip'd and lzma'd, and after an eGON header.
uboot_seed()	# NAME PLACE FILE
{
	{ printf "\\$(printf %03o "$2")"; cat "$3"; } >"$out/uboot-env/$1"
}
debs=${IMGPATCH_DEB_CACHE:-/var/cache/imgpatch/debs}
for pkg in u-boot-rockchip u-boot-sunxi u-boot-imx; do
	deb=$(compgen -G "$debs/${pkg}_*.deb" | head -n 1) || continue
	dpkg-deb -x "$deb" "$tmp/deb"
done
ub=$tmp/deb/usr/lib/u-boot
# A megabyte per input would run a few times a second: 16 KiB of each
# binary around its default environment instead, behind the header the
# reader checks (an eGON one, or the binary's own 64-byte uImage header).
env_window()	# FILE: 16 KiB from 4 KiB before the first "fdtfile=" or "bootcmd="
{
	local at

	at=$(grep -obUa -m 1 -e 'fdtfile=' -e 'bootcmd=' "$1" | cut -d: -f1) || return 1
	at=${at%%$'\n'*}
	[ -n "$at" ] || return 1
	at=$(( at > 4096 ? at - 4096 : 0 ))
	dd if="$1" iflag=skip_bytes,count_bytes bs=4096 skip="$at" count=16384 status=none
}
egon_head()
{
	printf '\0\0\0\0eGON.BT0'
	head -c 500 /dev/zero
}
if [ -e "$ub/rockpro64-rk3399/u-boot-nodtb.bin" ]; then
	{ egon_head; env_window "$ub/rockpro64-rk3399/u-boot-nodtb.bin"; } >"$tmp/rk.bin"
	uboot_seed rockpro64-env 2 "$tmp/rk.bin"
fi
if [ -e "$ub/pine64_plus/u-boot-nodtb.bin" ]; then
	{ egon_head; env_window "$ub/pine64_plus/u-boot-nodtb.bin"; } >"$tmp/pine64.bin"
	uboot_seed pine64-env 2 "$tmp/pine64.bin"
fi
if [ -e "$ub/wandboard/u-boot.img" ]; then
	{ head -c 64 "$ub/wandboard/u-boot.img"; env_window "$ub/wandboard/u-boot.img"; } >"$tmp/wand.bin"
	uboot_seed wandboard-env 3 "$tmp/wand.bin"
fi
printf 'arch=arm\nbaudrate=115200\nboard=rockpro64\nboard_name=rockpro64\nbootcmd=run distro_bootcmd\nfdtfile=rockchip/rk3399-rockpro64.dtb\nsoc=rk3399\nvendor=pine64\n' >"$tmp/env.txt"
mkenvimage -s 0x2000 -o "$tmp/env.bin" "$tmp/env.txt"
{ printf 'U-Boot 2023.01-test (Jan 01 2023 - 00:00:00 +0000)\0'; cat "$tmp/env.bin"; } >"$tmp/uboot.bin"
uboot_seed env-raw 6 "$tmp/env.bin"
{ printf '\0\0\0\0eGON.BT0'; head -c 500 /dev/zero; cat "$tmp/uboot.bin"; } >"$tmp/egon.bin"
uboot_seed egon 2 "$tmp/egon.bin"
gzip -n -9 -c "$tmp/uboot.bin" >"$tmp/uboot.bin.gz"
xz --format=lzma -c "$tmp/uboot.bin" >"$tmp/uboot.bin.lzma"
for comp in none gzip lzma; do
	f=$tmp/uboot.bin
	[ $comp = none ] || f=$tmp/uboot.bin.${comp/gzip/gz}
	cat >"$tmp/uboot-$comp.its" <<EOF
/dts-v1/;
/ { description = "U-Boot"; #address-cells = <1>;
	images { uboot { description = "U-Boot"; type = "standalone"; arch = "arm64";
		compression = "$comp"; load = <0x200000>; data = /incbin/("$f"); }; };
	configurations { default = "c"; c { firmware = "uboot"; }; }; };
EOF
	quiet mkimage -f "$tmp/uboot-$comp.its" "$tmp/uboot-$comp.itb"
	uboot_seed "fit-$comp" 0 "$tmp/uboot-$comp.itb"
done
