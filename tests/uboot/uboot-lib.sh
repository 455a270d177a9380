# SPDX-License-Identifier: MIT
#
# Sourced by the tests that run U-Boot under QEMU (t0600, t0610) after
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
