# SPDX-License-Identifier: MIT
# Recipe: an image path with '..' in it.
fixture kv260 bad.img
{ recipe_head dotdot; cat <<'EOD'; } >dotdot.recipe
step {
	action = "write-file"
	part = "root"
	path = "/etc/../../etc/shadow"
	content = "root::0:0:99999:7:::"
}
EOD
CMD=(apply ./dotdot.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./dotdot\.recipe:[0-9]+: step 1 \(write-file\): path '/etc/\.\./\.\./etc/shadow': '\.\.' component"
