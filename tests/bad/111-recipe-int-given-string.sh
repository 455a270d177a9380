# SPDX-License-Identifier: MIT
# Recipe: a string where an integer belongs (min = "fast").
fixture kv260 bad.img
{ recipe_head types; cat <<'EOD'; } >types.recipe
param speed {
	description = "SD clock in MHz"
	type = "int"
	min = "fast"
	required = true
}
step { action = "fstab" mountpoint = "/" options = "+noatime" }
EOD
CMD=(apply ./types.recipe bad.img --set speed=100)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./types\.recipe:8: invalid integer value for option 'min'$"
