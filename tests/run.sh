#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/run.sh [NAME...]: runs every C unit test ($IMGPATCH_BUILD/tests/test-*)
# and then every shell test (tests/t[0-9]*.sh, sorted), or only those whose
# name contains one of the NAMEs. Each one's output goes to
# tests/out/<name>.log (or $TEST_OUTPUT_DIR/<name>.log); the logs of failing
# ones are shown. Every "ok" and "not ok" TAP line is counted. A program
# fails once more when it exits non-zero without any "not ok" line, or when
# its plan ("1..N") is missing, repeated or disagrees with the checks that
# ran: a program that stops early cannot pass for one that finished.
#
# Every skip ("ok ... # SKIP reason") is counted and printed. A skip for a
# missing tool says which ("# SKIP missing tool: NAME..."); with CI=true a
# tool that ci/install-deps.sh installs cannot be missing, so such a skip
# counts as a failure. The last line is always "N passed, N failed"
# (", N skipped" when some were). Exits 1 when anything failed.
#
# TEST_TIMEOUT (seconds, default 600) bounds each program; a script that
# boots a whole system says it needs longer with a line "# timeout: N"
# (seconds) near its top, which raises its own bound. TEST_VALGRIND=1
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

# plan_problem LOG NCHECKS: says what is wrong with LOG's TAP plan, if
# anything.
plan_problem()
{
	local plans

	plans=$(grep -E '^1\.\.[0-9]+' "$1" | sed 's/[^0-9.].*//')
	case "$plans" in
	'') echo "no plan (1..N): it stopped early, or prints none" ;;
	*$'\n'*) echo "more than one plan" ;;
	"1..$2") ;;
	*) echo "plan $plans, but $2 checks ran" ;;
	esac
}

# ci_failures SKIPS: for each skip line in SKIPS that names a missing tool
# ci/install-deps.sh installs, prints why it fails in CI.
ci_failures()
{
	local line tool pkg

	[ "${CI:-}" = true ] || return 0
	while IFS= read -r line; do
		for tool in $(sed -n 's/.*# *SKIP missing tool:\(\( [^ ]*\)*\)$/\1/p' <<<"$line"); do
			pkg=$(bash "$repo/ci/install-deps.sh" --package-of "$tool")
			[ "$pkg" != - ] || continue
			echo "not ok - CI=true: '$tool' is missing, but ci/install-deps.sh installs it ($pkg): ${line#ok }"
			break
		done
	done <<<"$1"
}

# run_one NAME LOGNAME CMD...: runs CMD with its output in LOGNAME.log and
# reports it as NAME.
run_one()
{
	local name=$1 log=$TEST_OUTPUT_DIR/$2.log rc oks fail skip pass line problem
	local skips= refused= nrefused=0

	shift 2
	# In a subshell that cannot exec the command, so a "Segmentation fault"
	# notice from bash lands in the log too.
	(timeout -k 10 "${own_timeout:-$timeout_s}" "$@"; exit $?) >"$log" 2>&1 </dev/null
	rc=$?
	oks=$(count '^ok( |$)' "$log")
	skip=$(count '^ok( |$).*# *[Ss][Kk][Ii][Pp]' "$log")
	fail=$(count '^not ok( |$)' "$log")
	pass=$((oks - skip))
	problem=$(plan_problem "$log" $((oks + fail)))
	if [ $rc -ne 0 ] && [ "$fail" -eq 0 ] || [ -n "$problem" ]; then
		fail=$((fail + 1))
		if [ $rc -eq 124 ]; then
			echo "not ok - $name timed out after ${own_timeout:-$timeout_s}s" >>"$log"
		elif [ $rc -ne 0 ]; then
			echo "not ok - $name exited with status $rc" >>"$log"
		fi
		[ -z "$problem" ] || echo "not ok - $name: $problem" >>"$log"
	fi

	if [ "$skip" -ne 0 ]; then
		skips=$(grep -E '^ok( |$).*# *[Ss][Kk][Ii][Pp]' "$log")
		refused=$(ci_failures "$skips")
		[ -z "$refused" ] || nrefused=$(grep -c . <<<"$refused")
	fi

	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail + nrefused))
	total_skip=$((total_skip + skip - nrefused))

	line="$name .. $pass passed"
	[ $((fail + nrefused)) -eq 0 ] || line="$line, $((fail + nrefused)) failed"
	[ $((skip - nrefused)) -eq 0 ] || line="$line, $((skip - nrefused)) skipped"
	echo "$line"
	[ -z "$skips" ] || sed -e 's/^/    /' <<<"$skips"
	[ -z "$refused" ] || sed -e 's/^/    /' <<<"$refused"
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
	# "# timeout: N" in the first lines raises this script's bound.
	own_timeout=$(sed -n '1,12s/^# timeout: \([0-9][0-9]*\)$/\1/p' "$script" | head -n 1)
	[ -n "$own_timeout" ] && [ "$own_timeout" -gt "$timeout_s" ] || own_timeout=
	run_one "$name" "${name%.sh}" bash "$script"
	own_timeout=
done

summary="$total_pass passed, $total_fail failed"
[ $total_skip -eq 0 ] || summary="$summary, $total_skip skipped"
echo "$summary"
[ $total_fail -eq 0 ]
