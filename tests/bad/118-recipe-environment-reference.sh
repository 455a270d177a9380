# SPDX-License-Identifier: MIT
# Recipe: "${HOME}" inside double quotes is a parameter reference, never
# the environment.
fixture kv260 bad.img
{ recipe_head envref; cat <<'EOD'; } >envref.recipe
step { action = "write-file" part = "root" path = "/etc/motd" content = "built in ${HOME}" }
EOD
CMD=(apply ./envref.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT="^imgpatch: \./envref\.recipe:5: step 1 \(write-file\): content: undeclared parameter 'HOME'"
