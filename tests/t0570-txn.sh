#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='transactions: an undo journal only for its own image, never through a link; one lock for every write; signals remove every temporary file'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk xz cmp env fdtget strace

KV260_ARGS="--fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"
# Temporary files staged for mtools go here: it must be empty after every run.
mkdir -p tmp && export TMPDIR=$PWD/tmp

# no_temporaries NAME...: no ".NAME.*" beside the outputs, nothing in $TMPDIR.
no_temporaries()
{
	local name

	for name in "$@"; do
		! ls -d ."$name".* 2>/dev/null || return 1
	done
	test -z "$(ls -A tmp)"
}

# interrupted SIG STATUS: the run said so in exactly one line and died of SIG.
interrupted()
{
	test "$status" = "$2" && echo "imgpatch: interrupted ($1)" >want.err &&
	test_cmp want.err run.err
}

test_expect_success 'fixture, and the uninterrupted result' '
	make_kv260 orig.img && sum_file orig.img >orig.sum &&
	cp orig.img want.img && imgpatch patch want.img $KV260_ARGS >/dev/null &&
	rm want.img.imgpatch-undo && xz -k -T1 orig.img && no_temporaries want.img
'

test_expect_success 'a symbolic link as the journal: refused, its target untouched' '
	cp orig.img s.img && echo precious >victim.txt && ln -s victim.txt s.img.imgpatch-undo &&
	test_must_fail_with 1 imgpatch patch s.img $KV260_ARGS >/dev/null 2>err &&
	grep "^imgpatch: s.img: undo journal s.img.imgpatch-undo is a symbolic link: not following it$" err &&
	echo precious >want.txt && test_cmp want.txt victim.txt &&
	test_file_unchanged s.img "$(cat orig.sum)"
'

test_expect_success 'a dangling link as the journal: refused, nothing created' '
	ln -s created.txt dangling.undo &&
	test_must_fail_with 1 imgpatch patch s.img $KV260_ARGS --undo dangling.undo >/dev/null 2>err &&
	grep "dangling.undo is a symbolic link" err && test ! -e created.txt &&
	test_file_unchanged s.img "$(cat orig.sum)"
'

test_expect_success 'undo through a linked journal is refused, the journal untouched' '
	cp orig.img l.img && imgpatch patch l.img $KV260_ARGS >/dev/null &&
	mv l.img.imgpatch-undo real.undo && ln -s real.undo l.img.imgpatch-undo &&
	sum_file l.img >l.sum && sum_file real.undo >j.sum &&
	test_must_fail_with 1 imgpatch undo l.img 2>err &&
	grep "is a symbolic link: not following it" err &&
	test_file_unchanged l.img "$(cat l.sum)" && test_file_unchanged real.undo "$(cat j.sum)"
'

test_expect_success 'a file that is no journal is never overwritten by one' '
	cp orig.img n.img && echo notes >notes.txt &&
	test_must_fail_with 1 imgpatch patch n.img $KV260_ARGS --undo notes.txt >/dev/null 2>err &&
	grep "notes.txt is not an imgpatch undo journal" err &&
	echo notes >want.txt && test_cmp want.txt notes.txt &&
	test_file_unchanged n.img "$(cat orig.sum)"
'

test_expect_success 'a finished journal of another image with another disk: refused by its identity' '
	cp orig.img d.img && imgpatch patch d.img $KV260_ARGS >/dev/null &&
	cp orig.img e.img && sfdisk -q --disk-id e.img 0D15C0DE-0000-4000-8000-000000000001 &&
	sum_file d.img >d.sum && sum_file e.img >e.sum &&
	test_must_fail_with 1 imgpatch undo e.img --undo d.img.imgpatch-undo 2>err &&
	test $(wc -l <err) = 1 &&
	grep "^imgpatch: e.img: undo journal d.img.imgpatch-undo was made for d.img (gpt disk 4b563236-0000-4000-8000-000000000000, [0-9]* bytes), not this image (gpt disk 0d15c0de-0000-4000-8000-000000000001, [0-9]* bytes)$" err &&
	test_file_unchanged d.img "$(cat d.sum)" && test_file_unchanged e.img "$(cat e.sum)"
'

# sync_order TRACE NAME: the order of the syncs and the rename that put the
# output NAME in place, from "strace -y": fsync file, rename, fsync folder.
sync_order()
{
	awk -v name="$2" -v dir="$PWD" '
		index($0, "fsync(") && index($0, "/." name ".") { print "fsync file" }
		index($0, "rename(") && index($0, ", \"" name "\")") { print "rename" }
		index($0, "fsync(") && index($0, "<" dir ">)") { print "fsync folder" }
	' "$1" | uniq
}

test_expect_success 'an output is synced, renamed, and then its folder synced' '
	# LeakSanitizer cannot run under ptrace.
	ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 strace -f -y -e trace=fsync,rename -o trace \
		"$IMGPATCH" patch orig.img --fstab /:+noatime -o st.img >/dev/null &&
	sync_order trace st.img >order &&
	printf "fsync file\nrename\nfsync folder\n" >want.order && test_cmp want.order order
'

# The test build pauses on request; a build without the hook never does.
IMGPATCH_TEST_PAUSE=copy:$PWD/probe "$IMGPATCH" patch orig.img --fstab /:+noatime \
	-o probe.img >/dev/null 2>&1 &
probe_pid=$!
while [ ! -e probe ] && kill -0 $probe_pid 2>/dev/null; do sleep 0.1; done
hooks=no && [ ! -e probe ] || hooks=yes
rm -f probe && wait $probe_pid && rm -f probe.img
if [ $hooks = no ]; then
	test_skip 'interrupted runs, concurrent runs, undo of an unfinished journal' \
		'this build has no test hooks (test builds: make SAN=1)'
	test_done
fi

test_expect_success 'an unfinished journal undone into another image of the same size: refused, both unchanged' '
	cp orig.img b.img && cp orig.img c.img &&
	imgpatch patch c.img --fstab /:+commit=30 >/dev/null &&
	paused_run journal patch b.img $KV260_ARGS && kill -KILL $pid && finish &&
	test "$status" = 137 && sum_file b.img >b.sum && sum_file c.img >c.sum &&
	test_file_unchanged b.img "$(cat orig.sum)" &&
	test_must_fail_with 1 imgpatch undo c.img --undo b.img.imgpatch-undo 2>err &&
	grep "^imgpatch: c.img: bytes [0-9]*-[0-9]* hold neither the content before nor after the run that left undo journal b.img.imgpatch-undo (for b.img): not undoing (--force does it anyway)$" err &&
	test_file_unchanged b.img "$(cat b.sum)" && test_file_unchanged c.img "$(cat c.sum)" &&
	test_must_fail_with 1 imgpatch patch c.img --fstab /:+commit=30 --undo b.img.imgpatch-undo --recover 2>err &&
	grep "hold neither" err && test_file_unchanged c.img "$(cat c.sum)" &&
	imgpatch undo b.img >out && grep "^restored b.img" out && cmp orig.img b.img
'

test_expect_success 'an unfinished journal of another disk is refused by its identity in every state' '
	cp orig.img f.img && paused_run journal patch f.img $KV260_ARGS && kill -KILL $pid && finish &&
	cp orig.img g.img && sfdisk -q --disk-id g.img 0D15C0DE-0000-4000-8000-000000000002 &&
	sum_file g.img >g.sum &&
	test_must_fail_with 1 imgpatch undo g.img --undo f.img.imgpatch-undo 2>err &&
	grep "was made for f.img (gpt disk 4b563236-.*not this image (gpt disk 0d15c0de-" err &&
	test_file_unchanged g.img "$(cat g.sum)" &&
	imgpatch undo f.img >/dev/null && cmp orig.img f.img &&
	test_must_fail_with 1 imgpatch undo g.img --undo f.img.imgpatch-undo 2>err &&
	grep "was made for f.img" err && test_file_unchanged g.img "$(cat g.sum)"
'

test_expect_success 'two --in-place runs on one .img.xz: the second is refused while the first runs' '
	cp orig.img.xz x.img.xz &&
	paused_run stage patch x.img.xz $KV260_ARGS --in-place &&
	test_must_fail_with 1 imgpatch patch x.img.xz --fstab /:+commit=30 --in-place >/dev/null 2>err &&
	grep "^imgpatch: x.img.xz: locked by another imgpatch run (pid $pid): wait for it to finish$" err &&
	finish && test "$status" = 0 &&
	imgpatch patch x.img.xz --fstab /:+commit=30 --in-place >/dev/null &&
	imgpatch cat x.img.xz writable:/etc/fstab >fstab &&
	grep "^LABEL=writable	/	ext4	errors=remount-ro,noatime,commit=30	0 1$" fstab &&
	imgpatch cat x.img.xz 1:/user-override.dtb >o.dtb && fdtget -p o.dtb /axi/mmc@ff170000 >props &&
	! grep -qx no-1-8-v props &&
	xz -t x.img.xz && no_temporaries x.img.xz
'

test_expect_success 'SIGINT while -o copies the image: one line, 130, nothing left' '
	paused_run copy patch orig.img $KV260_ARGS -o o1.img &&
	kill -INT $pid && finish && interrupted SIGINT 130 &&
	test ! -e o1.img && no_temporaries o1.img && test_file_unchanged orig.img "$(cat orig.sum)"
'

test_expect_success 'SIGINT while a file is staged for mtools (-o): nothing left in $TMPDIR' '
	paused_run stage patch orig.img $KV260_ARGS -o o2.img.xz &&
	test -n "$(ls -A tmp)" && kill -INT $pid && finish && interrupted SIGINT 130 &&
	test ! -e o2.img.xz && no_temporaries o2.img.xz && test_file_unchanged orig.img "$(cat orig.sum)"
'

test_expect_success 'SIGTERM during --in-place on an .img.xz: 143, the image unchanged, unlocked' '
	cp orig.img.xz y.img.xz && sum_file y.img.xz >y.sum &&
	paused_run stage patch y.img.xz $KV260_ARGS --in-place &&
	kill -TERM $pid && finish && interrupted SIGTERM 143 &&
	test_file_unchanged y.img.xz "$(cat y.sum)" && no_temporaries y.img.xz &&
	imgpatch patch y.img.xz $KV260_ARGS --in-place >/dev/null && no_temporaries y.img.xz
'

for point in stage journal; do
	test_expect_success "SIGINT in place, at $point: held off until the image is written, then undo restores it" '
		cp orig.img i.img && rm -f i.img.imgpatch-undo &&
		paused_run '$point' patch i.img $KV260_ARGS &&
		kill -INT $pid && sleep 0.3 && kill -0 $pid && finish && interrupted SIGINT 130 &&
		cmp want.img i.img && no_temporaries i.img &&
		imgpatch undo i.img >/dev/null && cmp orig.img i.img
	'
done

test_done
