# SPDX-License-Identifier: MIT
# Recipe: a string that is never closed.
fixture kv260 bad.img
{ recipe_head quote; cat <<'EOD'; } >quote.recipe
step { action = "fstab" mountpoint = "/" options = "+noatime }
EOD
CMD=(apply ./quote.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: \./quote\.recipe:5: unterminated string$'
