#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='customize on images whose own files are hostile or broken: one line, the image byte-identical, never a crash'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mke2fs debugfs e2fsck dpkg-deb
test_require_debian_root

# hostile IMG DEBUGFS-COMMAND...: IMG is the fixture with its root changed
# by the debugfs commands (written with debugfs -w, checked with e2fsck).
hostile()
{
	local img=$1 cmd

	shift
	cp d.img "$img" && extract_part "$img" 2 "$img.root" || return 1
	for cmd in "$@"; do
		debugfs -w -R "$cmd" "$img.root" >/dev/null 2>&1
	done
	e2fsck -fn "$img.root" >/dev/null 2>&1 && put_part "$img" 2 "$img.root" && rm -f "$img.root"
}

test_expect_success 'the image and hostile files' '
	"$FIXTURES/mkimage-debian-root.sh" d.img &&
	printf "root:x:0:0:root:/root:/bin/bash\nbroken line without fields\n" >passwd &&
	printf "HostKey /etc/ssh/ssh_host_../../evil_key\n" >sshd_config &&
	head -c 4096 /dev/urandom >noise &&
	printf "LABEL=writable / ext4 defaults 0 1\ntmpfs /opt tmpfs defaults 0 0\n" >fstab
'

test_expect_success 'a passwd that is not one: refused naming the file' '
	hostile p.img "rm /etc/passwd" "write passwd /etc/passwd" &&
	refused_intact p.img 1 "imgpatch: p.img: --user: .*/etc/passwd.*" \
		imgpatch customize p.img --user eve
'

test_expect_success 'a HostKey of no type ssh-keygen makes is refused' '
	hostile k.img "rm /etc/ssh/sshd_config" "write sshd_config /etc/ssh/sshd_config" &&
	refused_intact k.img 1 "imgpatch: k.img: --ssh-host-keys: /etc/ssh/sshd_config: HostKey of type \.\./\.\./evil: not one ssh-keygen makes" \
		imgpatch customize k.img --ssh-host-keys new
'

test_expect_success 'a link loop on the way is refused, not followed for ever' '
	hostile l.img "symlink /etc/a /etc/b" "symlink /etc/b /etc/a" &&
	refused_intact l.img 1 "imgpatch: l.img: --write: /etc/a: more than 40 symbolic links on the way" \
		imgpatch customize l.img --write /etc/a/x:y
'

test_expect_success 'a time zone that is a link to another file is no time zone' '
	hostile z.img "symlink /usr/share/zoneinfo/Evil /etc/shadow" &&
	refused_intact z.img 1 "imgpatch: z.img: --timezone: Evil: the image has no such time zone .*" \
		imgpatch customize z.img --timezone Evil
'

test_expect_success 'a path fstab mounts from no partition of the image' '
	hostile f.img "rm /etc/fstab" "write fstab /etc/fstab" &&
	refused_intact f.img 1 "imgpatch: f.img: --write: /opt: /etc/fstab mounts tmpfs there (tmpfs, line 2), which is not a partition of the image" \
		imgpatch customize f.img --write /opt/x:y
'

test_expect_success 'noise for os-release, keyboard, locale.gen and cloud.cfg: no crash' '
	hostile n.img "rm /usr/lib/os-release" "write noise /usr/lib/os-release" \
		"rm /etc/default/keyboard" "write noise /etc/default/keyboard" \
		"rm /etc/locale.gen" "write noise /etc/locale.gen" &&
	cp n.img n2.img &&
	{ imgpatch customize n2.img --keymap de --locale de_DE.UTF-8 --user eve >out 2>err || test $? = 1; } &&
	e2fsck_root() { extract_part "$1" 2 r.ext4 && e2fsck -fn r.ext4; } && e2fsck_root n2.img
'

test_done
