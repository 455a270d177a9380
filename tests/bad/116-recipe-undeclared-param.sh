# SPDX-License-Identifier: MIT
# Recipe: ${carier} (misspelt) where only carrier is declared.
fixture kv260 bad.img
{ recipe_head undeclared; cat <<'EOD'; } >undeclared.recipe
param carrier {
	description = "carrier revision"
	values = {"revA", "revB"}
	required = true
}
step { action = "fdt-from-fit" fit = "/image.fit" fdt = "fdt-smk-k26-revA-sck-kv-g-${carier}.dtb" }
step { action = "write-dtb" path = "/user-override.dtb" }
EOD
CMD=(apply ./undeclared.recipe bad.img --set board=kv --set carrier=revB)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./undeclared\.recipe:10: step 1 \(fdt-from-fit\): fdt: undeclared parameter 'carier' \(declared: carrier\)$"
