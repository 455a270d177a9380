#!/bin/bash
# SPDX-License-Identifier: MIT
#
# run.sh FUZZ_BUILD SECONDS NAME...
#
# Runs each harness FUZZ_BUILD/fuzz-NAME for SECONDS on its corpus: new
# inputs go to FUZZ_BUILD/corpus-run/NAME (kept between runs), the seeds are
# read from FUZZ_BUILD/corpus/NAME. Prints one line per harness with its
# executions; a crash, leak, sanitizer report or slow input leaves its input
# in FUZZ_BUILD/artifacts/ and the log in FUZZ_BUILD/logs/NAME.log, and makes
# the exit status 1. A harness's dictionary, tests/fuzz/NAME.dict, is passed
# with -dict. Extra libFuzzer options can come from $FUZZ_ARGS.

set -uo pipefail

[ $# -ge 3 ] || { echo "usage: $0 FUZZ_BUILD SECONDS NAME..." >&2; exit 2; }
build=$1 secs=$2
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/artifacts" "$build/logs"
failed=0
for name in "$@"; do
	log=$build/logs/$name.log
	mkdir -p "$build/corpus-run/$name"
	# A harness's dictionary (tests/fuzz/NAME.dict): words its input is made of.
	dict=$here/$name.dict
	[ -e "$dict" ] && dict=-dict=$dict || dict=
	# -timeout: an input that takes 25 s is a hang (an EBR loop, say).
	# shellcheck disable=SC2086
	"$build/fuzz-$name" -max_total_time="$secs" -timeout=25 $dict \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$build/artifacts/$name-" ${FUZZ_ARGS:-} \
		"$build/corpus-run/$name" "$build/corpus/$name" >"$log" 2>&1
	rc=$?
	done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -n 1)
	if [ $rc -eq 0 ] && [ -n "$done_line" ]; then
		echo "fuzz-$name: $done_line"
	else
		failed=1
		echo "fuzz-$name: FAILED (exit $rc), log: $log"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error:|artifact_prefix|Test unit written|ALARM)' "$log" |
			head -n 8 | sed 's/^/  /'
	fi
done
exit $failed
