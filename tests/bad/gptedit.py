# SPDX-License-Identifier: MIT
#
# gptedit.py IMG [--primary|--backup] [--keep-crc] EDIT...
#
# Changes fields of a GPT (512-byte sectors) in place, for the malformed
# inputs of tests/bad/. Without --primary or --backup both copies are
# edited. Afterwards the entries-array CRC and then the header CRC of each
# edited copy are recomputed, so that only the rule under test fails;
# --keep-crc leaves both CRCs as they were (a plain corruption).
#
# EDIT is one of:
#   FIELD=VALUE           a header field: header_size, my_lba, alternate_lba,
#                         first_usable, last_usable, entries_lba,
#                         num_entries, entry_size
#   N.FIELD=VALUE         a field of entry N (1-based): first_lba, last_lba
#   N.name.flip           flips the first byte of entry N's name
#   disk_guid.flip        flips the first byte of the disk GUID
# VALUE is decimal or 0x-hex.

import struct
import sys
import zlib

SS = 512
HEADER = {  # name: (offset, struct format)
    "header_size": (12, "<I"),
    "my_lba": (24, "<Q"),
    "alternate_lba": (32, "<Q"),
    "first_usable": (40, "<Q"),
    "last_usable": (48, "<Q"),
    "entries_lba": (72, "<Q"),
    "num_entries": (80, "<I"),
    "entry_size": (84, "<I"),
}
ENTRY = {"first_lba": (32, "<Q"), "last_lba": (40, "<Q")}


def usage():
    sys.exit("usage: gptedit.py IMG [--primary|--backup] [--keep-crc] EDIT...")


def main(argv):
    if len(argv) < 3:
        usage()
    path, args = argv[1], argv[2:]
    which, keep_crc, edits = ("primary", "backup"), False, []
    for a in args:
        if a == "--primary":
            which = ("primary",)
        elif a == "--backup":
            which = ("backup",)
        elif a == "--keep-crc":
            keep_crc = True
        else:
            edits.append(a)

    with open(path, "r+b") as f:
        f.seek(0, 2)
        nsectors = f.tell() // SS
        for copy in which:
            lba = 1 if copy == "primary" else nsectors - 1
            f.seek(lba * SS)
            hdr = bytearray(f.read(SS))
            if hdr[:8] != b"EFI PART":
                sys.exit("gptedit.py: no GPT header at LBA %d" % lba)
            # The entries as the header found them, before any edit.
            elba = struct.unpack_from("<Q", hdr, 72)[0]
            num, esize = struct.unpack_from("<II", hdr, 80)
            f.seek(elba * SS)
            ents = bytearray(f.read(num * esize))
            ents_changed = False
            for e in edits:
                key, _, val = e.partition("=")
                if key.endswith(".flip"):
                    key = key[: -len(".flip")]
                    if key == "disk_guid":
                        hdr[56] ^= 0xFF
                    else:
                        n = int(key.split(".")[0]) - 1
                        ents[n * esize + 56] ^= 0xFF
                        ents_changed = True
                    continue
                v = int(val, 0)
                if "." in key:
                    n, field = key.split(".", 1)
                    off, fmt = ENTRY[field]
                    struct.pack_into(fmt, ents, (int(n) - 1) * esize + off, v)
                    ents_changed = True
                else:
                    off, fmt = HEADER[key]
                    struct.pack_into(fmt, hdr, off, v)
            if ents_changed:
                f.seek(elba * SS)
                f.write(ents)
            if not keep_crc:
                if ents_changed:
                    struct.pack_into("<I", hdr, 88, zlib.crc32(ents))
                hsize = struct.unpack_from("<I", hdr, 12)[0]
                struct.pack_into("<I", hdr, 16, 0)
                struct.pack_into("<I", hdr, 16,
                                 zlib.crc32(bytes(hdr[:min(hsize, SS)])))
            f.seek(lba * SS)
            f.write(hdr)


if __name__ == "__main__":
    main(sys.argv)
