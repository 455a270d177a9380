#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='no fixed counts over image content: a script of 500 loads, 500 variables and 40 nested ifs, a command of 500 words, a tree of 80 SD/eMMC controllers, a controller of 20 speed properties, a FIT of 300 configurations, an fstab of 100 and of 300 lines'
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

test_expect_success 'user.scr with 500 loads, 500 variables, a 500-word command and 40 nested ifs: the overlay of the last load applies, as fdtoverlay gives it' '
	cat >a.dts <<-\EOF &&
	/dts-v1/;
	/plugin/;
	&mmc0 { max-frequency = <50000000>; };
	EOF
	dtc -q -@ -I dts -O dtb -o a.dtbo a.dts &&
	{
		for i in $(seq 1 500); do echo "setenv v$i 0x$((0x48000000 + i * 4096))"; done &&
		for i in $(seq 1 499); do echo "load mmc \${mmc_bootdev}:1 \${v$((i % 500 + 1))} notes$i.txt"; done &&
		echo "echo $(seq -s " " 1 500)" &&
		echo "setenv ov \${v500}" &&
		for i in $(seq 1 40); do echo "if test -n \"\${v$i}\"; then"; done &&
		echo "load mmc \${mmc_bootdev}:1 \${ov} a.dtbo && fdt apply \${ov}" &&
		for i in $(seq 1 40); do echo "fi"; done
	} >user.cmd &&
	test "$(grep -c "^load " user.cmd)" = 500 &&
	test "$(grep -c "^setenv v" user.cmd)" = 500 &&
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

test_expect_success 'a controller with 20 speed properties: info lists each one fdtget finds' '
	props="no-1-8-v non-removable cap-mmc-highspeed cap-sd-highspeed sd-uhs-sdr12 sd-uhs-sdr25 sd-uhs-sdr50 sd-uhs-sdr104 sd-uhs-ddr50 mmc-hs200-1_8v mmc-hs200-1_2v mmc-hs400-1_8v mmc-hs400-1_2v mmc-hs400-enhanced-strobe mmc-ddr-1_8v mmc-ddr-3_3v mmc-ddr-1_2v" &&
	{
		echo "/dts-v1/; / { #address-cells = <1>; #size-cells = <1>; mmc@10000 { compatible = \"arasan,sdhci-8.9a\"; reg = <0x10000 0x1000>;" &&
		echo "bus-width = <8>; max-frequency = <200000000>; vqmmc-supply = <1>;" &&
		for p in $props; do echo "$p;"; done &&
		echo "}; };"
	} >wide.dts &&
	dtc -q -I dts -O dtb -o wide.dtb wide.dts &&
	fdtget -p wide.dtb /mmc@10000 | grep -vx "compatible\|reg" | sort >want &&
	test "$(wc -l <want)" = 20 &&
	cp kv.img kvw.img &&
	mcopy -o -i "kvw.img@@$(part_offset kvw.img 1)" wide.dtb ::user-override.dtb &&
	imgpatch info --json kvw.img >wide.json &&
	python3 - <<-\EOF >got &&
	import json
	t = [d for d in json.load(open("wide.json"))["device_trees"] if d["source"] == "user-override.dtb"]
	for name in sorted(t[0]["controllers"][0]["properties"]):
	    print(name)
	EOF
	test_cmp want got &&
	imgpatch info kvw.img >wide.info &&
	grep "^  /mmc@10000 okay: " wide.info >line &&
	for p in $props bus-width max-frequency vqmmc-supply; do grep -qw -- "$p" line || return 1; done
'

test_expect_success 'a FIT of 300 configurations: info lists each one fdtget finds, with its fdt' '
	mkdir fit300 &&
	head -c 4096 /dev/zero >fit300/Image &&
	cp "$DTB_DIR/smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb" fit300/a.dtb &&
	cp "$DTB_DIR/sm-k26-revA-sck-kv-g-revA.dtb" fit300/b.dtb &&
	{
		echo "/dts-v1/; / { description = \"300 configurations\"; #address-cells = <1>; images {" &&
		echo "kernel-1 { data = /incbin/(\"Image\"); type = \"kernel\"; arch = \"arm64\"; os = \"linux\"; compression = \"none\"; load = <0x200000>; entry = <0x200000>; hash-1 { algo = \"crc32\"; }; };" &&
		for f in a b; do
			echo "fdt-$f.dtb { data = /incbin/(\"$f.dtb\"); type = \"flat_dt\"; arch = \"arm64\"; compression = \"none\"; hash-1 { algo = \"sha1\"; }; };"
		done &&
		echo "}; configurations { default = \"conf-300\";" &&
		for i in $(seq 1 300); do
			echo "conf-$i { kernel = \"kernel-1\"; fdt = \"fdt-$(test $((i % 2)) = 0 && echo a || echo b).dtb\"; };"
		done &&
		echo "}; };"
	} >fit300/image.its &&
	(cd fit300 && mkimage -f image.its image.fit >/dev/null) &&
	for c in $(fdtget -l fit300/image.fit /configurations); do
		echo "$c $(fdtget fit300/image.fit /configurations/$c fdt)" || return 1
	done >want &&
	test "$(wc -l <want)" = 300 &&
	cp kv.img kvf.img &&
	mcopy -o -i "kvf.img@@$(part_offset kvf.img 1)" fit300/image.fit ::image.fit &&
	imgpatch info kvf.img >fit.info &&
	grep "^fit: p1 /image.fit, [0-9]* bytes, 3 images, 300 configurations$" fit.info &&
	sed -n "s/^  \(conf-[0-9]*\) .* \(fdt-[ab].dtb\)\$/\1 \2/p" fit.info >got &&
	test_cmp want got &&
	grep "^  conf-300  *yes  *kernel-1  *fdt-a.dtb$" fit.info &&
	imgpatch info --json kvf.img >fit.json &&
	python3 - <<-\EOF >got.json &&
	import json
	for c in json.load(open("fit.json"))["fit"]["configurations"]:
	    print(c["name"], c["fdt"])
	EOF
	test_cmp want got.json
'

test_expect_success 'an fstab of 100 entries: a mount point it lacks is refused, the message lists all of them, image unchanged' '
	cp kv.img kv100.img &&
	ext_get kv100.img 2 /etc/fstab fstab.orig &&
	{
		cat fstab.orig &&
		for i in $(seq 1 100); do echo "/dev/disk/by-label/d$i /srv/d$i ext4 defaults,nofail 0 2"; done
	} >fstab100 &&
	extract_part kv100.img 2 root100.ext &&
	debugfs -w -R "rm /etc/fstab" root100.ext >/dev/null 2>&1 &&
	debugfs -w -R "write fstab100 /etc/fstab" root100.ext >/dev/null 2>&1 &&
	e2fsck -fn root100.ext >/dev/null 2>&1 &&
	put_part kv100.img 2 root100.ext &&
	test_refuses kv100.img "no fstab entry for" imgpatch patch kv100.img --fstab /nope:+noatime &&
	test "$(wc -l <err)" = 1 &&
	awk "!/^#/ && NF >= 4 { printf \"%s%s\", n++ ? \", \" : \"\", \$2 }" fstab100 >list &&
	grep -F "no fstab entry for '"'"'/nope'"'"' (have: $(cat list))" err &&
	! grep -q "entries in all" err
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
	test "$(wc -l <err)" = 1 && test "$(wc -c <err)" -lt 2048 &&
	test "$(grep -o "/srv/d[0-9]*" err | wc -l)" -ge 100
'

test_done
