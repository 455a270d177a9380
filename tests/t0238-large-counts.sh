#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='no fixed counts over image content: a script of 300 loads and 80 variables, a command of 40 words, a tree of 80 SD/eMMC controllers, an fstab of 300 lines'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mcopy mke2fs debugfs e2fsck dtc fdtoverlay fdtget \
	mkimage python3

# ext_get IMG N PATH OUT: a file of the ext filesystem of partition N.
ext_get()
{
	debugfs -R "dump $3 $4" "$1?offset=$(part_offset "$1" "$2")" 2>/dev/null &&
		test -s "$4"
}

# ext_put IMG N FILE...: writes each FILE to the top of partition N's ext
# filesystem, checked with e2fsck.
ext_put()
{
	local img=$1 n=$2 f

	shift 2
	extract_part "$img" "$n" part.ext &&
	for f in "$@"; do
		debugfs -w -R "rm /$f" part.ext >/dev/null 2>&1
		debugfs -w -R "write $f /$f" part.ext >/dev/null 2>&1 || return 1
	done &&
	e2fsck -fn part.ext >/dev/null 2>&1 &&
	put_part "$img" "$n" part.ext
}

test_expect_success 'build: postmarketOS (the PinePhone tree with __symbols__) and the KV260 layout' '
	mkdir symbols &&
	cp "$DTB_DIR"/*.dtb symbols/ &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" symbols/sun50i-a64-pinephone-1.2.dtb &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-pmos.sh" pmos.img &&
	"$FIXTURES/mkimage-kv260.sh" kv.img
'

test_expect_success 'user.scr with 300 loads, 80 variables and a 40-word command: the overlay of the last load applies, as fdtoverlay gives it' '
	cat >a.dts <<-\EOF &&
	/dts-v1/;
	/plugin/;
	&mmc0 { max-frequency = <50000000>; };
	EOF
	dtc -q -@ -I dts -O dtb -o a.dtbo a.dts &&
	{
		for i in $(seq 1 80); do echo "setenv v$i 0x$((0x48000000 + i * 4096))"; done &&
		for i in $(seq 1 299); do echo "load mmc \${mmc_bootdev}:1 \${v$((i % 80 + 1))} notes$i.txt"; done &&
		echo "echo $(seq -s " " 1 40)" &&
		echo "setenv ov \${v80}" &&
		echo "load mmc \${mmc_bootdev}:1 \${ov} a.dtbo && fdt apply \${ov}"
	} >user.cmd &&
	test "$(grep -c "^load " user.cmd)" = 300 &&
	mkimage -A arm -O linux -T script -C none -d user.cmd user.scr >/dev/null &&
	ext_put pmos.img 1 a.dtbo user.scr &&
	ext_get pmos.img 1 /sun50i-a64-pinephone-1.2.dtb base.dtb &&
	ext_get pmos.img 1 /sun50i-a64-psci.dtbo psci.dtbo &&
	fdtoverlay -i base.dtb -o merged.dtb psci.dtbo a.dtbo &&
	dtc -q -I dtb -O dts -o expect merged.dtb &&
	imgpatch cat pmos.img --dtb >got.all &&
	head -n 1 got.all >got.head && sed 1d got.all >got &&
	test_cmp expect got &&
	echo "// boot path script: /sun50i-a64-pinephone-1.2.dtb + /sun50i-a64-psci.dtbo + /a.dtbo" >head.expect &&
	test_cmp head.expect got.head
'

test_expect_success 'a tree of 80 SD/eMMC controllers: info lists each one fdtget finds' '
	{
		echo "/dts-v1/; / { #address-cells = <1>; #size-cells = <1>; soc { #address-cells = <1>; #size-cells = <1>;" &&
		for i in $(seq 0 79); do
			printf "mmc@%x { compatible = \"arasan,sdhci-8.9a\"; reg = <0x%x 0x1000>; bus-width = <4>; };\n" \
				$((0x10000 + i * 4096)) $((0x10000 + i * 4096))
		done &&
		echo "}; };"
	} >many.dts &&
	dtc -q -I dts -O dtb -o user-override.dtb many.dts &&
	fdtget -l user-override.dtb /soc | sed "s|^|/soc/|" | sort >want &&
	test "$(wc -l <want)" = 80 &&
	mcopy -o -i "kv.img@@$(part_offset kv.img 1)" user-override.dtb ::user-override.dtb &&
	imgpatch info kv.img >info &&
	grep -x "user-override.dtb (p1): 80 SD/eMMC controllers" info &&
	sed -n "/^user-override.dtb (p1): /,/^\$/p" info | sed -n "s/^  \(\/soc\/mmc@[0-9a-f]*\) .*/\1/p" | sort >got &&
	test_cmp want got &&
	imgpatch info --json kv.img >info.json &&
	python3 - <<-\EOF
	import json
	t = [d for d in json.load(open("info.json"))["device_trees"] if d["source"] == "user-override.dtb"]
	assert len(t) == 1 and len(t[0]["controllers"]) == 80, t
	assert all(c["properties"]["bus-width"] == "<0x04>" for c in t[0]["controllers"])
	EOF
'

test_expect_success 'an fstab of 300 lines: the root entry on the last line, as python reads the file' '
	ext_get kv.img 2 /etc/fstab fstab.orig &&
	{
		for i in $(seq 1 299); do echo "/dev/disk/by-label/d$i /srv/d$i ext4 defaults,nofail 0 2"; done &&
		cat fstab.orig
	} >fstab &&
	mkdir etc && cp fstab etc/fstab &&
	extract_part kv.img 2 root.ext &&
	debugfs -w -R "rm /etc/fstab" root.ext >/dev/null 2>&1 &&
	debugfs -w -R "write fstab /etc/fstab" root.ext >/dev/null 2>&1 &&
	e2fsck -fn root.ext >/dev/null 2>&1 &&
	put_part kv.img 2 root.ext &&
	python3 - >want <<-\EOF &&
	for n, line in enumerate(open("fstab"), 1):
	    f = line.split()
	    if len(f) >= 2 and f[1] == "/":
	        print("line %d: %s" % (n, " ".join(f)))
	EOF
	imgpatch info kv.img >info &&
	sed -n "s/^root fstab: p2 \/etc\/fstab //p" info >got &&
	test_cmp want got
'

test_expect_success 'fstab of 300 lines: a mount point it lacks is refused, the message lists some and says how many, image unchanged' '
	test_refuses kv.img "no fstab entry for" imgpatch patch kv.img --fstab /nope:+noatime &&
	grep -q ", \.\.\. $(grep -vc "^#" fstab) entries in all)$" err &&
	test "$(grep -o "/srv/d[0-9]*" err | wc -l)" -lt 40
'

test_done
