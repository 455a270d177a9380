#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='--each with a table LibreOffice saved: column names without case and spaces, cells trimmed, unknown columns refused or ignored, FILE:LINE in every error'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk debugfs e2fsck cmp python3
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"
SHEET=$FIXTURES/spreadsheet

# card_has CARD HOST KEY: the card's host name and key (debugfs), clean ext4.
card_has()
{
	extract_part "$1" 2 card.ext4 &&
	debugfs -R "cat /etc/hostname" card.ext4 2>/dev/null >host &&
	echo "$2" >want.host && test_cmp want.host host &&
	debugfs -R "cat /etc/ssh/authorized_keys.ubuntu" card.ext4 2>/dev/null >key &&
	echo "$3" >want.key && test_cmp want.key key &&
	e2fsck -fn card.ext4 >/dev/null 2>&1
}

test_expect_success 'an image with sshd drop-ins' '
	make_kv260 kv.img &&
	extract_part kv.img 2 root.ext4 &&
	debugfs -w -R "mkdir /etc/ssh" root.ext4 &&
	debugfs -w -R "mkdir /etc/ssh/sshd_config.d" root.ext4 &&
	put_part kv.img 2 root.ext4 && sum_file kv.img >kv.sum
'

if command -v soffice >/dev/null; then
test_expect_success 'the kept tables are what LibreOffice saves from lab.fods' '
	mkdir -p lo && export HOME=$PWD/lo &&
	soffice --headless --convert-to csv --outdir lo/comma "$SHEET/lab.fods" >/dev/null 2>&1 &&
	cmp "$SHEET/lab.csv" lo/comma/lab.csv &&
	soffice --headless --convert-to "csv:Text - txt - csv (StarCalc):59,34,76,1" \
		--outdir lo/semi "$SHEET/lab.fods" >/dev/null 2>&1 &&
	cmp "$SHEET/lab-semicolon.csv" lo/semi/lab.csv
'
else
# LibreOffice is an optional oracle (a 3-minute install): the kept tables
# stand for it, made by it once (tests/fixtures/spreadsheet/README.md).
test_skip 'the kept tables are what LibreOffice saves from lab.fods' 'LibreOffice not installed'
fi

test_expect_success 'a column no recipe takes: refused with FILE:LINE and the way out, exit 2, nothing made' '
	cp "$SHEET/lab.csv" lab.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --apply ssh-key \
		--each lab.csv 2>err &&
	echo "imgpatch: lab.csv:1: no recipe given has a parameter '"'"'Notes'"'"': give --each-ignore '"'"'Notes'"'"' to leave the column out" >want &&
	test_cmp want err &&
	test ! -e card1.img && test ! -e card2.img && test -z "$(ls -A | grep "^\.card")"
'

test_expect_success 'a typo in a column: the close name offered' '
	sed "1s/ Hostname /Hostnme/" lab.csv >typo.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --apply ssh-key \
		--each typo.csv --each-ignore notes 2>err &&
	grep "^imgpatch: typo.csv:1: no recipe given has a parameter .Hostnme. (did you mean .hostname.?): give --each-ignore" err
'

test_expect_success 'LibreOffice CSV with --each-ignore: each card its own row, names and cells trimmed' '
	imgpatch write kv.img --apply hostname --apply ssh-key --each lab.csv \
		--each-ignore NOTES --json lab.json >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	card_has card1.img lab-01 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab01 admin@lab" &&
	card_has card2.img lab-02 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab02 admin@lab" &&
	test ! -e "card1.img " &&
	python3 - lab.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["status"] == "done" and r["error"] is None, r
	c = {x["target"]: x for x in r["cards"]}
	assert c["card1.img"]["parameters"]["hostname"] == "lab-01", c
	assert c["card2.img"]["parameters"]["hostname"] == "lab-02", c
	assert c["card2.img"]["parameters"]["key"].endswith("lab02 admin@lab"), c
	assert c["card2.img"]["parameters"]["user"] == "ubuntu", c
	EOF
'

test_expect_success 'every text cell quoted (semicolons): a quoted value keeps its spaces, refused at its line' '
	cp "$SHEET/lab-semicolon.csv" semi.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --apply ssh-key \
		--each semi.csv --each-ignore notes 2>err &&
	grep "^imgpatch: semi.csv:3: card2.img: recipe .hostname.: parameter .hostname. must be one DNS label: .* (got . lab-02.)$" err &&
	sed "3s/\" lab-02\"/\"lab-02\"/" semi.csv >semi-ok.csv &&
	rm -f card1.img card2.img &&
	imgpatch write kv.img --apply hostname --apply ssh-key --each semi-ok.csv \
		--each-ignore notes >out &&
	card_has card1.img lab-01 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab01 admin@lab" &&
	card_has card2.img lab-02 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab02 admin@lab"
'

test_expect_success 'every table error names FILE:LINE' '
	printf "target,hostname\nc1.img,a\n\nc1.img,b\n" >twice.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --each twice.csv 2>err &&
	echo "imgpatch: twice.csv:4: a second row for c1.img (the first is on line 2)" >want &&
	test_cmp want err &&
	printf "target,hostname\nc1.img,a\nc2.img,\"b\n" >open.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --each open.csv 2>err &&
	echo "imgpatch: open.csv:3: a quoted field is not closed" >want && test_cmp want err &&
	printf "image,hostname\nc1.img,a\n" >first.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --each first.csv 2>err &&
	echo "imgpatch: first.csv:1: the first column must be '"'"'target'"'"', not '"'"'image'"'"'" >want &&
	test_cmp want err &&
	printf "target,hostname\nc1.img,a,b\n" >wide.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --each wide.csv 2>err &&
	echo "imgpatch: wide.csv:2: 3 fields, the header has 2" >want && test_cmp want err &&
	test_file_unchanged kv.img "$(cat kv.sum)" && test ! -e c1.img
'

test_expect_success 'apply --each: the same table rules' '
	cp kv.img im1.img && cp kv.img im2.img && sum_file im1.img >im1.sum &&
	printf "Image , HOSTNAME,Notes\nim1.img , host-1 ,\"a, b\"\nim2.img,host-2,\n" >im.csv &&
	test_must_fail_with 2 imgpatch apply hostname im1.img im2.img --each im.csv 2>err &&
	grep "^imgpatch: im.csv:1: recipe hostname has no parameter .Notes.: give --each-ignore .Notes. to leave the column out$" err &&
	test_file_unchanged im1.img "$(cat im1.sum)" &&
	imgpatch apply hostname im1.img im2.img --each im.csv --each-ignore notes >out &&
	for i in 1 2; do
		extract_part im$i.img 2 im.ext4 &&
		debugfs -R "cat /etc/hostname" im.ext4 2>/dev/null >host &&
		echo host-$i >want && test_cmp want host || return 1
	done
'

test_done
