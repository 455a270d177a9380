# SPDX-License-Identifier: MIT
# Recipe: a file of the recipe given as an absolute host path.
fixture kv260 bad.img
{ recipe_head host; cat <<'EOD'; } >host.recipe
step { action = "write-file" part = "root" path = "/etc/hostname" file = "/etc/hostname" }
EOD
CMD=(apply ./host.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./host\.recipe:5: step 1 \(write-file\): file '/etc/hostname': must be a file name relative to the recipe's directory"
