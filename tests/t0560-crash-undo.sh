#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='crash safety: a kill after every single write of a KV260 patch, undo, re-run; full disks'
. "$(dirname "$0")/lib.sh"

KV260_ARGS="--fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

# clean IMG: both filesystems pass their own checkers.
clean()
{
	extract_part "$1" 1 c1.fat && fsck.fat -n c1.fat >/dev/null &&
	extract_part "$1" 2 c2.ext4 && e2fsck -fn c2.ext4 >/dev/null 2>&1
}

# crash_after N: patch a fresh copy, killed right after its Nth write (the
# test build raises SIGKILL: exit status 137); its messages in crash.err.
crash_after()
{
	rm -f img.img img.img.imgpatch-undo && cp --sparse=always orig.img img.img &&
	# The shell reports a killed child on its stderr: not this one.
	{ (IMGPATCH_TEST_CRASH_AFTER_WRITES=$1 "$IMGPATCH" patch img.img $KV260_ARGS >/dev/null 2>crash.err); } 2>/dev/null
}

test_expect_success 'fixture, and the uninterrupted result' '
	make_kv260 orig.img && clean orig.img &&
	cp orig.img want.img && imgpatch patch want.img $KV260_ARGS >/dev/null &&
	test -f want.img.imgpatch-undo
'

# The test build kills on request; a build without the hook finishes. Any
# other end (a sanitizer report, another signal, an error) fails the walk.
crash_after 1; status=$?
if [ "$status" -eq 0 ]; then
	test_skip 'a kill after every write' "this build has no crash hook (test builds: make SAN=1)"
else
	test_expect_success 'every run killed after one of its writes dies of the kill' '
		test_crash_walk crash_after >writes || { cat crash.err; false; }
	'
	writes=$(cat writes)
fi
if [ -n "${writes:-}" ]; then
	test_expect_success "the patch makes $writes writes (journal and image)" '
		test $writes -ge 4
	'
	# Killed before its last image write: refused until undone.
	for n in $(seq 1 $((writes - 2))); do
		test_expect_success "killed after write $n: refused until undone, undo restores, re-run completes" '
			test_must_fail_with $TEST_KILLED_STATUS crash_after '$n' &&
			sum_file img.img >killed.sum &&
			test_must_fail_with 1 imgpatch patch img.img $KV260_ARGS 2>err &&
			grep "interrupted imgpatch run.*undo" err &&
			sum_file img.img >refused.sum && test_cmp killed.sum refused.sum &&
			imgpatch undo img.img >out && grep "^restored img.img" out &&
			cmp orig.img img.img && clean img.img &&
			imgpatch patch img.img $KV260_ARGS >/dev/null &&
			cmp want.img img.img && clean img.img
		'
	done
	# The journal's done mark is not synced, so a power cut can lose it:
	# a ready journal whose regions all hold their new bytes is a run that
	# finished, and the next run goes on.
	test_expect_success "killed after the last image write ($((writes - 1))), before the done mark: finished, a re-run changes nothing, undo restores" '
		test_must_fail_with $TEST_KILLED_STATUS crash_after '$((writes - 1))' &&
		cmp want.img img.img && clean img.img &&
		imgpatch patch img.img $KV260_ARGS >out 2>err &&
		! grep interrupted err && cmp want.img img.img &&
		imgpatch undo img.img >out && grep "^restored img.img" out &&
		cmp orig.img img.img
	'
	test_expect_success "killed after the last write ($writes): patched, and undo still restores" '
		test_must_fail_with $TEST_KILLED_STATUS crash_after '$writes' &&
		cmp want.img img.img && clean img.img &&
		imgpatch undo img.img >/dev/null && cmp orig.img img.img
	'
	test_expect_success '--recover finishes the rollback and patches in one run' '
		test_must_fail_with $TEST_KILLED_STATUS crash_after $((writes / 2 + 1)) &&
		imgpatch patch img.img $KV260_ARGS --recover >out &&
		grep "^recovered img.img" out && cmp want.img img.img
	'
fi

test_expect_success 'undo after a finished patch restores the original' '
	cp orig.img u.img && imgpatch patch u.img $KV260_ARGS >/dev/null &&
	imgpatch undo u.img >out && cmp orig.img u.img && clean u.img &&
	test_must_fail_with 1 imgpatch undo u.img 2>err && grep "already undone" err
'

test_expect_success 'undo refuses an image that changed again since the patch' '
	cp orig.img v.img && imgpatch patch v.img $KV260_ARGS >/dev/null &&
	imgpatch patch v.img --fstab /:+commit=30 >/dev/null --undo other.undo &&
	sum_file v.img >a &&
	test_must_fail_with 1 imgpatch undo v.img 2>err && grep "changed since" err &&
	sum_file v.img >b && test_cmp a b
'

test_expect_success 'a second run on a locked image names the holder' '
	cp orig.img l.img &&
	{ flock -x l.img sleep 20 & } && holder=$! &&
	for i in 1 2 3 4 5 6 7 8 9 10; do grep -q FLOCK /proc/locks && break; sleep 0.2; done &&
	{ test_must_fail_with 1 imgpatch patch l.img $KV260_ARGS 2>err; status=$?; } ;
	kill $holder 2>/dev/null; wait $holder 2>/dev/null || true;
	test "$status" = 0 && grep "locked by another imgpatch run (pid [0-9]*)" err &&
	cmp orig.img l.img
'

test_expect_success 'a full disk while writing -o: clear error, input untouched, no output' '
	sum_file orig.img >a &&
	{ (ulimit -f 2048; exec "$IMGPATCH" patch orig.img $KV260_ARGS -o full.img) >/dev/null 2>err; test $? = 1; } &&
	grep "^imgpatch: full.img: .*File too large" err &&
	test ! -e full.img && ! ls .full.img.* 2>/dev/null &&
	sum_file orig.img >b && test_cmp a b
'

if [ "$(id -u)" = 0 ] && mkdir -p small && mount -t tmpfs -o size=16k tmpfs small 2>/dev/null; then
test_expect_success 'a full disk while writing the undo journal: the image untouched' '
	cp orig.img j.img && sum_file j.img >a &&
	test_must_fail_with 1 imgpatch patch j.img $KV260_ARGS --undo small/j.undo 2>err &&
	grep "undo journal small/j.undo: No space left" err &&
	sum_file j.img >b && test_cmp a b &&
	test ! -e small/j.undo
'
umount small
else
test_skip 'a full disk while writing the undo journal' 'no small tmpfs here (needs root)'
fi

# The ways of writing a tree a boot path names: a new overlay and its list
# on ext4 (extlinux.conf) and on FAT (the Raspberry Pi's config.txt), and
# the tree file edited in place on each. The same walk for each.
way_setup()
{
	case $1 in
	extlinux-overlay)
		WAY_FIXTURE=mkimage-extlinux.sh WAY_PART=1 WAY_FS=ext4
		WAY_ARGS="--model rockchip/rk3399-rockpro64.dtb --dt-set /mmc@fe320000:sd-uhs-sdr104=" ;;
	armbian-file)
		WAY_FIXTURE=mkimage-armbian.sh WAY_PART=1 WAY_FS=ext4
		WAY_ARGS="--dt-delete mmc@1c0f000:max-frequency" ;;
	rpi-overlay)
		WAY_FIXTURE=mkimage-rpi.sh WAY_PART=1 WAY_FS=fat
		WAY_ARGS="--model pi5 --dt-set &sdio1:max-frequency=<50000000>" ;;
	rpi-file)
		WAY_FIXTURE=mkimage-rpi.sh WAY_PART=1 WAY_FS=fat
		WAY_ARGS="--model pi4 --dt-delete mmc@7e340000:broken-cd" ;;
	esac
}

# way_clean IMG: the written filesystem passes its own checker.
way_clean()
{
	extract_part "$1" $WAY_PART wc.part &&
	if [ $WAY_FS = fat ]; then fsck.fat -n wc.part >/dev/null; else e2fsck -fn wc.part >/dev/null 2>&1; fi
}

way_after()
{
	rm -f w.img w.img.imgpatch-undo && cp --sparse=always way-orig.img w.img &&
	{ (IMGPATCH_TEST_CRASH_AFTER_WRITES=$1 "$IMGPATCH" patch w.img $WAY_ARGS >/dev/null 2>crash.err); } 2>/dev/null
}

for way in extlinux-overlay armbian-file rpi-overlay rpi-file; do
	way_setup $way
	test_expect_success "$way: fixture, and the uninterrupted result" '
		"$FIXTURES/$WAY_FIXTURE" way-orig.img && way_clean way-orig.img &&
		cp way-orig.img way-want.img && imgpatch patch way-want.img $WAY_ARGS >/dev/null &&
		! cmp -s way-orig.img way-want.img && way_clean way-want.img
	'
	if [ -z "${writes:-}" ]; then
		test_skip "$way: a kill after every write" "this build has no crash hook (test builds: make SAN=1)"
		continue
	fi
	test_expect_success "$way: every run killed after one of its writes dies of the kill" '
		test_crash_walk way_after >way-writes || { cat crash.err; false; }
	'
	way_writes=$(cat way-writes)
	for n in $(seq 1 $((way_writes - 2))); do
		test_expect_success "$way: killed after write $n of $way_writes: refused until undone, undo restores, re-run completes" '
			test_must_fail_with $TEST_KILLED_STATUS way_after '$n' &&
			test_must_fail_with 1 imgpatch patch w.img $WAY_ARGS 2>err &&
			grep "interrupted imgpatch run.*undo" err &&
			imgpatch undo w.img >/dev/null && cmp way-orig.img w.img &&
			imgpatch patch w.img $WAY_ARGS >/dev/null &&
			cmp way-want.img w.img && way_clean w.img
		'
	done
	test_expect_success "$way: killed after the last image write: finished, a re-run changes nothing" '
		test_must_fail_with $TEST_KILLED_STATUS way_after '$((way_writes - 1))' &&
		cmp way-want.img w.img &&
		imgpatch patch w.img $WAY_ARGS >/dev/null 2>err && ! grep interrupted err &&
		cmp way-want.img w.img &&
		imgpatch undo w.img >/dev/null && cmp way-orig.img w.img
	'
	test_expect_success "$way: undo after the finished patch restores every byte" '
		cp way-orig.img wu.img && imgpatch patch wu.img $WAY_ARGS >/dev/null &&
		imgpatch undo wu.img >/dev/null && cmp way-orig.img wu.img
	'
done

test_done
