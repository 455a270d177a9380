# SPDX-License-Identifier: MIT
#
# First boots for the test suites: sourced by a tests/tNNNN-*.sh after
# tests/lib.sh.
#
#   fb_require                    builds the roots and images when the
#                                 cache lacks them; skips the rest of the
#                                 script (a counted skip) when QEMU or the
#                                 image tools are missing or Debian's
#                                 mirror cannot be reached for a first
#                                 build
#   fb_image VARIANT OUT.img      makes OUT.img (with OUT.img.vmlinuz and
#                                 OUT.img.initrd beside it) from the cached
#                                 root of VARIANT (cloud-init, plain)
#   fb_boot IMAGE OUTDIR [--stay] [--guest-ip ADDR] [--kernel-of IMAGE2]
#                                 boots IMAGE under QEMU (TCG), waits for the
#                                 probe's report, writes OUTDIR/serial.log
#                                 and OUTDIR/probe.txt; waits for the
#                                 machine to power off, or with --stay
#                                 leaves it running, SSH forwarded from
#                                 127.0.0.1:$(cat OUTDIR/ssh-port)
#   fb_stop OUTDIR                powers a --stay machine off (ACPI), waits
#                                 for it, ends it when it does not stop
#   fb_probe OUTDIR KEY           prints KEY's values from probe.txt, one a
#                                 line; fails when there is none
#   fb_ssh_keyscan OUTDIR         prints the fingerprints the guest's sshd
#                                 shows through the forward, sorted
#   fb_ssh OUTDIR USER --key KEY CMD...
#   fb_ssh OUTDIR USER --password-file FILE CMD...
#                                 runs CMD on a --stay machine as USER over
#                                 SSH, logging in with the private key KEY
#                                 or the password in FILE (which proves
#                                 that the password works)
#
# The kernel boots with root=LABEL=writable console=ttyS0 net.ifnames=0,
# on a virtio disk, virtio-net on QEMU's user network (10.0.2.0/24, DHCP
# gives 10.0.2.15; --guest-ip names the guest's address where a test gave
# it a static one, so that the SSH forward reaches it). Each fb_boot of
# the same image is its next boot. The kernel and initrd are IMAGE's
# (IMAGE.vmlinuz, IMAGE.initrd), or those of IMAGE2 (a copy of an image
# made by cp has none of its own).
#
# KVM is never used: these machines' KVM does not boot it reliably. Under
# TCG a boot takes minutes; FB_TIMEOUT (seconds, default 900) bounds the
# wait for the report. Every QEMU this script started is ended when the
# test script exits.

FB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FB_TIMEOUT=${FB_TIMEOUT:-900}
_fb_qemus=$(mktemp "${TMPDIR:-/tmp}/fb-qemus.XXXXXX")

# _fb_end_all: ends every QEMU of this script still running, by the pids
# fb_boot recorded (a test body runs in a subshell, so pids travel in a
# file).
_fb_end_all()
{
	local pid

	if [ -f "$_fb_qemus" ]; then
		while read -r pid; do
			_fb_kill "$pid"
		done <"$_fb_qemus"
		rm -f "$_fb_qemus"
	fi
}
# A signal ends the script through exit, so that the EXIT trap runs (bash
# runs none when a signal kills it). A test that sets its own EXIT trap
# calls _fb_end_all in it.
trap _fb_end_all EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# _fb_kill PID: ends PID if it is still one of our QEMUs.
_fb_kill()
{
	local i

	_fb_is_qemu "$1" || return 0
	kill "$1" 2>/dev/null
	for i in $(seq 1 50); do
		_fb_is_qemu "$1" || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
}

_fb_is_qemu()
{
	[ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" |
		grep -q '^qemu-system-x86_64 .*-name imgpatch-firstboot'
}

fb_require()
{
	local -; set +x
	local msg rc variant

	test_require_tools qemu-system-x86_64 mmdebstrap sfdisk mke2fs \
		mkfs.vfat mcopy ssh-keyscan ssh-keygen python3 flock
	# The roots and their images are built once (from Debian's mirror)
	# and cached: a cold cache that cannot reach the mirror is a skip,
	# not a failure.
	for variant in cloud-init plain; do
		rc=0
		msg=$(bash "$FB_DIR/mkimage.sh" "$variant") || rc=$?
		case "$rc:$msg" in
		0:*) ;;
		3:missing:*) test_skip_tool "first-boot images built" ${msg#missing: }
			test_done ;;
		3:*) test_skip "first-boot images built" "$msg"; test_done ;;
		*) test_fail "first-boot images built" "mkimage.sh $variant failed (exit $rc)"
			test_done ;;
		esac
	done
}

fb_image()
{
	bash "$FB_DIR/mkimage.sh" "$1" "$2" >/dev/null
}

# _fb_free_port: a TCP port on 127.0.0.1 that nothing listens on now.
_fb_free_port()
{
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

fb_boot()
{
	local -; set +x
	local image=$1 out=$2 stay=0 guest_ip=10.0.2.15 kernel_of=$1 port pid
	local append start rc i f

	shift 2
	while [ $# -gt 0 ]; do
		case "$1" in
		--stay) stay=1 ;;
		--guest-ip) guest_ip=$2; shift ;;
		--kernel-of) kernel_of=$2; shift ;;
		*) echo "fb_boot: unknown option '$1'" >&2; return 2 ;;
		esac
		shift
	done
	for f in "$image" "$kernel_of.vmlinuz" "$kernel_of.initrd"; do
		[ -f "$f" ] || { echo "fb_boot: '$f' not found" >&2; return 1; }
	done
	mkdir -p "$out" && rm -f "$out"/serial.log "$out"/probe.txt "$out"/qemu.* \
		"$out"/ssh-port || return 1
	port=$(_fb_free_port) || return 1
	append="root=LABEL=writable ro console=ttyS0 net.ifnames=0 panic=-1"
	[ $stay = 0 ] || append="$append imgpatch.probe=stay"
	# -no-reboot: a reboot ends QEMU (panic=-1 makes a panic one).
	qemu-system-x86_64 -name imgpatch-firstboot -accel tcg -m 1536 -smp 2 \
		-display none -monitor none -no-reboot \
		-serial "file:$out/serial.log" \
		-qmp "unix:$out/qemu.qmp,server=on,wait=off" \
		-kernel "$kernel_of.vmlinuz" -initrd "$kernel_of.initrd" \
		-append "$append" \
		-drive "file=$image,format=raw,if=virtio" \
		-netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$port-$guest_ip:22" \
		-device virtio-net-pci,netdev=net0 \
		</dev/null >"$out/qemu.log" 2>&1 &
	pid=$!
	echo "$pid" >>"$_fb_qemus"
	# Until the background shell has become QEMU, its command line is
	# not QEMU's.
	for i in $(seq 1 100); do
		! _fb_is_qemu "$pid" || break
		sleep 0.1
	done
	echo "$pid" >"$out/qemu.pid"
	echo "$port" >"$out/ssh-port"
	start=$SECONDS
	while ! grep -q '^IMGPATCH-PROBE-END' "$out/serial.log" 2>/dev/null; do
		if ! _fb_is_qemu "$pid"; then
			echo "fb_boot: QEMU ended before the probe's report; end of $out/serial.log:" >&2
			tail -n 30 "$out/serial.log" >&2
			cat "$out/qemu.log" >&2
			return 1
		fi
		if [ $((SECONDS - start)) -ge "$FB_TIMEOUT" ]; then
			echo "fb_boot: no probe report after ${FB_TIMEOUT}s; end of $out/serial.log:" >&2
			tail -n 30 "$out/serial.log" >&2
			_fb_kill "$pid"
			return 1
		fi
		sleep 2
	done
	echo "$((SECONDS - start))" >"$out/boot-seconds"
	# The report's lines only: the console's other writers (the kernel, a
	# getty) may have written between them.
	tr -d '\r' <"$out/serial.log" |
		sed -n '/^IMGPATCH-PROBE-BEGIN$/,/^IMGPATCH-PROBE-END$/p' |
		grep -E '^[a-z][a-z0-9_.@-]*=' >"$out/probe.txt"
	[ $stay = 1 ] && return 0
	# The probe powers the machine off.
	rc=0
	_fb_wait_exit "$pid" 180 || rc=1
	[ $rc = 0 ] || echo "fb_boot: the machine did not power off" >&2
	return $rc
}

# _fb_wait_exit PID SECONDS: waits for QEMU PID to end; ends it and fails
# when it has not after SECONDS.
_fb_wait_exit()
{
	local -; set +x
	local start=$SECONDS

	while _fb_is_qemu "$1"; do
		if [ $((SECONDS - start)) -ge "$2" ]; then
			_fb_kill "$1"
			return 1
		fi
		sleep 1
	done
}

fb_stop()
{
	local -; set +x
	local pid

	pid=$(cat "$1/qemu.pid" 2>/dev/null) || return 0
	_fb_is_qemu "$pid" || return 0
	# An ACPI power button press, which systemd-logind turns into a
	# clean poweroff.
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
for cmd in ("qmp_capabilities", "system_powerdown"):
	f.write("{\"execute\": \"%s\"}\n" % cmd)
	f.flush()
	f.readline()' "$1/qemu.qmp" || true
	_fb_wait_exit "$pid" 120
}

fb_probe()
{
	local -; set +x

	awk -v key="$2=" 'index($0, key) == 1 { print substr($0, length(key) + 1); n++ }
		END { exit n ? 0 : 1 }' "$1/probe.txt"
}

fb_ssh_keyscan()
{
	local -; set +x
	local port type try keys

	port=$(cat "$1/ssh-port") || return 1
	# One type at a time, each tried a few times: under TCG on a loaded
	# machine one answer may come too late, which ssh-keyscan takes as
	# none. A type the guest lacks is refused at once.
	for type in rsa ecdsa ed25519; do
		for try in 1 2 3; do
			keys=$(ssh-keyscan -T 30 -t "$type" -p "$port" 127.0.0.1 2>/dev/null)
			[ -z "$keys" ] || break
		done
		[ -z "$keys" ] || printf '%s\n' "$keys"
	done | ssh-keygen -lf - | awk '{ print $2 }' | sort
}

fb_ssh()
{
	local -; set +x
	local out=$1 user=$2 port auth=()

	port=$(cat "$out/ssh-port") || return 1
	case "$3" in
	--key) auth=(-o BatchMode=yes -o IdentitiesOnly=yes -o PasswordAuthentication=no
		-i "$4") ;;
	--password-file)
		# OpenSSH asks SSH_ASKPASS for the password when told to, so no
		# terminal is needed; the password never is in an argument.
		printf '#!/bin/sh\ncat %q\n' "$(cd "$(dirname "$4")" && pwd)/$(basename "$4")" \
			>"$out/askpass" && chmod 0700 "$out/askpass" || return 1
		auth=(-o PreferredAuthentications=password
			-o PubkeyAuthentication=no -o NumberOfPasswordPrompts=1) ;;
	*) echo "fb_ssh: give --key FILE or --password-file FILE" >&2; return 2 ;;
	esac
	shift 4
	SSH_ASKPASS=$out/askpass SSH_ASKPASS_REQUIRE=force DISPLAY=none \
	ssh -p "$port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
		-o LogLevel=ERROR -o ConnectTimeout=60 "${auth[@]}" \
		"$user@127.0.0.1" "$@" </dev/null
}
