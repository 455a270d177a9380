#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/run.sh [NAME...]: runs every C unit test ($IMGPATCH_BUILD/tests/test-*)
# and then every shell test (tests/t[0-9]*.sh, sorted), or only those whose
# name contains one of the NAMEs. Each one's output goes to
# tests/out/<name>.log (or $TEST_OUTPUT_DIR/<name>.log); the logs of failing
# ones are shown. Every "ok" and "not ok" TAP line is counted; a program that
# exits non-zero without any "not ok" line counts as one more failure. The
# last line is always "N passed, N failed" (", N skipped" when some were).
# Exits 1 when anything failed.
#
# TEST_TIMEOUT (seconds, default 600) bounds each program. TEST_VALGRIND=1
# runs the unit tests of the unsanitized build (IMGPATCH_PLAIN_BUILD) under
# valgrind, and lib.sh's imgpatch() does the same for the shell tests.

set -u
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
export IMGPATCH_BUILD=${IMGPATCH_BUILD:-$repo/build}
export TEST_OUTPUT_DIR=${TEST_OUTPUT_DIR:-$here/out}
timeout_s=${TEST_TIMEOUT:-600}
crash_status=99

mkdir -p "$TEST_OUTPUT_DIR" || exit 1

total_pass=0
total_fail=0
total_skip=0

# Succeeds when NAME was asked for (or nothing in particular was).
wanted()
{
	local pat

	[ $# -gt 1 ] || return 0
	for pat in "${@:2}"; do
		case "$1" in *"$pat"*) return 0 ;; esac
	done
	return 1
}

count()
{
	grep -c -E "$1" "$2" 2>/dev/null || true
}

# run_one NAME LOGNAME CMD...: runs CMD with its output in LOGNAME.log and
# reports it as NAME.
run_one()
{
	local name=$1 log=$TEST_OUTPUT_DIR/$2.log rc oks fail skip line

	shift 2
	# In a subshell that cannot exec the command, so a "Segmentation fault"
	# notice from bash lands in the log too.
	(timeout -k 10 "$timeout_s" "$@"; exit $?) >"$log" 2>&1 </dev/null
	rc=$?
	oks=$(count '^ok( |$)' "$log")
	skip=$(count '^ok( |$).*# *[Ss][Kk][Ii][Pp]' "$log")
	fail=$(count '^not ok( |$)' "$log")
	if [ $rc -ne 0 ] && [ "$fail" -eq 0 ]; then
		fail=1
		if [ $rc -eq 124 ]; then
			echo "not ok - $name timed out after ${timeout_s}s" >>"$log"
		else
			echo "not ok - $name exited with status $rc" >>"$log"
		fi
	fi

	total_pass=$((total_pass + oks - skip))
	total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skip))

	line="$name .. $((oks - skip)) passed"
	[ "$fail" -eq 0 ] || line="$line, $fail failed"
	[ "$skip" -eq 0 ] || line="$line, $skip skipped"
	echo "$line"
	if [ "$fail" -ne 0 ]; then
		# Passing checks only bury the failures; everything else stays.
		grep -v -E '^ok( |$)' "$log" | sed -e 's/^/    /'
	fi
}

unit_dir=$IMGPATCH_BUILD/tests
unit_wrap=()
if [ "${TEST_VALGRIND:-0}" = 1 ]; then
	unit_dir=${IMGPATCH_PLAIN_BUILD:-$IMGPATCH_BUILD}/tests
	unit_wrap=(valgrind -q "--error-exitcode=$crash_status"
		   --leak-check=full --errors-for-leak-kinds=definite)
fi

nunits=0
for bin in "$unit_dir"/test-*; do
	[ -f "$bin" ] && [ -x "$bin" ] || continue
	name=$(basename "$bin")
	wanted "$name" "$@" || continue
	nunits=$((nunits + 1))
	run_one "$name" "$name" "${unit_wrap[@]}" "$bin"
done
[ $nunits -gt 0 ] || [ $# -gt 0 ] || echo "(no unit tests in $unit_dir)"

for script in "$here"/t[0-9]*.sh; do
	[ -f "$script" ] || continue
	name=$(basename "$script")
	wanted "$name" "$@" || continue
	run_one "$name" "${name%.sh}" bash "$script"
done

summary="$total_pass passed, $total_fail failed"
[ $total_skip -eq 0 ] || summary="$summary, $total_skip skipped"
echo "$summary"
[ $total_fail -eq 0 ]
