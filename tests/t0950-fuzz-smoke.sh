#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='libFuzzer harnesses: each runs a short smoke period on seeds from the fixtures'
. "$(dirname "$0")/lib.sh"

top=$(cd "$TEST_DIR/.." && pwd)
build=$top/build-fuzz
secs=${FUZZ_SMOKE_TIME:-8}

if ! command -v clang >/dev/null; then
	test_skip_tool 'fuzz smoke' clang
	test_done
fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
	test_skip_tool 'fuzz smoke' libclang-rt-14-dev
	test_done
fi

test_expect_success 'harnesses and seed corpora build' '
	make -s -C "$top" fuzz-build >build.log 2>&1 || { cat build.log; false; }
'

for name in part fit dtb bootscr fstab recipe xz fat ext rpi-overlay overlay bootpath uboot-env; do
	test_expect_success "fuzz-$name survives ${secs} s" '
		bash "$top/tests/fuzz/run.sh" "$build" '"$secs"' '"$name"' >run.log &&
		cat run.log && grep "^fuzz-'"$name"': Done [0-9]* runs" run.log
	'
done

test_done
