#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='the unsanitized build is valgrind clean on every command and on errors'
. "$(dirname "$0")/lib.sh"

plain=${IMGPATCH_PLAIN_BUILD:-$IMGPATCH_BUILD}/imgpatch
# Exit status 99 marks a valgrind report, as a sanitizer report does.
vg()
{
	valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		--trace-children=no "$plain" "$@"
}

if ! command -v valgrind >/dev/null; then
	test_skip_tool 'valgrind runs' valgrind
	test_done
fi
if [ ! -x "$plain" ]; then
	test_skip 'valgrind runs' "the plain build is missing ($plain)"
	test_done
fi

KV260_ARGS="--fdt fdt-smk-k26-revA-sck-kv-g-revB.dtb --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime"

test_expect_success 'build fixture' '
	"$FIXTURES/mkimage-kv260.sh" gpt.img
'

test_expect_success 'info and info --json' '
	vg info gpt.img >/dev/null &&
	vg info --json gpt.img >/dev/null
'

test_expect_success 'cat from FAT and ext4' '
	vg cat gpt.img writable:/etc/fstab >/dev/null &&
	vg cat gpt.img 1:/boot.scr.uimg >/dev/null
'

test_expect_success 'patch: dry run, -o, in place, again' '
	vg patch gpt.img $KV260_ARGS --dry-run >/dev/null &&
	vg patch gpt.img $KV260_ARGS -o copy.img >/dev/null &&
	vg patch gpt.img $KV260_ARGS >/dev/null &&
	vg patch gpt.img $KV260_ARGS >/dev/null
'

test_expect_success 'error paths' '
	test_must_fail_with 1 vg patch gpt.img --fdt nope --dt-delete mmc:x 2>/dev/null &&
	test_must_fail_with 1 vg patch gpt.img --fdt 6 --dt-delete mmc:no-1-8-v 2>/dev/null &&
	test_must_fail_with 1 vg patch gpt.img --fstab /home:+noatime 2>/dev/null &&
	test_must_fail_with 1 vg cat gpt.img writable:/nope 2>/dev/null &&
	test_must_fail_with 2 vg patch gpt.img 2>/dev/null
'

test_expect_success 'boot paths: Armbian and Raspberry Pi, info, doctor, cat --dtb, an overlay patch' '
	"$FIXTURES/mkimage-armbian.sh" armbian.img &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img --rpi-trees &&
	for img in armbian.img rpi.img; do
		vg info $img >/dev/null &&
		vg info --json $img >/dev/null &&
		{ vg doctor $img >/dev/null; rc=$?; test $rc = 0 || test $rc = 3; } || return 1
	done &&
	vg cat armbian.img --dtb >/dev/null 2>&1 &&
	vg cat rpi.img --dtb --model pi4 >/dev/null 2>&1 &&
	vg patch rpi.img --model pi4 --dt-set "/emmc2bus/mmc@7e340000:max-frequency=<100000000>" \
		-o rpi-out.img >/dev/null 2>&1 &&
	vg patch armbian.img --dt-delete "mmc@1c0f000:cd-gpios" --dry-run >/dev/null 2>&1
'

test_done
