#!/bin/bash
# SPDX-License-Identifier: MIT
#
# uboot-console.sh LOG OUTDIR DISK... <SCRIPT
#
# Boots U-Boot for the QEMU "virt" machine under qemu-system-aarch64 with
# each DISK attached, read-only and in order, as a virtio block device, stops
# autoboot, and types SCRIPT on the serial console. SCRIPT holds one command
# a line as "NAME COMMAND..." (blank lines and "#" lines are skipped); each
# command is sent only once the previous one is back at the "=> " prompt.
# For each NAME, OUTDIR/NAME.out gets the command's output (CR stripped,
# without the echoed command line and the prompt) and OUTDIR/NAME.rc its
# exit status as U-Boot's $? reports it. LOG gets the whole console. At the
# end U-Boot powers the machine off; QEMU is killed whatever happens.
#
# Exits 0 when every command came back to the prompt (whatever its own
# status), 1 on a timeout or when QEMU stops early (the reason and the end of
# the console on stderr), 2 on a usage error.
#
# Environment:
#   QEMU_AARCH64   the emulator (default qemu-system-aarch64)
#   UBOOT_BIN      the firmware (default Debian's u-boot-qemu build,
#                  /usr/lib/u-boot/qemu_arm64/u-boot.bin)
#   UBOOT_TIMEOUT  seconds for the whole run, boot included (default 60)
#   UBOOT_MEM      the machine's RAM in MiB (default 256); it starts at
#                  0x40000000, as on the 64-bit Allwinner boards

set -u
shopt -s extglob

qemu=${QEMU_AARCH64:-qemu-system-aarch64}
uboot=${UBOOT_BIN:-/usr/lib/u-boot/qemu_arm64/u-boot.bin}
timeout_s=${UBOOT_TIMEOUT:-60}
mem_mib=${UBOOT_MEM:-256}
prog=${0##*/}

if [ $# -lt 3 ]; then
	echo "usage: $prog LOG OUTDIR DISK... <SCRIPT" >&2
	exit 2
fi
log=$1 outdir=$2
shift 2

# shellcheck source=SCRIPTDIR/qemu-die.sh
. "$(dirname "${BASH_SOURCE[0]}")/qemu-die.sh"

qpid=
tmp=$(mktemp -d "${TMPDIR:-/tmp}/uboot-console.XXXXXX") || exit 1

cleanup()
{
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	exec 3>&-
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mkdir -p "$outdir" || exit 1
: >"$log" || exit 1

drives=()
n=0
for disk in "$@"; do
	[ -r "$disk" ] || die "'$disk' not readable"
	# A comma would end QEMU's file= option; QEMU escapes it by doubling.
	drives+=(-drive "if=none,id=disk$n,format=raw,readonly=on,file=${disk//,/,,}"
		-device "virtio-blk-device,drive=disk$n")
	n=$((n + 1))
done

# The console is a FIFO that this script holds open read-write, so neither
# side blocks in open() and QEMU never sees end-of-file on it.
mkfifo "$tmp/console" || exit 1
exec 3<>"$tmp/console" || exit 1
# timeout(1) ends QEMU even should this script be killed without its trap.
timeout -k 5 $((timeout_s + 30)) \
	"$qemu" -nodefaults -no-user-config -machine virt -cpu cortex-a57 -m "$mem_mib" \
		-display none -serial stdio -monitor none -nic none -no-reboot \
		-bios "$uboot" "${drives[@]}" \
		<"$tmp/console" >"$log" 2>"$tmp/qemu.err" &
qpid=$!
deadline=$((SECONDS + timeout_s))

# The console text from byte OFFSET on, without CRs.
console_from()
{
	tail -c "+$(($1 + 1))" "$log" | tr -d '\r'
}

# wait_for OFFSET GLOB WHAT: waits until the console from OFFSET matches
# GLOB; polling is cheap next to TCG's pace and needs no fixed sleep.
wait_for()
{
	local text

	while :; do
		text=$(console_from "$1")
		# shellcheck disable=SC2053 # GLOB is a pattern on purpose
		[[ $text == $2 ]] && return 0
		kill -0 "$qpid" 2>/dev/null ||
			die "qemu exited while waiting for $3"
		[ $SECONDS -lt $deadline ] ||
			die "no $3 within ${timeout_s}s (UBOOT_TIMEOUT)"
		sleep 0.05
	done
}

log_size()
{
	stat -c %s "$log"
}

# Any key stops the countdown; Ctrl-C also clears the command line should
# the countdown just be over. A build without a countdown (bootdelay=-1)
# goes straight to the prompt.
wait_for 0 $'*@(Hit any key to stop autoboot*|\n=> )' "autoboot countdown"
if [[ $(console_from 0) == *"Hit any key to stop autoboot"* ]]; then
	printf '\003' >&3
	wait_for 0 $'*\n=> ' "first prompt"
fi
# Should the key have come too late, autoboot ran and the Ctrl-C may still
# be pending: one round trip puts the console in step before the script.
off=$(log_size)
printf 'echo @ready\r' >&3
wait_for "$off" $'*\n@ready\n=> ' "first echo"

while read -r name cmd; do
	case "$name" in ''|'#'*) continue ;; esac
	[ -n "$cmd" ] || die "script line '$name' has no command"
	case "$name" in
	*/*|.*) die "bad command name '$name'" ;;
	esac
	off=$(log_size)
	# U-Boot's hush keeps the status of the last command in $?.
	printf '%s; echo @rc=$?\r' "$cmd" >&3
	wait_for "$off" $'*\n@rc=*\n=> ' "prompt after '$cmd'"
	text=$(console_from "$off")
	# Drop the echoed command line and the final prompt.
	text=${text#*$'\n'}
	text=${text%$'\n=> '}
	rc=${text##*$'\n'}
	text=${text%"$rc"}
	printf '%s' "$text" >"$outdir/$name.out"
	echo "${rc#@rc=}" >"$outdir/$name.rc"
done

# poweroff ends QEMU cleanly (PSCI SYSTEM_OFF); the trap kills it if not.
printf 'poweroff\r' >&3
while kill -0 "$qpid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
	sleep 0.05
done
exit 0
