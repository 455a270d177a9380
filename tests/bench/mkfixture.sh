#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mkfixture.sh CACHE_DIR
#
# Makes the benchmark's fixture once and prints the folder that holds it:
# CACHE_DIR/<key>/, where the key is the checksum of this script and of the
# device trees it uses, so a changed recipe for the fixture builds a new one
# (and removes the old). The folder holds
#
#   kv260.img              8 GiB sparse image laid out like Ubuntu 22.04 for
#                          the Kria KV260 (GPT; p1 256 MiB FAT32
#                          "system-boot" with a ~100 MB image.fit and
#                          boot.scr.uimg; p2 ext4 "writable" with ~360 MB in
#                          20000 small files and Ubuntu's fstab)
#   kv260.img.xz           xz -T2: one stream of many blocks
#   kv260-1block.img.xz    xz -T1: one stream of one block
#   fixture.env            shell assignments: sizes, offsets, the fdt's index
#
# Only real tools, no root, loop devices or mounts. The payloads come from
# an AES-CTR keystream (openssl), so they are the same on every machine; the
# ext4 inode times are not pinned, which a cached fixture does not need.

set -euo pipefail

[ $# = 1 ] || { echo "usage: $0 CACHE_DIR" >&2; exit 2; }
cache=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# kria_boot_cmd: the same boot script as the test fixtures.
. "$here/../fixtures/lib-fixture.sh"
dtb_dir=$here/../dtb

export TZ=UTC LC_ALL=C SOURCE_DATE_EPOCH=1700000000
export E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
export PATH=$PATH:/usr/sbin:/sbin
umask 022

# Ubuntu's names for the eight trees of its image.fit, and the Debian
# kernel trees that stand in for them (Debian has no KR260 or rev1 trees).
fdts="zynqmp-smk-k26-revA:zynqmp-smk-k26-revA.dtb
zynqmp-sm-k26-revA:zynqmp-sm-k26-revA.dtb
smk-k26-revA-sck-kr-g-revA:sm-k26-revA-sck-kv-g-revA.dtb
smk-k26-revA-sck-kv-g-revA:smk-k26-revA-sm-k26-revA-sck-kv-g-revA.dtb
smk-k26-revA-sck-kr-g-revB:sm-k26-revA-sck-kv-g-revB.dtb
smk-k26-revA-sck-kv-g-revB:smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb
smk-k26-revA-sck-kr-g-rev1:sm-k26-revA-sck-kv-g-revB.dtb
smk-k26-revA-sck-kv-g-rev1:smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb"
target_fdt=smk-k26-revA-sck-kv-g-revB

mapfile -t trees < <(cut -d: -f2 <<<"$fdts" | sort -u | sed "s|^|$dtb_dir/|")
key=$(cat "${BASH_SOURCE[0]}" "${trees[@]}" | sha256sum | cut -c1-16)
dir=$cache/$key
if [ -f "$dir/fixture.env" ]; then
	echo "$dir"
	exit 0
fi

for tool in sfdisk mkfs.vfat mcopy mke2fs mkimage openssl perl xz; do
	command -v "$tool" >/dev/null || {
		echo "$0: '$tool' not found (Debian: fdisk dosfstools mtools e2fsprogs u-boot-tools openssl perl xz-utils)" >&2
		exit 1
	}
done

# One fixture at a time: an older key's files are 1 GB of disk for nothing.
mkdir -p "$cache"
find "$cache" -mindepth 1 -maxdepth 1 -regextype posix-extended \
	-regex '.*/[0-9a-f]{16}(\.tmp)?' -exec rm -rf {} +
tmp=$dir.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
img=$tmp/kv260.img

# Layout in 512-byte sectors, 1 MiB aligned as Ubuntu's images are.
SECT=512
total=$((8 << 21))                      # 8 GiB
p1_start=2048
p1_size=$((256 << 11))                  # 256 MiB
p2_start=$((p1_start + p1_size))
p2_size=$((total - p2_start - 2048))    # the rest, less room for the backup GPT

# keystream SEED BYTES: deterministic incompressible bytes.
keystream()
{
	head -c "$2" /dev/zero |
		openssl enc -aes-128-ctr -nosalt -K "$(printf %032x "$1")" -iv 00000000000000000000000000000000
}

# The data generator: a file of SIZE bytes is one eighth keystream, the
# rest a keystream line repeated, so xz packs it about 7:1 and at the speed
# it has for real root filesystems, not the crawl it has for noise.
# shellcheck disable=SC2016  # perl code
gen_pl='
	use strict; use warnings;
	my ($mode, $arg, $n) = @ARGV;
	binmode STDIN;
	sub take { my $b = ""; my $got = read(STDIN, $b, $_[0]); die "short keystream\n" unless $got == $_[0]; return $b; }
	sub blob {
		my $size = shift;
		my $head = int($size / 8);
		my $line = unpack("H*", take(32)) . "\n";
		my $rest = $size - $head;
		return take($head) . substr($line x (int($rest / length($line)) + 1), 0, $rest);
	}
	if ($mode eq "blob") {
		binmode STDOUT;
		for (my $left = $n; $left > 0; $left -= 65536) {
			print blob($left < 65536 ? $left : 65536);
		}
		1 while read(STDIN, my $rest, 1 << 20);
		exit 0;
	}
	# mode "tree": N files of 4 to 32 KiB under ARG, 200 to a folder.
	for my $i (0 .. $n - 1) {
		my $d = sprintf("%s/%03d", $arg, int($i / 200));
		mkdir $d unless -d $d;
		my $size = 4096 + unpack("N", take(4)) % (28 * 1024 + 1);
		open(my $fh, ">", sprintf("%s/f%05d.bin", $d, $i)) or die "$d: $!\n";
		binmode $fh;
		print $fh blob($size);
		close($fh) or die "$d: $!\n";
	}
	# Drain the rest, so that the writer ends normally.
	1 while read(STDIN, my $rest, 1 << 20);
'

# ---------------------------------------------------------------- boot files
boot=$tmp/boot fitw=$tmp/fit
mkdir "$boot" "$fitw"

# The Kria boot script of the test fixtures, with its user-override.dtb hook.
kria_boot_cmd 1 >"$boot/boot.cmd"
mkimage -A arm64 -O linux -T script -C none -n "boot script" \
	-d "$boot/boot.cmd" "$boot/boot.scr.uimg" >/dev/null

# A kernel's Image.gz and a compressed initrd are noise to xz; the ramdisk
# is made of blobs so that the FIT is not all noise.
keystream 1 $((30 << 20)) >"$fitw/kernel.gz"
keystream 2 $((16 << 20)) | perl -e "$gen_pl" blob - $((60 << 20)) >"$fitw/initrd"

{
	cat <<'EOF'
/dts-v1/;

/ {
	description = "Simple image with single Linux kernel, ramdisk and FDT blob";
	#address-cells = <1>;

	images {
		kernel-1 {
			description = "Ubuntu kernel";
			data = /incbin/("kernel.gz");
			type = "kernel";
			arch = "arm64";
			os = "linux";
			compression = "gzip";
			load = <0x00200000>;
			entry = <0x00200000>;
			hash-1 {
				algo = "sha1";
			};
		};
		ramdisk-1 {
			description = "Ubuntu ramdisk";
			data = /incbin/("initrd");
			type = "ramdisk";
			arch = "arm64";
			os = "linux";
			compression = "none";
			hash-1 {
				algo = "sha1";
			};
		};
EOF
	while IFS=: read -r name file; do
		cp "$dtb_dir/$file" "$fitw/$name.dtb"
		cat <<EOF
		fdt-$name.dtb {
			description = "Flattened device tree blob - $name";
			data = /incbin/("$name.dtb");
			type = "flat_dt";
			arch = "arm64";
			compression = "none";
			load = <0x44000000>;
			hash-1 {
				algo = "sha1";
			};
		};
EOF
	done <<<"$fdts"
	cat <<'EOF'
	};

	configurations {
		default = "conf-zynqmp-smk-k26-revA";
EOF
	while IFS=: read -r name file; do
		cat <<EOF
		conf-$name {
			description = "Boot Ubuntu on kria SOM";
			kernel = "kernel-1";
			ramdisk = "ramdisk-1";
			fdt = "fdt-$name.dtb";
		};
EOF
	done <<<"$fdts"
	cat <<'EOF'
	};
};
EOF
} >"$fitw/image.its"
(cd "$fitw" && mkimage -f image.its image.fit >/dev/null)
mv "$fitw/image.fit" "$boot/image.fit"
rm -rf "$fitw"
# dumpimage -p counts image nodes: kernel-1 is 0, ramdisk-1 is 1.
fdt_index=$(($(cut -d: -f1 <<<"$fdts" | grep -nx "$target_fdt" | cut -d: -f1) + 1))

# ---------------------------------------------------------------- root files
root=$tmp/root
mkdir -p "$root/etc/systemd/system/timers.target.wants" \
	"$root/lib/systemd/system" "$root/usr/share/bench" "$root/boot/firmware" \
	"$root/home/ubuntu"
printf 'LABEL=writable\t/\text4\tdiscard,errors=remount-ro\t0 1\n' >"$root/etc/fstab"
printf 'LABEL=system-boot\t/boot/firmware\tvfat\tdefaults\t0 1\n' >>"$root/etc/fstab"
echo kria >"$root/etc/hostname"
printf '[Unit]\nDescription=Discard unused blocks once a week\n\n[Timer]\nOnCalendar=weekly\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n' \
	>"$root/lib/systemd/system/fstrim.timer"
keystream 3 $((96 << 20)) | perl -e "$gen_pl" tree "$root/usr/share/bench" 20000

# ---------------------------------------------------------------- disk image
truncate -s $((total * SECT)) "$img"
sfdisk -q "$img" >/dev/null <<EOF
label: gpt
label-id: 4B563236-0000-4000-8000-0000000000B0
unit: sectors
first-lba: 34

start=$p1_start, size=$p1_size, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, uuid=4B563236-0001-4000-8000-0000000000B1, name="system-boot"
start=$p2_start, size=$p2_size, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=4B563236-0002-4000-8000-0000000000B2, name="writable"
EOF

# 512-byte clusters, as FAT32 has below 260 MB: with mkfs.fat's 4 KiB the
# volume has fewer clusters than FAT32 allows and mtools takes it for FAT16.
mkfs.vfat -F 32 -s 1 -n system-boot --invariant --mbr=n -h "$p1_start" \
	--offset="$p1_start" "$img" $((p1_size * SECT / 1024)) \
	>/dev/null 2>"$tmp/mkfs.err" || { cat "$tmp/mkfs.err" >&2; exit 1; }
rm "$tmp/mkfs.err"
touch -d "@$SOURCE_DATE_EPOCH" "$boot"/*
mcopy -m -i "$img@@$((p1_start * SECT))" "$boot/boot.scr.uimg" ::boot.scr.uimg
mcopy -m -i "$img@@$((p1_start * SECT))" "$boot/image.fit" ::image.fit

# The root filesystem fills its partition as Ubuntu's first boot makes it.
mke2fs -q -F -t ext4 -L writable -U 4b563236-7772-4974-6162-6c65000000b2 \
	-E "offset=$((p2_start * SECT)),hash_seed=4b563236-6861-7368-0000-0000000000b2,nodiscard" \
	-d "$root" "$img" $((p2_size * SECT / 1024))k

cat >"$tmp/fixture.env" <<EOF
FIT_SIZE=$(stat -c %s "$boot/image.fit")
FDT_NAME=fdt-$target_fdt.dtb
FDT_INDEX=$fdt_index
BOOT_OFF=$((p1_start * SECT))
ROOT_OFF=$((p2_start * SECT))
ROOT_FILES=20000
ROOT_BYTES=$(du -sb "$root/usr/share/bench" | cut -f1)
EOF
rm -rf "$boot" "$root"

# Both streams at once: xz -T1 is the long one and leaves a core spare.
xz -T2 -c "$img" >"$tmp/kv260.img.xz" &
xz_mt=$!
xz -T1 -c "$img" >"$tmp/kv260-1block.img.xz"
wait "$xz_mt"

mv "$tmp" "$dir"
trap - EXIT
echo "$dir"
