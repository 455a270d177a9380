#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='doctor findings: the table in tool/lib/doctor/findings.c, the manual and doctor.schema.json list the same ids'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools python3 awk sfdisk mkfs.vfat mcopy mke2fs debugfs mkimage dtc xxd

# The table, as the unit test prints it: ID, SEVERITY, ANCHOR, TITLE, COST.
LIST=$IMGPATCH_BUILD/tests/test-doctor-findings
MAN=$REPO_DIR/tool/man/imgpatch.1.scd
SCHEMA=$REPO_DIR/tool/schema/doctor.schema.json

# man_findings PAGE: each entry of the page's DOCTOR FINDINGS, in order:
# ID, SEVERITY and the subsection it is in, tab-separated.
man_findings()
{
	awk '
		/^# / { on = ($0 == "# DOCTOR FINDINGS"); next }
		on && /^## / { anchor = substr($0, 4); next }
		on && /^\*[a-z0-9-]+\* \(.*\)$/ {
			id = $1; gsub(/\*/, "", id)
			sev = $0; sub(/^[^(]*\(/, "", sev); sub(/\)$/, "", sev)
			print id "\t" sev "\t" anchor
		}' "$1"
}

# schema_ids SCHEMA: the ids a finding may have, sorted.
schema_ids()
{
	python3 -c 'import json, sys
for i in json.load(open(sys.argv[1]))["$defs"]["finding"]["properties"]["id"]["enum"]:
    print(i)' "$1" | sort
}

if [ ! -x "$LIST" ]; then
	test_fail 'the table of findings is listed' "'$LIST' not found (build it, or set IMGPATCH_BUILD)"
	test_done
fi

test_expect_success 'the table lists every kind once' '
	"$LIST" --list >table &&
	test $(wc -l <table) -ge 15 &&
	cut -f1 table | sort >table.ids &&
	sort -u table.ids | test_cmp table.ids -
'

test_expect_success 'the manual documents the ids of the table, in its order, with their severity and subsection' '
	cut -f1-3 table >expect &&
	man_findings "$MAN" >actual &&
	test_cmp expect actual
'

test_expect_success 'the JSON schema allows exactly the ids of the table' '
	schema_ids "$SCHEMA" >actual &&
	test_cmp table.ids actual
'

test_expect_success 'an id missing from the manual or the schema is caught' '
	sed "/^\*fstab-atime\* /d" "$MAN" >page.scd &&
	man_findings page.scd >actual &&
	test_must_fail test_cmp expect actual >/dev/null &&
	sed "s/\"fstab-atime\", //" "$SCHEMA" >schema.json &&
	schema_ids schema.json >actual &&
	test_must_fail test_cmp table.ids actual >/dev/null
'

test_expect_success 'every finding of the doctor on the fixtures has an id of the table' '
	"$FIXTURES/mkimage-kv260.sh" kv.img >/dev/null &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img >/dev/null &&
	for img in kv rpi; do
		imgpatch doctor --json $img.img >$img.json || return 1
	done &&
	python3 -c "import json, sys
for f in sys.argv[1:]:
    for x in json.load(open(f))[\"findings\"]:
        print(x[\"id\"])" kv.json rpi.json | sort -u >seen &&
	test -s seen &&
	comm -23 seen table.ids >unknown &&
	test_cmp /dev/null unknown
'

test_done
