#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='grub: --cmdline outlives update-grub: GRUB_CMDLINE_LINUX (and a word dropped from GRUB_CMDLINE_LINUX_DEFAULT) of the root'"'"'s /etc/default/grub edited with grub.cfg'"'"'s linux line, every other byte kept, read back by sh as grub-mkconfig sources it and grub-script-check; what sh would not take as it is refused with the image byte-identical; with a root imgpatch cannot write the plan says the edit will not survive'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mcopy mke2fs debugfs e2fsck grub-script-check mkfs.btrfs

V=6.1.0-18-arm64
UUID=d6b1a9e5-0000-4000-8000-000000000002
KERNEL="/boot/vmlinuz-$V root=UUID=$UUID ro"

. "$FIXTURES/lib-fixture.sh"

# root IMG: partition 2 (the root) of IMG extracted to IMG.p2, checked by e2fsck -fn.
root()
{
	local -; set +x
	extract_part "$1" 2 "$1.p2" && e2fsck -fn "$1.p2" >/dev/null 2>&1
}

# with_default IMG FILE: IMG's /etc/default/grub replaced by FILE (debugfs).
with_default()
{
	local -; set +x
	root "$1" &&
	debugfs -w -R "rm /etc/default/grub" "$1.p2" >/dev/null 2>&1 &&
	debugfs -w -R "write $2 /etc/default/grub" "$1.p2" >/dev/null 2>&1 &&
	e2fsck -fn "$1.p2" >/dev/null 2>&1 && put_part "$1" 2 "$1.p2"
}

# sourced FILE VAR: VAR's value after sh sources FILE, as grub-mkconfig does.
sourced()
{
	sh -c '. "$1" && eval "printf %s \"\$$2\""' sh "./$1" "$2"
}

test_expect_success 'build the image' '
	"$FIXTURES/mkimage-debian-grub.sh" grub.img &&
	root grub.img &&
	ext_cat grub.img.p2 /boot/grub/grub.cfg >grub.cfg.orig &&
	ext_cat grub.img.p2 /etc/default/grub >default.orig &&
	grub-script-check grub.cfg.orig &&
	test "$(sourced default.orig GRUB_CMDLINE_LINUX_DEFAULT)" = quiet
'

test_expect_success 'patch --cmdline: the linux line and /etc/default/grub, the plan says why' '
	cp grub.img g.img &&
	imgpatch patch g.img --cmdline +console=ttyS2,1500000 --cmdline -quiet >plan &&
	grep -q "the distribution'"'"'s generator makes this line anew from GRUB_CMDLINE_LINUX of /etc/default/grub (p2): edited there too" plan &&
	grep -q "update-grub writes it into every entry'"'"'s linux line when it makes grub.cfg anew" plan &&
	root g.img &&
	ext_cat g.img.p2 /boot/grub/grub.cfg >grub.cfg.new &&
	grub-script-check grub.cfg.new &&
	grep -x "	linux	$KERNEL console=ttyS2,1500000" grub.cfg.new &&
	ext_cat g.img.p2 /etc/default/grub >default.new &&
	test "$(sourced default.new GRUB_CMDLINE_LINUX)" = console=ttyS2,1500000 &&
	test "$(sourced default.new GRUB_CMDLINE_LINUX_DEFAULT)" = "" &&
	diff default.orig default.new >d || test $? = 1 &&
	cat >want.d <<-\EOF &&
	9,10c9,10
	< GRUB_CMDLINE_LINUX_DEFAULT="quiet"
	< GRUB_CMDLINE_LINUX=""
	---
	> GRUB_CMDLINE_LINUX_DEFAULT=""
	> GRUB_CMDLINE_LINUX="console=ttyS2,1500000"
	EOF
	test_cmp want.d d
'

# grub-mkconfig'"'"'s 10_linux writes the default entry'"'"'s line as
# "root=UUID=... ro ${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}".
test_expect_success 'what update-grub would write from the patched file has the words of the patched line' '
	set -- $(sourced default.new GRUB_CMDLINE_LINUX) $(sourced default.new GRUB_CMDLINE_LINUX_DEFAULT) &&
	echo "$*" >made &&
	imgpatch cat g.img --cmdline | tail -1 >line &&
	set -- $(cat line) && shift 2 && echo "$*" >kept &&
	test_cmp made kept
'

test_expect_success 'a second run changes nothing' '
	imgpatch patch g.img --cmdline +console=ttyS2,1500000 >plan2 &&
	grep -q "nothing to change" plan2
'

test_expect_success 'single quotes stay single quotes; the rest of the line and file kept' '
	sed "s/^GRUB_CMDLINE_LINUX=\"\"\$/GRUB_CMDLINE_LINUX='"'"'console=tty1 loglevel=4'"'"'  # serial/" default.orig >single &&
	cp grub.img s.img && with_default s.img single &&
	imgpatch patch s.img --cmdline +rootwait >plan.s &&
	root s.img && ext_cat s.img.p2 /etc/default/grub >single.new &&
	grep -x "GRUB_CMDLINE_LINUX='"'"'console=tty1 loglevel=4 rootwait'"'"'  # serial" single.new &&
	test "$(sourced single.new GRUB_CMDLINE_LINUX)" = "console=tty1 loglevel=4 rootwait" &&
	diff single single.new >d || test $? = 1 &&
	test "$(grep -c "^[<>]" d)" = 2
'

test_expect_success 'no GRUB_CMDLINE_LINUX: one is added at the end' '
	grep -v "^GRUB_CMDLINE_LINUX=" default.orig >none &&
	cp grub.img n.img && with_default n.img none &&
	imgpatch patch n.img --cmdline +rootwait >plan.n &&
	root n.img && ext_cat n.img.p2 /etc/default/grub >none.new &&
	tail -1 none.new | grep -x "GRUB_CMDLINE_LINUX=\"rootwait\"" &&
	head -n -1 none.new >none.head && test_cmp none none.head &&
	test "$(sourced none.new GRUB_CMDLINE_LINUX)" = rootwait
'

test_expect_success 'a value sh would expand is refused, naming its line; the image byte-identical' '
	sed "s/^GRUB_CMDLINE_LINUX=\"\"\$/GRUB_CMDLINE_LINUX=\"\$EXTRA console=tty1\"/" default.orig >expand &&
	cp grub.img x.img && with_default x.img expand &&
	test_refuses x.img "/etc/default/grub: line 10: GRUB_CMDLINE_LINUX=\"\$EXTRA console=tty1\": not a value imgpatch edits safely" \
		imgpatch patch x.img --cmdline +rootwait
'

test_expect_success 'a word that cannot go into the double quotes is refused; the image byte-identical' '
	test_refuses grub.img "\\$ cannot go into the double-quoted shell value" \
		imgpatch patch grub.img --cmdline "+init=\$HOME"
'

# A /boot partition (ext4, /grub/grub.cfg) and a btrfs root, which imgpatch
# reads and writes no file of: update-grub would make grub.cfg anew from
# the root's /etc/default/grub.
test_expect_success 'a root imgpatch cannot write: grub.cfg edited, the plan says the edit will not survive update-grub' '
	mkdir -p bt/boot/grub bt/root/etc/default &&
	cp grub.cfg.orig bt/boot/grub/grub.cfg &&
	cp default.orig bt/root/etc/default/grub &&
	echo "UUID=$UUID / btrfs defaults 0 0" >bt/root/etc/fstab &&
	truncate -s 16M boot.fs &&
	mke2fs -q -F -t ext4 -U d6b1a9e5-0000-4000-8000-0000000000b1 -d bt/boot boot.fs &&
	truncate -s 32M root.fs &&
	mkfs.btrfs -q --mixed -U $UUID -d single -m single --rootdir bt/root -f root.fs >/dev/null 2>&1 &&
	truncate -s $(( (2048 + 32768 + 65536 + 2048) * 512 )) bt.img &&
	sfdisk -q bt.img <<-EOF &&
	label: gpt
	start=2048, size=32768, type=L
	start=34816, size=65536, type=L
	EOF
	put_part bt.img 1 boot.fs && put_part bt.img 2 root.fs &&
	cp bt.img bt.orig &&
	imgpatch info bt.img >info.bt &&
	grep "^boot path: GRUB /grub/grub.cfg" info.bt &&
	imgpatch patch bt.img --cmdline +rootwait >plan.bt &&
	grep -q "writes grub.cfg anew at the next kernel from GRUB_CMDLINE_LINUX of /etc/default/grub on the root, p2 (btrfs), which imgpatch cannot write: this edit will not survive update-grub" plan.bt &&
	extract_part bt.img 1 bt.p1 && e2fsck -fn bt.p1 >/dev/null 2>&1 &&
	ext_cat bt.p1 /grub/grub.cfg >bt.cfg && grub-script-check bt.cfg &&
	grep -x "	linux	$KERNEL  quiet rootwait" bt.cfg &&
	extract_part bt.img 2 bt.p2 && cmp root.fs bt.p2
'

test_done
