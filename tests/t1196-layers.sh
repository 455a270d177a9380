#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='the library'"'"'s folders call each other in the one direction tool/README.md gives'
. "$(dirname "$0")/lib.sh"

# The objects of the build the suites run; nm reads what each one
# defines and what it calls.
check="$TEST_DIR/shape/layers.py"
readme="$REPO_DIR/tool/README.md"

test_expect_success 'no object of the library calls a folder its own may not' '
	python3 "$check" "$IMGPATCH_BUILD" "$readme" "$REPO_DIR" >problems &&
	test_cmp /dev/null problems
'

test_expect_success 'the check finds a call upwards and between peers' '
	mkdir -p build/tool/lib/core build/tool/lib/boot build/tool/lib/doctor build/tool/lib/info &&
	printf "int core_thing(void);\nint low(void) { return core_thing(); }\n" >low.c &&
	printf "int high(void) { return 1; }\nint core_thing(void) { return 0; }\n" >high.c &&
	printf "int high(void);\nint peer(void) { return high(); }\n" >peer.c &&
	printf "int peer(void);\nint other(void) { return peer(); }\n" >other.c &&
	cc -c low.c -o build/tool/lib/core/low.o &&
	cc -c high.c -o build/tool/lib/boot/high.o &&
	cc -c peer.c -o build/tool/lib/doctor/peer.o &&
	cc -c other.c -o build/tool/lib/info/other.o &&
	printf "    core < boot < doctor, info\n" >README.md &&
	python3 "$check" build README.md >found &&
	cat >expect <<-\EOT &&
	core/low.o: calls core_thing of boot/high.o, which core/ may not call
	info/other.o: calls peer of doctor/peer.o, which info/ may not call
	EOT
	test_cmp expect found
'

test_expect_success 'every folder of the library is in the order' '
	grep "^    core < " "$readme" | tr "<," "  " | tr -s " " "\\n" >order &&
	for d in "$REPO_DIR"/tool/lib/*/; do
		d=${d%/} && d=${d##*/} &&
		grep -qx "$d" order || echo "$d"
	done >missing &&
	test_cmp /dev/null missing
'

test_done
