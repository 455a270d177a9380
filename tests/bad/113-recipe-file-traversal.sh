# SPDX-License-Identifier: MIT
# Recipe: a file of the recipe that climbs out of its directory through
# overlays/.
fixture kv260 bad.img
mkdir overlays
echo secret >secret
mkdir sub
{ recipe_head climb; cat <<'EOD'; } >sub/climb.recipe
step { action = "write-file" part = "boot" path = "/secret.txt" file = "overlays/../../secret" }
EOD
CMD=(apply sub/climb.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: sub/climb\.recipe:5: step 1 \(write-file\): file 'overlays/\.\./\.\./secret': '\.\.' component"
