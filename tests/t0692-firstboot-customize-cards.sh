#!/bin/bash
# SPDX-License-Identifier: MIT
# timeout: 2400

test_description='two cards written from one image without cloud-init (host keys and machine-id baked in, as on a copied card), each customised by its row, proven by booting them: two machines'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/firstboot/lib.sh"

test_require_imgpatch
test_require_tools ssh ssh-keygen python3
fb_require

PASSWORD='lab card password 3'

test_expect_success 'the image (a copied card: keys and machine-id baked in), the table, the inputs' '
	fb_image plain base.img &&
	printf "%s\n" "$PASSWORD" >pw &&
	ssh-keygen -q -t ed25519 -N "" -C bob@lab -f key &&
	printf "/opt/lab/motd\n/home/bob/.ssh/authorized_keys\n" >paths &&
	printf "imgpatch-firstboot.service\n" >units &&
	{
		echo "target,hostname,static-ip,ssh-host-keys,machine-id"
		echo "card1.img,lab-01,10.0.2.51/24,new,new"
		echo "card2.img,lab-02,10.0.2.52/24,new,new"
	} >lab.csv
'

test_expect_success 'write: each card its row, the rest for all; each card s keys and id reported' '
	imgpatch write base.img --each lab.csv --json report.json \
		--gateway 10.0.2.2 --dns 10.0.2.3 --timezone America/New_York \
		--user bob --password bob:file:pw --ssh-inject bob:file:key.pub \
		--mkdir /opt/lab --write /opt/lab/motd:lab \
		--upload paths:/etc/imgpatch-probe.paths --upload units:/etc/imgpatch-probe.units \
		--firstboot-command "mkdir -p /var/lib/imgpatch-test && echo firstboot >>/var/lib/imgpatch-test/boots" \
		>out &&
	python3 "$TEST_DIR/json/validate.py" "$REPO_DIR/tool/schema/write.schema.json" report.json &&
	for c in card1 card2; do
		grep "^      $c.img: ssh-host-key: " out | sed "s/.*: [A-Z0-9]* //" | sort >$c.fps &&
		grep "^      $c.img: machine-id: " out | sed "s/.*: //" >$c.mid &&
		test $(wc -l <$c.fps) = 3 && test -s $c.mid || exit 1
	done &&
	! cmp card1.fps card2.fps && ! cmp card1.mid card2.mid &&
	! grep -F "$PASSWORD" out report.json
'

test_expect_success 'card 1, first boot: its name, address, user, keys and id; nothing failed' '
	fb_boot card1.img c1 --stay --guest-ip 10.0.2.51 --kernel-of base.img &&
	fb_probe c1 failed.count >n && echo 0 >want && test_cmp want n &&
	fb_probe c1 hostname | grep -x lab-01 &&
	fb_probe c1 ipv4.addr | grep "eth0 *inet 10.0.2.51/24" &&
	fb_probe c1 ipv4.route | grep "^default via 10.0.2.2 dev eth0" &&
	fb_probe c1 nm.dns | grep -x 10.0.2.3 &&
	fb_probe c1 tz.localtime | grep -x /usr/share/zoneinfo/America/New_York &&
	fb_probe c1 user.bob.groups | tr " " "\n" | grep -x sudo &&
	fb_probe c1 path | grep -x "/home/bob/.ssh/authorized_keys|regular file|600|bob|bob" &&
	fb_ssh c1 bob --key key id -un >who && echo bob >want && test_cmp want who &&
	fb_ssh c1 bob --password-file pw id -un >who && test_cmp want who &&
	fb_probe c1 ssh.host_key | awk "{ print \$3 }" | sort >probe.fps &&
	test_cmp card1.fps probe.fps &&
	fb_ssh_keyscan c1 >scan.fps && test_cmp card1.fps scan.fps &&
	fb_probe c1 machine_id >mid && test_cmp card1.mid mid &&
	fb_probe c1 boots.count >n && echo 1 >want && test_cmp want n &&
	fb_stop c1
'

test_expect_success 'card 1, second boot: the first-boot script did not run again' '
	fb_boot card1.img c1b --guest-ip 10.0.2.51 --kernel-of base.img &&
	fb_probe c1b boots.count >n && echo 1 >want && test_cmp want n &&
	fb_probe c1b failed.count >n && echo 0 >want && test_cmp want n &&
	fb_probe c1b unit.imgpatch-firstboot.service | grep -x enabled
'

test_expect_success 'card 2: another machine (its own name, address, host keys and id)' '
	fb_boot card2.img c2 --guest-ip 10.0.2.52 --kernel-of base.img &&
	fb_probe c2 failed.count >n && echo 0 >want && test_cmp want n &&
	fb_probe c2 hostname | grep -x lab-02 &&
	fb_probe c2 ipv4.addr | grep "eth0 *inet 10.0.2.52/24" &&
	fb_probe c2 ssh.host_key | awk "{ print \$3 }" | sort >probe2.fps &&
	test_cmp card2.fps probe2.fps &&
	fb_probe c2 machine_id >mid2 && test_cmp card2.mid mid2 &&
	! cmp probe.fps probe2.fps && ! cmp mid mid2
'

test_done
