#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='a root inside LUKS (LUKS1 and LUKS2, laid out as Armbian'"'"'s CRYPTROOT_ENABLE images: an ext4 /boot, then the container): cryptsetup reads the headers where the magic table says they are; info names the container with the UUID cryptsetup luksUUID prints and says it is the likely root (text and JSON); doctor judges the boot side; a change that needs the root is refused, the image byte-identical'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkimage dtc debugfs e2fsck cryptsetup blkid python3
export IMGPATCH_RECIPE_PATH=$IMGPATCH_BUILD/recipes

. "$FIXTURES/lib-fixture.sh"

VERSIONS="luks1 luks2"
LUKS_UUID=41726d62-6961-6e00-0000-000000000003
PASS=armbian-fixture
NOWRITE='is encrypted: imgpatch opens no LUKS container and writes nothing inside it'

# json_get FILE EXPR: one value out of a JSON document (python3's json).
json_get()
{
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# magic_at FILE OFFSET LEN: the bytes at OFFSET of FILE, in hex.
magic_at()
{
	od -An -tx1 -j "$2" -N "$3" "$1" | tr -d ' \n'
}

test_expect_success 'build the Armbian images with an encrypted root, LUKS1 and LUKS2' '
	for v in $VERSIONS; do
		"$FIXTURES/mkimage-armbian.sh" $v.img --cryptroot=$v &&
		extract_part $v.img 2 $v.p2 || return 1
	done
'

test_expect_success 'cryptsetup reads each container: version, UUID, the passphrase opens a key slot' '
	for v in $VERSIONS; do
		cryptsetup isLuks --type $v $v.p2 &&
		test "$(cryptsetup luksUUID $v.p2)" = $LUKS_UUID &&
		cryptsetup luksDump $v.p2 >dump.$v &&
		grep -E "^Version:[[:space:]]+${v#luks}$" dump.$v &&
		printf %s $PASS | cryptsetup open --test-passphrase --key-file=- $v.p2 || return 1
	done &&
	test_must_fail cryptsetup isLuks --type luks2 luks1.p2
'

test_expect_success 'the headers are where the on-disk format puts them: magic and version at 0, the LUKS2 secondary at 16 KiB' '
	# LUKS1 and the LUKS2 primary: "LUKS" 0xba 0xbe, then the version, big-endian.
	test "$(magic_at luks1.p2 0 8)" = 4c554b53babe0001 &&
	test "$(magic_at luks2.p2 0 8)" = 4c554b53babe0002 &&
	# The LUKS2 header is 16 KiB by default (binary header and JSON area),
	# its copy follows it: "SKUL" 0xba 0xbe.
	grep -E "^Metadata area:[[:space:]]+16384 \[bytes\]" dump.luks2 &&
	test "$(magic_at luks2.p2 16384 8)" = 534b554cbabe0002 &&
	# LUKS1 keeps the UUID as text at offset 168, LUKS2 at 168 too.
	test "$(dd if=luks1.p2 bs=1 skip=168 count=36 status=none)" = $LUKS_UUID &&
	test "$(dd if=luks2.p2 bs=1 skip=168 count=36 status=none)" = $LUKS_UUID
'

test_expect_success 'info names the container as blkid does, with the UUID cryptsetup prints' '
	for v in $VERSIONS; do
		imgpatch info $v.img >info.$v &&
		test "$(blkid -p -o value -s TYPE $v.p2)" = crypto_LUKS &&
		test "$(blkid -p -o value -s VERSION $v.p2)" = ${v#luks} &&
		grep -E "^ +2 +73728 +32.0M +Linux +crypto_LUKS +$(cryptsetup luksUUID $v.p2)$" info.$v &&
		grep -E "^ +1 +8192 +32.0M +Linux +ext4 +armbi_boot +41726d62-6961-6e00-0000-000000000002$" info.$v ||
			return 1
	done
'

test_expect_success 'info: the container is the likely root, the boot side is still read' '
	for v in $VERSIONS; do
		grep -x "root fstab: /etc/fstab: p2 (crypto_LUKS) is likely the root, and it is encrypted: imgpatch opens no LUKS container (no partition has /etc/fstab (searched p1 (ext4)))" info.$v &&
		grep "^boot path: U-Boot script /boot.scr (Armbian), fdtfile allwinner/sun50i-a64-pinephone-1.2.dtb" info.$v ||
			return 1
	done &&
	debugfs -R "cat /armbianEnv.txt" luks2.img?offset=$((8192 * 512)) 2>/dev/null >env &&
	grep -x "rootdev=/dev/mapper/armbian-root cryptdevice=UUID=$LUKS_UUID:armbian-root" env
'

test_expect_success 'info --json: fstype, fsuuid, root_unread; valid against the schema' '
	for v in $VERSIONS; do
		imgpatch info --json $v.img >info.$v.json &&
		python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/info.schema.json" info.$v.json &&
		test "$(json_get info.$v.json "d[\"partitions\"][1][\"fstype\"]")" = crypto_LUKS &&
		test "$(json_get info.$v.json "d[\"partitions\"][1][\"fsuuid\"]")" = $LUKS_UUID &&
		test "$(json_get info.$v.json "d[\"root_unread\"][\"partition\"]")" = 2 &&
		test "$(json_get info.$v.json "d[\"root_unread\"][\"fstype\"]")" = crypto_LUKS &&
		test "$(json_get info.$v.json "d[\"fstab\"]")" = None || return 1
	done
'

test_expect_success 'doctor: judges the boot side, says the root was not read and what went unjudged' '
	for v in $VERSIONS; do
		imgpatch doctor $v.img >doctor.$v &&
		grep "^warning  overlay-not-applied: /dtb/allwinner/overlay/sun50i-a64-uart1.dtbo" doctor.$v &&
		grep "^info     emmc-vqmmc-3v3: " doctor.$v &&
		grep -x "root: p2 (crypto_LUKS), the likely root, could not be read (it is encrypted: imgpatch opens no LUKS container); not judged: fstab-discard, fstab-atime, fstrim-timer-off" doctor.$v &&
		! grep -E "^(warning|info) +(fstab-|fstrim-)" doctor.$v || return 1
	done &&
	imgpatch doctor --json luks2.img >doctor.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/doctor.schema.json" doctor.json &&
	json_get doctor.json "d[\"root_unread\"]" | grep "^p2 (crypto_LUKS), the likely root, could not be read"
'

test_expect_success 'a change that needs the root is refused, the image byte-identical (fstab, hostname, --root)' '
	for v in $VERSIONS; do
		refused_intact $v.img 1 \
			"imgpatch: $v.img: /etc/fstab: p2 (crypto_LUKS), the likely root, $NOWRITE; the root'"'"'s mount options can go into rootflags= on the kernel command line instead: imgpatch patch IMAGE --cmdline +rootflags=noatime" \
			imgpatch patch $v.img --fstab /:+noatime &&
		refused_intact $v.img 1 \
			"imgpatch: $v.img: recipe '"'"'hostname'"'"' does not match this image: expected root:/etc/fstab, found: p2 (crypto_LUKS), the likely root, $NOWRITE" \
			imgpatch apply hostname $v.img --set hostname=lab-1 &&
		refused_intact $v.img 1 \
			"imgpatch: $v.img: /etc/fstab: p2 (crypto_LUKS), the likely root, $NOWRITE; .*" \
			imgpatch patch $v.img --dry-run --fstab /:+noatime --root 2 || return 1
	done
'

test_expect_success 'the suggested --cmdline edit lands in armbianEnv.txt; the container is byte-identical' '
	cp luks2.img flags.img &&
	imgpatch patch flags.img --cmdline +rootflags=noatime >plan &&
	extract_part flags.img 1 flags.p1 && e2fsck -fn flags.p1 >/dev/null 2>&1 &&
	debugfs -R "cat /armbianEnv.txt" flags.p1 2>/dev/null >env &&
	grep -x "extraargs=rootflags=noatime" env &&
	grep -x "rootdev=/dev/mapper/armbian-root cryptdevice=UUID=$LUKS_UUID:armbian-root" env &&
	extract_part flags.img 2 flags.p2 && cmp luks2.p2 flags.p2 &&
	printf %s $PASS | cryptsetup open --test-passphrase --key-file=- flags.p2
'

# Armbian names the container in rootdev=, which its boot.scr puts into
# bootargs; dracut's and mkinitcpio's words go on the command line itself.
test_expect_success 'info: the command line word that opens the container, checked against its UUID' '
	grep -x "  cmdline: (empty)" info.luks2 &&
	! grep "the command line opens" info.luks2 &&
	cp luks2.img dracut.img &&
	imgpatch patch dracut.img --cmdline +rd.luks.uuid=luks-$LUKS_UUID >plan &&
	debugfs -R "cat /armbianEnv.txt" dracut.img?offset=$((8192 * 512)) 2>/dev/null >env &&
	grep -x "extraargs=rd.luks.uuid=luks-$LUKS_UUID" env &&
	imgpatch info dracut.img >info.dracut &&
	grep "^root fstab: /etc/fstab: p2 (crypto_LUKS) is likely the root, .*; the command line opens it: rd.luks.uuid=luks-$LUKS_UUID$" info.dracut &&
	cp luks2.img other.img &&
	imgpatch patch other.img --cmdline +cryptdevice=UUID=41726d62-6961-6e00-0000-0000000000ff:root >plan &&
	imgpatch info other.img >info.other &&
	grep "^root fstab: .*; the command line opens another container: cryptdevice=UUID=41726d62-6961-6e00-0000-0000000000ff:root$" info.other &&
	cp luks1.img arch.img &&
	imgpatch patch arch.img --cmdline +cryptdevice=UUID=$LUKS_UUID:cryptroot >plan &&
	imgpatch info arch.img >info.arch &&
	grep "^root fstab: .*; the command line opens it: cryptdevice=UUID=$LUKS_UUID:cryptroot$" info.arch &&
	cp luks2.img named.img &&
	imgpatch patch named.img --cmdline +rd.luks.name=$LUKS_UUID=root >plan &&
	imgpatch info named.img >info.named &&
	grep "^root fstab: .*; the command line opens it: rd.luks.name=$LUKS_UUID=root$" info.named
'

test_expect_success 'a LUKS2 primary header wiped: named by its secondary header, as blkid and cryptsetup read it' '
	cp luks2.img wiped.img &&
	off=$(part_offset wiped.img 2) &&
	printf "\000\000\000\000\000\000" | dd of=wiped.img bs=1 seek=$off conv=notrunc status=none &&
	extract_part wiped.img 2 wiped.p2 &&
	test "$(magic_at wiped.p2 0 6)" = 000000000000 &&
	test "$(cryptsetup luksUUID wiped.p2)" = $LUKS_UUID &&
	imgpatch info wiped.img >info.wiped &&
	grep -E "^ +2 +73728 +32.0M +Linux +crypto_LUKS +$LUKS_UUID$" info.wiped &&
	grep "^root fstab: /etc/fstab: p2 (crypto_LUKS) is likely the root" info.wiped
'

test_expect_success 'a LUKS1 header wiped: no longer LUKS to cryptsetup, blkid or imgpatch' '
	cp luks1.img wiped1.img &&
	off=$(part_offset wiped1.img 2) &&
	printf "\000\000\000\000\000\000" | dd of=wiped1.img bs=1 seek=$off conv=notrunc status=none &&
	extract_part wiped1.img 2 wiped1.p2 &&
	test_must_fail cryptsetup isLuks wiped1.p2 &&
	test_must_fail blkid -p wiped1.p2 &&
	imgpatch info wiped1.img >info.wiped1 &&
	grep -E "^ +2 +73728 +32.0M +Linux +- *$" info.wiped1 &&
	! grep crypto_LUKS info.wiped1
'

test_done
