# SPDX-License-Identifier: MIT
# patch -o through a symbolic link to IMAGE itself: a usage error, and the
# image is not written through the link.
fixture kv260 bad.img
ln -s bad.img alias.img
CMD=(patch bad.img "${KV260_FSTAB[@]}" -o alias.img)
TARGET=bad.img
STATUS=2
EXPECT='^imgpatch: -o alias\.img is IMAGE itself'
