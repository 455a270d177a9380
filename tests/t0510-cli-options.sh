#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='one option layer: the same wording of every usage error, did-you-mean, exit statuses; outputs and permissions checked before the plan'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mtype fdtget 7z
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

COMMANDS="info doctor cat patch apply recipes undo"
FSTAB_EDIT="--fstab /:+noatime"

# usage_fails STATUS PATTERN CMD...: CMD exits STATUS with exactly one
# "imgpatch: " line that matches PATTERN (grep -E), then git's "Try" line.
usage_fails()
{
	local status=$1 pattern=$2
	shift 2
	test_must_fail_with "$status" imgpatch "$@" >out 2>err || return 1
	cat err
	test "$(grep -c "^imgpatch: " err)" = 1 &&
	grep -qE -- "$pattern" err &&
	test "$(wc -l <err)" = 2 &&
	grep -qE "^Try 'imgpatch ([a-z]+ )?--help'\.\$" err
}

# refused STATUS PATTERN CMD...: one error line matching PATTERN, exit
# STATUS, and kv.img byte-identical afterwards.
refused()
{
	local status=$1 pattern=$2
	shift 2
	test_must_fail_with "$status" imgpatch "$@" >out 2>err || return 1
	cat err
	test "$(grep -vc "^Try 'imgpatch" err)" = 1 &&
	grep -qE -- "$pattern" err &&
	test_file_unchanged kv.img "$KV_SUM"
}

test_expect_success 'fixtures' '
	make_kv260 kv.img && xz -k -T2 --block-size=1MiB kv.img &&
	KV_SUM=$(sum_file kv.img) && echo "$KV_SUM" >kv.sum
'
KV_SUM=$(cat kv.sum 2>/dev/null)

test_expect_success 'every command: --help and -h print help on stdout and exit 0' '
	for cmd in $COMMANDS; do
		imgpatch $cmd --help >help.out 2>help.err &&
		test_cmp /dev/null help.err &&
		grep -q "^Usage: imgpatch $cmd" help.out &&
		grep -q "^  -h, --help  *this help\$" help.out &&
		imgpatch $cmd -h >h.out && test_cmp help.out h.out &&
		# --help wins wherever it stands, also after an argument.
		imgpatch $cmd kv.img --help >h2.out && test_cmp help.out h2.out ||
		{ echo "$cmd"; return 1; }
	done
'

test_expect_success 'every command words an unknown option the same way, exit 2' '
	for cmd in $COMMANDS; do
		usage_fails 2 "^imgpatch: unknown option .--no-such-option.\$" \
			$cmd --no-such-option kv.img &&
		grep -qx "Try '\''imgpatch $cmd --help'\''." err &&
		usage_fails 2 "^imgpatch: unknown option .-Z.\$" $cmd -Z kv.img ||
		{ echo "$cmd"; return 1; }
	done &&
	test_file_unchanged kv.img "$KV_SUM"
'

test_expect_success 'a close option is offered' '
	usage_fails 2 "unknown option .--fitt. \(did you mean .--fit.\?\)" patch kv.img --fitt x &&
	usage_fails 2 "unknown option .--dryrun. \(did you mean .--dry-run.\?\)" apply kv260-uhs kv.img --dryrun &&
	usage_fails 2 "unknown option .-dry-run. \(did you mean .--dry-run.\?\)" patch kv.img -dry-run &&
	usage_fails 2 "unknown option .--jsn. \(did you mean .--json.\?\)" info kv.img --jsn &&
	usage_fails 2 "unknown option .--fail-onn. \(did you mean .--fail-on.\?\)" doctor kv.img --fail-onn x &&
	test_file_unchanged kv.img "$KV_SUM"
'

test_expect_success 'a close command is offered; no command and an unknown one are 2' '
	usage_fails 2 "^imgpatch: .pach. is not an imgpatch command \(did you mean .patch.\?\)\$" pach &&
	usage_fails 2 "^imgpatch: .recipe. is not an imgpatch command \(did you mean .recipes.\?\)\$" recipe &&
	usage_fails 2 "^imgpatch: .frobnicate. is not an imgpatch command\$" frobnicate &&
	usage_fails 2 "^imgpatch: unknown option .--frob.\$" --frob &&
	test_must_fail_with 2 imgpatch 2>err && grep -q "^Usage: imgpatch COMMAND" err
'

test_expect_success 'a close recipe name is offered (exit 2, the image untouched)' '
	refused 2 "no recipe .kv260uhs. .*; did you mean .kv260-uhs.\?\$" apply kv260uhs kv.img &&
	test_must_fail_with 2 imgpatch recipes show kv260-uh 2>err &&
	grep -q "did you mean .kv260-uhs.?" err &&
	refused 2 "no recipe .zzzzzzzzzz." apply zzzzzzzzzz kv.img &&
	! grep -q "did you mean" err
'

test_expect_success 'a missing value, a value for a flag, an ambiguous prefix: one wording each' '
	usage_fails 2 "^imgpatch: option .--fit. needs a value \(PATH\)\$" patch kv.img --fit &&
	usage_fails 2 "^imgpatch: option .--output. needs a value \(OUT\)\$" patch kv.img $FSTAB_EDIT -o &&
	usage_fails 2 "^imgpatch: option .--jobs. needs a value \(N\)\$" apply kv260-uhs kv.img -j &&
	usage_fails 2 "^imgpatch: option .--fit. needs a value \(PATH\)\$" info kv.img --fit= &&
	usage_fails 2 "^imgpatch: option .--undo. needs a value \(FILE\)\$" undo kv.img --undo &&
	usage_fails 2 "^imgpatch: option .--dry-run. takes no value\$" patch kv.img $FSTAB_EDIT --dry-run=yes &&
	usage_fails 2 "^imgpatch: option .--d. is ambiguous: --dt-delete, .*--dry-run\$" patch kv.img --d &&
	test_file_unchanged kv.img "$KV_SUM"
'

test_expect_success 'a bad value: "--NAME '\''VALUE'\'': expected ..." for every option that checks one' '
	usage_fails 2 "^imgpatch: --level .x.: expected a number from 0 to 1024\$" patch kv.img $FSTAB_EDIT --level x &&
	usage_fails 2 "^imgpatch: --threads .-1.: expected a number from 0 to 1024\$" patch kv.img $FSTAB_EDIT --threads -1 &&
	usage_fails 2 "^imgpatch: --jobs .0.: expected a number from 1 to 256\$" apply kv260-uhs kv.img -j 0 &&
	usage_fails 2 "^imgpatch: --compress .rar.: expected xz, gz, zst, bz2, lz4 or none\$" patch kv.img $FSTAB_EDIT --compress rar &&
	usage_fails 2 "^imgpatch: --set .carrier.: expected NAME=VALUE\$" apply kv260-uhs kv.img --set carrier &&
	usage_fails 2 "^imgpatch: --dt-delete .x.: expected NODE:PROP\$" patch kv.img --dt-delete x &&
	usage_fails 2 "^imgpatch: --fstab .noatime.: expected MOUNTPOINT:\+opt,-opt\$" patch kv.img --fstab noatime &&
	usage_fails 2 "^imgpatch: --dtb-out .o.dtb.: expected an absolute path\$" patch kv.img --fdt 6 --dtb-out o.dtb &&
	usage_fails 2 "^imgpatch: --fail-on .error.: expected warning or info\$" doctor kv.img --fail-on error &&
	test_file_unchanged kv.img "$KV_SUM"
'

test_expect_success 'missing and extra arguments: one wording' '
	usage_fails 2 "^imgpatch: missing IMAGE\$" info &&
	usage_fails 2 "^imgpatch: missing PART:PATH\$" cat kv.img &&
	usage_fails 2 "^imgpatch: missing IMAGE\$" apply kv260-uhs &&
	usage_fails 2 "^imgpatch: missing RECIPE\$" apply &&
	usage_fails 2 "^imgpatch: unexpected argument .b.img.\$" doctor kv.img b.img &&
	usage_fails 2 "^imgpatch: unexpected argument .b.img.\$" patch kv.img b.img $FSTAB_EDIT &&
	usage_fails 2 "^imgpatch: missing RECIPE\$" recipes show &&
	test_file_unchanged kv.img "$KV_SUM"
'

test_expect_success '--NAME=VALUE, unique prefixes, clustered flags and "--" are read' '
	imgpatch patch kv.img --fstab=/:+noatime --dry >out &&
	grep -q "^dry run: 1 change planned" out &&
	imgpatch patch kv.img --fstab /:+noatime -n --quiet >out2 && test_cmp out out2 &&
	cp kv.img ./-odd.img &&
	imgpatch info --json -- -odd.img >odd.json &&
	grep -q "\"path\": *\"-odd.img\"" odd.json &&
	test_file_unchanged kv.img "$KV_SUM"
'

test_expect_success 'a library error is never exit 0' '
	test_must_fail_with 1 imgpatch patch missing.img $FSTAB_EDIT 2>err &&
	test_must_fail_with 1 imgpatch patch kv.img --fdt 99 2>err &&
	grep -q "^imgpatch: kv.img: " err &&
	test_must_fail_with 1 imgpatch apply rpi-sd-overclock kv.img --set model=pi3 --set sd_overclock=100 2>err &&
	test_file_unchanged kv.img "$KV_SUM"
'

test_expect_success '-o or --bmap into a folder that does not exist: refused before the plan' '
	refused 1 "^imgpatch: nodir/out.img: cannot write the output: folder nodir does not exist\$" \
		patch kv.img $FSTAB_EDIT -o nodir/out.img &&
	! grep -q "^p[0-9]" out &&
	refused 1 "^imgpatch: nodir/out.img.xz: cannot write the output: folder nodir does not exist\$" \
		patch kv.img.xz $FSTAB_EDIT -o nodir/out.img.xz &&
	refused 1 "^imgpatch: nodir/o.bmap: cannot write the block map: folder nodir does not exist\$" \
		apply kv260-uhs kv.img --set board=kv --set carrier=revB -o o.img --bmap nodir/o.bmap &&
	mkdir adir &&
	refused 1 "^imgpatch: adir: cannot write the output: it is a folder: give -o a file name\$" \
		patch kv.img $FSTAB_EDIT -o adir &&
	refused 1 "^imgpatch: adir: cannot write the block map: it is a folder: give --bmap a file name\$" \
		patch kv.img $FSTAB_EDIT -o o.img --bmap adir &&
	refused 1 "^imgpatch: adir: cannot write the block map: it is a folder: give --bmap a file name\$" \
		patch kv.img $FSTAB_EDIT --in-place --bmap adir &&
	test ! -e o.img && test ! -e nodir && test -z "$(ls -A adir)" &&
	! ls .out.img.* .o.img.* 2>/dev/null &&
	# A dry run writes nothing and needs no folder.
	imgpatch patch kv.img $FSTAB_EDIT -o nodir/out.img -n >out &&
	test_file_unchanged kv.img "$KV_SUM"
'

# An archive is read, never written: a zip asked to be written over itself
# is refused before the plan, by a dry run too (the real run would refuse).
test_expect_success 'a zip recompressed in place: refused before the plan, dry run or not' '
	rm -f kv.zip && 7z a -tzip kv.zip kv.img >/dev/null && ZIP_SUM=$(sum_file kv.zip) &&
	for dry in "" -n; do
		refused 2 "^imgpatch: kv.zip: cannot write a zip archive: choose --compress xz, gz, zst, bz2, lz4 or none\$" \
			patch kv.zip $FSTAB_EDIT --in-place $dry &&
		! grep -q "^p[0-9]" out || return 1
	done &&
	test_file_unchanged kv.zip "$ZIP_SUM" &&
	! ls -A | grep -E "^\.kv\.zip\." &&
	imgpatch patch kv.zip $FSTAB_EDIT --in-place --compress xz -n >out &&
	grep -q "^dry run: 1 change planned" out
'

# A user who cannot write: as root, the run goes through nobody (root may
# write anything); only possible when nobody can reach this folder.
if [ "$(id -u)" = 0 ]; then
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
else
	as_user() { "$@"; }
fi
mkdir -p ro && chmod 777 ro
if as_user test -w ro 2>/dev/null && as_user test -x "$IMGPATCH"; then
	have_user=1
else
	have_user=0
fi

if [ "$have_user" = 1 ]; then
	test_expect_success 'a read-only image: refused before the plan, with the -o hint' '
		cp kv.img ro/kv.img && chmod 444 ro/kv.img && s=$(sum_file ro/kv.img) &&
		test_must_fail_with 1 as_user "$IMGPATCH" apply kv260-uhs ro/kv.img \
			--set board=kv --set carrier=revB >out 2>err &&
		cat err && test "$(wc -l <err)" = 1 &&
		grep -x "imgpatch: ro/kv.img: cannot patch in place: the image is not writable: give -o OUT for a patched copy" err &&
		! grep -q "^p[0-9]" out &&
		test_file_unchanged ro/kv.img "$s" &&
		as_user "$IMGPATCH" apply kv260-uhs ro/kv.img --set board=kv --set carrier=revB -o ro/copy.img >/dev/null &&
		test_file_unchanged ro/kv.img "$s"
	'

	test_expect_success 'a read-only folder: refused before the plan, with the --undo and -o hint' '
		mkdir rodir && cp kv.img rodir/kv.img && chmod 666 rodir/kv.img &&
		chmod 555 rodir && s=$(sum_file rodir/kv.img) &&
		test_must_fail_with 1 as_user "$IMGPATCH" patch rodir/kv.img $FSTAB_EDIT >out 2>err &&
		cat err && test "$(wc -l <err)" = 1 &&
		grep -x "imgpatch: rodir/kv.img.imgpatch-undo: cannot write the undo journal: folder rodir is not writable: give --undo FILE in a writable folder, or -o OUT" err &&
		! grep -q "^p[0-9]" out &&
		test_file_unchanged rodir/kv.img "$s" &&
		# The hint works: the journal elsewhere.
		as_user "$IMGPATCH" patch rodir/kv.img $FSTAB_EDIT --undo ro/kv.undo >/dev/null &&
		test -s ro/kv.undo &&
		as_user "$IMGPATCH" undo rodir/kv.img --undo ro/kv.undo >/dev/null &&
		test_file_unchanged rodir/kv.img "$s"
	'

	test_expect_success 'a compressed image in a read-only folder: --in-place refused with the -o hint' '
		mkdir roxz && cp kv.img.xz roxz/ && chmod 555 roxz && s=$(sum_file roxz/kv.img.xz) &&
		test_must_fail_with 1 as_user "$IMGPATCH" patch roxz/kv.img.xz $FSTAB_EDIT --in-place >out 2>err &&
		cat err && test "$(wc -l <err)" = 1 &&
		grep -x "imgpatch: roxz/kv.img.xz: cannot write the recompressed image: folder roxz is not writable: give -o OUT for a patched copy elsewhere" err &&
		test_file_unchanged roxz/kv.img.xz "$s"
	'
else
	test_skip 'read-only image and folders' 'an unprivileged user cannot reach the scratch folder'
fi

test_done
