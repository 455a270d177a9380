#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='imgpatch.h is the client API only: bounded, no backend contracts, and the command line includes nothing else of the library'
. "$(dirname "$0")/lib.sh"

header=$REPO_DIR/tool/lib/imgpatch.h

# What only the library's own files call is in the folders' internal
# headers; the bound guards against the client header growing back.
max_lines=700

test_expect_success "imgpatch.h has fewer than $max_lines lines" '
	lines=$(wc -l <"$header") &&
	test "$lines" -lt "$max_lines"
'

# A backend's ops table and private state belong to internal headers
# (fs/fs.h, boot/bootpath.h); a client sees handles.
test_expect_success 'no struct in imgpatch.h has an ops or priv member' '
	{ grep -nE "^[[:space:]]+[a-z].*[ *](ops|priv|[a-z_]*_ops);" "$header" >members ||
		test $? = 1; } &&
	test_cmp /dev/null members
'

# The handles a client only passes around are opaque (libfdisk style):
# imgpatch.h declares them, an internal header or their own file defines
# them, and the client reaches them through functions.
test_expect_success 'the handles are declared, not defined, in imgpatch.h' '
	for h in patch disk job fsmap csv recipe survey doctor; do
		grep -q "^struct imgp_$h;" "$header" || echo "imgp_$h not declared"
		! grep -n "^struct imgp_$h {" "$header" || echo "imgp_$h defined"
	done >defined &&
	test_cmp /dev/null defined
'

# What a command-line file includes in quotes is its own folder's header,
# imgpatch.h, or the JSON writer the library writes info with (shared for
# the CLI's own reports): never another folder's header.
test_expect_success 'the command line includes only imgpatch.h of the library, and its JSON writer' '
	for f in "$REPO_DIR"/tool/cli/*.[ch]; do
		sed -n "s/^#include \"\\(.*\\)\"/\\1/p" "$f" | while read -r inc; do
			test "$inc" = imgpatch.h || test "$inc" = text/json.h ||
				test -f "$REPO_DIR/tool/cli/$inc" ||
				echo "${f##*/}: $inc"
		done
	done >foreign &&
	test_cmp /dev/null foreign
'

# The check above would pass on no files at all.
test_expect_success 'the command line includes imgpatch.h' '
	grep -l "^#include \"imgpatch.h\"" "$REPO_DIR"/tool/cli/*.h >including &&
	test -s including
'

test_done
