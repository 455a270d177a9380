#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='apply on many images: each its own transaction, -j, summary, --json report'
. "$(dirname "$0")/lib.sh"

test_require_tools python3 mtype fdtget

export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

# patched IMG: the KV260 override is there without no-1-8-v (mtools, fdtget).
patched()
{
	mtype -i "$1@@$(part_offset "$1" 1)" ::/user-override.dtb >o.dtb &&
	fdtget -p o.dtb /axi/mmc@ff170000 >props && ! grep -qx no-1-8-v props
}

test_expect_success 'a lab of images, one of them broken' '
	mkdir lab &&
	make_kv260 lab/a.img && cp lab/a.img lab/b.img && cp lab/a.img lab/c.img &&
	cp lab/a.img lab/d.img && head -c 3M lab/a.img >lab/broken.img &&
	sum_file lab/broken.img >broken.sum
'

test_expect_success 'batch -j 2: the good ones patched, the broken one reported and untouched' '
	test_must_fail_with 1 imgpatch apply kv260-uhs lab/a.img lab/b.img lab/broken.img \
		lab/c.img lab/d.img --set board=kv --set carrier=revB -j 2 --json report.json >out 2>err &&
	cat out &&
	test "$(grep -c "^\[[0-9]/5\] " out)" = 5 &&
	grep "lab/broken.img: FAILED: .*past the end" out &&
	grep "kv260-uhs: 5 images, 1 failed" out &&
	for i in a b c d; do patched lab/$i.img || return 1; done &&
	sum_file lab/broken.img >after.sum && test_cmp broken.sum after.sum
'

test_expect_success 'the --json report: one entry per image' '
	python3 - report.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["schema_version"] == 1 and r["recipe"] == "kv260-uhs"
	st = {e["image"]: e for e in r["images"]}
	assert len(st) == 5, st
	for i in "abcd":
	    e = st["lab/%s.img" % i]
	    assert e["status"] == "patched" and e["changes"] == 2 and e["error"] is None, e
	    assert isinstance(e["seconds"], float) and e["seconds"] >= 0
	b = st["lab/broken.img"]
	assert b["status"] == "failed" and "past the end" in b["error"], b
	EOF
'

test_expect_success 'a second batch: already applied, no byte changes' '
	sum_file lab/a.img >a1 &&
	imgpatch apply kv260-uhs lab/a.img lab/b.img --set board=kv --set carrier=revB -j 2 >out2 &&
	grep -c "already applied, 0 changes" out2 | grep -qx 2 &&
	sum_file lab/a.img >a2 && test_cmp a1 a2
'

test_expect_success '--output-dir: patched copies, inputs untouched, compressed stays compressed' '
	make_kv260 fresh.img && xz -k -T1 fresh.img && mkdir outdir &&
	sum_file fresh.img >f1 &&
	imgpatch apply kv260-uhs fresh.img fresh.img.xz --set board=kv --set carrier=revB --output-dir outdir >out3 &&
	sum_file fresh.img >f2 && test_cmp f1 f2 &&
	patched outdir/fresh.img &&
	xz -dc outdir/fresh.img.xz >back.img && cmp back.img outdir/fresh.img
'

test_expect_success 'one image with -o and --json: the output written, the report names it' '
	make_kv260 one.img && sum_file one.img >o1 &&
	imgpatch apply kv260-uhs one.img --set board=kv --set carrier=revB -o one-out.img --json one.json >/dev/null &&
	sum_file one.img >o2 && test_cmp o1 o2 &&
	patched one-out.img &&
	grep "\"output\": *\"one-out.img\"" one.json && grep "\"status\": *\"patched\"" one.json
'

test_expect_success 'usage: -o with several images' '
	test_must_fail_with 2 imgpatch apply kv260-uhs lab/a.img lab/b.img -o x.img --set board=kv --set carrier=revB
'

test_expect_success 'a batch --dry-run reports plans, not patches, and writes nothing' '
	make_kv260 dry1.img && cp dry1.img dry2.img &&
	sum_file dry1.img >d1 && sum_file dry2.img >d2 &&
	imgpatch apply kv260-uhs dry1.img dry2.img --set board=kv --set carrier=revB -n --json dry.json >out &&
	test "$(grep -c "^\[[0-9]/2\] dry[12].img: planned, 2 changes" out)" = 2 &&
	grep -E "^dry1.img +planned +2 " out &&
	grep "kv260-uhs: 2 images, 0 failed (dry run: nothing written)" out &&
	! grep -w patched out &&
	python3 -c "
import json, sys
d = json.load(open(\"dry.json\"))
assert d[\"dry_run\"] is True, d
assert [e[\"status\"] for e in d[\"images\"]] == [\"planned\", \"planned\"], d
assert all(e[\"changes\"] == 2 for e in d[\"images\"]), d
" &&
	test_file_unchanged dry1.img "$(cat d1)" && test_file_unchanged dry2.img "$(cat d2)" &&
	! ls dry1.img.imgpatch-undo 2>/dev/null
'

test_expect_success 'a real batch reports dry_run false' '
	make_kv260 wet.img &&
	imgpatch apply kv260-uhs wet.img --set board=kv --set carrier=revB --json wet.json >/dev/null &&
	grep "\"dry_run\": *false" wet.json && grep "\"status\": *\"patched\"" wet.json
'

test_expect_success '--output-dir that does not exist: refused before any image, all untouched' '
	make_kv260 od.img && sum_file od.img >od1 &&
	test_must_fail_with 1 imgpatch apply kv260-uhs od.img lab/a.img --set board=kv --set carrier=revB \
		--output-dir no-such-dir >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -x "imgpatch: no-such-dir: cannot write the patched copies: the folder does not exist" err &&
	! grep "^\[" out &&
	test_file_unchanged od.img "$(cat od1)" && test ! -e no-such-dir
'

test_expect_success '--json into a folder that does not exist: refused before any image' '
	test_must_fail_with 1 imgpatch apply kv260-uhs od.img --set board=kv --set carrier=revB \
		--json no-such-dir/r.json >out 2>err &&
	grep -x "imgpatch: no-such-dir/r.json: cannot write the report: folder no-such-dir does not exist" err &&
	test_file_unchanged od.img "$(cat od1)"
'

test_done
