# SPDX-License-Identifier: MIT
# Recipe: a misspelt option inside a step, reported with its line.
fixture kv260 bad.img
{ recipe_head typo; cat <<'EOD'; } >typo.recipe
step { action = "fdt-from-fit" fit = "/image.fit" fdt = "6" }
step {
	action = "dt-delete-property"
	nodee = "mmc@ff170000"
	property = "no-1-8-v"
}
step { action = "write-dtb" path = "/user-override.dtb" }
EOD
CMD=(apply ./typo.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./typo\.recipe:8: no such option 'nodee' \(did you mean 'node'\?\)$"
