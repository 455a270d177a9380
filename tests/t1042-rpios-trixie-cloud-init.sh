#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi OS trixie: the cloud-init recipes write the NoCloud seed on bootfs as Raspberry Pi Imager 2 does, keeping pi-gen'"'"'s files; read back with mtype, PyYAML and cloud-init schema; refusals leave the image byte-identical'
. "$(dirname "$0")/lib.sh"

test_require_tools mtype mcopy fsck.fat debugfs e2fsck python3 cloud-init
python3 -c 'import yaml' 2>/dev/null || test_require_tools python3-yaml

PIGEN=$FIXTURES/pi-gen-trixie
KEY="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHr9YH9aQ1Ixk4F5u0pB1Ji4aVtQ0rE4z2wJ9pO5b1Xc admin@lab"
HASH='$6$rpi$HjT0uYyb4yFJ3G2Zl3ErZbqHf8n3w7pJm1Dk5lqzM0uIMQ0uNf7lC5a2m0iQ2F0w8T0YkZ5Qz1QwY1u1J3x3m.'

# boot IMG FILE: FILE of bootfs (partition 1), read by mtools.
boot()
{
	mtype -i "$(part_mtools "$1" 1)" "::$2"
}

# yaml FILE CODE [ARG...]: FILE parsed by PyYAML as d, then CODE run.
yaml()
{
	python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
exec(sys.argv[2])' "$@"
}

# fat_clean IMG: bootfs passes fsck.fat -n.
fat_clean()
{
	extract_part "$1" 1 "$1.fat" && fsck.fat -n "$1.fat" >/dev/null
}

# schema FILE: cloud-init's own schema check (Debian 12's cloud-init
# 22.4). It knows every key these recipes write but rpi (Raspberry Pi's
# cc_raspberry_pi came later) and keyboard (cc_keyboard came in 23.1): as
# in cloud-init, an unknown top-level key is not an error there.
schema()
{
	cloud-init schema --config-file "$1" >schema.out 2>&1 ||
		{ cat schema.out; return 1; }
}

# put_boot IMG FILE NAME: FILE written over bootfs's NAME (a setup step).
put_boot()
{
	mcopy -o -i "$(part_mtools "$1" 1)" "$2" "::$3"
}

test_expect_success 'build: pi-gen'"'"'s trixie image carries its NoCloud seed byte for byte' '
	"$FIXTURES/mkimage-rpi.sh" tx.img --trixie &&
	for f in user-data meta-data network-config config.txt; do
		boot tx.img $f >$f.stock && test_cmp "$PIGEN/$f" $f.stock || return 1
	done &&
	yaml user-data.stock "assert d is None, d" &&
	yaml meta-data.stock "assert d == {\"dsmode\": \"local\", \"instance_id\": \"rpios-image\"}, d" &&
	yaml network-config.stock "assert d is None, d" &&
	"$FIXTURES/mkimage-rpi.sh" bookworm.img
'

test_expect_success 'cloud-init-first-user: Imager'"'"'s user entry after pi-gen'"'"'s comments' '
	cp tx.img u.img &&
	$IMGPATCH apply cloud-init-first-user u.img --set user=lab --set password_hash="$HASH" >plan &&
	grep "^p1 (vfat) /user-data: 3277 -> " plan &&
	$IMGPATCH recipes show cloud-init-first-user >show &&
	grep "set the top-level YAML entry .user. of nocloud:/user-data (a .#cloud-config. file)" show &&
	boot u.img user-data >ud &&
	head -c "$(wc -c <user-data.stock)" ud | cmp - user-data.stock &&
	yaml ud "assert d == {\"user\": {\"name\": \"lab\", \"shell\": \"/bin/bash\",
  \"lock_passwd\": False, \"passwd\": sys.argv[3], \"sudo\": None}}, d" "$HASH" &&
	schema ud && fat_clean u.img
'

test_expect_success 'cloud-init-first-user: applied again, already applied and byte-identical' '
	sum=$(sum_file u.img) && rm -f u.img.imgpatch-undo &&
	$IMGPATCH apply cloud-init-first-user u.img --set user=lab --set password_hash="$HASH" >out &&
	grep "already applied" out && test_file_unchanged u.img "$sum"
'

test_expect_success 'all of Imager'"'"'s settings in one user-data, each recipe keeping the others'"'"' keys' '
	cp tx.img all.img &&
	$IMGPATCH apply cloud-init-first-user all.img --set user=pi --set password_hash="$HASH" >/dev/null &&
	$IMGPATCH apply cloud-init-ssh all.img --set key="$KEY" --set password_auth=true >/dev/null &&
	$IMGPATCH apply cloud-init-locale all.img --set timezone=Europe/London --set keyboard=no \
		--set locale=en_GB.UTF-8 >/dev/null &&
	$IMGPATCH apply cloud-init-rpi-interfaces all.img --set spi=true --set i2c=true \
		--set serial_console=true >/dev/null &&
	$IMGPATCH apply cloud-init-hostname all.img --set hostname=lab-07 >/dev/null &&
	boot all.img user-data >ud &&
	head -1 ud | grep -x "#cloud-config" &&
	yaml ud "assert d[\"user\"][\"name\"] == \"pi\" and d[\"user\"][\"passwd\"] == sys.argv[3]
assert d[\"ssh_authorized_keys\"] == [sys.argv[4]], d
assert d[\"ssh_pwauth\"] is True
assert d[\"runcmd\"] == [[\"systemctl\", \"enable\", \"--now\", \"ssh\"]], d[\"runcmd\"]
assert d[\"timezone\"] == \"Europe/London\"
assert d[\"keyboard\"] == {\"model\": \"pc105\", \"layout\": \"no\"}, d[\"keyboard\"]
assert d[\"locale\"] == \"en_GB.UTF-8\"
assert d[\"rpi\"] == {\"interfaces\": {\"spi\": True, \"i2c\": True,
  \"serial\": {\"console\": True, \"hardware\": False}}}, d[\"rpi\"]
assert d[\"manage_etc_hosts\"] is True
assert len(d) == 9, sorted(d)" "$HASH" "$KEY" &&
	schema ud &&
	boot all.img meta-data >md &&
	yaml md "assert d == {\"dsmode\": \"local\", \"instance_id\": \"rpios-image\",
  \"instance-id\": \"lab-07\", \"local-hostname\": \"lab-07\"}, d" &&
	head -c "$(wc -c <meta-data.stock)" md | cmp - meta-data.stock &&
	boot all.img network-config | cmp - network-config.stock &&
	fat_clean all.img
'

test_expect_success 'new values replace the recipe'"'"'s own entries where they stand' '
	cp all.img again.img &&
	$IMGPATCH apply cloud-init-rpi-interfaces again.img --set i2c=true >/dev/null &&
	$IMGPATCH apply cloud-init-ssh again.img --set key="$KEY" >/dev/null &&
	boot again.img user-data >ud2 &&
	yaml ud2 "assert d[\"rpi\"][\"interfaces\"] == {\"spi\": False, \"i2c\": True,
  \"serial\": {\"console\": False, \"hardware\": False}}, d[\"rpi\"]
assert d[\"ssh_pwauth\"] is False and d[\"timezone\"] == \"Europe/London\"
assert len(d) == 9, sorted(d)" &&
	grep -n "^[a-z_]*:" ud >keys1 && grep -n "^[a-z_]*:" ud2 >keys2 &&
	sed "s/:.*//" keys1 >order1 && sed "s/:.*//" keys2 >order2 && test_cmp order1 order2 &&
	schema ud2
'

test_expect_success 'cloud-init-user: the users list, ssh_pwauth off' '
	cp tx.img cu.img &&
	$IMGPATCH apply cloud-init-user cu.img --set user=lab --set key="$KEY" >/dev/null &&
	boot cu.img user-data >ud &&
	yaml ud "u = d[\"users\"]
assert len(u) == 1 and u[0][\"name\"] == \"lab\" and u[0][\"ssh_authorized_keys\"] == [sys.argv[3]], u
assert u[0][\"lock_passwd\"] is True and d[\"ssh_pwauth\"] is False and len(d) == 2, d" "$KEY" &&
	schema ud && fat_clean cu.img
'

test_expect_success 'cloud-init-wifi: Imager'"'"'s country and hidden network in network-config' '
	cp tx.img w.img &&
	$IMGPATCH apply cloud-init-wifi w.img --set ssid="Lab Net" --set password="s3cret pass" \
		--set country=GB --set hidden=true >/dev/null &&
	boot w.img network-config >nc &&
	yaml nc "w = d[\"wifis\"][\"wlan0\"]
assert d[\"version\"] == 2 and d[\"ethernets\"][\"eth0\"][\"dhcp4\"] is True
assert w[\"regulatory-domain\"] == \"GB\" and w[\"dhcp4\"] is True
assert w[\"access-points\"] == {\"Lab Net\": {\"hidden\": True, \"password\": \"s3cret pass\"}}, w" &&
	boot w.img user-data | cmp - user-data.stock && fat_clean w.img
'

test_expect_success 'cloud-init-static-ip: a fixed address in network-config' '
	cp tx.img s.img &&
	$IMGPATCH apply cloud-init-static-ip s.img --set address=192.168.10.21/24 \
		--set gateway=192.168.10.1 --set dns=192.168.10.1,9.9.9.9 >/dev/null &&
	boot s.img network-config >nc &&
	yaml nc "e = d[\"ethernets\"][\"eth0\"]
assert e[\"addresses\"] == [\"192.168.10.21/24\"], e
assert e[\"routes\"] == [{\"to\": \"default\", \"via\": \"192.168.10.1\"}], e
assert e[\"nameservers\"] == {\"addresses\": [\"192.168.10.1\", \"9.9.9.9\"]}, e" &&
	fat_clean s.img
'

test_expect_success 'hostname (ext root) works on trixie too: /etc/hostname and /etc/hosts' '
	cp tx.img h.img &&
	$IMGPATCH apply hostname h.img --set hostname=lab-07 >/dev/null &&
	extract_part h.img 2 h.ext4 && e2fsck -fn h.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat /etc/hostname" h.ext4 2>/dev/null >host &&
	echo lab-07 >want && test_cmp want host &&
	debugfs -R "cat /etc/hosts" h.ext4 2>/dev/null | grep -x "127.0.1.1		lab-07"
'

test_expect_success 'write --each: one user, key, time zone and host name per card' '
	{ echo "target,user,password_hash,key,timezone,keyboard,locale,hostname" &&
	  echo "c1.img,lab1,$HASH,\"$KEY\",Europe/London,gb,en_GB.UTF-8,lab-01" &&
	  echo "c2.img,lab2,$HASH,\"$KEY\",Europe/Berlin,de,de_DE.UTF-8,lab-02"; } >cards.csv &&
	imgpatch write tx.img --apply cloud-init-first-user --apply cloud-init-ssh \
		--apply cloud-init-locale --apply cloud-init-hostname --each cards.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	boot c2.img user-data >ud &&
	yaml ud "assert d[\"user\"][\"name\"] == \"lab2\" and d[\"timezone\"] == \"Europe/Berlin\"
assert d[\"keyboard\"][\"layout\"] == \"de\" and d[\"locale\"] == \"de_DE.UTF-8\"" &&
	schema ud &&
	boot c1.img meta-data >md &&
	yaml md "assert d[\"local-hostname\"] == \"lab-01\" and d[\"instance-id\"] == \"lab-01\"" &&
	boot c1.img user-data >ud1 &&
	yaml ud1 "assert d[\"user\"][\"name\"] == \"lab1\" and d[\"timezone\"] == \"Europe/London\"" &&
	fat_clean c1.img && fat_clean c2.img
'

test_expect_success 'bookworm (no seed on bootfs): refused at match, byte-identical' '
	test_refuses bookworm.img "expected partition .nocloud., found: no cloud-init NoCloud seed" \
		$IMGPATCH apply cloud-init-locale bookworm.img --set timezone=UTC --set keyboard=us \
		--set locale=C.UTF-8 &&
	test_refuses bookworm.img "does not match this image" \
		$IMGPATCH apply cloud-init-wifi bookworm.img --set ssid=lab --set password=secret-1 --set country=GB
'

test_expect_success 'a user-data that is not cloud-config is refused, never merged into' '
	cp tx.img sh.img &&
	printf "#!/bin/sh\necho hello\n" >script && put_boot sh.img script user-data &&
	test_refuses sh.img "/user-data: its first line is .#!/bin/sh., not .#cloud-config.: cloud-init reads it as another kind of user-data" \
		$IMGPATCH apply cloud-init-locale sh.img --set timezone=UTC --set keyboard=us --set locale=C.UTF-8 &&
	printf "#cloud-config-archive\n- type: text/cloud-config\n" >archive && put_boot sh.img archive user-data &&
	test_refuses sh.img "its first line is .#cloud-config-archive." \
		$IMGPATCH apply cloud-init-first-user sh.img --set user=lab --set password_hash="$HASH"
'

test_expect_success 'a cloud-config imgpatch cannot follow line by line is refused with its line' '
	cp tx.img odd.img &&
	printf "#cloud-config\ntimezone: UTC\nlocale: C.UTF-8\ntimezone: Europe/Paris\n" >twice &&
	put_boot odd.img twice user-data &&
	test_refuses odd.img "key .timezone. appears twice (lines 2 and 4)" \
		$IMGPATCH apply cloud-init-locale odd.img --set timezone=UTC --set keyboard=us --set locale=C.UTF-8 &&
	printf "#cloud-config\nruncmd:\n\t- ls\n" >tab && put_boot odd.img tab user-data &&
	test_refuses odd.img "line 3: a tab where YAML indents" \
		$IMGPATCH apply cloud-init-ssh odd.img --set key="$KEY" &&
	printf "#cloud-config\n---\nuser: x\n" >doc && put_boot odd.img doc user-data &&
	test_refuses odd.img "line 2: .---. is not a .key: value. entry" \
		$IMGPATCH apply cloud-init-ssh odd.img --set key="$KEY" &&
	printf "#cloud-config\n{timezone: UTC}\n" >flow && put_boot odd.img flow user-data &&
	test_refuses odd.img "line 2: .{timezone: UTC}. is not a .key: value. entry" \
		$IMGPATCH apply cloud-init-ssh odd.img --set key="$KEY" &&
	printf "#cloud-config\r\ntimezone: UTC\r\n" >crlf && put_boot odd.img crlf user-data &&
	test_refuses odd.img "carriage return or NUL in the text" \
		$IMGPATCH apply cloud-init-ssh odd.img --set key="$KEY"
'

test_expect_success 'values that would add YAML of their own are refused before the image is read' '
	test_refuses_usage tx.img "parameter .keyboard. must be an XKB layout name" \
		$IMGPATCH apply cloud-init-locale tx.img --set timezone=UTC --set keyboard="gb\" }" --set locale=C.UTF-8 &&
	test_refuses_usage tx.img "parameter .timezone. must be a tz database name" \
		$IMGPATCH apply cloud-init-locale tx.img --set timezone="UTC: x" --set keyboard=us --set locale=C.UTF-8 &&
	test_refuses_usage tx.img "parameter .spi. must be one of: false, true" \
		$IMGPATCH apply cloud-init-rpi-interfaces tx.img --set spi=yes &&
	test_refuses_usage tx.img "parameter .password_hash. must be a crypt(3) hash" \
		$IMGPATCH apply cloud-init-first-user tx.img --set user=lab --set password_hash="x\" }"
'

test_done
