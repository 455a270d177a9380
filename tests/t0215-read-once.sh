#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='one reading of the image: patch and info open it, run mtools and sync no more often than the bounds below (counted with strace)'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mtype debugfs fdtget strace

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
KV260_ARGS="--fdt $FDT --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"
ARM_OFF=$((8192 * 512))

# The bounds each run is held to. The format probe opens the image once,
# and that open file is what the lock is taken on and what the survey
# reads; the commit opens it once more to write. The survey reads every
# filesystem, the FIT's structure and the boot script once, and the patch
# works on what it read: one mdir lists the FAT, one mshowfat maps the FIT
# and every folder (the FIT's size comes from its folder's entry), mtype
# reads the boot script, and the commit runs mcopy and one mshowfat after
# it. The undo journal is synced once whole (regions and header), its
# folder once (so that a power cut cannot lose the new journal's name while
# the image is half written), then the image. The done mark is written
# unsynced: a ready journal whose regions all hold their new bytes reads
# as finished (t0560 kills a run just before that mark).
PATCH_OPENS=2 PATCH_MTOOLS=5 PATCH_SYNCS=3
INFO_OPENS=1 INFO_MTOOLS=3
ARMBIAN_OPENS=2 ARMBIAN_SYNCS=3

# traced NAME IMGPATCH-ARGS...: runs imgpatch under strace, one trace file
# per process (NAME.trace.PID), so that no line is split between two.
traced()
{
	local name=$1

	shift
	rm -f "$name".trace.*
	# LeakSanitizer cannot run under ptrace.
	ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 strace -ff -qq -o "$name.trace" \
		-e trace=openat,execve,fsync,fdatasync "$IMGPATCH" "$@"
}

# counts NAME IMG: "opens N mtools N syncs N" for the traced run NAME:
# imgpatch's own opens of IMG (not those of the programs it starts), the
# mtools programs started (by their names, or as "mtools -c NAME"), and the
# fsync and fdatasync calls.
counts()
{
	local main="" f opens=0 mtools syncs

	for f in "$1".trace.*; do
		if grep -q '^execve("[^"]*/imgpatch"' "$f"; then
			main=$f
		fi
	done
	[ -n "$main" ] || { echo "no trace of imgpatch itself" >&2; return 1; }
	opens=$(grep -c "^openat([^,]*, \"$2\"," "$main" || true)
	mtools=$(cat "$1".trace.* | grep -cE '^execve\("[^"]*/(mtools|mattrib|mcat|mcd|mcopy|mdel|mdeltree|mdir|mdu|mformat|minfo|mlabel|mmd|mmove|mpartition|mrd|mren|mshowfat|mtype|mzip)", .*= 0$' || true)
	syncs=$(cat "$1".trace.* | grep -cE '^f(data)?sync\(' || true)
	echo "opens $opens mtools $mtools syncs $syncs"
}

# at_most WHAT GOT MAX: says which bound a run broke.
at_most()
{
	[ "$2" -le "$3" ] || { echo "$1: $2, more than $3" >&2; return 1; }
}

test_expect_success 'build the KV260 and Armbian fixtures' '
	"$FIXTURES/mkimage-kv260.sh" kv260.img &&
	"$FIXTURES/mkimage-armbian.sh" armbian.img
'

test_expect_success 'the counting sees every open, mtools run and sync' '
	cp kv260.img probe.img &&
	traced probe patch probe.img $KV260_ARGS >out &&
	counts probe probe.img >got &&
	read -r _ opens _ mtools _ syncs <got &&
	test "$opens" -ge 2 && test "$mtools" -ge 2 && test "$syncs" -ge 2
'

test_expect_success 'KV260 patch in place: opens, mtools runs and syncs within bounds' '
	cp kv260.img p.img &&
	traced patch patch p.img $KV260_ARGS >out &&
	grep "patched p.img: 2 changes" out &&
	counts patch p.img >got && cat got &&
	read -r _ opens _ mtools _ syncs <got &&
	at_most "opens of the image" $opens $PATCH_OPENS &&
	at_most "mtools programs" $mtools $PATCH_MTOOLS &&
	at_most "fsync and fdatasync calls" $syncs $PATCH_SYNCS
'

test_expect_success 'KV260: the traced run wrote the override and the fstab line' '
	off=$(part_offset p.img 1) &&
	mtype -i "p.img@@$off" ::/user-override.dtb >override.dtb &&
	test_must_fail fdtget override.dtb /axi/mmc@ff170000 no-1-8-v &&
	extract_part p.img 2 p2.ext4 &&
	debugfs -R "cat /etc/fstab" p2.ext4 2>/dev/null | head -n 1 >line &&
	printf "LABEL=writable\t/\text4\terrors=remount-ro,noatime\t0 1\n" >want &&
	test_cmp want line
'

test_expect_success 'KV260 info: opens and mtools runs within bounds' '
	traced info info kv260.img >out &&
	grep -F "user-override.dtb" out &&
	counts info kv260.img >got && cat got &&
	read -r _ opens _ mtools _ syncs <got &&
	at_most "opens of the image" $opens $INFO_OPENS &&
	at_most "mtools programs" $mtools $INFO_MTOOLS &&
	at_most "fsync and fdatasync calls" $syncs 0
'

test_expect_success 'Armbian patch in place: opens and syncs within bounds, no mtools' '
	cp armbian.img a.img &&
	traced armbian patch a.img --dt-delete mmc@1c0f000:max-frequency >out &&
	grep "patched a.img: 1 change" out &&
	counts armbian a.img >got && cat got &&
	read -r _ opens _ mtools _ syncs <got &&
	at_most "opens of the image" $opens $ARMBIAN_OPENS &&
	at_most "mtools programs" $mtools 0 &&
	at_most "fsync and fdatasync calls" $syncs $ARMBIAN_SYNCS &&
	debugfs -R "cat /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb" \
		"a.img?offset=$ARM_OFF" >a.dtb 2>/dev/null &&
	test_must_fail fdtget a.dtb /soc/mmc@1c0f000 max-frequency
'

test_done
