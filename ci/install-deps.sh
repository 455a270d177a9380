#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Installs the Debian 12 packages that building imgpatch and running its
# tests need. Quick and silent when everything is there: apt is only asked
# when a package is missing. Needs root, or sudo. For make check it also
# adds deb-src lines (/etc/apt/sources.list.d/imgpatch-deb-src.list), from
# which tests/uboot/build-uboot.sh fetches U-Boot's source.
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
	zlib1g-dev libarchive-dev libconfuse-dev liblzma-dev libcrypt-dev
	# run time (mtools is run as a program), the sample image and its checks
	mtools dosfstools e2fsprogs fdisk u-boot-tools device-tree-compiler xxd
)

# make check: the rest.
check_packages=(
	gcc clang util-linux valgrind coreutils diffutils gzip mawk bash dash
	# a real consumer: U-Boot for QEMU reads the patched image as a board would
	qemu-system-arm u-boot-qemu
	# the same U-Boot built from Debian's source with overlays
	# (tests/uboot/build-uboot.sh; the deb-src entry is added below) and the
	# stand-in kernel it boots (tests/uboot/booti-dump.s)
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu bison flex bc libssl-dev
	# compressed and archived images, and bmaptool to flash them
	xz-utils zstd bzip2 lz4 zip unzip p7zip-full tar bmap-tools binutils bsdutils
	sed grep findutils python3 patch
	# partition tables made by other tools (t0150)
	gdisk parted xorriso
	# libFuzzer for the fuzz smoke test
	libclang-rt-14-dev
	# make bench
	jq openssl time
	# the order of syncs and renames (t0570)
	strace
	# recipe values read back by their consumers (t1020)
	openssh-client
	# cloud-init's own schema check of the user-data recipes write (t1042)
	cloud-init
	# customize's network files read by their consumers (test-custom-net):
	# NetworkManager's keyfile reader (nmcli --offline), netplan generate,
	# ifupdown's ifquery, wpa_passphrase
	network-manager netplan.io ifupdown wpasupplicant
	# first boots (tests/firstboot/, t069x): a Debian 12 userspace made with
	# mmdebstrap from Debian's mirror, unpacked into an ext4 without root
	# (fakeroot), booted under QEMU (TCG) with its kernel given directly;
	# ssh-keyscan (openssh-client) reads the host keys through the forward
	qemu-system-x86 mmdebstrap
	# the processes of an interrupted run (t0575)
	procps
	# the Debian 12 root of mkimage-debian-root.sh (t0020), copied from the
	# installed packages
	base-passwd login passwd adduser libpam-runtime base-files tzdata locales
	xkb-data systemd systemd-timesyncd
	# roots imgpatch names but cannot write, made and read back (t0460, t0461)
	btrfs-progs xfsprogs f2fs-tools squashfs-tools
	# an encrypted root, made offline and read back (t0462)
	cryptsetup-bin
	# Debian's generator of extlinux.conf, run on a patched root (t0232); it
	# brings linux-base (linux-version)
	u-boot-menu
	# systemd's Boot Loader Specification parser, bootctl (t0680), and
	# GRUB's grub-script-check for an edited grub.cfg (t0261)
	systemd-boot grub-common
	# systemctl --root and systemd-analyze verify, the judges of the unit
	# links and the first-boot unit customize writes (test-custom-*)
	systemd
	# man page, shell completion, JSON schemas, Debian package, CI examples
	scdoc man-db groff-base zsh bash-completion python3-jsonschema python3-yaml parallel
	debhelper dpkg-dev fakeroot lintian
)

# Debian's U-Boot builds for boards, which the tests write before an
# image's first partition as each board's documentation says (t0250):
# built for arm64 or armhf only, so they are downloaded, never installed,
# into $deb_cache (IMGPATCH_DEB_CACHE) for the tests to unpack.
# GRUB for arm64 and Debian's arm64 kernel, which U-Boot's EFI boot starts
# in t0676: downloaded the same way. linux-image-arm64 is a metapackage:
# the kernel it depends on (its name holds the ABI, which changes with
# each update) is downloaded with it.
# The packages of mkimage-debian-root.sh's root (t0020) that this machine
# need not install (the OpenSSH server, the network systems, sudo, the
# keyboard configuration): downloaded the same way.
deb_downloads=(u-boot-rockchip:arm64 u-boot-sunxi:arm64 u-boot-imx:armhf flash-kernel:arm64
	grub-efi-arm64-bin:arm64 linux-image-arm64:arm64
	openssh-server:amd64 sudo:amd64 network-manager:amd64 ifupdown:amd64
	keyboard-configuration:all)
deb_with_depends=(linux-image-arm64)
deb_cache=${IMGPATCH_DEB_CACHE:-/var/cache/imgpatch/debs}

# Commands the tests run whose package has another name (a command named
# like its package needs no line).
command_packages=(
	sfdisk:fdisk
	mkfs.vfat:dosfstools fsck.fat:dosfstools
	mdir:mtools mtype:mtools mcopy:mtools mdel:mtools mmd:mtools mshowfat:mtools mren:mtools
	mke2fs:e2fsprogs e2fsck:e2fsprogs debugfs:e2fsprogs dumpe2fs:e2fsprogs tune2fs:e2fsprogs
	mkimage:u-boot-tools dumpimage:u-boot-tools mkenvimage:u-boot-tools
	dtc:device-tree-compiler fdtget:device-tree-compiler
	fdtput:device-tree-compiler fdtoverlay:device-tree-compiler
	blkid:util-linux setsid:util-linux unshare:util-linux ps:procps
	u-boot-update:u-boot-menu linux-version:u-boot-menu chroot:coreutils
	cmp:diffutils awk:mawk xargs:findutils
	dd:coreutils du:coreutils script:bsdutils strings:binutils nm:binutils objdump:binutils
	od:coreutils timeout:coreutils sha1sum:coreutils install:coreutils env:coreutils
	sgdisk:gdisk ssh-keygen:openssh-client ssh:openssh-client ssh-keyscan:openssh-client pwck:passwd grpck:passwd
	mkfs.btrfs:btrfs-progs btrfs:btrfs-progs mkfs.xfs:xfsprogs xfs_db:xfsprogs
	mkfs.f2fs:f2fs-tools sload.f2fs:f2fs-tools dump.f2fs:f2fs-tools fsck.f2fs:f2fs-tools
	mksquashfs:squashfs-tools unsquashfs:squashfs-tools mkswap:util-linux
	cryptsetup:cryptsetup-bin
	bootctl:systemd-boot grub-script-check:grub-common
	systemctl:systemd systemd-analyze:systemd
	xz:xz-utils 7z:p7zip-full bmaptool:bmap-tools
	qemu-system-aarch64:qemu-system-arm
	qemu-system-x86_64:qemu-system-x86 ssh-keyscan:openssh-client
	aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu
	aarch64-linux-gnu-as:binutils-aarch64-linux-gnu
	aarch64-linux-gnu-ld:binutils-aarch64-linux-gnu
	aarch64-linux-gnu-objcopy:binutils-aarch64-linux-gnu
	dpkg-source:dpkg-dev dpkg-query:dpkg apt-get:apt flock:util-linux
	man:man-db groff:groff-base
	nmcli:network-manager netplan:netplan.io ifquery:ifupdown wpa_passphrase:wpasupplicant
	dh:debhelper dpkg-buildpackage:dpkg-dev dpkg-deb:dpkg-dev
	dpkg-parsechangelog:dpkg-dev
)

packages=("${demo_packages[@]}" "${check_packages[@]}")
mode=install
demo=0
case "${1:-}" in
--demo) packages=("${demo_packages[@]}"); demo=1; shift ;;
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
	[ ${#packages[@]} -eq ${#demo_packages[@]} ] || printf '%s\n' "${deb_downloads[@]}"
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
		for d in "${deb_downloads[@]}"; do
			[ "${d%%:*}" != "$cmd" ] || pkg=${d%%:*}
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

# tests/uboot/build-uboot.sh fetches the source of the installed
# u-boot-qemu with "apt-get source": that needs a deb-src line for each
# Debian archive the system installs from. The lines go into a file of
# ours, made from the system's own deb lines (one-line and deb822 files).
src_list=/etc/apt/sources.list.d/imgpatch-deb-src.list
need_src=0
uboot_version=$(dpkg-query -W -f='${Version}' u-boot-qemu 2>/dev/null || true)
if [ "$mode" = install ] && [ "$demo" = 0 ] && { [ -z "$uboot_version" ] ||
	! apt-cache showsrc u-boot 2>/dev/null | grep -x "Version: $uboot_version" >/dev/null; }; then
	need_src=1
fi

# deb_src_lines: the system's "deb" entries for Debian's archives as
# one-line "deb-src" entries.
deb_src_lines()
{
	local f

	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		[ "$f" != "$src_list" ] || continue
		sed -n 's/^[[:space:]]*deb\([[:space:]].*debian\.org.*\)$/deb-src\1/p' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# Per stanza: Types, URIs, Suites, Components, Signed-By.
		awk 'function flush() {
			if (types ~ /(^| )deb( |$)/ && uris ~ /debian\.org/ && uris != "")
				for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
					print "deb-src" (key == "" ? "" : " [signed-by=" key "]"), u[i], s[j], comps
			types = uris = comps = key = ""; nu = ns = 0 }
		     /^[[:space:]]*$/ { flush(); next }
		     /^#/ { next }
		     { v = $0; sub(/^[^:]*:[[:space:]]*/, "", v) }
		     tolower($1) == "types:" { types = v }
		     tolower($1) == "uris:" { uris = v; nu = split(v, u, /[[:space:]]+/) }
		     tolower($1) == "suites:" { ns = split(v, s, /[[:space:]]+/) }
		     tolower($1) == "components:" { comps = v }
		     tolower($1) == "signed-by:" { key = v }
		     END { flush() }' "$f"
	done
}

want_debs=()
if [ ${#packages[@]} -ne ${#demo_packages[@]} ]; then
	for d in "${deb_downloads[@]}"; do
		compgen -G "$deb_cache/${d%%:*}_*_${d#*:}.deb" >/dev/null || want_debs+=("$d")
	done
fi

if [ ${#missing[@]} -eq 0 ] && [ ${#want_debs[@]} -eq 0 ] && [ "$need_src" = 0 ]; then
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

if [ "$need_src" = 1 ]; then
	lines=$(deb_src_lines | sort -u)
	if [ -z "$lines" ]; then
		echo "install-deps: no Debian archive in the apt sources to add deb-src lines for" >&2
		exit 1
	fi
	printf '%s\n' "$lines" | "${sudo[@]}" tee "$src_list" >/dev/null
fi

# apt knows a foreign architecture's packages only once dpkg has it (an
# "all" package needs none).
for d in "${want_debs[@]}"; do
	arch=${d#*:}
	[ "$arch" != all ] || continue
	if ! dpkg --print-foreign-architectures | grep -qx "$arch" &&
	   [ "$(dpkg --print-architecture)" != "$arch" ]; then
		"${sudo[@]}" dpkg --add-architecture "$arch"
	fi
done

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

if [ "$need_src" = 1 ]; then
	echo "install-deps: added $src_list"
fi
if [ ${#missing[@]} -ne 0 ]; then
	if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" \
			>"$log" 2>&1 </dev/null; then
		cat "$log" >&2
		echo "install-deps: could not install: ${missing[*]}" >&2
		exit 1
	fi
	echo "install-deps: installed ${missing[*]}"
fi

if [ ${#want_debs[@]} -ne 0 ]; then
	"${sudo[@]}" mkdir -p "$deb_cache"
	# (apt warns that it downloads unsandboxed when run as root: harmless.)
	# deb_depends: the packages the downloaded metapackages of
	# deb_with_depends depend on, as PKG:ARCH.
	deb_depends()
	{
		local d m deb

		for d in "${want_debs[@]}"; do
			for m in "${deb_with_depends[@]}"; do
				[ "${d%%:*}" = "$m" ] || continue
				deb=$(compgen -G "$deb_cache/${m}_*_${d#*:}.deb" | head -n 1) || return 1
				dpkg-deb -f "$deb" Depends | tr ',' '\n' |
					sed -n "s/^ *\([^ ]*\).*/\1:${d#*:}/p"
			done
		done
	}
	if ! (cd "$deb_cache" && "${sudo[@]}" apt-get download -q "${want_debs[@]}" &&
			deps=$(deb_depends) &&
			{ [ -z "$deps" ] || xargs "${sudo[@]}" apt-get download -q <<<"$deps"; }) \
			>"$log" 2>&1 </dev/null; then
		cat "$log" >&2
		echo "install-deps: could not download: ${want_debs[*]}" >&2
		exit 1
	fi
	echo "install-deps: downloaded ${want_debs[*]} into $deb_cache"
fi
