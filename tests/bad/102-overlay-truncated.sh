# SPDX-License-Identifier: MIT
# patch --overlay with a compiled overlay cut to 100 bytes.
fixture kv260 bad.img
head -c 100 "$IMGPATCH_BUILD/recipes/overlays/pinephone-vccq-mod.dtbo" >cut.dtbo
CMD=(patch bad.img --fdt 6 --overlay cut.dtbo)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*overlay cut\.dtbo: overlay is [0-9]+ bytes but only 100 are there \(truncated\?\)$'
