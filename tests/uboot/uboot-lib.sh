# SPDX-License-Identifier: MIT
#
# Sourced by the tests that run U-Boot under QEMU (t0600 to t0640) after
# lib.sh: finds the emulator and the firmware, runs one session, reads back
# what each command printed.

# Debian's u-boot-qemu and qemu-system-arm; without them every check is
# skipped, not failed.
export QEMU_AARCH64=${QEMU_AARCH64:-qemu-system-aarch64}
export UBOOT_BIN=${UBOOT_BIN:-/usr/lib/u-boot/qemu_arm64/u-boot.bin}
CONSOLE=$TEST_DIR/uboot/uboot-console.sh

# uboot_missing TOOL...: sets $missing to the missing tool (a command, or the
# package of a file), else checks imgpatch and TOOL... as every test does.
uboot_missing()
{
	missing=
	if ! command -v "$QEMU_AARCH64" >/dev/null 2>&1; then
		missing=$QEMU_AARCH64
	elif [ ! -r "$UBOOT_BIN" ]; then
		missing=u-boot-qemu
	else
		test_require_imgpatch
		test_require_tools "$@"
	fi
}

# check NAME BODY: a test, or a skipped one when QEMU or U-Boot is missing.
check()
{
	if [ -n "$missing" ]; then
		test_skip_tool "$1" "$missing"
	else
		test_expect_success "$1" "$2"
	fi
}

# boot_uboot KIND CMDS DISK...: one U-Boot session with the DISKs attached
# (virtio 0, 1, ...) running every command of CMDS; outputs in KIND/, the
# whole console in KIND.console, shown when the session fails.
boot_uboot()
{
	local -; set +x
	local kind=$1 cmds=$2 start=$SECONDS
	shift 2

	if "$CONSOLE" "$kind.console" "$kind" "$@" <"$cmds"; then
		echo "U-Boot session $kind: $((SECONDS - start))s"
		return 0
	fi
	echo "--- console of the U-Boot session $kind:"
	tr -d '\r' <"$kind.console"
	echo
	return 1
}

# uboot_ok KIND NAME: shows what command NAME printed; fails unless it
# succeeded.
uboot_ok()
{
	local -; set +x
	local out=$1/$2.out rc

	if [ ! -f "$out" ]; then
		echo "no output for '$2': the U-Boot session did not get that far"
		return 1
	fi
	rc=$(cat "$1/$2.rc")
	echo "--- U-Boot '$2' (status $rc):"
	cat "$out"
	test "$rc" = 0
}

# crc32_of FILE: the CRC-32 U-Boot's crc32 prints, from gzip's trailer
# (stored little-endian).
crc32_of()
{
	local -; set +x
	gzip -c <"$1" | tail -c 8 | od -An -tx1 -N4 |
		awk '{ print $4 $3 $2 $1 }'
}

# ------------------------------------------------------- trees compared
#
# For the tests that compare the tree U-Boot ends with (t0620 to t0640) with
# the one imgpatch reports.

# dtb_dts DTB OUT: the tree as dtc writes it as DTS, without /memreserve/
# lines (fdt print does not show them): two trees give the same text when
# their nodes and properties are the same bytes in the same order.
dtb_dts()
{
	local -; set +x
	dtc -q -I dtb -O dts "$1" | grep -v '^/memreserve/' >"$2"
}

# uboot_tree_dts PRINT OUT: the tree U-Boot's "fdt print /" printed (the
# file PRINT), as dtb_dts writes it. fdt print writes DTS without its
# header, each value as strings, cells or bytes, so dtc reads back the
# same bytes.
uboot_tree_dts()
{
	local -; set +x
	{ echo '/dts-v1/;'; cat "$1"; } | dtc -q -I dts -O dtb -o "$2.dtb" - &&
		dtb_dts "$2.dtb" "$2"
}

# uboot_has_fdt_apply HELP: whether "help fdt" (its output in the file
# HELP) lists "fdt apply", which needs CONFIG_OF_LIBFDT_OVERLAY (Debian
# 12's qemu_arm64 build has not).
uboot_has_fdt_apply()
{
	grep -q "^fdt apply" "$1"
}

# boot_path_files JSON: the first tree imgpatch's "info --json" (the file
# JSON) names for the boot path, then its overlays in order, one a line,
# each as "PART:PATH" for imgpatch cat.
boot_path_files()
{
	python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["boot_path"]
t = b["trees"][0]
print("\n".join("%d:%s" % (b["partition"], f) for f in [t["path"]] + t["overlays"]))' "$1"
}

# effective_tree IMG OUT: the tree imgpatch says the board boots ("cat
# IMG --dtb", DTS after a comment line), as dtb_dts writes it, and as a
# blob in OUT.dtb.
effective_tree()
{
	local -; set +x

	imgpatch cat "$1" --dtb >"$2.dts" &&
	dtc -q -I dts -O dtb -o "$2.dtb" "$2.dts" &&
	dtb_dts "$2.dtb" "$2"
}

# symbols_dtb_dir DIR: a DTB_DIR for the fixtures whose PinePhone tree has
# __symbols__ (U-Boot's build of it), as the distributions that apply
# overlays build theirs with -@; tests/dtb's kernel tree has none.
symbols_dtb_dir()
{
	mkdir -p "$1" &&
	cp "$DTB_DIR"/*.dtb "$1/" &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" "$1/sun50i-a64-pinephone-1.2.dtb"
}
