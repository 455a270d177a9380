# SPDX-License-Identifier: MIT
#
# Helpers for the malformed-input generators tests/bad/NNN-*.sh, sourced by
# tests/t0550-bad-inputs.sh after tests/lib.sh (so part_offset, part_size,
# extract_part, put_part and part_mtools are there too). Every generator
# runs in a fresh scratch directory, under `set -e`.
#
# A generator builds its input from a good fixture, damages it with real
# tools, and sets:
#   CMD     array: the imgpatch arguments (after the program name)
#   TARGET  the file that must stay byte-identical (usually the image)
#   STATUS  the expected exit status: 1, or 2 for a usage error
#   EXPECT  an extended regular expression the one error line must match
#           (the line must also start with "imgpatch: ")

BAD_DIR=$TEST_DIR/bad

# The same edits for every case that needs them.
KV260_FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb
KV260_DT=(--fdt 6 --dt-delete mmc@ff170000:no-1-8-v)
KV260_FSTAB=(--fstab /:-discard,+noatime)

# fixture KIND OUT: copies a good image to OUT. KIND is kv260, kv260-mbr,
# kv260-fat16 (MBR with a FAT16 boot partition), pmos or rpi. Each kind is
# built once per run, into $BAD_CACHE.
fixture()
{
	local -; set +x
	local kind=$1 out=$2 cached=$BAD_CACHE/$1.img

	if [ ! -f "$cached" ]; then
		mkdir -p "$BAD_CACHE" || return 1
		case "$kind" in
		kv260) "$FIXTURES/mkimage-kv260.sh" "$cached.tmp" ;;
		kv260-mbr) "$FIXTURES/mkimage-kv260.sh" "$cached.tmp" --mbr ;;
		kv260-fat16) "$FIXTURES/mkimage-kv260.sh" "$cached.tmp" --mbr --fat16 ;;
		pmos) "$FIXTURES/mkimage-pmos.sh" "$cached.tmp" ;;
		rpi) "$FIXTURES/mkimage-rpi.sh" "$cached.tmp" ;;
		*) echo "fixture: unknown kind '$kind'" >&2; return 1 ;;
		esac || return 1
		mv "$cached.tmp" "$cached" || return 1
	fi
	cp --sparse=always "$cached" "$out"
}

# poke FILE OFFSET HEX: writes the bytes HEX (e.g. "55aa") at OFFSET.
poke()
{
	local -; set +x

	printf '%s' "$3" | xxd -r -p |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# le_hex VALUE BYTES: VALUE as BYTES bytes of little-endian hex.
le_hex()
{
	local -; set +x
	local v=$1 n=$2 out=

	while [ "$n" -gt 0 ]; do
		out=$out$(printf '%02x' $((v & 0xff)))
		v=$((v >> 8))
		n=$((n - 1))
	done
	echo "$out"
}

# put_le16/put_le32 FILE OFFSET VALUE: a little-endian field.
put_le16() { poke "$1" "$2" "$(le_hex "$3" 2)"; }
put_le32() { poke "$1" "$2" "$(le_hex "$3" 4)"; }

# get_le16/get_le32 FILE OFFSET: prints a little-endian field.
get_le16()
{
	local -; set +x

	od -An -tu2 -j "$2" -N2 --endian=little "$1" | tr -d ' '
}

get_le32()
{
	local -; set +x

	od -An -tu4 -j "$2" -N4 --endian=little "$1" | tr -d ' '
}

# mbr_entry IMG SECTOR SLOT TYPE START SECTORS: rewrites entry SLOT (1-4)
# of the MBR or EBR at SECTOR: type, start and size in sectors.
mbr_entry()
{
	local -; set +x
	local off=$(($2 * 512 + 446 + 16 * ($3 - 1)))

	poke "$1" $((off + 4)) "$(printf '%02x' "$4")" &&
	put_le32 "$1" $((off + 8)) "$5" &&
	put_le32 "$1" $((off + 12)) "$6"
}

# gptedit IMG ...: see tests/bad/gptedit.py.
gptedit()
{
	python3 "$BAD_DIR/gptedit.py" "$@"
}

# uimgedit FILE ...: see tests/bad/uimgedit.py.
uimgedit()
{
	python3 "$BAD_DIR/uimgedit.py" "$@"
}

# fat_get IMG N PATH OUT / fat_put IMG N FILE PATH: copies a file out of or
# into the FAT of partition N with mtools.
fat_get()
{
	mcopy -n -i "$(part_mtools "$1" "$2")" "::$3" "$4"
}

fat_put()
{
	mcopy -o -i "$(part_mtools "$1" "$2")" "$3" "::$4"
}

# ext_edit IMG N DEBUGFS-COMMAND...: runs debugfs -w commands on the ext
# filesystem of partition N (on an extracted copy, written back). Fails
# when debugfs reports an error.
ext_edit()
{
	local -; set +x
	local img=$1 n=$2 rc=0

	shift 2
	extract_part "$img" "$n" part.ext || return 1
	printf '%s\n' "$@" >debugfs.cmd
	debugfs -w -f debugfs.cmd part.ext >debugfs.out 2>debugfs.err || rc=1
	if grep -v '^debugfs [0-9]' debugfs.err >&2; then
		rc=1
	fi
	[ $rc = 0 ] && put_part "$img" "$n" part.ext && rm -f part.ext
}

# recipe_head NAME: the required top-level keys of a recipe called NAME.
recipe_head()
{
	cat <<EOF
name = "$1"
summary = "a malformed recipe"
description = "Made by a test to be refused."
source = "tests/bad"
EOF
}

# make_fit PAYLOAD COMPRESSION OUT: a FIT made by mkimage -f from a small
# hand-written .its: one flat_dt image "fdt-1" (data PAYLOAD, compression
# COMPRESSION, a sha1 hash) and one configuration "conf-1" naming it.
make_fit()
{
	cat >fit.its <<EOF2
/dts-v1/;

/ {
	description = "one device tree";
	#address-cells = <1>;

	images {
		fdt-1 {
			description = "a device tree";
			data = /incbin/("$1");
			type = "flat_dt";
			arch = "arm64";
			compression = "$2";
			hash-1 {
				algo = "sha1";
			};
		};
	};

	configurations {
		default = "conf-1";
		conf-1 {
			fdt = "fdt-1";
		};
	};
};
EOF2
	mkimage -f fit.its "$3" >/dev/null
}

# dtb_break_struct DTB: points the first property's name offset far past
# the strings block; the header stays valid, so only a full structure
# check (fdt_check_full) notices.
dtb_break_struct()
{
	local -; set +x
	local off

	off=$(od -An -tu4 -j8 -N4 --endian=big "$1" | tr -d ' ') &&
	# The root node: FDT_BEGIN_NODE, an empty name padded to 4 bytes; then
	# the first FDT_PROP token, its length and its name offset.
	test "$(od -An -tx1 -j "$off" -N12 "$1" | tr -d ' ')" = 000000010000000000000003 &&
	poke "$1" $((off + 16)) 7fffffff
}
