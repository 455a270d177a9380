#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='--json of info, apply and recipes: valid against tool/schema/*.schema.json, which are proven to check'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/bad/helpers.sh"

test_require_imgpatch
test_require_tools python3 sfdisk mcopy mtype debugfs fdtput fdtget mkimage gzip xxd
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	test_skip_tool 'python3 jsonschema present' python3-jsonschema
	test_done
fi

export IMGPATCH_RECIPE_PATH=$IMGPATCH_BUILD/recipes
SCHEMA_DIR=$REPO_DIR/tool/schema

# validate SCHEMA DOC...: each DOC valid against tool/schema/SCHEMA.
validate()
{
	python3 "$TEST_DIR/json/validate.py" "$SCHEMA_DIR/$1" "${@:2}"
}

# json_check DOC PYTHON: runs PYTHON with d bound to the document in DOC;
# an assert that fails shows what it saw.
json_check()
{
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])' "$1" "$2"
}

test_expect_success 'the schemas are draft 2020-12 schemas, each with schema_version 1' '
	for s in info apply recipes recipe; do
		validate $s.schema.json &&
		python3 - "$SCHEMA_DIR/$s.schema.json" <<-\EOF || return 1
		import json, os, sys
		s = json.load(open(sys.argv[1]))
		assert s["$id"] == os.path.basename(sys.argv[1]), s["$id"]
		assert s["title"].startswith("imgpatch "), s["title"]
		assert "schema_version" in s["required"]
		assert s["properties"]["schema_version"]["const"] == 1
		assert s["additionalProperties"] is False
		EOF
	done
'

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-kv260.sh" kv.img &&
	"$FIXTURES/mkimage-kv260.sh" mbr.img --mbr &&
	"$FIXTURES/mkimage-kv260.sh" fat16.img --mbr --fat16 &&
	"$FIXTURES/mkimage-kv260.sh" nofit.img --no-fit &&
	"$FIXTURES/mkimage-pmos.sh" pmos.img &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img
'

test_expect_success 'info --json of every fixture: valid, and its partitions are what sfdisk reads' '
	for img in kv mbr fat16 nofit pmos rpi; do
		imgpatch info --json $img.img >$img.json &&
		validate info.schema.json $img.json &&
		sfdisk -J $img.img >$img.sfdisk &&
		python3 - $img.json $img.sfdisk <<-\EOF || return 1
		import json, sys
		d = json.load(open(sys.argv[1]))
		pt = json.load(open(sys.argv[2]))["partitiontable"]
		assert d["schema_version"] == 1 and d["problems"] == 0, d["problems"]
		assert d["table"]["label"] == pt["label"], (d["table"], pt["label"])
		got = {p["number"]: (p["start_sector"], p["size_sectors"]) for p in d["partitions"]}
		want = {int(p["node"][len(pt["device"]):]): (p["start"], p["size"])
		        for p in pt["partitions"]}
		assert got == want, (got, want)
		EOF
	done &&
	json_check kv.json "assert len(d[\"device_trees\"]) == 5 and d[\"fit\"][\"images\"][6][\"hash_status\"] == \"ok\"" &&
	json_check fat16.json "assert [p[\"number\"] for p in d[\"partitions\"] if p[\"logical\"]] == [5, 6]" &&
	json_check nofit.json "assert d[\"fit\"] is None" &&
	json_check rpi.json "assert d[\"boot_script\"] is None and d[\"user_override\"] is None"
'

test_expect_success 'info --json of damaged images: the error sections are valid too' '
	cp --sparse=always kv.img hash.img &&
	fat_get hash.img 1 /image.fit image.fit &&
	fdtput -t bx image.fit /images/fdt-smk-k26-revA-sck-kv-g-revB.dtb/hash-1 value \
		$(fdtget -t bx image.fit /images/fdt-smk-k26-revA-sck-kv-g-revA.dtb/hash-1 value) &&
	fdtput -t s image.fit /images/fdt-smk-k26-revA-sck-kr-g-revB.dtb/hash-1 algo sha3-256 &&
	fat_put hash.img 1 image.fit /image.fit &&
	test_must_fail_with 1 imgpatch info --json hash.img >hash.json &&
	validate info.schema.json hash.json &&
	json_check hash.json "
i = {x[\"name\"]: x for x in d[\"fit\"][\"images\"]}
assert i[\"fdt-smk-k26-revA-sck-kv-g-revB.dtb\"][\"hash_status\"] == \"bad\"
assert i[\"fdt-smk-k26-revA-sck-kr-g-revB.dtb\"][\"hash_status\"] == \"unsupported\"
assert {t[\"index\"]: t[\"status\"] for t in d[\"device_trees\"]}[6] == \"skipped\"
assert d[\"problems\"] == 1, d[\"problems\"]" &&

	cp --sparse=always kv.img gz.img &&
	gzip -n -9 <"$DTB_DIR/smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb" >payload.gz &&
	make_fit payload.gz gzip gz.fit && fat_put gz.img 1 gz.fit /image.fit &&
	imgpatch info --json gz.img >gz.json &&
	validate info.schema.json gz.json &&
	json_check gz.json "assert d[\"device_trees\"][0][\"status\"] == \"compressed\"" &&

	cp --sparse=always kv.img scr.img &&
	fat_get scr.img 1 /boot.scr.uimg boot.scr.uimg &&
	uimgedit boot.scr.uimg --keep-dcrc flip=200 &&
	fat_put scr.img 1 boot.scr.uimg /boot.scr.uimg &&
	test_must_fail_with 1 imgpatch info --json scr.img >scr.json &&
	validate info.schema.json scr.json &&
	json_check scr.json "assert d[\"boot_script\"][\"crc_ok\"] is False and \"CRC\" in d[\"boot_script\"][\"error\"]" &&

	cp --sparse=always kv.img gpt.img &&
	gptedit gpt.img --primary --keep-crc disk_guid.flip &&
	test_must_fail_with 1 imgpatch info --json gpt.img >gpt.json 2>gpt.err &&
	validate info.schema.json gpt.json &&
	json_check gpt.json "assert d[\"table\"][\"used_backup\"] is True" &&

	cp --sparse=always pmos.img noroot.img &&
	printf "/dev/mmcblk0p1 /boot ext2 defaults 0 0\n" >noroot.fstab &&
	ext_edit noroot.img 2 "rm /etc/fstab" "write noroot.fstab /etc/fstab" &&
	imgpatch info --json noroot.img >noroot.json &&
	validate info.schema.json noroot.json &&
	json_check noroot.json "assert d[\"fstab\"][\"root\"] is None and d[\"fstab\"][\"no_root\"]" &&

	cp --sparse=always pmos.img dirty.img &&
	ext_edit dirty.img 2 "ssv state 2" &&
	test_must_fail_with 1 imgpatch info --json dirty.img >dirty.json &&
	validate info.schema.json dirty.json &&
	json_check dirty.json "assert d[\"partitions\"][1][\"fs_error\"]"
'

test_expect_success 'apply --json on one image: a valid report, and the image is patched' '
	cp --sparse=always kv.img one.img &&
	imgpatch apply kv260-uhs one.img --set board=kv --set carrier=revB --json one.json >out &&
	validate apply.schema.json one.json &&
	json_check one.json "
(e,) = d[\"images\"]
assert d[\"recipe\"] == \"kv260-uhs\" and e[\"image\"] == \"one.img\", d
assert e[\"status\"] == \"patched\" and e[\"changes\"] > 0 and e[\"error\"] is None, e" &&
	mtype -i "$(part_mtools one.img 1)" ::/user-override.dtb >ovr.dtb &&
	fdtget -p ovr.dtb /axi/mmc@ff170000 >props && ! grep -qx no-1-8-v props
'

test_expect_success 'info --json after apply: user-override.dtb and its controllers' '
	imgpatch info --json one.img >patched.json &&
	validate info.schema.json patched.json &&
	json_check patched.json "
o = d[\"user_override\"]
assert o[\"exists\"] and o[\"size\"] > 0, o
t = d[\"device_trees\"][-1]
assert t[\"source\"] == \"user-override.dtb\" and t[\"status\"] == \"ok\", t
assert not any(c[\"uhs_blocked\"] for c in t[\"controllers\"]), t" &&
	test "$(stat -c %s ovr.dtb)" = "$(python3 -c "import json; print(json.load(open(\"patched.json\"))[\"user_override\"][\"size\"])")"
'

test_expect_success 'apply --json on a batch with a failing image: a valid report' '
	cp --sparse=always kv.img two.img && head -c 3M kv.img >broken.img &&
	mkdir outdir &&
	test_must_fail_with 1 imgpatch apply kv260-uhs one.img two.img broken.img \
		--set board=kv --set carrier=revB -j 2 --output-dir outdir --json batch.json >out &&
	validate apply.schema.json batch.json &&
	json_check batch.json "
s = {e[\"image\"]: e for e in d[\"images\"]}
assert [e[\"image\"] for e in d[\"images\"]] == [\"one.img\", \"two.img\", \"broken.img\"], d
assert s[\"one.img\"][\"status\"] == \"already applied\" and s[\"one.img\"][\"changes\"] == 0
assert s[\"two.img\"][\"status\"] == \"patched\" and s[\"two.img\"][\"output\"] == \"outdir/two.img\"
assert s[\"broken.img\"][\"status\"] == \"failed\" and \"past the end\" in s[\"broken.img\"][\"error\"]" &&
	test -f outdir/two.img && ! test -e outdir/broken.img
'

test_expect_success 'apply --dry-run --json on a batch: a valid report of plans' '
	cp --sparse=always kv.img three.img && s=$(sum_file three.img) &&
	imgpatch apply kv260-uhs one.img three.img --set board=kv --set carrier=revB -n --json dry.json >out &&
	validate apply.schema.json dry.json &&
	json_check dry.json "
s = {e[\"image\"]: e for e in d[\"images\"]}
assert d[\"dry_run\"] is True, d
assert s[\"one.img\"][\"status\"] == \"already applied\", s
assert s[\"three.img\"][\"status\"] == \"planned\" and s[\"three.img\"][\"changes\"] > 0, s" &&
	test_file_unchanged three.img "$s"
'

test_expect_success 'recipes --json: valid, and every shipped recipe file is listed' '
	imgpatch recipes --json >recipes.json &&
	validate recipes.schema.json recipes.json &&
	(cd "$IMGPATCH_RECIPE_PATH" && ls *.recipe) | sed "s/\.recipe$//" >names.expect &&
	test -s names.expect &&
	json_check recipes.json "print(\"\\n\".join(r[\"name\"] for r in d[\"recipes\"]))" >names.got &&
	test_cmp names.expect names.got
'

test_expect_success 'recipes show --json of every shipped recipe: valid, one step per step section' '
	for f in "$IMGPATCH_RECIPE_PATH"/*.recipe; do
		r=$(basename "$f" .recipe) &&
		imgpatch recipes show "$r" --json >show-$r.json &&
		validate recipe.schema.json show-$r.json &&
		grep -c "^step *{" "$f" >steps.expect &&
		json_check show-$r.json "assert d[\"name\"] == \"$r\"; print(len(d[\"steps\"]))" >steps.got &&
		test_cmp steps.expect steps.got || return 1
	done &&
	json_check show-kv260-uhs.json "
p = {x[\"name\"]: x for x in d[\"parameters\"]}
assert p[\"carrier\"][\"required\"] and p[\"carrier\"][\"values\"] == [\"revA\", \"revB\"], p
assert p[\"board\"][\"required\"] and p[\"board\"][\"default\"] is None, p
assert d[\"steps\"][2][\"action\"] == \"dt-delete-property\", d[\"steps\"]" &&
	json_check show-rpi-sd-overclock.json "
(m, p) = d[\"parameters\"]
assert m[\"required\"] and m[\"values\"] == [\"pi0\", \"pi1\", \"pi2\", \"pi3\"], m
assert (p[\"type\"], p[\"min\"], p[\"max\"], p[\"values\"]) == (\"int\", 50, 120, None), p
assert p[\"pattern\"] is None and p[\"pattern_text\"] is None, p" &&
	json_check show-hostname.json "
(h,) = d[\"parameters\"]
assert h[\"pattern\"] == \"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\", h
assert h[\"pattern_text\"].startswith(\"one DNS label\") and h[\"secret\"] is False, h" &&
	json_check show-rpi-user.json "
p = {x[\"name\"]: x[\"secret\"] for x in d[\"parameters\"]}
assert p == {\"user\": False, \"password_hash\": True}, p" &&
	json_check recipes.json "
s = {(r[\"name\"], p[\"name\"]) for r in d[\"recipes\"] for p in r[\"parameters\"] if p[\"secret\"]}
assert (\"rpi-user\", \"password_hash\") in s and (\"cloud-init-wifi\", \"password\") in s, s
assert all(type(p[\"secret\"]) is bool for r in d[\"recipes\"] for p in r[\"parameters\"]), d" &&
	imgpatch recipes show rpi-user >rpi-user.txt &&
	grep "^  password_hash (required; secret)$" rpi-user.txt &&
	grep "^  user (required)$" rpi-user.txt
'

test_expect_success 'recipes show --json of a recipe with no risks or undo, and --recipe-path' '
	mkdir own &&
	cat >own/json-min.recipe <<-\EOF &&
	name = "json-min"
	summary = "a minimal recipe"
	description = "Made by a test: two lines,
	kept as written."
	source = "tests/t1180-json-schema.sh"
	param count {
	    description = "a number"
	    type = "int"
	    min = 1
	    default = "3"
	}
	step { action = "fstab"  mountpoint = "/"  options = "+noatime" }
	EOF
	imgpatch recipes show json-min --json --recipe-path own >min.json &&
	validate recipe.schema.json min.json &&
	json_check min.json "
assert d[\"risks\"] is None and d[\"undo\"] is None, d
assert d[\"description\"] == \"Made by a test: two lines,\nkept as written.\", d[\"description\"]
(p,) = d[\"parameters\"]
assert (p[\"required\"], p[\"default\"], p[\"min\"], p[\"max\"]) == (False, \"3\", 1, None), p
assert d[\"steps\"] == [{\"number\": 1, \"action\": \"fstab\", \"text\": \"change the options of / in /etc/fstab: +noatime\"}], d[\"steps\"]" &&
	imgpatch recipes --json --recipe-path own >own.json &&
	validate recipes.schema.json own.json &&
	json_check own.json "
assert d[\"search_path\"][0] == \"own\", d[\"search_path\"]
assert [r[\"path\"] for r in d[\"recipes\"] if r[\"name\"] == \"json-min\"] == [\"own/json-min.recipe\"], d" &&
	test_must_fail_with 2 imgpatch recipes show no-such-recipe --json >none.out 2>none.err &&
	test ! -s none.out && grep "no recipe .no-such-recipe." none.err
'

test_expect_success 'the validator rejects what the schemas forbid, naming where' '
	python3 - kv.json <<-\EOF &&
	import copy, json, sys
	d = json.load(open(sys.argv[1]))
	def bad(name, f):
	    x = copy.deepcopy(d)
	    f(x)
	    json.dump(x, open(name, "w"))
	bad("no-version.json", lambda x: x.pop("schema_version"))
	bad("version-2.json", lambda x: x.update(schema_version=2))
	bad("start-string.json", lambda x: x["partitions"][0].update(start="1048576"))
	bad("extra-key.json", lambda x: x.update(extra=1))
	bad("label.json", lambda x: x["table"].update(label="apm"))
	bad("blocked.json", lambda x: x["device_trees"][4]["controllers"][1].update(uhs_blocked=False))
	EOF
	test_must_fail_with 1 validate info.schema.json no-version.json >e1 &&
	grep -F "at \$: '\''schema_version'\'' is a required property" e1 &&
	test_must_fail_with 1 validate info.schema.json version-2.json >e2 &&
	grep -F "at \$.schema_version: 1 was expected" e2 &&
	test_must_fail_with 1 validate info.schema.json start-string.json >e3 &&
	grep -F "at \$.partitions[0].start: '\''1048576'\'' is not of type '\''integer'\''" e3 &&
	test_must_fail_with 1 validate info.schema.json extra-key.json >e4 &&
	grep -F "extra" e4 &&
	test_must_fail_with 1 validate info.schema.json label.json >e5 &&
	grep -F "at \$.table.label: '\''apm'\'' is not one of" e5 &&
	test_must_fail_with 1 validate info.schema.json blocked.json >e6 &&
	grep -F "at \$.device_trees[4].controllers[1].uhs_blocked" e6 &&

	python3 -c "import json; d = json.load(open(\"batch.json\")); d[\"images\"][0][\"status\"] = \"done\"; json.dump(d, open(\"bad-batch.json\", \"w\"))" &&
	test_must_fail_with 1 validate apply.schema.json bad-batch.json >e7 &&
	grep -F "at \$.images[0].status" e7 &&
	python3 -c "import json; d = json.load(open(\"recipes.json\")); d[\"recipes\"][0][\"parameters\"] = [{\"name\": \"x\"}]; json.dump(d, open(\"bad-recipes.json\", \"w\"))" &&
	test_must_fail_with 1 validate recipes.schema.json bad-recipes.json >e8 &&
	grep -F "at \$.recipes[0].parameters[0]: '\''description'\'' is a required property" e8 &&
	python3 -c "import json; d = json.load(open(\"show-hostname.json\")); d[\"parameters\"][0][\"pattern\"] = None; json.dump(d, open(\"bad-pattern.json\", \"w\"))" &&
	test_must_fail_with 1 validate recipe.schema.json bad-pattern.json >e10 &&
	grep -F "at \$.parameters[0].pattern_text" e10 &&

	head -c 100 kv.json >truncated.json &&
	test_must_fail_with 2 validate info.schema.json truncated.json &&
	echo "{\"\$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"type\": 12}" >broken.schema.json &&
	test_must_fail_with 1 python3 "$TEST_DIR/json/validate.py" broken.schema.json kv.json >e9 &&
	grep "not a valid JSON Schema" e9
'

if [ -f "$SCHEMA_DIR/doctor.schema.json" ] && imgpatch doctor --help >/dev/null 2>&1; then
test_expect_success 'doctor --json: valid against doctor.schema.json' '
	validate doctor.schema.json &&
	for img in kv pmos rpi; do
		imgpatch doctor --json $img.img >doctor-$img.json && rc=0 || rc=$? &&
		test $rc -le 1 &&
		validate doctor.schema.json doctor-$img.json || return 1
	done
'
else
test_skip 'doctor --json: valid against doctor.schema.json' \
	'no tool/schema/doctor.schema.json or no doctor command in this build'
fi

test_done
