#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench.sh IMGPATCH RECIPE_DIR
#
# Times imgpatch against the standard tools on an 8 GiB KV260-like image
# (tests/bench/README.md): in place, .img.xz to .img.xz (multi-block and
# single-block streams), a batch, and four cards written from the .img.xz
# (against bmaptool and xz | dd), BENCH_RUNS runs of each, alternating,
# every run on a fresh copy; then the bytes imgpatch reads and writes and
# its peak RSS. One line per figure with its target (PASS or MISS, which
# does not fail the run), then "bench: N of M targets met". Every output
# is checked against the standard tools' result; a wrong one fails the run.

set -euo pipefail

[ $# = 2 ] || { echo "usage: $0 IMGPATCH RECIPE_DIR" >&2; exit 2; }
imgpatch=$1 recipes=$2
runs=${BENCH_RUNS:-3}
# BENCH_SKIP=xz,batch,write,dd leaves out those (long) sections, for quick rounds.
skip=",${BENCH_SKIP:-},"
want() { [[ "$skip" != *",$1,"* ]]; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${BENCH_CACHE:-$here/cache}

export TZ=UTC LC_ALL=C SOURCE_DATE_EPOCH=1700000000
export E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
export IMGPATCH_RECIPE_PATH=$recipes
export PATH=$PATH:/usr/sbin:/sbin

for tool in sfdisk mcopy mtype debugfs dumpimage dtc fdtput jq xz cmp bmaptool /usr/bin/time; do
	command -v "$tool" >/dev/null || {
		echo "$0: '$tool' not found (Debian: fdisk mtools e2fsprogs u-boot-tools device-tree-compiler jq xz-utils bmap-tools time)" >&2
		exit 1
	}
done
[ -x "$imgpatch" ] || { echo "$0: '$imgpatch' is not an executable" >&2; exit 1; }
case "$runs" in ''|*[!0-9]*|0) echo "$0: BENCH_RUNS '$runs' is not a positive number" >&2; exit 2 ;; esac

clock() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(clock)" 'BEGIN { printf "%.3f", b - a }'; }

bench_start=$(clock)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "machine: ${cpu:-unknown cpu}, $(nproc) cpus, $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, Linux $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"

t=$(clock)
fix=$(bash "$here/mkfixture.sh" "$cache")
fix_time=$(since "$t")
# shellcheck source=/dev/null
. "$fix/fixture.env"
blocks()
{
	xz --robot -l "$1" | awk -F'\t' '$1 == "totals" { print $3 }'
}
echo "fixture: $fix ($(awk -v s="$fix_time" 'BEGIN { printf (s < 5 ? "cached" : "built in %.0f s"), s }')):" \
	"image.fit $FIT_SIZE bytes, $FDT_NAME is #$FDT_INDEX," \
	"$ROOT_FILES files ($((ROOT_BYTES >> 20)) MiB) on ext4," \
	"$(du -k "$fix/kv260.img" | awk '{ printf "%.0f", $1 / 1024 }') MiB used of $(($(stat -c %s "$fix/kv260.img") >> 30)) GiB," \
	"xz -T2 $(blocks "$fix/kv260.img.xz") blocks, xz -T1 $(blocks "$fix/kv260-1block.img.xz") block"
echo "imgpatch: $imgpatch ($("$imgpatch" --version 2>/dev/null | head -1)), $runs runs of each case"

work=$(mktemp -d "$cache/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
w=$work

# shellcheck disable=SC2054  # the commas are recipe syntax
patch_args=(--fdt "$FDT_NAME" --dt-delete mmc@ff170000:no-1-8-v --fstab /:-discard,+noatime --quiet)
failed=0 met=0 targets=0 verdict=

fail()
{
	echo "check: $*: FAILED"
	failed=$((failed + 1))
}

# run LOG CMD...: runs a command whose output only matters when it fails.
run()
{
	local log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		echo "$0: failed: $*" >&2
		cat "$log" >&2
		exit 1
	fi
}

# The copy's own writeback is setup, not part of the job timed: without
# the sync, the first fsync of a run (imgpatch syncs before and after it
# writes) would pay for flushing the whole copy.
fresh()
{
	rm -f "$2" "$2.imgpatch-undo"
	cp --sparse=always "$1" "$2"
	sync "$2"
}

# What a patched image holds, read back with the independent tools.
dtb_of() { mtype -i "$1@@$BOOT_OFF" ::user-override.dtb >"$2"; }
fstab_of() { debugfs -R "cat /etc/fstab" "$1?offset=$ROOT_OFF" 2>/dev/null >"$2"; }

# Timings: times_NAME holds the seconds of each run.
declare -a times_ip times_pl times_xm times_xp times_xs times_xb times_bj times_bs
stat_of()
{
	local -n arr=$1
	printf '%s\n' "${arr[@]}" | sort -g | awk '
		{ v[NR] = $1 }
		function f(x) { return sprintf(x < 10 ? "%.2f" : "%.1f", x) }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%s %s s (%s\342\200\223%s)\n", m, f(m), f(v[1]), f(v[NR])
		}'
}
median() { stat_of "$1" | cut -d' ' -f1; }
pretty() { stat_of "$1" | cut -d' ' -f2-; }

# target VALUE OP LIMIT: sets verdict to PASS or MISS, and counts it.
target()
{
	targets=$((targets + 1))
	if awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { exit !(op == "<=" ? v <= l : v >= l) }'; then
		met=$((met + 1))
		verdict=PASS
	else
		verdict=MISS
	fi
}

# The expected results: the fstab Ubuntu's with the root entry changed,
# and the tree as fdtput -d leaves it (imgpatch's own bytes, README).
printf 'LABEL=writable\t/\text4\terrors=remount-ro,noatime\t0 1\n' >"$w/fstab.want"
printf 'LABEL=system-boot\t/boot/firmware\tvfat\tdefaults\t0 1\n' >>"$w/fstab.want"
mcopy -i "$fix/kv260.img@@$BOOT_OFF" ::image.fit "$w/image.fit"
dumpimage -T flat_dt -p "$FDT_INDEX" -o "$w/fdtput.dtb" "$w/image.fit" >/dev/null
rm "$w/image.fit"
fdtput -d "$w/fdtput.dtb" /axi/mmc@ff170000 no-1-8-v

# check_raw WHAT IMG: the patched tree is fdtput's to the byte, the fstab
# the expected one. Leaves IMG's tree in $w/WHAT.dtb.
check_raw()
{
	if ! { dtb_of "$2" "$w/$1.dtb" && fstab_of "$2" "$w/$1.fstab"; }; then
		fail "$1: reading back"
		return
	fi
	cmp -s "$w/$1.dtb" "$w/fdtput.dtb" || fail "$1: user-override.dtb differs from fdtput -d's"
	cmp -s "$w/$1.fstab" "$w/fstab.want" || fail "$1: /etc/fstab is not the expected one"
}

# check_pipeline WHAT IMG: the same for the pipeline's image; its tree was
# made by dtc from source, so it must give imgpatch's tree as source.
check_pipeline()
{
	if ! { dtb_of "$2" "$w/$1.dtb" && fstab_of "$2" "$w/$1.fstab"; }; then
		fail "$1: reading back"
		return
	fi
	if ! { dtc -q -I dtb -O dts "$w/$1.dtb" >"$w/$1.dts" &&
	       dtc -q -I dtb -O dts "$w/fdtput.dtb" >"$w/fdtput.dts" &&
	       cmp -s "$w/$1.dts" "$w/fdtput.dts"; }; then
		fail "$1: user-override.dtb as source differs from imgpatch's"
	fi
	cmp -s "$w/$1.fstab" "$w/ip.fstab" || fail "$1: /etc/fstab differs from imgpatch's"
}

# ------------------------------------------------ 1. in place vs pipeline
for i in $(seq "$runs"); do
	fresh "$fix/kv260.img" "$w/ip.img"
	t=$(clock)
	run "$w/log" "$imgpatch" patch "$w/ip.img" "${patch_args[@]}"
	times_ip+=("$(since "$t")")
	check_raw ip "$w/ip.img"
	# Every run gives the same image; the first is the reference.
	if [ "$i" = 1 ]; then
		mv "$w/ip.img" "$w/ref.img"
	else
		cmp -s "$w/ip.img" "$w/ref.img" || fail "in place run $i: image differs from run 1"
	fi
	rm -f "$w/ip.img" "$w/ip.img.imgpatch-undo" "$w/ref.img.imgpatch-undo"

	fresh "$fix/kv260.img" "$w/pl.img"
	t=$(clock)
	run "$w/log" bash "$here/pipeline.sh" "$w/pl.img" "$FDT_INDEX"
	times_pl+=("$(since "$t")")
	check_pipeline pl "$w/pl.img"
	rm -f "$w/pl.img"
done
ratio=$(awk -v a="$(median times_ip)" -v b="$(median times_pl)" 'BEGIN { printf "%.1f", b / a }')
target "$ratio" '>=' 20
echo "inplace: imgpatch median $(pretty times_ip), pipeline $(pretty times_pl), ratio ${ratio}x  target >=20x $verdict"

# ------------------------------------------------ 3. bytes and memory
# The counters of a process survive in its parent once reaped, so a shell
# that waits for imgpatch reads them (with those of the mtools imgpatch
# runs) in its own /proc/PID/io. rchar/wchar count the bytes of read and
# write calls, page cache or not; read_bytes/write_bytes only what reached
# the disk, 0 for a cached image. The targets use rchar and wchar.
fresh "$fix/kv260.img" "$w/io.img"
# shellcheck disable=SC2016
bash -c 'out=$1; shift; /usr/bin/time -v -o "$out" "$@" >/dev/null 2>&1 || exit 1; cat /proc/$$/io' \
	io "$w/time.txt" "$imgpatch" patch "$w/io.img" "${patch_args[@]}" >"$w/io.txt" ||
	{ echo "$0: imgpatch failed under /usr/bin/time" >&2; exit 1; }
check_raw io "$w/io.img"
rm -f "$w/io.img" "$w/io.img.imgpatch-undo"
io() { awk -v k="$1:" '$1 == k { print $2 }' "$w/io.txt"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
rchar=$(io rchar) wchar=$(io wchar)
rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$w/time.txt")
limit=$((FIT_SIZE + (16 << 20)))
target "$rchar" '<=' "$limit"
echo "read: imgpatch rchar $(mib "$rchar") MiB (read_bytes $(mib "$(io read_bytes)") MiB), image.fit $(mib "$FIT_SIZE") MiB  target <=image.fit+16 MiB ($(mib $limit) MiB) $verdict"
target "$wchar" '<=' $((1 << 20))
echo "write: imgpatch wchar $(mib "$wchar") MiB (write_bytes $(mib "$(io write_bytes)") MiB)  target <=1 MiB $verdict"
target "$rss" '<=' $((64 << 10))
echo "rss: imgpatch peak $(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }') MiB (with the programs it runs)  target <=64 MiB $verdict"

# ------------------------------------------------ 2. .img.xz to .img.xz
if want xz; then
	for i in $(seq "$runs"); do
		# imgpatch on the multi-block stream.
		t=$(clock)
		run "$w/log" "$imgpatch" patch "$fix/kv260.img.xz" -o "$w/ip.img.xz" --threads 2 "${patch_args[@]}"
		times_xm+=("$(since "$t")")
		xz -dc "$w/ip.img.xz" | cmp -s - "$w/ref.img" ||
			fail "xz multi-block run $i: image differs from the in-place one"
		rm -f "$w/ip.img.xz"

		# The pipeline: unpack (holes kept, as cp --sparse would), patch, pack.
		t=$(clock)
		xz -dc "$fix/kv260.img.xz" | dd of="$w/pl.img" bs=1M iflag=fullblock conv=sparse status=none
		run "$w/log" bash "$here/pipeline.sh" "$w/pl.img" "$FDT_INDEX"
		xz -T2 -c "$w/pl.img" >"$w/pl.img.xz"
		times_xp+=("$(since "$t")")
		check_pipeline xpl "$w/pl.img"
		if [ "$i" = 1 ]; then
			xz -dc "$w/pl.img.xz" | cmp -s - "$w/pl.img" || fail "xz pipeline: stream differs from its image"
		fi
		rm -f "$w/pl.img" "$w/pl.img.xz"

		# imgpatch on the single-block stream, and xz alone on it.
		t=$(clock)
		run "$w/log" "$imgpatch" patch "$fix/kv260-1block.img.xz" -o "$w/ip1.img.xz" --threads 2 "${patch_args[@]}"
		times_xs+=("$(since "$t")")
		xz -dc "$w/ip1.img.xz" | cmp -s - "$w/ref.img" ||
			fail "xz single-block run $i: image differs from the in-place one"
		rm -f "$w/ip1.img.xz"

		t=$(clock)
		xz -dc "$fix/kv260-1block.img.xz" | xz -T2 >"$w/xz.img.xz"
		times_xb+=("$(since "$t")")
		rm -f "$w/xz.img.xz"
	done
	ratio=$(awk -v a="$(median times_xm)" -v b="$(median times_xp)" 'BEGIN { printf "%.1f", b / a }')
	target "$ratio" '>=' 10
	echo "xz-multi: imgpatch median $(pretty times_xm), pipeline $(pretty times_xp), ratio ${ratio}x  target >=10x $verdict"
	ratio=$(awk -v a="$(median times_xs)" -v b="$(median times_xb)" 'BEGIN { printf "%.2f", a / b }')
	target "$ratio" '<=' 1.2
	echo "xz-single: imgpatch median $(pretty times_xs), xz -dc | xz -T2 $(pretty times_xb), ratio ${ratio}x  target <=1.2x $verdict"
fi

# ------------------------------------------------ 4. a batch of 8
if want batch; then
	imgs() { for k in 1 2 3 4 5 6 7 8; do echo "$w/$1$k.img"; done; }
	for i in $(seq "$runs"); do
		for f in $(imgs b); do fresh "$fix/kv260.img" "$f"; done
		t=$(clock)
		# shellcheck disable=SC2046
		run "$w/log" "$imgpatch" apply kv260-uhs $(imgs b) --set board=kv --set carrier=revB -j 2 --quiet
		times_bj+=("$(since "$t")")

		for f in $(imgs s); do fresh "$fix/kv260.img" "$f"; done
		t=$(clock)
		for f in $(imgs s); do
			run "$w/log" "$imgpatch" apply kv260-uhs "$f" --set board=kv --set carrier=revB --quiet
		done
		times_bs+=("$(since "$t")")

		for k in 1 2 3 4 5 6 7 8; do
			check_raw batch "$w/b$k.img"
			# The recipe also enables fstrim.timer: the two runs must agree.
			[ "$i" != 1 ] || cmp -s "$w/b$k.img" "$w/s$k.img" ||
				fail "batch: image $k differs from its sequential run"
		done
		rm -f "$w"/[bs][1-8].img "$w"/[bs][1-8].img.imgpatch-undo
	done
	ratio=$(awk -v a="$(median times_bj)" -v b="$(median times_bs)" 'BEGIN { printf "%.2f", a / b }')
	target "$ratio" '<=' 0.6
	echo "batch: imgpatch -j 2 on 8 images median $(pretty times_bj), 8 sequential runs $(pretty times_bs), ratio ${ratio}x  target <=0.6x $verdict"
fi

# ------------------------------------------------ 5. four cards from .img.xz
# Four files stand in for cards, on the file system of the cache. imgpatch
# writes all four in one run; bmaptool copies the .img.xz four times, one
# card after the other, with a bmap made by `bmaptool create` from the
# sparse original (what a perfect map can save); `xz -dc | dd` writes every
# byte of each card. Each side ends with its data on the disk (imgpatch and
# bmaptool sync, dd has conv=fsync).
#
# Bytes per card: every target starts as an empty sparse file of the
# image's size, and a file system allocates a block for each block written
# into a hole and for nothing else, so the blocks a target holds afterwards
# are the bytes that reached that card, whichever program wrote them. The
# JSON report (imgpatch) and the bmap's mapped blocks (bmaptool) are
# printed next to it. Peak RSS: /usr/bin/time's, the largest of imgpatch
# and its card processes (each a fork of it).
if want write; then
	size=$(stat -c %s "$fix/kv260.img")
	bmap=$fix/kv260.bmap
	if [ ! -s "$bmap" ]; then
		bmaptool create -o "$bmap.tmp" "$fix/kv260.img" 2>"$w/log" ||
			{ cat "$w/log" >&2; exit 1; }
		mv "$bmap.tmp" "$bmap"
	fi
	bmap_bytes=$(sed -n 's|.*<MappedBlocksCount> *\([0-9]*\) *</MappedBlocksCount>.*|\1|p' "$bmap")
	bmap_bytes=$((bmap_bytes * $(sed -n 's|.*<BlockSize> *\([0-9]*\) *</BlockSize>.*|\1|p' "$bmap")))
	wi_cards=("$w"/wi{1..4}.img) wb_cards=("$w"/wb{1..4}.img)
	# blank FILE...: empty sparse files of the image's size, written back.
	blank() { rm -f "$@"; for f in "$@"; do truncate -s "$size" "$f"; done; sync; }
	allocated() { echo $(($(stat -c '%b * %B' "$1"))); }
	# cards_done MAX RUN WHO CARD...: the most bytes a card got into MAX;
	# in the first run every card must be the image. Removes the cards.
	cards_done()
	{
		local -n most=$1
		local run=$2 who=$3 f b
		shift 3
		for f in "$@"; do
			b=$(allocated "$f")
			[ "$b" -le "$most" ] || most=$b
			# Unwritten blocks read as zeros, as the image's holes do.
			[ "$run" != 1 ] || cmp -s "$f" "$fix/kv260.img" ||
				fail "cards: $who's $(basename "$f") differs from the image"
		done
		rm -f "$@"
	}
	declare -a times_wi times_wb
	wi_bytes=0 wb_bytes=0 wi_rss=0 wb_rss=0
	for i in $(seq "$runs"); do
		blank "${wi_cards[@]}"
		t=$(clock)
		run "$w/log" /usr/bin/time -f %M -o "$w/wi.rss" \
			"$imgpatch" write "$fix/kv260.img.xz" "${wi_cards[@]}" --quiet --json "$w/wi.json"
		times_wi+=("$(since "$t")")
		rss=$(tail -1 "$w/wi.rss")
		[ "$rss" -le "$wi_rss" ] || wi_rss=$rss
		[ "$(jq '[.cards[] | select(.status == "verified")] | length' "$w/wi.json")" = 4 ] ||
			fail "cards run $i: not every card verified"
		wi_json=$(jq '[.cards[].written_bytes] | max' "$w/wi.json")
		cards_done wi_bytes "$i" imgpatch "${wi_cards[@]}"

		blank "${wb_cards[@]}"
		t=$(clock)
		for f in "${wb_cards[@]}"; do
			run "$w/log" /usr/bin/time -f %M -o "$w/wb.rss" \
				bmaptool copy --bmap "$bmap" "$fix/kv260.img.xz" "$f"
			rss=$(tail -1 "$w/wb.rss")
			[ "$rss" -le "$wb_rss" ] || wb_rss=$rss
		done
		times_wb+=("$(since "$t")")
		cards_done wb_bytes "$i" bmaptool "${wb_cards[@]}"
	done
	# dd writes 8 GiB a card, so it runs once, a card at a time, each
	# removed before the next (BENCH_SKIP=dd leaves it out).
	dd_line="xz -dc | dd: skipped"
	if want dd; then
		dd_time=0 dd_bytes=0
		for f in "$w"/wd{1..4}.img; do
			blank "$f"
			t=$(clock)
			xz -dc "$fix/kv260.img.xz" | dd of="$f" bs=4M iflag=fullblock conv=notrunc,fsync status=none ||
				{ echo "$0: xz -dc | dd failed" >&2; exit 1; }
			dd_time=$(awk -v a="$dd_time" -v b="$(since "$t")" 'BEGIN { printf "%.3f", a + b }')
			dd_bytes=$(allocated "$f")
			rm -f "$f"
		done
		dd_ratio=$(awk -v a="$(median times_wi)" -v b="$dd_time" 'BEGIN { printf "%.2f", a / b }')
		dd_line="xz -dc | dd 4 cards one by one $(printf %.1f "$dd_time") s (one run), $(mib "$dd_bytes") MiB a card, imgpatch/dd ${dd_ratio}x"
	fi
	ratio=$(awk -v a="$(median times_wi)" -v b="$(median times_wb)" 'BEGIN { printf "%.2f", a / b }')
	target "$ratio" '<=' 0.4
	echo "cards: imgpatch 4 cards at once median $(pretty times_wi), bmaptool copy 4 one by one $(pretty times_wb), ratio ${ratio}x  target <=0.4x $verdict"
	echo "cards: $dd_line"
	target "$wi_bytes" '<=' "$wb_bytes"
	echo "cards-bytes: a card gets $(mib "$wi_bytes") MiB from imgpatch (report $(mib "$wi_json") MiB), $(mib "$wb_bytes") MiB from bmaptool (bmap $(mib "$bmap_bytes") MiB) of $(mib "$size") MiB  target <=bmaptool $verdict"
	target "$wi_rss" '<=' $((128 << 10))
	echo "cards-rss: imgpatch peak $(awk -v k="$wi_rss" 'BEGIN { printf "%.1f", k / 1024 }') MiB (bmaptool $(awk -v k="$wb_rss" 'BEGIN { printf "%.1f", k / 1024 }') MiB)  target <=128 MiB $verdict"
fi

if [ "$failed" = 0 ]; then
	echo "check: every output matches the standard tools' result (tree as fdtput -d gives it, the pipeline's as dtc source; fstab; whole image across in-place, .xz and batch runs)"
fi
echo "bench: $met of $targets targets met in $(awk -v s="$(since "$bench_start")" 'BEGIN { printf "%.0f", s }') s (load $(cut -d' ' -f1-3 /proc/loadavg))$([ "$failed" = 0 ] || echo ", $failed checks FAILED")"
[ "$failed" = 0 ]
