#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='each file includes the headers of what it uses: no catch-all header, each header whole on its own and within its bound'
. "$(dirname "$0")/lib.sh"

# A folder's header holds that folder's contracts (tool/README.md). The
# bound is the largest one when the last catch-all header was dissolved
# (boot/boot.h): a header growing past it holds two concerns, to be split
# along them as boot/bootpath.h was split from boot/boot.h.
max_lines=600
check="$TEST_DIR/shape/includes.py"

test_expect_success 'no header only gathers others, no file includes a header it uses nothing of, none is too long' '
	python3 "$check" "$REPO_DIR" $max_lines >problems &&
	test_cmp /dev/null problems
'

test_expect_success 'the check finds a catch-all header and an include of nothing used' '
	mkdir -p lib/boot lib/fs &&
	printf "#ifndef ALL_H\n#define ALL_H\n#include \"boot/boot.h\"\n#include \"fs/fs.h\"\n#endif\n" >lib/all.h &&
	printf "int imgp_fs_thing(void);\n" >lib/fs/fs.h &&
	printf "#include \"fs/fs.h\"\nint imgp_boot_thing(void);\n" >lib/boot/boot.h &&
	printf "#include \"all.h\"\n#include \"fs/fs.h\"\nint f(void) { return imgp_boot_thing(); }\n" >lib/boot/use.c &&
	mkdir -p repo/tool && mv lib repo/tool/lib &&
	python3 "$check" repo 1 >found &&
	cat >expect <<-\EOT &&
	tool/lib/all.h: declares nothing of its own (a catch-all header)
	tool/lib/all.h: includes boot/boot.h, uses none of its names
	tool/lib/all.h: includes fs/fs.h, uses none of its names
	tool/lib/boot/boot.h: includes fs/fs.h, uses none of its names
	tool/lib/boot/use.c: includes all.h, uses none of its names
	tool/lib/boot/use.c: includes fs/fs.h, uses none of its names
	tool/lib/boot/boot.h: 2 lines, more than 1
	EOT
	sort expect >expect.sorted && sort found >found.sorted &&
	test_cmp expect.sorted found.sorted
'

# A header that needs its includer to have read another first breaks
# the first file that includes it alone.
test_expect_success 'every header of the library compiles on its own' '
	cflags=$(pkg-config --cflags ext2fs libarchive 2>/dev/null) &&
	for h in "$REPO_DIR"/tool/lib/*.h "$REPO_DIR"/tool/lib/*/*.h; do
		rel=${h#"$REPO_DIR"/tool/lib/} &&
		printf "#include \"%s\"\n" "$rel" >one.c &&
		${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -fsyntax-only \
			-I "$REPO_DIR/tool/lib" $cflags one.c 2>one.err ||
			{ echo "$rel:"; cat one.err; }
	done >broken &&
	test_cmp /dev/null broken
'

test_expect_success 'the checks see the headers' '
	ls "$REPO_DIR"/tool/lib/*/*.h >headers &&
	test "$(wc -l <headers)" -gt 20 &&
	! test -e "$REPO_DIR/tool/lib/imgpatch-internal.h"
'

test_done
