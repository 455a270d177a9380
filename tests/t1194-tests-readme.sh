#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='tests/README.md is a true map: every suite is in a family it lists, every unit program and library folder is in its table, and every suite it names exists'
. "$(dirname "$0")/lib.sh"

readme=$TEST_DIR/README.md

test_expect_success 'every suite number falls in a family the README lists' '
	ls "$TEST_DIR" | sed -n "s/^t\([0-9][0-9][0-9][0-9]\)-.*\.sh$/\1/p" >numbers &&
	test "$(wc -l <numbers)" -gt 50 &&
	sed -n "s/^| \`\([0-9x]*\)\`\(–\`\([0-9x]*\)\`\)\{0,1\} |.*/\1 \3/p" "$readme" >families &&
	test -s families &&
	while read -r n; do
		found=
		while read -r lo hi; do
			hi=${hi:-$lo}
			low=$(printf %s "$lo" | tr x 0) high=$(printf %s "$hi" | tr x 9)
			if [ "$((10#$n))" -ge "$((10#$low))" ] && [ "$((10#$n))" -le "$((10#$high))" ]; then
				found=1
			fi
		done <families
		[ -n "$found" ] || echo "t$n"
	done <numbers >orphans &&
	test_cmp /dev/null orphans
'

test_expect_success 'every unit program is named in the folder table' '
	for f in "$TEST_DIR"/unit/test-*.c; do
		name=$(basename "$f" .c)
		grep -q "\`$name\`" "$readme" || echo "$name"
	done >missing &&
	test_cmp /dev/null missing
'

test_expect_success 'every library folder and the command line have a row' '
	for d in "$REPO_DIR"/tool/lib/*/ "$REPO_DIR"/tool/cli/; do
		rel=${d#"$REPO_DIR"/}
		grep -q "^| \`$rel\` |" "$readme" || echo "$rel"
	done >missing &&
	test_cmp /dev/null missing
'

test_expect_success 'every suite the README names exists' '
	grep -o "\`t[0-9][0-9][0-9][0-9]\`" "$readme" | tr -d "\`" | sort -u >named &&
	test -s named &&
	while read -r t; do
		ls "$TEST_DIR/$t"-*.sh >/dev/null 2>&1 || echo "$t"
	done <named >missing &&
	test_cmp /dev/null missing
'

test_done
