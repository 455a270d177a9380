#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='interrupted runs: no process outlives the run, nothing is left behind, an interrupted write reports every card'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk xz debugfs e2fsck mcopy cmp ps setsid python3
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"
# Every temporary file of a run goes here: it must be empty after each one.
mkdir -p tmp && export TMPDIR=$PWD/tmp

# The pause points below exist in test builds only (make SAN=1).
if ! grep -aq IMGPATCH_TEST_PAUSE "$IMGPATCH"; then
	test_skip 'interrupted runs' 'this build has no test hooks (test builds: make SAN=1)'
	test_done
fi

# paused_write POINT ARGS...: "imgpatch ARGS" as a terminal starts it, in a
# process group of its own with SIGINT at its default (a background job of
# a script ignores it); waits until a card writer is at POINT.
paused_write()
{
	PAUSED_SETSID=1 paused_run "$@"
}

# descendants PID: every process below PID (children, their children).
descendants()
{
	local p

	for p in $(ps -o pid= --ppid "$1"); do
		echo "$p" && descendants "$p"
	done
}

# gone PID...: none of the processes is alive 1 s later (a zombie is not
# alive: it is only waiting for its parent to read its status).
gone()
{
	sleep 1
	! ps -o pid=,stat= -p "$(echo "$@" | tr " " ,)" | grep -v " Z"
}

# no_temporaries NAME...: nothing in $TMPDIR, no ".NAME.*" in this folder.
no_temporaries()
{
	local name

	for name in "$@"; do
		! ls -d ."$name".* 2>/dev/null || return 1
	done
	test -z "$(ls -A tmp)"
}

# A change in the boot partition: a file is staged for mtools (pause point "stage").
BOOT_ARGS="--fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb --fstab /:+noatime"
KEY="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab01 admin@lab"

test_expect_success 'a download, a used card, and the cards of an uninterrupted run' '
	make_kv260 kv.img &&
	extract_part kv.img 2 root.ext4 &&
	debugfs -w -R "mkdir /etc/ssh" root.ext4 &&
	debugfs -w -R "mkdir /etc/ssh/sshd_config.d" root.ext4 &&
	put_part kv.img 2 root.ext4 &&
	head -c 1048576 /dev/urandom >big.bin && mcopy -i "$(part_mtools kv.img 1)" big.bin ::/big.bin &&
	xz -T1 -0 -k kv.img && sum_file kv.img.xz >xz.sum &&
	size=$(stat -c %s kv.img) &&
	head -c $size /dev/zero | tr "\0" "\245" >junk.img &&
	{ echo "target,hostname" && echo "c1.img,lab-01" && echo "c2.img,lab-02"; } >lab.csv &&
	cp junk.img ref1.img &&
	imgpatch write kv.img.xz ref1.img ref2.img --apply hostname --apply ssh-key \
		--set user=ubuntu --set "key=$KEY" --set hostname=lab-01 >out &&
	grep "^write: 2 cards, 0 failed$" out && no_temporaries ref1.img ref2.img
'

test_expect_success 'kill -9 of write mid-write: its card writers end with it' '
	cp junk.img c1.img &&
	paused_write flash-verify write kv.img.xz c1.img c2.img --apply hostname \
		--apply ssh-key --set user=ubuntu --set "key=$KEY" --set hostname=lab-01 &&
	kids=$(descendants $pid) && test -n "$kids" &&
	kill -KILL $pid && finish && test $status = 137 &&
	gone $pid $kids &&
	# The card writers removed their copies; the new card never got its name.
	test ! -e c2.img && ls -A tmp >left && test -s left
'

test_expect_success 'the rerun removes what the killed run left, says so, and writes the same cards' '
	imgpatch write kv.img.xz c1.img c2.img --apply hostname --apply ssh-key \
		--set user=ubuntu --set "key=$KEY" --set hostname=lab-01 >out 2>err &&
	cat err &&
	test "$(grep -c "^imgpatch: removed [0-9]* temporary files\? an interrupted run left: " err)" -ge 1 &&
	grep -q "tmp/.imgpatch-work.[0-9]*......" err &&
	grep -q "\./\.c2\.img\.[0-9]*\......" err &&
	cmp ref1.img c1.img && cmp ref2.img c2.img && no_temporaries c1.img c2.img
'

test_expect_success 'SIGINT to the process group mid-write: one line, each card, the report, 130' '
	cp junk.img c1.img && rm -f c2.img &&
	paused_write flash-verify write kv.img.xz c1.img c2.img --apply hostname \
		--apply ssh-key --set user=ubuntu --set "key=$KEY" --set hostname=lab-01 \
		--json int.json &&
	kids=$(descendants $pid) &&
	kill -INT -- -$(ps -o pgid= -p $pid | tr -d " ") && finish &&
	cat run.out run.err &&
	test $status = 130 &&
	echo "imgpatch: interrupted (SIGINT)" >want.err && test_cmp want.err run.err &&
	grep "^\[[12]/2\] c1.img: interrupted: incomplete: do not use$" run.out &&
	grep "^\[[12]/2\] c2.img: interrupted, not made$" run.out &&
	grep "^c1.img  *interrupted .*  incomplete: do not use$" run.out &&
	grep "^write: 2 cards, 0 failed, 2 interrupted$" run.out &&
	gone $pid $kids && test ! -e c2.img && no_temporaries c1.img c2.img &&
	python3 -m json.tool int.json >/dev/null &&
	python3 - int.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["status"] == "interrupted" and r["error"] == "interrupted (SIGINT)", r
	c = {x["target"]: x for x in r["cards"]}
	assert c["c1.img"]["status"] == "interrupted" and c["c1.img"]["incomplete"] is True, c
	assert c["c2.img"]["status"] == "interrupted" and c["c2.img"]["incomplete"] is False, c
	EOF
'

test_expect_success 'SIGINT while write unpacks the image: no card starts, each is reported, 130' '
	cp junk.img c1.img && rm -f c2.img &&
	paused_write unpack write kv.img.xz c1.img c2.img --apply hostname \
		--apply ssh-key --set user=ubuntu --set "key=$KEY" --set hostname=lab-01 \
		--json unpack.json &&
	kill -INT -- -$(ps -o pgid= -p $pid | tr -d " ") && finish &&
	cat run.out run.err &&
	test $status = 130 &&
	echo "imgpatch: interrupted (SIGINT)" >want.err && test_cmp want.err run.err &&
	grep "^\[1/2\] c1.img: interrupted, not started$" run.out &&
	grep "^\[2/2\] c2.img: interrupted, not started$" run.out &&
	grep "^write: 2 cards, 0 failed, 2 interrupted$" run.out &&
	gone $pid && cmp junk.img c1.img && test ! -e c2.img && no_temporaries c1.img c2.img &&
	python3 -m json.tool unpack.json >/dev/null &&
	python3 - unpack.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["status"] == "interrupted" and r["error"] == "interrupted (SIGINT)", r
	got = [(c["target"], c["status"], c["incomplete"], c["written_bytes"]) for c in r["cards"]]
	assert got == [("c1.img", "interrupted", False, 0), ("c2.img", "interrupted", False, 0)], got
	assert r["cards"][0]["parameters"]["hostname"] == "lab-01", r["cards"][0]
	EOF
'

if python3 -c "import jsonschema, referencing" 2>/dev/null; then
test_expect_success 'the interrupted reports are valid against write.schema.json' '
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/write.schema.json" int.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/write.schema.json" unpack.json
'
fi

test_expect_success 'after SIGINT, a rerun writes cards identical to the uninterrupted run' '
	imgpatch write kv.img.xz c1.img c2.img --apply hostname --apply ssh-key \
		--set user=ubuntu --set "key=$KEY" --set hostname=lab-01 >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	cmp ref1.img c1.img && cmp ref2.img c2.img &&
	extract_part c1.img 2 c1.ext4 && e2fsck -fn c1.ext4 >/dev/null 2>&1 &&
	no_temporaries c1.img c2.img
'

test_expect_success 'SIGTERM while cards wait for their turn (-j 1): the others never start, 143' '
	rm -f c1.img c2.img c3.img &&
	paused_write flash-verify write kv.img c1.img c2.img c3.img -j 1 --json term.json &&
	kids=$(descendants $pid) &&
	kill -TERM $pid && finish && cat run.out &&
	test $status = 143 &&
	grep "^\[[1-3]/3\] c1.img: interrupted, not made$" run.out &&
	grep "^\[[1-3]/3\] c2.img: interrupted, not started$" run.out &&
	gone $kids && no_temporaries c1.img c2.img c3.img &&
	python3 -c "import json; r = json.load(open(\"term.json\")); \
assert [c[\"status\"] for c in r[\"cards\"]] == [\"interrupted\"] * 3, r; \
assert r[\"status\"] == \"interrupted\" and r[\"error\"] == \"interrupted (SIGTERM)\", r"
'

# batch_json REPORT SIGNAL STATUS...: the report of an interrupted batch is
# valid JSON, says which signal, and gives each image its STATUS in order.
batch_json()
{
	python3 -m json.tool "$1" >/dev/null &&
	python3 - "$@" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["status"] == "interrupted" and r["error"] == "interrupted (%s)" % sys.argv[2], r
	got = [(i["status"], i["error"], i["changes"]) for i in r["images"]]
	assert got == [(s, None, 0) for s in sys.argv[3:]], got
	assert all(i["parameters"] == {"hostname": "lab-01"} for i in r["images"]), r
	EOF
}

test_expect_success 'batch apply: the images of an uninterrupted run' '
	for i in 1 2 3; do cp kv.img b$i.img && cp kv.img want$i.img || return 1; done &&
	imgpatch apply hostname want1.img want2.img want3.img --set hostname=lab-01 >out &&
	grep "^hostname: 3 images, 0 failed$" out && ! cmp kv.img want1.img
'

test_expect_success 'SIGINT to a batch apply mid-commit (-j 1): one line, each image, the report, 130' '
	paused_write journal apply hostname b1.img b2.img b3.img --set hostname=lab-01 \
		-j 1 --json bint.json &&
	kids=$(descendants $pid) && test -n "$kids" &&
	kill -INT -- -$(ps -o pgid= -p $pid | tr -d " ") && finish &&
	cat run.out run.err &&
	test $status = 130 &&
	echo "imgpatch: interrupted (SIGINT)" >want.err && test_cmp want.err run.err &&
	grep "^\[1/3\] b[23].img: interrupted, not started$" run.out &&
	grep "^\[2/3\] b[23].img: interrupted, not started$" run.out &&
	grep "^\[3/3\] b1.img: interrupted$" run.out &&
	for i in 1 2 3; do grep "^b$i.img  *interrupted  *0 " run.out || return 1; done &&
	grep "^hostname: 3 images, 0 failed, 3 interrupted$" run.out &&
	gone $pid $kids && no_temporaries b1.img b2.img b3.img &&
	batch_json bint.json SIGINT interrupted interrupted interrupted &&
	cmp kv.img b2.img && cmp kv.img b3.img
'

if python3 -c "import jsonschema, referencing" 2>/dev/null; then
test_expect_success 'the interrupted batch report is valid against apply.schema.json' '
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/apply.schema.json" bint.json
'
fi

test_expect_success 'the image interrupted mid-commit is patched whole, and its journal restores it' '
	# The write itself is never cut short: the signal waits for its end.
	cmp want1.img b1.img &&
	extract_part b1.img 2 b1.ext4 && e2fsck -fn b1.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /etc/hostname" b1.ext4 2>/dev/null >host && echo lab-01 >host.want &&
	test_cmp host.want host &&
	imgpatch undo b1.img >undo.out && cmp kv.img b1.img && no_temporaries b1.img
'

test_expect_success 'after the interruption, a rerun makes the images of the uninterrupted run' '
	imgpatch apply hostname b1.img b2.img b3.img --set hostname=lab-01 >out &&
	grep "^hostname: 3 images, 0 failed$" out &&
	for i in 1 2 3; do cmp want$i.img b$i.img || return 1; done &&
	no_temporaries b1.img b2.img b3.img
'

for sig in TERM:143 HUP:129; do
test_expect_success "SIG${sig%:*} to a batch apply -j 2 --output-dir while copies are made: no output, ${sig#*:}" '
	rm -rf outdir && mkdir outdir &&
	for i in 1 2 3; do cp kv.img b$i.img || return 1; done &&
	paused_run copy apply hostname b1.img b2.img b3.img --set hostname=lab-01 \
		-j 2 --output-dir outdir --json bsig.json &&
	kids=$(descendants $pid) && test -n "$kids" &&
	kill -${sig%:*} $pid && finish && cat run.out run.err &&
	test $status = ${sig#*:} &&
	echo "imgpatch: interrupted (SIG${sig%:*})" >want.err && test_cmp want.err run.err &&
	grep "^\[[1-3]/3\] b1.img: interrupted$" run.out &&
	grep "^\[[1-3]/3\] b3.img: interrupted, not started$" run.out &&
	grep "^hostname: 3 images, 0 failed, 3 interrupted$" run.out &&
	gone $pid $kids &&
	test -z "$(ls -A outdir)" && no_temporaries b1.img b2.img b3.img &&
	batch_json bsig.json SIG${sig%:*} interrupted interrupted interrupted &&
	for i in 1 2 3; do cmp kv.img b$i.img || return 1; done
'
done

test_expect_success 'a closed pipe: every read-only command on an .img.xz leaves nothing' '
	set +e
	imgpatch cat kv.img.xz 1:/big.bin | head -c 10 >/dev/null
	status=${PIPESTATUS[0]}
	set -e
	test $status = 141 && no_temporaries kv.img.xz &&
	for cmd in "info" "info --json" "doctor" "doctor --json" "cat --dtb"; do
		set +e
		imgpatch $cmd kv.img.xz 2>&1 | head -c 1 >/dev/null
		status=${PIPESTATUS[0]}
		set -e
		echo "$cmd: $status" &&
		case $status in 0|1|3|141) ;; *) return 1 ;; esac &&
		no_temporaries kv.img.xz || return 1
	done &&
	test_file_unchanged kv.img.xz "$(cat xz.sum)"
'

test_expect_success 'kill -9 during --in-place: the rerun removes what it left and finishes' '
	cp kv.img.xz want.img.xz && cp kv.img.xz x.img.xz &&
	imgpatch patch want.img.xz $BOOT_ARGS --in-place >/dev/null &&
	{ IMGPATCH_TEST_PAUSE=stage:$PWD/pause "$IMGPATCH" patch x.img.xz $BOOT_ARGS \
		--in-place >run.out 2>run.err & } &&
	pid=$! &&
	for i in $(seq 1 600); do test -e pause && break; sleep 0.1; done && test -e pause &&
	kill -KILL $pid && finish &&
	ls -d .x.img.xz.* && test -n "$(ls -A tmp)" &&
	imgpatch patch x.img.xz $BOOT_ARGS --in-place >out 2>err &&
	cat err &&
	grep "^imgpatch: removed 1 temporary file an interrupted run left: \./\.x\.img\.xz\.$pid\.......$" err &&
	grep "^imgpatch: removed 1 temporary file an interrupted run left: .*/tmp/\.imgpatch-stage\.$pid\.......$" err &&
	test "$(wc -l <err)" = 2 &&
	cmp want.img.xz x.img.xz && no_temporaries x.img.xz
'

test_expect_success 'a temporary file of a run still alive is never removed' '
	{ IMGPATCH_TEST_PAUSE=stage:$PWD/pause "$IMGPATCH" patch kv.img.xz $BOOT_ARGS \
		-o live.img.xz >run.out 2>run.err & } &&
	pid=$! &&
	for i in $(seq 1 600); do test -e pause && break; sleep 0.1; done && test -e pause &&
	ls -A tmp >before &&
	imgpatch info kv.img.xz >/dev/null 2>err && test ! -s err &&
	ls -A tmp | grep -v "^\.imgpatch-work\." >after &&
	grep -v "^\.imgpatch-work\." before >before2 && test_cmp before2 after &&
	ls -d .live.img.xz.$pid.* &&
	finish && test $status = 0 && no_temporaries live.img.xz
'

test_done
