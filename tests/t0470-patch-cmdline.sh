#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='patch --cmdline and cat --cmdline on each boot path: the line the loader reads is edited (read back with mtype and debugfs), the rest of the file kept, twice changes nothing, a refusal leaves the image byte-identical'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mtype mcopy debugfs e2fsck fsck.fat python3 mkimage dumpimage dtc
export IMGPATCH_RECIPE_PATH=$IMGPATCH_BUILD/recipes

K3S=+cgroup_enable=memory,+cgroup_memory=1

# fat IMG PATH: a file of the FAT in partition 1, read by mtype (after fsck.fat -n).
fat()
{
	local -; set +x
	extract_part "$1" 1 "$1.p1" && fsck.fat -n "$1.p1" >/dev/null &&
	mtype -i "$(part_mtools "$1" 1)" "::$2"
}

# ext IMG PATH: a file of the ext4 in partition 1, read by debugfs (after e2fsck -fn).
ext()
{
	local -; set +x
	extract_part "$1" 1 "$1.p1" && e2fsck -fn "$1.p1" >/dev/null 2>&1 &&
	ext_cat "$1.p1" "$2"
}

# cat_line IMG [ARGS...]: the line cat --cmdline prints after its comment.
cat_line()
{
	local -; set +x
	imgpatch cat "$@" --cmdline >cat.out &&
	test "$(wc -l <cat.out)" = 2 && head -1 cat.out | grep -q "^# " &&
	tail -1 cat.out
}

. "$FIXTURES/lib-fixture.sh"

test_expect_success 'build the images' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	"$FIXTURES/mkimage-extlinux.sh" extlinux.img &&
	"$FIXTURES/mkimage-armbian.sh" armbian.img &&
	"$FIXTURES/mkimage-beagle.sh" beagle.img &&
	"$FIXTURES/mkimage-pmos.sh" pmos.img &&
	extract_part pmos.img 1 pmos.p1 &&
	debugfs -R "dump /boot.scr pmos.boot.scr" pmos.p1 >/dev/null 2>&1 &&
	tail -c +73 pmos.boot.scr >pmos.boot.cmd &&
	"$FIXTURES/mkimage-kv260.sh" kv260.img
'

test_expect_success 'rpi: cat --cmdline prints the first line of cmdline.txt, the firmware'"'"'s part named' '
	fat rpi.img /cmdline.txt >cmdline.txt &&
	test "$(cat_line rpi.img)" = "$(head -1 cmdline.txt)" &&
	grep -q "^# p1 (vfat): /cmdline.txt, the first line; the firmware puts its own arguments before it" cat.out
'

test_expect_success 'rpi: cat --cmdline without cmdline.txt names the partition and the file once' '
	cp rpi.img rpi-noline.img &&
	mdel -i "rpi-noline.img@@$(part_offset rpi-noline.img 1)" ::/cmdline.txt &&
	test_must_fail imgpatch cat rpi-noline.img --cmdline >out 2>err &&
	echo "imgpatch: rpi-noline.img: p1 (vfat): /cmdline.txt: no such file" >expect &&
	test_cmp expect err
'

test_expect_success 'rpi: k3s'"'"'s words appended to the one line, the plan shows it before and after' '
	cp rpi.img rpi-k3s.img &&
	imgpatch patch rpi-k3s.img --cmdline $K3S >plan &&
	grep -q "^    before: console=serial0,115200 .* rootwait quiet init=/usr/lib/raspberrypi-sys-mods/firstboot\$" plan &&
	grep -q "^    after:  console=serial0,115200 .*/firstboot cgroup_enable=memory cgroup_memory=1\$" plan &&
	fat rpi-k3s.img /cmdline.txt >after.txt &&
	printf "%s cgroup_enable=memory cgroup_memory=1\n" "$(head -1 cmdline.txt)" >expect &&
	test_cmp expect after.txt &&
	test "$(cat_line rpi-k3s.img)" = "$(head -1 after.txt)"
'

test_expect_success 'rpi: again, nothing changes; --dry-run writes nothing' '
	sum=$(sum_file rpi-k3s.img) &&
	imgpatch patch rpi-k3s.img --cmdline $K3S >again &&
	grep -q "unchanged (already applied)" again &&
	test_file_unchanged rpi-k3s.img "$sum" &&
	sum=$(sum_file rpi.img) &&
	imgpatch patch rpi.img --dry-run --cmdline -quiet,+console=ttyAMA0,115200 >dry &&
	grep -q "^    after:  console=ttyAMA0,115200 root=PARTUUID=" dry &&
	test_file_unchanged rpi.img "$sum"
'

test_expect_success 'rpi: only the first line counts; a second one is left as it is' '
	cp rpi.img rpi-2l.img &&
	printf "quiet root=/dev/sda2\nsecond line quiet\n" >two.txt &&
	mcopy -o -i "$(part_mtools rpi-2l.img 1)" two.txt ::/cmdline.txt &&
	test "$(cat_line rpi-2l.img)" = "quiet root=/dev/sda2" &&
	imgpatch patch rpi-2l.img --cmdline -quiet,+rootwait >/dev/null &&
	printf "root=/dev/sda2 rootwait\nsecond line quiet\n" >expect &&
	fat rpi-2l.img /cmdline.txt >got && test_cmp expect got
'

test_expect_success 'rpi: config.txt'"'"'s cmdline= under [pi4] names the Pi 4'"'"'s file; without --model the trees differ' '
	printf "[pi4]\ncmdline=cmdline-pi4.txt\n[all]\n" >pi4.cfg &&
	"$FIXTURES/mkimage-rpi.sh" rpi-pi4.img --config=pi4.cfg &&
	printf "console=tty1 root=/dev/mmcblk0p2\n" >cmdline-pi4.txt &&
	mcopy -i "$(part_mtools rpi-pi4.img 1)" cmdline-pi4.txt ::/cmdline-pi4.txt &&
	test_refuses rpi-pi4.img "keeps a command line per tree: pick one with --model" \
		imgpatch patch rpi-pi4.img --cmdline +quiet &&
	test "$(cat_line rpi-pi4.img --model pi4)" = "console=tty1 root=/dev/mmcblk0p2" &&
	grep -q "/cmdline-pi4.txt" cat.out &&
	fat rpi-pi4.img /cmdline.txt >before5 &&
	imgpatch patch rpi-pi4.img --model pi4 --cmdline +quiet >/dev/null &&
	test "$(fat rpi-pi4.img /cmdline-pi4.txt)" = "console=tty1 root=/dev/mmcblk0p2 quiet" &&
	fat rpi-pi4.img /cmdline.txt >after5 && test_cmp before5 after5
'

test_expect_success 'rpi: info and info --json show the line, per model where they differ' '
	imgpatch info rpi-k3s.img >info.txt &&
	grep -q "^  cmdline: console=serial0,115200 .*cgroup_memory=1\$" info.txt &&
	imgpatch info --json rpi-pi4.img >info.json &&
	python3 - info.json <<-\EOP
	import json, sys
	c = json.load(open(sys.argv[1]))["boot_path"]["cmdline"]
	assert c["error"] is None, c
	by = {l["model"]: l["line"] for l in c["lines"]}
	assert by["pi4"] == "console=tty1 root=/dev/mmcblk0p2 quiet", by
	assert by["pi5"].startswith("console=serial0,115200 "), by
	EOP
'

test_expect_success 'extlinux: the append of the label U-Boot boots (l0), not the rescue label'"'"'s' '
	ext extlinux.img /boot/extlinux/extlinux.conf >conf.before &&
	test "$(cat_line extlinux.img)" = "$(sed -n "s/^\tappend //p" conf.before | head -1)" &&
	cp extlinux.img ext-con.img &&
	imgpatch patch ext-con.img --cmdline +console=ttyS2,1500000n8,-quiet >plan &&
	grep -q "kernel command line (label l0, append):" plan &&
	ext ext-con.img /boot/extlinux/extlinux.conf >conf.after &&
	diff conf.before conf.after >d || true &&
	test "$(grep -c "^[<>]" d)" = 2 &&
	grep -q "^> 	append root=UUID=.* ro console=ttyS2,1500000n8\$" d &&
	grep -q "append root=UUID=.* ro single\$" conf.after
'

test_expect_success 'extlinux: a label without append gets one after its label line' '
	cp extlinux.img ext-noappend.img &&
	sed "/append root=UUID=.* ro quiet/d" conf.before >noappend.conf &&
	extract_part ext-noappend.img 1 p1.ext4 &&
	printf "rm /boot/extlinux/extlinux.conf\nwrite noappend.conf /boot/extlinux/extlinux.conf\n" >w.cmd &&
	debugfs -w -f w.cmd p1.ext4 >/dev/null 2>&1 && put_part ext-noappend.img 1 p1.ext4 &&
	imgpatch cat ext-noappend.img --cmdline >cat.out &&
	grep -q "U-Boot hands over the bootargs of its own environment" cat.out &&
	imgpatch patch ext-noappend.img --cmdline +console=ttyS2,1500000n8 >/dev/null &&
	ext ext-noappend.img /boot/extlinux/extlinux.conf >got &&
	grep -A1 "^label l0\$" got | tail -1 | grep -qx "	append console=ttyS2,1500000n8" &&
	test "$(cat_line ext-noappend.img)" = console=ttyS2,1500000n8
'

test_expect_success 'recipe extlinux-serial-console: the serial console on the booted label' '
	cp extlinux.img ext-rec.img &&
	imgpatch apply extlinux-serial-console ext-rec.img >/dev/null &&
	test "$(cat_line ext-rec.img)" = "$(cat_line ext-con.img)"
'

test_expect_success 'armbian: extraargs= added to armbianEnv.txt, then edited in place' '
	ext armbian.img /boot/armbianEnv.txt >env.before &&
	! grep -q "^extraargs=" env.before &&
	test "$(cat_line armbian.img)" = "" &&
	grep -q "^# p1 (ext4): /boot/armbianEnv.txt, extraargs= (not set); /boot/boot.scr builds bootargs around it: line [0-9]*: setenv bootargs \"root=\${rootdev} " cat.out &&
	cp armbian.img armbian-k3s.img &&
	imgpatch patch armbian-k3s.img --cmdline $K3S >/dev/null &&
	ext armbian-k3s.img /boot/armbianEnv.txt >env.after &&
	{ cat env.before; echo "extraargs=cgroup_enable=memory cgroup_memory=1"; } >expect &&
	test_cmp expect env.after &&
	imgpatch patch armbian-k3s.img --cmdline -cgroup_memory >/dev/null &&
	ext armbian-k3s.img /boot/armbianEnv.txt >env.after2 &&
	{ cat env.before; echo "extraargs=cgroup_enable=memory"; } >expect &&
	test_cmp expect env.after2
'

test_expect_success 'beagle: uEnv.txt'"'"'s cmdline=, the commented-out ones left' '
	ext beagle.img /boot/uEnv.txt >uenv.before &&
	test "$(cat_line beagle.img)" = "$(sed -n "s/^cmdline=//p" uenv.before)" &&
	cp beagle.img beagle-k3s.img &&
	imgpatch patch beagle-k3s.img --cmdline $K3S >/dev/null &&
	ext beagle-k3s.img /boot/uEnv.txt >uenv.after &&
	sed "s/^cmdline=.*/& cgroup_enable=memory cgroup_memory=1/" uenv.before >expect &&
	test_cmp expect uenv.after
'

test_expect_success 'postmarketOS: boot.scr'"'"'s line, edited through the hook user.scr it sources after it' '
	test "$(cat_line pmos.img)" = "$(sed -n "s/^setenv bootargs //p" pmos.boot.cmd)" &&
	grep -q "^# p1 (ext2): /user.scr, setenv bootargs (not set: the boot script" cat.out &&
	cp pmos.img pmos-p.img &&
	imgpatch patch pmos-p.img --cmdline -loglevel,+quiet >plan &&
	grep -q "^    after:  init=/init.sh rw .* pmos_root=/dev/mmcblk\${bootdev}p2 quiet\$" plan &&
	extract_part pmos-p.img 1 p1.ext2 && e2fsck -fn p1.ext2 >/dev/null 2>&1 &&
	debugfs -R "dump /user.scr user.scr" p1.ext2 >/dev/null 2>&1 &&
	dumpimage -l user.scr | grep -q "Image Type:.* Script (uncompressed)" &&
	tail -c +73 user.scr >user.txt &&
	printf "setenv bootargs \"%s\"\n" "$(sed -n "s/^    after:  //p" plan)" >expect &&
	tail -1 user.txt >got && test_cmp expect got &&
	test "$(cat_line pmos-p.img)" = "$(sed "s/^setenv bootargs \"//; s/\"\$//" got)" &&
	sum=$(sum_file pmos-p.img) &&
	imgpatch patch pmos-p.img --cmdline -loglevel,+quiet >/dev/null &&
	test_file_unchanged pmos-p.img "$sum"
'

test_expect_success 'postmarketOS: the owner'"'"'s user.scr keeps its commands, name and a line of its own is edited' '
	printf "# the owner'"'"'s\nfdt set /soc/mmc@1c11000 max-frequency <150000000>\nsetenv bootargs \"console=ttyS0,115200 rw\"\n" >own.cmd &&
	mkimage -A arm64 -O linux -T script -C none -n own -d own.cmd own.scr >/dev/null &&
	cp pmos.img pmos-own.img &&
	extract_part pmos-own.img 1 own.ext2 &&
	printf "write own.scr /user.scr\n" >w.cmd &&
	debugfs -w -f w.cmd own.ext2 >/dev/null 2>&1 && put_part pmos-own.img 1 own.ext2 &&
	test "$(cat_line pmos-own.img)" = "console=ttyS0,115200 rw" &&
	imgpatch patch pmos-own.img --cmdline +quiet >/dev/null &&
	extract_part pmos-own.img 1 own2.ext2 && e2fsck -fn own2.ext2 >/dev/null 2>&1 &&
	debugfs -R "dump /user.scr own2.scr" own2.ext2 >/dev/null 2>&1 &&
	dumpimage -l own2.scr | grep -q "^Image Name: *own\$" &&
	sed "s/ rw\"/ rw quiet\"/" own.cmd >expect &&
	tail -c +73 own2.scr >got && test_cmp expect got
'

test_expect_success 'a boot.scr without the hook, and the Kria FIT'"'"'s: the script sets bootargs itself, refused naming its line' '
	"$FIXTURES/mkimage-pmos.sh" nohook.img --no-user-scr-hook &&
	test_refuses nohook.img "/boot.scr sets bootargs itself (line [0-9]*: setenv bootargs init=/init.sh" \
		imgpatch patch nohook.img --cmdline +quiet &&
	test_refuses kv260.img "/boot.scr.uimg sets bootargs itself (line [0-9]*: setenv bootargs \"root=LABEL=writable" \
		imgpatch patch kv260.img --cmdline +quiet &&
	test_must_fail imgpatch cat kv260.img --cmdline
'

test_expect_success 'a malformed edit is a usage error, the image untouched' '
	test_refuses_usage rpi.img "expected +WORD, +KEY=VALUE" imgpatch patch rpi.img --cmdline quiet &&
	test_refuses_usage rpi.img "a double quote is not closed" \
		imgpatch patch rpi.img --cmdline "+dyndbg=\"file x" &&
	test_refuses_usage rpi.img "one at a time" imgpatch cat rpi.img --cmdline --dtb
'

test_expect_success 'recipe rpi-k3s-cgroups: the same line as patch --cmdline, twice changes nothing' '
	cp rpi.img rpi-rec.img &&
	imgpatch apply rpi-k3s-cgroups rpi-rec.img >/dev/null &&
	test "$(cat_line rpi-rec.img)" = "$(cat_line rpi-k3s.img)" &&
	sum=$(sum_file rpi-rec.img) &&
	imgpatch apply rpi-k3s-cgroups rpi-rec.img >/dev/null &&
	test_file_unchanged rpi-rec.img "$sum"
'

test_done
