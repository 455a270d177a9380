#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='exit statuses a script can use (every row of the manual table), and a --json report on every exit path'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk xz python3
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

# report_says FILE STATUS ERROR-PATTERN: FILE is JSON (python3 -m json.tool)
# with that status and an error matching the pattern (Python re.search).
report_says()
{
	python3 -m json.tool "$1" >/dev/null &&
	python3 - "$@" <<-\EOF
	import json, re, sys
	r = json.load(open(sys.argv[1]))
	assert r["status"] == sys.argv[2], r
	assert re.search(sys.argv[3], r["error"] or ""), r
	EOF
}

test_expect_success 'fixtures' '
	make_kv260 kv.img && sum_file kv.img >kv.sum && xz -T1 -0 -k kv.img &&
	size=$(stat -c %s kv.img) && truncate -s $size card.img && sum_file card.img >card.sum
'

test_expect_success '0: done, also when nothing needed changing' '
	cp kv.img a.img &&
	imgpatch apply hostname a.img --set hostname=lab-1 >/dev/null &&
	imgpatch apply hostname a.img --set hostname=lab-1 >out && grep "already applied" out &&
	imgpatch write kv.img card.img >/dev/null
'

test_expect_success '1: the image does not fit the recipe; a card failed' '
	test_must_fail_with 1 imgpatch apply rpi-sd-overclock kv.img --set model=pi3 \
		--set sd_overclock=100 2>err &&
	grep "does not match this image" err && test_file_unchanged kv.img "$(cat kv.sum)" &&
	test_must_fail_with 1 imgpatch write kv.img w1.img --apply rpi-sd-overclock \
		--set model=pi3 --set sd_overclock=100 >out &&
	grep "w1.img: FAILED" out && test ! -e w1.img
'

test_expect_success '2: every mistake in what was typed' '
	sum_file card.img >card.sum &&
	test_must_fail_with 2 imgpatch nosuch kv.img 2>err &&
	test_must_fail_with 2 imgpatch apply hostname kv.img --no-such-option 2>err &&
	test_must_fail_with 2 imgpatch apply hostname kv.img --set "hostname=not a name" 2>err &&
	grep "^imgpatch: recipe .hostname.: parameter .hostname. must be one DNS label" err &&
	test_must_fail_with 2 imgpatch apply hostname kv.img 2>err &&
	grep "parameter .hostname. is required" err &&
	test_must_fail_with 2 imgpatch apply hostname kv.img.xz --set hostname=x 2>err &&
	grep "give -o OUT" err &&
	test_must_fail_with 2 imgpatch write kv.img card.img --apply hostname \
		--set "hostname=not a name" 2>err &&
	grep "^imgpatch: card.img: recipe .hostname.: parameter .hostname. must be one DNS label" err &&
	test_must_fail_with 2 imgpatch write kv.img card.img --apply hostname 2>err &&
	grep "is required" err &&
	test_must_fail_with 2 imgpatch write kv.img card.img --apply hostname --set hostnme=x 2>err &&
	grep "^imgpatch: --set hostnme=x: no recipe given has a parameter .hostnme. (did you mean .hostname.?)$" err &&
	printf "target,hostname\ncard.img,\"x\n" >open.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --each open.csv 2>err &&
	test_must_fail_with 2 imgpatch write kv.img 2>err &&
	test_file_unchanged kv.img "$(cat kv.sum)" && test_file_unchanged card.img "$(cat card.sum)"
'

test_expect_success 'apply --json with a bad parameter: the report is written, status usage' '
	test_must_fail_with 2 imgpatch apply hostname kv.img --set "hostname=not a name" \
		--json r.json 2>err &&
	report_says r.json usage "parameter .hostname. must be one DNS label" &&
	test_file_unchanged kv.img "$(cat kv.sum)" &&
	test_must_fail_with 2 imgpatch apply hostname kv.img --json r2.json 2>err &&
	report_says r2.json usage "is required" &&
	test_must_fail_with 2 imgpatch apply --json r3.json hostname 2>err &&
	report_says r3.json usage "IMAGE"
'

test_expect_success 'write --json on every exit path: a bad value, a bad table, an unreadable image' '
	test_must_fail_with 2 imgpatch write kv.img card.img --apply hostname \
		--set "hostname=not a name" --json w.json 2>err &&
	report_says w.json usage "card.img: recipe .hostname.: parameter .hostname. must be" &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --each open.csv \
		--json w2.json 2>err &&
	report_says w2.json usage "open.csv:2: a quoted field is not closed" &&
	test_must_fail_with 1 imgpatch write nosuch.img card.img --json w3.json 2>err &&
	report_says w3.json failed "nosuch.img" &&
	test_file_unchanged card.img "$(cat card.sum)"
'

if python3 -c "import jsonschema, referencing" 2>/dev/null; then
test_expect_success 'the reports of runs that stopped early are valid against their schemas' '
	for f in r.json r2.json r3.json; do
		python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/apply.schema.json" $f ||
			return 1
	done &&
	for f in w.json w2.json w3.json; do
		python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/write.schema.json" $f ||
			return 1
	done
'
fi

test_expect_success 'secrets are "set" in the report, never their value' '
	imgpatch write kv.img s1.img --apply cloud-init-wifi --set ssid=lab-net \
		--set password=secret-wifi-1 --set country=GB --json s.json >out &&
	! grep secret-wifi-1 s.json &&
	python3 - s.json <<-\EOF
	import json, sys
	c = json.load(open(sys.argv[1]))["cards"][0]
	assert c["parameters"]["password"] == "set" and c["parameters"]["ssid"] == "lab-net", c
	EOF
'

test_done
