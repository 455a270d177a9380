#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='customize on an image without cloud-init: the files themselves, read back by their own readers'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mke2fs debugfs e2fsck fsck.fat mtype mdir \
	ssh-keygen python3 pwck grpck dpkg-deb unshare
test_require_debian_root

# The password is read from a file; the test looks for it everywhere after.
PASSWORD='correct horse battery staple 7'
SETTINGS=(--hostname lab-07 --timezone Europe/Berlin --keymap de --locale de_DE.UTF-8
	--user alice --password alice:file:pw --ssh-inject alice:file:key.pub
	--static-ip 192.168.7.50/24 --gateway 192.168.7.1 --dns 192.168.7.1,9.9.9.9
	--mkdir /opt/lab/data --write /opt/lab/hello.txt:hi --append-line /etc/motd:welcome
	--chmod 0700:/opt/lab/data --link /opt/lab/hello.txt:/opt/hello
	--copy-in tree:/opt/lab --mkdir /usr/local/bin --upload tool.sh:/usr/local/bin --touch /boot/firmware/ssh
	--delete /etc/ssh/sshd_config.d --enable systemd-networkd.service
	--mask systemd-timesyncd.service --firstboot-command 'echo once >>/var/log/fb.log')

# root_of IMG: its ext4 root as root.ext4.
root_of()
{
	extract_part "$1" 2 root.ext4
}

# cat_root PATH: a file of root.ext4.
cat_root()
{
	debugfs -R "cat $1" root.ext4 2>/dev/null
}

test_expect_success 'the image and the inputs' '
	"$FIXTURES/mkimage-debian-root.sh" plain.img &&
	printf "%s\n" "$PASSWORD" >pw &&
	ssh-keygen -q -t ed25519 -N "" -C alice@lab -f key &&
	mkdir -p tree/sub && echo one >tree/sub/a.txt && ln -s sub/a.txt tree/link &&
	chmod 0750 tree/sub &&
	printf "#!/bin/sh\necho tool\n" >tool.sh && chmod 0755 tool.sh &&
	cp plain.img a.img
'

test_expect_success 'one command: identity, user, key, address, files, units, first boot' '
	imgpatch customize a.img "${SETTINGS[@]}" --ssh-host-keys new --machine-id new \
		--json report.json >out 2>err &&
	test_cmp /dev/null err &&
	grep "^how each setting is made:$" out &&
	grep "^  hostname lab-07: /etc/hostname and /etc/hosts. 127.0.1.1 line (no cloud-init seed in the image)$" out &&
	grep "^  network: /etc/NetworkManager/system-connections/eth0.nmconnection (the image runs NetworkManager)$" out &&
	grep "^patched a.img: [0-9]* changes$" out
'

test_expect_success 'both filesystems are clean (e2fsck, fsck.fat)' '
	root_of a.img && e2fsck -fn root.ext4 &&
	extract_part a.img 1 boot.fat && fsck.fat -n boot.fat
'

test_expect_success 'the host name: /etc/hostname and the 127.0.1.1 line' '
	echo lab-07 >want && cat_root /etc/hostname >got && test_cmp want got &&
	cat_root /etc/hosts | grep -x "127.0.1.1	lab-07"
'

test_expect_success 'the user as useradd makes them: passwd, groups, home from /etc/skel' '
	cat_root /etc/passwd | grep -x "alice:x:1000:1000::/home/alice:/bin/sh" &&
	cat_root /etc/group >group &&
	grep -x "alice:x:1000:" group && grep -x "sudo:x:27:alice" group &&
	mkdir -p croot/etc && for f in passwd group shadow gshadow; do
		cat_root /etc/$f >croot/etc/$f || exit 1
	done &&
	# shadow s checkers, inside a root of these files (a user namespace of
	# our own for their chroot): members and users must all be known there.
	unshare -r pwck -r -q -R "$PWD/croot" && unshare -r grpck -r -R "$PWD/croot" &&
	stat_is root.ext4 /home/alice 0755 1000 1000 &&
	stat_is root.ext4 /home/alice/.profile 0644 1000 1000 &&
	cat_root /etc/skel/.bashrc >skel && cat_root /home/alice/.bashrc >home &&
	test_cmp skel home
'

test_expect_success 'the password works (libcrypt checks the shadow hash), and is nowhere in the output' '
	grep "^alice:" croot/etc/shadow | cut -d: -f2 >hash &&
	grep "^[$]y[$]" hash &&
	python3 -W ignore -c "import crypt, sys; h = open(\"hash\").read().strip(); sys.exit(crypt.crypt(sys.argv[1], h) != h)" "$PASSWORD" &&
	! grep -F "$PASSWORD" out report.json &&
	! grep -F "$(cat hash)" out report.json
'

test_expect_success 'the key: ~/.ssh 0700 and authorized_keys 0600, the user s (sshd StrictModes)' '
	stat_is root.ext4 /home/alice/.ssh 0700 1000 1000 &&
	stat_is root.ext4 /home/alice/.ssh/authorized_keys 0600 1000 1000 &&
	cat_root /home/alice/.ssh/authorized_keys >got && test_cmp key.pub got
'

test_expect_success 'time zone, keyboard, locale, and locale-gen once at the first boot' '
	debugfs -R "stat /etc/localtime" root.ext4 2>/dev/null |
		grep "Fast link dest: \"/usr/share/zoneinfo/Europe/Berlin\"" &&
	echo Europe/Berlin >want && cat_root /etc/timezone >got && test_cmp want got &&
	cat_root /etc/default/keyboard | grep -x "XKBLAYOUT=\"de\"" &&
	cat_root /etc/default/locale | grep -x "LANG=de_DE.UTF-8" &&
	cat_root /etc/locale.gen | grep -x "de_DE.UTF-8 UTF-8" &&
	cat_root /usr/local/lib/imgpatch/firstboot/0001-command | grep -x locale-gen
'

test_expect_success 'the address: a NetworkManager keyfile, 0600, that nmcli reads back' '
	stat_is root.ext4 /etc/NetworkManager/system-connections/eth0.nmconnection 0600 0 0 &&
	cat_root /etc/NetworkManager/system-connections/eth0.nmconnection >eth0.nmconnection &&
	grep -x "address1=192.168.7.50/24,192.168.7.1" eth0.nmconnection &&
	grep -x "dns=192.168.7.1;9.9.9.9;" eth0.nmconnection &&
	grep -x "interface-name=eth0" eth0.nmconnection &&
	if command -v nmcli >/dev/null; then
		nmcli --offline connection modify ipv4.dns-search lab <eth0.nmconnection >read-back &&
		grep -x "address1=192.168.7.50/24,192.168.7.1" read-back
	fi
'

test_expect_success 'the files, with their modes, links and owners' '
	stat_is root.ext4 /opt/lab/data 0700 0 0 &&
	printf hi >want && cat_root /opt/lab/hello.txt >got && test_cmp want got &&
	debugfs -R "stat /opt/hello" root.ext4 2>/dev/null | grep "Fast link dest: \"/opt/lab/hello.txt\"" &&
	echo welcome >want && cat_root /etc/motd >got && test_cmp want got &&
	stat_is root.ext4 /opt/lab/tree/sub 0750 0 0 &&
	echo one >want && cat_root /opt/lab/tree/sub/a.txt >got && test_cmp want got &&
	debugfs -R "stat /opt/lab/tree/link" root.ext4 2>/dev/null | grep "Fast link dest: \"sub/a.txt\"" &&
	stat_is root.ext4 /usr/local/bin/tool.sh 0755 0 0 &&
	! debugfs -R "stat /etc/ssh/sshd_config.d" root.ext4 2>&1 | grep "^Inode:" &&
	mdir -b -i "$(part_mtools a.img 1)" ::/ | grep -x "::/ssh"
'

test_expect_success 'the units: systemctl s links for enable and mask, and the first-boot runner enabled' '
	debugfs -R "stat /etc/systemd/system/multi-user.target.wants/systemd-networkd.service" root.ext4 2>/dev/null |
		grep "Fast link dest: \"/lib/systemd/system/systemd-networkd.service\"" &&
	debugfs -R "stat /etc/systemd/system/systemd-timesyncd.service" root.ext4 2>/dev/null |
		grep "Fast link dest: \"/dev/null\"" &&
	debugfs -R "stat /etc/systemd/system/multi-user.target.wants/imgpatch-firstboot.service" root.ext4 2>/dev/null |
		grep "Fast link dest: \"/etc/systemd/system/imgpatch-firstboot.service\"" &&
	cat_root /usr/local/lib/imgpatch/firstboot/0002-command | grep -x "echo once >>/var/log/fb.log"
'

test_expect_success 'host keys and machine-id: in the image, reported, and valid' '
	for t in rsa ecdsa ed25519; do
		cat_root /etc/ssh/ssh_host_${t}_key.pub >$t.pub &&
		ssh-keygen -lf $t.pub | sed -n "s/^[0-9]* \(SHA256:[^ ]*\) .*(\([A-Z0-9]*\))$/\2 \1/p" >>fps ||
			exit 1
		stat_is root.ext4 /etc/ssh/ssh_host_${t}_key 0600 0 0 || exit 1
	done &&
	sed -n "s/^ssh-host-key: //p" out | sort >reported && sort fps >expected &&
	test_cmp expected reported &&
	cat_root /etc/machine-id >mid && grep -xE "[0-9a-f]{32}" mid &&
	grep -x "machine-id: $(cat mid)" out &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/customize.schema.json" report.json &&
	grep "\"machine_id\": \"$(cat mid)\"" report.json
'

test_expect_success 'a second run changes nothing' '
	imgpatch customize a.img "${SETTINGS[@]}" >out2 &&
	grep -x "nothing to change: a.img is already patched" out2
'

test_expect_success '--dry-run writes nothing, and shows no secret' '
	cp plain.img d.img &&
	imgpatch customize d.img "${SETTINGS[@]}" --ssh-host-keys new --dry-run >dry &&
	cmp plain.img d.img &&
	grep "^dry run: [0-9]* changes planned, nothing written$" dry &&
	grep "^p2 (ext4) /etc/shadow: .* (holds a secret: not shown)$" dry &&
	grep "^p2 (ext4) /etc/ssh/ssh_host_ed25519_key: .* (holds a secret: not shown)$" dry &&
	! grep -F "$PASSWORD" dry && ! grep "PRIVATE KEY" dry
'

test_expect_success 'two cards from one image: other host keys and machine-ids' '
	cp plain.img b1.img && cp plain.img b2.img &&
	imgpatch customize b1.img --ssh-host-keys new --machine-id new >o1 &&
	imgpatch customize b2.img --ssh-host-keys new --machine-id new >o2 &&
	grep "^ssh-host-key: ED25519" o1 >k1 && grep "^ssh-host-key: ED25519" o2 >k2 &&
	! cmp k1 k2 && grep "^machine-id:" o1 >m1 && grep "^machine-id:" o2 >m2 && ! cmp m1 m2
'

test_expect_success 'reset: an empty machine-id, and D-Bus s link to it left' '
	cp plain.img r.img &&
	imgpatch customize r.img --machine-id reset >out &&
	root_of r.img && cat_root /etc/machine-id >mid && test_cmp /dev/null mid &&
	debugfs -R "stat /var/lib/dbus/machine-id" root.ext4 2>/dev/null | grep "Fast link dest: \"/etc/machine-id\""
'

test_expect_success 'paths are the booted system s: /boot/firmware is the FAT, PART:/PATH too' '
	cp plain.img f.img &&
	imgpatch customize f.img --mkdir /boot/firmware/a/b --write /boot/firmware/a/b/c.txt:x \
		--write 1:/d.txt:y >out &&
	printf x >want && mtype -i "$(part_mtools f.img 1)" ::/a/b/c.txt >got && test_cmp want got &&
	printf y >want && mtype -i "$(part_mtools f.img 1)" ::/d.txt >got && test_cmp want got &&
	extract_part f.img 1 boot.fat && fsck.fat -n boot.fat
'

test_expect_success '--firstboot SCRIPT after earlier scripts, --disable: numbered on, links gone' '
	printf "#!/bin/sh\necho second\n" >later.sh &&
	imgpatch customize a.img --firstboot later.sh --disable ssh.service >out &&
	root_of a.img &&
	cat_root /usr/local/lib/imgpatch/firstboot/0003-later.sh >got && test_cmp later.sh got &&
	stat_is root.ext4 /usr/local/lib/imgpatch/firstboot/0003-later.sh 0755 0 0 &&
	! debugfs -R "stat /etc/systemd/system/multi-user.target.wants/ssh.service" root.ext4 2>&1 | grep "^Inode:" &&
	! debugfs -R "stat /etc/systemd/system/sshd.service" root.ext4 2>&1 | grep "^Inode:" &&
	e2fsck -fn root.ext4
'

test_expect_success 'networkd and ifupdown images get their own files' '
	"$FIXTURES/mkimage-debian-root.sh" --networkd n.img &&
	imgpatch customize n.img --static-ip 10.1.2.3/16 --gateway 10.1.0.1 >out &&
	grep "network: /etc/systemd/network/10-imgpatch-eth0.network (the image enables systemd-networkd)" out &&
	"$FIXTURES/mkimage-debian-root.sh" --ifupdown i.img &&
	imgpatch customize i.img --static-ip 10.1.2.3/16 --gateway 10.1.0.1 >out &&
	grep "network: /etc/network/interfaces.d/eth0" out &&
	root_of i.img && cat_root /etc/network/interfaces >interfaces &&
	! grep "^iface eth0" interfaces &&
	cat_root /etc/network/interfaces.d/eth0 >eth0 &&
	if command -v ifquery >/dev/null; then
		cat interfaces eth0 | sed "/^source/d" >all &&
		ifquery -i all eth0 >q && grep -x "address: 10.1.2.3" q &&
		grep -x "netmask: 255.255.0.0" q && grep -x "gateway: 10.1.0.1" q
	fi
'

test_done
