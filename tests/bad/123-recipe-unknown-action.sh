# SPDX-License-Identifier: MIT
# Recipe: an action that does not exist.
fixture kv260 bad.img
{ recipe_head action; cat <<'EOD'; } >action.recipe
step { action = "format-partition" part = "boot" }
EOD
CMD=(apply ./action.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./action\.recipe:5: step 1: unknown action 'format-partition' \(actions: .*write-file.*\)$"
