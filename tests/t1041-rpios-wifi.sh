#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi OS bookworm: rpios-wifi writes the NetworkManager keyfile Raspberry Pi Imager'"'"'s first boot writes, the Wi-Fi country and the radio state; checked with configparser, debugfs, e2fsck and fsck.fat'
. "$(dirname "$0")/lib.sh"

test_require_tools debugfs e2fsck fsck.fat mtype python3

CONN=/etc/NetworkManager/system-connections/preconfigured.nmconnection

# root IMG PATH: a file of the root partition (2), after e2fsck -fn.
root()
{
	extract_part "$1" 2 "$1.ext4" &&
	e2fsck -fn "$1.ext4" >/dev/null 2>&1 &&
	debugfs -R "cat $2" "$1.ext4" 2>/dev/null
}

# keyfile FILE SSID PSK HIDDEN: FILE read as NetworkManager's keyfile
# plugin reads it (a GKeyFile; configparser reads the same INI shape), with
# the keys nm-settings-nmcli(5) needs for a WPA-PSK Wi-Fi connection.
keyfile()
{
	python3 - "$@" <<-\EOP
	import configparser, sys, uuid
	path, ssid, psk, hidden = sys.argv[1:]
	c = configparser.ConfigParser(interpolation=None, strict=True)
	c.optionxform = str
	with open(path) as f:
	    c.read_file(f)
	assert c.sections() == ["connection", "wifi", "ipv4", "ipv6", "proxy", "wifi-security"], c.sections()
	assert c["connection"]["id"] == "preconfigured"
	uuid.UUID(c["connection"]["uuid"])
	assert c["connection"]["type"] == "wifi"
	assert c["wifi"]["mode"] == "infrastructure"
	assert c["wifi"]["ssid"] == ssid, c["wifi"]["ssid"]
	assert c["wifi"]["hidden"] == hidden
	assert c["ipv4"]["method"] == "auto" and c["ipv6"]["method"] == "auto"
	assert c["wifi-security"]["key-mgmt"] == "wpa-psk"
	assert c["wifi-security"]["psk"] == psk
	EOP
}

test_expect_success 'build: pi-gen'"'"'s bookworm image (NetworkManager, radio off without a country)' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	root rpi.img /var/lib/NetworkManager/NetworkManager.state >state &&
	grep -x "WirelessEnabled=false" state &&
	mtype -i "rpi.img@@$((8192 * 512))" ::cmdline.txt >cmdline.orig &&
	make_kv260 kv.img
'

test_expect_success 'rpios-wifi: keyfile (0600, root), country on the command line, radio on' '
	cp rpi.img w.img &&
	$IMGPATCH apply rpios-wifi w.img --set ssid="Lab Net 5G" --set password="s3cret pass" \
		--set country=GB >plan &&
	root w.img "$CONN" >conn &&
	keyfile conn "Lab Net 5G" "s3cret pass" false &&
	debugfs -R "stat $CONN" w.img.ext4 2>/dev/null >stat &&
	grep -E "^Inode: [0-9]+ +Type: regular +Mode: +0600 " stat &&
	grep -E "^User: +0 +Group: +0 " stat &&
	root w.img /var/lib/NetworkManager/NetworkManager.state >state &&
	printf "[main]\nWirelessEnabled=true\n" >want && test_cmp want state &&
	mtype -i "w.img@@$((8192 * 512))" ::cmdline.txt >cmdline &&
	printf "%s cfg80211.ieee80211_regdom=GB\n" "$(cat cmdline.orig)" >want &&
	test_cmp want cmdline &&
	extract_part w.img 1 w.fat && fsck.fat -n w.fat >/dev/null
'

test_expect_success 'again: already applied, unchanged; a hidden network' '
	sum=$(sum_file w.img) &&
	rm -f w.img.imgpatch-undo &&
	$IMGPATCH apply rpios-wifi w.img --set ssid="Lab Net 5G" --set password="s3cret pass" \
		--set country=GB >out &&
	grep "already applied" out && test_file_unchanged w.img "$sum" &&
	cp rpi.img h.img &&
	$IMGPATCH apply rpios-wifi h.img --set ssid=hidden-lab --set hidden=true \
		--set password=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef --set country=DE >/dev/null &&
	root h.img "$CONN" >conn &&
	keyfile conn hidden-lab 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef true
'

test_expect_success 'refused, image unchanged: what the keyfile cannot hold, a bad country, no NetworkManager' '
	test_refuses_usage rpi.img "parameter .ssid. must be a network name" \
		$IMGPATCH apply rpios-wifi rpi.img --set ssid="a;b" --set password=secret-12 --set country=GB &&
	test_refuses_usage rpi.img "parameter .password. must be a WPA passphrase" \
		$IMGPATCH apply rpios-wifi rpi.img --set ssid=lab --set password="short" --set country=GB &&
	test_refuses_usage rpi.img "parameter .password. must be a WPA passphrase" \
		$IMGPATCH apply rpios-wifi rpi.img --set ssid=lab --set password="back\\slash" --set country=GB &&
	test_refuses_usage rpi.img "parameter .country. must be two capital letters" \
		$IMGPATCH apply rpios-wifi rpi.img --set ssid=lab --set password=secret-12 --set country=gb &&
	test_refuses kv.img "does not match this image" \
		$IMGPATCH apply rpios-wifi kv.img --set ssid=lab --set password=secret-12 --set country=GB
'

test_expect_success 'write-file mode: refused on FAT (no permissions) while planning, image unchanged' '
	cat >fatmode.recipe <<-\EOD &&
	name = "fatmode"
	summary = "fatmode"
	description = "A mode on a FAT file."
	source = "this test"
	step { action = "write-file" part = "boot" path = "/secret.txt" content = "x" mode = "0600" }
	EOD
	test_refuses rpi.img "^imgpatch: rpi.img: .*p1 (vfat): /secret.txt: mode 0600: this filesystem keeps no permissions" \
		$IMGPATCH apply ./fatmode.recipe rpi.img &&
	sed "s/0600/0800/; s/\"fatmode\"/\"badmode\"/" fatmode.recipe >badmode.recipe &&
	test_refuses rpi.img "mode.*must be permission bits in octal" \
		$IMGPATCH apply ./badmode.recipe rpi.img
'

test_expect_success 'write --each: a network per card, with hostname' '
	{ echo "target,hostname,ssid,password" &&
	  echo "c1.img,pi-01,lab-a,secret-01" && echo "c2.img,pi-02,lab-b,secret-02"; } >lab.csv &&
	$IMGPATCH write rpi.img --apply hostname --apply rpios-wifi --set country=GB \
		--each lab.csv >out &&
	grep "^write: 2 cards, 0 failed$" out &&
	for n in 1 2; do
		root c$n.img "$CONN" >conn &&
		keyfile conn "lab-$(echo ab | cut -c$n)" secret-0$n false &&
		root c$n.img /etc/hostname >name && echo pi-0$n >want && test_cmp want name || return 1
	done
'

test_done
