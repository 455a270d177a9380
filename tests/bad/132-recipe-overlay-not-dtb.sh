# SPDX-License-Identifier: MIT
# Recipe: its dt-overlay file is the overlay's source text, not the
# compiled overlay.
fixture kv260 bad.img
mkdir overlays
# The overlay's source, where its compiled form belongs.
cat >overlays/fix.dtbo <<'EOD'
/dts-v1/;
/plugin/;

&sdhci1 {
	max-frequency = <100000000>;
};
EOD
{ recipe_head textoverlay; cat <<'EOD'; } >textoverlay.recipe
step { action = "fdt-from-fit" fit = "/image.fit" fdt = "6" }
step { action = "dt-overlay" overlay = "fix.dtbo" }
step { action = "write-dtb" path = "/user-override.dtb" }
EOD
CMD=(apply ./textoverlay.recipe bad.img)
TARGET=bad.img
STATUS=1
EXPECT='^imgpatch: bad\.img: step 2 \(dt-overlay\): .*overlay is not a device tree blob: FDT_ERR_BADMAGIC$'
