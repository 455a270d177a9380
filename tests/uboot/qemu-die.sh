# SPDX-License-Identifier: MIT
#
# Sourced by the scripts that run one QEMU session (uboot-console.sh,
# uboot-boot.sh): die MESSAGE says what failed with the end of the console
# ($log) and what QEMU said ($tmp/qemu.err), and exits 1.

die()
{
	echo "$prog: $*" >&2
	if [ -s "$log" ]; then
		echo "$prog: last console lines:" >&2
		tail -n 15 "$log" | tr -d '\r' | awk '{ print "  | " $0 }' >&2
	fi
	if [ -s "$tmp/qemu.err" ]; then
		echo "$prog: qemu said:" >&2
		awk '{ print "  | " $0 }' "$tmp/qemu.err" >&2
	fi
	exit 1
}
