#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='recipe parameter values: one line, and each shipped recipe'"'"'s patterns, checked by what reads the files'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools python3 sfdisk debugfs e2fsck fsck.fat mtype ssh-keygen
export IMGPATCH_RECIPE_PATH="$IMGPATCH_BUILD/recipes"

KEY="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIlab01 admin@lab"

# refuses IMG PATTERN CMD...: exit status 2 (a value typed wrong), one line on stderr that holds
# PATTERN (grep -E), nothing on stdout, and IMG byte-identical.
refuses()
{
	img=$1 pattern=$2
	shift 2
	sum=$(sum_file "$img") &&
	test_must_fail_with 2 "$@" >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -E -q -- "$pattern" err &&
	test ! -s out &&
	test_file_unchanged "$img" "$sum"
}

# root_cat IMG N PATH: a file of the ext4 partition N, read with debugfs.
root_cat()
{
	extract_part "$1" "$2" part.ext4 &&
	e2fsck -fn part.ext4 >/dev/null 2>&1 &&
	debugfs -R "cat $3" part.ext4 2>/dev/null
}

# boot_cat IMG PATH: a file of the FAT partition 1, read with mtools.
boot_cat()
{
	extract_part "$1" 1 part.fat && fsck.fat -n part.fat >/dev/null &&
	mtype -i part.fat "::$2"
}

# yaml FILE PYTHON [ARG...]: runs PYTHON with d bound to FILE read by PyYAML,
# the parser cloud-init uses; the ARGs are sys.argv[3:].
yaml()
{
	python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
exec(sys.argv[2])' "$@"
}

# The YAML files are read back by PyYAML (python3-yaml, from ci/install-deps.sh).
python3 -c 'import yaml' 2>/dev/null || test_require_tools python3-yaml

test_expect_success 'build fixtures: Ubuntu-like with sshd drop-ins, Raspberry Pi OS, Armbian' '
	make_kv260 kv.img &&
	extract_part kv.img 2 root.ext4 &&
	debugfs -w -R "mkdir /etc/ssh" root.ext4 &&
	debugfs -w -R "mkdir /etc/ssh/sshd_config.d" root.ext4 &&
	put_part kv.img 2 root.ext4 &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	"$FIXTURES/mkimage-armbian.sh" arm.img &&
	extract_part arm.img 1 arm.ext4 &&
	debugfs -w -R "mkdir /root" arm.ext4 &&
	: >empty && debugfs -w -R "write empty /root/.not_logged_in_yet" arm.ext4 &&
	debugfs -w -R "write empty /etc/hostname" arm.ext4 &&
	put_part arm.img 1 arm.ext4
'

test_expect_success 'recipes show: the rule in words and the pattern' '
	$IMGPATCH recipes show hostname >show &&
	grep -x "      must be one DNS label: letters, digits and .-. (not first or last), at" show &&
	grep -x "      pattern: \[A-Za-z0-9\](\[A-Za-z0-9-\]{0,61}\[A-Za-z0-9\])?" show
'

test_expect_success 'recipes show --json: pattern and pattern_text of every parameter' '
	$IMGPATCH recipes show cloud-init-wifi --json >wifi.json &&
	python3 - wifi.json <<-\EOF
	import json, sys
	p = {q["name"]: q for q in json.load(open(sys.argv[1]))["parameters"]}
	assert p["ssid"]["pattern"] == "[^\"\\\\]{1,32}", p["ssid"]
	assert p["password"]["pattern_text"].startswith("a WPA passphrase"), p
	EOF
	$IMGPATCH recipes show kv260-uhs --json >kv.json &&
	python3 -c "import json, sys; p = json.load(open(sys.argv[1]))[\"parameters\"]; \
assert all(q[\"pattern\"] is None and q[\"pattern_text\"] is None for q in p), p" kv.json
'

# ------------------------------------------------------------ hostname

test_expect_success 'hostname: a 63-character label is written as given' '
	name=lab-$(printf "x%.0s" $(seq 58))9 &&
	test ${#name} = 63 &&
	cp kv.img h.img &&
	$IMGPATCH apply hostname h.img --set hostname=$name >/dev/null &&
	root_cat h.img 2 /etc/hostname >host &&
	echo $name >want && test_cmp want host &&
	# what systemd keeps of it: one label, letters, digits, inner hyphens
	grep -E -x "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?" host
'

test_expect_success 'hostname: space, dot, leading hyphen, 64 characters, newline refused' '
	for bad in "lab 07" lab.example -lab lab- "" $(printf "a%.0s" $(seq 64)); do
		refuses kv.img "^imgpatch: recipe .hostname.: parameter .hostname. must be one DNS label: .* \(got .$bad.\)$" \
			$IMGPATCH apply hostname kv.img --set hostname="$bad" || return 1
	done &&
	refuses kv.img "must be one line without control characters \(got .lab\\\\n127.0.0.1 evil.\)$" \
		$IMGPATCH apply hostname kv.img --set hostname="$(printf "lab\n127.0.0.1 evil")"
'

test_expect_success 'any recipe: ESC, tab, CR and DEL refused, shown escaped' '
	refuses kv.img "got .lab\\\\x1b\[2J.\)$" \
		$IMGPATCH apply hostname kv.img --set hostname="$(printf "lab\033[2J")" &&
	refuses kv.img "got .a\\\\tb.\)$" \
		$IMGPATCH apply ssh-key kv.img --set user="$(printf "a\tb")" --set key="$KEY" &&
	refuses kv.img "got .lab\\\\r.\)$" \
		$IMGPATCH apply cloud-init-hostname kv.img --set hostname="$(printf "lab\r")" &&
	refuses kv.img "got .x\\\\x7f.\)$" \
		$IMGPATCH apply kria-fit-sd-uhs kv.img --set fdt="$(printf "x\177")"
'

# ---------------------------------------------------------- cloud-init

test_expect_success 'cloud-init-hostname: meta-data YAML with the name as text' '
	cp kv.img ch.img &&
	$IMGPATCH apply cloud-init-hostname ch.img --set hostname=Lab-07 >/dev/null &&
	boot_cat ch.img /meta-data >md &&
	printf "instance-id: Lab-07\nlocal-hostname: Lab-07\n" >want && test_cmp want md &&
	yaml md "assert d == {\"instance-id\": \"Lab-07\", \"local-hostname\": \"Lab-07\"}, d"
'

test_expect_success 'cloud-init-hostname: a YAML mapping or a second line cannot get in' '
	refuses kv.img "parameter .hostname. must be one DNS label" \
		$IMGPATCH apply cloud-init-hostname kv.img --set hostname="lab: {x: 1}" &&
	refuses kv.img "parameter .hostname. must be one line" \
		$IMGPATCH apply cloud-init-hostname kv.img --set hostname="$(printf "lab\ninstance-id: x")"
'

test_expect_success 'cloud-init-user: user-data YAML with the key as written, odd comment too' '
	key="ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ== it'"'"'s #1: {admin} [lab] & \$HOME" &&
	cp kv.img cu.img &&
	$IMGPATCH apply cloud-init-user cu.img --set user=lab_2-a --set key="$key" >/dev/null &&
	boot_cat cu.img /user-data >ud &&
	head -1 ud | grep -x "#cloud-config" &&
	grep -x "  - name: lab_2-a" ud &&
	yaml ud "u = d[\"users\"]; assert len(u) == 1 and u[0][\"name\"] == \"lab_2-a\", d
assert u[0][\"ssh_authorized_keys\"] == [sys.argv[3]], u
assert u[0][\"sudo\"] == \"ALL=(ALL) NOPASSWD:ALL\" and d[\"ssh_pwauth\"] is False, d" "$key"
'

test_expect_success 'cloud-init-user: an injected sudo line, a quote, a backslash, a bad key refused' '
	refuses kv.img "^imgpatch: recipe .cloud-init-user.: parameter .user. must be one line without control characters \(got .lab\\\\n    sudo: ALL=\(ALL\) NOPASSWD:ALL.\)$" \
		$IMGPATCH apply cloud-init-user kv.img --set user="$(printf "lab\n    sudo: ALL=(ALL) NOPASSWD:ALL")" --set key="$KEY" &&
	refuses kv.img "parameter .key. must be one OpenSSH public key line" \
		$IMGPATCH apply cloud-init-user kv.img --set user=lab --set key="$KEY\", \"ssh-ed25519 AAAA evil" &&
	refuses kv.img "parameter .key. must be one OpenSSH public key line" \
		$IMGPATCH apply cloud-init-user kv.img --set user=lab --set key="$KEY \\" &&
	refuses kv.img "parameter .key. must be one OpenSSH public key line" \
		$IMGPATCH apply cloud-init-user kv.img --set user=lab --set key="ssh-foo AAAA admin" &&
	refuses kv.img "parameter .key. must be one OpenSSH public key line" \
		$IMGPATCH apply cloud-init-user kv.img --set user=lab --set key="ssh-ed25519" &&
	for bad in Lab 1lab "lab x" "lab:" $(printf "a%.0s" $(seq 33)); do
		refuses kv.img "parameter .user. must be a user name: " \
			$IMGPATCH apply cloud-init-user kv.img --set user="$bad" --set key="$KEY" || return 1
	done
'

test_expect_success 'cloud-init-wifi: odd but valid SSID and passphrase reach netplan as written' '
	ssid="Lab #2: it'"'"'s {5 GHz}" pw="p@ss w0rd'"'"'#{}[]:,&*!|>%" &&
	cp kv.img cw.img &&
	$IMGPATCH apply cloud-init-wifi cw.img --set ssid="$ssid" --set password="$pw" --set country=GB >/dev/null &&
	boot_cat cw.img /network-config >nc &&
	hex=$(printf "%064x" 7) && ssid32=$(printf "s%.0s" $(seq 32)) &&
	cp kv.img cw2.img &&
	$IMGPATCH apply cloud-init-wifi cw2.img --set ssid="$ssid32" --set password="$hex" --set country=DE --set hidden=true >/dev/null &&
	boot_cat cw2.img /network-config >nc2 &&
	yaml nc "ap = d[\"wifis\"][\"wlan0\"][\"access-points\"]
assert ap == {sys.argv[3]: {\"password\": sys.argv[4], \"hidden\": False}}, ap
assert d[\"wifis\"][\"wlan0\"][\"regulatory-domain\"] == \"GB\"" "$ssid" "$pw" &&
	yaml nc2 "ap = d[\"wifis\"][\"wlan0\"][\"access-points\"]
assert ap == {sys.argv[3]: {\"password\": sys.argv[4], \"hidden\": True}}, ap
assert d[\"wifis\"][\"wlan0\"][\"regulatory-domain\"] == \"DE\"" "$ssid32" "$hex"
'

test_expect_success 'cloud-init-wifi: quote, backslash, 33 bytes, short or long passphrase refused' '
	for bad in "lab\"net" "lab\\net" "" $(printf "s%.0s" $(seq 33)); do
		refuses kv.img "parameter .ssid. must be a network name of 1 to 32 bytes" \
			$IMGPATCH apply cloud-init-wifi kv.img --set ssid="$bad" --set password=secret-1 --set country=GB || return 1
	done &&
	for bad in 1234567 "secret\"1" "secret\\1" $(printf "p%.0s" $(seq 64)) $(printf "%065x" 1) "$(printf "secret-\303\251")"; do
		refuses kv.img "parameter .password. must be a WPA passphrase" \
			$IMGPATCH apply cloud-init-wifi kv.img --set ssid=lab --set password="$bad" --set country=GB || return 1
	done
'

test_expect_success 'cloud-init-static-ip: IPv4 and IPv6, read back as addresses' '
	cp kv.img cs.img &&
	$IMGPATCH apply cloud-init-static-ip cs.img --set address=2001:db8:10::21/64 \
		--set gateway=fe80::1 --set dns="2001:db8::53, 9.9.9.9" --set interface=enp1s0 >/dev/null &&
	boot_cat cs.img /network-config >nc &&
	grep -x "    addresses: \[2001:db8:10::21/64\]" nc &&
	yaml nc "import ipaddress
e = d[\"ethernets\"][\"enp1s0\"]
ipaddress.ip_interface(e[\"addresses\"][0])
ipaddress.ip_address(e[\"routes\"][0][\"via\"])
assert [str(ipaddress.ip_address(a)) for a in e[\"nameservers\"][\"addresses\"]] == [\"2001:db8::53\", \"9.9.9.9\"], e"
'

test_expect_success 'cloud-init-static-ip: bad address, prefix, list or interface refused' '
	for bad in address=192.168.10.21 address=192.168.10.256/24 address=192.168.10.21/33 \
		address=::1/128 address=fe80::/64 "address=10.0.0.1/8]" gateway=::1 \
		"gateway=1.1.1.1 # x" "dns=1.1.1.1], evil: [x" "dns=1.1.1.1,,2.2.2.2" dns= \
		"interface=eth0: {}" interface=-eth0 interface=abcdefghijklmnop "interface=a b"; do
		args=() &&
		for s in address=192.168.10.21/24 gateway=192.168.10.1 dns=9.9.9.9; do
			[ "${s%%=*}" = "${bad%%=*}" ] || args+=(--set "$s")
		done &&
		refuses kv.img "parameter .${bad%%=*}. must be " \
			$IMGPATCH apply cloud-init-static-ip kv.img "${args[@]}" --set "$bad" ||
		return 1
	done
'

# ---------------------------------------------------------- Armbian

test_expect_success 'armbian-firstrun: bash -n passes and sourcing gives the values back' '
	pw="pw \$(reboot) \`id\` \"x\" \\ & ;" &&
	cp arm.img ar.img &&
	$IMGPATCH apply armbian-firstrun ar.img --set user=lab2 --set password="$pw" \
		--set root_password="r00t!" --set locale=sr_RS.UTF-8@latin \
		--set timezone=America/Argentina/Buenos_Aires --set wifi=yes \
		--set wifi_ssid="Lab #2 {x}" --set wifi_key="k3y \$x & [y]" --set wifi_country=DE >/dev/null &&
	root_cat ar.img 1 /root/.not_logged_in_yet >preset &&
	bash -n preset &&
	(. ./preset &&
	 test "$PRESET_USER_NAME" = lab2 && test "$PRESET_USER_PASSWORD" = "$pw" &&
	 test "$PRESET_ROOT_PASSWORD" = "r00t!" && test "$PRESET_LOCALE" = sr_RS.UTF-8@latin &&
	 test "$PRESET_TIMEZONE" = America/Argentina/Buenos_Aires &&
	 test "$PRESET_NET_WIFI_SSID" = "Lab #2 {x}" && test "$PRESET_NET_WIFI_KEY" = "k3y \$x & [y]" &&
	 test "$PRESET_NET_WIFI_COUNTRYCODE" = DE)
'

test_expect_success 'armbian-firstrun: a quote, a bad locale, time zone, SSID or key refused' '
	set -- --set user=lab --set password=pw --set root_password=r &&
	refuses arm.img "parameter .password. must be a non-empty password without \"." \
		$IMGPATCH apply armbian-firstrun arm.img --set user=lab --set root_password=r \
		--set password="pw'"'"'; reboot; '"'"'" &&
	refuses arm.img "parameter .root_password. must be a non-empty password" \
		$IMGPATCH apply armbian-firstrun arm.img --set user=lab --set password=pw --set root_password= &&
	refuses arm.img "parameter .user. must be a user name Armbian accepts" \
		$IMGPATCH apply armbian-firstrun arm.img --set password=pw --set root_password=r \
		--set user=lab_1 &&
	refuses arm.img "parameter .locale. must be a locale name" \
		$IMGPATCH apply armbian-firstrun arm.img "$@" --set locale="en_US.UTF-8 *" &&
	refuses arm.img "parameter .locale. must be a locale name" \
		$IMGPATCH apply armbian-firstrun arm.img "$@" --set locale="en/US" &&
	refuses arm.img "parameter .timezone. must be a time zone name" \
		$IMGPATCH apply armbian-firstrun arm.img "$@" --set timezone="Europe/Berlin \$(id)" &&
	refuses arm.img "parameter .timezone. must be a time zone name" \
		$IMGPATCH apply armbian-firstrun arm.img "$@" --set timezone="../../etc/passwd" &&
	refuses arm.img "parameter .wifi_ssid. must be a network name of at most 32 bytes" \
		$IMGPATCH apply armbian-firstrun arm.img "$@" --set wifi=yes --set wifi_ssid="lab\"net" &&
	refuses arm.img "parameter .wifi_key. must be empty, or a WPA passphrase" \
		$IMGPATCH apply armbian-firstrun arm.img "$@" --set wifi=yes --set wifi_key="k\\ey12345" &&
	refuses arm.img "parameter .wifi_country. must be two capital letters" \
		$IMGPATCH apply armbian-firstrun arm.img "$@" --set wifi_country=de
'

# ---------------------------------------------------- Raspberry Pi OS

test_expect_success 'rpi-user: userconf.txt as userconf-service reads it' '
	hash=$(openssl passwd -6 -salt labsalt secret 2>/dev/null || echo "\$6\$labsalt\$abc./XYZ") &&
	cp rpi.img ru.img &&
	$IMGPATCH apply rpi-user ru.img --set user=lab-2 --set password_hash="$hash" >/dev/null &&
	boot_cat ru.img /userconf.txt >uc &&
	echo "lab-2:$hash" >want && test_cmp want uc &&
	# userconf-service: the name up to the first ":", checked, the rest the hash
	user=$(head -n1 uc | cut -f1 -d:) && pass=$(head -n1 uc | cut -f2 -d:) &&
	echo "$user" | grep -q "^[a-z]\{1\}[a-z0-9\-]*$" && test ${#user} -le 32 &&
	test "$pass" = "$hash"
'

test_expect_success 'rpi-user: a second field, a bad name or a plain password refused' '
	refuses rpi.img "parameter .password_hash. must be a crypt\(3\) hash" \
		$IMGPATCH apply rpi-user rpi.img --set user=pi --set password_hash="\$6\$a\$b:0:0" &&
	refuses rpi.img "parameter .password_hash. must be a crypt\(3\) hash" \
		$IMGPATCH apply rpi-user rpi.img --set user=pi --set password_hash=secret &&
	refuses rpi.img "parameter .user. must be a user name" \
		$IMGPATCH apply rpi-user rpi.img --set user="pi:x" --set password_hash="\$6\$a\$b" &&
	refuses rpi.img "parameter .user. must be a user name" \
		$IMGPATCH apply rpi-user rpi.img --set user=Pi --set password_hash="\$6\$a\$b"
'

# ------------------------------------------------------------ ssh-key

test_expect_success 'ssh-key: the key line as written; ssh-keygen reads a real one' '
	cp kv.img sk.img &&
	ssh-keygen -q -t ed25519 -N "" -C "admin@lab \"quoted\" comment" -f id_lab &&
	key=$(cat id_lab.pub) &&
	$IMGPATCH apply ssh-key sk.img --set user=ubuntu.admin --set key="$key" >/dev/null &&
	root_cat sk.img 2 /etc/ssh/authorized_keys.ubuntu.admin >ak &&
	echo "$key" >want && test_cmp want ak &&
	ssh-keygen -l -f ak >fp && grep -q "(ED25519)$" fp
'

test_expect_success 'ssh-key: options, a second key, a path in the user refused' '
	refuses kv.img "parameter .key. must be one OpenSSH public key line" \
		$IMGPATCH apply ssh-key kv.img --set user=ubuntu --set key="command=\"sh\" $KEY" &&
	refuses kv.img "parameter .key. must be one line" \
		$IMGPATCH apply ssh-key kv.img --set user=ubuntu --set key="$(printf "%s\n%s" "$KEY" "$KEY")" &&
	refuses kv.img "parameter .user. must be a user name" \
		$IMGPATCH apply ssh-key kv.img --set user=../../root/x --set key="$KEY" &&
	refuses kv.img "parameter .user. must be a user name" \
		$IMGPATCH apply ssh-key kv.img --set user=.hidden --set key="$KEY"
'

test_expect_success 'kria-fit-sd-uhs: a FIT node name' '
	refuses kv.img "parameter .fdt. must be a FIT image node name" \
		$IMGPATCH apply kria-fit-sd-uhs kv.img --set fdt="a b.dtb"
'

# ------------------------------------------------------------- --each

test_expect_success 'apply --each: a bad row refuses the run before any image, naming its line and the column or image and parameter' '
	cp kv.img e1.img && cp kv.img e2.img &&
	s1=$(sum_file e1.img) && s2=$(sum_file e2.img) &&
	printf "image,user,key\ne1.img,lab,\"%s\"\ne2.img,\"lab\n    sudo: ALL\",\"%s\"\n" "$KEY" "$KEY" >nl.csv &&
	test_must_fail_with 2 $IMGPATCH apply cloud-init-user e1.img e2.img --each nl.csv >out 2>err &&
	cat err && test "$(wc -l <err)" = 1 &&
	grep -x "imgpatch: nl.csv:3: a line break in column .user.: a cell is one line of text" err &&
	printf "image,user,key\ne1.img,lab,\"%s\"\"\"\ne2.img,lab,\"%s\"\n" "$KEY" "$KEY" >q.csv &&
	test_must_fail_with 2 $IMGPATCH apply cloud-init-user e1.img e2.img --each q.csv >out 2>err &&
	cat err && test "$(wc -l <err)" = 1 &&
	grep "^imgpatch: q.csv:2: e1.img: recipe .cloud-init-user.: parameter .key. must be one OpenSSH public key line" err &&
	test_file_unchanged e1.img "$s1" && test_file_unchanged e2.img "$s2"
'

test_expect_success 'apply --each: rows from a spreadsheet (CRLF) with valid values work' '
	printf "image,hostname\r\ne1.img,lab-1\r\ne2.img,lab-2\r\n" >crlf.csv &&
	$IMGPATCH apply hostname e1.img e2.img --each crlf.csv >out &&
	grep "^hostname: 2 images, 0 failed$" out &&
	root_cat e2.img 2 /etc/hostname >host && echo lab-2 >want && test_cmp want host
'

test_expect_success 'write --each: a bad row refuses the run before any card is written' '
	printf "target,hostname\nw1.img,lab-1\nw2.img,lab 2\nw3.img,lab-3\n" >w.csv &&
	test_must_fail_with 2 $IMGPATCH write kv.img --apply hostname --each w.csv >out 2>err &&
	cat err && test "$(wc -l <err)" = 1 &&
	grep "^imgpatch: w.csv:3: w2.img: recipe .hostname.: parameter .hostname. must be one DNS label" err &&
	test ! -e w1.img && test ! -e w2.img && test ! -e w3.img &&
	printf "target,hostname\nw1.img,lab-1\nw2.img,lab-2\n" >w.csv &&
	$IMGPATCH write kv.img --apply hostname --each w.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	root_cat w2.img 2 /etc/hostname >host && echo lab-2 >want && test_cmp want host
'

test_done
