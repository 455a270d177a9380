# SPDX-License-Identifier: MIT
#
# uimgedit.py FILE [--keep-hcrc] [--keep-dcrc] EDIT...
#
# Changes a legacy U-Boot image (64-byte big-endian header, then the data)
# in place, for the malformed inputs of tests/bad/. Afterwards the data CRC
# (over "size" bytes, as far as the file has them) and then the header CRC
# are recomputed, so that only the rule under test fails; --keep-dcrc and
# --keep-hcrc leave them as they were.
#
# EDIT is one of:
#   FIELD=VALUE      magic, hcrc, time, size, load, ep, dcrc (32-bit), os,
#                    arch, type, comp (8-bit); decimal or 0x-hex
#   payload=@FILE    replaces the data with FILE's bytes and sets size to
#                    its length (a later size=... still wins)
#   flip=OFFSET      flips the byte at OFFSET of the file

import struct
import sys
import zlib

WORDS = {"magic": 0, "hcrc": 4, "time": 8, "size": 12, "load": 16, "ep": 20,
         "dcrc": 24}
BYTES = {"os": 28, "arch": 29, "type": 30, "comp": 31}


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: uimgedit.py FILE [--keep-hcrc] [--keep-dcrc] EDIT...")
    path, args = argv[1], argv[2:]
    keep_h, keep_d = "--keep-hcrc" in args, "--keep-dcrc" in args
    with open(path, "rb") as f:
        img = bytearray(f.read())
    hdr, data = img[:64], img[64:]
    for a in args:
        if a.startswith("--"):
            continue
        key, _, val = a.partition("=")
        if key == "payload":
            with open(val[1:], "rb") as p:
                data = bytearray(p.read())
            struct.pack_into(">I", hdr, 12, len(data))
        elif key == "flip":
            off = int(val, 0)
            if off < 64:
                hdr[off] ^= 0xFF
            else:
                data[off - 64] ^= 0xFF
        elif key in WORDS:
            struct.pack_into(">I", hdr, WORDS[key], int(val, 0) & 0xFFFFFFFF)
        elif key in BYTES:
            hdr[BYTES[key]] = int(val, 0) & 0xFF
        else:
            sys.exit("uimgedit.py: unknown edit '%s'" % a)
    if not keep_d:
        size = struct.unpack_from(">I", hdr, 12)[0]
        struct.pack_into(">I", hdr, 24, zlib.crc32(bytes(data[:size])))
    if not keep_h:
        struct.pack_into(">I", hdr, 4, 0)
        struct.pack_into(">I", hdr, 4, zlib.crc32(bytes(hdr)))
    with open(path, "wb") as f:
        f.write(hdr + data)


if __name__ == "__main__":
    main(sys.argv)
