#!/bin/bash
# SPDX-License-Identifier: MIT
#
# ci/yocto-check.sh BITBAKE_DIR OECORE_DIR [META_OE_DIR]
#
# Reads recipes/meta-imgpatch with a real BitBake and OpenEmbedded-Core, offline
# (BB_NO_NETWORK), for the release series OECORE_DIR is (run it once per
# series the layer declares, with the BitBake of that series), and lints it
# with oelint-adv. A development check, not part of `make check`: BitBake and
# OE-Core are not Debian packages and CI has no network.
#
# In a build directory of its own (MACHINE qemuarm64, the class in
# IMAGE_CLASSES, two recipes to apply) it runs
#   bitbake -p                       every recipe parses
#   bitbake -e imgpatch-native       PN, PV; do_compile and do_install are oe_runmake
#   bitbake -g core-image-minimal imgpatch imgpatch-native nativesdk-imgpatch
#                                    every dependency has a provider, and the
#                                    image's do_image_wic depends on
#                                    imgpatch-native:do_populate_sysroot
#   bitbake -e core-image-minimal    do_image_wic runs imgpatch after `wic create`
#                                    and before `bmaptool create`
#   oelint-adv --release SERIES      over the layer's files
# and exits 1 on any ERROR, any WARNING that names the layer or imgpatch, a
# skipped imgpatch recipe, a failed expectation, or any oelint-adv error.
#
# BitBake refuses to run as root: as root, the BitBake steps run as
# $YOCTO_CHECK_USER (default: yocto), which must exist. On Debian 12, OE-Core's
# sanity checks and BitBake want: gawk wget git diffstat unzip texinfo
# build-essential chrpath socat cpio python3-pexpect xz-utils iputils-ping
# python3-git python3-jinja2 python3-subunit zstd lz4 file locales (with
# en_US.UTF-8 generated); oelint-adv: python3-regex python3-deprecated
# python3-colorama python3-urllib3, and anytree and an argcomplete newer
# than Debian 12's on PYTHONPATH.
# oelint-adv is run as `python3 -m oelint_adv`: put it and oelint-parser,
# oelint-data on PYTHONPATH (or install them).
# YOCTO_CHECK_DIR: the work directory (default: a new one under /tmp; kept).
# The recipe's variables as `bitbake -e imgpatch` printed them are written to
# $YOCTO_CHECK_DIR/bitbake-e.SERIES, in the form tests/yocto/ keeps them.

set -u

usage() {
	echo "usage: $0 BITBAKE_DIR OECORE_DIR [META_OE_DIR]" >&2
	exit 2
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage

here=$(cd "$(dirname "$0")/.." && pwd)
layer_src=$here/recipes/meta-imgpatch
bitbake_dir=$(cd "$1" && pwd) || usage
oecore_dir=$(cd "$2" && pwd) || usage
metaoe_dir=
if [ $# -ge 3 ]; then
	metaoe_dir=$(cd "$3" && pwd) || usage
fi
user=${YOCTO_CHECK_USER:-yocto}
work=${YOCTO_CHECK_DIR:-$(mktemp -d /tmp/yocto-check.XXXXXX)}
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

ok() {
	echo "ok: $*"
}

commit_of() {
	git -C "$1" rev-parse HEAD 2>/dev/null || echo unknown
}

series=$(sed -n 's/^LAYERSERIES_CORENAMES *= *"\(.*\)"/\1/p' "$oecore_dir/meta/conf/layer.conf")
compat=$(sed -n 's/^LAYERSERIES_COMPAT_imgpatch *= *"\(.*\)"/\1/p' "$layer_src/conf/layer.conf")
bbversion=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$bitbake_dir/lib/bb/__init__.py")
echo "series: $series (BitBake $bbversion)"
echo "bitbake:    $(commit_of "$bitbake_dir")"
echo "oe-core:    $(commit_of "$oecore_dir")"
[ -n "$metaoe_dir" ] && echo "meta-oe:    $(commit_of "$metaoe_dir")"
echo "imgpatch:   $(commit_of "$here")"
case " $compat " in
*" $series "*) ok "$series is in LAYERSERIES_COMPAT_imgpatch ($compat)" ;;
*) fail "$series is not in LAYERSERIES_COMPAT_imgpatch ($compat)" ;;
esac

# as_user CMD...: CMD in the build directory, as the unprivileged user when
# run as root.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "$user" -- env -i HOME="$work" PATH=/usr/local/bin:/usr/bin:/bin \
			LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 BITBAKEDIR="$bitbake_dir" \
			bash -c 'cd "$1" && init=$2 && shift 2 && . "$init" build >/dev/null && "$@"' \
			yocto-check "$work" "$oecore_dir/oe-init-build-env" "$@"
	else
		(cd "$work" && export BITBAKEDIR="$bitbake_dir" &&
			. "$oecore_dir/oe-init-build-env" build >/dev/null && "$@")
	fi
}

# The layer where it is in imgpatch's tree (the recipe's default source is
# the tree two folders up).
mkdir -p "$work/build/conf" "$work/imgpatch/recipes"
rm -rf "$work/imgpatch/recipes/meta-imgpatch"
cp -R "$layer_src" "$work/imgpatch/recipes/meta-imgpatch"

# The layers the layer's LAYERDEPENDS names: meta-oe, and on scarthgap
# meta-networking (libconfuse), which needs meta-python. Of their recipes
# only libconfuse is parsed: imgpatch and core-image-minimal need nothing
# else from them, and parsing their thousands of recipes would take most of
# the check's time.
layers="$oecore_dir/meta"
mask=
masked_collections=none
if [ -n "$metaoe_dir" ]; then
	layers="$layers $metaoe_dir/meta-oe"
	mask="/meta-oe/recipes-(?!support/libconfuse/)"
	if [ "$series" = scarthgap ]; then
		layers="$layers $metaoe_dir/meta-python $metaoe_dir/meta-networking"
		mask="$mask /meta-python/recipes- /meta-networking/recipes-(?!support/libconfuse/)"
		masked_collections="openembedded-layer|meta-python"
	fi
	mask="$mask /meta-oe/dynamic-layers/ /meta-networking/dynamic-layers/"
fi
layers="$layers $work/imgpatch/recipes/meta-imgpatch"
{
	echo 'BBPATH = "${TOPDIR}"'
	echo 'BBFILES ?= ""'
	echo "BBLAYERS = \"$layers\""
} >"$work/build/conf/bblayers.conf"
cat >"$work/build/conf/local.conf" <<EOF
MACHINE = "qemuarm64"
BB_NO_NETWORK = "1"
CONNECTIVITY_CHECK_URIS = ""
# A check of the metadata only: nothing is built, so the host distribution
# need not be one the release was tested on.
SANITY_TESTED_DISTROS = ""
PACKAGE_CLASSES = "package_ipk"
BBMASK += "$mask"
IMAGE_CLASSES += "imgpatch"
IMAGE_FSTYPES += "wic wic.bmap"
IMGPATCH_RECIPES = "kv260-uhs fstab-noatime"
IMGPATCH_SET = "board=kv carrier=revB"
EOF
if [ "$(id -u)" = 0 ]; then
	chown -R "$user:" "$work"
fi

# bb STEP ARGS...: bitbake ARGS, output in $work/STEP.log; a failure, an
# ERROR or a WARNING naming the layer or imgpatch fails the check.
bb() {
	local step=$1 rc

	shift
	as_user bitbake "$@" >"$work/$step.log" 2>&1
	rc=$?
	# The layers whose recipes are all masked (above) have, of course, no
	# recipe that matches their BBFILE_PATTERN.
	grep -E '^(ERROR|WARNING):' "$work/$step.log" |
		grep -vE "^WARNING: No bb files in default matched BBFILE_PATTERN_($masked_collections) " |
		sort -u >"$work/$step.msgs"
	sed "s|^|  $step: |" "$work/$step.msgs"
	if [ $rc != 0 ]; then
		fail "bitbake $* exited $rc (see $work/$step.log)"
		tail -n 20 "$work/$step.log" | sed 's/^/  | /'
		return 1
	fi
	if grep -q '^ERROR:' "$work/$step.msgs"; then
		fail "bitbake $*: ERROR"
	elif grep -E '^WARNING:' "$work/$step.msgs" | grep -qiE 'meta-imgpatch|imgpatch'; then
		fail "bitbake $*: a WARNING names the layer"
	else
		ok "bitbake $*"
	fi
}

bb parse -p
if grep -qE 'imgpatch.*(skipped|Skipping)' "$work/parse.log"; then
	fail "an imgpatch recipe was skipped"
fi

# var FILE NAME: NAME's value in the output of `bitbake -e`.
var() {
	sed -n "s/^$2=\"\(.*\)\"\$/\1/p" "$1"
}

# func FILE NAME: the body of the shell function NAME in `bitbake -e` output.
func() {
	sed -n "/^$2() {\$/,/^}\$/p" "$1"
}

if bb env-native -e imgpatch-native; then
	e=$work/env-native.log
	pn=$(var "$e" PN)
	[ "$pn" = imgpatch-native ] && ok "PN=$pn" || fail "PN is '$pn'"
	pv=$(var "$e" PV)
	case $pv in
	0.1+git*) ok "PV=$pv" ;;
	*) fail "PV is '$pv'" ;;
	esac
	# do_compile is base_do_compile, the Makefile's default target.
	{ func "$e" do_compile; func "$e" base_do_compile; } >"$work/compile.sh"
	grep -qE '^[	 ]*(base_do_compile|oe_runmake)' "$work/compile.sh" &&
		sed -n '/^base_do_compile() {$/,/^}$/p' "$work/compile.sh" | grep -q '^[	 ]*oe_runmake ' &&
		ok "do_compile runs oe_runmake" || fail "do_compile does not run oe_runmake"
	func "$e" do_install | grep -q '^[	 ]*oe_runmake install' && ok "do_install runs oe_runmake install" ||
		fail "do_install does not run oe_runmake install"
fi

# The target recipe's variables, for tests/yocto/bitbake-e.SERIES: the paths
# of this build directory and of the source tree replaced by names.
if bb env-target -e imgpatch; then
	{
		echo "# bitbake -e imgpatch ($series, MACHINE qemuarm64), by ci/yocto-check.sh"
		echo "# bitbake $(commit_of "$bitbake_dir")"
		echo "# openembedded-core $(commit_of "$oecore_dir")"
		[ -n "$metaoe_dir" ] && echo "# meta-openembedded $(commit_of "$metaoe_dir")"
		for v in SUMMARY DESCRIPTION HOMEPAGE SECTION LICENSE LIC_FILES_CHKSUM \
			DEPENDS RDEPENDS:imgpatch PACKAGECONFIG IMGPATCH_GIT_URI SRC_URI \
			IMGPATCH_SRCREV SRCREV PV \
			EXTRA_OEMAKE PACKAGES FILES:imgpatch-zsh-completion BBCLASSEXTEND; do
			grep "^$v=" "$work/env-target.log"
		done | sed -e "s|$work/build|@BUILDDIR@|g" -e "s|$work|@TOPDIR@|g"
	} >"$work/bitbake-e.$series"
fi

if bb graph -g core-image-minimal imgpatch imgpatch-native nativesdk-imgpatch; then
	dot=$work/build/task-depends.dot
	grep -q '"core-image-minimal.do_image_wic" -> "imgpatch-native.do_populate_sysroot"' "$dot" &&
		ok "core-image-minimal:do_image_wic depends on imgpatch-native:do_populate_sysroot" ||
		fail "do_image_wic does not depend on imgpatch-native:do_populate_sysroot"
	for t in imgpatch-native.do_compile nativesdk-imgpatch.do_compile imgpatch.do_compile \
		libconfuse-native.do_populate_sysroot; do
		grep -q "^\"$t\"" "$dot" && ok "task graph has $t" || fail "task graph has no $t"
	done
fi

if bb env-image -e core-image-minimal; then
	body=$(func "$work/env-image.log" do_image_wic)
	w=$(printf '%s\n' "$body" | grep -n 'wic create' | head -n 1 | cut -d: -f1)
	i=$(printf '%s\n' "$body" | grep -n '^[	 ]*imgpatch_image ' | head -n 1 | cut -d: -f1)
	b=$(printf '%s\n' "$body" | grep -n 'bmaptool create' | head -n 1 | cut -d: -f1)
	if [ -n "$w" ] && [ -n "$i" ] && [ -n "$b" ] && [ "$w" -lt "$i" ] && [ "$i" -lt "$b" ]; then
		ok "do_image_wic: wic create (line $w), imgpatch_image (line $i), bmaptool create (line $b)"
		printf '%s\n' "$body" | sed -n "${i}p" | sed 's/^[	 ]*/  /'
	else
		fail "do_image_wic: wic create at '$w', imgpatch_image at '$i', bmaptool create at '$b'"
	fi
	func "$work/env-image.log" imgpatch_image | grep -A1 'IMGPATCH_RECIPE_PATH=' | sed 's/^[	 ]*/  /'
fi

# oelint-adv over the layer's files, as this series reads them.
files=$(cd "$layer_src" && find . -name '*.bb' -o -name '*.bbappend' -o -name '*.bbclass' | sort)
(cd "$layer_src" && python3 -m oelint_adv --quiet --release "$series" $files) >"$work/oelint.log" 2>&1
grep -E ':(error|warning):' "$work/oelint.log" | sed 's/^/  oelint: /'
if grep -q ':error:' "$work/oelint.log"; then
	fail "oelint-adv --release $series: errors"
elif ! grep -qE ':(error|warning|info):' "$work/oelint.log" && [ -s "$work/oelint.log" ]; then
	fail "oelint-adv did not run (see $work/oelint.log)"
	tail -n 5 "$work/oelint.log" | sed 's/^/  | /'
else
	ok "oelint-adv --release $series: no error"
fi

echo "work directory: $work"
if [ $failures != 0 ]; then
	echo "$series: $failures check(s) failed"
	exit 1
fi
echo "$series: all checks passed"
