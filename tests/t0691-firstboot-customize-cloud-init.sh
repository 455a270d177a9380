#!/bin/bash
# SPDX-License-Identifier: MIT
# timeout: 2400

test_description='customize on an image with a cloud-init seed (Ubuntu s layout), proven by booting it: what systemd, cloud-init, NetworkManager and sshd made of it'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/firstboot/lib.sh"

test_require_imgpatch
test_require_tools ssh ssh-keygen python3
fb_require

PASSWORD='first boot password 91'
IP=10.0.2.50

test_expect_success 'the image (cached root, seed on system-boot) and the inputs' '
	fb_image cloud-init base.img &&
	printf "%s\n" "$PASSWORD" >pw &&
	ssh-keygen -q -t ed25519 -N "" -C alice@lab -f key &&
	printf "/opt/lab\n/opt/lab/hello.txt\n/opt/hello\n/home/alice/.ssh\n" >paths &&
	printf "apt-daily.timer\nssh.service\n" >units &&
	cp base.img c.img
'

test_expect_success 'customize: identity, user, key, address, host keys, files, a first-boot script' '
	imgpatch customize c.img --hostname lab-ci --timezone Europe/Berlin --keymap de \
		--locale de_DE.UTF-8 --user alice --password alice:file:pw \
		--ssh-inject alice:file:key.pub \
		--static-ip $IP/24 --gateway 10.0.2.2 --dns 10.0.2.3 \
		--ssh-host-keys new --machine-id new \
		--mkdir /opt/lab --write /opt/lab/hello.txt:hello --chmod 0640:/opt/lab/hello.txt \
		--link /opt/lab/hello.txt:/opt/hello \
		--upload paths:/etc/imgpatch-probe.paths --upload units:/etc/imgpatch-probe.units \
		--mask apt-daily.timer \
		--firstboot-command "mkdir -p /var/lib/imgpatch-test && echo firstboot >>/var/lib/imgpatch-test/boots" \
		--json report.json >out &&
	grep "^  cloud-init seed on p1 (vfat): user-data, meta-data instance-id imgpatch-" out &&
	sed -n "s/^ssh-host-key: [A-Z0-9]* //p" out | sort >reported.fps &&
	sed -n "s/^machine-id: //p" out >reported.mid &&
	test -s reported.fps && test -s reported.mid
'

test_expect_success 'first boot: no unit failed, cloud-init done' '
	fb_boot c.img boot1 --stay --guest-ip $IP --kernel-of base.img &&
	fb_probe boot1 failed.count >n && echo 0 >want && test_cmp want n &&
	fb_probe boot1 cloud_init.status | grep -x done
'

test_expect_success 'the host name, time zone, keyboard and locale took effect' '
	fb_probe boot1 hostname | grep -x lab-ci &&
	fb_probe boot1 tz.localtime | grep -x /usr/share/zoneinfo/Europe/Berlin &&
	fb_probe boot1 keyboard | grep "XKBLAYOUT=\"\?de\"\?" &&
	fb_probe boot1 locale | grep "LANG=de_DE.UTF-8"
'

test_expect_success 'the user: in sudo, the key logs in, and the password works' '
	fb_probe boot1 user | grep -x alice &&
	fb_probe boot1 user.alice.groups | tr " " "\n" | grep -x sudo &&
	fb_probe boot1 user.alice.authorized_key | grep -F "$(cut -d" " -f2 key.pub)" &&
	fb_ssh boot1 alice --key key id -un >who && echo alice >want && test_cmp want who &&
	fb_ssh boot1 alice --password-file pw id -un >who && test_cmp want who
'

test_expect_success 'the static address, the default route and the name server' '
	fb_probe boot1 ipv4.addr | grep "eth0 *inet $IP/24" &&
	fb_probe boot1 ipv4.route | grep "^default via 10.0.2.2 dev eth0" &&
	fb_probe boot1 dns.resolv | grep -x "nameserver 10.0.2.3"
'

test_expect_success 'the host keys are the reported ones, as the probe and sshd show them' '
	fb_probe boot1 ssh.host_key | awk "{ print \$3 }" | sort >probe.fps &&
	test_cmp reported.fps probe.fps &&
	fb_ssh_keyscan boot1 >scan.fps &&
	test_cmp reported.fps scan.fps &&
	fb_probe boot1 machine_id >mid && test_cmp reported.mid mid
'

test_expect_success 'the files with their modes and links, the masked unit' '
	fb_probe boot1 path | grep -x "/opt/lab/hello.txt|regular file|640|root|root" &&
	fb_probe boot1 path.link | grep -x "/opt/hello|/opt/lab/hello.txt" &&
	fb_probe boot1 path | grep -x "/home/alice/.ssh|directory|700|alice|alice" &&
	fb_probe boot1 unit.apt-daily.timer | grep -x masked
'

test_expect_success 'the first-boot script ran once' '
	fb_probe boot1 boots.count >n && echo 1 >want && test_cmp want n &&
	fb_stop boot1
'

test_expect_success 'second boot: the script did not run again, nothing failed, the name stays' '
	fb_boot c.img boot2 --guest-ip $IP --kernel-of base.img &&
	fb_probe boot2 boots.count >n && echo 1 >want && test_cmp want n &&
	fb_probe boot2 failed.count >n && echo 0 >want && test_cmp want n &&
	fb_probe boot2 hostname | grep -x lab-ci &&
	fb_probe boot2 machine_id >mid && test_cmp reported.mid mid
'

test_done
