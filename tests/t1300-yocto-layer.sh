#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='meta-imgpatch: shell BitBake can parse, the recipe as bitbake -e printed it, the class patches a .wic'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools python3 bash dash mtype fdtget debugfs e2fsck fsck.fat

LAYER=$REPO_DIR/recipes/meta-imgpatch
CHECK=$TEST_DIR/yocto/check-layer.py
# What ci/yocto-check.sh kept of `bitbake -e imgpatch`, one file per series.
EXPECTED="--expected $TEST_DIR/yocto/bitbake-e.scarthgap --expected $TEST_DIR/yocto/bitbake-e.wrynose"

# check_copy EDIT...: a copy of the layer in ./layer, changed by the shell
# commands EDIT (run in it), checked; the checker's output goes to ./out.
check_copy()
{
	rm -rf layer && cp -R "$LAYER" layer &&
	(cd layer && eval "$*") &&
	python3 "$CHECK" layer $EXPECTED >out 2>&1
}

# rejects PATTERN EDIT...: the checker refuses the changed copy, saying PATTERN.
rejects()
{
	local pattern=$1

	shift
	test_must_fail_with 1 check_copy "$@" &&
	cat out &&
	grep -q -- "$pattern" out
}

test_expect_success 'the layer passes: shell functions, and the recipe against bitbake -e of each series' '
	python3 "$CHECK" "$LAYER" $EXPECTED >out &&
	cat out &&
	grep "^meta-imgpatch: 3 shell functions pass dash -n, bash -n and the BitBake shell parser check; [1-9][0-9]* variables match bitbake-e.scarthgap; [1-9][0-9]* variables match bitbake-e.wrynose$" out
'

test_expect_success 'the expected outputs say which commits they were made on' '
	for s in scarthgap wrynose; do
		grep -E "^# bitbake [0-9a-f]{40}$" "$TEST_DIR/yocto/bitbake-e.$s" &&
		grep -E "^# openembedded-core [0-9a-f]{40}$" "$TEST_DIR/yocto/bitbake-e.$s" &&
		grep -E "^# meta-openembedded [0-9a-f]{40}$" "$TEST_DIR/yocto/bitbake-e.$s" || return 1
	done
'

test_expect_success 'LIC_FILES_CHKSUM is the md5 of LICENSE' '
	want=$(md5sum <"$REPO_DIR/LICENSE" | cut -d" " -f1) &&
	grep -x "LIC_FILES_CHKSUM = \"file://LICENSE;md5=$want\"" \
		"$LAYER/recipes-devtools/imgpatch/imgpatch_git.bb"
'

# The recipe's default source is this tree at IMGPATCH_SRCREV: the commit
# must be in its history and have the Makefile's MAN=0.
test_expect_success 'IMGPATCH_SRCREV is a commit of this tree with MAN=0' '
	rev=$(sed -n "s/^IMGPATCH_SRCREV ??= \"\([0-9a-f]*\)\"\$/\1/p" \
		"$LAYER/recipes-devtools/imgpatch/imgpatch_git.bb") &&
	test ${#rev} = 40 &&
	if git -C "$REPO_DIR" rev-parse --git-dir >/dev/null 2>&1 &&
	   ! test -f "$(git -C "$REPO_DIR" rev-parse --git-dir)/shallow"; then
		git -C "$REPO_DIR" merge-base --is-ancestor "$rev" HEAD &&
		git -C "$REPO_DIR" show "$rev:Makefile" | grep -q "^MAN ?= 1$"
	fi
'

test_expect_success 'an unchanged copy passes too (the negative checks below start from it)' '
	check_copy true && cat out
'

# The constructs BitBake's shell parser refuses, each put into the class.
test_expect_success 'rejects arithmetic expansion $(( ))' '
	rejects "imgpatch.bbclass:[0-9]*: shell function imgpatch_image: BitBake cannot parse arithmetic expansion" \
		"sed -i \"s/^    args=\$/    n=\\\$((1 + 1))/\" classes/imgpatch.bbclass"
'

test_expect_success 'rejects a for loop without "in"' '
	rejects "shell function imgpatch_image: BitBake cannot parse a for loop without .in." \
		"sed -i \"s/^    for kv in .*/    for kv; do/\" classes/imgpatch.bbclass"
'

test_expect_success 'rejects a redirection after a function body' '
	rejects "shell function imgpatch_image: BitBake cannot parse a redirection after a function body" \
		"sed -i \"\\\$s/^}\$/} >\\/dev\\/null/\" classes/imgpatch.bbclass"
'

test_expect_success 'rejects a command run in the background' '
	rejects "BitBake cannot parse a command run in the background" \
		"sed -i \"s/^    rm -f \\(.*\\)/    rm -f \\1 \\&/\" classes/imgpatch.bbclass"
'

test_expect_success 'rejects select' '
	rejects "BitBake cannot parse .select." \
		"sed -i \"s/^    args=\$/    select a in b; do break; done/\" classes/imgpatch.bbclass"
'

test_expect_success 'rejects a shell function that dash and bash cannot parse' '
	rejects "shell function imgpatch_image does not pass .dash -n." \
		"sed -i \"s/^    done\$/    dnoe/\" classes/imgpatch.bbclass" &&
	grep "shell function imgpatch_image does not pass .bash -n." out
'

test_expect_success 'rejects a recipe whose variables are not those bitbake -e printed' '
	rejects "bitbake-e.wrynose: LICENSE: the recipe has = \"GPL-2.0-only\", bitbake -e printed \"MIT\"" \
		"sed -i \"s/^LICENSE = .*/LICENSE = \\\"GPL-2.0-only\\\"/\" recipes-devtools/imgpatch/imgpatch_git.bb" &&
	grep "bitbake-e.scarthgap: LICENSE" out
'

test_expect_success 'rejects a changed SRCREV and a DEPENDS entry BitBake did not see' '
	rejects "IMGPATCH_SRCREV: the recipe has ??= \"0000\", bitbake -e printed \"[0-9a-f]\{40\}\"" \
		"sed -i \"s/^IMGPATCH_SRCREV ??= .*/IMGPATCH_SRCREV ??= \\\"0000\\\"/; s/^DEPENDS = \\\"dtc /DEPENDS = \\\"dtc libnew /\" recipes-devtools/imgpatch/imgpatch_git.bb" &&
	grep "DEPENDS: the recipe has = \"dtc libnew" out
'

# ------------------------------------------------ the class's shell, for real

# What BitBake's logging.bbclass gives shell tasks outside a log FIFO.
cat >prelude.sh <<-\EOF
bbnote() { echo "NOTE: $*"; }
bbwarn() { echo "WARNING: $*"; }
bbfatal() { echo "ERROR: $*"; exit 1; }
EOF

# A native sysroot as imgpatch-native's install would leave it, and a
# PATH with its imgpatch.
mkdir -p sysroot/usr/bin sysroot/usr/share/imgpatch &&
ln -s "$IMGPATCH" sysroot/usr/bin/imgpatch &&
ln -s "$IMGPATCH_BUILD/recipes" sysroot/usr/share/imgpatch/recipes
export PATH=$TEST_OUT/sysroot/usr/bin:$PATH

# run_hook DIR VAR=VALUE...: renders IMAGE_CMD:wic:append as do_image_wic
# runs it, with the variables of an image build in DIR, and runs it with
# /bin/sh -e (dash, as BitBake runs shell tasks) in DIR; output in DIR/log.
run_hook()
{
	local dir=$1 rc

	shift
	python3 "$CHECK" "$LAYER" --emit IMAGE_CMD:wic:append --prelude prelude.sh \
		--var IMGDEPLOYDIR="$TEST_OUT/$dir/deploy" --var WORKDIR="$TEST_OUT/$dir/work" \
		--var IMAGE_NAME=core-image-minimal-kv260.rootfs-20240101120000 \
		--var STAGING_DATADIR_NATIVE="$TEST_OUT/sysroot/usr/share" \
		"$@" >"$dir/run.sh" &&
	(cd "$dir" && dash -e ./run.sh >log 2>&1) && rc=0 || rc=$?
	cat "$dir/log"
	return $rc
}

WIC=core-image-minimal-kv260.rootfs-20240101120000.wic

# deploy DIR: DIR/deploy holds a KV260-like image, as wic leaves it.
deploy()
{
	mkdir -p "$1/deploy" "$1/work" && cp kv.img "$1/deploy/$WIC" && cp kv.sum "$1/orig.sum"
}

test_expect_success 'build the KV260-like image' '
	make_kv260 kv.img && sum_file kv.img >kv.sum
'

test_expect_success 'the class patches the .wic: two recipes, each parameter to the recipe that takes it' '
	deploy a &&
	run_hook a --var IMGPATCH_RECIPES="kv260-uhs fstab-noatime" \
		--var IMGPATCH_SET="board=kv carrier=revB" &&
	kv260_patched a/deploy/$WIC &&
	ls a/deploy >files && cat files &&
	test "$(cat files)" = "$(printf "%s\n" $WIC $WIC.imgpatch.json)"
'

test_expect_success 'the report beside the image names both recipes, the image verified' '
	python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert r[\"recipes\"] == [\"kv260-uhs\", \"fstab-noatime\"], r
assert [c[\"status\"] for c in r[\"cards\"]] == [\"verified\"], r
" a/deploy/$WIC.imgpatch.json
'

test_expect_success 'a recipe of your own, found in IMGPATCH_RECIPE_PATH' '
	mkdir own &&
	sed "s/^name = \"fstab-noatime\"/name = \"my-noatime\"/" \
		"$IMGPATCH_BUILD/recipes/fstab-noatime.recipe" >own/my-noatime.recipe &&
	deploy o &&
	run_hook o --var IMGPATCH_RECIPE_PATH="$TEST_OUT/own" --var IMGPATCH_RECIPES=my-noatime &&
	extract_part o/deploy/$WIC 2 own.ext4 &&
	debugfs -R "cat /etc/fstab" own.ext4 2>/dev/null >fstab &&
	grep -q "^LABEL=writable	/	ext4	errors=remount-ro,noatime	0 1$" fstab
'

test_expect_success 'IMGPATCH_RECIPES empty: the image is left as it is' '
	deploy n &&
	run_hook n &&
	test_file_unchanged n/deploy/$WIC "$(cat n/orig.sum)" &&
	ls n/deploy >files && test "$(cat files)" = $WIC
'

# refused DIR PATTERN VAR=VALUE...: the hook fails the task saying PATTERN,
# and the image is byte-identical.
refused()
{
	local dir=$1 pattern=$2

	shift 2
	deploy "$dir" &&
	test_must_fail_with 2 run_hook "$dir" "$@" &&
	grep -q -- "$pattern" "$dir/log" &&
	test_file_unchanged "$dir/deploy/$WIC" "$(cat "$dir/orig.sum")"
}

test_expect_success 'a missing parameter fails the task with imgpatch'"'"'s message' '
	refused f1 "carrier" --var IMGPATCH_RECIPES=kv260-uhs --var IMGPATCH_SET=board=kv
'

test_expect_success 'a parameter no recipe takes (a typo) fails the task' '
	refused f2 "no recipe given has a parameter .carier." \
		--var IMGPATCH_RECIPES="kv260-uhs fstab-noatime" --var IMGPATCH_SET="board=kv carier=revB"
'

test_expect_success 'an unknown recipe fails the task' '
	refused f3 "no-such-recipe" --var IMGPATCH_RECIPES=no-such-recipe
'

test_done
