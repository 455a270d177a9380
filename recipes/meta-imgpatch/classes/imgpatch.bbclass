# SPDX-License-Identifier: MIT
#
# imgpatch.bbclass: applies imgpatch recipes to the .wic image an image
# recipe builds, as part of the build.
#
#   IMAGE_CLASSES += "imgpatch"      (local.conf: every image), or
#   inherit imgpatch                 (in one image recipe)
#   IMGPATCH_RECIPES = "kv260-uhs fstab-noatime"
#   IMGPATCH_SET = "board=kv carrier=revB"
#
# IMGPATCH_RECIPES  imgpatch recipes to apply, in this order: names, found in
#                   IMGPATCH_RECIPE_PATH and then among the shipped ones, or
#                   paths to .recipe files. Empty: nothing is patched.
# IMGPATCH_SET      recipe parameters, space separated NAME=VALUE: each goes
#                   to the recipes that take NAME; one that none takes stops
#                   the build.
# IMGPATCH_RECIPE_PATH  folders with your own .recipe files, colon separated.
#
# The class makes one `imgpatch write IMAGE COPY --apply RECIPE...` of them,
# and the patched copy replaces the image. imgpatch checks the parameters,
# applies the recipes as one transaction (a recipe that does not fit the
# image stops the build, and nothing is written), reads the copy back and
# writes its report, IMAGE.wic.imgpatch.json, beside the image, which is
# deployed with it.
#
# Where it hooks in: image.bbclass makes do_image_wic out of IMAGE_CMD:wic
# followed by the conversion commands of every wic.* type in IMAGE_FSTYPES
# (wic.xz, wic.bmap, ...). IMAGE_POSTPROCESS_COMMAND and a task of our own
# after do_image_wic would both come after those conversions. Appended to
# IMAGE_CMD:wic, imgpatch runs on the .wic wic has just written, before any
# conversion and in the same task: every output is made from the patched
# image, and a change of IMGPATCH_* or of imgpatch runs all of do_image_wic
# again, from an unpatched image.
#
# The shell below is read by BitBake's shell parser to find the commands it
# runs: no arithmetic expansion, no here-documents (see tests/t1300).

IMGPATCH_RECIPES ??= ""
IMGPATCH_SET ??= ""
IMGPATCH_RECIPE_PATH ??= ""

# imgpatch-native's shipped recipes: its built-in path points into the
# sysroot it was built in, not this recipe's.
IMGPATCH_NATIVE_RECIPE_DIR = "${STAGING_DATADIR_NATIVE}/imgpatch/recipes"

do_image_wic[depends] += "imgpatch-native:do_populate_sysroot mtools-native:do_populate_sysroot"

IMAGE_CMD:wic:append() {
    imgpatch_image "${IMGDEPLOYDIR}/${IMAGE_NAME}.wic"
}

# imgpatch_image IMAGE: applies IMGPATCH_RECIPES to IMAGE.
imgpatch_image() {
    if [ -z "${IMGPATCH_RECIPES}" ]; then
        return 0
    fi
    args=
    for recipe in ${IMGPATCH_RECIPES}; do
        args="$args --apply $recipe"
    done
    for kv in ${IMGPATCH_SET}; do
        args="$args --set $kv"
    done
    rm -f "$1.imgpatch"
    IMGPATCH_RECIPE_PATH="${IMGPATCH_RECIPE_PATH}:${IMGPATCH_NATIVE_RECIPE_DIR}" \
        imgpatch write "$1" "$1.imgpatch" $args --json "$1.imgpatch.json" --quiet
    mv "$1.imgpatch" "$1"
}
