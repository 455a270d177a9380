#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='patch --via fit: a boot script without the override hook gets the FIT rewritten, hashes recomputed, the rest byte-identical'
. "$(dirname "$0")/lib.sh"

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
NODE=/images/$FDT
EDIT="--fdt $FDT --dt-delete mmc@ff170000:no-1-8-v"

# fit_of IMG OUT: the FIT of IMG's boot partition.
fit_of()
{
	off=$(part_offset "$1" 1) &&
	mcopy -n -i "$1@@$off" ::/image.fit "$2"
}

# payloads FIT PREFIX: every image's payload as dumpimage extracts it.
payloads()
{
	for i in 0 1 2 3 4 5 6; do
		dumpimage -T flat_dt -p $i -o "$2.$i" "$1" >/dev/null || return 1
	done
}

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-kv260.sh" orig.img --no-hook &&
	fit_of orig.img orig.fit && payloads orig.fit old &&
	fdtget -p old.6 /axi/mmc@ff170000 | grep -qx no-1-8-v
'

test_expect_success '--dry-run changes nothing and says via fit and why' '
	cp orig.img dry.img && sum=$(sum_file dry.img) &&
	$IMGPATCH patch dry.img $EDIT --dry-run >out &&
	grep -x "    via fit: the boot script loads no override file" out &&
	test_file_unchanged dry.img "$sum"
'

test_expect_success 'without the hook the FIT is rewritten by default' '
	cp orig.img img.img &&
	$IMGPATCH patch img.img $EDIT >out &&
	grep "p1 (vfat) /image.fit: " out &&
	fit_of img.img new.fit &&
	off=$(part_offset img.img 1) &&
	! mtype -i "img.img@@$off" ::/user-override.dtb >/dev/null 2>&1 &&
	extract_part img.img 1 p1.fat && fsck.fat -n p1.fat >fsck.log
'

test_expect_success 'dumpimage reads the new FIT; the tree lacks the property' '
	dumpimage -l new.fit >list &&
	test "$(grep -c "Hash value" list)" = 7 &&
	! grep -i "error" list &&
	payloads new.fit new &&
	fdtget -p new.6 /axi/mmc@ff170000 >props &&
	! grep -x no-1-8-v props &&
	cp old.6 expect.dtb && fdtput -d expect.dtb /axi/mmc@ff170000 no-1-8-v &&
	dtc -q -I dtb -O dts expect.dtb >expect.dts &&
	dtc -q -I dtb -O dts new.6 >new.dts &&
	test_cmp expect.dts new.dts
'

test_expect_success 'the tree hash is recomputed; every other payload is byte-identical' '
	test "$(fdtget new.fit $NODE/hash-1 algo)" = sha1 &&
	want=$(sha1sum <new.6) &&
	have=$(printf "%02x" $(fdtget -t bx new.fit $NODE/hash-1 value | sed "s/[0-9a-f][0-9a-f]*/0x&/g")) &&
	test "$have" = "${want%% *}" &&
	for i in 0 1 2 3 4 5; do cmp old.$i new.$i || return 1; done &&
	for i in 0 1 2 3 4 5; do
		name=$(fdtget -l orig.fit /images | sed -n "$((i + 1))p") &&
		test "$(fdtget -t bx orig.fit /images/$name/hash-1 value)" = \
		     "$(fdtget -t bx new.fit /images/$name/hash-1 value)" || return 1
	done
'

test_expect_success 'imgpatch verifies the hashes of every tree in the new FIT' '
	for i in 2 3 4 5 6; do
		$IMGPATCH patch img.img --fdt $i --via fit --dry-run >/dev/null || return 1
	done
'

test_expect_success 'a second run changes nothing' '
	sum=$(sum_file img.img) &&
	$IMGPATCH patch img.img $EDIT >out &&
	test_file_unchanged img.img "$sum"
'

test_expect_success 'undo restores the image' '
	cp orig.img u.img &&
	$IMGPATCH patch u.img $EDIT >/dev/null &&
	$IMGPATCH undo u.img >/dev/null &&
	cmp orig.img u.img
'

test_expect_success '--via override on a script without the hook is refused as before' '
	cp orig.img ov.img && sum=$(sum_file ov.img) &&
	test_must_fail $IMGPATCH patch ov.img $EDIT --via override 2>err &&
	grep "does not load user-override.dtb.*--force" err &&
	test_file_unchanged ov.img "$sum"
'

test_expect_success '--via fit with --dtb-out is a usage error' '
	test_must_fail_with 2 $IMGPATCH patch orig.img $EDIT --via fit --dtb-out /x.dtb &&
	test_must_fail_with 2 $IMGPATCH patch orig.img $EDIT --via bogus
'

test_expect_success 'a signed FIT is refused, the image byte-identical' '
	cp orig.img signed.img &&
	cp orig.fit signed.fit &&
	fdtput -c signed.fit /configurations/conf-zynqmp-smk-k26-revA/signature-1 &&
	fdtput -ts signed.fit /configurations/conf-zynqmp-smk-k26-revA/signature-1 algo sha256,rsa2048 &&
	off=$(part_offset signed.img 1) &&
	mcopy -o -i "signed.img@@$off" signed.fit ::/image.fit &&
	sum=$(sum_file signed.img) &&
	test_must_fail $IMGPATCH patch signed.img $EDIT 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep "^imgpatch: signed.img: .*the FIT is signed (/configurations/conf-zynqmp-smk-k26-revA/signature-1): re-signing needs the key; use --via override" err &&
	test_file_unchanged signed.img "$sum"
'

test_expect_success 'with the hook the override file is still written (default unchanged)' '
	"$FIXTURES/mkimage-kv260.sh" hook.img &&
	fit_of hook.img hook-before.fit &&
	$IMGPATCH patch hook.img $EDIT >out &&
	! grep "via fit" out &&
	off=$(part_offset hook.img 1) &&
	mtype -i "hook.img@@$off" ::/user-override.dtb >override.dtb &&
	fit_of hook.img hook-after.fit &&
	cmp hook-before.fit hook-after.fit
'

test_expect_success '--via fit with the hook rewrites the FIT' '
	"$FIXTURES/mkimage-kv260.sh" hookfit.img &&
	$IMGPATCH patch hookfit.img $EDIT --via fit >out &&
	grep -x "    via fit: --via fit" out &&
	fit_of hookfit.img hf.fit &&
	dumpimage -T flat_dt -p 6 -o hf.6 hf.fit >/dev/null &&
	fdtget -p hf.6 /axi/mmc@ff170000 >props &&
	! grep -x no-1-8-v props
'

# external_case NAME MKIMAGE-ARGS: the FIT rebuilt with external payloads
# (sha256 hashes), the middle tree (index 4) patched: the payloads after it
# move, every other payload and its hash stay, every tree verifies.
external_case()
{
	name=$1
	shift
	test_expect_success "external payloads ($name): the middle tree rewritten, the rest unchanged" '
		dtc -q -I dtb -O dts orig.fit | sed "s/algo = \"sha1\";/algo = \"sha256\";/" >x.its &&
		mkimage -E '"$*"' -f x.its $name.fit >/dev/null &&
		fdtget -p $name.fit /images/kernel-1 | grep -qx $name &&
		cp orig.img $name.img &&
		off=$(part_offset $name.img 1) &&
		mcopy -o -i "$name.img@@$off" $name.fit ::/image.fit &&
		$IMGPATCH patch $name.img --fdt 4 --dt-delete mmc@ff170000:no-1-8-v >out &&
		fit_of $name.img $name.new.fit &&
		payloads $name.fit $name.o && payloads $name.new.fit $name.n &&
		for i in 0 1 2 3 5 6; do cmp $name.o.$i $name.n.$i || return 1; done &&
		! fdtget -p $name.n.4 /axi/mmc@ff170000 | grep -x no-1-8-v &&
		want=$(sha256sum <$name.n.4) &&
		have=$(printf "%02x" $(fdtget -t bx $name.new.fit /images/fdt-smk-k26-revA-sck-kv-g-revA.dtb/hash-1 value | sed "s/[0-9a-f][0-9a-f]*/0x&/g")) &&
		test "$have" = "${want%% *}" &&
		for i in 2 3 4 5 6; do
			$IMGPATCH patch $name.img --fdt $i --via fit --dry-run >/dev/null || return 1
		done
	'
}
external_case data-offset
external_case data-position -p 0x2000

# U-Boot under QEMU, when Debian's u-boot-qemu and qemu-system-arm are
# there: iminfo verifies every hash of the rewritten FIT, imxtract gives the
# edited tree.
export QEMU_AARCH64=${QEMU_AARCH64:-qemu-system-aarch64}
export UBOOT_BIN=${UBOOT_BIN:-/usr/lib/u-boot/qemu_arm64/u-boot.bin}
if ! command -v "$QEMU_AARCH64" >/dev/null 2>&1; then
	test_skip_tool 'U-Boot verifies the rewritten FIT' "$QEMU_AARCH64"
elif [ ! -r "$UBOOT_BIN" ]; then
	test_skip_tool 'U-Boot verifies the rewritten FIT' u-boot-qemu
else
	test_expect_success 'U-Boot verifies the rewritten FIT (iminfo) and extracts the edited tree' '
		cat >fit.cmds <<-EOF &&
		scan      virtio scan
		fit       fatload virtio 0:1 \${kernel_addr_r} /image.fit
		iminfo    iminfo \${kernel_addr_r}
		extract   imxtract \${kernel_addr_r} $FDT \${ramdisk_addr_r}
		addr      fdt addr \${ramdisk_addr_r}
		list      fdt list /axi/mmc@ff170000
		EOF
		"$TEST_DIR/uboot/uboot-console.sh" uboot.console uboot img.img <fit.cmds &&
		for c in scan fit iminfo extract addr list; do
			test "$(cat uboot/$c.rc)" = 0 || { cat uboot/$c.out; return 1; }
		done &&
		cat uboot/iminfo.out &&
		test "$(grep -c "Hash(es) for Image [0-6] (.*): sha1+ *\$" uboot/iminfo.out)" = 7 &&
		! grep -i "error\|bad hash" uboot/iminfo.out &&
		grep "disable-wp" uboot/list.out &&
		! grep "no-1-8-v" uboot/list.out
	'
fi

test_done
