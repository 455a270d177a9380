#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='libimgpatch.a exports imgp_ names only, and every one the public header does not declare is marked internal by a trailing _'
. "$(dirname "$0")/lib.sh"

test_require_tools nm

# The unsanitized build's library: AddressSanitizer adds names of its own
# (__odr_asan.*) beside every global; the sources are the same.
lib=${IMGPATCH_PLAIN_BUILD:-$IMGPATCH_BUILD}/libimgpatch.a

test_expect_success 'the library was built' '
	test -s "$lib"
'

# Defined names of external linkage (text, data, bss, read-only; weak
# ones too): every one is imgp_-prefixed.
test_expect_success 'every exported symbol starts with imgp_' '
	nm -g --defined-only "$lib" >symbols.all &&
	awk "NF == 3 && \$2 ~ /^[TDBRVW]\$/ { print \$3 }" symbols.all | sort -u >exported &&
	test -s exported &&
	{ grep -v "^imgp_" exported >unprefixed || test $? = 1; } &&
	test_cmp /dev/null unprefixed
'

# libfdt's rule (fdt_ro_probe_): a name the library's own files share
# but a client may not call ends with "_", so that a reader tells it from
# the public API at its every use. An unmarked name is one imgpatch.h's
# code (not a comment) names.
test_expect_success 'every exported name is marked internal or declared in imgpatch.h' '
	python3 -c "import re, sys; print(re.sub(r\"/\\*.*?\\*/\", \"\", open(sys.argv[1]).read(), flags=re.S))" \
		"$REPO_DIR/tool/lib/imgpatch.h" | grep -oE "\bimgp_[a-z0-9_]+\b" | sort -u >public &&
	grep -v "_\$" exported | sort -u >unmarked &&
	comm -23 unmarked public >undeclared &&
	test_cmp /dev/null undeclared
'

test_expect_success 'no name imgpatch.h declares is marked internal' '
	grep -E "^imgp_[a-z0-9_]+_\$" public >marked_public || test $? = 1 &&
	test_cmp /dev/null marked_public
'

test_expect_success 'the public header declares no name without the prefix' '
	grep -hoE "^[a-z_][a-z0-9_ *]*[ *]([a-z_][a-z0-9_]*)\(" "$REPO_DIR/tool/lib/imgpatch.h" |
		sed -E "s/.*[ *]([a-z_][a-z0-9_]*)\($/\1/" | sort -u >declared &&
	test -s declared &&
	{ grep -v "^imgp_" declared >bad || test $? = 1; } &&
	test_cmp /dev/null bad
'

test_done
