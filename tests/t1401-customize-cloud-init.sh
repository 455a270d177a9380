#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='customize on an image with a cloud-init seed: user-data, network-config and meta-data as the image s cloud-init reads them'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mke2fs debugfs e2fsck fsck.fat mtype \
	ssh-keygen python3 cloud-init dpkg-deb
test_require_debian_root

PASSWORD='seed password 42'

# seed_file NAME: a file of the seed (the FAT) of s.img.
seed_file()
{
	mtype -i "$(part_mtools s.img 1)" "::/$1"
}

test_expect_success 'the image (Ubuntu s layout: the seed on system-boot) and the inputs' '
	"$FIXTURES/mkimage-debian-root.sh" --seed seed.img &&
	printf "%s\n" "$PASSWORD" >pw &&
	ssh-keygen -q -t ed25519 -N "" -C bob@lab -f key &&
	cp seed.img s.img
'

test_expect_success 'identity and network go into the seed, the way chosen and said' '
	imgpatch customize s.img --hostname lab-09 --timezone Europe/Berlin --keymap de \
		--locale de_DE.UTF-8 --user bob --password bob:file:pw --ssh-inject bob:file:key.pub \
		--static-ip 10.0.2.50/24 --gateway 10.0.2.2 --dns 10.0.2.3 \
		--ssh-host-keys new >out 2>err &&
	test_cmp /dev/null err &&
	grep "^  hostname lab-09: cloud-init.s user-data and meta-data (the image runs cloud-init with a NoCloud seed)$" out &&
	grep "^  network: the seed.s network-config, as cloud-init 22.4 reads it$" out &&
	grep "^p1 (vfat) /user-data: .* (holds a secret: not shown)$" out &&
	! grep -F "$PASSWORD" out
'

test_expect_success 'cloud-init s own schema check takes the user-data' '
	seed_file user-data >user-data &&
	cloud-init schema --config-file user-data >schema.out 2>&1 &&
	grep "^Valid cloud-config: user-data$" schema.out
'

test_expect_success 'user-data: the image s entries kept, ours added' '
	seed_file user-data >user-data &&
	head -n 1 user-data | grep -x "#cloud-config" &&
	grep -x "ssh_pwauth: true" user-data &&
	grep -x "hostname: \"lab-09\"" user-data &&
	grep -x "timezone: \"Europe/Berlin\"" user-data &&
	grep -x "locale: \"de_DE.UTF-8\"" user-data &&
	grep -x "  layout: \"de\"" user-data &&
	grep -x "  - default" user-data &&
	grep -x "  - name: \"bob\"" user-data &&
	grep -F "\"$(cut -d" " -f1-2 key.pub)" user-data &&
	grep -x "ssh_deletekeys: false" user-data
'

test_expect_success 'the user s hash in user-data is one libcrypt takes for the password' '
	sed -n "s/^    passwd: \"\(.*\)\"$/\1/p" user-data >hash &&
	test $(wc -l <hash) = 1 &&
	python3 -W ignore -c "import crypt, sys; h = open(\"hash\").read().strip(); sys.exit(crypt.crypt(sys.argv[1], h) != h)" "$PASSWORD"
'

test_expect_success 'network-config: what cloud-init 22.4 renders has the address and the route' '
	seed_file network-config >network-config &&
	! grep "to: default" network-config &&
	cloud-init devel net-convert -p network-config -k yaml -d rendered -D debian \
		-O network-manager >convert.out 2>&1 &&
	cat rendered/etc/NetworkManager/system-connections/*.nmconnection >nm &&
	grep -x "address1=10.0.2.50/24" nm &&
	grep -x "route1=0.0.0.0/0,10.0.2.2" nm
'

test_expect_success 'meta-data: a new instance-id, so that cloud-init runs again' '
	mtype -i "$(part_mtools seed.img 1)" ::/meta-data >old-meta &&
	seed_file meta-data >meta-data &&
	grep -x "instance-id: \"imgpatch-[0-9a-f]\{16\}\"" meta-data &&
	grep -x "local-hostname: \"lab-09\"" meta-data &&
	! grep "instance-id: \"imgpatch" old-meta
'

test_expect_success 'the host keys are in the root, and cloud-init is told to keep them' '
	extract_part s.img 2 root.ext4 && e2fsck -fn root.ext4 &&
	debugfs -R "cat /etc/ssh/ssh_host_ed25519_key.pub" root.ext4 2>/dev/null >ed.pub &&
	ssh-keygen -lf ed.pub | cut -d" " -f2 >fp &&
	grep -x "ssh-host-key: ED25519 $(cat fp)" out &&
	extract_part s.img 1 boot.fat && fsck.fat -n boot.fat
'

test_expect_success 'a second run changes nothing (the hash that fits is kept, the id too)' '
	imgpatch customize s.img --hostname lab-09 --timezone Europe/Berlin --keymap de \
		--locale de_DE.UTF-8 --user bob --password bob:file:pw --ssh-inject bob:file:key.pub \
		--static-ip 10.0.2.50/24 --gateway 10.0.2.2 --dns 10.0.2.3 >out2 &&
	grep -x "nothing to change: s.img is already patched" out2
'

test_expect_success 'Wi-Fi where the image s cloud-init does not render it through netplan is refused' '
	echo "wifi passphrase 1" >psk &&
	refused_intact seed.img 1 "imgpatch: seed.img: .*netplan.*" \
		imgpatch customize seed.img --wifi lab-net --wifi-psk-file psk &&
	! grep -F "wifi passphrase 1" err out
'

test_done
