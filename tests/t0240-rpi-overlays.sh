#!/bin/bash
# SPDX-License-Identifier: MIT
test_description='Raspberry Pi: dtoverlay= and dtparam= lines of config.txt, with their parameters, as the firmware applies them (Raspberry Pi dtmerge results kept in tests/dts/rpi)'
. "$(dirname "$0")/lib.sh"

test_require_tools dtc mcopy mkfs.vfat

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
	grep -Fx "  pi4: /bcm2711-rpi-4-b.dtb + dtparam=audio=on, /overlays/vc4-kms-v3d.dtbo, /overlays/sdio.dtbo,poll_once=off,bus_width=1,sdio_overclock=50, dtparam=sd_overclock=62,sd_poll_once" info.txt &&
	grep -Fx "  pi5: /bcm2712-rpi-5-b.dtb + dtparam=audio=on, /overlays/vc4-kms-v3d.dtbo, /overlays/nosuch.dtbo" info.txt &&
	test_file_unchanged rpi.img "$sum"
'

test_expect_success 'overlay_map.dtb: the overlay the firmware loads for each name' '
	"$FIXTURES/mkimage-rpi.sh" map.img --rpi-trees --config=config-map.txt &&
	$IMGPATCH info map.img >map.txt &&
	grep -Fx "  pi4: /bcm2711-rpi-4-b.dtb + dtparam=audio=on, /overlays/vc4-kms-v3d.dtbo, /overlays/sdtweak.dtbo,poll_once,sd_debug, /overlays/ramoops-pi4.dtbo, /overlays/disable-bt.dtbo" map.txt &&
	grep -Fx "  pi5: /bcm2712-rpi-5-b.dtb + dtparam=audio=on, /overlays/vc4-kms-v3d.dtbo, /overlays/i2c3.dtbo, /overlays/sdio-1bit.dtbo" map.txt
'

test_expect_success 'the kept dtmerge results are those of the sources here' '
	grep -q "^image-pi4	dtparam=audio=on	dtoverlay=vc4-kms-v3d	dtoverlay=sdio,poll_once=off,bus_width=1,sdio_overclock=50	dtparam=sd_overclock=62,sd_poll_once$" "$RPI_DTS/cases.txt" &&
	for name in $(grep -v "^#" "$RPI_DTS/cases.txt" | cut -f1); do
		test -s "$RPI_DTS/expected/$name.dts" || return 1
	done
'

test_done
