# SPDX-License-Identifier: MIT
#
# imgpatch.bbclass: patches the disk image an image recipe builds with
# imgpatch recipes, as part of the build.
#
#   IMAGE_CLASSES += "imgpatch"      (local.conf: every image), or
#   inherit imgpatch                 (in one image recipe)
#   IMGPATCH_RECIPES = "kv260-uhs fstab-noatime"
#   IMGPATCH_SET = "board=kv carrier=revB"
#
# IMGPATCH_RECIPES  imgpatch recipes to apply, in this order: names, found
#                   in IMGPATCH_RECIPE_DIRS and then among the shipped ones,
#                   or paths to .recipe files. Empty: nothing is patched.
# IMGPATCH_SET      recipe parameters, space separated: NAME=VALUE goes to
#                   every recipe that takes NAME, RECIPE:NAME=VALUE to that
#                   recipe only. A NAME no recipe takes stops the build.
# IMGPATCH_IMAGE_TYPES  the image types patched (default "wic"); every
#                   wic.* type (wic.xz, wic.bmap, ...) is made from the
#                   patched .wic.
# IMGPATCH_RECIPE_DIRS  folders with your own .recipe files.
# IMGPATCH_EXTRA_ARGS   more options for each `imgpatch apply`.
#
# Each recipe is first run with --dry-run and its plan appended to
# IMAGE.imgpatch.txt beside the image (deployed with it); then it is
# applied. A recipe that does not fit the image fails the build with
# imgpatch's message, and nothing of that recipe is written.
#
# Where it hooks in, and why there: image.bbclass makes the task
# do_image_wic out of IMAGE_CMD:wic followed by the conversion commands of
# every wic.* type in IMAGE_FSTYPES (wic.xz, wic.gz, wic.bmap, wic.vmdk,
# ...), and deletes the plain .wic at the end of the task when only
# converted types were asked for. IMAGE_POSTPROCESS_COMMAND (run by
# do_image_complete) and a task added after do_image_wic both come after
# those conversions: they would patch a .wic whose .wic.xz and .wic.bmap
# still hold the unpatched image, or find no .wic at all. Appended to
# IMAGE_CMD:wic, imgpatch runs on the .wic that wic has just written,
# before any conversion and in the same task: every output is made from
# the patched image, and a change of IMGPATCH_* or of imgpatch re-runs all
# of do_image_wic, so a recipe is never applied on top of an image an
# earlier setting already patched.

IMGPATCH_RECIPES ??= ""
IMGPATCH_SET ??= ""
IMGPATCH_IMAGE_TYPES ??= "wic"
IMGPATCH_RECIPE_DIRS ??= ""
IMGPATCH_EXTRA_ARGS ??= ""

# The shipped recipes as imgpatch-native installs them: its built-in path
# points into imgpatch-native's own sysroot, not this recipe's.
IMGPATCH_NATIVE_RECIPE_DIR = "${STAGING_DATADIR_NATIVE}/imgpatch/recipes"
# Parameter lists and undo journals; the journals stay out of the deploy
# directory.
IMGPATCH_WORKDIR = "${WORKDIR}/imgpatch"

IMGPATCH_TASK_DEPENDS = "imgpatch-native:do_populate_sysroot mtools-native:do_populate_sysroot"
do_image_wic[depends] += "${@'${IMGPATCH_TASK_DEPENDS}' if (d.getVar('IMGPATCH_RECIPES') or '').split() else ''}"

IMAGE_CMD:wic:append() {
	imgpatch_image wic
}

# imgpatch_image TYPE: applies IMGPATCH_RECIPES to the TYPE image that
# IMAGE_CMD:TYPE has just written into IMGDEPLOYDIR.
imgpatch_image() {
	if [ -z "$(echo ${IMGPATCH_RECIPES})" ]; then
		bbnote "imgpatch: IMGPATCH_RECIPES is empty: the $1 image is left as it is"
		return 0
	fi
	case " $(echo ${IMGPATCH_IMAGE_TYPES}) " in
	*" $1 "*) ;;
	*)
		bbnote "imgpatch: $1 is not in IMGPATCH_IMAGE_TYPES: the $1 image is left as it is"
		return 0
		;;
	esac

	# Older releases name the image IMAGE_NAME + IMAGE_NAME_SUFFIX, newer
	# ones have the suffix inside IMAGE_NAME.
	img=
	for f in "${IMGDEPLOYDIR}/${IMAGE_NAME}${IMAGE_NAME_SUFFIX}.$1" "${IMGDEPLOYDIR}/${IMAGE_NAME}.$1"; do
		if [ -f "$f" ] && [ ! -L "$f" ]; then
			img=$f
			break
		fi
	done
	if [ -z "$img" ]; then
		bbfatal "imgpatch: no $1 image in ${IMGDEPLOYDIR} (looked for ${IMAGE_NAME}${IMAGE_NAME_SUFFIX}.$1 and ${IMAGE_NAME}.$1)"
	fi

	work="${IMGPATCH_WORKDIR}"
	rm -rf "$work"
	mkdir -p "$work"
	paths=
	for dir in ${IMGPATCH_RECIPE_DIRS} ${IMGPATCH_NATIVE_RECIPE_DIR}; do
		paths="$paths --recipe-path $dir"
	done

	# The parameters each recipe takes, from `imgpatch recipes show`: a
	# NAME=VALUE is given only to the recipes that take NAME, since
	# imgpatch refuses a parameter a recipe does not have.
	n=0
	for recipe in ${IMGPATCH_RECIPES}; do
		n=$((n + 1))
		if ! imgpatch recipes show "$recipe" $paths >"$work/$n.show" 2>"$work/err"; then
			bbfatal "imgpatch: IMGPATCH_RECIPES: $(cat "$work/err")"
		fi
		sed -n '/^parameters:$/,/^$/s/^  \([^ (]*\) (.*/\1/p' "$work/$n.show" >"$work/$n.params"
		: >"$work/$n.set"
	done
	for kv in ${IMGPATCH_SET}; do
		case "$kv" in
		*=*) ;;
		*) bbfatal "imgpatch: IMGPATCH_SET: '$kv' is not NAME=VALUE or RECIPE:NAME=VALUE" ;;
		esac
		name=${kv%%=*}
		only=
		case "$name" in
		*:*)
			only=${name%%:*}
			name=${name#*:}
			kv=${kv#*:}
			;;
		esac
		taken=0
		n=0
		for recipe in ${IMGPATCH_RECIPES}; do
			n=$((n + 1))
			if [ -n "$only" ] && [ "$only" != "$recipe" ] &&
			   [ "$only" != "$(basename "$recipe" .recipe)" ]; then
				continue
			fi
			if grep -qxF -e "$name" "$work/$n.params"; then
				echo "$kv" >>"$work/$n.set"
				taken=1
			fi
		done
		if [ $taken = 0 ]; then
			bbfatal "imgpatch: IMGPATCH_SET: no recipe in IMGPATCH_RECIPES takes the parameter '$name' ($kv)"
		fi
	done

	report="$img.imgpatch.txt"
	: >"$report"
	n=0
	for recipe in ${IMGPATCH_RECIPES}; do
		n=$((n + 1))
		sets=
		for kv in $(cat "$work/$n.set"); do
			sets="$sets --set $kv"
		done
		echo "# imgpatch apply $recipe $(basename "$img")$sets --dry-run" >>"$report"
		if ! imgpatch apply "$recipe" "$img" $sets $paths --dry-run \
				>>"$report" 2>"$work/err"; then
			bbfatal "imgpatch: recipe $recipe on $(basename "$img"): $(cat "$work/err")"
		fi
		echo >>"$report"
		if ! imgpatch apply "$recipe" "$img" $sets $paths --quiet \
				--undo "$work/$n.undo" ${IMGPATCH_EXTRA_ARGS} \
				>"$work/$n.log" 2>"$work/err"; then
			bbfatal "imgpatch: recipe $recipe on $(basename "$img"): $(cat "$work/err")"
		fi
		bbnote "imgpatch: $recipe: $(tail -n 1 "$work/$n.log")"
	done
	if [ -n "${IMAGE_LINK_NAME}" ]; then
		ln -sf "$(basename "$report")" "${IMGDEPLOYDIR}/${IMAGE_LINK_NAME}.$1.imgpatch.txt"
	fi
	bbnote "imgpatch: plan of every recipe in $report"
}
