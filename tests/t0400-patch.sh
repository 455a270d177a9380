#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='patch: KV260 device tree and fstab, in place and with -o, checked by real tools'
. "$(dirname "$0")/lib.sh"

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
KV260_ARGS="--fdt $FDT --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

# The fdt as the FIT holds it, and what `fdtput -d` makes of it: the oracle.
expected_dtb()
{
	img=$1 index=$2
	off=$(part_offset "$img" 1) &&
	mcopy -n -i "$img@@$off" ::/image.fit image.fit.orig &&
	dumpimage -T flat_dt -p "$index" -o chosen.dtb image.fit.orig >/dev/null &&
	cp chosen.dtb expect.dtb &&
	fdtput -d expect.dtb /axi/mmc@ff170000 no-1-8-v
}

# The patched image: FAT and ext4 clean, the dtb and fstab exactly as expected.
check_patched()
{
	img=$1
	off=$(part_offset "$img" 1) &&
	extract_part "$img" 1 p1.fat && fsck.fat -n p1.fat >fsck-fat.log &&
	extract_part "$img" 2 p2.ext4 && e2fsck -fn p2.ext4 >e2fsck.log 2>&1 &&
	mtype -i "$img@@$off" ::/user-override.dtb >override.dtb &&
	cmp expect.dtb override.dtb &&
	dtc -q -I dtb -O dts chosen.dtb >chosen.dts &&
	dtc -q -I dtb -O dts override.dtb >override.dts &&
	{ diff chosen.dts override.dts >dts.diff; test $? = 1; } &&
	echo "<no-1-8-v;" >dts.expect &&
	grep "^[<>]" dts.diff | tr -d " \t" >dts.got && test_cmp dts.expect dts.got &&
	debugfs -R "cat /etc/fstab" p2.ext4 >fstab.new 2>/dev/null &&
	printf "LABEL=writable\t/\text4\terrors=remount-ro,noatime\t0 1\n" >fstab.line &&
	head -n 1 fstab.new >fstab.got && test_cmp fstab.line fstab.got &&
	tail -n +2 fstab.new >rest.new && tail -n +2 fstab.orig >rest.orig &&
	test_cmp rest.orig rest.new
}

test_expect_success 'build the GPT / FAT32 KV260 fixture' '
	"$FIXTURES/mkimage-kv260.sh" gpt.img &&
	cp gpt.img gpt.orig &&
	extract_part gpt.orig 2 orig.ext4 &&
	debugfs -R "cat /etc/fstab" orig.ext4 >fstab.orig 2>/dev/null &&
	debugfs -R "stat /etc/fstab" orig.ext4 2>/dev/null | grep -E "^Inode:|^User:" >stat.orig &&
	expected_dtb gpt.orig 6
'

test_expect_success '--dry-run prints the plan and changes no byte' '
	$IMGPATCH patch gpt.img $KV260_ARGS --dry-run >plan &&
	grep "user-override.dtb: new file" plan &&
	grep "^    via override: the boot script loads /user-override.dtb$" plan &&
	grep "/axi/mmc@ff170000: delete no-1-8-v" plan &&
	grep "^-LABEL=writable" plan && grep "^+LABEL=writable.*noatime" plan &&
	grep "dry run: 2 changes planned, nothing written" plan &&
	cmp gpt.img gpt.orig
'

test_expect_success 'patch in place' '
	$IMGPATCH patch gpt.img $KV260_ARGS >out &&
	grep "patched gpt.img: 2 changes" out
'

test_expect_success 'FAT and ext4 clean; dtb is the fdt minus no-1-8-v; fstab differs in one entry' '
	check_patched gpt.img
'

test_expect_success 'fstab kept its inode number and owner (rewritten in place)' '
	debugfs -R "stat /etc/fstab" p2.ext4 2>/dev/null | grep -E "^Inode:|^User:" >stat.new &&
	sed "s/Generation.*//" stat.orig >a && sed "s/Generation.*//" stat.new >b &&
	test_cmp a b
'

test_expect_success 'a second run changes no byte and says so' '
	sum_file gpt.img >sum.before &&
	$IMGPATCH patch gpt.img $KV260_ARGS >out2 &&
	grep "unchanged (already applied)" out2 &&
	grep "nothing to change" out2 &&
	sum_file gpt.img >sum.after && test_cmp sum.before sum.after
'

test_expect_success '--dry-run on the patched image changes no byte' '
	$IMGPATCH patch gpt.img $KV260_ARGS --dry-run >out3 &&
	grep "dry run: 0 changes planned" out3 &&
	sum_file gpt.img >sum.after2 && test_cmp sum.before sum.after2
'

test_expect_success '-o writes a patched sparse copy and leaves the input byte-identical' '
	cp gpt.orig in.img && sum_file in.img >in.sum &&
	$IMGPATCH patch in.img $KV260_ARGS -o copy.img >out4 &&
	sum_file in.img >in.sum2 && test_cmp in.sum in.sum2 &&
	check_patched copy.img &&
	test $(($(stat -c %b copy.img) * 512)) -lt $(stat -c %s copy.img) &&
	test "$(stat -c %s copy.img)" = "$(stat -c %s in.img)" &&
	! ls .copy.img.* 2>/dev/null
'

test_expect_success 'label and absolute path select the same node' '
	cp gpt.orig lbl.img &&
	$IMGPATCH patch lbl.img --fdt 6 --dt-delete "&sdhci1:no-1-8-v" >/dev/null &&
	off=$(part_offset lbl.img 1) &&
	mtype -i "lbl.img@@$off" ::/user-override.dtb >lbl.dtb && cmp expect.dtb lbl.dtb &&
	cp gpt.orig abs.img &&
	$IMGPATCH patch abs.img --fdt $FDT --dt-delete /axi/mmc@ff170000:no-1-8-v >/dev/null &&
	mtype -i "abs.img@@$off" ::/user-override.dtb >abs.dtb && cmp expect.dtb abs.dtb
'

test_expect_success 'replacing user-override.dtb leaves one directory entry' '
	cp gpt.orig twice.img &&
	$IMGPATCH patch twice.img --fdt 4 --dt-delete mmc@ff170000:no-1-8-v >/dev/null &&
	$IMGPATCH patch twice.img --fdt 6 --dt-delete mmc@ff170000:no-1-8-v >/dev/null &&
	off=$(part_offset twice.img 1) &&
	mdir -b -i "twice.img@@$off" :: >listing &&
	test "$(grep -ci user-override listing)" = 1 &&
	mtype -i "twice.img@@$off" ::/user-override.dtb >t.dtb && cmp expect.dtb t.dtb &&
	extract_part twice.img 1 twice.fat && fsck.fat -n twice.fat >/dev/null
'

test_expect_success 'a property the loaded tree never had is refused, not reported done' '
	cp gpt.orig absent.img &&
	test_must_fail $IMGPATCH patch absent.img --fdt fdt-zynqmp-smk-k26-revA.dtb \
		--dt-delete mmc@ff170000:no-1-8-v >out5 2>err5 &&
	grep "property .no-1-8-v. not found (the node has: compatible, " err5 &&
	cmp gpt.orig absent.img
'

test_expect_success 'build the MBR / FAT16 fixture with logical partitions' '
	"$FIXTURES/mkimage-kv260.sh" mbr.img --mbr --fat16 &&
	cp mbr.img mbr.orig &&
	extract_part mbr.orig 2 orig.ext4 &&
	debugfs -R "cat /etc/fstab" orig.ext4 >fstab.orig 2>/dev/null &&
	expected_dtb mbr.orig 6
'

test_expect_success 'patch the MBR / FAT16 image and check it' '
	$IMGPATCH patch mbr.img $KV260_ARGS >out6 &&
	check_patched mbr.img
'

test_done
