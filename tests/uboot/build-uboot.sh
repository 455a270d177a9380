#!/bin/bash
# SPDX-License-Identifier: MIT
#
# build-uboot.sh: prints the path of a U-Boot for QEMU's arm64 "virt"
# machine that applies device-tree overlays, building it first when the
# cache does not hold it.
#
# Debian 12's u-boot-qemu cannot apply overlays (no CONFIG_OF_LIBFDT_OVERLAY,
# so neither "fdt apply" nor extlinux's fdtoverlays) and has no MMC, so the
# distributions' scripts, which name "mmc 0", cannot run on it unchanged.
# This script builds the same U-Boot from Debian's own source package, of
# exactly the installed u-boot-qemu version ("apt-get source", the only
# download: it needs a deb-src entry, which ci/install-deps.sh adds), with
# qemu_arm64_defconfig plus the fragment below, into
#
#   ${IMGPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgpatch}/u-boot-VERSION-overlay/
#
# (u-boot.bin; u-boot-initial-env, its default environment, which a test
# extends into the environment of a board; the .config it was built with;
# the build's log). A warm
# cache costs one stat; a cold build takes about 2 minutes on 2 cores
# (tests/uboot/README). Concurrent callers wait for one build (flock).
#
# Exits 0 with the path on stdout; 1 when the build failed (the end of its
# log on stderr); 3 when a tool the build needs is missing: stdout then
# names it ("missing: TOOL...", commands a test reports with
# test_skip_tool).
#
# Environment:
#   UBOOT_SOURCE_VERSION  the source version to build (default: the
#                         installed u-boot-qemu's)
#   UBOOT_BUILD_JOBS      make -j (default: the number of CPUs)

set -u

prog=${0##*/}
cross=aarch64-linux-gnu-

# What the tests need beyond qemu_arm64_defconfig. QEMU's
# "-device sdhci-pci" is an SDHCI controller of PCI class 0x0805, which
# drivers/mmc/pci_mmc.c binds by class: with it the card is "mmc 0", as
# on the boards whose scripts name it.
fragment='CONFIG_OF_LIBFDT_OVERLAY=y
CONFIG_MMC=y
CONFIG_DM_MMC=y
CONFIG_CMD_MMC=y
CONFIG_MMC_SDHCI=y
CONFIG_MMC_PCI=y'

# The commands the build runs; each is in a package ci/install-deps.sh
# installs.
tools=(apt-get dpkg-source dpkg-query make gcc bison flex bc flock
	"${cross}gcc" "${cross}ld" "${cross}objcopy")

missing=()
for t in "${tools[@]}"; do
	command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
if [ ${#missing[@]} -ne 0 ]; then
	echo "missing: ${missing[*]}"
	exit 3
fi

version=${UBOOT_SOURCE_VERSION:-$(dpkg-query -W -f='${Version}' u-boot-qemu 2>/dev/null)}
if [ -z "$version" ]; then
	echo "missing: u-boot-qemu"
	exit 3
fi

cache_root=${IMGPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgpatch}
dest=$cache_root/u-boot-$version-overlay
if [ -s "$dest/u-boot.bin" ] && [ -s "$dest/u-boot-initial-env" ]; then
	echo "$dest/u-boot.bin"
	exit 0
fi

mkdir -p "$cache_root" || exit 1
exec 9>"$cache_root/u-boot-$version-overlay.lock" || exit 1
flock 9 || exit 1
# Another caller may have built it while this one waited.
if [ -s "$dest/u-boot.bin" ] && [ -s "$dest/u-boot-initial-env" ]; then
	echo "$dest/u-boot.bin"
	exit 0
fi

work=$(mktemp -d "$cache_root/u-boot-build.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP
log=$work/build.log
start=$SECONDS

fail()
{
	echo "$prog: $*" >&2
	echo "$prog: last lines of the build log:" >&2
	tail -n 25 "$log" | awk '{ print "  | " $0 }' >&2
	exit 1
}

build()
{
	local src jobs

	cd "$work" || return 1
	# --only-source: the source package named u-boot, not the one that
	# builds a binary package of that name.
	apt-get source -q --only-source "u-boot=$version" || return 1
	src=$(find . -mindepth 1 -maxdepth 1 -type d -name 'u-boot-*' | head -n 1)
	[ -n "$src" ] || { echo "no source tree unpacked"; return 1; }
	jobs=${UBOOT_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}
	# The source package's own tree, its patches applied; everything is
	# built out of tree, in out/.
	make -C "$src" O="$work/out" CROSS_COMPILE="$cross" qemu_arm64_defconfig ||
		return 1
	printf '%s\n' "$fragment" >>"$work/out/.config"
	make -C "$src" O="$work/out" CROSS_COMPILE="$cross" olddefconfig || return 1
	# olddefconfig drops what a dependency refuses: check it kept all.
	while IFS= read -r line; do
		grep -qx "$line" "$work/out/.config" ||
			{ echo "the configuration lost '$line'"; return 1; }
	done <<<"$fragment"
	make -C "$src" O="$work/out" CROSS_COMPILE="$cross" -j"$jobs" \
		u-boot.bin u-boot-initial-env
}

# Debian's source ships reproducible settings in its rules; these two make
# the binary the same from run to run.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0} LC_ALL=C
build >"$log" 2>&1 || fail "building U-Boot $version failed"

mkdir -p "$work/result" || exit 1
cp "$work/out/u-boot.bin" "$work/out/u-boot-initial-env" "$work/out/.config" \
	"$log" "$work/result/" || exit 1
echo "built in $((SECONDS - start))s" >>"$work/result/build.log"
rm -rf "$dest"
mv "$work/result" "$dest" || exit 1
echo "$dest/u-boot.bin"
