#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='targets and outputs compared by what they resolve to, and CSV cells read by length'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools python3 debugfs mtype
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

KEY="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab01 admin@lab"

# nothing_made DIR: DIR holds no file (no card made, no temporary one left).
nothing_made()
{
	find "$1" -mindepth 1 >made && test_cmp /dev/null made
}

# refused_line STATUS PATTERN CMD...: CMD exits STATUS with exactly
# one line on stderr, matching PATTERN (grep -x).
refused_line()
{
	local status=$1 pattern=$2

	shift 2
	test_must_fail_with "$status" "$@" >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -x -- "$pattern" err
}

# written_with CARD HOST: CARD was written and verified with the host name
# HOST (debugfs), then it goes.
written_with()
{
	grep "$1: written and verified" out &&
	extract_part "$1" 2 root.ext4 &&
	debugfs -R "cat /etc/hostname" root.ext4 2>/dev/null >host &&
	echo "$2" >want && test_cmp want host &&
	rm "$1"
}

test_expect_success 'an image, an empty folder for cards, one for links' '
	make_kv260 kv.img && sum_file kv.img >kv.sum &&
	mkdir t lnk && ln -s ../t lnk/t &&
	ln -s "$PWD/t" tlink
'

# Each spelling of t/d.img, the file not there yet: the second row names it again.
for second in t/./d.img t//d.img ./t/d.img t/../t/d.img "$PWD/t/d.img" tlink/d.img lnk/t/d.img; do
	test_expect_success "write --each: t/d.img and $second are one target, refused" '
		{ echo "target,user,key" && echo "t/d.img,ubuntu,$KEY" &&
		  echo "$second,other,$KEY"; } >two.csv &&
		refused_line 2 "imgpatch: two.csv:3: a second row for $second (the first is on line 2, as t/d.img)" \
			imgpatch write kv.img --apply ssh-key --each two.csv &&
		nothing_made t &&
		test_file_unchanged kv.img "$(cat kv.sum)"
	'
done

test_expect_success 'write: two spellings on the command line, the file not there yet' '
	refused_line 1 "imgpatch: t/./d.img: given twice as a TARGET (first as t/d.img)" \
		imgpatch write kv.img t/d.img t/./d.img &&
	refused_line 1 "imgpatch: tlink/d.img: given twice as a TARGET (first as t/d.img)" \
		imgpatch write kv.img t/d.img tlink/d.img --dry-run &&
	nothing_made t
'

test_expect_success 'write: an existing file by another path, a hard link, the image by another name' '
	size=$(stat -c %s kv.img) && truncate -s "$size" t/e.img && ln t/e.img t/hard.img &&
	sum_file t/e.img >e.sum &&
	refused_line 1 "imgpatch: lnk/t/e.img: given twice as a TARGET (first as t/e.img)" \
		imgpatch write kv.img t/e.img lnk/t/e.img &&
	refused_line 1 "imgpatch: t/hard.img: given twice as a TARGET (first as t/e.img)" \
		imgpatch write kv.img t/e.img t/hard.img &&
	refused_line 1 "imgpatch: ./t/../kv.img: is the image itself" \
		imgpatch write kv.img t/e.img ./t/../kv.img &&
	test_file_unchanged t/e.img "$(cat e.sum)" &&
	test_file_unchanged kv.img "$(cat kv.sum)" &&
	rm t/e.img t/hard.img
'

test_expect_success 'write: a target that is the table or the report' '
	{ echo "target,hostname" && echo "t/d.img,lab-01" && echo "./one.csv,lab-02"; } >one.csv &&
	sum_file one.csv >one.sum &&
	refused_line 1 "imgpatch: ./one.csv: is the --each table" \
		imgpatch write kv.img --apply hostname --each one.csv &&
	test_file_unchanged one.csv "$(cat one.sum)" &&
	refused_line 1 "imgpatch: ./r.json: is the --json report" \
		imgpatch write kv.img ./r.json --json r.json &&
	refused_line 1 "imgpatch: t/../kv.img: the --json report would replace kv.img" \
		imgpatch write kv.img t/d.img --json t/../kv.img &&
	refused_line 1 "imgpatch: ./one.csv: the --json report would replace one.csv" \
		imgpatch write kv.img --apply hostname --each one.csv --json ./one.csv &&
	test_file_unchanged kv.img "$(cat kv.sum)" &&
	nothing_made t
'

test_expect_success 'write: a TARGET finds its row by what it resolves to' '
	{ echo "target,hostname" && echo "t/./d.img,lab-07"; } >row.csv &&
	imgpatch write kv.img t/d.img --apply hostname --each row.csv >out &&
	written_with t/d.img lab-07
'

test_expect_success 'apply: one image under two spellings, in a batch or a table' '
	mkdir im && ln -s im imlink && cp kv.img im/a.img && sum_file im/a.img >a.sum &&
	refused_line 1 "imgpatch: ./im/a.img: given twice as an IMAGE (first as im/a.img)" \
		imgpatch apply hostname im/a.img ./im/a.img --set hostname=x &&
	{ echo "image,hostname" && echo "im/a.img,x" && echo "imlink/a.img,y"; } >im.csv &&
	refused_line 2 "imgpatch: im.csv:3: a second row for imlink/a.img (the first is on line 2, as im/a.img)" \
		imgpatch apply hostname im/a.img --each im.csv &&
	test_file_unchanged im/a.img "$(cat a.sum)"
'

test_expect_success 'apply --output-dir: two copies of one name, a copy over an image' '
	mkdir u copies && cp kv.img u/a.img &&
	refused_line 1 "imgpatch: copies/a.img: the copy of both im/a.img and u/a.img: images of one name need output folders of their own" \
		imgpatch apply hostname im/a.img u/a.img --set hostname=x --output-dir copies &&
	refused_line 1 "imgpatch: ./u/a.img: the copy of im/a.img would replace the image u/a.img" \
		imgpatch apply hostname im/a.img u/a.img --set hostname=x --output-dir ./u &&
	refused_line 1 "imgpatch: im/../im/a.img: the copy of im/a.img would replace the image im/a.img" \
		imgpatch apply hostname im/a.img --set hostname=x --output-dir im/../im &&
	refused_line 1 "imgpatch: im/./a.img: the --json report would replace im/a.img" \
		imgpatch apply hostname im/a.img u/a.img --set hostname=x --json im/./a.img &&
	{ echo "image,hostname" && echo "im/a.img,x"; } >ima.csv && sum_file ima.csv >ima.sum &&
	refused_line 1 "imgpatch: ./ima.csv: the --json report would replace ima.csv" \
		imgpatch apply hostname im/a.img --each ima.csv --json ./ima.csv &&
	test_file_unchanged ima.csv "$(cat ima.sum)" &&
	nothing_made copies &&
	test_file_unchanged im/a.img "$(cat a.sum)" && test_file_unchanged u/a.img "$(cat a.sum)"
'

test_expect_success 'patch and apply: -o, --bmap and --undo are each a file of their own' '
	test_must_fail_with 2 imgpatch patch im/a.img --fstab /:+noatime -o imlink/a.img 2>err &&
	grep "^imgpatch: -o imlink/a.img is IMAGE itself: leave out -o to patch in place$" err &&
	test_must_fail_with 2 imgpatch patch im/a.img --fstab /:+noatime -o copies/c.img \
		--bmap copies/./c.img 2>err &&
	grep "^imgpatch: --bmap copies/./c.img is OUT itself: give the block map a name of its own" err &&
	test_must_fail_with 2 imgpatch apply hostname im/a.img u/a.img --set hostname=x --undo j.undo 2>err &&
	grep "^imgpatch: --undo takes one IMAGE: with several, each keeps its own journal beside it$" err &&
	test ! -e j.undo &&
	test_must_fail_with 2 imgpatch apply hostname im/a.img --set hostname=x --undo ./im/a.img 2>err &&
	grep "^imgpatch: --undo ./im/a.img is IMAGE itself: give the undo journal a name of its own" err &&
	nothing_made copies &&
	test_file_unchanged im/a.img "$(cat a.sum)"
'

# cell_refused NAME ROW WANT: a table with the line ROW (printf format, %s
# the key) is refused with NAME.csv:2: control character WANT, no card made.
cell_refused()
{
	printf "target,user,key\n$2\n" "$KEY" >"$1.csv" &&
	refused_line 2 "imgpatch: $1.csv:2: control character $3 in a field" \
		imgpatch write kv.img --apply ssh-key --each "$1.csv" &&
	nothing_made t
}

test_expect_success 'write --each: a NUL in a cell is refused, not cut' '
	cell_refused nul "t/d.img,ubu\0ntu,%s" ".x00 (NUL)" &&
	cell_refused nulq "t/d.img,\"ubu\0ntu\",%s" ".x00 (NUL)" &&
	cell_refused nult "t/d\0x.img,ubuntu,%s" ".x00 (NUL)" &&
	cell_refused nulk "t/d.img,ubuntu,\"%s\0\"" ".x00 (NUL)"
'

test_expect_success 'write --each: ESC, DEL, a tab, a lone CR, any byte below space' '
	cell_refused esc "t/d.img,ubu\033ntu,%s" ".x1b (ESC)" &&
	cell_refused del "t/d.img,ubuntu\177,%s" ".x7f (DEL)" &&
	cell_refused tab "t/d.img,ubu\tntu,%s" ".x09 (tab)" &&
	cell_refused cr "t/d.img,ubu\rntu,%s" ".x0d (CR without LF)" &&
	cell_refused bel "t/d.img,ubuntu,\"%s\a\"" ".x07"
'

test_expect_success 'write --each: a line break in a cell the run uses' '
	printf "target,note,user,key\nt/d.img,\"a\nb\",\"ubu\nntu\",%s\n" "$KEY" >lf.csv &&
	refused_line 2 "imgpatch: lf.csv:3: a line break in column .user.: a cell is one line of text" \
		imgpatch write kv.img --apply ssh-key --each lf.csv --each-ignore note &&
	nothing_made t
'

test_expect_success 'write --each: a note of two lines in a column left out is no error' '
	printf "target,note,hostname\nt/d.img,\"bought\nin May\",lab-09\n" >note.csv &&
	imgpatch write kv.img --apply hostname --each note.csv --each-ignore note >out &&
	written_with t/d.img lab-09
'

test_expect_success 'apply --each: a NUL in a cell is refused, the image untouched' '
	printf "image,hostname\nim/a.img,lab\0x\n" >anul.csv &&
	refused_line 2 "imgpatch: anul.csv:2: control character .x00 (NUL) in a field" \
		imgpatch apply hostname im/a.img --each anul.csv &&
	test_file_unchanged im/a.img "$(cat a.sum)"
'

test_expect_success 'apply: a recipe'"'"'s boot script file with a NUL is refused, not cut' '
	mkdir scr &&
	cat >scr/scr.recipe <<-\EOD &&
	name = "scr"
	summary = "a boot script"
	description = "Writes a U-Boot script image from a file."
	source = "this test"
	risks = "none"
	undo = "delete it"
	step { action = "boot-script" part = "boot" path = "/test.scr" file = "test.cmd" }
	EOD
	printf "echo one\necho two\0; reset\n" >scr/test.cmd &&
	refused_line 1 "imgpatch: im/a.img: step 1 (boot-script): test.cmd:2: a NUL byte in the script: U-Boot would stop reading it there" \
		imgpatch apply ./scr/scr.recipe im/a.img &&
	test_file_unchanged im/a.img "$(cat a.sum)"
'

# Cards: loop devices stand in for them, where this machine lends one (root).
loops=()
cleanup_loops() { for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done; }
trap cleanup_loops EXIT
size=$(stat -c %s kv.img)
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null || ! command -v sfdisk >/dev/null ||
   ! truncate -s $((size * 2 + 4194304)) card.img ||
   ! echo "2048,$((size / 512 + 2048))" | sfdisk -q card.img >/dev/null ||
   ! dev=$(losetup -P -f --show card.img 2>/dev/null); then
	test_skip 'cards under two names' 'no loop device here (needs root and loop support)'
	test_done
fi
loops+=("$dev")

test_expect_success 'write: a card and a link to it (as /dev/disk/by-id/ has) are one target' '
	sum_file card.img >card.sum &&
	ln -s "$dev" by-id-card &&
	refused_line 1 "imgpatch: by-id-card: given twice as a TARGET (first as $dev)" \
		imgpatch write kv.img "$dev" by-id-card &&
	refused_line 1 "imgpatch: $dev: given twice as a TARGET (first as $PWD/by-id-card)" \
		imgpatch write kv.img "$PWD/by-id-card" "$dev" --dry-run &&
	test_file_unchanged card.img "$(cat card.sum)" &&
	nothing_made t
'

# The kernel makes the partition's node where it scans loop devices' tables.
for i in 1 2 3; do test -b "${dev}p1" && break; sleep 1; done
if ! test -b "${dev}p1"; then
	test_skip 'a card and its partition' 'the kernel made no node for the loop device'"'"'s partition'
	test_done
fi

test_expect_success 'write: a card and its partition overlap, either way round' '
	refused_line 1 "imgpatch: ${dev}p1: a partition of TARGET $dev" \
		imgpatch write kv.img "$dev" "${dev}p1" &&
	refused_line 1 "imgpatch: $dev: TARGET ${dev}p1 is one of its partitions" \
		imgpatch write kv.img "${dev}p1" "$dev" &&
	test_file_unchanged card.img "$(cat card.sum)"
'

test_done
