#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='the test library and the KV260 image fixtures, checked with independent tools only'
. "$(dirname "$0")/lib.sh"
. "$FIXTURES/lib-fixture.sh"

test_require_tools sfdisk fsck.fat mdir mcopy dumpimage e2fsck debugfs \
	fdtget blkid gzip sha1sum

# ---------------------------------------------------------------- lib.sh

test_expect_success 'test_must_fail accepts an ordinary failure' '
	test_must_fail false &&
	test_must_fail sh -c "exit 1" &&
	test_must_fail_with 3 sh -c "exit 3"
'

test_expect_success 'test_must_fail refuses success, crashes and sanitizer reports' '
	if test_must_fail true; then exit 1; fi
	if test_must_fail sh -c "exit 99"; then exit 1; fi
	if test_must_fail sh -c "kill -SEGV \$\$"; then exit 1; fi
	if test_must_fail sh -c "kill -ABRT \$\$"; then exit 1; fi
	if test_must_fail no-such-command-here; then exit 1; fi
	if test_must_fail_with 3 sh -c "exit 4"; then exit 1; fi
	if test_must_fail_with 3 true; then exit 1; fi
'

test_expect_success 'sum_file and test_file_unchanged see a one-byte change' '
	printf abc >f &&
	sum=$(sum_file f) &&
	test "$sum" = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad &&
	test_file_unchanged f "$sum" &&
	printf abd >f &&
	if test_file_unchanged f "$sum"; then exit 1; fi
'

test_expect_success 'a failing command in a body fails the test' '
	cat >t9999-inner.sh <<-EOF &&
	. "$TEST_DIR/lib.sh"
	test_expect_success "fails" "
		true
		false
		true
	"
	test_expect_success "passes" "true"
	test_skip "skipped" "no reason"
	test_done
	EOF
	TEST_OUTPUT_DIR=$PWD/inner-out test_must_fail_with 1 bash t9999-inner.sh >inner.out &&
	test -d inner-out/t9999-inner &&
	sed -n -e "/^ok/p" -e "/^not ok/p" -e "/^# passed/p" inner.out >actual &&
	cat >expect <<-EOF &&
	not ok 1 - fails
	ok 2 - passes
	ok 3 - skipped # SKIP no reason
	# passed 1, failed 1, skipped 1
	EOF
	test_cmp expect actual
'

test_expect_success 'test_done prints the plan; a missing tool skips the rest, named' '
	cat >t9998-tools.sh <<-EOF &&
	. "$TEST_DIR/lib.sh"
	test_expect_success "passes" "true"
	test_require_tools sh no-such-tool-here other-missing-tool
	test_expect_success "never runs" "false"
	test_done
	EOF
	TEST_OUTPUT_DIR=$PWD/inner-out bash t9998-tools.sh >tools.out &&
	grep -v "^#" tools.out >actual &&
	cat >expect <<-EOF &&
	ok 1 - passes
	ok 2 - required tools present # SKIP missing tool: no-such-tool-here other-missing-tool
	1..2
	EOF
	test_cmp expect actual
'

test_expect_success 'test_done removes the scratch directory of a passing script; TEST_KEEP=1 keeps it' '
	cat >t9996-clean.sh <<-\EOF &&
	. "$TEST_DIR/lib.sh"
	test_expect_success "leaves a file" "echo x >left"
	test_done
	EOF
	TEST_OUTPUT_DIR=$PWD/inner-out bash t9996-clean.sh >clean.out &&
	grep -x "ok 1 - leaves a file" clean.out &&
	test ! -e inner-out/t9996-clean &&
	TEST_KEEP=1 TEST_OUTPUT_DIR=$PWD/inner-out bash t9996-clean.sh >clean.out &&
	test -f inner-out/t9996-clean/left
'

test_expect_success 'test_crash_walk counts the killed runs, and fails on any other end' '
	cat >t9997-crash.sh <<-\EOF &&
	. "$TEST_DIR/lib.sh"
	# writes N: killed after write N (SIGKILL), when it makes that many.
	writes() { (if [ "$1" -le 3 ]; then kill -KILL $BASHPID; fi; exit 0); }
	# asan N: a sanitizer report (status 99) at the second write.
	asan() { (if [ "$1" -ge 2 ]; then exit 99; fi; kill -KILL $BASHPID); }
	# segv N: another signal at the third.
	segv() { (if [ "$1" -ge 3 ]; then kill -SEGV $BASHPID; fi; kill -KILL $BASHPID); }
	test_expect_success "three writes" "test \"\$(test_crash_walk writes)\" = 3"
	test_expect_success "sanitizer" "test_crash_walk asan"
	test_expect_success "signal" "test_crash_walk segv"
	test_expect_success "error" "test_crash_walk false"
	test_done
	EOF
	TEST_OUTPUT_DIR=$PWD/inner-out test_must_fail_with 1 bash t9997-crash.sh >crash.out &&
	sed -n -e "/^ok/p" -e "/^not ok/p" -e "/test_crash_walk:/p" crash.out >actual &&
	cat >expect <<-\EOF &&
	ok 1 - three writes
	not ok 2 - sanitizer
	# test_crash_walk: to be killed after write 2, it ended with sanitizer or valgrind error (exit 99) instead: asan 2
	not ok 3 - signal
	# test_crash_walk: to be killed after write 3, it ended with killed by signal 11 instead: segv 3
	not ok 4 - error
	# test_crash_walk: to be killed after write 1, it ended with exit 1 instead: false 1
	EOF
	test_cmp expect actual
'

# run_suite NAME SCRIPT...: a copy of tests/run.sh, lib.sh and
# ci/install-deps.sh in NAME/ that runs only the given scripts; its output
# in NAME.out, its exit status in NAME.rc. The copy runs as CI only when
# SUITE_CI=true: this suite itself may be running under CI=true.
run_suite()
{
	local dir=$1

	shift
	mkdir -p "$dir/tests" "$dir/ci" "$dir/build" &&
	cp "$TEST_DIR/run.sh" "$TEST_DIR/lib.sh" "$dir/tests/" &&
	cp "$REPO_DIR/ci/install-deps.sh" "$dir/ci/" &&
	cp "$@" "$dir/tests/" || return 1
	CI=${SUITE_CI:-} IMGPATCH_BUILD=$PWD/$dir/build TEST_OUTPUT_DIR=$PWD/$dir/out \
		bash "$dir/tests/run.sh" >"$dir.out" 2>&1
	echo $? >"$dir.rc"
}

test_expect_success 'run.sh: a program whose plan disagrees, or that has none, fails' '
	printf "%s\n" "echo \"ok 1 - one\"" "echo \"ok 2 - two\"" "echo 1..3" >t0001-short.sh &&
	printf "%s\n" "echo \"ok 1 - one\"" >t0002-noplan.sh &&
	printf "%s\n" "echo 1..1" "echo \"ok 1 - one\"" "echo 1..1" >t0003-twice.sh &&
	printf "%s\n" "echo \"ok 1 - one\"" "echo 1..1" >t0004-fine.sh &&
	run_suite plans t0001-short.sh t0002-noplan.sh t0003-twice.sh t0004-fine.sh &&
	test "$(cat plans.rc)" = 1 &&
	grep -x "t0001-short.sh .. 2 passed, 1 failed" plans.out &&
	grep -x "    not ok - t0001-short.sh: plan 1..3, but 2 checks ran" plans.out &&
	grep -x "t0002-noplan.sh .. 1 passed, 1 failed" plans.out &&
	grep -x "    not ok - t0002-noplan.sh: no plan (1..N): it stopped early, or prints none" plans.out &&
	grep -x "    not ok - t0003-twice.sh: more than one plan" plans.out &&
	grep -x "t0004-fine.sh .. 1 passed" plans.out &&
	test "$(tail -n 1 plans.out)" = "5 passed, 3 failed"
'

test_expect_success 'run.sh: skips are counted and printed; with CI=true a missing installed tool fails' '
	cat >t0005-skips.sh <<-\EOF &&
	. "$(dirname "$0")/lib.sh"
	test_expect_success "passes" "true"
	test_skip "no loop device" "needs root"
	test_skip_tool "mtools" mtype
	test_skip_tool "something of our own" not-a-debian-tool
	test_done
	EOF
	run_suite local t0005-skips.sh &&
	test "$(cat local.rc)" = 0 &&
	grep -x "t0005-skips.sh .. 1 passed, 3 skipped" local.out &&
	grep -x "    ok 3 - mtools # SKIP missing tool: mtype" local.out &&
	test "$(tail -n 1 local.out)" = "1 passed, 0 failed, 3 skipped" &&
	SUITE_CI=true run_suite ci t0005-skips.sh &&
	test "$(cat ci.rc)" = 1 &&
	grep -x "t0005-skips.sh .. 1 passed, 1 failed, 2 skipped" ci.out &&
	grep -x "    not ok - CI=true: .mtype. is missing, but ci/install-deps.sh installs it (mtools): 3 - mtools # SKIP missing tool: mtype" ci.out &&
	test "$(tail -n 1 ci.out)" = "1 passed, 1 failed, 2 skipped"
'

test_expect_success 'every tool a test requires or skips for is one ci/install-deps.sh installs' '
	for t in "$TEST_DIR"/t[0-9]*.sh; do
		# This file: not the made-up tools of the self-tests above.
		if [ "$t" = "$TEST_DIR/$TEST_NAME.sh" ]; then
			sed -n "/^test_require_tools/,/[^\\\\]$/p" "$t"
		else
			cat "$t"
		fi
	done | sed -e ":a" -e "/\\\\$/{N;s/\\\\\n//;ba}" |
		sed -n -e "s/^[[:space:]]*test_require_tools //p" \
		       -e "s/^[[:space:]]*test_skip_tool \(\"[^\"]*\"\|'"'"'[^'"'"']*'"'"'\) //p" |
		tr -s " \t" "\n\n" | grep -v -e "^\\$" -e "^\"" -e "^$" | sort -u >tools &&
	grep -x mtype tools && grep -x python3-jsonschema tools &&
	bash "$REPO_DIR/ci/install-deps.sh" --package-of $(cat tools) >pkgs &&
	paste tools pkgs | awk "\$2 == \"-\"" >unknown &&
	test_cmp /dev/null unknown
'

# ------------------------------------------------- GPT + FAT32 (the default)

test_expect_success 'build the GPT/FAT32 image' '
	make_kv260 gpt.img &&
	test "$(stat -c %s gpt.img)" = $((233472 * 512))
'

test_expect_success 'GPT: sfdisk sees system-boot and writable' '
	sfdisk_dump_is gpt.img gpt 4B563236-0000-4000-8000-000000000000 \
		"first-lba: 34" "last-lba: 233438" <<-\EOF &&
	gpt.img1 : start=        2048, size=      131072, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, uuid=4B563236-0001-4000-8000-000000000001, name="system-boot"
	gpt.img2 : start=      133120, size=       98304, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=4B563236-0002-4000-8000-000000000002, name="writable"
	EOF
	sfdisk -J gpt.img >json &&
	grep -q "\"label\": \"gpt\"" json
'

test_expect_success 'part_offset, part_size and part_mtools read sfdisk' '
	test "$(part_offset gpt.img 1)" = 1048576 &&
	test "$(part_size gpt.img 1)" = 67108864 &&
	test "$(part_offset gpt.img 2)" = $((133120 * 512)) &&
	test "$(part_size gpt.img 2)" = $((98304 * 512)) &&
	test "$(part_mtools gpt.img 1)" = gpt.img@@1048576 &&
	test_must_fail part_offset gpt.img 3
'

test_expect_success 'GPT: the boot partition is a clean FAT32 labelled system-boot' '
	part_fs_is gpt.img 1 boot.fat TYPE=vfat VERSION=FAT32 \
		LABEL=system-boot UUID=4B56-3236 &&
	test "$(stat -c %s boot.fat)" = 67108864
'

test_expect_success 'GPT: mdir lists image.fit and boot.scr.uimg' '
	fat_ls gpt.img 1 >actual &&
	printf "%s\n" ::/boot.scr.uimg ::/image.fit >expect &&
	test_cmp expect actual &&
	mcopy -i "$(part_mtools gpt.img 1)" ::image.fit ::boot.scr.uimg .
'

test_expect_success 'image.fit holds the seven images in Ubuntu order' '
	dumpimage -l image.fit >list &&
	sed -n "s/^ Image \([0-9]*\) (\(.*\))$/\1 \2/p" list >actual &&
	cat >expect <<-\EOF &&
	0 kernel-1
	1 ramdisk-1
	2 fdt-zynqmp-smk-k26-revA.dtb
	3 fdt-smk-k26-revA-sck-kr-g-revA.dtb
	4 fdt-smk-k26-revA-sck-kv-g-revA.dtb
	5 fdt-smk-k26-revA-sck-kr-g-revB.dtb
	6 fdt-smk-k26-revA-sck-kv-g-revB.dtb
	EOF
	test_cmp expect actual
'

test_expect_success 'image.fit configurations and default' '
	sed -n -e "s/^ Default Configuration: .\(.*\).$/default \1/p" \
		-e "s/^ Configuration [0-9]* (\(.*\))$/\1/p" \
		-e "s/^  FDT: *\(.*\)$/  \1/p" list >actual &&
	cat >expect <<-\EOF &&
	default conf-zynqmp-smk-k26-revA
	conf-zynqmp-smk-k26-revA
	  fdt-zynqmp-smk-k26-revA.dtb
	conf-smk-k26-revA-sck-kr-g-revA
	  fdt-smk-k26-revA-sck-kr-g-revA.dtb
	conf-smk-k26-revA-sck-kv-g-revA
	  fdt-smk-k26-revA-sck-kv-g-revA.dtb
	conf-smk-k26-revA-sck-kr-g-revB
	  fdt-smk-k26-revA-sck-kr-g-revB.dtb
	conf-smk-k26-revA-sck-kv-g-revB
	  fdt-smk-k26-revA-sck-kv-g-revB.dtb
	EOF
	test_cmp expect actual
'

test_expect_success 'image.fit: the kernel is real gzip data, hashes match' '
	dumpimage -T flat_dt -p 0 -o kernel.gz image.fit >/dev/null &&
	gzip -t kernel.gz &&
	grep -q "Compression:  gzip compressed" list &&
	sed -n "s/^  Hash value: *//p" list >want &&
	test $(wc -l <want) = 7 &&
	for i in 0 1 2 3 4 5 6; do
		dumpimage -T flat_dt -p $i -o sub.$i image.fit >/dev/null &&
		sha1sum <sub.$i | cut -d" " -f1 || exit 1
	done >have &&
	test_cmp want have
'

test_expect_success 'image.fit: fdt 6 is the KV260 revB tree with no-1-8-v' '
	dumpimage -T flat_dt -p 6 -o x.dtb image.fit >/dev/null &&
	cmp x.dtb "$DTB_DIR/smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb" &&
	fdtget -p x.dtb /axi/mmc@ff170000 >props &&
	grep -x no-1-8-v props &&
	test "$(fdtget x.dtb /axi/mmc@ff170000 status)" = okay
'

test_expect_success 'boot.scr.uimg is a U-Boot script with the override hook' '
	dumpimage -l boot.scr.uimg >slist &&
	grep -q "Image Name:   boot script" slist &&
	grep -q "Script" slist &&
	dumpimage -T script -p 0 -o boot.cmd boot.scr.uimg >/dev/null &&
	grep -q "test \"\${card1_name}\" = \"SCK-KV-G\"" boot.cmd &&
	grep -q "test -e mmc \${devnum}:\${distro_bootpart} /user-override.dtb" boot.cmd
'

test_expect_success 'GPT: the root partition is a clean ext4 labelled writable' '
	part_fs_is gpt.img 2 root.ext4 TYPE=ext4 LABEL=writable
'

test_expect_success 'GPT: /etc/fstab carries the Ubuntu lines' '
	ext_cat root.ext4 /etc/fstab >actual &&
	printf "LABEL=writable\t/\text4\tdiscard,errors=remount-ro\t0 1\n" >fstab.expect &&
	printf "LABEL=system-boot\t/boot/firmware\tvfat\tdefaults\t0 1\n" >>fstab.expect &&
	test_cmp fstab.expect actual &&
	debugfs -R "stat /etc/systemd/system/timers.target.wants/fstrim.timer" \
		root.ext4 2>/dev/null >stat &&
	grep -q "Type: symlink" stat
'

test_expect_success 'the GPT/FAT32 image is reproducible' '
	make_kv260 again.img &&
	test "$(sum_file gpt.img)" = "$(sum_file again.img)"
'

# ------------------------------------------------- MBR + FAT16 + logicals

test_expect_success 'build the MBR/FAT16 image' '
	make_kv260 mbr.img --mbr --fat16
'

test_expect_success 'MBR: sfdisk sees boot, root, extended and two logicals' '
	sfdisk_dump_is mbr.img dos 0x4b563236 <<-\EOF &&
	mbr.img1 : start=        2048, size=      131072, type=e, bootable
	mbr.img2 : start=      133120, size=       98304, type=83
	mbr.img3 : start=      231424, size=        8192, type=5
	mbr.img5 : start=      233472, size=        2048, type=83
	mbr.img6 : start=      237568, size=        2048, type=83
	EOF
	test "$(part_offset mbr.img 5)" = $((233472 * 512)) &&
	test "$(part_offset mbr.img 6)" = $((237568 * 512)) &&
	test_must_fail part_offset mbr.img 4
'

test_expect_success 'MBR: the boot partition is a clean FAT16 with both files' '
	part_fs_is mbr.img 1 boot16.fat TYPE=vfat VERSION=FAT16 \
		LABEL=system-boot UUID=4B56-3236 &&
	fat_ls mbr.img 1 >actual &&
	printf "%s\n" ::/boot.scr.uimg ::/image.fit >expect &&
	test_cmp expect actual
'

test_expect_success 'MBR: root is clean ext4, logical p5 is ext2 labelled data' '
	part_fs_is mbr.img 2 root.ext4 TYPE=ext4 LABEL=writable &&
	ext_cat root.ext4 /etc/fstab >actual &&
	test_cmp fstab.expect actual &&
	part_fs_is mbr.img 5 data.ext2 TYPE=ext2 LABEL=data
'

test_expect_success 'put_part writes a partition back, and only that partition' '
	cp mbr.img put.img &&
	extract_part put.img 5 p5 &&
	debugfs -w -R "set_super_value volume_name changed" p5 2>/dev/null &&
	put_part put.img 5 p5 &&
	extract_part put.img 5 p5.back &&
	cmp p5 p5.back &&
	blkid -p -o export p5.back | grep -x LABEL=changed &&
	extract_part put.img 2 p2 &&
	extract_part mbr.img 2 p2.orig &&
	cmp p2 p2.orig &&
	head -c 2M /dev/zero >big &&
	test_must_fail put_part put.img 5 big
'

test_expect_success 'the MBR/FAT16 image is reproducible' '
	make_kv260 again16.img --mbr --fat16 &&
	test "$(sum_file mbr.img)" = "$(sum_file again16.img)"
'

# ------------------------------------------------- --no-hook --no-fit

test_expect_success 'without FIT and hook: only a hookless boot script' '
	make_kv260 bare.img --no-fit --no-hook &&
	fat_ls bare.img 1 >actual &&
	echo ::/boot.scr.uimg >expect &&
	test_cmp expect actual &&
	mcopy -i "$(part_mtools bare.img 1)" ::boot.scr.uimg bare.scr &&
	dumpimage -T script -p 0 -o bare.cmd bare.scr >/dev/null &&
	grep -q "bootm" bare.cmd &&
	! grep -q "user-override" bare.cmd
'

test_done
