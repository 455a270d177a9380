#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi: dtoverlay= and dtparam= lines of config.txt, with their parameters, as the firmware applies them (Raspberry Pi dtmerge results kept in tests/dts/rpi)'
. "$(dirname "$0")/lib.sh"

test_require_tools dtc fdtget mcopy mtype mkfs.vfat

RPI_DTS=$TEST_DIR/dts/rpi

# The Raspberry Pi OS config.txt of the fixture, ending with these lines:
# the sdio overlay with a parameter on its line and two on dtparam= lines
# after it, an empty dtoverlay= that ends its scope, the base tree's own
# SD parameters; for the Pi 5 an overlay that is not there.
cat >config-extra.txt <<'EOF'
[pi4]
dtoverlay=sdio,poll_once=off
dtparam=bus_width=1
dtparam=sdio_overclock=50
dtoverlay=
dtparam=sd_overclock=62,sd_poll_once
[pi5]
dtoverlay=nosuch
[all]
EOF

# Names overlay_map.dtb maps: per platform (ramoops is ramoops-pi4 on a
# Pi 4), renamed, deprecated (the firmware loads neither sdtweak nor
# sdio-1bit), for one platform only (i2c3: Pi 4).
cat >config-map.txt <<'EOF'
[pi4]
dtoverlay=sdtweak,poll_once
dtparam=sd_debug
dtoverlay=ramoops
dtoverlay=pi3-disable-bt
[pi5]
dtoverlay=i2c3
dtoverlay=sdio-1bit
[all]
EOF

test_expect_success 'build the fixture with the Raspberry Pi kernel trees, twice the same bytes' '
	"$FIXTURES/mkimage-rpi.sh" rpi.img --rpi-trees --config=config-extra.txt &&
	"$FIXTURES/mkimage-rpi.sh" again.img --rpi-trees --config=config-extra.txt &&
	cmp rpi.img again.img &&
	rm again.img &&
	mtype -i "rpi.img@@$((8192 * 512))" ::/config.txt >config.txt &&
	tail -n 9 config.txt >tail.txt &&
	test_cmp config-extra.txt tail.txt
'

test_expect_success 'info: one entry per step the firmware takes, parameters kept' '
	sum=$(sum_file rpi.img) &&
	$IMGPATCH info rpi.img >info.txt &&
	grep -Fx "  tree: /bcm2711-rpi-4-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo + /overlays/sdio.dtbo,poll_once=off,bus_width=1,sdio_overclock=50 + dtparam=sd_overclock=62,sd_poll_once (model pi4)" info.txt &&
	grep -Fx "  tree: /bcm2712-rpi-5-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo + /overlays/nosuch.dtbo (model pi5)" info.txt &&
	test_file_unchanged rpi.img "$sum"
'

test_expect_success 'overlay_map.dtb: the overlay the firmware loads for each name' '
	"$FIXTURES/mkimage-rpi.sh" map.img --rpi-trees --config=config-map.txt &&
	$IMGPATCH info map.img >map.txt &&
	grep -Fx "  tree: /bcm2711-rpi-4-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo + /overlays/sdtweak.dtbo,poll_once,sd_debug + /overlays/ramoops-pi4.dtbo + /overlays/disable-bt.dtbo (model pi4)" map.txt &&
	grep -Fx "  tree: /bcm2712-rpi-5-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo + /overlays/i2c3.dtbo + /overlays/sdio-1bit.dtbo (model pi5)" map.txt
'

test_expect_success 'the kept dtmerge results are those of the sources here' '
	grep -q "^image-pi4	dtparam=audio=on	dtoverlay=vc4-kms-v3d	dtoverlay=sdio,poll_once=off,bus_width=1,sdio_overclock=50	dtparam=sd_overclock=62,sd_poll_once$" "$RPI_DTS/cases.txt" &&
	for name in $(grep -v "^#" "$RPI_DTS/cases.txt" | cut -f1); do
		test -s "$RPI_DTS/expected/$name.dts" || return 1
	done
'

# cat_dtb IMG MODEL OUT: the effective tree of MODEL as cat --dtb prints it,
# then as dtc sorts it (OUT), the image unchanged.
cat_dtb()
{
	local -; set +x
	local sum

	sum=$(sum_file "$1") || return 1
	$IMGPATCH cat "$1" --dtb --model "$2" >"$3.all" 2>"$3.err" || return 1
	test_file_unchanged "$1" "$sum" || return 1
	sed 1d "$3.all" >"$3.dts" &&
		dtc -q -I dts -O dtb -o "$3.dtb" "$3.dts" &&
		dtc -q -I dtb -O dts -s -o "$3" "$3.dtb"
}

test_expect_success 'cat --dtb --model pi4: the tree dtmerge makes from the same lines' '
	cat_dtb rpi.img pi4 pi4 &&
	head -n 1 pi4.all >pi4.head &&
	echo "// boot path rpi: /bcm2711-rpi-4-b.dtb + dtparam=audio=on + /overlays/vc4-kms-v3d.dtbo + /overlays/sdio.dtbo,poll_once=off,bus_width=1,sdio_overclock=50 + dtparam=sd_overclock=62,sd_poll_once" >expect &&
	test_cmp expect pi4.head &&
	test_cmp "$RPI_DTS/expected/image-pi4.dts" pi4 &&
	! grep bcm2711 pi4.err
'

test_expect_success 'cat --dtb --model pi5: audio=on ignored with a warning, the missing overlay skipped as the firmware does' '
	cat_dtb rpi.img pi5 pi5 &&
	grep -Fx "imgpatch: warning: rpi.img: p1 (vfat): /bcm2712-rpi-5-b.dtb: dtparam=audio=on: unknown parameter '"'"'audio'"'"': ignored, as the firmware does" pi5.err &&
	grep -F "/overlays/nosuch.dtbo: no such file: the firmware goes on without it" pi5.err &&
	fdtget pi5.dtb /soc@107c000000/v3d@2000000 status >status &&
	echo okay >expect &&
	test_cmp expect status
'

test_expect_success 'cat --dtb: an overlay overlay_map.dtb deprecates is not loaded, and the tree is the one without it' '
	cat_dtb map.img pi4 map-pi4 &&
	grep -F "/bcm2711-rpi-4-b.dtb: overlay '"'"'sdtweak'"'"' is deprecated: use '"'"'dtparam=sd_poll_once'"'"' etc. (/overlays/overlay_map.dtb): the firmware does not load it" map-pi4.err &&
	! fdtget map-pi4.dtb /emmc2bus/mmc@7e340000 non-removable &&
	! fdtget map-pi4.dtb /soc/mmc@7e202000 brcm,debug
'

test_done
