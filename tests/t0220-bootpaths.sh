#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='info: the boot path (extlinux, Armbian, BeagleBone uEnv.txt, Raspberry Pi firmware, FIT, script) and the trees it boots'
. "$(dirname "$0")/lib.sh"

# json_get FILE EXPR: one value out of a JSON document (python3's json module).
json_get()
{
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

dtbs=/usr/lib/linux-image-6.1.0-13-arm64

test_expect_success 'build fixtures' '
	"$FIXTURES/mkimage-armbian.sh" armbian.img &&
	"$FIXTURES/mkimage-armbian.sh" bootfs.img --bootfs &&
	"$FIXTURES/mkimage-extlinux.sh" fdtdir.img &&
	"$FIXTURES/mkimage-extlinux.sh" fdt.img --fdt &&
	"$FIXTURES/mkimage-beagle.sh" beagle.img &&
	"$FIXTURES/mkimage-beagle.sh" capes.img --capes &&
	"$FIXTURES/mkimage-rpi.sh" rpi.img &&
	"$FIXTURES/mkimage-kv260.sh" kv260.img &&
	"$FIXTURES/mkimage-pmos.sh" pmos.img
'

test_expect_success 'the new fixtures are clean ext4 and the same bytes twice' '
	dd if=armbian.img of=armbian.p1 bs=512 skip=8192 status=none &&
	e2fsck -fn armbian.p1 >/dev/null 2>&1 &&
	dd if=fdt.img of=fdt.p1 bs=512 skip=2048 status=none &&
	e2fsck -fn fdt.p1 >/dev/null 2>&1 &&
	"$FIXTURES/mkimage-armbian.sh" again.img &&
	cmp again.img armbian.img &&
	"$FIXTURES/mkimage-extlinux.sh" again.img &&
	cmp again.img fdtdir.img &&
	dd if=capes.img of=capes.p1 bs=512 skip=8192 status=none &&
	e2fsck -fn capes.p1 >/dev/null 2>&1 &&
	"$FIXTURES/mkimage-beagle.sh" again.img --capes &&
	cmp again.img capes.img
'

test_expect_success 'Armbian: boot.scr made by mkimage, its files where Armbian puts them' '
	debugfs -R "cat /boot/boot.scr" "armbian.img?offset=$((8192 * 512))" 2>/dev/null >boot.scr &&
	dumpimage -l boot.scr | grep -i "script" &&
	debugfs -R "ls -p /boot/dtb/allwinner/overlay" "armbian.img?offset=$((8192 * 512))" 2>/dev/null >ovl.ls &&
	grep -F "/sun50i-a64-uart1.dtbo/" ovl.ls &&
	grep -F "/sun50i-a64-i2c0.dtbo/" ovl.ls
'

test_expect_success 'Armbian: info names the script, fdtfile and overlays, and the tree with them in order' '
	$IMGPATCH info armbian.img >armbian.txt &&
	grep -Fx "boot path: U-Boot script /boot/boot.scr (Armbian), fdtfile allwinner/sun50i-a64-pinephone-1.2.dtb, overlays: uart1 i2c0, user_overlays: sdfix (p1)" armbian.txt &&
	grep -Fx "  tree: /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb + /boot/dtb/allwinner/overlay/sun50i-a64-uart1.dtbo + /boot/dtb/allwinner/overlay/sun50i-a64-i2c0.dtbo + /boot/overlay-user/sdfix.dtbo" armbian.txt
'

test_expect_success 'Armbian: JSON' '
	$IMGPATCH info --json armbian.img >armbian.json &&
	test "$(json_get armbian.json "d[\"boot_path\"][\"name\"]")" = armbian &&
	test "$(json_get armbian.json "d[\"boot_path\"][\"partition\"]")" = 1 &&
	test "$(json_get armbian.json "d[\"boot_path\"][\"trees\"][0][\"path\"]")" = /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb &&
	test "$(json_get armbian.json "\" \".join(d[\"boot_path\"][\"trees\"][0][\"overlays\"])")" = \
		"/boot/dtb/allwinner/overlay/sun50i-a64-uart1.dtbo /boot/dtb/allwinner/overlay/sun50i-a64-i2c0.dtbo /boot/overlay-user/sdfix.dtbo" &&
	test "$(json_get armbian.json "d[\"boot_path\"][\"error\"]")" = None
'

test_expect_success 'Armbian with a boot filesystem: its script, not the plain script path, under prefix /' '
	$IMGPATCH info bootfs.img >bootfs.txt &&
	grep -Fx "boot path: U-Boot script /boot.scr (Armbian), fdtfile allwinner/sun50i-a64-pinephone-1.2.dtb, overlays: uart1 i2c0, user_overlays: sdfix (p1)" bootfs.txt &&
	grep -Fx "  tree: /dtb/allwinner/sun50i-a64-pinephone-1.2.dtb + /dtb/allwinner/overlay/sun50i-a64-uart1.dtbo + /dtb/allwinner/overlay/sun50i-a64-i2c0.dtbo + /overlay-user/sdfix.dtbo" bootfs.txt &&
	grep "^root fstab: p2 " bootfs.txt
'

test_expect_success 'every tree and overlay Armbian names is in the image' '
	for f in $(json_get armbian.json "\" \".join(p for t in d[\"boot_path\"][\"trees\"] for p in [t[\"path\"]] + t[\"overlays\"])"); do
		debugfs -R "stat $f" "armbian.img?offset=$((8192 * 512))" 2>&1 | grep -q "Type: regular" || return 1
	done
'

test_expect_success 'extlinux with fdtdir: the default label, every tree in the directory' '
	$IMGPATCH info fdtdir.img >fdtdir.txt &&
	grep -Fx "boot path: extlinux /boot/extlinux/extlinux.conf, label l0, fdtdir $dtbs/ + \${fdtfile}, overlays: none (p1)" fdtdir.txt &&
	grep -Fx "  tree: $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb" fdtdir.txt &&
	grep -Fx "  tree: $dtbs/rockchip/rk3399-rockpro64.dtb" fdtdir.txt &&
	$IMGPATCH info --json fdtdir.img >fdtdir.json &&
	test "$(json_get fdtdir.json "d[\"boot_path\"][\"name\"]")" = extlinux &&
	test "$(json_get fdtdir.json "len(d[\"boot_path\"][\"trees\"])")" = 2
'

test_expect_success 'extlinux with fdt and fdtoverlays (an overlay that leaves U-Boot no tree: sysboot boots the rescue label)' '
	$IMGPATCH info fdt.img >fdt.txt 2>fdt.err &&
	grep -Fx "boot path: extlinux /boot/extlinux/extlinux.conf, label l0, fdt $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb, overlays: /boot/dtbo//sdfix.dtbo (p1)" fdt.txt &&
	grep -Fx "  tree: $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb + /boot/dtbo//sdfix.dtbo" fdt.txt &&
	grep -Fx "effective tree $dtbs/allwinner/sun50i-a64-pinephone-1.2.dtb (label l0r: sysboot'"'"'s next, label l0 failed): 3 SD/eMMC controllers" fdt.txt &&
	grep "^warning: p1 (ext4): /boot/dtbo//sdfix.dtbo: the base tree has no __symbols__ (compile it with dtc -@): U-Boot.s fdt apply leaves no valid tree behind (libfdt erases it): booti fails, and sysboot goes on to label l0r (append root=UUID=[-0-9a-f]* ro single), whose tree this is$" fdt.txt &&
	$IMGPATCH info --json fdt.img >fdt.json &&
	test "$(json_get fdt.json "\" \".join(d[\"boot_path\"][\"trees\"][0][\"overlays\"])")" = /boot/dtbo//sdfix.dtbo &&
	test "$(json_get fdt.json "d[\"boot_path\"][\"trees\"][0][\"status\"]")" = ok &&
	json_get fdt.json "d[\"boot_path\"][\"trees\"][0][\"booted\"]" | grep -x ".*sun50i-a64-pinephone-1.2.dtb (label l0r: sysboot.s next, label l0 failed)" &&
	json_get fdt.json "d[\"boot_path\"][\"trees\"][0][\"warnings\"]" | grep "sdfix.dtbo: the base tree has no __symbols__" &&
	test "$(json_get fdt.json "d[\"problems\"]")" = 0
'

test_expect_success 'Armbian: info names the boot script under /boot/ too' '
	grep -Fx "boot script: p1 /boot/boot.scr (\"\"), CRCs ok, loads user-override.dtb: no" armbian.txt &&
	test "$(json_get armbian.json "d[\"boot_script\"][\"path\"]")" = /boot/boot.scr
'

test_expect_success 'Armbian: the fixup scripts its boot script sources are named' '
	cp armbian.img fixup.img &&
	: >empty.scr &&
	printf "write empty.scr /boot/fixup.scr\nwrite empty.scr /boot/dtb/allwinner/overlay/sun50i-a64-fixup.scr\n" >fixup.cmd &&
	debugfs -w -f fixup.cmd "fixup.img?offset=$((8192 * 512))" >/dev/null 2>&1 &&
	$IMGPATCH info fixup.img >fixup.txt &&
	grep -Fx "boot path: U-Boot script /boot/boot.scr (Armbian), fdtfile allwinner/sun50i-a64-pinephone-1.2.dtb, overlays: uart1 i2c0, user_overlays: sdfix, fixup: /boot/dtb/allwinner/overlay/sun50i-a64-fixup.scr, /boot/fixup.scr (p1)" fixup.txt
'

test_expect_success 'Armbian: fdtdir= in armbianEnv.txt moves the tree and its overlays' '
	cp armbian.img fdtdir-env.img &&
	debugfs -R "cat /boot/armbianEnv.txt" "armbian.img?offset=$((8192 * 512))" 2>/dev/null >env.txt &&
	echo "fdtdir=/boot/dtb-6.6.63-current-sunxi64/allwinner" >>env.txt &&
	printf "rm /boot/armbianEnv.txt\nwrite env.txt /boot/armbianEnv.txt\n" >env.cmd &&
	debugfs -w -f env.cmd "fdtdir-env.img?offset=$((8192 * 512))" >/dev/null 2>&1 &&
	$IMGPATCH info fdtdir-env.img >fdtdir-env.txt &&
	grep -Fx "  tree: /boot/dtb-6.6.63-current-sunxi64/allwinner/sun50i-a64-pinephone-1.2.dtb + /boot/dtb-6.6.63-current-sunxi64/allwinner/overlay/sun50i-a64-uart1.dtbo + /boot/dtb-6.6.63-current-sunxi64/allwinner/overlay/sun50i-a64-i2c0.dtbo + /boot/overlay-user/sdfix.dtbo" fdtdir-env.txt
'

# put_root IMG START FILE PATH: FILE as PATH on the ext4 at sector START of IMG.
put_root()
{
	printf "rm %s\nwrite %s %s\n" "$4" "$3" "$4" >put.cmd &&
	debugfs -w -f put.cmd "$1?offset=$(($2 * 512))" >/dev/null 2>&1
}

test_expect_success 'Armbian: a vendor-less fdtfile, as boot-sun50i-next.cmd reads it (its ${vendor} folder)' '
	cp armbian.img novendor.img &&
	sed -e "s|^fdtfile=allwinner/|fdtfile=|" -e "/^fdtdir=/d" env.txt >novendor.txt &&
	put_root novendor.img 8192 novendor.txt /boot/armbianEnv.txt &&
	$IMGPATCH info novendor.img >novendor.out &&
	grep -Fx "  tree: /boot/dtb/allwinner/sun50i-a64-pinephone-1.2.dtb + /boot/dtb/allwinner/overlay/sun50i-a64-uart1.dtbo + /boot/dtb/allwinner/overlay/sun50i-a64-i2c0.dtbo + /boot/overlay-user/sdfix.dtbo" novendor.out
'

test_expect_success 'Armbian: a boot-rockchip64.cmd-style script: the tree and the overlay folder it names' '
	cp armbian.img rk.img &&
	cat >rk.cmd <<-\EOF &&
	setenv load_addr "0x9000000"
	if test -e ${devtype} ${devnum}:${distro_bootpart} ${prefix}armbianEnv.txt; then
		load ${devtype} ${devnum}:${distro_bootpart} ${load_addr} ${prefix}armbianEnv.txt
		env import -t ${load_addr} ${filesize}
	fi
	load ${devtype} ${devnum}:${distro_bootpart} ${fdt_addr_r} ${prefix}dtb/${fdtfile}
	fdt addr ${fdt_addr_r}
	fdt resize 65536
	for overlay_file in ${overlays}; do
		if load ${devtype} ${devnum}:${distro_bootpart} ${load_addr} ${prefix}dtb/rockchip/overlay/${overlay_prefix}-${overlay_file}.dtbo; then
			echo "Applying kernel provided DT overlay ${overlay_prefix}-${overlay_file}.dtbo"
			fdt apply ${load_addr} || setenv overlay_error "true"
		fi
	done
	EOF
	mkimage -C none -A arm -T script -d rk.cmd rk.scr >/dev/null &&
	put_root rk.img 8192 rk.scr /boot/boot.scr &&
	printf "overlay_prefix=rockchip\noverlays=pcie-gen2\nfdtfile=rk3399-rockpro64.dtb\n" >rk.txt &&
	put_root rk.img 8192 rk.txt /boot/armbianEnv.txt &&
	$IMGPATCH info rk.img >rk.out &&
	grep -Fx "  tree: /boot/dtb/rk3399-rockpro64.dtb + /boot/dtb/rockchip/overlay/rockchip-pcie-gen2.dtbo" rk.out
'

test_expect_success 'extlinux: paths relative to extlinux.conf, DEVICETREE-OVERLAY; a second fdt line ends the label' '
	cp fdtdir.img rel.img &&
	cat >rel.conf <<-\EOF &&
	DEFAULT second
	LABEL first
		FDT /first.dtb
	LABEL second
		FDT ../dtbs/board.dtb
		DEVICETREE-OVERLAY a.dtbo /boot/dtbo/b.dtbo
		FDT /ignored.dtb
		FDTDIR /ignored/
	EOF
	put_root rel.img 2048 rel.conf /boot/extlinux/extlinux.conf &&
	$IMGPATCH info rel.img >rel.out &&
	grep -Fx "  tree: /boot/extlinux/../dtbs/board.dtb + /boot/extlinux/a.dtbo + /boot/dtbo/b.dtbo" rel.out &&
	grep "label second, fdt ../dtbs/board.dtb, overlays: a.dtbo /boot/dtbo/b.dtbo (p1)\$" rel.out &&
	printf "label a\n\tfdtdir /x/\n\tfdtdir /y/\n\tfdt /z.dtb\n\tfdtoverlays /o.dtbo\n" >ended.conf &&
	put_root rel.img 2048 ended.conf /boot/extlinux/extlinux.conf &&
	$IMGPATCH info rel.img >ended.out &&
	grep "label a, fdtdir /x/ + \${fdtfile}, overlays: none (p1)\$" ended.out
'

test_expect_success 'extlinux: "menu default" marks the default label unless DEFAULT came first; a later DEFAULT wins' '
	cp fdtdir.img menu.img &&
	printf "label a\n\tfdt /a.dtb\nlabel b\n\tmenu default\n\tfdt /b.dtb\n" >menu.conf &&
	put_root menu.img 2048 menu.conf /boot/extlinux/extlinux.conf &&
	$IMGPATCH info menu.img >menu.out &&
	grep -Fx "  tree: /b.dtb" menu.out &&
	printf "default a\nlabel a\n\tfdt /a.dtb\nlabel b\n\tmenu default\n\tfdt /b.dtb\n" >menu.conf &&
	put_root menu.img 2048 menu.conf /boot/extlinux/extlinux.conf &&
	$IMGPATCH info menu.img >menu.out &&
	grep -Fx "  tree: /a.dtb" menu.out &&
	printf "label a\n\tfdt /a.dtb\n\tmenu default\nlabel b\n\tfdt /b.dtb\ndefault b\n" >menu.conf &&
	put_root menu.img 2048 menu.conf /boot/extlinux/extlinux.conf &&
	$IMGPATCH info menu.img >menu.out &&
	grep -Fx "  tree: /b.dtb" menu.out
'

bb=/boot/dtbs/5.10.168-ti-r72

test_expect_success 'BeagleBone: uEnv.txt as shipped, the U-Boot base tree and the virtual capes' '
	$IMGPATCH info beagle.img >beagle.txt &&
	grep -Fx "boot path: U-Boot /boot/uEnv.txt (BeagleBone Debian, as on a BeagleBone Black), uname_r 5.10.168-ti-r72, dtb am335x-boneblack-uboot.dtb, overlays: BB-ADC-00A0.dtbo BB-BONE-eMMC1-01-00A0.dtbo BB-HDMI-TDA998x-00A0.dtbo AM335X-PRU-UIO-00A0.dtbo (p1)" beagle.txt &&
	grep -Fx "  tree: $bb/am335x-boneblack-uboot.dtb + $bb/overlays/BB-ADC-00A0.dtbo + $bb/overlays/BB-BONE-eMMC1-01-00A0.dtbo + $bb/overlays/BB-HDMI-TDA998x-00A0.dtbo + $bb/overlays/AM335X-PRU-UIO-00A0.dtbo" beagle.txt
'

test_expect_success 'BeagleBone: the owner'"'"'s capes in U-Boot'"'"'s order, /lib/firmware, a disabled virtual cape' '
	$IMGPATCH info capes.img >capes.txt &&
	grep -Fx "  tree: $bb/am335x-boneblack-uboot-univ.dtb + $bb/overlays/BB-ADC-00A0.dtbo + $bb/overlays/BB-UART1-00A0.dtbo + /lib/firmware/BB-SDFIX-00A0.dtbo + $bb/overlays/BB-BONE-eMMC1-01-00A0.dtbo + $bb/overlays/AM335X-PRU-UIO-00A0.dtbo" capes.txt &&
	$IMGPATCH info --json capes.img >capes.json &&
	test "$(json_get capes.json "d[\"boot_path\"][\"name\"]")" = uenv &&
	test "$(json_get capes.json "len(d[\"boot_path\"][\"trees\"][0][\"overlays\"])")" = 5
'

test_expect_success 'BeagleBone: the overlays apply to the tree in that order (fdtoverlay)' '
	for f in $(json_get capes.json "\" \".join([d[\"boot_path\"][\"trees\"][0][\"path\"]] + d[\"boot_path\"][\"trees\"][0][\"overlays\"])"); do
		$IMGPATCH cat capes.img "1:$f" >"$(basename "$f")" || return 1
	done &&
	fdtoverlay -i am335x-boneblack-uboot-univ.dtb -o capes.dtb BB-ADC-00A0.dtbo BB-UART1-00A0.dtbo \
		BB-SDFIX-00A0.dtbo BB-BONE-eMMC1-01-00A0.dtbo AM335X-PRU-UIO-00A0.dtbo &&
	fdtget capes.dtb /ocp/interconnect@48000000/segment@0/target-module@60000/mmc@0 no-1-8-v
'

test_expect_success 'BeagleBone: dtb= without U-Boot overlays; no uname_r; no kernel for uname_r' '
	cp beagle.img plain.img &&
	printf "uname_r=5.10.168-ti-r72\ndtb=am335x-boneblack.dtb\n" >plain.txt &&
	printf "rm /boot/uEnv.txt\nwrite plain.txt /boot/uEnv.txt\n" >plain.cmd &&
	debugfs -w -f plain.cmd "plain.img?offset=$((8192 * 512))" >/dev/null 2>&1 &&
	$IMGPATCH info plain.img >plain.out &&
	grep -Fx "boot path: U-Boot /boot/uEnv.txt (BeagleBone Debian, as on a BeagleBone Black), uname_r 5.10.168-ti-r72, dtb am335x-boneblack.dtb, overlays: off (no enable_uboot_overlays) (p1)" plain.out &&
	grep -Fx "  tree: $bb/am335x-boneblack.dtb" plain.out &&
	printf "#uname_r=\n" >none.txt &&
	printf "rm /boot/uEnv.txt\nwrite none.txt /boot/uEnv.txt\n" >none.cmd &&
	debugfs -w -f none.cmd "plain.img?offset=$((8192 * 512))" >/dev/null 2>&1 &&
	$IMGPATCH info plain.img >none.out &&
	grep -Fx "boot path: U-Boot /boot/uEnv.txt (BeagleBone Debian), no uname_r: U-Boot boots its default (p1)" none.out &&
	! grep "^  tree:" none.out &&
	printf "uname_r=6.1.0-99\n" >other.txt &&
	printf "rm /boot/uEnv.txt\nwrite other.txt /boot/uEnv.txt\n" >other.cmd &&
	debugfs -w -f other.cmd "plain.img?offset=$((8192 * 512))" >/dev/null 2>&1 &&
	$IMGPATCH info plain.img >other.out &&
	grep -Fx "boot path: U-Boot /boot/uEnv.txt (BeagleBone Debian), uname_r 6.1.0-99, no /boot/vmlinuz-6.1.0-99: U-Boot boots its default (p1)" other.out
'

test_expect_success 'Raspberry Pi: a tree per model, [cm5] lines only for the CM5' '
	$IMGPATCH info rpi.img >rpi.txt &&
	grep -Fx "boot path: Raspberry Pi firmware /config.txt, a tree by model from the FAT root (p1)" rpi.txt &&
	grep -Fx "  tree: /bcm2711-rpi-4-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo (model pi4)" rpi.txt &&
	grep -Fx "  tree: /bcm2712-rpi-5-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo (model pi5)" rpi.txt &&
	! grep dwc2 rpi.txt &&
	$IMGPATCH info --json rpi.img >rpi.json &&
	test "$(json_get rpi.json "\" \".join(t[\"model\"] for t in d[\"boot_path\"][\"trees\"])")" = "pi4 pi5"
'

test_expect_success 'Raspberry Pi: overlay entries keep their parameters, dtparam= lines after dtoverlay= included' '
	cat >params.txt <<-\EOF &&
	[pi4]
	dtoverlay=sdio,poll_once=off
	dtparam=bus_width=1
	dtoverlay=
	dtparam=sd_overclock=62,sd_poll_once
	[all]
	EOF
	"$FIXTURES/mkimage-rpi.sh" rpi-params.img --rpi-trees --config=params.txt &&
	$IMGPATCH info rpi-params.img >rpi-params.txt &&
	grep -Fx "  tree: /bcm2711-rpi-4-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo + /overlays/sdio.dtbo,poll_once=off,bus_width=1 + dtparam=sd_overclock=62,sd_poll_once (model pi4)" rpi-params.txt &&
	grep -Fx "  tree: /bcm2712-rpi-5-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo (model pi5)" rpi-params.txt &&
	$IMGPATCH info --json rpi-params.img >rpi-params.json &&
	test "$(json_get rpi-params.json "d[\"boot_path\"][\"trees\"][0][\"overlays\"][2]")" = \
		/overlays/sdio.dtbo,poll_once=off,bus_width=1
'

test_expect_success 'FIT and script boot paths are named' '
	$IMGPATCH info kv260.img >kv260.txt &&
	grep -Fx "boot path: FIT /image.fit, picked by the boot script, hook user-override.dtb (p1)" kv260.txt &&
	$IMGPATCH info pmos.img >pmos.txt &&
	grep -Fx "boot path: U-Boot script /boot.scr, hook user.scr (p1)" pmos.txt
'

# The SD/eMMC controllers of a tree as dtc reads it, independently of
# imgpatch: mmc.py lines DTB PATH... prints info's line for each node
# ("  PATH STATUS: prop=value, ..."), mmc.py mmc-nodes DTB every node named
# mmc@..., mmc.py json INFO.json I DTB compares boot_path.trees[I]'s
# controllers with DTB. The speed properties are the documented ones.
cat >mmc.py <<'EOF'
import json, re, subprocess, sys

SPEED = re.compile(r"^(no-1-8-v|max-frequency|bus-width|non-removable|"
                   r"mmc-hs400-enhanced-strobe|cap-mmc-highspeed|cap-sd-highspeed|"
                   r"vqmmc-supply|sd-uhs-.*|mmc-hs200-.*|mmc-hs400-.*|mmc-ddr-.*)$")

def nodes(dtb):
    dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", dtb], check=True,
                         capture_output=True, text=True).stdout
    stack, out = [], {}
    for line in dts.splitlines():
        s = line.strip()
        if s.endswith("{"):
            stack.append(s[:-1].strip())
            out["/" + "/".join(stack[1:])] = []
        elif s == "};":
            stack.pop()
        elif stack and s.endswith(";"):
            name, _, value = s[:-1].partition(" = ")
            out["/" + "/".join(stack[1:])].append((name, value))
    return out

def controller(props):
    status = dict(props).get("status", '"okay"').strip('"')
    return status, [(n, v) for n, v in props if SPEED.match(n)]

def line(path, props):
    status, speed = controller(props)
    text = "  %s %s" % (path, status)
    for k, (n, v) in enumerate(speed):
        text += (", " if k else ": ") + n + ("=" + v if v else "")
        text += " (UHS-I blocked)" if n == "no-1-8-v" else ""
    return text

mode, args = sys.argv[1], sys.argv[2:]
if mode == "lines":
    tree = nodes(args[0])
    for p in args[1:]:
        print(line(p, tree[p]))
elif mode == "mmc-nodes":
    for p in nodes(args[0]):
        if p.rsplit("/", 1)[-1].startswith("mmc@"):
            print(p)
elif mode == "json":
    d = json.load(open(args[0]))
    tree = nodes(args[2])
    got = d["boot_path"]["trees"][int(args[1])]["controllers"]
    for c in got:
        status, speed = controller(tree[c["path"]])
        want = {"path": c["path"], "status": status, "properties": dict(speed),
                "uhs_blocked": "no-1-8-v" in dict(speed)}
        if c != want or list(c["properties"]) != [n for n, v in speed]:
            sys.exit("%s: info says %s, dtc reads %s" % (c["path"], c, want))
    missing = [p for p in tree if p.rsplit("/", 1)[-1].startswith("mmc@")
               and p not in [c["path"] for c in got]]
    if missing:
        sys.exit("not listed: %s" % missing)
EOF

# tree_lines TXT N: the controller lines under info's Nth "effective tree" line.
tree_lines()
{
	awk -v n="$2" '/^effective tree /{k++; on = k == n; next} /^  /{if (on) print; next} {on = 0}' "$1"
}

# check_tree TXT JSON N DTB: the controllers info lists for its Nth
# effective tree (text and JSON) are those of DTB as dtc reads it, every
# mmc@ node of DTB among them.
check_tree()
{
	tree_lines "$1" "$3" >got.lines &&
	test -s got.lines &&
	python3 mmc.py lines "$4" $(awk "{print \$1}" got.lines) >expect.lines &&
	test_cmp expect.lines got.lines &&
	python3 mmc.py mmc-nodes "$4" >mmc.nodes &&
	awk "{print \$1}" got.lines | sort >listed &&
	sort mmc.nodes | comm -23 - listed >unlisted &&
	test_cmp /dev/null unlisted &&
	python3 mmc.py json "$2" $(($3 - 1)) "$4"
}

# ext_dump IMG START PATH OUT: PATH of the ext filesystem at sector START.
ext_dump()
{
	debugfs -R "dump $3 $4" "$1?offset=$(($2 * 512))" 2>/dev/null && test -s "$4"
}

test_expect_success 'fixtures whose trees have __symbols__ (as U-Boot builds them), so the overlays apply' '
	mkdir symbols &&
	cp "$DTB_DIR"/*.dtb symbols/ &&
	cp "$DTB_DIR/u-boot-sunxi-pinephone.dtb" symbols/sun50i-a64-pinephone-1.2.dtb &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-armbian.sh" armbian-sym.img &&
	DTB_DIR=$PWD/symbols "$FIXTURES/mkimage-extlinux.sh" extlinux-sym.img --fdt
'

test_expect_success 'Armbian: the effective tree'"'"'s controllers are fdtoverlay'"'"'s, sdfix'"'"'s no-1-8-v with them' '
	d=/boot/dtb/allwinner &&
	ext_dump armbian-sym.img 8192 $d/sun50i-a64-pinephone-1.2.dtb base.dtb &&
	ext_dump armbian-sym.img 8192 $d/overlay/sun50i-a64-uart1.dtbo uart1.dtbo &&
	ext_dump armbian-sym.img 8192 $d/overlay/sun50i-a64-i2c0.dtbo i2c0.dtbo &&
	ext_dump armbian-sym.img 8192 /boot/overlay-user/sdfix.dtbo sdfix.dtbo &&
	fdtoverlay -i base.dtb -o armbian-merged.dtb uart1.dtbo i2c0.dtbo sdfix.dtbo &&
	$IMGPATCH info armbian-sym.img >armbian-sym.txt 2>err &&
	test_cmp /dev/null err &&
	$IMGPATCH info --json armbian-sym.img >armbian-sym.json &&
	grep -Fx "effective tree $d/sun50i-a64-pinephone-1.2.dtb + $d/overlay/sun50i-a64-uart1.dtbo + $d/overlay/sun50i-a64-i2c0.dtbo + /boot/overlay-user/sdfix.dtbo: 3 SD/eMMC controllers" armbian-sym.txt &&
	check_tree armbian-sym.txt armbian-sym.json 1 armbian-merged.dtb &&
	fdtget armbian-merged.dtb /soc/mmc@1c0f000 no-1-8-v &&
	! fdtget base.dtb /soc/mmc@1c0f000 no-1-8-v 2>/dev/null &&
	grep "^  /soc/mmc@1c0f000 okay: .*no-1-8-v (UHS-I blocked)" armbian-sym.txt &&
	test "$(json_get armbian-sym.json "[c[\"uhs_blocked\"] for c in d[\"boot_path\"][\"trees\"][0][\"controllers\"]]")" = "[True, False, False]" &&
	test "$(json_get armbian-sym.json "d[\"boot_path\"][\"trees\"][0][\"booted\"]")" = \
		"$d/sun50i-a64-pinephone-1.2.dtb + $d/overlay/sun50i-a64-uart1.dtbo + $d/overlay/sun50i-a64-i2c0.dtbo + /boot/overlay-user/sdfix.dtbo" &&
	test "$(json_get armbian-sym.json "(d[\"boot_path\"][\"trees\"][0][\"status\"], d[\"boot_path\"][\"trees\"][0][\"warnings\"], d[\"problems\"])")" = "('"'"'ok'"'"', [], 0)" &&
	! grep "^device trees:" armbian-sym.txt
'

test_expect_success 'extlinux: FDT with FDTOVERLAYS, the controllers of the merged tree' '
	v=/usr/lib/linux-image-6.1.0-13-arm64 &&
	ext_dump extlinux-sym.img 2048 $v/allwinner/sun50i-a64-pinephone-1.2.dtb base.dtb &&
	ext_dump extlinux-sym.img 2048 /boot/dtbo/sdfix.dtbo sdfix.dtbo &&
	fdtoverlay -i base.dtb -o extlinux-merged.dtb sdfix.dtbo &&
	$IMGPATCH info extlinux-sym.img >extlinux-sym.txt &&
	$IMGPATCH info --json extlinux-sym.img >extlinux-sym.json &&
	grep -Fx "effective tree $v/allwinner/sun50i-a64-pinephone-1.2.dtb + /boot/dtbo//sdfix.dtbo: 3 SD/eMMC controllers" extlinux-sym.txt &&
	check_tree extlinux-sym.txt extlinux-sym.json 1 extlinux-merged.dtb &&
	grep "^  /soc/mmc@1c0f000 okay: .*no-1-8-v (UHS-I blocked)" extlinux-sym.txt
'

test_expect_success 'Armbian: an overlay that does not apply: the base tree'"'"'s controllers, and the warning cat --dtb gives' '
	d=/boot/dtb/allwinner &&
	ext_dump armbian.img 8192 $d/sun50i-a64-pinephone-1.2.dtb nosym.dtb &&
	grep -Fx "effective tree $d/sun50i-a64-pinephone-1.2.dtb: 3 SD/eMMC controllers" armbian.txt &&
	check_tree armbian.txt armbian.json 1 nosym.dtb &&
	! grep "UHS-I blocked" armbian.txt &&
	$IMGPATCH cat armbian.img --dtb 2>&1 >/dev/null | sed -n "s/^imgpatch: warning: armbian.img: \\(.*\\) (booting .*)$/warning: \\1/p" >warning.expect &&
	test "$(wc -l <warning.expect)" = 1 &&
	grep -x "warning: .*" armbian.txt >warning.text &&
	test_cmp warning.expect warning.text &&
	json_get armbian.json "\"\\n\".join(\"warning: \" + w for w in d[\"boot_path\"][\"trees\"][0][\"warnings\"])" >warning.json &&
	test_cmp warning.expect warning.json &&
	test "$(json_get armbian.json "d[\"problems\"]")" = 0
'

test_expect_success 'Armbian: a missing overlay is skipped with a warning, the others applied' '
	cp armbian-sym.img missing.img &&
	ext_dump armbian-sym.img 8192 /boot/armbianEnv.txt env.sym &&
	sed "s/^overlays=.*/overlays=uart1 nosuch i2c0/" env.sym >env.missing &&
	put_root missing.img 8192 env.missing /boot/armbianEnv.txt &&
	$IMGPATCH info missing.img >missing.txt &&
	$IMGPATCH info --json missing.img >missing.json &&
	d=/boot/dtb/allwinner &&
	grep -Fx "effective tree $d/sun50i-a64-pinephone-1.2.dtb + $d/overlay/sun50i-a64-uart1.dtbo + $d/overlay/sun50i-a64-i2c0.dtbo + /boot/overlay-user/sdfix.dtbo: 3 SD/eMMC controllers" missing.txt &&
	grep -x "warning: .*/overlay/sun50i-a64-nosuch.dtbo: .*not loaded, the boot goes on without it" missing.txt &&
	check_tree missing.txt missing.json 1 armbian-merged.dtb
'

test_expect_success 'BeagleBone: the capes'"'"' tree, merged by fdtoverlay above, BB-SDFIX'"'"'s no-1-8-v listed' '
	$IMGPATCH info --json capes.img >capes.json &&
	check_tree capes.txt capes.json 1 capes.dtb &&
	grep "^  /ocp/interconnect@48000000/segment@0/target-module@60000/mmc@0 okay: no-1-8-v (UHS-I blocked)" capes.txt
'

test_expect_success 'Raspberry Pi: a tree per model, each with its controllers, as mtype and fdtoverlay read them' '
	mtype -i "$(part_mtools rpi.img 1)" ::/bcm2711-rpi-4-b.dtb >pi4.dtb &&
	mtype -i "$(part_mtools rpi.img 1)" ::/bcm2712-rpi-5-b.dtb >pi5-base.dtb &&
	mtype -i "$(part_mtools rpi.img 1)" ::/overlays/vc4-kms-v3d.dtbo >vc4.dtbo &&
	fdtoverlay -i pi5-base.dtb -o pi5.dtb vc4.dtbo &&
	grep -Fx "effective tree /bcm2711-rpi-4-b.dtb + dtparam=audio=on (model pi4): 3 SD/eMMC controllers" rpi.txt &&
	grep -Fx "effective tree /bcm2712-rpi-5-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo (model pi5): 1 SD/eMMC controller" rpi.txt &&
	grep -x "warning: /bcm2711-rpi-4-b.dtb: dtoverlay=vc4-kms-v3d: .*: the firmware goes on without it" rpi.txt &&
	$IMGPATCH info rpi.img 2>rpi.err >/dev/null &&
	test_cmp /dev/null rpi.err &&
	$IMGPATCH cat rpi.img --dtb --model pi5 2>&1 >/dev/null | sed -n "s/^imgpatch: warning: rpi.img: \\(.*\\)/warning: \\1/p" | grep bcm2712 >pi5.warnings &&
	test -s pi5.warnings &&
	sed -n "/^effective tree \/bcm2712/,/^\$/p" rpi.txt | grep "^warning: " >pi5.info &&
	test_cmp pi5.warnings pi5.info &&
	test "$(json_get rpi.json "len(d[\"boot_path\"][\"trees\"][1][\"warnings\"])")" = "$(wc -l <pi5.warnings)" &&
	check_tree rpi.txt rpi.json 1 pi4.dtb &&
	check_tree rpi.txt rpi.json 2 pi5.dtb &&
	test "$(json_get rpi.json "[(t[\"model\"], len(t[\"controllers\"])) for t in d[\"boot_path\"][\"trees\"]]")" = "[('"'"'pi4'"'"', 3), ('"'"'pi5'"'"', 1)]" &&
	test "$(json_get rpi-params.json "[c[\"properties\"].get(\"bus-width\") for c in d[\"boot_path\"][\"trees\"][0][\"controllers\"] if c[\"path\"] == \"/soc/mmc@7e300000\"]")" = "['"'"'<0x01>'"'"']"
'

test_expect_success 'pmOS: the tree the boot script names, with its controllers' '
	ext_dump pmos.img 2048 /sun50i-a64-pinephone-1.2.dtb pmos.dtb &&
	$IMGPATCH info --json pmos.img >pmos.json &&
	grep -Fx "effective tree /sun50i-a64-pinephone-1.2.dtb + /sun50i-a64-psci.dtbo: 3 SD/eMMC controllers" pmos.txt &&
	grep "warning: /boot.scr: what is applied depends on iscpscienabled, which the image does not set: unset (the board.s default environment): /sun50i-a64-psci.dtbo; with iscpscienabled=0 on the board: no overlay" pmos.txt &&
	check_tree pmos.txt pmos.json 1 pmos.dtb
'

test_expect_success 'a base tree that is not there is said, not counted as a problem' '
	$IMGPATCH info menu.img >menu.txt &&
	grep -Fx "effective tree /b.dtb: p1 (ext4): /b.dtb: not found" menu.txt &&
	$IMGPATCH info --json menu.img >menu.json &&
	test "$(json_get menu.json "[(t[\"status\"], t[\"error\"], t[\"controllers\"]) for t in d[\"boot_path\"][\"trees\"]]")" = \
		"[('"'"'missing'"'"', '"'"'p1 (ext4): /b.dtb: not found'"'"', [])]" &&
	test "$(json_get menu.json "d[\"problems\"]")" = 0
'

test_expect_success 'no tree at all: device trees none to inspect' '
	! grep "^effective tree" none.out &&
	grep -Fx "device trees: none to inspect (no FIT fdt, no user-override.dtb)" none.out &&
	! grep -F "none to inspect" armbian.txt rpi.txt beagle.txt fdtdir.txt pmos.txt
'

test_expect_success 'the JSON of every boot path validates against the schema' '
	python3 "$TEST_DIR/json/validate.py" "$TEST_DIR/../tool/schema/info.schema.json" \
		armbian.json fdtdir.json fdt.json rpi.json rpi-params.json capes.json \
		armbian-sym.json extlinux-sym.json missing.json menu.json pmos.json
'

test_expect_success 'Armbian settings that cannot be read: an error, a problem, the image unchanged' '
	cp armbian.img dangling.img &&
	printf "rm /boot/armbianEnv.txt\nsymlink /boot/armbianEnv.txt /boot/nowhere.txt\n" >dangling.cmd &&
	debugfs -w -f dangling.cmd "dangling.img?offset=$((8192 * 512))" >/dev/null 2>&1 &&
	sum_file dangling.img >before.sum &&
	test_must_fail $IMGPATCH info dangling.img >dangling.txt &&
	grep -Fx "error: p1 (ext4): /boot/armbianEnv.txt: dangling symbolic link to /boot/nowhere.txt" dangling.txt &&
	test_must_fail $IMGPATCH info --json dangling.img >dangling.json &&
	test "$(json_get dangling.json "d[\"problems\"]")" = 1 &&
	python3 "$TEST_DIR/json/validate.py" "$TEST_DIR/../tool/schema/info.schema.json" dangling.json &&
	sum_file dangling.img >after.sum &&
	test_cmp before.sum after.sum
'

test_expect_success 'info only reads: the images are unchanged' '
	sum_file armbian.img >a.sum &&
	$IMGPATCH info armbian.img >/dev/null &&
	sum_file armbian.img >b.sum &&
	test_cmp a.sum b.sum
'

test_done
