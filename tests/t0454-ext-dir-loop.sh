#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='ext4 directories that are no tree (a link back to an ancestor, a second parent, a wrong "." or "..", a cut-off loop) are refused before a write, with the path named as e2fsck names it; lookups through them, and through symbolic links nested without end, always finish'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs e2fsck timeout

export E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH
FS_MB=16

# tree FS: a filesystem with /etc/fstab, /srv/a/b and /srv/c/d.
tree()
{
	rm -rf root && mkdir -p root/etc root/srv/a/b root/srv/c/d &&
	printf "LABEL=writable\t/\text4\tdefaults\t0 1\n" >root/etc/fstab &&
	mke2fs -q -F -t ext4 -b 4096 -U 5e1bc25a-9d3c-4a5e-8d47-6f2a9c3e1b10 \
		-E root_owner=0:0 -d root "$1" ${FS_MB}M
}

# edit FS DEBUGFS-COMMAND...: runs each command read-write on FS.
edit()
{
	local fs=$1 cmd

	shift
	for cmd in "$@"; do
		debugfs -w -R "$cmd" "$fs" >debugfs.log 2>&1 &&
		! grep -v "^debugfs [0-9]" debugfs.log | grep . || return 1
	done
}

# disk FS IMG: a GPT disk whose one partition (at 1 MiB) holds FS.
disk()
{
	rm -f "$2" && truncate -s $((FS_MB + 2))M "$2" &&
	printf "label: gpt\nstart=2048, size=%d, type=L\n" $((FS_MB * 2048)) |
		sfdisk -q --no-reread --no-tell-kernel "$2" &&
	dd if="$1" of="$2" bs=1M seek=1 conv=notrunc status=none
}

# damaged NAME E2FSCK-LINE DEBUGFS-COMMAND...: NAME.img, whose filesystem
# the commands damaged; e2fsck -fn finds the damage and says E2FSCK-LINE.
damaged()
{
	local name=$1 line=$2

	shift 2
	tree "$name.ext4" && edit "$name.ext4" "$@" &&
	test_must_fail_with 4 e2fsck -fn "$name.ext4" >e2fsck.log 2>&1 &&
	grep -F -- "$line" e2fsck.log &&
	disk "$name.ext4" "$name.img"
}

# refused IMG FINDING: patch, its dry run, -o and --in-place exit 1 with the
# one line "imgpatch: IMG: p1 (ext4): ext4 filesystem has errors (FINDING):
# run e2fsck -f first" (FINDING a grep pattern), and IMG is byte-identical.
refused()
{
	local img=$1 line="imgpatch: $1: p1 (ext4): ext4 filesystem has errors ($2): run e2fsck -f first"

	refused_intact "$img" 1 "$line" timeout 60 $IMGPATCH patch "$img" --fstab /:+noatime --dry-run &&
	refused_intact "$img" 1 "$line" timeout 60 $IMGPATCH patch "$img" --fstab /:+noatime &&
	refused_intact "$img" 1 "$line" timeout 60 $IMGPATCH patch "$img" --fstab /:+noatime -o out.img &&
	test ! -e out.img &&
	refused_intact "$img" 1 "$line" timeout 60 $IMGPATCH patch "$img" --fstab /:+noatime --in-place
}

test_expect_success 'a healthy tree is patched, e2fsck clean' '
	tree ok.ext4 && disk ok.ext4 ok.img &&
	$IMGPATCH patch ok.img --fstab /:+noatime >out &&
	extract_part ok.img 1 part.ext4 && e2fsck -fn part.ext4 &&
	debugfs -R "cat /etc/fstab" part.ext4 2>/dev/null | grep -q "defaults,noatime"
'

test_expect_success 'an entry that links back to the root is refused' '
	damaged root "is a link to the root inode." "link / /etc/loop" &&
	refused root.img "entry '"'loop'"' in /etc ([0-9]*) is a link to the root directory / (2)"
'

test_expect_success 'an entry that links a directory to itself is refused' '
	damaged self "is a link to directory /etc" "link /etc /etc/self" &&
	refused self.img "entry '"'self'"' in /etc ([0-9]*) is a link to directory /etc ([0-9]*)"
'

test_expect_success 'an entry that links back to an ancestor further up is refused' '
	damaged up "Entry '"'up'"' in /srv/a/b" "link /srv /srv/a/b/up" &&
	refused up.img "entry '"'up'"' in /srv/a/b ([0-9]*) is a link to directory /srv ([0-9]*)"
'

test_expect_success 'a second hard link to a directory (two parents) is refused' '
	damaged twin "Entry '"'twin'"' in /srv" "link /etc /srv/twin" &&
	refused twin.img "entry '"'twin'"' in /srv ([0-9]*) is a link to directory /etc ([0-9]*)"
'

test_expect_success 'a ".." naming another directory than the parent is refused' '
	damaged dotdot "'"'..'"' in /srv/a" "unlink /srv/a/.." "link /etc /srv/a/.." &&
	refused dotdot.img "'"'..'"' in /srv/a ([0-9]*) is /etc ([0-9]*), should be /srv ([0-9]*)"
'

test_expect_success 'a "." naming another directory is refused' '
	damaged dot "for '"'.'"' in directory inode" "unlink /srv/a/." "link /etc /srv/a/." &&
	refused dot.img "'"'.'"' in /srv/a ([0-9]*) is /etc ([0-9]*), should be itself"
'

test_expect_success 'a loop of directories cut off from / is refused' '
	damaged cut "'"'..'"' in" "link /srv/c /srv/c/d/back" "unlink /srv/c" &&
	refused cut.img "directory inode [0-9]* is not reached from / (unconnected)"
'

test_expect_success 'reading through a directory loop finishes (cat, info)' '
	timeout 60 $IMGPATCH cat root.img "1:/etc/loop/etc/loop/etc/fstab" >fstab &&
	test_cmp root/etc/fstab fstab &&
	timeout 60 $IMGPATCH cat up.img "1:/srv/a/b/up/a/b/up/c/../a/b/up/../etc/fstab" >fstab &&
	test_cmp root/etc/fstab fstab &&
	timeout 60 $IMGPATCH info root.img >info.out
'

# Each /fK holds 300 names of /f(K-1): libext2fs's namei, which bounds only
# how deeply links nest, would look up 300^7 names for /f7.
test_expect_success 'symbolic links: 40 followed at most in one lookup, then refused' '
	tree links.ext4 &&
	prev=etc &&
	for k in 1 2 3 4 5 6 7; do
		target=$(for i in $(seq 300); do printf "%s/../" $prev; done)$prev &&
		edit links.ext4 "symlink /f$k $target" && prev=f$k || return 1
	done &&
	edit links.ext4 "symlink /self self" "symlink /etc/long aaaa" "sif /etc/long size 100000" &&
	disk links.ext4 links.img &&
	timeout 60 $IMGPATCH cat links.img 1:/f1/fstab >fstab &&
	test_cmp root/etc/fstab fstab &&
	refused_intact links.img 1 "imgpatch: links.img: p1 (ext4): /f7/fstab: Too many symbolic links encountered" \
		timeout 60 $IMGPATCH cat links.img 1:/f7/fstab &&
	refused_intact links.img 1 "imgpatch: links.img: p1 (ext4): /self/x: Too many symbolic links encountered" \
		timeout 60 $IMGPATCH cat links.img 1:/self/x &&
	refused_intact links.img 1 "imgpatch: links.img: p1 (ext4): /etc/long/x: symbolic link of 100000 bytes is corrupt: run e2fsck -f" \
		timeout 60 $IMGPATCH cat links.img 1:/etc/long/x
'

test_done
