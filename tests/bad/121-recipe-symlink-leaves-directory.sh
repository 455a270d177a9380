# SPDX-License-Identifier: MIT
# Recipe: a file of the recipe that is a symbolic link out of its
# directory.
fixture kv260 bad.img
mkdir r
echo outside >outside.txt
ln -s ../outside.txt r/motd.txt
{ recipe_head link; cat <<'EOD'; } >r/link.recipe
step { action = "write-file" part = "root" path = "/etc/motd" file = "motd.txt" }
EOD
CMD=(apply r/link.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: r/link\.recipe:5: step 1 \(write-file\): file: 'motd\.txt' leads outside the recipe's directory$"
