#!/bin/bash
# SPDX-License-Identifier: MIT
#
# build-rootfs.sh VARIANT [OUT.tar]: a Debian 12 (bookworm) amd64 userspace
# for the first-boot suites, as a tarball, VARIANT being
#
#   cloud-init  cloud-init reads a NoCloud seed from the FAT partition
#               labelled system-boot, mounted at /boot/firmware, as on
#               Ubuntu's preinstalled server images; no SSH host keys and an
#               empty /etc/machine-id, so that the first boot makes them.
#   plain       no cloud-init; SSH host keys and a machine-id baked in, as
#               on a card copied from a running one.
#
# Both have the probe (probe.sh, imgpatch-probe.service) that reports at
# the end of each boot what the system became, and no root password.
#
# It is built in two steps, each cached in
# ${IMGPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgpatch}/firstboot/:
#
#   base-VARIANT-HASH.tar  mmdebstrap's output (the packages below, from
#                          Debian's mirror, the only download), keyed by
#                          the package list and mmdebstrap's options;
#   VARIANT-HASH.tar       the base with the layer of layer.sh on top,
#                          keyed by the base and the files of this folder.
#
# A warm cache costs a hash; a cold one takes minutes (see
# tests/firstboot/README.md). Concurrent callers wait for one build
# (flock); results appear by rename only, whole. A build removes the
# variant's tarballs that no caller has used for a day: the cache is shared
# by checkouts of different versions of this folder.
#
# Exits 0 with the cached tarball's path on stdout (OUT.tar, when given,
# is then that tarball: a hard link where it can be); 1 when the build
# failed (the end of its log on stderr); 3 when a tool is missing or
# Debian's mirror cannot be reached: stdout then says which ("missing:
# TOOL..." or "offline: ..."), for a test to report as a skip.

set -u

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage()
{
	echo "usage: $prog cloud-init|plain [OUT.tar]" >&2
	exit 2
}

[ $# -eq 1 ] || [ $# -eq 2 ] || usage
variant=$1
out=${2:-}
case "$variant" in cloud-init|plain) ;; *) usage ;; esac

mirror=${IMGPATCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm

# What both variants have: the system (systemd, udev, the kernel and its
# initramfs, fsck for the root), the settings imgpatch customize makes
# (host name, users and sudo, NetworkManager, time zone, locale, keyboard)
# with the programs that read them back, and python3 for the checks.
packages=(systemd-sysv udev dbus kmod linux-image-amd64 initramfs-tools
	e2fsprogs openssh-server sudo network-manager iproute2 netbase tzdata
	locales console-setup keyboard-configuration python3 procps)
[ "$variant" = plain ] || packages+=(cloud-init)

# Documentation is of no use to a machine that lives for one test.
mmdebstrap_opts=(--variant=apt --components=main --architectures=amd64
	--dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-exclude=/usr/share/man/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright')

. "$here/common.sh"
need_tools mmdebstrap tar flock sha256sum python3

# hash_of WORD...: a short hash of its arguments.
hash_of()
{
	printf '%s\n' "$@" | sha256sum | cut -c1-16
}

cache=${IMGPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgpatch}/firstboot
base_key=$(hash_of "$suite" "$mirror" "${packages[*]}" "${mmdebstrap_opts[*]}")
base=$cache/base-$variant-$base_key.tar
layer_files=("$here/build-rootfs.sh" "$here/common.sh" "$here/layer.sh" "$here/probe.sh"
	"$here"/seed/*)
layer_key=$(hash_of "$base_key" "$(cat "${layer_files[@]}" | sha256sum)")
result=$cache/$variant-$layer_key.tar

# deliver: prints the cached result's path; OUT.tar is that result.
deliver()
{
	touch "$result"
	if [ -n "$out" ]; then
		rm -f "$out" &&
		{ ln "$result" "$out" 2>/dev/null || cp "$result" "$out"; } || exit 1
	fi
	echo "$result"
}

if [ -s "$result" ]; then
	deliver
	exit
fi

mkdir -p "$cache" || exit 1
exec 9>"$cache/$variant.lock" || exit 1
flock 9 || exit 1
# Another caller may have built it while this one waited.
if [ -s "$result" ]; then
	deliver
	exit
fi

work=$(mktemp -d "$cache/build.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP
log=$work/build.log
start=$SECONDS

# prune PREFIX KEEP: removes the cached tarballs PREFIX*.tar but KEEP
# that have not been used for a day.
prune()
{
	local f

	for f in "$1"*.tar; do
		[ "$f" = "$2" ] || [ -z "$(find "$f" -mmin +1440)" ] || rm -f "$f"
	done
}

fail()
{
	echo "$prog: $*" >&2
	echo "$prog: last lines of $log:" >&2
	tail -n 25 "$log" | awk '{ print "  | " $0 }' >&2
	exit 1
}

if [ ! -s "$base" ]; then
	# The mirror is the only network the build needs; when it cannot be
	# reached, say so rather than fail.
	if ! timeout 30 python3 -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/dists/" + sys.argv[2] + "/Release", timeout=20).read(1)' \
		"$mirror" "$suite" >/dev/null 2>&1; then
		echo "offline: $mirror cannot be reached"
		exit 3
	fi
	# Root uses mmdebstrap's root mode, a user its unshare mode (which
	# needs subordinate ids, /etc/subuid).
	mmdebstrap "${mmdebstrap_opts[@]}" \
		--include="$(IFS=,; echo "${packages[*]}")" \
		"$suite" "$work/base.tar" "$mirror" >"$log" 2>&1 ||
		fail "mmdebstrap of the $variant base failed"
	mv "$work/base.tar" "$base" || exit 1
	prune "$cache/base-$variant-" "$base"
	echo "$prog: base of $variant built in $((SECONDS - start))s" >&2
fi

# The layer is file work only (no chroot): as root or under fakeroot the
# files keep their owners.
layer_start=$SECONDS
"${as_root[@]}" bash "$here/layer.sh" "$variant" "$base" "$work/root" \
	"$work/result.tar" >>"$log" 2>&1 ||
	fail "the $variant layer failed"
mv "$work/result.tar" "$result" || exit 1
prune "$cache/$variant-" "$result"
echo "$prog: layer of $variant made in $((SECONDS - layer_start))s" >&2
deliver
