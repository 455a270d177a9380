#!/bin/bash
# SPDX-License-Identifier: MIT
#
# imgpatch-probe: installed as /usr/local/sbin/imgpatch-probe in the
# first-boot roots (build-rootfs.sh) and started by imgpatch-probe.service
# at every boot. Once the system has finished starting, it prints to the
# serial console, between the lines IMGPATCH-PROBE-BEGIN and
# IMGPATCH-PROBE-END, one "key=value" line for each fact of what the system
# became (a key repeats for a list), then powers the machine off, unless
# the kernel command line holds imgpatch.probe=stay.
#
# Keys (NAME a user, TYPE a host key's type as its file names it):
#   boot.id kernel.cmdline system.state failed failed.count
#   hostname hostname.file
#   user (each uid >= 1000 but nobody's) user.NAME.passwd user.NAME.groups
#   user.NAME.shadow user.NAME.home user.NAME.ssh_dir
#   user.NAME.authorized_keys (its stat) user.NAME.authorized_key (each line)
#   ipv4.addr ipv4.route dns.resolv nm.dns nm.connection
#   tz.localtime tz.timezone tz.abbrev keyboard locale
#   ssh.host_key ("TYPE BITS FINGERPRINT") ssh.host_key.TYPE (FINGERPRINT)
#   machine_id boots boots.count
#   path (stat -c '%n|%F|%a|%U|%G' of each path of /etc/imgpatch-probe.paths)
#   path.link ("PATH|TARGET" of those that are links)
#   unit.NAME (systemctl is-enabled of each unit of /etc/imgpatch-probe.units)
#   cloud_init.status cloud_init.long cloud_init.instance_id (where
#   cloud-init is)
# A stat line's fields are name|type|mode|owner|group; a missing path's
# line is "PATH|missing".

set -u
export LC_ALL=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

console=${IMGPATCH_PROBE_CONSOLE:-/dev/ttyS0}

# The system is up when systemd says so (running or degraded); the unit is
# ordered after cloud-init's last stage. Bounded, so that a stuck job still
# gives a report.
timeout 900 systemctl is-system-running --wait >/dev/null 2>&1

# kv KEY: one line "KEY=value" per line of stdin (none for empty input).
kv()
{
	local line

	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s=%s\n' "$1" "$line"
	done
}

# stat_of PATH: the stat line of PATH, or "PATH|missing".
stat_of()
{
	stat -c '%n|%F|%a|%U|%G' -- "$1" 2>/dev/null || echo "$1|missing"
}

report_users()
{
	local name uid home ssh

	while IFS=: read -r name _ uid _ _ home _; do
		[ "$uid" -ge 1000 ] 2>/dev/null && [ "$uid" -ne 65534 ] || continue
		ssh=$home/.ssh
		echo "user=$name"
		getent passwd "$name" | kv "user.$name.passwd"
		id -nG "$name" 2>&1 | kv "user.$name.groups"
		grep "^$name:" /etc/shadow | kv "user.$name.shadow"
		stat_of "$home" | kv "user.$name.home"
		stat_of "$ssh" | kv "user.$name.ssh_dir"
		stat_of "$ssh/authorized_keys" | kv "user.$name.authorized_keys"
		[ ! -f "$ssh/authorized_keys" ] ||
			kv "user.$name.authorized_key" <"$ssh/authorized_keys"
	done </etc/passwd
}

report_network()
{
	ip -4 -o addr show | kv ipv4.addr
	ip -4 route show | kv ipv4.route
	grep '^nameserver' /etc/resolv.conf 2>/dev/null | kv dns.resolv
	if command -v nmcli >/dev/null; then
		nmcli -t -f IP4.DNS device show 2>/dev/null | sed 's/^[^:]*://' |
			grep . | kv nm.dns
		nmcli -t -f NAME,DEVICE,TYPE connection show --active 2>/dev/null |
			kv nm.connection
	fi
}

report_locale()
{
	readlink /etc/localtime | kv tz.localtime
	[ ! -f /etc/timezone ] || kv tz.timezone </etc/timezone
	date +%Z | kv tz.abbrev
	[ ! -f /etc/default/keyboard ] ||
		grep -v -e '^#' -e '^[[:space:]]*$' /etc/default/keyboard | kv keyboard
	[ ! -f /etc/default/locale ] ||
		grep -v -e '^#' -e '^[[:space:]]*$' /etc/default/locale | kv locale
}

report_host_keys()
{
	local pub type fp

	for pub in /etc/ssh/ssh_host_*_key.pub; do
		[ -f "$pub" ] || continue
		type=${pub#/etc/ssh/ssh_host_}
		type=${type%_key.pub}
		# "BITS SHA256:... COMMENT (TYPE)"
		fp=$(ssh-keygen -lf "$pub" | awk '{ print $2 }')
		ssh-keygen -lf "$pub" | awk '{ print $NF, $1, $2 }' |
			tr -d '()' | kv ssh.host_key
		echo "ssh.host_key.$type=$fp"
	done
}

report_listed()
{
	local path unit

	if [ -f /etc/imgpatch-probe.paths ]; then
		while IFS= read -r path || [ -n "$path" ]; do
			[ -n "$path" ] || continue
			stat_of "$path" | kv path
			[ ! -L "$path" ] || echo "path.link=$path|$(readlink -- "$path")"
		done </etc/imgpatch-probe.paths
	fi
	if [ -f /etc/imgpatch-probe.units ]; then
		while IFS= read -r unit || [ -n "$unit" ]; do
			[ -n "$unit" ] || continue
			echo "unit.$unit=$(systemctl is-enabled -- "$unit" 2>&1 | head -n 1)"
		done </etc/imgpatch-probe.units
	fi
}

report()
{
	local failed

	echo "boot.id=$(cat /proc/sys/kernel/random/boot_id)"
	kv kernel.cmdline </proc/cmdline
	echo "system.state=$(systemctl is-system-running 2>&1)"
	failed=$(systemctl --failed --plain --no-legend 2>&1)
	[ -z "$failed" ] || kv failed <<<"$failed"
	echo "failed.count=$(grep -c . <<<"$failed")"
	echo "hostname=$(hostname)"
	kv hostname.file </etc/hostname
	report_users
	report_network
	report_locale
	report_host_keys
	echo "machine_id=$(cat /etc/machine-id)"
	if [ -f /var/lib/imgpatch-test/boots ]; then
		kv boots </var/lib/imgpatch-test/boots
		echo "boots.count=$(grep -c . /var/lib/imgpatch-test/boots)"
	else
		echo "boots.count=0"
	fi
	report_listed
	if command -v cloud-init >/dev/null; then
		echo "cloud_init.status=$(cloud-init status 2>&1 | sed -n 's/^status: //p')"
		cloud-init status --long 2>&1 | kv cloud_init.long
		[ ! -f /var/lib/cloud/data/instance-id ] ||
			kv cloud_init.instance_id </var/lib/cloud/data/instance-id
	fi
}

# The whole report is made first and written at once, so that the console's
# other writers (the kernel, a getty) interleave as little as possible.
text=$(report 2>&1)
printf '\nIMGPATCH-PROBE-BEGIN\n%s\nIMGPATCH-PROBE-END\n' "$text" >"$console"

case " $(cat /proc/cmdline) " in
*" imgpatch.probe=stay "*) ;;
*) systemctl --no-block poweroff ;;
esac
