#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='warnings and errors about a compressed image name the user'"'"'s file, never a temporary copy of it'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk xz gzip debugfs mdel mcopy python3
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"
# Every working copy of a run goes here; the names below must never show.
mkdir -p tmp && export TMPDIR=$PWD/tmp

FDT=fdt-smk-k26-revA-sck-kv-g-revB.dtb

# names_only IMAGE CMD...: runs imgpatch CMD (any exit status), keeps its
# stdout in out and stderr in err; err says something and names IMAGE;
# neither names a temporary file: a working copy in $TMPDIR
# (.imgpatch-KIND.PID.XXXXXX) or one beside an output or a card
# (.NAME.PID.XXXXXX). Nothing is left behind either.
names_only()
{
	local image=$1

	shift
	imgpatch "$@" >out 2>err || true
	echo "== imgpatch $*" && cat err &&
	test -s err && grep -qF "$image" err &&
	! grep -E "$TMPDIR|imgpatch-(work|card|stage|batch)|(^|[ /'])\.[^ /']+\.[0-9]+\.[A-Za-z0-9]{6}" out err &&
	test -z "$(ls -A tmp)" && ! ls -d .*.[0-9]*.?????? 2>/dev/null
}

# gpt_corrupt IMG: the primary GPT header loses its signature (the backup is
# read instead, with a warning).
gpt_corrupt()
{
	printf XXXXXXXX | dd of="$1" bs=1 seek=512 conv=notrunc status=none
}

test_expect_success 'images made to provoke warnings and errors, compressed' '
	make_kv260 kv.img &&
	# A damaged root (a group descriptor checksum) and a corrupt primary GPT.
	cp kv.img bad.img && extract_part bad.img 2 root.ext4 &&
	debugfs -w -R "set_bg 0 checksum 0x1234" root.ext4 &&
	put_part bad.img 2 root.ext4 && gpt_corrupt bad.img &&
	# No FIT (the tree is missing), and a corrupt primary GPT.
	cp kv.img nofit.img && mdel -i "$(part_mtools nofit.img 1)" ::image.fit &&
	gpt_corrupt nofit.img &&
	xz -T1 -0 -k bad.img && gzip -k nofit.img &&
	sum_file bad.img.xz >bad.sum && sum_file nofit.img.gz >nofit.sum
'

test_expect_success 'the reading commands: info, doctor, cat' '
	for img in bad.img.xz nofit.img.gz; do
		names_only $img info $img &&
		names_only $img info --json $img &&
		names_only $img doctor $img &&
		names_only $img doctor --json $img &&
		names_only $img cat $img 1:/boot.scr.uimg &&
		names_only $img cat $img 1:/nosuch &&
		names_only $img cat $img --dtb --model nosuch || return 1
	done &&
	grep "^imgpatch: warning: nofit.img.gz: primary GPT header is corrupt" err &&
	names_only nofit.img.gz cat nofit.img.gz --dtb &&
	grep "^imgpatch: nofit.img.gz: " err
'

test_expect_success 'the writing commands: patch -o, apply -o, --in-place, --bmap, write' '
	names_only bad.img.xz patch bad.img.xz -o o.img --fstab /:+noatime &&
	# The damage is the image'"'"'s, not the output'"'"'s (which is never made).
	grep "^imgpatch: bad.img.xz: p2 (ext4): ext4 filesystem has errors" err && test ! -e o.img &&
	names_only bad.img.xz patch bad.img.xz -o o.img.xz --fstab /:+noatime &&
	names_only bad.img.xz apply hostname bad.img.xz -o o.img --set hostname=lab-1 &&
	grep "^imgpatch: bad.img.xz: p2 (ext4): ext4 filesystem has errors" err &&
	names_only bad.img.xz patch bad.img.xz --in-place --fstab /:+noatime &&
	names_only nofit.img.gz patch nofit.img.gz -o o.img --fdt $FDT --dt-set "/:a=<1>" &&
	grep "^imgpatch: nofit.img.gz: no partition has /image.fit" err &&
	# Written, with warnings: they name the image, also while the bmap is made.
	names_only nofit.img.gz apply hostname nofit.img.gz -o o.img --set hostname=lab-1 &&
	grep "^recipe hostname: planned$" out && test -s o.img &&
	names_only bad.img.xz patch bad.img.xz -o p.img.xz --bmap p.bmap \
		--fdt $FDT --dt-set "/:a=<1>" &&
	test -s p.img.xz && test -s p.bmap &&
	grep "^imgpatch: warning: bad.img.xz: primary GPT header is corrupt" err &&
	names_only bad.img.xz write bad.img.xz c1.img c2.img --apply hostname --set hostname=lab-1 &&
	grep "^\[[12]/2\] c1.img: FAILED: p2 (ext4): ext4 filesystem has errors" out &&
	test ! -e c1.img && test ! -e c2.img &&
	names_only nofit.img.gz write nofit.img.gz c3.img &&
	grep "^\[1/1\] c3.img: written and verified" out &&
	test_file_unchanged bad.img.xz "$(cat bad.sum)" &&
	test_file_unchanged nofit.img.gz "$(cat nofit.sum)"
'

test_done
