# SPDX-License-Identifier: MIT
# Recipe: ${x} as a bare word, outside quotes.
fixture kv260 bad.img
{ recipe_head bare; cat <<'EOD'; } >bare.recipe
param x {
	description = "some text"
	default = "hello"
}
step { action = "write-file" part = "root" path = "/etc/motd" content = ${x} }
EOD
CMD=(apply ./bare.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./bare\.recipe:9: '\\$\{' outside quotes"
