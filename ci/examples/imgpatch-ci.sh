#!/bin/bash
# SPDX-License-Identifier: MIT
#
# imgpatch-ci.sh: what the GitHub action (github-action/action.yml) and the
# GitLab job template (gitlab-ci.yml) run, so that both behave alike and can
# be tried on a desk.
#
#   imgpatch-ci.sh install [--source DIR] [--prefix DIR] [--if-missing] [--no-apt]
#       Installs the Debian/Ubuntu packages imgpatch needs to build and run
#       (apt-get, through sudo when not root), builds imgpatch from DIR
#       (default: the imgpatch tree this script is in) and installs it under
#       PREFIX (default /usr/local). --if-missing: do nothing when an imgpatch
#       is on PATH already. --no-apt: the packages are there.
#
#   imgpatch-ci.sh apply --image IMG --recipes "R1 R2..." [--set "NAME=VALUE..."]
#                        [--output OUT] [--compress FMT] [--level N]
#                        [--recipe-path DIR]... [--report FILE] [--outputs FILE]
#       Applies the recipes to IMG, in order, as one step: with several
#       recipes a patched working copy is made beside the output and only
#       the last recipe writes OUT, so a recipe that fails leaves IMG and
#       OUT as they were. OUT defaults to IMG (patched in place); its format
#       follows its name or --compress, as with `imgpatch apply -o`.
#       --set takes NAME=VALUE (given to every recipe that takes NAME) and
#       RECIPE:NAME=VALUE (to that recipe only), separated by spaces or new
#       lines; a NAME no recipe takes is an error. The plan each recipe
#       printed goes to --report (default OUT.imgpatch.txt). "image=OUT" and
#       "report=FILE" lines are appended to --outputs FILE (default
#       $GITHUB_OUTPUT, when set).
#
# An option given an empty value counts as not given, so callers can pass
# every option through unconditionally.

set -euo pipefail

me=imgpatch-ci
tmp=''
paths=()

# Debian 12 / Ubuntu 22.04+ package names.
build_packages=(
	build-essential pkg-config git device-tree-compiler scdoc
	libfdt-dev libext2fs-dev comerr-dev libblkid-dev nettle-dev zlib1g-dev
	libconfuse-dev libarchive-dev liblzma-dev libcrypt-dev
	mtools
)

die()
{
	echo "$me: $*" >&2
	exit 1
}

# usage [STATUS]: the comment at the top of this file, on stderr unless
# asked for (STATUS 0).
usage()
{
	local status=${1:-2}

	if [ "$status" = 0 ]; then
		sed -n '4,/^# An option/p' "$0" | sed -e 's/^# \{0,1\}//' -e '$d'
	else
		sed -n '4,/^# An option/p' "$0" | sed -e 's/^# \{0,1\}//' -e '$d' >&2
	fi
	exit "$status"
}

# need_arg OPTION ARGC: OPTION needs a value.
need_arg()
{
	[ "$2" -ge 2 ] || { echo "$me: $1 needs a value" >&2; usage; }
}

cmd_install()
{
	local source='' prefix=/usr/local if_missing=0 apt=1 build sudo=()

	while [ $# -gt 0 ]; do
		case "$1" in
		--source) need_arg "$1" $#; source=$2; shift ;;
		--prefix) need_arg "$1" $#; prefix=${2:-/usr/local}; shift ;;
		--if-missing) if_missing=1 ;;
		--no-apt) apt=0 ;;
		*) echo "$me: install: unknown option '$1'" >&2; usage ;;
		esac
		shift
	done
	if [ $if_missing = 1 ] && command -v imgpatch >/dev/null; then
		echo "$me: $(command -v imgpatch) is there ($(imgpatch --version)): not building another"
		return 0
	fi
	if [ -z "$source" ]; then
		source=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	fi
	if [ ! -f "$source/Makefile" ] || [ ! -d "$source/tool" ]; then
		die "'$source' is not an imgpatch source tree: give --source DIR"
	fi
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	if [ $apt = 1 ]; then
		"${sudo[@]}" apt-get update -q
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends "${build_packages[@]}"
	fi
	build=$(mktemp -d)/build
	make -C "$source" BUILD="$build" -j"$(nproc)" "$build/imgpatch"
	# Only the install itself needs root, and only outside the user's own folders.
	if mkdir -p "$prefix" 2>/dev/null && [ -w "$prefix" ]; then
		sudo=()
	fi
	"${sudo[@]}" make -C "$source" BUILD="$build" PREFIX="$prefix" install
	"${sudo[@]}" rm -rf "$(dirname "$build")"
	echo "$me: installed $prefix/bin/imgpatch ($("$prefix/bin/imgpatch" --version))"
}

# recipe_params RECIPE: the parameters RECIPE takes, one a line, as
# `imgpatch recipes show` lists them.
recipe_params()
{
	local show

	show=$(imgpatch recipes show "$1" "${paths[@]}") || exit 1
	sed -n '/^parameters:$/,/^$/s/^  \([^ (]*\) (.*/\1/p' <<<"$show"
}

cmd_apply()
{
	local image='' recipes='' sets='' output='' compress='' level='' report='' kv name only
	local outputs=${GITHUB_OUTPUT:-} final n i taken r
	local -a rlist=() setlist=() params=() rsets=() common=() last=()
	paths=()

	while [ $# -gt 0 ]; do
		case "$1" in
		--image) need_arg "$1" $#; image=$2; shift ;;
		--recipes) need_arg "$1" $#; recipes=$2; shift ;;
		--set) need_arg "$1" $#; sets=$2; shift ;;
		--output) need_arg "$1" $#; output=$2; shift ;;
		--compress) need_arg "$1" $#; compress=$2; shift ;;
		--level) need_arg "$1" $#; level=$2; shift ;;
		--recipe-path) need_arg "$1" $#; [ -z "$2" ] || paths+=(--recipe-path "$2"); shift ;;
		--report) need_arg "$1" $#; report=$2; shift ;;
		--outputs) need_arg "$1" $#; outputs=$2; shift ;;
		*) echo "$me: apply: unknown option '$1'" >&2; usage ;;
		esac
		shift
	done
	[ -n "$image" ] || die "apply: --image is required"
	read -r -d '' -a rlist <<<"$recipes" || true
	[ ${#rlist[@]} -gt 0 ] || die "apply: --recipes is required"
	[ -e "$image" ] || die "apply: no image '$image'"
	command -v imgpatch >/dev/null || die "imgpatch is not on PATH: run '$0 install' first"

	final=${output:-$image}
	# -o IMAGE itself is patching in place.
	if [ -e "$final" ] && [ "$final" -ef "$image" ]; then
		final=$image
	fi
	report=${report:-$final.imgpatch.txt}

	# NAME=VALUE only to the recipes that take NAME: imgpatch refuses a
	# parameter a recipe does not have.
	n=${#rlist[@]}
	for ((i = 0; i < n; i++)); do
		params[i]=" $(recipe_params "${rlist[i]}" | tr '\n' ' ')"
		rsets[i]=
	done
	read -r -d '' -a setlist <<<"$sets" || true
	for kv in "${setlist[@]}"; do
		case "$kv" in
		*=*) ;;
		*) die "apply: --set: '$kv' is not NAME=VALUE or RECIPE:NAME=VALUE" ;;
		esac
		name=${kv%%=*}
		only=
		if [[ $name == *:* ]]; then
			only=${name%%:*}
			name=${name#*:}
			kv=${kv#*:}
		fi
		taken=0
		for ((i = 0; i < n; i++)); do
			r=${rlist[i]}
			if [ -n "$only" ] && [ "$only" != "$r" ] && [ "$only" != "$(basename "$r" .recipe)" ]; then
				continue
			fi
			if [[ ${params[i]} == *" $name "* ]]; then
				rsets[i]+=" --set $kv"
				taken=1
			fi
		done
		[ $taken = 1 ] || die "apply: --set: no recipe of '${rlist[*]}' takes the parameter '$name' ($kv)"
	done

	# The working copy and undo journals live beside the output, so that
	# the final rename stays on one filesystem; they go when the script does.
	mkdir -p "$(dirname "$final")"
	tmp=$(mktemp -d "$(dirname "$final")/.$me.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	common=(--quiet "${paths[@]}")
	last=()
	[ -z "$compress" ] || last+=(--compress "$compress")
	[ -z "$level" ] || last+=(--level "$level")
	: >"$report"

	# run_apply I ARGS...: recipe I on ARGS, its plan into the report and the log.
	run_apply()
	{
		local i=$1

		shift
		echo "$me: imgpatch apply ${rlist[i]} $*${rsets[i]}"
		# shellcheck disable=SC2086  # rsets holds separate --set words
		imgpatch apply "${rlist[i]}" "$@" ${rsets[i]} "${common[@]}" | tee -a "$report"
	}

	if [ "$n" = 1 ]; then
		if [ "$final" = "$image" ]; then
			run_apply 0 "$image" --in-place --undo "$tmp/undo" "${last[@]}"
		else
			run_apply 0 "$image" -o "$final" "${last[@]}"
		fi
	else
		run_apply 0 "$image" -o "$tmp/work.img" --compress none
		for ((i = 1; i < n - 1; i++)); do
			run_apply "$i" "$tmp/work.img" --undo "$tmp/undo"
		done
		run_apply $((n - 1)) "$tmp/work.img" -o "$final" "${last[@]}"
	fi

	if [ -n "$outputs" ]; then
		printf 'image=%s\nreport=%s\n' "$final" "$report" >>"$outputs"
	fi
	echo "$me: patched image: $final"
	echo "$me: report: $report"
}

case "${1:-}" in
install) shift; cmd_install "$@" ;;
apply) shift; cmd_apply "$@" ;;
-h|--help) usage 0 ;;
*) echo "$me: expected 'install' or 'apply'" >&2; usage ;;
esac
