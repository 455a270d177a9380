# SPDX-License-Identifier: MIT
# ext4 root (Raspberry Pi OS) with needs_recovery set: its journal holds
# writes not yet replayed. Applying a recipe must say so, not claim that
# no partition has /etc/fstab.
fixture rpi bad.img
ext_edit bad.img 2 "feature needs_recovery"
CMD=(apply fstab-noatime bad.img)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: .*p2 \(ext4\).*needs journal recovery'
