# SPDX-License-Identifier: MIT
# Recipe: a file of the recipe of 17 MiB, more than the 16 MiB a recipe
# may copy (sparse, so it costs no disk).
fixture kv260 bad.img
truncate -s 17M big.bin
{ recipe_head big; cat <<'EOD'; } >big.recipe
step { action = "write-file" part = "boot" path = "/big.bin" file = "big.bin" }
EOD
CMD=(apply ./big.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: .*big\.bin: larger than 16777216 bytes$'
