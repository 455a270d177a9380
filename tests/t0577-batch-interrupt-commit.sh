#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='a batch apply interrupted while its images are mid-commit: each image patched whole, each reported interrupted, 143 or 130'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools debugfs e2fsck cmp ps setsid python3
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"
# Every temporary file of a run goes here: it must be empty after each one.
mkdir -p tmp && export TMPDIR=$PWD/tmp

# The pause point below exists in test builds only (make SAN=1).
if ! grep -aq IMGPATCH_TEST_PAUSE "$IMGPATCH"; then
	test_skip 'interrupted commits' 'this build has no test hooks (test builds: make SAN=1)'
	test_done
fi

# both_committing: each image's child is inside its in-place commit (its
# undo journal is made there, with the signals held off until the image
# is whole); the first waits at the pause point, the other behind it.
both_committing()
{
	local i

	for i in $(seq 1 600); do
		test -e b1.img.imgpatch-undo && test -e b2.img.imgpatch-undo && return 0
		sleep 0.1
	done
	return 1
}

# interrupted_run SIGNAL STATUS: what the run printed for two images it
# interrupted mid-commit, and its exit status.
interrupted_run()
{
	cat run.out run.err &&
	test $status = $2 &&
	echo "imgpatch: interrupted (SIG$1)" >want.err && test_cmp want.err run.err &&
	grep "^\[[12]/2\] b1.img: interrupted$" run.out &&
	grep "^\[[12]/2\] b2.img: interrupted$" run.out &&
	grep "^b1.img  *interrupted  *0 " run.out &&
	grep "^b2.img  *interrupted  *0 " run.out &&
	! grep -q "patched\|FAILED" run.out &&
	grep "^hostname: 2 images, 0 failed, 2 interrupted$" run.out
}

# report_interrupted REPORT SIGNAL: the --json report says so for the run
# and for each image, never "patched".
report_interrupted()
{
	python3 - "$1" "$2" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["status"] == "interrupted" and r["error"] == "interrupted (%s)" % sys.argv[2], r
	got = [(i["image"], i["status"], i["changes"], i["error"]) for i in r["images"]]
	assert got == [("b1.img", "interrupted", 0, None), ("b2.img", "interrupted", 0, None)], got
	EOF
}

# patched_whole: each image is the uninterrupted run's, its filesystem
# clean, and its journal (marked done) restores the original.
patched_whole()
{
	local i

	for i in 1 2; do
		cmp want.img b$i.img &&
		extract_part b$i.img 2 b$i.ext4 && e2fsck -fn b$i.ext4 >/dev/null 2>&1 &&
		debugfs -R "cat /etc/hostname" b$i.ext4 2>/dev/null >host &&
		echo lab-01 >host.want && test_cmp host.want host || return 1
	done
}

test_expect_success 'an image, and what the uninterrupted apply makes of it' '
	make_kv260 kv.img &&
	cp kv.img want.img &&
	imgpatch apply hostname want.img --set hostname=lab-01 --in-place >out &&
	grep "^patched want.img: 1 change$" out && ! cmp kv.img want.img &&
	rm -f want.img.imgpatch-undo
'

test_expect_success 'SIGTERM to the run alone while both images are mid-commit (-j 2): both patched whole, both reported interrupted, 143' '
	cp kv.img b1.img && cp kv.img b2.img &&
	paused_run journal apply hostname b1.img b2.img --set hostname=lab-01 \
		--in-place -j 2 --json term.json &&
	both_committing &&
	kill -TERM $pid && finish &&
	interrupted_run TERM 143 &&
	report_interrupted term.json SIGTERM &&
	patched_whole &&
	test -z "$(ls -A tmp)" && ! ls -d .b[12].img.* 2>/dev/null
'

test_expect_success 'the journal of an image interrupted mid-commit restores the original' '
	for i in 1 2; do
		imgpatch undo b$i.img >undo.out && cmp kv.img b$i.img || return 1
	done
'

test_expect_success 'SIGINT to the process group (Ctrl-C) while both images are mid-commit: the same, 130' '
	cp kv.img b1.img && cp kv.img b2.img &&
	rm -f b1.img.imgpatch-undo b2.img.imgpatch-undo &&
	PAUSED_SETSID=1 paused_run journal apply hostname b1.img b2.img --set hostname=lab-01 \
		--in-place -j 2 --json int.json &&
	both_committing &&
	kill -INT -- -$(ps -o pgid= -p $pid | tr -d " ") && finish &&
	interrupted_run INT 130 &&
	report_interrupted int.json SIGINT &&
	patched_whole &&
	test -z "$(ls -A tmp)"
'

if python3 -c "import jsonschema, referencing" 2>/dev/null; then
test_expect_success 'the reports are valid against apply.schema.json' '
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/apply.schema.json" term.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/apply.schema.json" int.json
'
fi

test_expect_success 'a rerun finds both images already applied and leaves them as they are' '
	imgpatch apply hostname b1.img b2.img --set hostname=lab-01 --in-place --json again.json >out &&
	grep "^hostname: 2 images, 0 failed$" out &&
	test "$(grep -c "already applied, 0 changes" out)" = 2 &&
	cmp want.img b1.img && cmp want.img b2.img &&
	python3 -c "import json; r = json.load(open(\"again.json\")); \
assert r[\"status\"] == \"done\", r; \
assert [i[\"status\"] for i in r[\"images\"]] == [\"already applied\"] * 2, r"
'

test_done
