#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Debian package: dpkg-buildpackage builds it, lintian finds no error, it installs and works from /usr'
. "$(dirname "$0")/lib.sh"

# A whole package build (every source compiled again): about a minute.

if ! command -v dpkg-buildpackage >/dev/null 2>&1; then
	test_skip_tool 'Debian package' dpkg-buildpackage
	test_done
fi
test_require_tools dpkg-deb dpkg-parsechangelog dh lintian \
	fdtget mtype mkimage mkfs.vfat dtc debugfs sfdisk

PKG=$TEST_OUT/pkg
SRC=$PKG/src

# The package is purged on the way out if this script installed it, also
# when a check in between failed or -i stopped the script early.
purge_on_exit()
{
	[ -e "$TEST_OUT/installed-by-test" ] || return 0
	dpkg --purge imgpatch >"$TEST_OUT/purge-on-exit.log" 2>&1 ||
		{ echo "# dpkg --purge imgpatch failed:"; _tl_indent <"$TEST_OUT/purge-on-exit.log"; }
	rm -f "$TEST_OUT/installed-by-test"
}
trap purge_on_exit EXIT

test_expect_success 'copy the source tree (tracked and untracked, not ignored)' '
	mkdir -p "$SRC" &&
	if git -C "$REPO_DIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$REPO_DIR" ls-files -co --exclude-standard -z >listed
	else
		(cd "$REPO_DIR" && find . \( -path ./.git -o -path ./build -o -path "./build-*" \
			-o -path ./tests/out -o -path ./tests/bench/cache \) -prune \
			-o \( -type f -o -type l \) -print0) >listed
	fi &&
	# Files deleted from the work tree but still in the index are not copied.
	while IFS= read -r -d "" f; do
		if [ -e "$REPO_DIR/$f" ] || [ -L "$REPO_DIR/$f" ]; then
			printf "%s\0" "$f"
		fi
	done <listed >present &&
	tar -C "$REPO_DIR" --null -T present -cf - | tar -C "$SRC" -xf - &&
	test -x "$SRC/debian/rules" && test -f "$SRC/Makefile"
'

# The package's upstream version, as imgpatch --version prints it.
test_expect_success 'dpkg-buildpackage -us -uc -b builds the .deb' '
	v=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version) &&
	arch=$(dpkg --print-architecture) &&
	echo "$PKG/imgpatch_${v#*:}_$arch.deb" >deb.path &&
	echo "$v" | sed -e "s/^[0-9]*://" -e "s/-[^-]*\$//" >upstream.version &&
	# The changelog dates the build, as on a build daemon.
	if ! (cd "$SRC" && env -u SOURCE_DATE_EPOCH DEB_BUILD_OPTIONS="parallel=$(nproc)" \
			dpkg-buildpackage -us -uc -b) >build.log 2>&1; then
		tail -n 60 build.log
		echo "(whole log: $TEST_OUT/build.log)"
		false
	fi &&
	test -f "$(cat deb.path)" &&
	ls "$PKG"/imgpatch_*.changes
'

test_expect_success 'the .deb holds the binary, the recipes, the manual, nothing outside /usr' '
	dpkg-deb -c "$(cat deb.path)" | awk "{ print \$6 }" >contents &&
	grep -x "./usr/bin/imgpatch" contents &&
	grep -x "./usr/share/doc/imgpatch/copyright" contents &&
	for r in "$SRC"/recipes/*.recipe; do
		grep -x "./usr/share/imgpatch/recipes/${r##*/}" contents || return 1
	done &&
	for o in "$SRC"/recipes/overlays/*.dts; do
		[ -e "$o" ] || continue
		o=${o##*/}
		grep -x "./usr/share/imgpatch/recipes/overlays/${o%.dts}.dtbo" contents || return 1
	done &&
	if [ -e "$SRC/tool/man/imgpatch.1.scd" ]; then
		grep -x "./usr/share/man/man1/imgpatch.1.gz" contents
	fi &&
	if [ -e "$SRC/tool/completion/imgpatch.bash" ]; then
		grep -x "./usr/share/bash-completion/completions/imgpatch" contents
	fi &&
	{ grep -v -x -e "./" -e "./usr/.*" contents >outside || true; } &&
	test_cmp /dev/null outside
'

test_expect_success 'control: version from the changelog, Depends on mtools and the libraries' '
	deb=$(cat deb.path) &&
	dpkg-deb -f "$deb" Version >version &&
	dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version >expect &&
	test_cmp expect version &&
	dpkg-deb -f "$deb" Depends | tr -d " " | tr , "\n" | sed -e "s/(.*//" >depends &&
	cat depends &&
	for p in mtools libfdt1 libext2fs2 libblkid1 libconfuse2 libarchive13; do
		grep -x "$p" depends || return 1
	done
'

test_expect_success 'lintian reports no errors' '
	rc=0
	lintian --fail-on error "$PKG"/imgpatch_*.changes >lintian.out 2>&1 || rc=$?
	cat lintian.out
	test $rc -eq 0
	! grep "^E: " lintian.out
'

# Installing touches this machine's /usr: only as root, and only when no
# imgpatch is there already (from a package or a `make install`).
reduced=
if [ "$(id -u)" -ne 0 ]; then
	reduced="not root"
else
	status=$(dpkg-query -W -f='${db:Status-Status}' imgpatch 2>/dev/null)
	case "$status" in
	''|not-installed) ;;
	*) reduced="a package imgpatch is already on this machine ($status)" ;;
	esac
	if [ -z "$reduced" ] && { [ -e /usr/bin/imgpatch ] || [ -e /usr/share/imgpatch ]; }; then
		reduced="/usr/bin/imgpatch or /usr/share/imgpatch exists, not from this package"
	fi
fi

if [ -z "$reduced" ]; then
	ROOT=
	# Installed: the binary must find its recipes in /usr/share by itself.
	RECIPE_ARGS=
	test_expect_success 'dpkg -i installs the package' '
		: >"$TEST_OUT/installed-by-test" &&
		dpkg -i "$(cat deb.path)" &&
		test "$(dpkg-query -W -f="\${db:Status-Status}" imgpatch)" = installed &&
		test -x /usr/bin/imgpatch
	'
else
	ROOT=$TEST_OUT/root
	RECIPE_ARGS="--recipe-path $ROOT/usr/share/imgpatch/recipes"
	test_skip 'dpkg -i installs the package' \
		"$reduced: checked the tree dpkg -x unpacks instead, recipes given with --recipe-path"
	test_expect_success 'dpkg -x unpacks the package' '
		dpkg -x "$(cat deb.path)" "$ROOT" &&
		test -x "$ROOT/usr/bin/imgpatch"
	'
fi
export ROOT RECIPE_ARGS

test_expect_success 'imgpatch --version prints the package version; recipes dir is /usr/share' '
	echo "imgpatch $(cat upstream.version)" >expect &&
	"$ROOT/usr/bin/imgpatch" --version >out &&
	test_cmp expect out &&
	grep -a -q "/usr/share/imgpatch/recipes" "$ROOT/usr/bin/imgpatch" &&
	! grep -a -q "/usr/local/share/imgpatch" "$ROOT/usr/bin/imgpatch"
'

test_expect_success 'imgpatch recipes lists the recipes shipped in /usr/share/imgpatch/recipes' '
	for r in "$ROOT"/usr/share/imgpatch/recipes/*.recipe; do
		r=${r##*/}
		echo "${r%.recipe}"
	done | sort >expect &&
	test -s expect &&
	env -u IMGPATCH_RECIPE_PATH "$ROOT/usr/bin/imgpatch" recipes $RECIPE_ARGS >list &&
	awk "{ print \$1 }" list | sort >got &&
	test_cmp expect got
'

test_expect_success 'apply kv260-uhs with the installed recipe: no no-1-8-v in user-override.dtb' '
	make_kv260 kv.img &&
	fdtget -p "$DTB_DIR/smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb" /axi/mmc@ff170000 >before &&
	grep -x no-1-8-v before &&
	test_must_fail mtype -i "$(part_mtools kv.img 1)" ::/user-override.dtb &&
	env -u IMGPATCH_RECIPE_PATH "$ROOT/usr/bin/imgpatch" apply kv260-uhs kv.img \
		--set carrier=revB $RECIPE_ARGS &&
	mtype -i "$(part_mtools kv.img 1)" ::/user-override.dtb >ovr.dtb &&
	fdtget -p ovr.dtb /axi/mmc@ff170000 >after &&
	grep -x compatible after &&
	! grep -x no-1-8-v after &&
	extract_part kv.img 2 root.ext4 &&
	debugfs -R "cat /etc/fstab" root.ext4 2>/dev/null >fstab &&
	grep "^LABEL=writable	/	ext4	errors=remount-ro,noatime	0 1\$" fstab
'

if [ -z "$reduced" ]; then
	test_expect_success 'dpkg --purge removes everything it installed' '
		dpkg --purge imgpatch &&
		rm -f "$TEST_OUT/installed-by-test" &&
		test ! -e /usr/bin/imgpatch &&
		test ! -e /usr/share/imgpatch &&
		test ! -e /usr/share/doc/imgpatch &&
		status=$(dpkg-query -W -f="\${db:Status-Status}" imgpatch 2>/dev/null || true) &&
		case "$status" in ""|not-installed) ;; *) false ;; esac
	'
else
	test_skip 'dpkg --purge removes everything it installed' "$reduced: nothing was installed"
fi

test_done
