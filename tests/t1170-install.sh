#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='make install and uninstall: PREFIX, DESTDIR, BINDIR, MANDIR and DATADIR; the installed imgpatch finds its recipes'
. "$(dirname "$0")/lib.sh"

test_require_tools make install scdoc dtc groff man mtype

# The recipe directory is compiled into the binary from DATADIR, so each
# prefix needs its own link. That happens in a build directory of this
# test's (unoptimised, to be quick): the build under test must not be
# rebuilt with other flags.
build=$TEST_OUT/build
prefix=$TEST_OUT/prefix

# mk ARGS...: make in the source tree with this test's build directory.
mk()
{
	make --no-print-directory -j2 -C "$REPO_DIR" BUILD="$build" CFLAGS="-O0" "$@" \
		>>"$TEST_OUT/make.log" 2>&1
}

# expected_files ROOT BINDIR DATADIR MANDIR: every file install must put
# under ROOT, from the source tree, sorted.
expected_files()
{
	local -; set +x
	local root=$1 bindir=$2 datadir=$3 mandir=$4 f

	{
		echo "$root$bindir/imgpatch"
		echo "$root$mandir/man1/imgpatch.1"
		echo "$root$datadir/bash-completion/completions/imgpatch"
		echo "$root$datadir/zsh/vendor-completions/_imgpatch"
		echo "$root$datadir/imgpatch/recipes/README.md"
		for f in "$REPO_DIR"/recipes/*.recipe "$REPO_DIR"/recipes/*.cmd; do
			[ -f "$f" ] && echo "$root$datadir/imgpatch/recipes/${f##*/}"
		done
		for f in "$REPO_DIR"/recipes/overlays/*.dts; do
			[ -f "$f" ] || continue
			f=${f##*/}
			echo "$root$datadir/imgpatch/recipes/overlays/${f%.dts}.dtbo"
		done
		for f in "$REPO_DIR"/tool/schema/*.json "$REPO_DIR"/tool/schema/README.md; do
			[ -f "$f" ] && echo "$root$datadir/imgpatch/schema/${f##*/}"
		done
	} | sort
}

# files_under DIR: every file and symbolic link under DIR, sorted.
files_under()
{
	find "$1" \( -type f -o -type l \) | sort
}

test_expect_success 'make install PREFIX=DIR' '
	mk PREFIX="$prefix" install &&
	expected_files "$prefix" /bin /share /share/man >expect &&
	files_under "$prefix" >installed &&
	test_cmp expect installed
'

test_expect_success 'installed files: modes and contents' '
	test -x "$prefix/bin/imgpatch" &&
	test "$(stat -c %a "$prefix/bin/imgpatch")" = 755 &&
	test "$(stat -c %a "$prefix/share/imgpatch/recipes/kv260-uhs.recipe")" = 644 &&
	cmp "$REPO_DIR/recipes/README.md" "$prefix/share/imgpatch/recipes/README.md" &&
	cmp "$REPO_DIR/recipes/kv260-uhs.recipe" "$prefix/share/imgpatch/recipes/kv260-uhs.recipe" &&
	cmp "$REPO_DIR/tool/completion/imgpatch.bash" \
		"$prefix/share/bash-completion/completions/imgpatch" &&
	cmp "$REPO_DIR/tool/completion/_imgpatch" "$prefix/share/zsh/vendor-completions/_imgpatch" &&
	for dtbo in "$prefix"/share/imgpatch/recipes/overlays/*.dtbo; do
		[ -f "$dtbo" ] || continue
		dtc -q -I dtb -O dts -o /dev/null "$dtbo" || exit 1
	done &&
	for f in "$REPO_DIR"/tool/schema/*; do
		[ -f "$f" ] || continue
		cmp "$f" "$prefix/share/imgpatch/schema/${f##*/}" || exit 1
	done
'

test_expect_success 'the installed imgpatch finds the installed recipes' '
	(
		unset IMGPATCH_RECIPE_PATH
		cd / &&
		"$prefix/bin/imgpatch" recipes >"$TEST_OUT/list" &&
		# Loading one checks that its overlay is there too.
		"$prefix/bin/imgpatch" recipes show pinephone-vccq-mod >/dev/null
	) &&
	for f in "$REPO_DIR"/recipes/*.recipe; do
		f=${f##*/}
		grep -q "^${f%.recipe}  " list || { echo "not listed: $f"; exit 1; }
	done
'

test_expect_success 'and applies one, found nowhere else' '
	make_kv260 kv.img &&
	env -u IMGPATCH_RECIPE_PATH "$prefix/bin/imgpatch" apply kv260-uhs kv.img \
		--set board=kv --set carrier=revB --dry-run >out &&
	grep -q "^recipe kv260-uhs: planned" out &&
	mv "$prefix/share/imgpatch/recipes" moved &&
	test_must_fail_with 2 env -u IMGPATCH_RECIPE_PATH "$prefix/bin/imgpatch" \
		apply kv260-uhs kv.img --set board=kv --set carrier=revB --dry-run 2>err &&
	mv moved "$prefix/share/imgpatch/recipes" &&
	env -u IMGPATCH_RECIPE_PATH "$prefix/bin/imgpatch" recipes show kv260-uhs >/dev/null
'

test_expect_success 'man finds the installed page, which names the installed recipes' '
	MANPATH="$prefix/share/man" man -w imgpatch >where &&
	echo "$prefix/share/man/man1/imgpatch.1" >expect &&
	test_cmp expect where &&
	# (A path this long cannot be broken across lines: t1150 checks the
	# page for warnings with the default paths.)
	MANWIDTH=80 MANPATH="$prefix/share/man" man imgpatch >page &&
	grep -q "^COMMANDS" page &&
	tr -d "\n " <page | grep -q "$prefix/share/imgpatch/recipes"
'

test_expect_success 'uninstall removes what install put there, keeps what it did not' '
	echo "name = \"mine\"" >"$prefix/share/imgpatch/recipes/mine.recipe" &&
	mk PREFIX="$prefix" uninstall &&
	files_under "$prefix" >left &&
	echo "$prefix/share/imgpatch/recipes/mine.recipe" >expect &&
	test_cmp expect left &&
	rm "$prefix/share/imgpatch/recipes/mine.recipe" &&
	mk PREFIX="$prefix" uninstall &&
	files_under "$prefix" >left &&
	test_cmp /dev/null left &&
	test ! -e "$prefix/share/imgpatch"
'

test_expect_success 'DESTDIR with PREFIX=/usr: files land under DESTDIR, built for /usr' '
	mk DESTDIR="$TEST_OUT/dest" PREFIX=/usr install &&
	expected_files "$TEST_OUT/dest" /usr/bin /usr/share /usr/share/man >expect &&
	files_under "$TEST_OUT/dest" >installed &&
	test_cmp expect installed &&
	# The recipe directory compiled in, and the one the manual names.
	grep -aq "/usr/share/imgpatch/recipes" "$TEST_OUT/dest/usr/bin/imgpatch" &&
	! grep -aq "$prefix" "$TEST_OUT/dest/usr/bin/imgpatch" &&
	grep -q "/usr/share/imgpatch/recipes" "$TEST_OUT/dest/usr/share/man/man1/imgpatch.1" &&
	mk DESTDIR="$TEST_OUT/dest" PREFIX=/usr uninstall &&
	files_under "$TEST_OUT/dest" >left &&
	test_cmp /dev/null left
'

test_expect_success 'BINDIR, MANDIR and DATADIR put files where asked' '
	vars="DESTDIR=$TEST_OUT/opt PREFIX=/usr BINDIR=/opt/ip/bin MANDIR=/opt/ip/man DATADIR=/opt/ip/data" &&
	mk $vars install &&
	expected_files "$TEST_OUT/opt" /opt/ip/bin /opt/ip/data /opt/ip/man >expect &&
	files_under "$TEST_OUT/opt" >installed &&
	test_cmp expect installed &&
	grep -aq "/opt/ip/data/imgpatch/recipes" "$TEST_OUT/opt/opt/ip/bin/imgpatch" &&
	mk $vars uninstall &&
	files_under "$TEST_OUT/opt" >left &&
	test_cmp /dev/null left
'

# The Yocto recipe's PACKAGECONFIG without "manual" (no scdoc on scarthgap).
test_expect_success 'MAN=0: install without scdoc, everything but the manual' '
	make --no-print-directory -j2 -C "$REPO_DIR" BUILD="$TEST_OUT/build-noman" CFLAGS="-O0" \
		MAN=0 SCDOC=false DESTDIR="$TEST_OUT/noman" PREFIX=/usr install >>"$TEST_OUT/make.log" 2>&1 &&
	expected_files "$TEST_OUT/noman" /usr/bin /usr/share /usr/share/man | grep -v /man1/ >expect &&
	files_under "$TEST_OUT/noman" >installed &&
	test_cmp expect installed &&
	! test -e "$TEST_OUT/build-noman/imgpatch.1"
'

test_done
