#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='write: one download to many cards, patched per card, only the used blocks, verified'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools python3 script sfdisk xz debugfs e2fsck fsck.fat mtype cmp
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

KEY1="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab01 admin@lab"

# card_has CARD HOST KEY: the card's own name and key (debugfs), both
# filesystems clean (e2fsck, fsck.fat).
card_has()
{
	extract_part "$1" 2 card-root.ext4 &&
	debugfs -R "cat /etc/hostname" card-root.ext4 2>/dev/null >host &&
	echo "$2" >want.host && test_cmp want.host host &&
	debugfs -R "cat /etc/ssh/authorized_keys.ubuntu" card-root.ext4 2>/dev/null >key &&
	echo "$3" >want.key && test_cmp want.key key &&
	debugfs -R "cat /etc/ssh/sshd_config.d/imgpatch-authorized-keys.conf" card-root.ext4 \
		2>/dev/null | grep -q "^AuthorizedKeysFile .* /etc/ssh/authorized_keys.%u$" &&
	e2fsck -fn card-root.ext4 >/dev/null 2>&1 &&
	extract_part "$1" 1 card-boot.fat && fsck.fat -n card-boot.fat >/dev/null
}

# junk_card OUT SIZE: a used card, every byte 0xa5.
junk_card()
{
	head -c "$2" /dev/zero | tr '\0' '\245' >"$1"
}

# outside_ranges IMG: "START END" of each stretch of IMG outside its
# partitions (tables, boot loader space, the GPT backup).
outside_ranges()
{
	python3 - "$1" <<-\EOF
	import json, os, subprocess, sys
	t = json.loads(subprocess.check_output(["sfdisk", "-J", sys.argv[1]]))["partitiontable"]
	ss = t.get("sectorsize", 512)
	at = 0
	for s, e in sorted((p["start"] * ss, (p["start"] + p["size"]) * ss) for p in t["partitions"]):
	    if s > at:
	        print(at, s)
	    at = max(at, e)
	if at < os.path.getsize(sys.argv[1]):
	    print(at, os.path.getsize(sys.argv[1]))
	EOF
}

test_expect_success 'a download with sshd drop-ins, and a lab table' '
	make_kv260 kv.img &&
	extract_part kv.img 2 root.ext4 &&
	debugfs -w -R "mkdir /etc/ssh" root.ext4 &&
	debugfs -w -R "mkdir /etc/ssh/sshd_config.d" root.ext4 &&
	put_part kv.img 2 root.ext4 &&
	xz -T1 -0 -k kv.img && sum_file kv.img.xz >xz.sum &&
	for i in 1 2 3 4; do
		echo "card$i.img,lab-0$i,ubuntu,\"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab0$i admin@lab\""
	done >rows &&
	{ echo "target,hostname,user,key" && cat rows; } >lab.csv
'

size=$(stat -c %s kv.img 2>/dev/null)

test_expect_success '4 cards from one .img.xz, a recipe each and a 4-row table' '
	junk_card card3.img $size &&
	imgpatch write kv.img.xz card1.img card2.img card3.img card4.img \
		--apply hostname --apply ssh-key --each lab.csv --json report.json >out &&
	cat out &&
	test "$(grep -c "^\[[1-4]/4\] card[1-4].img: written and verified" out)" = 4 &&
	grep "^write: 4 cards, 0 failed$" out &&
	for i in 1 2 3 4; do
		card_has card$i.img lab-0$i \
			"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab0$i admin@lab" || return 1
	done &&
	test_file_unchanged kv.img.xz "$(cat xz.sum)"
'

test_expect_success 'the --json report: one entry per card, the used blocks only' '
	python3 - report.json $size <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	size = int(sys.argv[2])
	assert r["schema_version"] == 1 and r["image"] == "kv.img.xz", r
	assert r["recipes"] == ["hostname", "ssh-key"] and r["image_size"] == size, r
	assert [c["target"] for c in r["cards"]] == ["card%d.img" % i for i in (1, 2, 3, 4)]
	for c in r["cards"]:
	    assert c["status"] == "verified" and c["error"] is None, c
	    assert c["mapped_bytes"] < size // 4, c
	    # A new card holds the zeros outside the partitions already, the
	    # used one (card3) holds junk there: it gets every mapped byte.
	    if c["target"] == "card3.img":
	        assert c["written_bytes"] == c["mapped_bytes"], c
	    else:
	        assert c["written_bytes"] < c["mapped_bytes"], c
	EOF
'

test_expect_success 'the report is valid against write.schema.json' '
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/write.schema.json" \
		report.json
'

test_expect_success 'without --each: cards byte-identical to what apply makes, even over junk' '
	imgpatch apply hostname kv.img --set hostname=lab-x -o ref.img >/dev/null &&
	junk_card junk.img $size &&
	imgpatch write kv.img.xz same.img junk.img --apply hostname --set hostname=lab-x >out &&
	cmp ref.img same.img &&
	extract_part junk.img 2 junk-root.ext4 && e2fsck -fn junk-root.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /etc/hostname" junk-root.ext4 2>/dev/null >host &&
	echo lab-x >want && test_cmp want host &&
	extract_part junk.img 1 junk-boot.fat && fsck.fat -n junk-boot.fat >/dev/null &&
	mtype -i junk.img@@$(part_offset junk.img 1) ::/boot.scr.uimg >/dev/null
'

test_expect_success 'outside the partitions: a used card ends as the image, a blank one gets no writes' '
	outside_ranges kv.img >outside && test -s outside &&
	junk_card used.img $size && truncate -s $size blank.img &&
	imgpatch write kv.img used.img blank.img --json outside.json >out &&
	grep "used.img: written and verified" out && grep "blank.img: written and verified" out &&
	while read -r start end; do
		cmp -i $start:$start -n $((end - start)) kv.img used.img || return 1
	done <outside &&
	cmp kv.img blank.img &&
	python3 - kv.img blank.img outside outside.json <<-\EOF
	import errno, json, os, sys
	img, blank, ranges, report = sys.argv[1:]
	cards = {c["target"]: c for c in json.load(open(report))["cards"]}
	used, fresh = cards["used.img"], cards["blank.img"]
	# Every block the used card held differs from the image: all written.
	assert used["written_bytes"] == used["mapped_bytes"], used
	data = open(img, "rb").read()
	fd = os.open(blank, os.O_RDONLY)
	zeros = 0
	for line in open(ranges):
	    start, end = map(int, line.split())
	    for at in range(start, end, 4096):
	        n = min(4096, end - at)
	        if data[at:at + n].count(0) != n:
	            continue
	        zeros += n
	        # Never written: still a hole (where the file system tells holes).
	        try:
	            assert os.lseek(fd, at, os.SEEK_DATA) >= at + n, at
	        except OSError as e:
	            assert e.errno == errno.ENXIO, e
	assert zeros > 0
	assert fresh["written_bytes"] == fresh["mapped_bytes"] - zeros, (fresh, zeros)
	EOF
'

# mini.img: FAT12, FAT16 and a partition of no known filesystem, each with
# data, so that the FAT12 and FAT16 tables are read and the unknown
# partition is written whole.
test_expect_success 'FAT12, FAT16 and an unknown partition, written over junk' '
	truncate -s 40M mini.img &&
	printf "label: dos\n2048,8192,1\n10240,40960,6\n51200,20480,83\n" | sfdisk -q mini.img &&
	truncate -s 4M p1.fat && mkfs.vfat -F 12 -n SMALL p1.fat >/dev/null &&
	truncate -s 20M p2.fat && mkfs.vfat -F 16 -n MID p2.fat >/dev/null &&
	head -c 300000 /dev/urandom >blob && mcopy -i p1.fat blob ::/blob &&
	mcopy -i p2.fat blob ::/blob && mmd -i p2.fat ::/dir && mcopy -i p2.fat blob ::/dir/b2 &&
	head -c 10M /dev/urandom >p3.raw &&
	put_part mini.img 1 p1.fat && put_part mini.img 2 p2.fat && put_part mini.img 3 p3.raw &&
	junk_card mini-card.img $(stat -c %s mini.img) &&
	imgpatch write mini.img mini-card.img --json mini.json >out &&
	extract_part mini-card.img 1 c1.fat && fsck.fat -n c1.fat >/dev/null &&
	extract_part mini-card.img 2 c2.fat && fsck.fat -n c2.fat >/dev/null &&
	mtype -i c1.fat ::/blob >b1 && cmp blob b1 &&
	mtype -i c2.fat ::/dir/b2 >b2 && cmp blob b2 &&
	extract_part mini-card.img 3 c3.raw && cmp p3.raw c3.raw &&
	cmp -n 1048576 mini.img mini-card.img &&
	grep -q "\"mapped_bytes\": [0-9]" mini.json &&
	mapped=$(sed -n "s/.*\"mapped_bytes\": \([0-9]*\).*/\1/p" mini.json) &&
	test "$mapped" -lt $((30 << 20))
'

# many.img: ext4 of many 1 MiB groups with checksums, most never used, so
# that the unused inode tables, the uninitialised groups' bitmaps and the
# backups of the reserved descriptor blocks are left out of the map.
test_expect_success 'ext4 of many groups over junk: unused metadata stays junk, e2fsck clean' '
	truncate -s 40M many.img &&
	printf "label: dos\n2048,,83\n" | sfdisk -q many.img &&
	mkdir -p many.d/etc && echo many >many.d/etc/hostname &&
	head -c 200000 /dev/urandom >many.d/blob &&
	truncate -s $((40 * 1048576 - 1048576)) many.ext4 &&
	mke2fs -q -F -t ext4 -b 1024 -g 1024 -N 4096 -O metadata_csum,resize_inode \
		-E lazy_itable_init=0 -d many.d many.ext4 &&
	put_part many.img 1 many.ext4 &&
	junk_card many-card.img $(stat -c %s many.img) &&
	imgpatch write many.img many-card.img >out &&
	extract_part many-card.img 1 mc.ext4 && e2fsck -fn mc.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /blob" mc.ext4 2>/dev/null | cmp - many.d/blob &&
	# The last group is uninitialised: its inode table and bitmaps hold junk.
	dumpe2fs mc.ext4 2>/dev/null >groups &&
	awk "/^Group [0-9]+:/ { last = \"\" } { last = last \$0 \"\n\" } END { printf \"%s\", last }" \
		groups >last &&
	grep "INODE_UNINIT" last &&
	table=$(sed -n "s/^ *Inode table at \([0-9]*\)-.*/\1/p" last) &&
	test "$(od -An -tx1 -j $((table * 1024)) -N 4 mc.ext4 | tr -d " ")" = a5a5a5a5 &&
	# A backup of the reserved descriptor blocks is junk too (past the
	# 4 KiB block that it shares with the descriptors).
	rgdt=$(sed -n "s/^ *Reserved GDT blocks at \([0-9]*\)-.*/\1/p" groups | sed -n 2p) &&
	test "$(od -An -tx1 -j $(((rgdt + 8) * 1024)) -N 4 mc.ext4 | tr -d " ")" = a5a5a5a5
'

# The kernel writes a new inode whole: filling the card's filesystem puts
# inodes in the groups whose tables were left as junk, and it stays clean.
uninit=$(dumpe2fs mc.ext4 2>/dev/null | grep -c "INODE_UNINIT")
if [ "$(id -u)" = 0 ] && mkdir -p many-mnt && mount -o loop mc.ext4 many-mnt 2>/dev/null; then
test_expect_success 'ext4 over junk: the kernel allocates inodes where the table was junk' '
	for d in $(seq 40); do
		mkdir many-mnt/d$d && for f in $(seq 90); do echo $f >many-mnt/d$d/f$f || return 1; done
	done;
	status=$?; umount many-mnt && test $status = 0 &&
	test "$(dumpe2fs mc.ext4 2>/dev/null | grep -c "INODE_UNINIT")" -lt "$uninit" &&
	e2fsck -fn mc.ext4 >fsck.out 2>&1
'
else
test_skip 'ext4 over junk: the kernel allocates inodes where the table was junk' 'needs root and a loop mount'
fi

test_expect_success 'Ubuntu: the host name in cloud-init meta-data, per card' '
	{ echo "target,hostname" && echo "ci1.img,lab-a" && echo "ci2.img,lab-b"; } >ci.csv &&
	imgpatch write kv.img ci1.img ci2.img --apply cloud-init-hostname --apply hostname \
		--each ci.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	mtype -i "$(part_mtools ci2.img 1)" ::/meta-data >md &&
	printf "instance-id: lab-b\nlocal-hostname: lab-b\n" >want && test_cmp want md &&
	mtype -i "$(part_mtools ci1.img 1)" ::/meta-data >md &&
	printf "instance-id: lab-a\nlocal-hostname: lab-a\n" >want && test_cmp want md &&
	extract_part ci1.img 1 ci1.fat && fsck.fat -n ci1.fat >/dev/null
'

test_expect_success 'Raspberry Pi OS: first user and SSH, and a host name, per card' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	{ echo "target,user,password_hash,hostname" &&
	  echo "pi1.img,pi,\$6\$salt\$hash1,pi-01" &&
	  echo "pi2.img,lab,\$6\$salt\$hash2,pi-02"; } >pi.csv &&
	imgpatch write rpi.img --apply rpi-user --apply hostname --each pi.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	mtype -i "$(part_mtools pi1.img 1)" ::/userconf.txt >u1 &&
	echo "pi:\$6\$salt\$hash1" >want && test_cmp want u1 &&
	mtype -i "$(part_mtools pi2.img 1)" ::/userconf.txt >u2 &&
	echo "lab:\$6\$salt\$hash2" >want && test_cmp want u2 &&
	mtype -i "$(part_mtools pi2.img 1)" ::/ssh >s2 && test ! -s s2 &&
	extract_part pi2.img 1 pi2.fat && fsck.fat -n pi2.fat >/dev/null &&
	extract_part pi2.img 2 pi2.ext4 && e2fsck -fn pi2.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /etc/hostname" pi2.ext4 2>/dev/null >host &&
	echo pi-02 >want && test_cmp want host
'

test_expect_success 'Ubuntu: a user with a key and Wi-Fi or a fixed address, through cloud-init, per card' '
	{ echo "target,user,key,ssid,password,country" &&
	  echo "cu1.img,lab1,\"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab01 admin@lab\",lab-net,secret-1,GB" &&
	  echo "cu2.img,lab2,\"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab02 admin@lab\",lab-net,secret-2,DE"; } >cu.csv &&
	imgpatch write kv.img.xz --apply cloud-init-user --apply cloud-init-wifi --each cu.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	mtype -i "$(part_mtools cu2.img 1)" ::/user-data >ud &&
	head -1 ud | grep -x "#cloud-config" &&
	grep -x "  - name: lab2" ud && grep -x "    lock_passwd: true" ud &&
	grep -x "      - \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab02 admin@lab\"" ud &&
	grep -x "ssh_pwauth: false" ud &&
	mtype -i "$(part_mtools cu1.img 1)" ::/network-config >nc &&
	grep -x "version: 2" nc && grep -x "      \"lab-net\":" nc &&
	grep -x "        password: \"secret-1\"" nc &&
	mtype -i "$(part_mtools cu1.img 1)" ::/user-data | grep -x "  - name: lab1" &&
	extract_part cu1.img 1 cu1.fat && fsck.fat -n cu1.fat >/dev/null &&
	{ echo "target,address,gateway,dns" &&
	  echo "cs1.img,192.168.10.21/24,192.168.10.1,\"192.168.10.1,9.9.9.9\"" &&
	  echo "cs2.img,192.168.10.22/24,192.168.10.1,192.168.10.1"; } >cs.csv &&
	imgpatch write kv.img --apply cloud-init-static-ip --each cs.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	mtype -i "$(part_mtools cs1.img 1)" ::/network-config >nc &&
	grep -x "    addresses: \[192.168.10.21/24\]" nc && grep -x "        via: 192.168.10.1" nc &&
	grep -x "      addresses: \[192.168.10.1,9.9.9.9\]" nc && grep -x "  eth0:" nc &&
	mtype -i "$(part_mtools cs2.img 1)" ::/network-config | grep -x "    addresses: \[192.168.10.22/24\]" &&
	for f in ud nc; do
		python3 -c "import sys, yaml; yaml.safe_load(open(sys.argv[1]))" $f || return 1
	done
'

test_expect_success 'Armbian: the first login preset, and a host name, per card' '
	"$FIXTURES/mkimage-armbian.sh" arm.img &&
	extract_part arm.img 1 arm.ext4 &&
	debugfs -w -R "mkdir /root" arm.ext4 &&
	: >empty && debugfs -w -R "write empty /root/.not_logged_in_yet" arm.ext4 &&
	debugfs -w -R "write empty /etc/hostname" arm.ext4 &&
	put_part arm.img 1 arm.ext4 &&
	{ echo "target,user,password,root_password,hostname,wifi,wifi_ssid,wifi_key" &&
	  echo "ar1.img,lab,pw-1,root-1,arm-01,no,," &&
	  echo "ar2.img,lab,pw-2,root-2,arm-02,yes,lab-net,wifi-key"; } >ar.csv &&
	imgpatch write arm.img --apply armbian-firstrun --apply hostname --each ar.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	extract_part ar2.img 1 ar2.ext4 && e2fsck -fn ar2.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /root/.not_logged_in_yet" ar2.ext4 2>/dev/null >preset &&
	debugfs -R "cat /etc/hostname" ar2.ext4 2>/dev/null >host &&
	echo arm-02 >want && test_cmp want host &&
	grep -x "PRESET_USER_NAME=.lab." preset && grep -x "PRESET_USER_PASSWORD=.pw-2." preset &&
	grep -x "PRESET_ROOT_PASSWORD=.root-2." preset &&
	grep -x "PRESET_NET_WIFI_ENABLED=1" preset && grep -x "PRESET_NET_WIFI_SSID=.lab-net." preset &&
	grep -x "PRESET_LOCALE=.en_US.UTF-8." preset && grep -x "PRESET_TIMEZONE=.Etc/UTC." preset &&
	# armbian-firstlogin checks the file with bash -n, then sources it.
	bash -n preset &&
	(. ./preset && test "$PRESET_USER_PASSWORD" = pw-2 && test "$PRESET_NET_CHANGE_DEFAULTS" = 1) &&
	extract_part ar1.img 1 ar1.ext4 &&
	debugfs -R "cat /root/.not_logged_in_yet" ar1.ext4 2>/dev/null >preset1 &&
	grep -x "PRESET_NET_CHANGE_DEFAULTS=0" preset1 && grep -x "PRESET_USER_PASSWORD=.pw-1." preset1 &&
	(. ./preset1 && test -z "$PRESET_NET_WIFI_SSID")
'

test_expect_success 'a raw image without recipes: the card equals the image' '
	imgpatch write kv.img plain.img >out &&
	cmp kv.img plain.img
'

test_expect_success '--dry-run: every card checked, patched and mapped, nothing written' '
	junk_card dry1.img $size && sum_file dry1.img >dry1.sum &&
	{ echo "target,hostname" && echo "dry1.img,lab-d1" && echo "dry2.img,lab-d2"; } >dry.csv &&
	imgpatch write kv.img.xz --apply hostname --each dry.csv --dry-run --json dry.json >out &&
	cat out &&
	grep "^\[1/2\] dry1.img: planned, would write [0-9.]* MiB of [0-9.]* MiB" out &&
	# Per card, in turn: its parameters, the plan apply --dry-run prints, the bytes.
	imgpatch apply hostname kv.img --set hostname=lab-d2 --dry-run >apply.plan &&
	grep "^p2 (ext4) /etc/hostname: " apply.plan >plan.line &&
	sed -n "/^dry2.img: parameters:/,/^\[2\/2\]/p" out >card2.plan &&
	head -1 card2.plan | grep -x "dry2.img: parameters: hostname=lab-d2" &&
	grep -xF "$(cat plan.line)" card2.plan &&
	tail -1 card2.plan | grep "^\[2/2\] dry2.img: planned, would write" &&
	grep "^dry1.img  *planned  " out &&
	grep "^write: 2 cards, 0 failed (dry run: nothing written)$" out &&
	test_file_unchanged dry1.img "$(cat dry1.sum)" &&
	test ! -e dry2.img &&
	python3 -c "import json; r = json.load(open(\"dry.json\")); \
assert r[\"dry_run\"] is True, r; \
assert all(c[\"status\"] == \"planned\" and c[\"written_bytes\"] == 0 and \
c[\"mapped_bytes\"] > 0 for c in r[\"cards\"]), r" &&
	python3 "$TEST_DIR/json/validate.py" \
		"$REPO_DIR/tool/schema/write.schema.json" dry.json
'

test_expect_success '--dry-run: a card the recipe does not fit fails, still nothing written' '
	test_must_fail_with 1 imgpatch write kv.img dry1.img --apply rpi-sd-overclock \
		--set model=pi3 --set sd_overclock=100 --dry-run >out &&
	grep "dry1.img: FAILED: recipe .rpi-sd-overclock. does not match this image" out &&
	test_file_unchanged dry1.img "$(cat dry1.sum)"
'

test_expect_success '-j 1: one card at a time, each the same as at once' '
	imgpatch write kv.img.xz j1.img j2.img j3.img -j 1 --apply hostname \
		--set hostname=lab-j --json j.json >out &&
	grep "^write: 3 cards, 0 failed$" out &&
	# One at a time, they finish in order.
	grep "^\[1/3\] j1.img: " out && grep "^\[2/3\] j2.img: " out &&
	grep "^\[3/3\] j3.img: " out &&
	for c in j2 j3; do cmp j1.img $c.img || return 1; done &&
	extract_part j3.img 2 j.ext4 && debugfs -R "cat /etc/hostname" j.ext4 2>/dev/null >host &&
	echo lab-j >want && test_cmp want host &&
	test_must_fail_with 2 imgpatch write kv.img j1.img -j 0 2>err &&
	grep "jobs" err
'

test_expect_success 'refused before any card is written: bad row, small file, twice, unknown column' '
	truncate -s 1M small.img && sum_file card1.img >c1.sum &&
	test_must_fail_with 1 imgpatch write kv.img card1.img small.img 2>err &&
	grep "^imgpatch: small.img: the file is 1048576 bytes, smaller than the image" err &&
	test_must_fail_with 1 imgpatch write kv.img card1.img ./card1.img 2>err &&
	grep "^imgpatch: ./card1.img: given twice as a TARGET (first as card1.img)$" err &&
	test_must_fail_with 1 imgpatch write kv.img kv.img 2>err &&
	grep "^imgpatch: kv.img: is the image itself$" err &&
	{ echo "target,hostname,colour" && echo "card1.img,a,red"; } >bad.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --each bad.csv 2>err &&
	grep "^imgpatch: bad.csv:1: no recipe given has a parameter .colour.: give --each-ignore .colour. to leave the column out$" err &&
	{ echo "target,hostname" && echo "card1.img,\"a"; } >open.csv &&
	test_must_fail_with 2 imgpatch write kv.img --apply hostname --each open.csv 2>err &&
	grep "^imgpatch: open.csv:2: a quoted field is not closed$" err &&
	{ echo "target,hostname" && echo "card1.img,a"; } >one.csv &&
	test_must_fail_with 2 imgpatch write kv.img card1.img card2.img --apply hostname \
		--each one.csv 2>err &&
	grep "^imgpatch: one.csv: no row for target card2.img$" err &&
	test_must_fail_with 2 imgpatch write kv.img card1.img --set hostname=a 2>err &&
	grep "give --apply RECIPE" err &&
	test_file_unchanged card1.img "$(cat c1.sum)"
'

test_expect_success 'a card that does not match the recipe fails alone' '
	test_must_fail_with 1 imgpatch write kv.img card1.img --apply rpi-sd-overclock \
		--set model=pi3 --set sd_overclock=100 >out 2>err &&
	grep "card1.img: FAILED: recipe .rpi-sd-overclock. does not match this image: expected boot:/config.txt" out
'

test_expect_success 'apply --each: a row of parameters per image, every row checked first' '
	cp kv.img im1.img && cp kv.img im2.img &&
	{ echo "image,hostname" && echo "im2.img,host-2" && echo "im1.img,\"host-1\""; } >im.csv &&
	imgpatch apply hostname im1.img im2.img --each im.csv >out &&
	grep "^hostname: 2 images, 0 failed$" out &&
	for i in 1 2; do
		extract_part im$i.img 2 im.ext4 &&
		debugfs -R "cat /etc/hostname" im.ext4 2>/dev/null >host &&
		echo host-$i >want && test_cmp want host || return 1
	done &&
	sum_file im1.img >im1.sum &&
	{ echo "image,hostname,colour" && echo "im1.img,a,red"; } >imbad.csv &&
	test_must_fail_with 2 imgpatch apply hostname im1.img --each imbad.csv 2>err &&
	grep "^imgpatch: imbad.csv:1: recipe hostname has no parameter .colour.: give --each-ignore" err &&
	{ echo "image,hostname" && echo "im1.img,a"; } >imone.csv &&
	test_must_fail_with 2 imgpatch apply hostname im1.img im2.img --each imone.csv 2>err &&
	grep "^imgpatch: imone.csv: no row for image im2.img$" err &&
	{ echo "image,hostname" && echo "im1.img," && echo "im2.img,b"; } >imempty.csv &&
	test_must_fail_with 2 imgpatch apply hostname im1.img im2.img --each imempty.csv 2>err &&
	grep "^imgpatch: imempty.csv:2: im1.img: .*hostname.* is required" err &&
	test_file_unchanged im1.img "$(cat im1.sum)"
'

test_expect_success 'progress per card on a terminal' '
	script -qec "$IMGPATCH write kv.img.xz tty1.img tty2.img" /dev/null >tty.log &&
	grep "writing: \[1\] " tty.log && grep "tty2.img: written and verified" tty.log
'

# A full filesystem under a card: the writes past its end fail (ENOSPC),
# and a loop device over such a file returns EIO.
if [ "$(id -u)" = 0 ] && mkdir -p full && mount -t tmpfs -o size=4M tmpfs full 2>/dev/null; then
trap 'umount full 2>/dev/null' EXIT
test_expect_success 'a card that fails mid-write fails alone and says where' '
	test_must_fail_with 1 imgpatch write kv.img.xz ok1.img full/bad.img ok2.img \
		--apply hostname --set hostname=lab-y --json fail.json >out 2>err &&
	cat out &&
	grep "full/bad.img: FAILED: write error at offset [0-9]*: No space left on device" out &&
	grep "^write: 3 cards, 1 failed$" out &&
	for c in ok1 ok2; do
		extract_part $c.img 2 ok.ext4 && e2fsck -fn ok.ext4 >/dev/null 2>&1 &&
		debugfs -R "cat /etc/hostname" ok.ext4 2>/dev/null | grep -qx lab-y || return 1
	done &&
	python3 -c "import json; r = json.load(open(\"fail.json\")); \
c = {x[\"target\"]: x for x in r[\"cards\"]}; \
assert c[\"full/bad.img\"][\"status\"] == \"failed\" and c[\"full/bad.img\"][\"error_offset\"] > 0; \
assert c[\"ok1.img\"][\"status\"] == \"verified\"" &&
	python3 "$TEST_DIR/json/validate.py" \
		"$REPO_DIR/tool/schema/write.schema.json" fail.json
'
umount full
else
test_skip 'a card that fails mid-write fails alone' 'needs root to mount a small tmpfs'
fi

# Loop devices stand in for cards in a reader.
loops=()
cleanup_loops() { for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done; }
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null &&
   truncate -s "$size" dev1.img && dev1=$(losetup -f --show dev1.img 2>/dev/null); then
loops+=("$dev1")
trap cleanup_loops EXIT
test_expect_success 'a loop device: written exclusively, read back with O_DIRECT' '
	imgpatch write kv.img.xz "$dev1" card5.img --apply hostname --apply ssh-key \
		--set hostname=lab-05 --set user=ubuntu --set "key=$KEY1" >out &&
	grep "$dev1: written and verified" out &&
	cmp dev1.img card5.img &&
	card_has dev1.img lab-05 "$KEY1"
'
test_expect_success 'a device larger than a card plausibly is: refused unless --force' '
	truncate -s 3T big.img && big=$(losetup -f --show big.img) && loops+=("$big") &&
	test_must_fail_with 1 imgpatch write kv.img "$big" 2>err &&
	grep "^imgpatch: $big: the device is 3072 GiB, larger than a card plausibly is: give --force" err &&
	imgpatch write kv.img "$big" --force >out &&
	grep "$big: written and verified" out
'
test_expect_success 'a mounted device is refused, the others not started' '
	truncate -s "$size" m.img && mke2fs -q -t ext4 m.img &&
	mdev=$(losetup -f --show m.img) && loops+=("$mdev") &&
	mkdir -p mnt && mount "$mdev" mnt &&
	test_must_fail_with 1 imgpatch write kv.img "$mdev" card6.img 2>err;
	status=$?; umount mnt;
	test $status = 0 && grep "is mounted on" err && test ! -e card6.img
'
else
test_skip 'loop devices as cards' 'no loop device here (needs root and loop support)'
fi

# The test build pauses on request; a build without the hook never does.
IMGPATCH_TEST_PAUSE=flash-verify:$PWD/probe "$IMGPATCH" write kv.img probe.img \
	>/dev/null 2>&1 &
probe_pid=$!
while [ ! -e probe ] && kill -0 $probe_pid 2>/dev/null; do sleep 0.1; done
hooks=no && [ ! -e probe ] || hooks=yes
rm -f probe && wait $probe_pid
if [ $hooks = yes ]; then
test_expect_success 'verification catches a byte flipped on the card' '
	truncate -s $size flip.img &&
	{ IMGPATCH_TEST_PAUSE=flash-verify:$PWD/pause "$IMGPATCH" write kv.img flip.img \
		--json flip.json >out 2>err & } &&
	pid=$! &&
	for i in $(seq 100); do test -e pause && break; sleep 0.1; done &&
	printf "\\001" | dd of=flip.img bs=1 seek=1024 conv=notrunc status=none &&
	rm -f pause &&
	status=0 && { wait $pid || status=$?; } &&
	cat out &&
	test $status = 1 &&
	grep "flip.img: FAILED: verify: the card differs at offset 1024 (wrote 0x.., read 0x01)" out &&
	grep "\"error_offset\": 1024" flip.json &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/write.schema.json" flip.json
'
# A block outside the partitions that a blank card already held is not
# written, and still read back.
test_expect_success 'verification catches a byte flipped where nothing was written' '
	zero=$(outside_ranges kv.img | while read -r start end; do
		for at in $(seq $start 4096 $((end - 4096))); do
			cmp -s -i $at:0 -n 4096 kv.img /dev/zero && echo $at && break 2
		done
	done) && test -n "$zero" &&
	truncate -s $size flip2.img &&
	{ IMGPATCH_TEST_PAUSE=flash-verify:$PWD/pause "$IMGPATCH" write kv.img flip2.img \
		>out 2>err & } &&
	pid=$! &&
	for i in $(seq 100); do test -e pause && break; sleep 0.1; done &&
	printf "\\001" | dd of=flip2.img bs=1 seek=$((zero + 7)) conv=notrunc status=none &&
	rm -f pause &&
	status=0 && { wait $pid || status=$?; } &&
	cat out &&
	test $status = 1 &&
	grep "flip2.img: FAILED: verify: the card differs at offset $((zero + 7)) (wrote 0x00, read 0x01)" out
'
else
test_skip 'verification catches a flipped byte' 'this build has no test hooks (test builds: make SAN=1)'
fi

test_done
