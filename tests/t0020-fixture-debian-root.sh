#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='the Debian 12 root fixture (mkimage-debian-root.sh), checked with independent tools only'
. "$(dirname "$0")/lib.sh"
. "$FIXTURES/lib-fixture.sh"

test_require_tools sfdisk fsck.fat mdir mtype mcopy e2fsck debugfs blkid \
	dpkg-deb dpkg-query pwck grpck ssh-keygen python3 cmp

test_require_debian_root

# deb_file PKG PATH: PATH of PKG's cached .deb on stdout.
deb_file()
{
	dpkg-deb --fsys-tarfile "$(compgen -G "$DEB_CACHE/${1}_*.deb" | head -n 1)" |
		tar -xO ".$2"
}

# links_of FS: every symbolic link under /etc/systemd/system of FS as
# "PATH -> TARGET", sorted.
links_of()
{
	local -; set +x

	debugfs -R "rdump /etc/systemd/system ." "$1" 2>/dev/null &&
	find system -type l -printf '%p -> %l\n' | sort && rm -rf system
}

test_expect_success 'build the default image (NetworkManager, OpenSSH)' '
	"$FIXTURES/mkimage-debian-root.sh" deb.img &&
	test "$(stat -c %s deb.img)" = $((266240 * 512))
'

test_expect_success 'sfdisk sees Ubuntu'\''s GPT: system-boot, then writable' '
	sfdisk_dump_is deb.img gpt 64656231-0000-4000-8000-000000000000 \
		"first-lba: 34" "last-lba: 266206" <<-\EOF
	deb.img1 : start=        2048, size=      131072, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, uuid=64656231-0001-4000-8000-000000000001, name="system-boot"
	deb.img2 : start=      133120, size=      131072, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=64656231-0002-4000-8000-000000000002, name="writable"
	EOF
'

test_expect_success 'p1 is a clean, empty FAT32 labelled system-boot' '
	part_fs_is deb.img 1 boot.fat TYPE=vfat VERSION=FAT32 LABEL=system-boot \
		UUID=6465-6231 &&
	fat_ls deb.img 1 >actual &&
	test_cmp /dev/null actual
'

test_expect_success 'p2 is a clean ext4 labelled writable, fstab by label' '
	part_fs_is deb.img 2 root.ext4 TYPE=ext4 LABEL=writable \
		UUID=64656231-7772-4974-6162-6c6500000002 &&
	ext_cat root.ext4 /etc/fstab >actual &&
	printf "LABEL=writable\t/\text4\tdiscard,errors=remount-ro\t0 1\nLABEL=system-boot\t/boot/firmware\tvfat\tdefaults\t0 1\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'usr-merged: /bin, /sbin and /lib are links into /usr' '
	for l in bin sbin lib; do
		debugfs -R "stat /$l" root.ext4 2>/dev/null >stat &&
		grep -q "Type: symlink" stat &&
		grep -q "Fast link dest: \"usr/$l\"" stat || return 1
	done &&
	debugfs -R "stat /usr/lib/systemd/system/getty@.service" root.ext4 2>/dev/null |
		grep -q "Type: regular"
'

test_expect_success 'passwd and group are base-passwd'\''s masters after shadowconfig' '
	ext_cat root.ext4 /etc/passwd >passwd &&
	ext_cat root.ext4 /etc/group >group &&
	{ sed "s/^\([^:]*\):\*:/\1:x:/" /usr/share/base-passwd/passwd.master &&
	  echo "sshd:x:100:65534::/run/sshd:/usr/sbin/nologin"; } >expect &&
	test_cmp expect passwd &&
	sed "s/^\([^:]*\):\*:/\1:x:/" /usr/share/base-passwd/group.master >expect &&
	test_cmp expect group
'

test_expect_success 'shadow and gshadow lock every account, dated SOURCE_DATE_EPOCH' '
	ext_cat root.ext4 /etc/shadow >shadow &&
	ext_cat root.ext4 /etc/gshadow >gshadow &&
	day=$((SOURCE_DATE_EPOCH / 86400)) &&
	{ cut -d: -f1 /usr/share/base-passwd/passwd.master | sed "s/$/:*:$day:0:99999:7:::/" &&
	  echo "sshd:!:$day::::::"; } >expect &&
	test_cmp expect shadow &&
	cut -d: -f1 /usr/share/base-passwd/group.master | sed "s/$/:*::/" >expect &&
	test_cmp expect gshadow
'

# pwck looks the home folders up on this machine, not in the image, so -q
# (errors only) leaves their absence out.
test_expect_success 'pwck and grpck find the account files consistent' '
	pwck -r -q passwd shadow &&
	grpck -r group gshadow
'

test_expect_success 'owners and modes: shadow files, keys, sudoers.d, /root, /tmp' '
	stat_is root.ext4 /etc/shadow 0640 0 42 &&
	stat_is root.ext4 /etc/gshadow 0640 0 42 &&
	stat_is root.ext4 /etc/passwd 0644 0 0 &&
	stat_is root.ext4 /etc/ssh/ssh_host_ed25519_key 0600 0 0 &&
	stat_is root.ext4 /etc/ssh/ssh_host_ed25519_key.pub 0644 0 0 &&
	stat_is root.ext4 /etc/sudoers.d/README 0440 0 0 &&
	stat_is root.ext4 /root 0700 0 0 &&
	stat_is root.ext4 /tmp 01777 0 0 &&
	stat_is root.ext4 /usr/sbin/sshd 0755 0 0
'

test_expect_success 'the packages'\'' files are this machine'\''s, byte for byte' '
	for f in /etc/login.defs /etc/default/useradd /etc/adduser.conf \
		/etc/skel/.bashrc /etc/skel/.profile /etc/skel/.bash_logout \
		/usr/lib/os-release /usr/share/i18n/SUPPORTED \
		/usr/share/zoneinfo/Europe/Berlin /usr/share/zoneinfo/America/New_York \
		/usr/share/zoneinfo/Etc/UTC /usr/share/X11/xkb/symbols/de \
		/usr/lib/systemd/system/systemd-networkd.service \
		/usr/lib/systemd/system/systemd-timesyncd.service; do
		debugfs -R "dump $f copy" root.ext4 2>/dev/null &&
		cmp copy "$f" || return 1
	done &&
	debugfs -R "dump /etc/pam.d/common-password pam" root.ext4 2>/dev/null &&
	grep -qx "password	\[success=1 default=ignore\]	pam_unix.so obscure yescrypt" pam &&
	! grep -q "\\$" pam
'

test_expect_success 'identity: hostname, hosts, machine-id and its dbus link' '
	test "$(ext_cat root.ext4 /etc/hostname)" = debian &&
	ext_cat root.ext4 /etc/hosts >hosts &&
	grep -qx "127.0.1.1	debian" hosts &&
	grep -qx "127.0.0.1	localhost" hosts &&
	grep -qx "::1     localhost ip6-localhost ip6-loopback" hosts &&
	ext_cat root.ext4 /etc/machine-id >mid &&
	grep -qx "[0-9a-f]\{32\}" mid && test "$(wc -c <mid)" = 33 &&
	debugfs -R "stat /var/lib/dbus/machine-id" root.ext4 2>/dev/null |
		grep -q "Fast link dest: \"/etc/machine-id\""
'

test_expect_success 'time zone, locale and keymap as their packages set them' '
	test "$(ext_cat root.ext4 /etc/timezone)" = Etc/UTC &&
	debugfs -R "stat /etc/localtime" root.ext4 2>/dev/null |
		grep -q "Fast link dest: \"/usr/share/zoneinfo/Etc/UTC\"" &&
	debugfs -R "stat /usr/share/zoneinfo/UTC" root.ext4 2>/dev/null |
		grep -q "Fast link dest: \"Etc/UTC\"" &&
	ext_cat root.ext4 /etc/locale.gen >locale.gen &&
	grep -v "^#" locale.gen | grep -v "^$" >actual &&
	echo "en_US.UTF-8 UTF-8" >expect && test_cmp expect actual &&
	tail -n +7 locale.gen | sed "s/^# //" >names &&
	sort -c names &&
	grep "^[a-zA-Z]" /usr/share/i18n/SUPPORTED | sed "s/ *$//" | sort >expect &&
	test_cmp expect names &&
	printf "#  File generated by update-locale\nLANG=en_US.UTF-8\n" >expect &&
	ext_cat root.ext4 /etc/default/locale >actual && test_cmp expect actual &&
	ext_cat root.ext4 /etc/default/keyboard >keyboard &&
	grep -qx "XKBMODEL=\"pc105\"" keyboard && grep -qx "XKBLAYOUT=\"us\"" keyboard &&
	grep -qx "XKBVARIANT=\"\"" keyboard && grep -qx "BACKSPACE=\"guess\"" keyboard
'

test_expect_success 'OpenSSH: the package'\''s sshd_config and units, fixed host keys that match' '
	ext_cat root.ext4 /etc/ssh/sshd_config >actual &&
	deb_file openssh-server /usr/share/openssh/sshd_config >expect &&
	test_cmp expect actual &&
	debugfs -R "dump /usr/sbin/sshd sshd" root.ext4 2>/dev/null &&
	deb_file openssh-server /usr/sbin/sshd | cmp - sshd &&
	for t in rsa ecdsa ed25519; do
		debugfs -R "dump -p /etc/ssh/ssh_host_${t}_key key" root.ext4 2>/dev/null &&
		ext_cat root.ext4 /etc/ssh/ssh_host_${t}_key.pub >key.pub &&
		cmp key.pub "$FIXTURES/debian-root/ssh_host_${t}_key.pub" &&
		test "$(ssh-keygen -y -f key | cut -d" " -f1-2)" = "$(cut -d" " -f1-2 key.pub)" &&
		rm -f key || return 1
	done
'

test_expect_success 'systemd links: NetworkManager, ssh, getty, timesyncd and the defaults' '
	links_of root.ext4 >actual &&
	cat >expect <<-\EOF &&
	system/dbus-org.freedesktop.nm-dispatcher.service -> /lib/systemd/system/NetworkManager-dispatcher.service
	system/dbus-org.freedesktop.timesync1.service -> /lib/systemd/system/systemd-timesyncd.service
	system/getty.target.wants/getty@tty1.service -> /lib/systemd/system/getty@.service
	system/multi-user.target.wants/NetworkManager.service -> /lib/systemd/system/NetworkManager.service
	system/multi-user.target.wants/remote-fs.target -> /lib/systemd/system/remote-fs.target
	system/multi-user.target.wants/ssh.service -> /lib/systemd/system/ssh.service
	system/network-online.target.wants/NetworkManager-wait-online.service -> /lib/systemd/system/NetworkManager-wait-online.service
	system/sshd.service -> /lib/systemd/system/ssh.service
	system/sysinit.target.wants/systemd-pstore.service -> /lib/systemd/system/systemd-pstore.service
	system/sysinit.target.wants/systemd-timesyncd.service -> /lib/systemd/system/systemd-timesyncd.service
	EOF
	test_cmp expect actual &&
	ext_cat root.ext4 /usr/lib/systemd/system/systemd-journald.service >unit &&
	! grep -q "^\[Install\]" unit &&
	ext_ls root.ext4 /etc/NetworkManager/system-connections >actual &&
	printf ".\n..\n" >expect && test_cmp expect actual &&
	debugfs -R "dump /usr/sbin/NetworkManager nm" root.ext4 2>/dev/null &&
	deb_file network-manager /usr/sbin/NetworkManager | cmp - nm
'

test_expect_success 'dpkg reads the status file: each package installed, as recorded' '
	mkdir -p adm &&
	ext_cat root.ext4 /var/lib/dpkg/status >adm/status &&
	dpkg-query --admindir=adm -W -f="\${Package} \${db:Status-Abbrev}\n" >actual &&
	printf "%s ii \n" adduser base-files base-passwd bash keyboard-configuration \
		libpam-runtime locales login network-manager openssh-server passwd sudo \
		systemd systemd-timesyncd tzdata xkb-data >expect &&
	test_cmp expect actual &&
	for p in adduser base-files bash locales systemd tzdata; do
		dpkg-query -s "$p" >expect &&
		dpkg-query --admindir=adm -s "$p" >actual &&
		test_cmp expect actual || return 1
	done &&
	for p in openssh-server sudo network-manager keyboard-configuration; do
		test "$(dpkg-query --admindir=adm -W -f="\${Version}" "$p")" = \
			"$(dpkg-deb -f "$(compgen -G "$DEB_CACHE/${p}_*.deb" | head -n 1)" Version)" ||
			return 1
	done
'

test_expect_success 'the default image is reproducible' '
	"$FIXTURES/mkimage-debian-root.sh" again.img &&
	test "$(sum_file deb.img)" = "$(sum_file again.img)" &&
	rm -f again.img
'

test_expect_success '--seed: Ubuntu'\''s NoCloud seed on system-boot, cloud-init set to read it' '
	"$FIXTURES/mkimage-debian-root.sh" seed.img --seed &&
	part_fs_is seed.img 1 seed.fat TYPE=vfat LABEL=system-boot &&
	fat_ls seed.img 1 >actual &&
	printf "::/user-data\n::/meta-data\n::/network-config\n" >expect &&
	test_cmp expect actual &&
	for f in user-data meta-data network-config; do
		mtype -i "$(part_mtools seed.img 1)" ::$f >$f &&
		cmp $f "$FIXTURES/ubuntu-seed/$f" || return 1
	done &&
	part_fs_is seed.img 2 seed.ext4 TYPE=ext4 LABEL=writable &&
	ext_cat seed.ext4 /etc/cloud/cloud.cfg.d/99-fake_cloud.cfg >actual &&
	test_cmp "$FIXTURES/ubuntu-seed/99-fake_cloud.cfg" actual &&
	debugfs -R "dump /usr/lib/python3/dist-packages/cloudinit/version.py version.py" \
		seed.ext4 2>/dev/null &&
	cmp version.py /usr/lib/python3/dist-packages/cloudinit/version.py &&
	test "$(python3 -c "exec(open(\"version.py\").read()); print(version_string())")" = \
		"$(dpkg-query -W -f="\${Version}" cloud-init | sed "s/-.*//")" &&
	mkdir -p sadm && ext_cat seed.ext4 /var/lib/dpkg/status >sadm/status &&
	dpkg-query -s cloud-init >expect &&
	dpkg-query --admindir=sadm -s cloud-init >actual &&
	test_cmp expect actual &&
	links_of seed.ext4 | grep "cloud-init.target.wants" >actual &&
	test "$(wc -l <actual)" = 5
'

test_expect_success '--no-ssh --networkd: no OpenSSH or NetworkManager, networkd enabled' '
	"$FIXTURES/mkimage-debian-root.sh" nd.img --no-ssh --networkd &&
	part_fs_is nd.img 2 nd.ext4 TYPE=ext4 LABEL=writable &&
	debugfs -R "stat /usr/sbin/sshd" nd.ext4 2>&1 | grep -q "File not found" &&
	ext_ls nd.ext4 /etc/ssh >actual && test_cmp /dev/null actual &&
	ext_ls nd.ext4 /usr/sbin >actual &&
	printf ".\n..\n" >expect && test_cmp expect actual &&
	! ext_cat nd.ext4 /etc/passwd | grep -q "^sshd:" &&
	! ext_cat nd.ext4 /etc/shadow | grep -q "^sshd:" &&
	links_of nd.ext4 | grep -e networkd -e network1 -e network-generator >actual &&
	cat >expect <<-\EOF &&
	system/dbus-org.freedesktop.network1.service -> /lib/systemd/system/systemd-networkd.service
	system/multi-user.target.wants/systemd-networkd.service -> /lib/systemd/system/systemd-networkd.service
	system/network-online.target.wants/systemd-networkd-wait-online.service -> /lib/systemd/system/systemd-networkd-wait-online.service
	system/sockets.target.wants/systemd-networkd.socket -> /lib/systemd/system/systemd-networkd.socket
	system/sysinit.target.wants/systemd-network-generator.service -> /lib/systemd/system/systemd-network-generator.service
	EOF
	test_cmp expect actual &&
	! links_of nd.ext4 | grep -q -e NetworkManager -e ssh &&
	mkdir -p ndadm && ext_cat nd.ext4 /var/lib/dpkg/status >ndadm/status &&
	test_must_fail dpkg-query --admindir=ndadm -W openssh-server network-manager 2>err
'

test_expect_success '--ifupdown: ifup, the installer'\''s interfaces file as ifquery reads it, networking enabled' '
	"$FIXTURES/mkimage-debian-root.sh" ifu.img --ifupdown &&
	part_fs_is ifu.img 2 ifu.ext4 TYPE=ext4 LABEL=writable &&
	mkdir -p ifupdown && dpkg-deb -x "$(compgen -G "$DEB_CACHE/ifupdown_*.deb" | head -n 1)" ifupdown &&
	debugfs -R "dump /usr/sbin/ifup ifup" ifu.ext4 2>/dev/null &&
	cmp ifupdown/sbin/ifup ifup &&
	ext_cat ifu.ext4 /etc/network/interfaces >interfaces &&
	ifupdown/sbin/ifquery -i interfaces -l | grep -qx lo &&
	ifupdown/sbin/ifquery -i interfaces -l --allow=hotplug | grep -qx eth0 &&
	grep -qx "iface eth0 inet dhcp" interfaces &&
	grep -qx "source /etc/network/interfaces.d/\*" interfaces &&
	links_of ifu.ext4 | grep networking >actual &&
	cat >expect <<-\EOF &&
	system/multi-user.target.wants/networking.service -> /lib/systemd/system/networking.service
	system/network-online.target.wants/networking.service -> /lib/systemd/system/networking.service
	EOF
	test_cmp expect actual &&
	! links_of ifu.ext4 | grep -q NetworkManager &&
	debugfs -R "stat /usr/sbin/NetworkManager" ifu.ext4 2>&1 | grep -q "File not found"
'

test_expect_success 'a missing .deb stops the fixture, naming the package; options clash' '
	mkdir -p empty &&
	test_must_fail_with 1 env IMGPATCH_DEB_CACHE=$PWD/empty \
		"$FIXTURES/mkimage-debian-root.sh" none.img 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep -q "no keyboard-configuration .deb in $PWD/empty (run ci/install-deps.sh)$" err &&
	test ! -e none.img &&
	test_must_fail_with 2 "$FIXTURES/mkimage-debian-root.sh" both.img \
		--networkd --ifupdown 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep -q ": --networkd and --ifupdown exclude each other$" err &&
	test ! -e both.img
'

test_done
