#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='meta-imgpatch: the layer passes the static checks, broken copies do not, and the class patches a .wic'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools python3 bash dash mtype fdtget debugfs e2fsck fsck.fat

LAYER=$REPO_DIR/recipes/meta-imgpatch
CHECK=$TEST_DIR/yocto/check-layer.py

# check_copy EDIT...: a copy of the layer in ./layer, changed by the shell
# commands EDIT (run in it), checked; the checker's output goes to ./out.
check_copy()
{
	rm -rf layer && cp -R "$LAYER" layer &&
	(cd layer && eval "$*") &&
	python3 "$CHECK" layer --source "$REPO_DIR" --imgpatch "$IMGPATCH" >out 2>&1
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

test_expect_success 'the layer passes the checker' '
	python3 "$CHECK" "$LAYER" --imgpatch "$IMGPATCH" >out &&
	cat out &&
	grep "meta-imgpatch: layer.conf and 2 recipe/class files pass" out
'

test_expect_success 'an unchanged copy passes too (the negative checks below start from it)' '
	check_copy true && cat out
'

test_expect_success 'rejects the old override syntax: _append' '
	rejects "IMAGE_CMD_wic_append. uses the old override syntax ._append.: write .:append." \
		"sed -i \"s/^IMAGE_CMD:wic:append/IMAGE_CMD_wic_append/\" classes/imgpatch.bbclass"
'

test_expect_success 'rejects the old override syntax: RDEPENDS_${PN}' '
	rejects "RDEPENDS_\${PN}. uses the old override syntax: write .RDEPENDS:\${PN}." \
		"sed -i \"s/^RDEPENDS:/RDEPENDS_/\" recipes-devtools/imgpatch/imgpatch_git.bb"
'

test_expect_success 'rejects a layer.conf without LAYERSERIES_COMPAT' '
	rejects "layer.conf:0: LAYERSERIES_COMPAT_imgpatch is not set" \
		"sed -i /^LAYERSERIES_COMPAT/d conf/layer.conf"
'

test_expect_success 'rejects an unknown release series' '
	rejects "unknown release series .scarthgapp." \
		"sed -i \"s/ scarthgap\\\"/ scarthgapp\\\"/\" conf/layer.conf"
'

test_expect_success 'rejects a per-collection variable named after another collection' '
	rejects "BBFILE_PRIORITY_imgpach: collection .imgpach. is not the layer.s" \
		"sed -i s/^BBFILE_PRIORITY_imgpatch/BBFILE_PRIORITY_imgpach/ conf/layer.conf"
'

test_expect_success 'rejects LAYERDEPENDS without core' '
	rejects "LAYERDEPENDS_imgpatch must include \"core\"" \
		"sed -i \"s/\\\"core /\\\"/\" conf/layer.conf"
'

test_expect_success 'rejects BBFILES that miss the recipe' '
	rejects "BBFILES does not match recipes-devtools/imgpatch/imgpatch_git.bb" \
		"sed -i \"s|recipes-\\*/\\*/\\*.bb |recipes-*/*.bb |\" conf/layer.conf"
'

test_expect_success 'rejects a LIC_FILES_CHKSUM that is not the LICENSE file'"'"'s md5' '
	want=$(md5sum <"$REPO_DIR/LICENSE" | cut -d" " -f1) &&
	rejects "LIC_FILES_CHKSUM: md5 of LICENSE is $want, the recipe says 0000" \
		"sed -i \"s/md5=[0-9a-f]*/md5=00000000000000000000000000000000/\" recipes-devtools/imgpatch/imgpatch_git.bb"
'

test_expect_success 'rejects an assignment without its operator' '
	rejects "unrecognised syntax: .DEPENDS \"dtc" \
		"sed -i \"s/^DEPENDS = /DEPENDS /\" recipes-devtools/imgpatch/imgpatch_git.bb"
'

test_expect_success 'rejects a function that is never closed' '
	rejects "function .do_install. is not closed by a .}. alone on a line" \
		"sed -i \"/^}\$/d\" recipes-devtools/imgpatch/imgpatch_git.bb"
'

test_expect_success 'rejects inline python that does not compile' '
	rejects "inline python does not compile" \
		"sed -i \"s/if (d.getVar(/if (d.getVar((/\" classes/imgpatch.bbclass"
'

test_expect_success 'rejects a python function that does not compile' '
	rejects "python function .__anonymous. does not compile" \
		"sed -i \"s/SkipRecipe(/SkipRecipe((/\" recipes-devtools/imgpatch/imgpatch_git.bb"
'

test_expect_success 'rejects a shell function that does not parse (bash -n and dash -n)' '
	rejects "shell function .imgpatch_image. does not pass .dash -n." \
		"sed -i \"s/^\tesac\$/\tesca/\" classes/imgpatch.bbclass" &&
	grep "shell function .imgpatch_image. does not pass .bash -n." out
'

test_expect_success 'rejects a variable the class neither sets nor documents' '
	rejects "\${NO_SUCH_VAR} is neither set in the class" \
		"echo \"IMGPATCH_X = \\\"\\\${NO_SUCH_VAR}\\\"\" >>classes/imgpatch.bbclass"
'

test_expect_success 'rejects a user variable README.md does not document' '
	rejects "user variable IMGPATCH_EXTRA_ARGS is not documented in README.md" \
		"sed -i s/IMGPATCH_EXTRA_ARGS/IMGPATCH_MORE_ARGS/g README.md"
'

test_expect_success 'rejects an option imgpatch does not have' '
	rejects "imgpatch apply/recipes has no option --no-such-option" \
		"sed -i \"s/--quiet/--quiet --no-such-option/\" classes/imgpatch.bbclass"
'

test_expect_success 'rejects a class without imgpatch-native in the wic task'"'"'s depends' '
	rejects "do_image_wic\[depends\] must add imgpatch-native:do_populate_sysroot" \
		"sed -i \"s/imgpatch-native:do_populate_sysroot //\" classes/imgpatch.bbclass"
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

# run_hook DIR VAR=VALUE...: renders IMAGE_CMD:wic:append, as do_image_wic
# would run it, with the variables of an image build in DIR, and runs it
# with /bin/sh -e (dash) in DIR; output in DIR/log.
run_hook()
{
	local dir=$1 rc

	shift
	python3 "$CHECK" "$LAYER" --emit IMAGE_CMD:wic:append --prelude prelude.sh \
		--var IMGDEPLOYDIR="$TEST_OUT/$dir/deploy" --var WORKDIR="$TEST_OUT/$dir/work" \
		--var IMAGE_LINK_NAME=core-image-minimal-kv260 \
		--var STAGING_DATADIR_NATIVE="$TEST_OUT/sysroot/usr/share" \
		"$@" >"$dir/run.sh" &&
	(cd "$dir" && dash -e ./run.sh >log 2>&1) && rc=0 || rc=$?
	cat "$dir/log"
	return $rc
}

# deploy DIR FILE: DIR/deploy holds a KV260-like image named FILE, as wic
# leaves it.
deploy()
{
	mkdir -p "$1/deploy" && cp kv.img "$1/deploy/$2" && cp kv.sum "$1/orig.sum"
}


test_expect_success 'build the KV260-like image' '
	make_kv260 kv.img && sum_file kv.img >kv.sum
'

test_expect_success 'the class patches the .wic: kv260-uhs with carrier=revB (kirkstone naming)' '
	deploy k "core-image-minimal-kv260-20240101.rootfs.wic" &&
	run_hook k --var IMAGE_NAME=core-image-minimal-kv260-20240101 --var IMAGE_NAME_SUFFIX=.rootfs \
		--var IMGPATCH_RECIPES=kv260-uhs --var IMGPATCH_SET="board=kv carrier=revB" &&
	grep "^NOTE: imgpatch: kv260-uhs: patched .*: 2 changes" k/log &&
	kv260_patched k/deploy/core-image-minimal-kv260-20240101.rootfs.wic
'

test_expect_success 'the dry-run report is beside the image, linked; the undo journal is not' '
	report=k/deploy/core-image-minimal-kv260-20240101.rootfs.wic.imgpatch.txt &&
	grep "^# imgpatch apply kv260-uhs core-image-minimal-kv260-20240101.rootfs.wic --set board=kv --set carrier=revB --dry-run" $report &&
	grep "^    -			no-1-8-v;" $report &&
	grep "^dry run: 2 changes planned, nothing written" $report &&
	test "$(readlink k/deploy/core-image-minimal-kv260.wic.imgpatch.txt)" = \
		core-image-minimal-kv260-20240101.rootfs.wic.imgpatch.txt &&
	ls k/deploy >files && test "$(wc -l <files)" = 3 &&
	! grep undo files && test -f k/work/imgpatch/1.undo
'

test_expect_success 'two recipes, NAME=VALUE only to the one that takes it (scarthgap naming)' '
	deploy s "core-image-minimal-kv260.rootfs-20240101.wic" &&
	run_hook s --var IMAGE_NAME=core-image-minimal-kv260.rootfs-20240101 --var IMAGE_NAME_SUFFIX=.rootfs \
		--var IMGPATCH_RECIPES="kv260-uhs fstab-noatime" --var IMGPATCH_SET="board=kv carrier=revB" &&
	grep "^NOTE: imgpatch: fstab-noatime: nothing to change" s/log &&
	kv260_patched s/deploy/core-image-minimal-kv260.rootfs-20240101.wic &&
	report=s/deploy/core-image-minimal-kv260.rootfs-20240101.wic.imgpatch.txt &&
	test "$(grep -c "^# imgpatch apply" $report)" = 2 &&
	grep "^# imgpatch apply fstab-noatime core-image-minimal-kv260.rootfs-20240101.wic --dry-run" $report
'

test_expect_success 'RECIPE:NAME=VALUE reaches that recipe only' '
	deploy r img-1.rootfs.wic &&
	run_hook r --var IMAGE_NAME=img-1 --var IMAGE_NAME_SUFFIX=.rootfs \
		--var IMGPATCH_RECIPES="fstab-noatime kv260-uhs" --var IMGPATCH_SET="kv260-uhs:board=kv kv260-uhs:carrier=revB" &&
	kv260_patched r/deploy/img-1.rootfs.wic
'

test_expect_success 'a recipe of your own, found in IMGPATCH_RECIPE_DIRS' '
	mkdir own &&
	sed "s/^name = \"fstab-noatime\"/name = \"my-noatime\"/" \
		"$IMGPATCH_BUILD/recipes/fstab-noatime.recipe" >own/my-noatime.recipe &&
	deploy o img-1.rootfs.wic &&
	run_hook o --var IMAGE_NAME=img-1 --var IMAGE_NAME_SUFFIX=.rootfs \
		--var IMGPATCH_RECIPE_DIRS="$TEST_OUT/own" --var IMGPATCH_RECIPES=my-noatime &&
	grep "^NOTE: imgpatch: my-noatime: patched" o/log &&
	extract_part o/deploy/img-1.rootfs.wic 2 own.ext4 &&
	debugfs -R "cat /etc/fstab" own.ext4 2>/dev/null >fstab &&
	grep -q "^LABEL=writable	/	ext4	errors=remount-ro,noatime	0 1$" fstab
'

# refused DIR PATTERN VAR=VALUE...: the hook fails the build saying PATTERN,
# and the image is byte-identical.
refused()
{
	local dir=$1 pattern=$2

	shift 2
	deploy "$dir" img-1.rootfs.wic &&
	test_must_fail_with 1 run_hook "$dir" --var IMAGE_NAME=img-1 --var IMAGE_NAME_SUFFIX=.rootfs "$@" &&
	grep -q -- "$pattern" "$dir/log" &&
	test_file_unchanged "$dir/deploy/img-1.rootfs.wic" "$(cat "$dir/orig.sum")"
}

test_expect_success 'a missing parameter fails the build with imgpatch'"'"'s message' '
	refused f1 "^ERROR: imgpatch: recipe kv260-uhs on img-1.rootfs.wic: imgpatch: parameter .carrier. is required" \
		--var IMGPATCH_RECIPES=kv260-uhs
'

test_expect_success 'a value the recipe does not allow fails the build' '
	refused f2 "^ERROR: imgpatch: recipe kv260-uhs on img-1.rootfs.wic: .*revC" \
		--var IMGPATCH_RECIPES=kv260-uhs --var IMGPATCH_SET="board=kv carrier=revC"
'

test_expect_success 'a parameter no recipe takes fails the build (a typo is not ignored)' '
	refused f3 "^ERROR: imgpatch: IMGPATCH_SET: no recipe in IMGPATCH_RECIPES takes the parameter .carier." \
		--var IMGPATCH_RECIPES="kv260-uhs fstab-noatime" --var IMGPATCH_SET=carier=revB
'

test_expect_success 'RECIPE:NAME=VALUE for a recipe that does not take NAME fails the build' '
	refused f4 "takes the parameter .carrier. (carrier=revB)" \
		--var IMGPATCH_RECIPES="kv260-uhs fstab-noatime" --var IMGPATCH_SET=fstab-noatime:carrier=revB
'

test_expect_success 'an unknown recipe fails the build' '
	refused f5 "^ERROR: imgpatch: IMGPATCH_RECIPES: imgpatch: .*no-such-recipe" \
		--var IMGPATCH_RECIPES=no-such-recipe
'

test_expect_success 'a second recipe that fails leaves the first one'"'"'s changes and stops the build' '
	deploy f6 img-1.rootfs.wic &&
	test_must_fail_with 1 run_hook f6 --var IMAGE_NAME=img-1 --var IMAGE_NAME_SUFFIX=.rootfs \
		--var IMGPATCH_RECIPES="fstab-noatime kv260-uhs" &&
	grep "^NOTE: imgpatch: fstab-noatime: patched" f6/log &&
	grep "^ERROR: imgpatch: recipe kv260-uhs on img-1.rootfs.wic: .*carrier" f6/log
'

test_expect_success 'no wic image where the class looks: the build fails' '
	mkdir -p f7/deploy &&
	test_must_fail_with 1 run_hook f7 --var IMAGE_NAME=img-1 --var IMAGE_NAME_SUFFIX=.rootfs \
		--var IMGPATCH_RECIPES=fstab-noatime &&
	grep "^ERROR: imgpatch: no wic image in .*f7/deploy (looked for img-1.rootfs.wic and img-1.wic)" f7/log
'

test_expect_success 'IMGPATCH_RECIPES empty, or wic not in IMGPATCH_IMAGE_TYPES: the image is left as it is' '
	deploy n1 img-1.rootfs.wic &&
	run_hook n1 --var IMAGE_NAME=img-1 --var IMAGE_NAME_SUFFIX=.rootfs &&
	grep "^NOTE: imgpatch: IMGPATCH_RECIPES is empty" n1/log &&
	test_file_unchanged n1/deploy/img-1.rootfs.wic "$(cat n1/orig.sum)" &&
	deploy n2 img-1.rootfs.wic &&
	run_hook n2 --var IMAGE_NAME=img-1 --var IMAGE_NAME_SUFFIX=.rootfs \
		--var IMGPATCH_RECIPES=fstab-noatime --var IMGPATCH_IMAGE_TYPES= &&
	grep "^NOTE: imgpatch: wic is not in IMGPATCH_IMAGE_TYPES" n2/log &&
	test_file_unchanged n2/deploy/img-1.rootfs.wic "$(cat n2/orig.sum)"
'

test_done
