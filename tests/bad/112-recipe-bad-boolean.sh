# SPDX-License-Identifier: MIT
# Recipe: required = maybe (a boolean is true or false).
fixture kv260 bad.img
{ recipe_head maybe; cat <<'EOD'; } >maybe.recipe
param carrier {
	description = "carrier revision"
	required = maybe
}
step { action = "fstab" mountpoint = "/" options = "+noatime" }
EOD
CMD=(apply ./maybe.recipe bad.img --set board=kv --set carrier=revB)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./maybe\.recipe:7: invalid boolean value for option 'required'$"
