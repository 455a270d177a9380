# SPDX-License-Identifier: MIT
# Recipe: write-file with path "/": not a file.
fixture kv260 bad.img
{ recipe_head slash; cat <<'EOD'; } >slash.recipe
step { action = "write-file" part = "root" path = "/" content = "hello" }
EOD
CMD=(apply ./slash.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./slash\.recipe:5: step 1 \(write-file\): path '/': must name a file, not '/'$"
