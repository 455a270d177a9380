#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='bls: systemd'"'"'s own Boot Loader Specification parser (bootctl list) reads the patched partitions and lists as default the entry imgpatch edits, with the devicetree, overlays and options that imgpatch cat --dtb and cat --cmdline give'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mcopy debugfs dtc fdtget fdtoverlay bootctl

MID=4f3c1a2b5d6e7f8091a2b3c4d5e6f708
NEW=6.8.9-300.fc40.aarch64
OLD=6.8.5-301.fc40.aarch64
MMC=/mmc@fe320000

# bootctl takes the ESP and XBOOTLDR folders from these variables without
# asking for mount points, but ignores an XBOOTLDR on the ESP's device: the
# ESP is unpacked on another filesystem (tmpfs).
SHM=
if [ -d /dev/shm ] && [ -w /dev/shm ] &&
	[ "$(stat -c %d /dev/shm)" != "$(stat -c %d .)" ]; then
	SHM=$(mktemp -d /dev/shm/imgpatch-t0680.XXXXXX)
fi
cleanup_shm()
{
	[ -z "$SHM" ] || rm -rf -- "$SHM"
}
trap cleanup_shm EXIT
if [ -z "$SHM" ]; then
	test_skip "bootctl needs the ESP on another filesystem" "no writable /dev/shm on its own filesystem"
	test_done
fi

. "$FIXTURES/lib-fixture.sh"

# listed IMG NAME: the ESP (mcopy) and /boot (debugfs rdump) of IMG unpacked,
# bootctl list's entries in NAME.list and its default entry's block in
# NAME.default ("key: value" lines, title first).
listed()
{
	local -; set +x
	local img=$1 esp=$SHM/$2 boot=$PWD/$2.boot

	rm -rf "$esp" "$boot" && mkdir -p "$esp" "$boot" &&
	mcopy -s -n -i "$img@@$(part_offset "$img" 1)" ::/ "$esp/" &&
	debugfs -R "rdump / $boot" "$img?offset=$(part_offset "$img" 2)" >/dev/null 2>&1 &&
	test -d "$boot/loader/entries" &&
	SYSTEMD_ESP_PATH=$esp SYSTEMD_XBOOTLDR_PATH=$boot \
		bootctl list --no-pager >"$2.list" 2>"$2.err" &&
	awk '/^ *title: .*\(default\)/ { on = 1 } on && /^$/ { exit } on { sub(/^ */, ""); print }' \
		"$2.list" >"$2.default" &&
	test -s "$2.default"
}

# field NAME KEY: the value of KEY in NAME.default (its first line of it).
field()
{
	sed -n "s/^$2: //p" "$1.default" | head -1 | sed 's/ (No such file or directory)$//'
}

test_expect_success 'build and patch the images' '
	"$FIXTURES/mkimage-fedora-bls.sh" ovl.img --overlay &&
	"$FIXTURES/mkimage-fedora-bls.sh" old.img --devicetree --default="*-$OLD.conf" &&
	imgpatch patch ovl.img --dt-set "$MMC:max-frequency=<50000000>" \
		--cmdline +console=ttyS2,1500000 --cmdline -rhgb >plan &&
	imgpatch patch old.img --cmdline +nomodeset >plan.old
'

test_expect_success 'bootctl: the default entry is the one imgpatch edited' '
	listed ovl.img ovl &&
	test "$(field ovl id)" = "$MID-$NEW.conf" &&
	imgpatch cat ovl.img --cmdline | head -1 | grep -F "/loader/entries/$MID-$NEW.conf, entry"
'

test_expect_success 'bootctl: its options are what cat --cmdline prints' '
	imgpatch cat ovl.img --cmdline | tail -1 >want &&
	field ovl options >got &&
	test_cmp want got &&
	grep -w console=ttyS2,1500000 got && ! grep -w rhgb got
'

test_expect_success 'bootctl: its devicetree and overlays, in order, are the ones cat --dtb applies' '
	imgpatch cat ovl.img --dtb >dtb.out &&
	head -1 dtb.out | sed "s|^// boot path bls: ||; s| + |\n|g" >want &&
	{
		field ovl devicetree &&
		awk "/^devicetree-overlay: / { on = 1; sub(/^devicetree-overlay: /, \"\") }
		     on && /^[a-z-]+: / { exit }
		     on { sub(/ \\(No such file or directory\\)\$/, \"\"); print }" ovl.default
	} >got &&
	test_cmp want got
'

test_expect_success 'bootctl'"'"'s files make the tree cat --dtb prints (fdtoverlay)' '
	set -- $(cat got) &&
	base=$1 && shift &&
	fdtoverlay -i "ovl.boot$base" -o eff.dtb $(for o in "$@"; do echo "ovl.boot$o"; done) &&
	dtc -q -I dtb -O dts eff.dtb >want.dts &&
	tail -n +2 dtb.out >got.dts &&
	test_cmp want.dts got.dts &&
	test "$(fdtget eff.dtb $MMC max-frequency)" = 50000000
'

test_expect_success 'bootctl: loader.conf'"'"'s default picks the older entry, the one imgpatch edited' '
	listed old.img old &&
	test "$(field old id)" = "$MID-$OLD.conf" &&
	imgpatch cat old.img --cmdline | tail -1 >want &&
	field old options >got &&
	test_cmp want got &&
	grep -w nomodeset got
'

test_done
