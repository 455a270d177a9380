# SPDX-License-Identifier: MIT
# Recipe: a second write-tree step that names another way than the first.
fixture kv260 bad.img
{ recipe_head twoways; cat <<'EOD'; } >twoways.recipe
step { action = "fdt-from-fit" fit = "/image.fit" fdt = "6" }
step { action = "dt-delete-property" node = "mmc@ff170000" property = "no-1-8-v" }
step { action = "write-tree" via = "override" }
step { action = "dt-delete-property" node = "mmc@ff160000" property = "no-1-8-v" }
step { action = "write-tree" via = "fit" }
EOD
CMD=(apply ./twoways.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./twoways\.recipe:9: step 5 \(write-tree\): via 'fit': step 3 already chose how this tree is written \(via override\); give the same or none$"
