#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='every C file of the tool is under 1,000 lines: one concern a file, as dtc and libfdt keep theirs'
. "$(dirname "$0")/lib.sh"

# A file that grows past the bound holds two concerns: split it along
# them (as fs-fat.c and fat-map.c are), rather than raise the bound.
max_lines=1000

test_expect_success "no .c or .h file under tool/ has $max_lines lines or more" '
	find "$REPO_DIR/tool" -name "*.[ch]" -exec wc -l {} + |
		awk -v max=$max_lines "\$2 != \"total\" && \$1 >= max { print }" >big &&
	test_cmp /dev/null big
'

test_expect_success 'the check sees the sources' '
	find "$REPO_DIR/tool" -name "*.c" >sources &&
	test "$(wc -l <sources)" -gt 100
'

test_done
