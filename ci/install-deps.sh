#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Installs the Debian 12 packages that building imgpatch and running its
# tests need. Quick and silent when everything is there: apt is only asked
# when a package is missing. Needs root, or sudo.
#
#   ci/install-deps.sh                  everything `make check` needs
#   ci/install-deps.sh --demo           only what `make demo` needs
#   ci/install-deps.sh --list [--demo]  prints those packages, one a line
#   ci/install-deps.sh --package-of CMD...
#                                       prints, for each command a test may
#                                       need, the package of ours that brings
#                                       it, or "-" when none does
#
# tests/run.sh asks --package-of when a test skipped for a missing tool: in
# CI (CI=true) a tool installed here cannot be missing, so such a skip fails.

set -euo pipefail

# make demo: build imgpatch, make the KV260-like sample image, patch it and
# read it back.
demo_packages=(
	# build
	build-essential make pkg-config
	libfdt-dev libext2fs-dev comerr-dev libblkid-dev nettle-dev
	zlib1g-dev libarchive-dev libconfuse-dev liblzma-dev
	# run time (mtools is run as a program), the sample image and its checks
	mtools dosfstools e2fsprogs fdisk u-boot-tools device-tree-compiler xxd
)

# make check: the rest.
check_packages=(
	gcc clang util-linux valgrind coreutils diffutils gzip mawk bash dash
	# a real consumer: U-Boot for QEMU reads the patched image as a board would
	qemu-system-arm u-boot-qemu
	# compressed and archived images, and bmaptool to flash them
	xz-utils zstd bzip2 lz4 zip unzip p7zip-full tar bmap-tools binutils bsdutils
	sed grep findutils python3 patch
	# partition tables made by other tools (t0150)
	gdisk parted xorriso
	# libFuzzer for the fuzz smoke test
	libclang-rt-14-dev
	# make bench
	jq openssl time
	# recipe values read back by their consumers (t1020)
	openssh-client
	# man page, shell completion, JSON schemas, Debian package, CI examples
	scdoc man-db groff-base zsh bash-completion python3-jsonschema python3-yaml parallel
	debhelper dpkg-dev fakeroot lintian
)

# Commands the tests run whose package has another name (a command named
# like its package needs no line).
command_packages=(
	sfdisk:fdisk
	mkfs.vfat:dosfstools fsck.fat:dosfstools
	mdir:mtools mtype:mtools mcopy:mtools mdel:mtools mmd:mtools mshowfat:mtools mren:mtools
	mke2fs:e2fsprogs e2fsck:e2fsprogs debugfs:e2fsprogs dumpe2fs:e2fsprogs tune2fs:e2fsprogs
	mkimage:u-boot-tools dumpimage:u-boot-tools
	dtc:device-tree-compiler fdtget:device-tree-compiler
	fdtput:device-tree-compiler fdtoverlay:device-tree-compiler
	blkid:util-linux
	cmp:diffutils awk:mawk xargs:findutils
	od:coreutils timeout:coreutils sha1sum:coreutils install:coreutils env:coreutils
	sgdisk:gdisk ssh-keygen:openssh-client
	xz:xz-utils 7z:p7zip-full bmaptool:bmap-tools
	qemu-system-aarch64:qemu-system-arm
	man:man-db groff:groff-base
	dh:debhelper dpkg-buildpackage:dpkg-dev dpkg-deb:dpkg-dev
	dpkg-parsechangelog:dpkg-dev
)

packages=("${demo_packages[@]}" "${check_packages[@]}")
mode=install
case "${1:-}" in
--demo) packages=("${demo_packages[@]}"); shift ;;
--list) mode=list; shift
	if [ "${1:-}" = --demo ]; then
		packages=("${demo_packages[@]}")
		shift
	fi ;;
--package-of) mode=package-of; shift ;;
esac
if [ "$mode" != package-of ] && [ $# -gt 0 ]; then
	echo "usage: ci/install-deps.sh [--demo] | --list [--demo] | --package-of CMD..." >&2
	exit 2
fi

case $mode in
list)
	printf '%s\n' "${packages[@]}"
	exit 0 ;;
package-of)
	for cmd in "$@"; do
		pkg=-
		for pair in "${command_packages[@]}"; do
			if [ "${pair%%:*}" = "$cmd" ]; then
				pkg=${pair#*:}
				break
			fi
		done
		if [ "$pkg" = - ]; then
			for p in "${packages[@]}"; do
				if [ "$p" = "$cmd" ]; then
					pkg=$p
					break
				fi
			done
		fi
		echo "$pkg"
	done
	exit 0 ;;
esac

if ! command -v dpkg-query >/dev/null; then
	echo "install-deps: not a Debian system; install by hand: ${packages[*]}" >&2
	exit 1
fi

# One dpkg-query for all; it fails when it knows of some package nothing,
# which only means that package is missing.
have=" $( (dpkg-query -W -f='${Package}:${Status}\n' "${packages[@]}" 2>/dev/null || true) |
	sed -n 's/:install ok installed$//p' | tr '\n' ' ') "

missing=()
for pkg in "${packages[@]}"; do
	# Before bookworm xxd came in vim-common, not a package of its own.
	if [ "$pkg" = xxd ] && command -v xxd >/dev/null; then
		continue
	fi
	case "$have" in *" $pkg "*) ;; *) missing+=("$pkg") ;; esac
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all present"
	exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "install-deps: missing packages, and not root: ${missing[*]}" >&2
		echo "install-deps: run as root: apt-get install -y --no-install-recommends ${missing[*]}" >&2
		exit 1
	fi
	sudo=(sudo)
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive

if ! "${sudo[@]}" apt-get update -q >"$log" 2>&1; then
	cat "$log" >&2
	echo "install-deps: apt-get update failed" >&2
	exit 1
fi

for i in "${!missing[@]}"; do
	if [ "${missing[$i]}" = xxd ] && ! apt-cache show xxd >/dev/null 2>&1; then
		missing[i]=vim-common
	fi
done

if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" \
		>"$log" 2>&1 </dev/null; then
	cat "$log" >&2
	echo "install-deps: could not install: ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: installed ${missing[*]}"
