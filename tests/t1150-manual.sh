#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='the manual renders without warnings and documents exactly the commands and options --help prints'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools scdoc groff man make

# The page is rendered by the Makefile's own rule, into a build directory of
# this test's (nothing else of the build is made there).
page=$TEST_OUT/build/imgpatch.1

# help_commands: the commands `imgpatch --help` lists, one a line.
help_commands()
{
	imgpatch --help | sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z0-9-]*\)  .*/\1/p'
}

# page_commands: the subsections of the page's COMMANDS section.
page_commands()
{
	sed -n '/^\.SH COMMANDS$/,/^\.SH /s/^\.SS \([^ ]*\)$/\1/p' "$page"
}

# page_section CMD: the roff text of CMD's subsection, with "\-" (a dash
# troff does not break a line at) read as "-".
page_section()
{
	awk -v cmd="$1" '
		/^\.SH / { in_cmds = ($0 == ".SH COMMANDS"); on = 0; next }
		in_cmds && /^\.SS / { on = ($0 == ".SS " cmd); next }
		on' "$page" | sed 's/\\-/-/g'
}

# long_options: the long options in the text on stdin, sorted, without
# --help (every command takes it; the page says so once).
long_options()
{
	grep -oE -- '--[a-z0-9]+(-[a-z0-9]+)*' | grep -vx -- '--help' | sort -u
}

# page_terms CMD: the long options that have an entry of their own in CMD's
# subsection: scdoc renders an entry as its term line followed by ".RS".
page_terms()
{
	page_section "$1" | awk '/^\.RS/ && prev !~ /^\./ { print prev } { prev = $0 }' |
		long_options
}

# lines_over_80 FILE: the lines of FILE longer than 80 characters.
lines_over_80()
{
	awk 'length > 80 { print FNR ": " $0 }' "$1"
}

# have_command CMD: CMD exists in the binary under test.
have_command()
{
	imgpatch "$1" --help >/dev/null 2>&1
}

test_expect_success 'the page renders with scdoc' '
	make -s --no-print-directory -C "$REPO_DIR" BUILD="$TEST_OUT/build" \
		"$page" >make.out 2>&1 &&
	test -s "$page" &&
	grep -q "^\.TH \"imgpatch\" \"1\"" "$page"
'

test_expect_success 'groff formats it without warnings' '
	groff -man -ww -z "$page" 2>groff.err &&
	test_cmp /dev/null groff.err
'

test_expect_success 'man formats it without warnings, within 80 columns' '
	MANWIDTH=80 man --warnings -l "$page" 2>man.err >man.txt &&
	test_cmp /dev/null man.err &&
	lines_over_80 man.txt >wide &&
	test_cmp /dev/null wide &&
	# No option is split over two lines.
	! grep -nE -- "(^|[[ ])--?[a-z0-9-]*-\$" man.txt &&
	grep -q "^COMMANDS" man.txt
'

test_expect_success 'the installed paths are filled in' '
	! grep -n "@[A-Z]*@" "$page" &&
	grep -q "/share/imgpatch/recipes" "$page"
'

test_expect_success 'every command of --help has a subsection, and only those' '
	help_commands >help.cmds &&
	test -s help.cmds &&
	page_commands | sort >page.cmds &&
	if ! have_command doctor; then
		# Documented ahead of the code: not a mismatch until it lands.
		echo "# note: imgpatch doctor --help fails, doctor left out" &&
		grep -vx doctor page.cmds >page.cmds.tmp &&
		mv page.cmds.tmp page.cmds
	fi &&
	sort help.cmds >help.sorted &&
	test_cmp help.sorted page.cmds
'

test_expect_success 'every command is in the SYNOPSIS' '
	sed -n "/^\.SH SYNOPSIS$/,/^\.SH /p" "$page" >synopsis &&
	for cmd in $(cat help.cmds); do
		grep -q "^\\\\fBimgpatch $cmd" synopsis ||
			{ echo "SYNOPSIS lacks $cmd"; exit 1; }
	done
'

for cmd in info cat patch customize apply recipes undo doctor; do
	if [ "$cmd" = doctor ] && ! have_command doctor; then
		test_skip "doctor: options of --help and the page agree" \
			"imgpatch doctor --help fails: the command is not built yet"
		continue
	fi
	test_expect_success "$cmd: options of --help and the page agree" '
		imgpatch '"$cmd"' --help >help.'"$cmd"' &&
		long_options <help.'"$cmd"' >help.'"$cmd"'.opts &&
		page_terms '"$cmd"' >page.'"$cmd"'.terms &&
		page_section '"$cmd"' | long_options >page.'"$cmd"'.mentions &&
		# Every option --help prints has an entry in the page...
		comm -23 help.'"$cmd"'.opts page.'"$cmd"'.terms >undocumented &&
		test_cmp /dev/null undocumented &&
		# ...and the page names no option that --help does not print.
		comm -13 help.'"$cmd"'.opts page.'"$cmd"'.mentions >unknown &&
		test_cmp /dev/null unknown
	'
done

# custom_settings: the settings customize --help lists (its options before
# the image options that patch shares, which start at -o).
custom_settings()
{
	imgpatch customize --help | sed -n "/^Identity:\$/,/^  -o, --output/p" |
		sed "\$d" | long_options
}

test_expect_success 'the README names every setting of customize --help' '
	custom_settings >settings &&
	test $(wc -l <settings) -ge 20 &&
	sed -n "/^## Customize before the first boot\$/,/^## [^C]/p" "$REPO_DIR/README.md" |
		long_options >readme.opts &&
	comm -23 settings readme.opts >missing &&
	test_cmp /dev/null missing
'

test_expect_success 'every command takes --help and rejects an unknown option with 2' '
	for cmd in $(cat help.cmds); do
		imgpatch $cmd --help >/dev/null &&
		test_must_fail_with 2 imgpatch $cmd --no-such-option x.img 2>err &&
		grep -q "^imgpatch: " err || { echo "$cmd"; exit 1; }
	done
'

test_expect_success '--version prints "imgpatch VERSION"' '
	imgpatch --version >version &&
	test $(wc -l <version) = 1 &&
	grep -Eqx "imgpatch [0-9A-Za-z][0-9A-Za-z.+~_-]*" version
'

test_expect_success 'exit status: usage errors are 2' '
	test_must_fail_with 2 imgpatch 2>err &&
	test_must_fail_with 2 imgpatch no-such-command 2>err &&
	grep -q "no-such-command" err &&
	test_must_fail_with 2 imgpatch info 2>err &&
	test_must_fail_with 2 imgpatch cat x.img 2>err &&
	test_must_fail_with 2 imgpatch cat x.img no-colon 2>err &&
	test_must_fail_with 2 imgpatch patch x.img 2>err &&
	test_must_fail_with 2 imgpatch apply kv260-uhs 2>err &&
	test_must_fail_with 2 imgpatch undo 2>err
'

test_expect_success 'exit status: a missing image is 1' '
	test_must_fail_with 1 imgpatch info missing.img 2>err &&
	grep -q "missing.img" err &&
	test_must_fail_with 1 imgpatch cat missing.img 1:/x 2>err &&
	test_must_fail_with 1 imgpatch patch missing.img --fstab /:+noatime 2>err &&
	test_must_fail_with 1 imgpatch undo missing.img 2>err &&
	if have_command doctor; then
		test_must_fail_with 1 imgpatch doctor missing.img 2>err
	fi &&
	test ! -e missing.img
'

test_expect_success 'the documented exit statuses are the ones --help gives' '
	sed -n "/^\.SH EXIT STATUS$/,/^\.SH /p" "$page" >exit.roff &&
	for n in 0 1 2 3; do
		grep -qx "\\\\fB$n\\\\fR" exit.roff || { echo "no status $n"; exit 1; }
	done &&
	imgpatch --help >help.all &&
	grep -q "0 done, 1 error, 2 usage error, 3 a doctor finding" help.all
'

test_done
