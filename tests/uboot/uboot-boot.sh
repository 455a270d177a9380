#!/bin/bash
# SPDX-License-Identifier: MIT
#
# uboot-boot.sh LOG OUTDIR ENV CARD
#
# Boots U-Boot for the QEMU "virt" machine as a board boots: nobody types
# anything, the environment is ENV (a text file, "name=value" a line, as
# mkenvimage reads it) in the second flash bank, where the qemu_arm64 build
# keeps it (CONFIG_ENV_IS_IN_FLASH, CONFIG_ENV_ADDR 0x4000000, the start
# of QEMU's second 64 MiB flash), and CARD is an SD card on an SDHCI
# controller on PCI ("mmc 0" in U-Boot). U-Boot's own bootcmd then runs
# whatever the card holds. The kernel the card boots is expected to be
# the stand-in booti-dump.s makes: it writes the tree booti handed it to
# OUTDIR/booti.dtb through semihosting and ends QEMU.
#
# LOG gets the whole console. Exits 0 when QEMU ended with status 0 and
# OUTDIR/booti.dtb was written; 1 when U-Boot came back to its prompt (no
# kernel started), on a timeout, or when QEMU failed (the reason and the
# end of the console on stderr); 2 on a usage error.
#
# With UBOOT_UNTIL the card boots a real kernel instead, which never ends
# QEMU: the run ends, QEMU stopped, as soon as a console line matches the
# extended regular expression UBOOT_UNTIL (exit 0), and OUTDIR is not
# written.
#
# The card is a copy of CARD grown to a power of two (QEMU's sd-card will
# only take such a size); CARD is never written.
#
# Environment:
#   QEMU_AARCH64    the emulator (default qemu-system-aarch64)
#   UBOOT_BIN       the firmware (no default: build-uboot.sh's)
#   UBOOT_TIMEOUT   seconds for the whole run (default 60)
#   UBOOT_MEM       the machine's RAM in MiB (default 1024)
#   UBOOT_ENV_SIZE  CONFIG_ENV_SIZE of the firmware (default 0x40000,
#                   qemu_arm64_defconfig's)
#   UBOOT_MACHINE   QEMU's -machine (default virt)
#   UBOOT_UNTIL     see above

set -u

qemu=${QEMU_AARCH64:-qemu-system-aarch64}
timeout_s=${UBOOT_TIMEOUT:-60}
mem_mib=${UBOOT_MEM:-1024}
env_size=${UBOOT_ENV_SIZE:-0x40000}
machine=${UBOOT_MACHINE:-virt}
until_re=${UBOOT_UNTIL:-}
prog=${0##*/}

if [ $# -ne 4 ] || [ -z "${UBOOT_BIN:-}" ]; then
	echo "usage: UBOOT_BIN=FIRMWARE $prog LOG OUTDIR ENV CARD" >&2
	exit 2
fi
log=$(realpath -m "$1") outdir=$2 env=$3 card=$4

tmp=$(mktemp -d "${TMPDIR:-/tmp}/uboot-boot.XXXXXX") || exit 1
qpid=
cleanup()
{
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# shellcheck source=SCRIPTDIR/qemu-die.sh
. "$(dirname "${BASH_SOURCE[0]}")/qemu-die.sh"

mkdir -p "$outdir" || exit 1
rm -f "$outdir/booti.dtb"
: >"$log" || exit 1

mkenvimage -s "$env_size" -o "$tmp/flash1" "$env" || die "mkenvimage failed on '$env'"
truncate -s 64M "$tmp/flash1" || exit 1

size=$(stat -c %s "$card") || exit 1
pow=512
while [ "$pow" -lt "$size" ]; do
	pow=$((pow * 2))
done
cp --sparse=always "$card" "$tmp/card" && truncate -s "$pow" "$tmp/card" || exit 1

# The stand-in kernel's semihosting opens "booti.dtb" relative to QEMU's
# working directory.
(
	cd "$outdir" &&
	exec timeout -k 5 $((timeout_s + 30)) \
		"$qemu" -nodefaults -no-user-config -machine "$machine" -cpu cortex-a57 -m "$mem_mib" \
			-display none -serial "file:$log" -monitor none -nic none -no-reboot \
			-semihosting-config enable=on,target=native \
			-bios "$UBOOT_BIN" \
			-drive "if=pflash,format=raw,unit=1,file=$tmp/flash1" \
			-drive "if=none,id=card,format=raw,file=$tmp/card" \
			-device sdhci-pci -device sd-card,drive=card \
			</dev/null >"$tmp/qemu.out" 2>"$tmp/qemu.err"
) &
qpid=$!
deadline=$((SECONDS + timeout_s))

while kill -0 "$qpid" 2>/dev/null; do
	# The prompt after autoboot: every boot target failed.
	if tr -d '\r' <"$log" | grep -q '^=> '; then
		die "U-Boot came back to its prompt: no kernel started"
	fi
	if [ -n "$until_re" ] && tr -d '\r' <"$log" | grep -Eq -- "$until_re"; then
		exit 0
	fi
	if [ $SECONDS -ge $deadline ]; then
		[ -z "$until_re" ] ||
			die "the console did not say '$until_re' within ${timeout_s}s (UBOOT_TIMEOUT)"
		die "no kernel started within ${timeout_s}s (UBOOT_TIMEOUT)"
	fi
	sleep 0.1
done
wait "$qpid"
rc=$?
qpid=
[ -z "$until_re" ] || die "qemu ended with status $rc before the console said '$until_re'"
[ "$rc" = 0 ] || die "qemu ended with status $rc (1: the stand-in kernel's semihosting failed)"
[ -s "$outdir/booti.dtb" ] || die "the kernel started but wrote no booti.dtb"
exit 0
