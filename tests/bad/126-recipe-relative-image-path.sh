# SPDX-License-Identifier: MIT
# Recipe: an image path that is not absolute.
fixture kv260 bad.img
{ recipe_head relative; cat <<'EOD'; } >relative.recipe
step { action = "write-file" part = "root" path = "etc/motd" content = "hello" }
EOD
CMD=(apply ./relative.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./relative\.recipe:5: step 1 \(write-file\): path 'etc/motd': must be an absolute path"
