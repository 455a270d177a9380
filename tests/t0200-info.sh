#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='info: partitions, FIT, boot script, SD controllers, root fstab; text and JSON'
. "$(dirname "$0")/lib.sh"

test_require_tools python3

# json_get FILE EXPR: one value out of a JSON document (python3's json module
# is the independent parser here).
json_get()
{
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-kv260.sh" gpt.img &&
	"$FIXTURES/mkimage-kv260.sh" mbr.img --mbr --fat16 &&
	"$FIXTURES/mkimage-kv260.sh" nofit.img --no-fit &&
	"$FIXTURES/mkimage-kv260.sh" nohook.img --no-hook &&
	sum_file gpt.img >gpt.sum
'

test_expect_success 'partition table as sfdisk sees it' '
	$IMGPATCH info gpt.img >info.txt &&
	grep -E "^ +1 +2048 +64.0M +Microsoft basic data +system-boot +vfat +system-boot" info.txt &&
	grep -E "^ +2 +133120 +48.0M +Linux filesystem +writable +ext4 +writable" info.txt &&
	grep "gpt" info.txt | head -n 1 | grep "sector size 512" &&
	sfdisk -d gpt.img | grep -E "^gpt.img1 : start= *2048, size= *131072,.*name=\"system-boot\"" &&
	sfdisk -d gpt.img | grep -E "^gpt.img2 : start= *133120, size= *98304,.*name=\"writable\""
'

test_expect_success 'FIT images in dumpimage order, hashes verified' '
	off=$(part_offset gpt.img 1) &&
	mcopy -n -i "gpt.img@@$off" ::/image.fit image.fit &&
	dumpimage -l image.fit | sed -n "s/^ *Image \([0-9]*\) (\(.*\))$/\1 \2/p" >order.expect &&
	sed -n "/^  #  Image/,/^  Configuration/p" info.txt | awk "/^ +[0-9]+ /{print \$1, \$2}" >order.got &&
	test_cmp order.expect order.got &&
	test "$(sed -n "/^  #  Image/,/^  Configuration/p" info.txt | grep -c " ok ")" = 7 &&
	grep -E "conf-zynqmp-smk-k26-revA +yes" info.txt
'

test_expect_success 'boot script honours user-override.dtb' '
	grep "^boot script: p1 /boot.scr.uimg (\"boot script\"), CRCs ok, loads user-override.dtb: yes" info.txt &&
	$IMGPATCH info nohook.img >nohook.txt &&
	grep "^boot script: .*loads user-override.dtb: no" nohook.txt
'

test_expect_success 'SD controller with no-1-8-v is flagged in the KV260 trees' '
	sed -n "/fdt .fdt-smk-k26-revA-sck-kv-g-revB.dtb./,/^fdt\|^$/p" info.txt >revb.txt &&
	grep "/axi/mmc@ff170000 okay: no-1-8-v (UHS-I blocked)" revb.txt &&
	sed -n "/fdt .fdt-zynqmp-smk-k26-revA.dtb./,/^fdt /p" info.txt >som.txt &&
	grep "/axi/mmc@ff170000 disabled" som.txt && ! grep "no-1-8-v" som.txt
'

test_expect_success 'root fstab entry' '
	grep -F "root fstab: p2 /etc/fstab line 1: LABEL=writable / ext4 discard,errors=remount-ro 0 1" info.txt
'

test_expect_success 'info changes no byte of the image' '
	sum_file gpt.img >gpt.sum2 && test_cmp gpt.sum gpt.sum2
'

test_expect_success 'MBR: logical partitions and extended container' '
	$IMGPATCH info mbr.img >mbr.txt &&
	grep "dos" mbr.txt | head -n 1 &&
	grep -E "^ +3 .*Extended" mbr.txt &&
	grep -E "^ +5 .*ext2 +data" mbr.txt &&
	sfdisk -d mbr.img | grep -c "^mbr.img[0-9]" | grep -qx 5
'

test_expect_success 'no FIT is reported, not an error' '
	$IMGPATCH info nofit.img >nofit.txt &&
	grep "^fit: no partition has /image.fit" nofit.txt
'

test_expect_success 'the FIT'"'"'s trees are listed as fdt images; a boot path with no tree has none to inspect' '
	test "$(grep -c "^fdt '"'"'fdt-" info.txt)" = 5 &&
	! grep "^effective tree" info.txt &&
	grep -Fx "boot path: U-Boot script /boot.scr.uimg (p1)" nofit.txt &&
	! grep "^  tree:" nofit.txt &&
	grep -Fx "device trees: none to inspect (no FIT fdt, no user-override.dtb)" nofit.txt
'

test_expect_success '--json is one valid document with the same facts' '
	$IMGPATCH info --json gpt.img >info.json &&
	test "$(json_get info.json "d[\"schema_version\"]")" = 1 &&
	test "$(json_get info.json "len(d[\"partitions\"])")" = 2 &&
	test "$(json_get info.json "d[\"partitions\"][0][\"start\"]")" = "$(part_offset gpt.img 1)" &&
	test "$(json_get info.json "d[\"fit\"][\"partition\"]")" = 1 &&
	test "$(json_get info.json "len(d[\"fit\"][\"images\"])")" = 7 &&
	test "$(json_get info.json "d[\"boot_script\"][\"loads_user_override\"]")" = True &&
	test "$(json_get info.json "[c[\"uhs_blocked\"] for t in d[\"device_trees\"] if t[\"index\"]==6 for c in t[\"controllers\"] if c[\"path\"]==\"/axi/mmc@ff170000\"][0]")" = True &&
	test "$(json_get info.json "d[\"boot_path\"][\"trees\"]")" = "[]" &&
	$IMGPATCH info --json nofit.img >nofit.json &&
	test "$(json_get nofit.json "d[\"fit\"]")" = None &&
	test "$(json_get nofit.json "(d[\"boot_path\"][\"trees\"], d[\"device_trees\"])")" = "([], [])"
'

test_expect_success 'after a patch, info shows the override without no-1-8-v and the new fstab' '
	cp gpt.img patched.img &&
	$IMGPATCH patch patched.img --fdt 6 --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime >/dev/null &&
	$IMGPATCH info patched.img >patched.txt &&
	sed -n "/^user-override.dtb (p1)/,/^$/p" patched.txt >ovr.txt &&
	grep "/axi/mmc@ff170000 okay" ovr.txt && ! grep "no-1-8-v" ovr.txt &&
	grep -F "LABEL=writable / ext4 errors=remount-ro,noatime 0 1" patched.txt
'

test_expect_success 'errors: missing image, no partition table, usage' '
	test_must_fail_with 1 $IMGPATCH info nonexistent.img 2>err &&
	grep "^imgpatch: nonexistent.img: " err && test "$(wc -l <err)" = 1 &&
	truncate -s 4M blank.img &&
	test_must_fail_with 1 $IMGPATCH info blank.img 2>err2 &&
	grep "no partition table" err2 &&
	test_must_fail_with 2 $IMGPATCH info &&
	test_must_fail_with 2 $IMGPATCH info --bogus gpt.img
'

test_done
