# SPDX-License-Identifier: MIT
# A device tree blob with /configurations but no /images.
fixture kv260 bad.img
cat >image.dts <<'EOD'
/dts-v1/;
/ {
	description = "no images";
	configurations {
		default = "conf-1";
		conf-1 { fdt = "fdt-1"; };
	};
};
EOD
dtc -q -I dts -O dtb -o image.fit image.dts
fat_put bad.img 1 image.fit /image.fit
CMD=(patch bad.img "${KV260_DT[@]}")
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: p1 \(vfat\): /image\.fit: not a FIT: no /images node$'
