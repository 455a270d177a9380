# SPDX-License-Identifier: MIT
# Recipe: an option set twice in one step.
fixture kv260 bad.img
{ recipe_head twice; cat <<'EOD'; } >twice.recipe
step {
	action = "fstab"
	mountpoint = "/"
	options = "+noatime"
	options = "-discard"
}
EOD
CMD=(apply ./twice.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./twice\.recipe:9: 'options' is set twice \(first on line 8\)$"
