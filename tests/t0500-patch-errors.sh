#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='patch: bad input gets a one-line error, exit 1 (2 for usage), and no byte changes'
. "$(dirname "$0")/lib.sh"

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
KV260_ARGS="--fdt $FDT --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

# refuses IMAGE STATUS PATTERN ARGS...: exit status, one stderr line
# matching PATTERN and naming the image, and the image byte-identical.
refuses()
{
	img=$1 status=$2 pattern=$3
	shift 3
	sum_file "$img" >before.sum &&
	test_must_fail_with "$status" $IMGPATCH patch "$img" "$@" >out 2>err &&
	cat err &&
	grep -q -- "$pattern" err &&
	if [ "$status" = 1 ]; then
		test "$(grep -vc "^imgpatch: warning:" err)" = 1 &&
		grep -q "^imgpatch: $img: " err
	fi &&
	sum_file "$img" >after.sum && test_cmp before.sum after.sum
}

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-kv260.sh" good.img &&
	"$FIXTURES/mkimage-kv260.sh" nofit.img --no-fit &&
	"$FIXTURES/mkimage-kv260.sh" nohook.img --no-hook
'

test_expect_success 'usage errors exit 2' '
	test_must_fail_with 2 $IMGPATCH &&
	test_must_fail_with 2 $IMGPATCH frobnicate &&
	test_must_fail_with 2 $IMGPATCH patch good.img &&
	test_must_fail_with 2 $IMGPATCH patch good.img --bogus &&
	refuses good.img 2 "expected NODE:PROP" --fdt 6 --dt-delete no-1-8-v &&
	refuses good.img 2 "expected MOUNTPOINT" --fstab /noatime
'

test_expect_success 'missing image' '
	test_must_fail_with 1 $IMGPATCH patch nonexistent.img $KV260_ARGS 2>err &&
	grep "^imgpatch: nonexistent.img: .*No such file" err
'

test_expect_success 'truncated image' '
	head -c 3M good.img >trunc.img &&
	refuses trunc.img 1 "past the end\|beyond\|truncated" $KV260_ARGS
'

test_expect_success 'no partition table' '
	truncate -s 8M blank.img &&
	refuses blank.img 1 "no partition table" $KV260_ARGS
'

test_expect_success 'bad CRC in both GPT headers' '
	cp good.img badcrc.img &&
	size=$(stat -c %s badcrc.img) &&
	printf "\377" | dd of=badcrc.img bs=1 seek=$((512 + 16)) conv=notrunc 2>/dev/null &&
	printf "\377" | dd of=badcrc.img bs=1 seek=$((size - 512 + 16)) conv=notrunc 2>/dev/null &&
	refuses badcrc.img 1 "GPT" $KV260_ARGS
'

test_expect_success 'bad primary GPT CRC alone: warning, backup header used' '
	cp good.img primary.img &&
	printf "\377" | dd of=primary.img bs=1 seek=$((512 + 16)) conv=notrunc 2>/dev/null &&
	$IMGPATCH patch primary.img $KV260_ARGS --dry-run >out 2>err &&
	grep "warning: .*backup" err
'

test_expect_success 'missing image.fit' '
	refuses nofit.img 1 "no partition has /image.fit" $KV260_ARGS
'

test_expect_success 'unknown fdt lists the fdt images there are' '
	refuses good.img 1 "fdt .nope. not found (have: .*fdt-smk-k26-revA-sck-kv-g-revB.dtb" \
		--fdt nope --dt-delete mmc@ff170000:no-1-8-v
'

test_expect_success 'an index that is not an fdt' '
	refuses good.img 1 "not a flat_dt\|is a kernel" --fdt 0 --dt-delete mmc@ff170000:no-1-8-v
'

test_expect_success 'ambiguous node lists the candidates' '
	refuses good.img 1 "mmc@ff160000.*mmc@ff170000\|mmc@ff170000.*mmc@ff160000" \
		--fdt 6 --dt-delete mmc:no-1-8-v
'

test_expect_success 'missing node' '
	refuses good.img 1 "mmc@12345678" --fdt 6 --dt-delete mmc@12345678:no-1-8-v
'

test_expect_success 'fstab without that mount point' '
	refuses good.img 1 "no fstab entry for ./home. (have: /, /boot/firmware" --fstab /home:+noatime
'

test_expect_success 'a bad fstab step stops the good device-tree step too' '
	refuses good.img 1 "/srv" $KV260_ARGS --fstab /srv:+noatime
'

test_expect_success 'a dirty ext4 root is refused' '
	cp good.img dirty.img &&
	extract_part dirty.img 2 dirty.ext4 &&
	debugfs -w -R "ssv state 2" dirty.ext4 2>/dev/null &&
	put_part dirty.img 2 dirty.ext4 &&
	refuses dirty.img 1 "errors\|e2fsck" --fstab /:-discard
'

test_expect_success 'an ext4 root that needs journal recovery is refused' '
	cp good.img journal.img &&
	extract_part journal.img 2 journal.ext4 &&
	debugfs -w -R "feature needs_recovery" journal.ext4 >/dev/null 2>&1 &&
	put_part journal.img 2 journal.ext4 &&
	refuses journal.img 1 "recovery" --fstab /:-discard
'

test_expect_success 'boot script without the user-override.dtb hook: --via override refused without --force' '
	refuses nohook.img 1 "does not load user-override.dtb.*--force" $KV260_ARGS --via override
'

test_expect_success '--force writes it anyway, loudly' '
	$IMGPATCH patch nohook.img $KV260_ARGS --force >out 2>err &&
	grep "warning: .*ignore" err &&
	off=$(part_offset nohook.img 1) &&
	mtype -i "nohook.img@@$off" ::/user-override.dtb >x.dtb &&
	fdtget -p x.dtb /axi/mmc@ff170000 >props && ! grep -x no-1-8-v props
'

test_expect_success 'a corrupt FIT payload (hash mismatch) is refused' '
	cp good.img corrupt.img &&
	off=$(part_offset corrupt.img 1) &&
	mcopy -n -i "corrupt.img@@$off" ::/image.fit fit &&
	fdtput -t x fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb/hash-1 value 0 0 0 0 0 &&
	mcopy -o -i "corrupt.img@@$off" fit ::/image.fit &&
	refuses corrupt.img 1 "hash mismatch" --fdt 6 --dt-delete mmc@ff170000:no-1-8-v
'

test_done
