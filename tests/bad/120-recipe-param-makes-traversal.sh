# SPDX-License-Identifier: MIT
# Recipe: a path that is safe as written becomes /etc/../motd once
# --set dir=.. is bound.
fixture kv260 bad.img
{ recipe_head bind; cat <<'EOD'; } >bind.recipe
param dir {
	description = "a directory under /etc"
	required = true
}
step { action = "write-file" part = "root" path = "/etc/${dir}/motd" content = "hello" }
EOD
CMD=(apply ./bind.recipe bad.img --set dir=..)
TARGET=bad.img
STATUS=2
EXPECT="^imgpatch: \./bind\.recipe:9: step 1 \(write-file\): path '/etc/\.\./motd': '\.\.' component"
