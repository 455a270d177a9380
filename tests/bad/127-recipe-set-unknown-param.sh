# SPDX-License-Identifier: MIT
# apply --set for a parameter the shipped recipe does not have.
fixture kv260 bad.img
CMD=(apply kv260-uhs bad.img --set board=kv --set carrier=revB --set carier=revA)
TARGET=bad.img
STATUS=2
EXPECT="^imgpatch: .*recipe 'kv260-uhs' has no parameter 'carier' \(parameters: carrier, board\)$"
