# SPDX-License-Identifier: MIT
# patch --dt-set without =VALUE: a usage error.
fixture kv260 bad.img
CMD=(patch bad.img --fdt 6 --dt-set mmc@ff170000:max-frequency)
TARGET=bad.img
STATUS=2
EXPECT="^imgpatch: --dt-set 'mmc@ff170000:max-frequency': expected NODE:PROP=VALUE$"
