# SPDX-License-Identifier: MIT
# Recipe: a match rule with '..' in its path.
fixture kv260 bad.img
{ recipe_head matchdots; cat <<'EOD'; } >matchdots.recipe
match { file = {"boot:/../image.fit"} }
step { action = "fstab" mountpoint = "/" options = "+noatime" }
EOD
CMD=(apply ./matchdots.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./matchdots\.recipe:5: match: file 'boot:/\.\./image\.fit': '\.\.' component"
