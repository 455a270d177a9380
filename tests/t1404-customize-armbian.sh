#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='customize on Armbian: what armbian-firstlogin presets goes to /root/.not_logged_in_yet, the rest to the files'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mke2fs debugfs e2fsck mkimage dtc ssh-keygen

USER_PASSWORD='bob pass 1'
ROOT_PASSWORD='root pass 2'
PASSPHRASE='lab wifi pass'

# preset IMG: IMG's /root/.not_logged_in_yet (debugfs).
preset()
{
	extract_part "$1" 1 preset.ext4 &&
	debugfs -R "cat /root/.not_logged_in_yet" preset.ext4 2>/dev/null
}

customize_all()
{
	imgpatch customize "$1" --hostname lab-20 --timezone Europe/Berlin \
		--locale de_DE.UTF-8 --user bob --password bob:file:bpw \
		--password root:file:rpw --wifi "lab net" --wifi-psk-file psk --wifi-country DE
}

test_expect_success 'the image (Armbian as its build leaves it) and the inputs' '
	"$FIXTURES/mkimage-armbian.sh" --firstlogin arm.img &&
	printf "%s\n" "$USER_PASSWORD" >bpw && printf "%s\n" "$ROOT_PASSWORD" >rpw &&
	printf "%s\n" "$PASSPHRASE" >psk &&
	ssh-keygen -q -t ed25519 -N "" -C bob@lab -f key &&
	cp arm.img a.img
'

test_expect_success 'the presets take what they have, the way said; no secret shown' '
	customize_all a.img >out 2>err &&
	test_cmp /dev/null err &&
	why="Armbian: armbian-firstlogin reads /root/.not_logged_in_yet at root.s first login" &&
	grep -x "  hostname lab-20: /etc/hostname ($why)" out &&
	grep -x "  timezone Europe/Berlin: /root/.not_logged_in_yet PRESET_TIMEZONE ($why)" out &&
	grep -x "  locale de_DE.UTF-8: /root/.not_logged_in_yet PRESET_LOCALE ($why)" out &&
	grep -x "  user bob: /root/.not_logged_in_yet PRESET_USER_NAME, made at root.s first login ($why)" out &&
	grep -x "  password bob: /root/.not_logged_in_yet PRESET_USER_PASSWORD, plain text as Armbian reads it ($why)" out &&
	grep -x "  password root: /root/.not_logged_in_yet PRESET_ROOT_PASSWORD, plain text as Armbian reads it ($why)" out &&
	grep -x "  wifi lab net: /root/.not_logged_in_yet PRESET_NET_WIFI_\* ($why)" out &&
	grep -x "p1 (ext4) /root/.not_logged_in_yet: 0 -> [0-9]* bytes (holds a secret: not shown), mode 0644 -> 0600" out &&
	! grep -F -e "$USER_PASSWORD" -e "$ROOT_PASSWORD" -e "$PASSPHRASE" out
'

test_expect_success 'the preset file: what bash -n takes and source reads back, root s only' '
	preset a.img >not_logged_in_yet &&
	bash -n not_logged_in_yet &&
	bash -c ". ./not_logged_in_yet && printf \"%s\n\" \"\$PRESET_USER_NAME\" \"\$PRESET_USER_PASSWORD\" \
		\"\$PRESET_DEFAULT_REALNAME\" \"\$PRESET_USER_SHELL\" \"\$PRESET_ROOT_PASSWORD\" \
		\"\$PRESET_TIMEZONE\" \"\$PRESET_LOCALE\" \"\$PRESET_NET_CHANGE_DEFAULTS\" \
		\"\$PRESET_NET_ETHERNET_ENABLED\" \"\$PRESET_NET_WIFI_ENABLED\" \"\$PRESET_NET_WIFI_SSID\" \
		\"\$PRESET_NET_WIFI_KEY\" \"\$PRESET_NET_WIFI_COUNTRYCODE\" \"\$PRESET_CONNECT_WIRELESS\"" >values &&
	printf "%s\n" bob "$USER_PASSWORD" Bob bash "$ROOT_PASSWORD" Europe/Berlin de_DE.UTF-8 \
		1 0 1 "lab net" "$PASSPHRASE" DE n >expect &&
	test_cmp expect values &&
	debugfs -R "stat /root/.not_logged_in_yet" preset.ext4 2>/dev/null >stat &&
	grep "Mode:  0600" stat && grep "User:     0   Group:     0" stat &&
	e2fsck -fn preset.ext4
'

test_expect_success 'the root is otherwise left to the first login: no user yet, root s hash kept' '
	debugfs -R "cat /etc/passwd" preset.ext4 2>/dev/null >passwd &&
	! grep "^bob:" passwd &&
	extract_part arm.img 1 orig.ext4 &&
	debugfs -R "cat /etc/shadow" orig.ext4 2>/dev/null >shadow.before &&
	debugfs -R "cat /etc/shadow" preset.ext4 2>/dev/null >shadow.after &&
	test_cmp shadow.before shadow.after &&
	debugfs -R "cat /etc/hostname" preset.ext4 2>/dev/null >hostname &&
	echo lab-20 >expect && test_cmp expect hostname
'

test_expect_success 'a second run changes nothing' '
	customize_all a.img >out2 &&
	grep -x "nothing to change: a.img is already patched" out2
'

test_expect_success 'a user with a key, or two users, stay on the files way' '
	cp arm.img k.img &&
	imgpatch customize k.img --user bob --password bob:file:bpw \
		--ssh-inject bob:file:key.pub >out &&
	grep "^  user bob: uid 1000, gid 1000, home /home/bob, .*: /etc/passwd, shadow, group, gshadow" out &&
	! grep PRESET_USER out &&
	cp arm.img t.img &&
	imgpatch customize t.img --user bob --password bob:file:bpw --user carol >out &&
	grep "^  user bob: uid 1000, " out && grep "^  user carol: uid 1001, " out &&
	! grep PRESET_USER out
'

test_expect_success 'a password Armbian cannot read back is refused, the image byte-identical' '
	printf "%s\n" "it'"'"'s" >quoted &&
	refused_intact arm.img 1 "imgpatch: arm.img: --password: quoted: armbian-firstlogin reads the password between single quotes: it cannot hold \"'"'"'\" or a control character" \
		imgpatch customize arm.img --user bob --password bob:file:quoted &&
	! grep -F "it'"'"'s" err out
'

test_expect_success 'an SSID the presets cannot hold goes the files way (here: refused, no network system)' '
	refused_intact arm.img 1 "imgpatch: arm.img: the image has no network system imgpatch knows (.*)" \
		imgpatch customize arm.img --wifi "lab\"net" --wifi-psk-file psk &&
	! grep "PRESET_NET" out &&
	! grep -F "$PASSPHRASE" out err
'

test_done
