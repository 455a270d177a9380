#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='exit statuses a script can use (every row of the manual table), and a --json report on every exit path'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk xz python3 mcopy
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

test_expect_success '0: --help and --version' '
	imgpatch --help >out && grep "^Usage: imgpatch COMMAND" out &&
	imgpatch apply --help >out && grep "^Usage: imgpatch apply RECIPE IMAGE" out &&
	imgpatch --version >out && grep "^imgpatch [0-9a-z.+~-]*$" out
'

test_expect_success '1: the image does not fit the recipe; a card failed' '
	test_must_fail_with 1 imgpatch apply rpi-sd-overclock kv.img --set model=pi3 \
		--set sd_overclock=100 2>err &&
	grep "does not match this image" err && test_file_unchanged kv.img "$(cat kv.sum)" &&
	test_must_fail_with 1 imgpatch write kv.img w1.img --apply rpi-sd-overclock \
		--set model=pi3 --set sd_overclock=100 >out &&
	grep "w1.img: FAILED" out && test ! -e w1.img
'

test_expect_success '1: an output folder that does not exist, an image that cannot be read, an image of a batch that failed' '
	test_must_fail_with 1 imgpatch apply hostname kv.img --set hostname=x -o nodir/o.img 2>err &&
	grep "^imgpatch: nodir/o.img: cannot write the output: folder nodir does not exist$" err &&
	test_must_fail_with 1 imgpatch info nosuch.img 2>err &&
	grep "^imgpatch: nosuch.img: cannot open: No such file or directory$" err &&
	head -c 100000 kv.img >short.img &&
	test_must_fail_with 1 imgpatch cat short.img 1:/boot.scr 2>err && grep "^imgpatch: short.img: " err &&
	cp kv.img b1.img &&
	test_must_fail_with 1 imgpatch apply hostname b1.img nosuch.img --set hostname=lab-1 >out &&
	grep "^\[[12]/2\] nosuch.img: FAILED: " out && grep "^hostname: 2 images, 1 failed$" out &&
	! cmp kv.img b1.img && test_file_unchanged kv.img "$(cat kv.sum)"
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

test_expect_success '2: a recipe name, a missing argument, an option value, a table column' '
	test_must_fail_with 2 imgpatch apply hostnme kv.img --set hostname=x 2>err &&
	grep "did you mean .hostname.?" err &&
	test_must_fail_with 2 imgpatch apply hostname 2>err && grep "IMAGE" err &&
	test_must_fail_with 2 imgpatch write kv.img card.img -j zero 2>err &&
	grep "^imgpatch: --jobs .zero.: expected a number from 1 to 256$" err &&
	printf "image,hostname,colour\nkv.img,x,red\n" >col.csv &&
	test_must_fail_with 2 imgpatch apply hostname kv.img --each col.csv 2>err &&
	grep "^imgpatch: col.csv:1: recipe hostname has no parameter .colour." err &&
	test_file_unchanged kv.img "$(cat kv.sum)" && test_file_unchanged card.img "$(cat card.sum)"
'

test_expect_success '2: a --model that names no tree, for cat, doctor and patch; the trees are listed' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img && sum_file rpi.img >rpi.sum &&
	have="(have: conf-zynqmp-smk-k26-revA, conf-smk-k26-revA-sck-kr-g-revA, .*conf-smk-k26-revA-sck-kv-g-revB)" &&
	for img in kv.img kv.img.xz; do
		test_must_fail_with 2 imgpatch cat $img --dtb --model nosuch >out 2>err &&
		test ! -s out && test "$(wc -l <err)" = 1 &&
		grep "^imgpatch: $img: no tree .nosuch. $have$" err &&
		test_must_fail_with 2 imgpatch doctor $img --model nosuch >out 2>err &&
		grep "^imgpatch: $img: --model .nosuch.: no tree .nosuch. $have$" err || return 1
	done &&
	test_must_fail_with 2 imgpatch patch rpi.img --model pi9 \
		--dt-set "&sdio1:max-frequency=<50000000>" 2>err &&
	grep "no tree for model .pi9. (have: pi4 /bcm2711-rpi-4-b.dtb, pi5 /bcm2712-rpi-5-b.dtb)$" err &&
	test_file_unchanged rpi.img "$(cat rpi.sum)" && test_file_unchanged kv.img "$(cat kv.sum)" &&
	# A --model that names a tree is no mistake: the same commands succeed.
	imgpatch cat kv.img --dtb --model conf-smk-k26-revA-sck-kv-g-revB >out && grep "^// " out &&
	imgpatch patch rpi.img --model pi5 --dry-run --dt-set "&sdio1:max-frequency=<50000000>" >out
'

test_expect_success '3: doctor --fail-on found something at that severity' '
	imgpatch doctor kv.img >out &&
	test_must_fail_with 3 imgpatch doctor kv.img --fail-on warning >out &&
	grep "warning" out
'

test_expect_success '128+N: a closed output pipe is 141, and leaves nothing' '
	mkdir -p tmp && cp kv.img big.img &&
	head -c 1048576 /dev/urandom >big.bin && mcopy -i "$(part_mtools big.img 1)" big.bin ::/big.bin &&
	xz -T1 -0 big.img &&
	set +e
	TMPDIR=$PWD/tmp imgpatch cat big.img.xz 1:/big.bin | head -c 1 >/dev/null
	status=${PIPESTATUS[0]}
	set -e
	test $status = 141 && test -z "$(ls -A tmp)"
'

if grep -aq IMGPATCH_TEST_PAUSE "$IMGPATCH"; then
for sig in INT:130 TERM:143 HUP:129 QUIT:131; do
test_expect_success "128+N: SIG${sig%:*} is ${sig#*:}, one line, nothing left behind" '
	rm -f o.img &&
	paused_run copy patch kv.img -o o.img --fstab /:+noatime &&
	kill -${sig%:*} $pid && finish &&
	test $status = ${sig#*:} &&
	echo "imgpatch: interrupted (SIG${sig%:*})" >want.err && test_cmp want.err run.err &&
	test ! -e o.img && ! ls -d .o.img.* 2>/dev/null &&
	test_file_unchanged kv.img "$(cat kv.sum)"
'
done
else
	test_skip '128+N: SIGINT, SIGTERM, SIGHUP, SIGQUIT' 'this build has no test hooks (test builds: make SAN=1)'
fi

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
