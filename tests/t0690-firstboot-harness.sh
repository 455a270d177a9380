#!/bin/bash
# SPDX-License-Identifier: MIT
# timeout: 2400
test_description='the first-boot harness: Debian 12 images laid out as Ubuntu preinstalled ones boot unchanged under QEMU, and the probe reports what they became'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/firstboot/lib.sh"

fb_require

# probe_is DIR KEY VALUE: the probe of DIR reported exactly VALUE for KEY.
probe_is()
{
	local -; set +x
	local got

	got=$(fb_probe "$1" "$2") || { _tl_complain "probe_is: no $2 in $1/probe.txt"; return 1; }
	[ "$got" = "$3" ] ||
		{ _tl_complain "probe_is: $2 is '$got', not '$3'"; return 1; }
}

# keys_match DIR: the fingerprints sshd shows through the forward are the
# ones the probe read from the host keys' files. (cloud-init 22.4 also
# makes a DSA key, which OpenSSH 9.2's sshd does not load by default.)
keys_match()
{
	fb_ssh_keyscan "$1" >"$1/scanned" &&
	fb_probe "$1" ssh.host_key | awk '$1 != "DSA" { print $3 }' | sort >"$1/probed" &&
	test -s "$1/probed" &&
	test_cmp "$1/probed" "$1/scanned"
}

# running_clean DIR: the system started with no failed unit and has its
# DHCP address from QEMU on eth0.
running_clean()
{
	probe_is "$1" system.state running &&
	probe_is "$1" failed.count 0 &&
	fb_probe "$1" ipv4.addr >"$1/addr" &&
	grep -E "^[0-9]+: eth0 +inet 10\.0\.2\.15/24 .*dynamic" "$1/addr" &&
	fb_probe "$1" ipv4.route | grep -x "default via 10.0.2.2 dev eth0 .*"
}

test_expect_success 'cloud-init variant: the image is Ubuntu-like (MBR, system-boot with the seed, writable)' '
	fb_image cloud-init ci.img &&
	test -s ci.img.vmlinuz && test -s ci.img.initrd &&
	sfdisk -d ci.img >table &&
	grep -q "^label: dos" table &&
	mdir -b -i "$(part_mtools ci.img 1)" ::/ | sort >fat &&
	printf "::/%s\n" initrd.img meta-data network-config user-data vmlinuz >expect &&
	test_cmp expect fat &&
	mtype -i "$(part_mtools ci.img 1)" ::/user-data >user-data &&
	cmp user-data "$TEST_DIR/firstboot/seed/user-data" &&
	extract_part ci.img 2 root.ext4 &&
	e2fsck -fn root.ext4 >/dev/null &&
	test "$(blkid -o value -s LABEL root.ext4)" = writable &&
	debugfs -R "cat /etc/cloud/cloud.cfg.d/99-fake_cloud.cfg" root.ext4 2>/dev/null >cfg &&
	grep -x "    fs_label: system-boot" cfg &&
	debugfs -R "stat /etc/machine-id" root.ext4 2>/dev/null | grep -q "Size: 0$" &&
	rm root.ext4
'

# The image also gets what a test puts in one for the probe: the paths
# and units it reports on, and a line of a first-boot script.
test_expect_success 'plain variant: the image has its host keys and machine-id baked in' '
	fb_image plain plain.img &&
	extract_part plain.img 2 root.ext4 &&
	debugfs -R "cat /etc/machine-id" root.ext4 2>/dev/null >machine-id &&
	grep -xE "[0-9a-f]{32}" machine-id &&
	debugfs -R "ls -l /etc/ssh" root.ext4 2>/dev/null >ssh-ls &&
	grep -q "ssh_host_ed25519_key.pub" ssh-ls &&
	for t in rsa ecdsa ed25519; do
		debugfs -R "cat /etc/ssh/ssh_host_${t}_key.pub" root.ext4 2>/dev/null >$t.pub &&
		ssh-keygen -lf $t.pub | awk "{ print \$2 }" || exit 1
	done | sort >baked &&
	test "$(wc -l <baked)" = 3 &&
	debugfs -R "stat /usr/bin/cloud-init" root.ext4 2>&1 | grep -q "File not found" &&
	printf "%s\n" /etc/ssh/sshd_config /etc/localtime /nonexistent >paths &&
	printf "%s\n" ssh.service imgpatch-probe.service >units &&
	echo "first script ran" >boots &&
	debugfs -w -R "write paths /etc/imgpatch-probe.paths" root.ext4 &&
	debugfs -w -R "write units /etc/imgpatch-probe.units" root.ext4 &&
	debugfs -w -R "write boots /var/lib/imgpatch-test/boots" root.ext4 &&
	e2fsck -fn root.ext4 >/dev/null &&
	put_part plain.img 2 root.ext4 &&
	rm root.ext4
'

# Both machines boot at once: under TCG a boot is minutes of CPU, and two
# share the machine better than they queue.
test_expect_success 'both variants boot to the probe'\''s report and stay up' '
	fb_boot ci.img ci1 --stay >ci1.out 2>&1 &
	ci_pid=$! &&
	plain_rc=0 &&
	fb_boot plain.img plain1 --stay || plain_rc=$?
	ci_rc=0 &&
	wait $ci_pid || ci_rc=$?
	cat ci1.out &&
	echo "cloud-init first boot: $(cat ci1/boot-seconds)s to the report" &&
	echo "plain first boot: $(cat plain1/boot-seconds)s to the report" &&
	test $ci_rc = 0 && test $plain_rc = 0
'

test_expect_success 'cloud-init variant: first boot runs the seed as shipped' '
	running_clean ci1 &&
	probe_is ci1 cloud_init.status done &&
	probe_is ci1 cloud_init.instance_id nocloud &&
	fb_probe ci1 user | grep -x ubuntu &&
	fb_probe ci1 user.ubuntu.groups | grep -w sudo &&
	test "$(fb_probe ci1 machine_id | wc -c)" = 33 &&
	probe_is ci1 hostname debian
'

test_expect_success 'cloud-init variant: sshd shows the host keys cloud-init made' '
	test "$(fb_probe ci1 ssh.host_key | wc -l)" -ge 2 &&
	keys_match ci1
'

# The seed sets ubuntu's password "ubuntu" and expires it (chpasswd,
# expire: true) and lets sshd take passwords (ssh_pwauth): the login is
# accepted, then the password must be changed before anything runs.
test_expect_success 'cloud-init variant: the seed'\''s password logs in over SSH, expired' '
	echo ubuntu >pw &&
	test_must_fail fb_ssh ci1 ubuntu --password-file pw true >ssh.err 2>&1 &&
	cat ssh.err &&
	grep -q "password has expired" ssh.err &&
	fb_stop ci1
'

test_expect_success 'plain variant: first boot keeps the baked host keys and machine-id' '
	running_clean plain1 &&
	probe_is plain1 machine_id "$(cat machine-id)" &&
	fb_probe plain1 ssh.host_key | awk "{ print \$3 }" | sort >probed &&
	test_cmp baked probed &&
	keys_match plain1 &&
	test_must_fail fb_probe plain1 cloud_init.status
'

test_expect_success 'plain variant: the probe reports the listed paths and units and the boots file' '
	fb_probe plain1 path >got &&
	cat >expect <<-\EOF &&
	/etc/ssh/sshd_config|regular file|644|root|root
	/etc/localtime|symbolic link|777|root|root
	/nonexistent|missing
	EOF
	test_cmp expect got &&
	probe_is plain1 path.link "/etc/localtime|/usr/share/zoneinfo/Etc/UTC" &&
	probe_is plain1 unit.ssh.service enabled &&
	probe_is plain1 unit.imgpatch-probe.service enabled &&
	probe_is plain1 boots "first script ran" &&
	probe_is plain1 boots.count 1 &&
	fb_stop plain1
'

test_done
