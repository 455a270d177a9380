# SPDX-License-Identifier: MIT
#
# Sourced by the tests that run U-Boot under QEMU (t0600 on) after lib.sh:
# finds the emulator and the firmware, runs one session, reads back what
# each command printed, or boots a card as a board does and compares the
# tree booti hands the kernel.

# The firmware is U-Boot for QEMU's "virt" machine as Debian builds it, from
# Debian's own source package, with overlays and SDHCI on PCI
# (build-uboot.sh, cached; tests/uboot/README): UBOOT_BIN names another.
# Without QEMU or a tool that build needs, every check is skipped, which
# tests/run.sh counts as a failure under CI=true.
export QEMU_AARCH64=${QEMU_AARCH64:-qemu-system-aarch64}
CONSOLE=$TEST_DIR/uboot/uboot-console.sh

# uboot_missing TOOL...: sets $missing to the missing tool (a command, or the
# package of a file), else finds or builds U-Boot (UBOOT_BIN; a failed build
# fails the script) and checks imgpatch and TOOL... as every test does.
uboot_missing()
{
	local out rc

	missing=
	if ! command -v "$QEMU_AARCH64" >/dev/null 2>&1; then
		missing=$QEMU_AARCH64
		return
	fi
	if [ -z "${UBOOT_BIN:-}" ]; then
		echo "# U-Boot: $TEST_DIR/uboot/build-uboot.sh (cold: about 2 minutes)"
		out=$("$TEST_DIR/uboot/build-uboot.sh" 2>build-uboot.err)
		rc=$?
		case $rc in
		0) export UBOOT_BIN=$out ;;
		3) missing=${out#missing: }; return ;;
		*) sed 's/^/# /' build-uboot.err
		   test_fail "U-Boot built from Debian's source package" \
			"build-uboot.sh failed (status $rc)"
		   test_done ;;
		esac
	fi
	if [ ! -r "$UBOOT_BIN" ]; then
		test_fail "U-Boot present" "UBOOT_BIN '$UBOOT_BIN' not readable"
		test_done
	fi
	test_require_imgpatch
	test_require_tools "$@"
}

# check NAME BODY: a test, or a skipped one when QEMU or U-Boot is missing.
check()
{
	if [ -n "$missing" ]; then
		test_skip_tool "$1" "$missing"
	else
		test_expect_success "$1" "$2"
	fi
}

# boot_uboot KIND CMDS DISK...: one U-Boot session with the DISKs attached
# (virtio 0, 1, ...) running every command of CMDS; outputs in KIND/, the
# whole console in KIND.console, shown when the session fails.
boot_uboot()
{
	local -; set +x
	local kind=$1 cmds=$2 start=$SECONDS
	shift 2

	if "$CONSOLE" "$kind.console" "$kind" "$@" <"$cmds"; then
		echo "U-Boot session $kind: $((SECONDS - start))s"
		return 0
	fi
	echo "--- console of the U-Boot session $kind:"
	tr -d '\r' <"$kind.console"
	echo
	return 1
}

# uboot_ok KIND NAME: shows what command NAME printed; fails unless it
# succeeded.
uboot_ok()
{
	local -; set +x
	local out=$1/$2.out rc

	if [ ! -f "$out" ]; then
		echo "no output for '$2': the U-Boot session did not get that far"
		return 1
	fi
	rc=$(cat "$1/$2.rc")
	echo "--- U-Boot '$2' (status $rc):"
	cat "$out"
	test "$rc" = 0
}

# crc32_of FILE: the CRC-32 U-Boot's crc32 prints, from gzip's trailer
# (stored little-endian).
crc32_of()
{
	local -; set +x
	gzip -c <"$1" | tail -c 8 | od -An -tx1 -N4 |
		awk '{ print $4 $3 $2 $1 }'
}

# ------------------------------------------------------- trees compared
#
# For the tests that compare the tree U-Boot ends with (t0620 to t0640) with
# the one imgpatch reports.

# dtb_dts DTB OUT: the tree as dtc writes it as DTS, without /memreserve/
# lines (fdt print does not show them): two trees give the same text when
# their nodes and properties are the same bytes in the same order.
dtb_dts()
{
	local -; set +x
	dtc -q -I dtb -O dts "$1" | grep -v '^/memreserve/' >"$2"
}

# uboot_tree_dts PRINT OUT: the tree U-Boot's "fdt print /" printed (the
# file PRINT), as dtb_dts writes it. fdt print writes DTS without its
# header, each value as strings, cells or bytes, so dtc reads back the
# same bytes.
uboot_tree_dts()
{
	local -; set +x
	{ echo '/dts-v1/;'; cat "$1"; } | dtc -q -I dts -O dtb -o "$2.dtb" - &&
		dtb_dts "$2.dtb" "$2"
}

# uboot_has_fdt_apply HELP: whether "help fdt" (its output in the file
# HELP) lists "fdt apply", which needs CONFIG_OF_LIBFDT_OVERLAY (Debian
# 12's qemu_arm64 build has not).
uboot_has_fdt_apply()
{
	grep -q "^fdt apply" "$1"
}

# boot_path_files JSON: the first tree imgpatch's "info --json" (the file
# JSON) names for the boot path, then its overlays in order, one a line,
# each as "PART:PATH" for imgpatch cat.
boot_path_files()
{
	python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["boot_path"]
t = b["trees"][0]
print("\n".join("%d:%s" % (b["partition"], f) for f in [t["path"]] + t["overlays"]))' "$1"
}

# effective_tree IMG OUT: the tree imgpatch says the board boots ("cat
# IMG --dtb", DTS after a comment line), as dtb_dts writes it, and as a
# blob in OUT.dtb.
effective_tree()
{
	local -; set +x

	imgpatch cat "$1" --dtb >"$2.dts" &&
	dtc -q -I dts -O dtb -o "$2.dtb" "$2.dts" &&
	dtb_dts "$2.dtb" "$2"
}

# symbols_dtb_dir DIR: a DTB_DIR for the fixtures whose PinePhone tree has
# __symbols__ (U-Boot's build of it), as the distributions that apply
# overlays build theirs with -@; tests/dtb's kernel tree has none.
symbols_dtb_dir()
{
	mkdir -p "$1" &&
	cp "$DTB_DIR"/*.dtb "$1/" &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" "$1/sun50i-a64-pinephone-1.2.dtb"
}

# ------------------------------------------------- the tree booti receives
#
# For the tests that boot the card as a board does (t0650 on): U-Boot's own
# bootcmd runs the image's extlinux.conf or boot script unchanged, and the
# stand-in kernel (booti-dump.s) writes the tree booti hands it to the host.

BOOT=$TEST_DIR/uboot/uboot-boot.sh

# booti_kernel OUT: the stand-in arm64 Image, assembled from booti-dump.s.
booti_kernel()
{
	local -; set +x

	aarch64-linux-gnu-as -o "$1.o" "$TEST_DIR/uboot/booti-dump.s" &&
	aarch64-linux-gnu-ld -Ttext=0 -e _start -o "$1.elf" "$1.o" &&
	aarch64-linux-gnu-objcopy -O binary "$1.elf" "$1" &&
	test "$(od -An -c -j 56 -N 4 "$1" | tr -d ' ')" = 'ARMd'
}

# board_env OUT NAME=VALUE...: the environment of an A64 board as the
# second flash bank holds it: the firmware's own default environment
# (u-boot-initial-env, built next to UBOOT_BIN), then what the board's
# build adds, then the NAME=VALUEs (a later line replaces an earlier
# one). What 64-bit sunxi adds (U-Boot 2023.01,
# include/configs/sunxi-common.h): its load addresses, and "mmc 0" first
# among the boot targets (config_distro_bootcmd.h's BOOTENV_DEV_MMC).
# A board's MMC controller is there from power-on, and probed by
# initr_mmc() (common/board_r.c); QEMU's is on PCI, which this build
# scans after initr_mmc() and then on demand (its scsi_boot and
# virtio_boot run "pci enum" first). preboot does both before bootcmd:
# "pci enum" binds the controller, "mmc list" probes it as initr_mmc()
# would have. bootdelay=0 only saves the countdown.
board_env()
{
	local -; set +x
	local out=$1 initial

	shift
	initial=$(dirname "$UBOOT_BIN")/u-boot-initial-env
	if [ ! -s "$initial" ]; then
		echo "no $initial: UBOOT_BIN must come with its default environment"
		return 1
	fi
	{
		cat "$initial"
		cat <<-\ENV
		kernel_addr_r=0x40080000
		fdt_addr_r=0x4fa00000
		scriptaddr=0x4fc00000
		pxefile_addr_r=0x4fd00000
		fdtoverlay_addr_r=0x4fe00000
		ramdisk_addr_r=0x4ff00000
		fdtfile=allwinner/sun50i-a64-pinephone-1.2.dtb
		boot_targets=mmc0
		bootcmd_mmc0=devnum=0; run mmc_boot
		preboot=pci enum; mmc list
		bootdelay=0
		ENV
		printf '%s\n' "$@"
	} | awk '{ name = $0; sub(/=.*/, "", name)
		   if (!(name in val)) order[n++] = name
		   val[name] = $0 }
		 END { for (i = 0; i < n; i++) print val[order[i]] }' >"$out"
}

# booti_boot KIND ENV CARD: boots CARD with the environment ENV until the
# stand-in kernel writes KIND/booti.dtb; the console is in KIND.console,
# shown when no kernel started.
booti_boot()
{
	local -; set +x
	local start=$SECONDS

	if "$BOOT" "$1.console" "$1" "$2" "$3"; then
		echo "U-Boot boot $1: $((SECONDS - start))s"
		return 0
	fi
	echo "--- console of the U-Boot boot $1:"
	tr -d '\r' <"$1.console"
	echo
	return 1
}

# booti_dts DTB OUT: the tree DTB as "dtc -I dtb -O dts -s" writes it, less
# only what booti writes into the tree it hands over (U-Boot 2023.01,
# boot/image-fdt.c image_setup_libfdt() and common/fdt_support.c):
#   /chosen bootargs             fdt_chosen(), from ${bootargs}
#   /chosen u-boot,version       fdt_chosen(), always
#   /chosen rng-seed, kaslr-seed fdt_chosen() and the RNG fixups, when a
#                                board has a seed (none here; listed so a
#                                build that adds one is not taken for a
#                                difference)
#   /chosen u-boot,bootconf      bootm of a FIT: the configuration's name
#   /chosen linux,initrd-start, linux,initrd-end, and the /memreserve/ of
#                                that range: fdt_initrd()
#   /chosen itself when nothing else is left in it: fdt_chosen() creates it
#   /memory, /memory@*           arch_fixup_fdt() writes the RAM banks
# The same is removed from both trees compared, so a tree that had these
# before is compared without them too.
booti_dts()
{
	local -; set +x
	local t=$2.work.dtb start=0 end=0 c prop node

	cp "$1" "$t" || return 1
	if fdtget "$t" /chosen linux,initrd-start >/dev/null 2>&1; then
		for c in $(fdtget -t x "$t" /chosen linux,initrd-start); do
			start=$(((start << 32) + 0x$c))
		done
		for c in $(fdtget -t x "$t" /chosen linux,initrd-end); do
			end=$(((end << 32) + 0x$c))
		done
	fi
	for prop in bootargs u-boot,version rng-seed kaslr-seed u-boot,bootconf \
			linux,initrd-start linux,initrd-end; do
		if fdtget "$t" /chosen "$prop" >/dev/null 2>&1; then
			fdtput -d "$t" /chosen "$prop" || return 1
		fi
	done
	for node in $(fdtget -l "$t" / 2>/dev/null); do
		case "$node" in
		memory|memory@*) fdtput -r "$t" "/$node" || return 1 ;;
		esac
	done
	if fdtget -l "$t" / 2>/dev/null | grep -qx chosen &&
		[ -z "$(fdtget -p "$t" /chosen)" ] && [ -z "$(fdtget -l "$t" /chosen)" ]; then
		fdtput -r "$t" /chosen || return 1
	fi
	dtc -q -s -I dtb -O dts "$t" | {
		if [ "$end" -gt "$start" ]; then
			grep -vx "/memreserve/[[:space:]]*$(printf '0x%016x 0x%016x' \
				"$start" $((end - start)));"
		else
			cat
		fi
	} >"$2"
}

# booti_matches KIND DTS: the tree booti handed the stand-in kernel
# (KIND/booti.dtb) is the one in DTS (what "imgpatch cat IMG --dtb"
# printed), both as booti_dts writes them.
booti_matches()
{
	local -; set +x

	dtc -q -I dts -O dtb -o "$1.imgpatch.dtb" "$2" &&
	booti_dts "$1.imgpatch.dtb" "$1.expected.dts" &&
	booti_dts "$1/booti.dtb" "$1.booti.dts" &&
	test_cmp "$1.expected.dts" "$1.booti.dts"
}

# ------------------------------------------- GRUB and a real kernel (t0676 on)
#
# For the tests whose card boots Debian's GRUB and Debian's arm64 kernel
# through U-Boot's EFI boot (uboot-boot.sh with UBOOT_UNTIL): the packages
# come from ci/install-deps.sh's download cache (DEB_CACHE, lib.sh).

# GRUB's monolithic image as test_require_debs unpacks grub-efi-arm64-bin:
# what Debian signs, unsigned; its built-in prefix is /EFI/debian.
GRUB_EFI=deb/grub-efi-arm64-bin/usr/lib/grub/arm64-efi/monolithic/grubaa64.efi

# kernel_deb: the cached .deb of the kernel the metapackage
# linux-image-arm64 depends on (its name holds the kernel's ABI).
kernel_deb()
{
	local -; set +x
	local meta dep deb

	meta=$(compgen -G "$DEB_CACHE/linux-image-arm64_*_arm64.deb" | head -n 1) &&
	[ -n "$meta" ] &&
	dep=$(dpkg-deb -f "$meta" Depends | sed 's/[ ,].*//') &&
	deb=$(compgen -G "$DEB_CACHE/${dep}_*_arm64.deb" | head -n 1) &&
	[ -n "$deb" ] &&
	echo "$deb"
}

# require_grub_kernel: unpacks grub-efi-arm64-bin (test_require_debs);
# skips the rest of the script, as a missing tool, when it or the kernel
# is not in the cache. Nothing to do when $missing already skips.
require_grub_kernel()
{
	[ -z "$missing" ] || return 0
	test_require_debs grub-efi-arm64-bin linux-image-arm64
	kernel_deb >/dev/null && return 0
	test_skip_tool "Debian's arm64 kernel present" linux-image-arm64
	echo "# run ci/install-deps.sh"
	test_done
}

# kernel_image OUT: the kernel_deb's /boot/vmlinuz-* as OUT; its package
# and version on stdout.
kernel_image()
{
	local -; set +x
	local deb

	deb=$(kernel_deb) &&
	mkdir -p kernel &&
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C kernel --wildcards './boot/vmlinuz-*' &&
	cp kernel/boot/vmlinuz-* "$1" &&
	dpkg-deb -f "$deb" Package Version
}

# kernel_said KIND WHAT: the text after "WHAT: " of the kernel's console
# line (in KIND.console) that starts so; there must be exactly one.
kernel_said()
{
	local -; set +x

	tr -d '\r' <"$1.console" |
		sed -n "s/^\[ *[0-9.]*\] $2: //p" >"$1.$2" &&
	test "$(wc -l <"$1.$2")" = 1 &&
	cat "$1.$2"
}
