# SPDX-License-Identifier: MIT
#
# Test library for tests/tNNNN-*.sh, in the style of git's and sharness's:
#
#	test_description='what this script covers'
#	. "$(dirname "$0")/lib.sh"
#
#	test_expect_success 'fstab is rewritten' '
#		"$IMGPATCH" fstab kv260.img >out &&
#		test_cmp expect out
#	'
#	test_done
#
# Each body runs in its own subshell with `set -e`, so variables set in one
# test do not reach the next: keep state in files in the scratch directory.
# Write a body either as one `&&` chain or as one command per line: by
# bash's `set -e` rules, an `&&` chain that fails but is followed by more
# commands does not stop the body.
#
# Helpers begin with `local -; set +x` so that a failing test's trace shows
# the test's own commands rather than the helpers' insides.
#
# Options: -v/--verbose (or TEST_VERBOSE=1) shows the output of passing tests
# too; -i/--immediate stops at the first failure. The output of a body, with
# a trace of the commands it ran, is shown "#"-indented when it fails.
#
# Every script gets a fresh scratch directory tests/out/<script-name>/ (or
# $TEST_OUTPUT_DIR/<script-name>/) and runs in it; test_done removes it when
# nothing failed (TEST_KEEP=1 keeps it), since the images of a whole run
# would fill a disk of many gigabytes. Exported: TEST_DIR,
# FIXTURES, DTB_DIR, IMGPATCH_BUILD, IMGPATCH (the binary under test),
# TEST_OUT (the scratch directory).

set +e

TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$TEST_DIR")
FIXTURES=$TEST_DIR/fixtures
DTB_DIR=$TEST_DIR/dtb
IMGPATCH_BUILD=${IMGPATCH_BUILD:-$REPO_DIR/build}
# Tests run in their scratch directory: resolve relative paths first.
case "$IMGPATCH_BUILD" in /*) ;; *) IMGPATCH_BUILD=$PWD/$IMGPATCH_BUILD ;; esac
case "${IMGPATCH_PLAIN_BUILD:-/}" in
/*) ;;
*) IMGPATCH_PLAIN_BUILD=$PWD/$IMGPATCH_PLAIN_BUILD; export IMGPATCH_PLAIN_BUILD ;;
esac
IMGPATCH=$IMGPATCH_BUILD/imgpatch
export TEST_DIR REPO_DIR FIXTURES DTB_DIR IMGPATCH_BUILD IMGPATCH

# The same answers on every machine: no locale, no time zone, fixed clock.
export TZ=UTC LC_ALL=C LANG=C SOURCE_DATE_EPOCH=1700000000
unset LANGUAGE CDPATH GREP_OPTIONS POSIXLY_CORRECT
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
# The filesystem tools live in sbin, which a user's PATH on Debian lacks.
export PATH=$PATH:/usr/sbin:/sbin

# A sanitizer report becomes exit status 99, which test_must_fail and
# test_must_fail_with refuse as a crash rather than accept as a failure.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
TEST_CRASH_STATUS=99

TEST_VERBOSE=${TEST_VERBOSE:-0}
_tl_immediate=0
for _tl_arg in "$@"; do
	case "$_tl_arg" in
	-v|--verbose) TEST_VERBOSE=1 ;;
	-i|--immediate) _tl_immediate=1 ;;
	*) echo "$0: unknown option '$_tl_arg'" >&2; exit 2 ;;
	esac
done

TEST_NAME=$(basename "$0" .sh)
case "$TEST_NAME" in
''|.*|*/*) echo "$0: cannot derive a scratch directory name" >&2; exit 2 ;;
esac
TEST_OUTPUT_DIR=${TEST_OUTPUT_DIR:-$TEST_DIR/out}
case "$TEST_OUTPUT_DIR" in /*) ;; *) TEST_OUTPUT_DIR=$PWD/$TEST_OUTPUT_DIR ;; esac
TEST_OUT=$TEST_OUTPUT_DIR/$TEST_NAME
export TEST_NAME TEST_OUT
rm -rf "$TEST_OUT" && mkdir -p "$TEST_OUT" && cd "$TEST_OUT" ||
	{ echo "$0: cannot make scratch directory '$TEST_OUT'" >&2; exit 2; }
# Nothing from the user's home (e.g. ~/.mtoolsrc) may change a result. Only
# the user's cache of what the tests build once (tests/uboot/build-uboot.sh)
# stays where it is.
export IMGPATCH_CACHE=${IMGPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imgpatch}
export HOME=$TEST_OUT

_tl_count=0
_tl_failed=0
_tl_skipped=0
# Body output lives beside the scratch directory, so a test's `ls` never
# sees it.
_tl_log=$TEST_OUTPUT_DIR/.$TEST_NAME.body

test_description()
{
	test_description=$1
}

# Prints "# "-indented text read from stdin.
_tl_indent()
{
	sed -e 's/^/# /'
}

# A helper's complaint: into the running test's log when there is one, so
# it shows even when the caller redirected stderr to a file it compares.
_tl_complain()
{
	if [ -n "${_tl_in_body:-}" ]; then
		echo "$*" >&9
	else
		echo "$*" >&2
	fi
}

# test_expect_success NAME BODY
test_expect_success()
{
	local rc

	if [ $# -ne 2 ]; then
		echo "bug in $0: test_expect_success needs NAME and BODY" >&2
		exit 2
	fi
	_tl_count=$((_tl_count + 1))
	: >"$_tl_log"
	# BASH_XTRACEFD keeps the trace out of files the body redirects
	# stderr into.
	(
		exec 9>>"$_tl_log"
		_tl_in_body=1
		BASH_XTRACEFD=9
		set -e -x
		eval "$2"
	) >>"$_tl_log" 2>&1 </dev/null
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok $_tl_count - $1"
		[ "$TEST_VERBOSE" != 1 ] || _tl_indent <"$_tl_log"
	else
		_tl_failed=$((_tl_failed + 1))
		echo "not ok $_tl_count - $1"
		_tl_indent <"$_tl_log"
		echo "# (body exited with status $rc)"
		if [ $_tl_immediate = 1 ]; then
			test_done
		fi
	fi
	rm -f "$_tl_log"
	return 0
}

# test_skip NAME REASON
test_skip()
{
	_tl_count=$((_tl_count + 1))
	_tl_skipped=$((_tl_skipped + 1))
	echo "ok $_tl_count - $1 # SKIP $2"
}

# test_skip_tool NAME TOOL...: skips NAME because TOOLs (commands, or Debian
# packages where no command tells) are missing. The skip reads
# "# SKIP missing tool: TOOL...", which tests/run.sh reads: with CI=true, a
# tool that ci/install-deps.sh installs cannot be missing, and the skip fails.
test_skip_tool()
{
	test_skip "$1" "missing tool: ${*:2}"
}

# test_fail NAME REASON: a check that failed without a body to run.
test_fail()
{
	_tl_count=$((_tl_count + 1))
	_tl_failed=$((_tl_failed + 1))
	echo "not ok $_tl_count - $1"
	echo "# $2"
}

# test_done: prints the plan ("1..N", which tests/run.sh checks against the
# checks that ran) and a summary, and ends the script: status 1 when a check
# failed.
test_done()
{
	local passed=$((_tl_count - _tl_failed - _tl_skipped)) extra=

	[ $_tl_skipped -eq 0 ] || extra=", skipped $_tl_skipped"
	echo "1..$_tl_count"
	echo "# passed $passed, failed $_tl_failed$extra"
	[ $_tl_failed -eq 0 ] || exit 1
	if [ "${TEST_KEEP:-0}" != 1 ]; then
		cd "$TEST_OUTPUT_DIR" && rm -rf "$TEST_OUT"
	fi
	exit 0
}

# Describes an exit status that no expected failure may have.
_tl_bad_status()
{
	local rc=$1

	if [ "$rc" -eq "$TEST_CRASH_STATUS" ]; then
		echo "sanitizer or valgrind error (exit $rc)"
	elif [ "$rc" -gt 128 ]; then
		echo "killed by signal $((rc - 128))"
	elif [ "$rc" -eq 126 ] || [ "$rc" -eq 127 ]; then
		echo "could not run (exit $rc)"
	fi
}

# test_must_fail CMD...: succeeds when CMD exits non-zero on its own terms;
# a signal, a sanitizer report or a command that cannot run is a failure.
test_must_fail()
{
	local -; set +x
	local rc bad

	"$@" && rc=0 || rc=$?
	if [ $rc -eq 0 ]; then
		_tl_complain "test_must_fail: command succeeded: $*"
		return 1
	fi
	bad=$(_tl_bad_status $rc)
	if [ -n "$bad" ]; then
		_tl_complain "test_must_fail: $bad: $*"
		return 1
	fi
	return 0
}

# test_must_fail_with STATUS CMD...: succeeds only when CMD exits with
# exactly STATUS.
test_must_fail_with()
{
	local -; set +x
	local want=$1 rc bad

	shift
	"$@" && rc=0 || rc=$?
	[ $rc -ne "$want" ] || return 0
	bad=$(_tl_bad_status $rc)
	_tl_complain "test_must_fail_with: want exit $want, got $rc${bad:+ ($bad)}: $*"
	return 1
}

# refused_intact IMG STATUS PATTERN CMD...: CMD exits STATUS with one line
# on stderr matching PATTERN (grep -x), and IMG is byte for byte what it
# was (cmp against a copy made before).
refused_intact()
{
	local img=$1 status=$2 pattern=$3

	shift 3
	cp "$img" before.img &&
	test_must_fail_with "$status" "$@" >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -x -- "$pattern" err &&
	cmp before.img "$img"
}

# A run that a test build kills on purpose (IMGPATCH_TEST_CRASH_AFTER_WRITES:
# raise(SIGKILL), which no sanitizer can catch) ends with this status.
TEST_KILLED_STATUS=$((128 + 9))

# test_crash_walk CMD...: runs "CMD 1", "CMD 2", ..., where "CMD N" is a
# run that a test build kills right after its Nth write, until one
# finishes (exit 0); prints how many were killed (0: the build has no crash
# hook). Fails, naming N and how it ended, when a run ends any other way: a
# sanitizer report, another signal, an error exit, or more than 500 writes.
test_crash_walk()
{
	local -; set +x
	local n=1 rc bad

	while [ $n -le 500 ]; do
		"$@" $n && rc=0 || rc=$?
		if [ $rc -eq 0 ]; then
			echo $((n - 1))
			return 0
		fi
		if [ $rc -ne "$TEST_KILLED_STATUS" ]; then
			bad=$(_tl_bad_status $rc)
			_tl_complain "test_crash_walk: to be killed after write $n, it ended with ${bad:-exit $rc} instead: $* $n"
			return 1
		fi
		n=$((n + 1))
	done
	_tl_complain "test_crash_walk: still writing after 500 writes: $*"
	return 1
}

# test_cmp EXPECTED ACTUAL
test_cmp()
{
	local -; set +x
	diff -u "$1" "$2"
}

# sum_file FILE: prints FILE's SHA-256, to prove later that it is unchanged.
sum_file()
{
	local -; set +x
	local sum

	sum=$(sha256sum <"$1") || return 1
	echo "${sum%% *}"
}

# test_file_unchanged FILE SUM: succeeds when FILE still has SHA-256 SUM.
test_file_unchanged()
{
	local -; set +x
	local now

	now=$(sum_file "$1") || return 1
	if [ "$now" != "$2" ]; then
		_tl_complain "test_file_unchanged: '$1' changed ($2 -> $now)"
		return 1
	fi
}

# test_refuses IMAGE PATTERN CMD...: CMD exits 1 with a message matching
# PATTERN (grep) on stderr, which is shown, and IMAGE is byte-identical.
# test_refuses_usage: the same for a mistake in what was typed (a
# parameter value a recipe refuses, a missing one): exit status 2.
test_refuses()
{
	_tl_refuses 1 "$@"
}

test_refuses_usage()
{
	_tl_refuses 2 "$@"
}

_tl_refuses()
{
	local status=$1 img=$2 pattern=$3 sum
	shift 3
	sum=$(sum_file "$img") &&
	test_must_fail_with "$status" "$@" >out 2>err &&
	cat err &&
	grep -q -- "$pattern" err &&
	test_file_unchanged "$img" "$sum"
}

# test_require_tools TOOL...: when a tool is missing, skips the rest of the
# script (test_skip_tool) and ends it. ci/install-deps.sh installs them all:
# tests/run.sh with CI=true counts such a skip as a failure.
test_require_tools()
{
	local tool missing=()

	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
	done
	[ ${#missing[@]} -ne 0 ] || return 0
	test_skip_tool "required tools present" "${missing[@]}"
	echo "# run ci/install-deps.sh"
	test_done
}

# test_require_imgpatch: stops the script, failed, when the binary under
# test is not built.
test_require_imgpatch()
{
	[ -x "$IMGPATCH" ] && return 0
	test_fail "imgpatch binary present" \
		"'$IMGPATCH' not found (build it, or set IMGPATCH_BUILD)"
	test_done
}

# imgpatch ARGS...: runs the binary under test; TEST_VALGRIND=1 runs the
# unsanitized build (IMGPATCH_PLAIN_BUILD) under valgrind instead, with
# valgrind errors turned into the crash status.
imgpatch()
{
	if [ "${TEST_VALGRIND:-0}" = 1 ]; then
		valgrind -q --error-exitcode="$TEST_CRASH_STATUS" \
			--leak-check=full --errors-for-leak-kinds=definite \
			"${IMGPATCH_PLAIN_BUILD:-$IMGPATCH_BUILD}/imgpatch" "$@"
	else
		"$IMGPATCH" "$@"
	fi
}

# ------------------------------------------------------------ image helpers

# make_kv260 OUT [OPTIONS]: builds a KV260-like image, see
# tests/fixtures/mkimage-kv260.sh for the options.
make_kv260()
{
	"$FIXTURES/mkimage-kv260.sh" "$@"
}

# _tl_part_bytes IMG N FIELD: prints partition N's FIELD (start or size) in
# bytes, as sfdisk reports it; fails when there is no partition N. (%.0f
# because mawk prints numbers past 2^31 in exponent form.)
_tl_part_bytes()
{
	local -; set +x
	sfdisk -J "$1" | awk -v n="$2" -v field="$3" '
		function value(line) {
			sub(/^[^:]*: *"?/, "", line)
			sub(/"?,? *$/, "", line)
			return line
		}
		/"device":/ { dev = value($0) }
		/"sectorsize":/ { ss = value($0) }
		/"node":/ {
			num = substr(value($0), length(dev) + 1)
			sub(/^p/, "", num)
			cur = (num == n)
		}
		cur && $0 ~ "\"" field "\":" {
			printf "%.0f\n", value($0) * ss
			found = 1
			exit
		}
		END { if (!found) exit 1 }'
}

# part_offset IMG N: prints the byte offset of partition N.
part_offset()
{
	local -; set +x
	_tl_part_bytes "$1" "$2" start
}

# part_size IMG N: prints the size of partition N in bytes.
part_size()
{
	local -; set +x
	_tl_part_bytes "$1" "$2" size
}

# part_mtools IMG N: prints the mtools "-i" target for partition N.
part_mtools()
{
	local -; set +x
	local off

	off=$(part_offset "$1" "$2") || return 1
	echo "$1@@$off"
}

# extract_part IMG N OUT: copies partition N of IMG into the file OUT.
extract_part()
{
	local -; set +x
	local off size

	off=$(part_offset "$1" "$2") && size=$(part_size "$1" "$2") || return 1
	dd if="$1" of="$3" bs=1M iflag=skip_bytes,count_bytes \
		skip="$off" count="$size" status=none
}

# put_part IMG N FILE: writes FILE over the start of partition N of IMG (the
# reverse of extract_part); fails when FILE is larger than the partition.
put_part()
{
	local -; set +x
	local off size len

	off=$(part_offset "$1" "$2") && size=$(part_size "$1" "$2") &&
		len=$(stat -c %s "$3") || return 1
	if [ "$len" -gt "$size" ]; then
		_tl_complain "put_part: '$3' ($len bytes) does not fit partition $2 ($size bytes)"
		return 1
	fi
	dd if="$3" of="$1" bs=1M oflag=seek_bytes seek="$off" conv=notrunc \
		status=none
}

# root_put IMG LOCAL PATH: LOCAL written as PATH on IMG's ext4 p1 (debugfs),
# checked with e2fsck.
root_put()
{
	local -; set +x

	extract_part "$1" 1 "$1.p1" &&
		debugfs -w -R "rm $3" "$1.p1" >/dev/null 2>&1
	debugfs -w -R "write $2 $3" "$1.p1" >/dev/null 2>&1 &&
		e2fsck -fn "$1.p1" >/dev/null 2>&1 && put_part "$1" 1 "$1.p1" && rm -f "$1.p1"
}

# kv260_patched IMG: the KV260 recipes' result, read back with independent
# tools: user-override.dtb without no-1-8-v (mtype, fdtget), / mounted with
# noatime (debugfs), both filesystems clean (e2fsck, fsck.fat).
kv260_patched()
{
	mtype -i "$(part_mtools "$1" 1)" ::/user-override.dtb >ovr.dtb &&
	fdtget -p ovr.dtb /axi/mmc@ff170000 >props &&
	grep -qx disable-wp props && ! grep -qx no-1-8-v props &&
	extract_part "$1" 2 root.ext4 &&
	debugfs -R "cat /etc/fstab" root.ext4 2>/dev/null >fstab &&
	grep -q "^LABEL=writable	/	ext4	errors=remount-ro,noatime	0 1$" fstab &&
	e2fsck -fn root.ext4 >/dev/null 2>&1 &&
	extract_part "$1" 1 boot.fat && fsck.fat -n boot.fat >/dev/null
}

# with_symbols IMG START_SECTOR DIR: the image's pinephone tree in DIR
# replaced by the same board's tree built with symbols (dtc -@), as
# Armbian and Debian build theirs, so that the overlays the fixture lists
# (which aim at labels) apply.
with_symbols()
{
	extract_part "$1" 1 sym.ext4 &&
	debugfs -w -f - sym.ext4 >/dev/null 2>&1 <<-EOF &&
	cd $3
	rm sun50i-a64-pinephone-1.2.dtb
	write $DTB_DIR/u-boot-sunxi-pinephone.dtb sun50i-a64-pinephone-1.2.dtb
	EOF
	e2fsck -fn sym.ext4 >/dev/null 2>&1 &&
	dd if=sym.ext4 of="$1" bs=512 seek="$2" conv=notrunc status=none
}

# run_chrooted LOG ROOT BOOT CMD...: runs CMD with the directory ROOT, an
# image's root unpacked (debugfs rdump), as /: in a private mount
# namespace the system's programs and libraries (and /dev) are bound into
# ROOT and CMD runs chrooted there, reading and writing ROOT's files. With
# BOOT (not empty), a boot partition unpacked, / and /boot are two
# filesystems as on an image with a /boot partition: BOOT is copied into a
# tmpfs mounted at ROOT/boot, and what is there afterwards back into BOOT.
# Needs root (unshare, chroot, mount); CMD's messages in LOG.
run_chrooted()
{
	local -; set +x
	local log=$1 multiarch dirs

	shift
	multiarch=$(gcc -print-multiarch 2>/dev/null) || multiarch=
	dirs=(/dev /usr/bin /usr/sbin /usr/share/perl5 /usr/share/perl /usr/lib64
	      ${multiarch:+/usr/lib/$multiarch})
	unshare -m --propagation private bash -ec '
		root=$1 boot=$2 n=$3; shift 3
		if [ -n "$boot" ]; then
			mount -t tmpfs boot "$root/boot"
			cp -a "$boot/." "$root/boot/"
		fi
		for d in "${@:1:$n}"; do
			[ -d "$d" ] || continue
			mkdir -p "$root$d"
			mount --bind "$d" "$root$d"
		done
		shift "$n"
		for l in bin sbin lib lib64; do
			[ -e "$root/$l" ] || [ -L "$root/$l" ] || ln -s "usr/$l" "$root/$l"
		done
		mkdir -p "$root/tmp"
		chroot "$root" "$@"
		if [ -n "$boot" ]; then
			rm -rf "$boot" && mkdir "$boot" && cp -a "$root/boot/." "$boot/"
		fi
	' run_chrooted "$1" "$2" ${#dirs[@]} "${dirs[@]}" "${@:3}" >"$log" 2>&1
}

# uboot_update ROOT [BOOT]: runs Debian's u-boot-update (u-boot-menu)
# chrooted in ROOT (run_chrooted), so it reads ROOT's /etc/default/u-boot,
# /etc/fstab, os-release and kernels and writes ROOT/boot/extlinux/
# extlinux.conf (BOOT/extlinux/extlinux.conf with BOOT); its messages in
# uboot-update.log.
uboot_update()
{
	run_chrooted uboot-update.log "$1" "${2:-}" /usr/sbin/u-boot-update
}

# flash_kernel ROOT VERSION [BOOT]: runs Debian's flash-kernel, installed in ROOT
# (its package unpacked there), chrooted in ROOT as its kernel hook runs it
# when kernel VERSION is installed (/etc/kernel/postinst.d/zz-flash-kernel:
# FK_KERNEL_HOOK_SCRIPT=postinst.d, "flash-kernel VERSION"), with BOOT (a
# /boot partition unpacked) mounted at /boot as run_chrooted mounts it. The host's
# /usr/sbin, bound over ROOT's, hides ROOT's /usr/sbin/flash-kernel, so
# what that file does is done here: source /usr/share/flash-kernel/
# functions and call main. Its messages in flash-kernel.log.
flash_kernel()
{
	run_chrooted flash-kernel.log "$1" "${3:-}" /usr/bin/env LC_ALL=C FK_KERNEL_HOOK_SCRIPT=postinst.d \
		/bin/sh -ec 'FK_DIR=/usr/share/flash-kernel; . "$FK_DIR/functions"; main "$@"' \
		flash-kernel "$2"
}

# unpack_part IMG N DIR: the ext filesystem of partition N of IMG, unpacked
# into the new folder DIR by debugfs rdump.
unpack_part()
{
	local -; set +x

	extract_part "$1" "$2" unpack.ext4 && rm -rf "$3" && mkdir -p "$3" &&
		debugfs -R "rdump / $3" unpack.ext4 >/dev/null 2>&1 && rm -f unpack.ext4
}

# unpack_root IMG N DIR: as unpack_part, for a root (DIR/etc must be there).
unpack_root()
{
	unpack_part "$@" && [ -d "$3/etc" ]
}

# ------------------------------------------------ Debian's U-Boot builds

# The .deb files ci/install-deps.sh downloads (Debian's U-Boot for boards:
# built for arm64 or armhf, so downloaded, not installed).
DEB_CACHE=${IMGPATCH_DEB_CACHE:-/var/cache/imgpatch/debs}

# test_require_debs PKG...: unpacks each PKG's cached .deb into deb/PKG/
# of the scratch directory; when one is missing, skips the rest of the
# script as a missing tool (ci/install-deps.sh downloads them).
test_require_debs()
{
	local pkg deb missing=()

	for pkg in "$@"; do
		deb=$(compgen -G "$DEB_CACHE/${pkg}_*.deb" | head -n 1) || deb=
		if [ -z "$deb" ]; then
			missing+=("$pkg")
			continue
		fi
		mkdir -p "deb/$pkg" && dpkg-deb -x "$deb" "deb/$pkg" ||
			{ test_fail "unpack $pkg" "dpkg-deb -x $deb failed"; test_done; }
	done
	[ ${#missing[@]} -ne 0 ] || return 0
	test_skip_tool "Debian's U-Boot packages present" "${missing[@]}"
	echo "# run ci/install-deps.sh"
	test_done
}

# ------------------------------------------- the Debian 12 root fixture

# test_require_debian_root: the packages fixtures/mkimage-debian-root.sh
# copies from this machine, and the .deb files of the others
# (ci/install-deps.sh installs and downloads them all); when one is
# missing, skips the rest of the script as a missing tool.
test_require_debian_root()
{
	local pkg host_pkgs deb_pkgs missing=()

	host_pkgs=(base-passwd login passwd adduser bash libpam-runtime base-files
		tzdata locales xkb-data systemd systemd-timesyncd cloud-init)
	deb_pkgs=(openssh-server sudo network-manager ifupdown keyboard-configuration)
	for pkg in "${host_pkgs[@]}"; do
		[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null)" = "ii " ] ||
			missing+=("$pkg")
	done
	for pkg in "${deb_pkgs[@]}"; do
		compgen -G "$DEB_CACHE/${pkg}_*.deb" >/dev/null || missing+=("$pkg")
	done
	[ ${#missing[@]} -ne 0 ] || return 0
	test_skip_tool "the fixture's Debian packages present" "${missing[@]}"
	echo "# run ci/install-deps.sh"
	test_done
}

# stat_is FS PATH MODE UID GID: debugfs shows PATH with octal MODE (type
# bits included) and owners UID:GID.
stat_is()
{
	local -; set +x
	local got

	got=$(debugfs -R "stat $2" "$1" 2>/dev/null |
		sed -n 's/^Inode: .*Mode: *\([0-7]*\).*/\1/p; s/^User: *\([0-9]*\) *Group: *\([0-9]*\).*/\1 \2/p' |
		tr '\n' ' ')
	[ "$got" = "$3 $4 $5 " ] ||
		{ echo "stat_is: $2: mode and owners '$got', want '$3 $4 $5 '" >&2; return 1; }
}

# paused_run POINT ARGS...: imgpatch ARGS in the background (pid in $pid,
# output in run.out and run.err, SIGINT and SIGQUIT not ignored as they are
# for background jobs), stopped at the test build's pause point POINT; waits until it is
# there. PAUSED_SETSID=1 starts it in a process group of its own, as a
# terminal starts a command.
paused_run()
{
	local point=$1 i setsid=()

	shift
	[ "${PAUSED_SETSID:-0}" = 1 ] && setsid=(setsid)
	rm -f pause
	IMGPATCH_TEST_PAUSE=$point:$PWD/pause "${setsid[@]}" env --default-signal=INT,QUIT \
		"$IMGPATCH" "$@" >run.out 2>run.err &
	pid=$!
	for i in $(seq 1 600); do
		test ! -e pause || return 0
		kill -0 $pid 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# finish: lets the paused run go on and waits for it; its status in $status.
finish()
{
	rm -f pause
	status=0
	wait $pid || status=$?
}
