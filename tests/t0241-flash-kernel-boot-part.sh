#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Debian's flash-kernel (3.107) with /boot a partition of its own (p1,
# mounted at /boot by the root's fstab; the root p2): it writes
# /boot/boot.scr and /boot/dtbs, which are then at that partition's top
# (/boot.scr, /dtbs/VERSION/...). Run chrooted on the unpacked root with
# the unpacked /boot partition mounted at /boot (run_chrooted), as t0234
# runs it on a single root. Its find_dtb_file takes the first file of the
# tree's name anywhere under /etc/flash-kernel/dtbs ("find ... -name"), so
# a tree kept in a folder there is the one to edit.
test_description='flash-kernel with a /boot partition: its boot.scr claimed, an edit kept in /etc/flash-kernel/dtbs (any folder)'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs mke2fs e2fsck fdtget fdtput dtc mkimage dumpimage linux-version unshare chroot

if [ "$(id -u)" != 0 ]; then
	test_skip "flash-kernel runs chrooted on the image's root" "needs root (unshare -m, chroot, mount)"
	test_done
fi
test_require_debs flash-kernel

V=6.1.0-13-arm64
TREE=/dtbs/$V/rockchip/rk3399-rockpro64.dtb
KEPT=/etc/flash-kernel/dtbs/rk3399-rockpro64.dtb
SUBKEPT=/etc/flash-kernel/dtbs/mine/rk3399-rockpro64.dtb
MMC="mmc@fe320000"
SET="$MMC:max-frequency=<50000000>"

# The fixture's filesystem UUIDs (mkimage-extlinux.sh --boot-part), which
# the root's fstab names: p1 the /boot partition, p2 the root.
UUID1=44656269-616e-0000-0000-000000000002
UUID2=44656269-616e-0000-0000-000000000001

# repack DIR N IMG: DIR as IMG's partition N (ext4, made anew with mke2fs
# -d, its UUID kept).
repack()
{
	local uuid=UUID$2

	rm -f repack.ext4 &&
	mke2fs -q -F -t ext4 -U "${!uuid}" -d "$1" repack.ext4 $(($(part_size "$3" "$2") / 1024))k &&
	put_part "$3" "$2" repack.ext4
}

# kernel_install IMG DIR: IMG's root (p2) unpacked into DIR, its /boot
# partition (p1) into DIR.boot, and flash-kernel run there as the
# kernel's postinst hook runs it.
kernel_install()
{
	unpack_root "$1" 2 "$2" && unpack_part "$1" 1 "$2.boot" &&
	flash_kernel "$PWD/$2" "$V" "$PWD/$2.boot"
}

# fsck_both IMG: e2fsck -fn of the /boot partition and of the root.
fsck_both()
{
	extract_part "$1" 1 fsck1.ext4 && e2fsck -fn fsck1.ext4 >fsck.log 2>&1 &&
	extract_part "$1" 2 fsck2.ext4 && e2fsck -fn fsck2.ext4 >>fsck.log 2>&1
}

test_expect_success 'fixture: a Debian root with flash-kernel, /boot on p1, its files made by flash-kernel' '
	"$FIXTURES/mkimage-extlinux.sh" base.img --boot-part &&
	unpack_root base.img 2 r && unpack_part base.img 1 r.boot &&
	grep -q " /boot ext4 " r/etc/fstab &&
	rm -r r.boot/extlinux r.boot/dtb-$V &&
	cp -a deb/flash-kernel/. r/ &&
	cp r/usr/share/flash-kernel/default/flash-kernel r/etc/default/flash-kernel &&
	echo "Pine64 RockPro64" >r/etc/flash-kernel/machine &&
	flash_kernel "$PWD/r" "$V" "$PWD/r.boot" &&
	grep "Installing new boot.scr" flash-kernel.log &&
	test -f r.boot/boot.scr && ! test -e r/boot/boot.scr &&
	cmp r/usr/lib/linux-image-$V/rockchip/rk3399-rockpro64.dtb r.boot$TREE &&
	dumpimage -l r.boot/boot.scr | grep "Script" &&
	cp base.img fk.img && repack r.boot 1 fk.img && repack r 2 fk.img &&
	fsck_both fk.img
'

test_expect_success 'info: the flash-kernel path claims the /boot partition'"'"'s boot.scr' '
	imgpatch info fk.img >info &&
	grep -F "boot path: flash-kernel /boot.scr, kernel $V, tree /dtbs/$V/\${fdtfile} (p1)" info &&
	grep -Fx "  tree: $TREE" info &&
	grep -F "$KEPT is not there: flash-kernel copies the new kernel'"'"'s tree" info &&
	imgpatch info fk.img --json >info.json &&
	grep -F "\"kept_in\": \"$KEPT\"" info.json
'

test_expect_success 'patch: the tree on p1 edited, kept in the root'"'"'s /etc/flash-kernel/dtbs' '
	cp fk.img x.img &&
	imgpatch patch x.img --dt-set "$SET" >plan &&
	grep "^p1 (ext4) $TREE: " plan &&
	grep "^p2 (ext4) $KEPT: new file" plan &&
	fsck_both x.img &&
	extract_part x.img 2 x2.ext4 && debugfs -R "dump $KEPT kept.dtb" x2.ext4 >/dev/null 2>&1 &&
	extract_part x.img 1 x1.ext4 && debugfs -R "dump $TREE booted.dtb" x1.ext4 >/dev/null 2>&1 &&
	cmp kept.dtb booted.dtb &&
	test "$(fdtget kept.dtb /$MMC max-frequency)" = 50000000
'

test_expect_success 'flash-kernel at the next kernel install, /boot mounted, copies the edited tree' '
	kernel_install x.img k &&
	grep -F "Installing $KEPT into /boot$TREE" flash-kernel.log &&
	test "$(fdtget k.boot$TREE /$MMC max-frequency)" = 50000000 &&
	imgpatch cat x.img --dtb >cat.all && sed 1d cat.all >cat.dts &&
	dtc -q -I dtb -O dts -o k.dts k.boot$TREE && test_cmp cat.dts k.dts
'

test_expect_success 'rerun: the same patch changes nothing' '
	sum_file x.img >sum &&
	imgpatch patch x.img --dt-set "$SET" >again &&
	test_file_unchanged x.img "$(cat sum)"
'

test_expect_success 'fixture: the tree kept in a folder of /etc/flash-kernel/dtbs' '
	unpack_root fk.img 2 s &&
	mkdir -p s/etc/flash-kernel/dtbs/mine &&
	cp s/usr/lib/linux-image-$V/rockchip/rk3399-rockpro64.dtb s$SUBKEPT &&
	cp fk.img sub.img && repack s 2 sub.img
'

test_expect_success 'info names the kept tree in its folder, and --json its kept_in' '
	imgpatch info sub.img >info &&
	grep -F "$SUBKEPT is there: flash-kernel copies it" info &&
	imgpatch info sub.img --json >sub.json &&
	grep -F "\"kept_in\": \"$SUBKEPT\"" sub.json
'

test_expect_success 'patch edits the kept tree where it is, and flash-kernel installs it' '
	imgpatch patch sub.img --dt-set "$SET" >plan &&
	grep "^p2 (ext4) $SUBKEPT: " plan &&
	! grep "^p2 (ext4) $KEPT" plan &&
	fsck_both sub.img &&
	kernel_install sub.img m &&
	grep -F "Installing $SUBKEPT into /boot$TREE" flash-kernel.log &&
	test "$(fdtget m$SUBKEPT /$MMC max-frequency)" = 50000000 &&
	test "$(fdtget m.boot$TREE /$MMC max-frequency)" = 50000000
'

if python3 -c 'import jsonschema' 2>/dev/null; then
	test_expect_success 'info --json with kept_in is valid against tool/schema/info.schema.json' '
		python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/info.schema.json" info.json sub.json
	'
else
	test_skip_tool 'info --json with kept_in is valid against the schema' python3-jsonschema
fi

test_expect_success 'a refused patch leaves the image byte-identical' '
	test_refuses sub.img "no-such-node" imgpatch patch sub.img --dt-set "/no-such-node:x=<1>"
'

test_done
