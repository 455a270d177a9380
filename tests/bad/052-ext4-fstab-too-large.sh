# SPDX-License-Identifier: MIT
# /etc/fstab of 1 MiB + 1 byte: more than imgpatch reads into memory.
fixture kv260 bad.img
{ printf 'LABEL=writable\t/\text4\tdefaults\t0 1\n'; head -c 1048576 /dev/zero | tr '\0' '#'; } |
	head -c 1048577 >fstab
ext_edit bad.img 2 "rm /etc/fstab" "write fstab /etc/fstab"
CMD=(patch bad.img "${KV260_FSTAB[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p2 \(ext4\): /etc/fstab: .*1048577 bytes, more than the 1048576 allowed$'
