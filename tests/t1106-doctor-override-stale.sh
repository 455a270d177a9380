#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='doctor: the override a FIT boot script loads is a copy that a kernel upgrade leaves stale'
. "$(dirname "$0")/lib.sh"

test_require_tools mtype mcopy fdtget dtc python3

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb

test_expect_success 'fixture: the KV260 image, and one with an override made by patch' '
	make_kv260 kv.img &&
	cp kv.img p.img &&
	imgpatch patch p.img --fdt $FDT --dt-delete "mmc@ff170000:no-1-8-v" >plan &&
	grep "^p1 (vfat) /user-override.dtb: new file" plan &&
	mtype -i "$(part_mtools p.img 1)" ::/user-override.dtb >ovr.dtb &&
	fdtget -t s ovr.dtb / compatible >/dev/null
'

test_expect_success 'no override: no finding, no updates line' '
	imgpatch doctor kv.img >doctor &&
	! grep override-stale doctor &&
	imgpatch info kv.img >info && ! grep "updates:" info
'

test_expect_success 'an edited copy: info, and the finding names the FIT trees of its board' '
	imgpatch info p.img >info &&
	grep -Fx "  updates: a kernel upgrade writes /image.fit anew with the new kernel'"'"'s trees; /user-override.dtb is not touched: the board keeps booting it, a whole tree copied from today'"'"'s, in place of them" info &&
	imgpatch doctor p.img >doctor &&
	grep "^info     override-stale: /user-override.dtb is a whole tree for the board of the FIT'"'"'s .*$FDT.* (the same compatible and model), edited:" doctor &&
	imgpatch doctor p.img --json >doctor.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/doctor.schema.json" doctor.json &&
	python3 -c "import json; d=json.load(open(\"doctor.json\")); f=[x for x in d[\"findings\"] if x[\"id\"]==\"override-stale\"]; assert len(f)==1 and f[0][\"severity\"]==\"info\" and f[0][\"evidence\"][\"file\"]==\"/user-override.dtb\", f"
'

test_expect_success 'a byte-for-byte copy of a FIT tree is named' '
	cp kv.img c.img &&
	mtype -i "$(part_mtools c.img 1)" ::/image.fit >image.fit &&
	idx=$(dumpimage -l image.fit | sed -n "s/^ Image \([0-9]*\) (fdt-smk-k26-revA-sck-kv-g-revB.dtb)$/\1/p") &&
	test -n "$idx" &&
	dumpimage -T flat_dt -p "$idx" -o copy.dtb image.fit >/dev/null &&
	mcopy -i "$(part_mtools c.img 1)" copy.dtb ::/user-override.dtb &&
	imgpatch doctor c.img >doctor &&
	grep -F "override-stale: /user-override.dtb is a whole copy of the FIT'"'"'s" doctor &&
	grep -F "byte for byte" doctor
'

test_expect_success 'another board'"'"'s tree: a warning, its compatible named' '
	cp kv.img o.img &&
	mcopy -i "$(part_mtools o.img 1)" "$DTB_DIR/rk3399-rockpro64.dtb" ::/user-override.dtb &&
	imgpatch doctor o.img >doctor &&
	grep -F "warning  override-stale: /user-override.dtb matches none of the FIT'"'"'s trees (its compatible: $(fdtget "$DTB_DIR/rk3399-rockpro64.dtb" / compatible | cut -d" " -f1))" doctor
'

test_done
