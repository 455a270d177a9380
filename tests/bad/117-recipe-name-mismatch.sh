# SPDX-License-Identifier: MIT
# Recipe: name "kv260-uhs" in a file called impostor.recipe.
fixture kv260 bad.img
{ recipe_head kv260-uhs; cat <<'EOD'; } >impostor.recipe
step { action = "fstab" mountpoint = "/" options = "+noatime" }
EOD
CMD=(apply ./impostor.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./impostor\.recipe:1: name 'kv260-uhs' differs from the file name 'impostor\.recipe'"
