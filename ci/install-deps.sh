#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Installs the Debian 12 packages that building imgpatch and running its
# tests need. Quick and silent when everything is there: apt is only asked
# when a package is missing. Needs root, or sudo.

set -euo pipefail

packages=(
	# build
	build-essential gcc clang make pkg-config
	libfdt-dev libext2fs-dev comerr-dev libblkid-dev nettle-dev
	zlib1g-dev libarchive-dev libconfuse-dev liblzma-dev
	# run time (mtools is run as a program) and tests
	mtools dosfstools e2fsprogs fdisk util-linux u-boot-tools
	device-tree-compiler valgrind xxd coreutils diffutils gzip mawk
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
	# man page, shell completion, JSON schemas, Debian package, CI examples
	scdoc man-db groff-base zsh bash-completion python3-jsonschema python3-yaml parallel
	debhelper dpkg-dev fakeroot lintian
)

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
