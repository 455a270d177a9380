#!/bin/bash
# SPDX-License-Identifier: MIT

test_description='customize on Raspberry Pi OS bookworm without cloud-init: firstrun.sh and cmdline.txt as Raspberry Pi Imager 1.x writes them, run against the real imager_custom and userconf'
. "$(dirname "$0")/lib.sh"

test_require_imgpatch
test_require_tools sfdisk mkfs.vfat mke2fs debugfs e2fsck fsck.fat mtype mcopy \
	ssh-keygen python3 dash

PASSWORD='pi password 42'
PASSPHRASE="lab wifi 'quoted' pass"
CMDLINE='console=serial0,115200 console=tty1 root=PARTUUID=52506934-02 rootfstype=ext4 fsck.repair=yes rootwait quiet init=/usr/lib/raspberrypi-sys-mods/firstboot'
RUN_WORDS='systemd.run=/boot/firmware/firstrun.sh systemd.run_success_action=reboot systemd.unit=kernel-command-line.target'

# boot_file IMG NAME: a file of IMG's boot partition (the FAT).
boot_file()
{
	mtype -i "$(part_mtools "$1" 1)" "::/$2"
}

# q ARG: ARG single-quoted for sh, a quote as '"'"' (Imager's escapeshellarg).
q()
{
	printf "'%s'" "$(printf %s "$1" | sed "s/'/'\"'\"'/g")"
}

# expected_firstrun HASH PMK: the script Imager 1.8.5 writes for
# customize_all's settings, its bookworm ending as imager_fixup leaves it.
expected_firstrun()
{
	local ic=/usr/lib/raspberrypi-sys-mods/imager_custom

	printf '%s\n\n%s\n\n' '#!/bin/bash' 'set +e'
	echo "$ic set_hostname $(q lab-09)"
	echo "$ic enable_ssh -k $(q "$(cat key.pub)")"
	echo "/usr/lib/userconf-pi/userconf $(q bob) $(q "$1")"
	echo "$ic set_wlan $(q "lab net") $(q "$2") $(q DE)"
	echo "$ic set_keymap $(q de)"
	echo "$ic set_timezone $(q Europe/Berlin)"
	echo "rm -f /boot/firmware/firstrun.sh"
	echo "sed -i 's| systemd\.[^ ]*||g' /boot/firmware/cmdline.txt"
	echo "exit 0"
}

customize_all()
{
	imgpatch customize "$1" --hostname lab-09 --timezone Europe/Berlin --keymap de \
		--user bob --password bob:file:pw --ssh-inject bob:file:key.pub \
		--wifi "lab net" --wifi-psk-file psk --wifi-country DE
}

test_expect_success 'the image (Pi OS bookworm with its first-run helpers) and the inputs' '
	"$FIXTURES/mkimage-rpi.sh" --firstrun pios.img &&
	printf "%s\n" "$PASSWORD" >pw &&
	printf "%s\n" "$PASSPHRASE" >psk &&
	ssh-keygen -q -t ed25519 -N "" -C "bob'"'"'s key" -f key &&
	cp pios.img p.img
'

test_expect_success 'the way is Imager s firstrun.sh, chosen and said; no secret shown' '
	customize_all p.img >out 2>err &&
	test_cmp /dev/null err &&
	why="Raspberry Pi OS without cloud-init: Imager.s firstrun.sh calls /usr/lib/raspberrypi-sys-mods/imager_custom" &&
	grep -x "  hostname lab-09: firstrun.sh, imager_custom set_hostname ($why)" out &&
	grep -x "  timezone Europe/Berlin: firstrun.sh, imager_custom set_timezone ($why)" out &&
	grep -x "  keymap de: firstrun.sh, imager_custom set_keymap ($why)" out &&
	grep -x "  user bob: firstrun.sh, userconf renames uid 1000.s user to it ($why)" out &&
	grep -x "  wifi lab net: firstrun.sh, imager_custom set_wlan and the country ($why)" out &&
	grep -x "  firstboot: /boot/firmware/firstrun.sh, run once by systemd.run= on /boot/firmware/cmdline.txt ($why)" out &&
	grep -x "p1 (vfat) /firstrun.sh: new file, [0-9]* bytes (holds a secret: not shown)" out &&
	! grep -F -e "$PASSPHRASE" -e "$PASSWORD" -e "\$6\$" -e "\$y\$" out
'

test_expect_success 'firstrun.sh is Imager s script, each value quoted for sh' '
	boot_file p.img firstrun.sh >firstrun.sh &&
	sed -n "s|^/usr/lib/userconf-pi/userconf .bob. .\(.*\).$|\1|p" firstrun.sh >hash &&
	test $(wc -l <hash) = 1 &&
	python3 -c "import hashlib, sys; print(hashlib.pbkdf2_hmac(\"sha1\", sys.argv[1].encode(), b\"lab net\", 4096, 32).hex())" \
		"$PASSPHRASE" >pmk &&
	expected_firstrun "$(cat hash)" "$(cat pmk)" >expect &&
	test_cmp expect firstrun.sh &&
	bash -n firstrun.sh && dash -n firstrun.sh &&
	# SC2016: a crypt hash is meant literally, inside single quotes.
	if command -v shellcheck >/dev/null; then shellcheck -s bash -e SC2016 firstrun.sh; fi
'

test_expect_success 'the hash in firstrun.sh is one libcrypt takes for the password' '
	python3 -W ignore -c "import crypt, sys; h = open(\"hash\").read().strip(); sys.exit(crypt.crypt(sys.argv[1], h) != h)" "$PASSWORD"
'

test_expect_success 'cmdline.txt: one line, the image s words, then Imager s' '
	boot_file p.img cmdline.txt >cmdline &&
	echo "$CMDLINE $RUN_WORDS cfg80211.ieee80211_regdom=DE" >expect &&
	test_cmp expect cmdline
'

test_expect_success 'the root is left to the first boot; both filesystems are clean' '
	extract_part p.img 2 root.ext4 && e2fsck -fn root.ext4 &&
	debugfs -R "cat /etc/hostname" root.ext4 2>/dev/null >hostname &&
	echo raspberrypi >expect && test_cmp expect hostname &&
	debugfs -R "cat /etc/passwd" root.ext4 2>/dev/null >passwd &&
	! grep "^bob:" passwd &&
	extract_part p.img 1 boot.fat && fsck.fat -n boot.fat
'

test_expect_success 'a second run changes nothing (the same firstrun.sh, the words once)' '
	customize_all p.img >out2 &&
	grep -x "nothing to change: p.img is already patched" out2 &&
	boot_file p.img cmdline.txt >cmdline2 && test_cmp cmdline cmdline2 &&
	boot_file p.img firstrun.sh >firstrun2.sh && test_cmp firstrun.sh firstrun2.sh
'

# The consumer: firstrun.sh run by sh against a temporary root that holds
# the real imager_custom and userconf, their absolute paths moved into it;
# what cannot run here is a stub that logs its argv (and its input).
test_expect_success 'run against the real helpers, the log says what Pi OS would do' '
	R=$PWD/R && mkdir -p R/bin R/etc/ssh R/etc/sudoers.d R/home/pi \
		R/etc/NetworkManager/system-connections R/usr/lib/raspberrypi-sys-mods \
		R/usr/lib/userconf-pi R/usr/bin R/boot/firmware &&
	printf "%s\n" "root:x:0:0:root:/root:/bin/bash" "pi:x:1000:1000:,,,:/home/pi:/bin/bash" >R/etc/passwd &&
	printf "%s\n" "root:x:0:" "pi:x:1000:" >R/etc/group &&
	echo "pi:100000:65536" >R/etc/subuid && echo "pi:100000:65536" >R/etc/subgid &&
	echo "pi ALL=(ALL) NOPASSWD: ALL" >R/etc/sudoers.d/010_pi-nopasswd &&
	echo "#PasswordAuthentication yes" >R/etc/ssh/sshd_config &&
	echo raspberrypi >R/etc/hostname &&
	sed -e "s|/etc/|$R/etc/|g" -e "s|/var/lib/|$R/var/lib/|g" \
		"$FIXTURES/rpios-firstrun/imager_custom" >R/usr/lib/raspberrypi-sys-mods/imager_custom &&
	sed -e "s|/etc/|$R/etc/|g" -e "s|/usr/bin/cancel-rename|$R/usr/bin/cancel-rename|" \
		"$FIXTURES/rpios-firstrun/userconf" >R/usr/lib/userconf-pi/userconf &&
	for stub in raspi-config systemctl chpasswd usermod groupmod chown uuid cancel-rename; do
		printf "%s\n" "#!/bin/sh" "echo \"\$(basename \"\$0\") \$*\" >>$R/log" \
			"[ \"\$(basename \"\$0\")\" != chpasswd ] || sed \"s/^/stdin /\" >>$R/log" \
			"[ \"\$(basename \"\$0\")\" != uuid ] || echo 5f0e6b86-0000-4000-8000-000000000001" \
			>R/bin/$stub && chmod 755 R/bin/$stub || return 1
	done &&
	cp R/bin/cancel-rename R/usr/bin/ &&
	printf "%s\n" "#!/bin/sh" "[ \"\$2\" = 1000 ] || exit 2" \
		"[ \"\$1\" != group ] || exec grep \"^[^:]*:x:1000:\" $R/etc/group" \
		"sed -n \"s|^\\(pi:x:1000:1000:[^:]*:\\)/home/pi|\\1$R/home/pi|p\" $R/etc/passwd" >R/bin/getent &&
	printf "%s\n" "#!/bin/sh" "echo \"install \$*\" >>$R/log" "for d; do :; done; mkdir -p \"\$d\"" >R/bin/install &&
	chmod 755 R/bin/getent R/bin/install R/usr/lib/raspberrypi-sys-mods/imager_custom R/usr/lib/userconf-pi/userconf &&
	cp firstrun.sh R/boot/firmware/firstrun.sh && cp cmdline R/boot/firmware/cmdline.txt &&
	sed -e "s|/usr/lib/|$R/usr/lib/|g" -e "s|/boot/firmware/|$R/boot/firmware/|g" firstrun.sh >R/run.sh &&
	PATH=$R/bin:$PATH bash R/run.sh &&
	cat R/log &&
	grep -x "raspi-config nonint do_hostname lab-09" R/log &&
	echo lab-09 >expect && test_cmp expect R/etc/hostname &&
	grep -x "install -o pi -g pi -m 700 -d $R/home/pi/.ssh" R/log &&
	grep -xF "$(cat key.pub)" R/home/pi/.ssh/authorized_keys &&
	grep -x "chown pi:pi $R/home/pi/.ssh/authorized_keys" R/log &&
	grep -x "PasswordAuthentication no" R/etc/ssh/sshd_config &&
	grep -x "systemctl -q enable ssh" R/log &&
	grep -x "usermod -l bob pi" R/log &&
	grep -x "usermod -m -d /home/bob bob" R/log &&
	grep -x "groupmod -n bob pi" R/log &&
	grep -x "bob:100000:65536" R/etc/subuid &&
	grep -x "bob ALL=(ALL) NOPASSWD: ALL" R/etc/sudoers.d/010_pi-nopasswd &&
	grep -xF "stdin bob:$(cat hash)" R/log &&
	grep -x "chpasswd -e" R/log &&
	grep -x "cancel-rename bob" R/log &&
	grep -x "raspi-config nonint do_wifi_country DE" R/log &&
	nm=R/etc/NetworkManager/system-connections/preconfigured.nmconnection &&
	grep -x "ssid=lab net" $nm && grep -x "psk=$(cat pmk)" $nm &&
	test "$(stat -c %a $nm)" = 600 &&
	grep -x "raspi-config nonint do_configure_keyboard de" R/log &&
	grep -x "raspi-config nonint do_change_timezone Europe/Berlin" R/log &&
	test ! -e R/boot/firmware/firstrun.sh &&
	echo "$CMDLINE cfg80211.ieee80211_regdom=DE" >expect &&
	test_cmp expect R/boot/firmware/cmdline.txt
'

test_expect_success 'what firstrun.sh cannot do stays on the files way: a second user, the locale' '
	cp pios.img q.img &&
	imgpatch customize q.img --hostname lab-10 --user bob --user carol --locale C.UTF-8 >out &&
	grep -x "  user bob: firstrun.sh, userconf renames uid 1000.s user to it (.*)" out &&
	grep "^  user carol: uid 1001, gid 1001, home /home/carol, .*: /etc/passwd, shadow, group, gshadow" out &&
	grep -x "p1 (vfat) /firstrun.sh: new file, [0-9]* bytes, sha256 [0-9a-f]*" out &&
	boot_file q.img firstrun.sh >f2 &&
	grep -x "/usr/lib/userconf-pi/userconf .bob. .!." f2 &&
	! grep carol f2 &&
	extract_part q.img 2 q.ext4 && e2fsck -fn q.ext4 &&
	debugfs -R "cat /etc/passwd" q.ext4 2>/dev/null | grep "^carol:x:1001:1001:"
'

test_expect_success 'Wi-Fi with a static address is not what set_wlan makes: it stays on the files way' '
	cp pios.img w.img &&
	test_must_fail imgpatch customize w.img --wifi "lab net" --wifi-psk-file psk \
		--static-ip 10.0.0.9/24 >out 2>err &&
	! grep -F "$PASSPHRASE" out err &&
	! grep "set_wlan" out &&
	cmp pios.img w.img
'

test_expect_success 'a value with quotes and $(...) reaches the helper as one argument, run nowhere' '
	cp pios.img v.img &&
	printf "%s\n" "a'"'"'\$(touch pwned)\`touch px\`" >ssid &&
	imgpatch customize v.img --wifi "$(cat ssid)" --wifi-psk-file psk >out &&
	boot_file v.img firstrun.sh >v.sh && bash -n v.sh &&
	sed -n "s|^/usr/lib/raspberrypi-sys-mods/imager_custom set_wlan |printf \"%s\\\\n\" |p" v.sh >args.sh &&
	bash args.sh >args && head -n 1 args >got && test_cmp ssid got &&
	test ! -e pwned && test ! -e px
'

# bad_cmdline NAME: p.img with NAME as its cmdline.txt is refused, one line, intact.
bad_cmdline()
{
	cp pios.img c.img &&
	mcopy -o -i "$(part_mtools c.img 1)" "$1" ::/cmdline.txt &&
	refused_intact c.img 1 "imgpatch: c.img: p1 (vfat): /cmdline.txt: not a kernel command line: $2" \
		imgpatch customize c.img --hostname lab-12
}

test_expect_success 'a cmdline.txt that is not a kernel command line is refused, the image byte-identical' '
	printf "console=tty1 \0x\n" >nul.txt &&
	bad_cmdline nul.txt "it holds a control character or a NUL byte" &&
	head -c 2000 /dev/zero | tr "\0" a >long.txt &&
	bad_cmdline long.txt "its first line is over 1536 bytes, .*"
'

test_expect_success 'an image without the helpers keeps the files way' '
	"$FIXTURES/mkimage-rpi.sh" plain.img &&
	imgpatch customize plain.img --hostname lab-11 >out &&
	grep -x "  hostname lab-11: /etc/hostname and /etc/hosts. 127.0.1.1 line (no cloud-init seed in the image)" out &&
	! boot_file plain.img firstrun.sh 2>/dev/null
'

test_done
