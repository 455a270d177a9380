# SPDX-License-Identifier: MIT
# apply --set sd_overclock=fast for an integer parameter.
fixture rpi bad.img
CMD=(apply rpi-sd-overclock bad.img --set sd_overclock=fast)
TARGET=bad.img
STATUS=2
EXPECT="^imgpatch: .*parameter 'sd_overclock' must be an integer \(got 'fast'\)$"
