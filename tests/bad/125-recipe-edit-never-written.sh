# SPDX-License-Identifier: MIT
# Recipe: a device-tree edit that no write-dtb step writes out.
fixture kv260 bad.img
{ recipe_head lost; cat <<'EOD'; } >lost.recipe
step { action = "fdt-from-fit" fit = "/image.fit" fdt = "6" }
step { action = "dt-delete-property" node = "mmc@ff170000" property = "no-1-8-v" }
EOD
CMD=(apply ./lost.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./lost\.recipe:6: step 2 \(dt-delete-property\): the device tree is never written after this change"
