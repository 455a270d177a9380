// SPDX-License-Identifier: MIT
/*
 * Fuzzes device-tree handling: the input is a .dtb (or .dtbo). It is
 * loaded, rendered as DTS, searched and edited as patch steps do, has two
 * fixed overlays applied to it, and is itself applied as an overlay to a
 * fixed base tree that has the labels the shipped overlays refer to.
 */
#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "dt/dt.h"
#include "fuzz.h"

#define FUZZ_BLOB_MAX 8192

static uint8_t base_blob[FUZZ_BLOB_MAX];
static uint8_t ovl_label[FUZZ_BLOB_MAX];
static uint8_t ovl_path[FUZZ_BLOB_MAX];
static bool blobs_made;

/* The blobs are fixed: any libfdt error building them is a harness bug. */
static void ok(int rc)
{
	if (rc)
		abort();
}

static void prop_u32(void *fdt, const char *name, uint32_t val)
{
	ok(fdt_property_u32(fdt, name, val));
}

static void prop_str(void *fdt, const char *name, const char *val)
{
	ok(fdt_property_string(fdt, name, val));
}

static void node(void *fdt, const char *name)
{
	ok(fdt_begin_node(fdt, name));
}

static void end(void *fdt)
{
	ok(fdt_end_node(fdt));
}

static void start(void *fdt)
{
	ok(fdt_create(fdt, FUZZ_BLOB_MAX));
	ok(fdt_finish_reservemap(fdt));
	node(fdt, "");
}

static void finish(void *fdt)
{
	end(fdt);
	ok(fdt_finish(fdt));
}

/* A KV260-like SD controller and PinePhone-like eMMC with their labels. */
static void make_base(void *fdt)
{
	start(fdt);
	prop_str(fdt, "compatible", "xlnx,zynqmp-smk-k26");
	prop_u32(fdt, "#address-cells", 1);
	prop_u32(fdt, "#size-cells", 1);
	node(fdt, "axi");
	node(fdt, "mmc@ff170000");
	prop_str(fdt, "compatible", "xlnx,zynqmp-8.9a");
	ok(fdt_property(fdt, "no-1-8-v", NULL, 0));
	prop_u32(fdt, "bus-width", 4);
	prop_str(fdt, "status", "okay");
	prop_u32(fdt, "phandle", 1);
	end(fdt);
	node(fdt, "mmc@1c11000");
	prop_str(fdt, "compatible", "allwinner,sun50i-a64-emmc");
	prop_str(fdt, "status", "disabled");
	prop_u32(fdt, "phandle", 2);
	end(fdt);
	end(fdt);
	node(fdt, "regulators");
	node(fdt, "eldo1");
	prop_u32(fdt, "phandle", 3);
	end(fdt);
	end(fdt);
	node(fdt, "pinctrl");
	node(fdt, "mmc2-pins");
	prop_u32(fdt, "phandle", 4);
	end(fdt);
	node(fdt, "mmc2-ds-pin");
	prop_u32(fdt, "phandle", 5);
	end(fdt);
	end(fdt);
	node(fdt, "__symbols__");
	prop_str(fdt, "sdhci1", "/axi/mmc@ff170000");
	prop_str(fdt, "mmc2", "/axi/mmc@1c11000");
	prop_str(fdt, "reg_eldo1", "/regulators/eldo1");
	prop_str(fdt, "mmc2_pins", "/pinctrl/mmc2-pins");
	prop_str(fdt, "mmc2_ds_pin", "/pinctrl/mmc2-ds-pin");
	end(fdt);
	finish(fdt);
}

/* fragment@0 targets a label (needs __symbols__), fragment@1 a path. */
static void make_overlay(void *fdt, bool with_label)
{
	start(fdt);
	if (with_label) {
		node(fdt, "fragment@0");
		prop_u32(fdt, "target", 0xffffffff);
		node(fdt, "__overlay__");
		prop_u32(fdt, "max-frequency", 200000000);
		ok(fdt_property(fdt, "sd-uhs-sdr104", NULL, 0));
		end(fdt);
		end(fdt);
	}
	node(fdt, "fragment@1");
	prop_str(fdt, "target-path", "/");
	node(fdt, "__overlay__");
	prop_str(fdt, "model", "fuzz");
	node(fdt, "extra");
	prop_str(fdt, "status", "okay");
	end(fdt);
	end(fdt);
	end(fdt);
	if (with_label) {
		node(fdt, "__fixups__");
		prop_str(fdt, "sdhci1", "/fragment@0:target:0");
		end(fdt);
	}
	finish(fdt);
}

static void fuzz_find(const struct imgp_dtb *dtb)
{
	static const char *const specs[] = {
		"/axi/mmc@ff170000", "&sdhci1", "mmc", "mmc@ff170000", "/",
		"&", "/axi//mmc", "sdhci@0",
	};
	char path[256];

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		int n = imgp_dt_find_node_(dtb, specs[i]);

		if (n >= 0)
			imgp_dt_node_path_(dtb, n, path, sizeof(path));
	}
}

static void fuzz_edit(struct imgp_dtb *dtb)
{
	static const uint8_t freq[4] = { 0x0b, 0xeb, 0xc2, 0x00 };
	/* More than the slack imgp_dtb_load_ leaves: the buffer must grow. */
	static const uint8_t big[70000];
	const void *blob;
	size_t len;
	int n;

	n = imgp_dt_find_node_(dtb, "mmc");
	if (n >= 0) {
		imgp_dt_delete_prop_(dtb, n, "no-1-8-v");
		imgp_dt_set_prop_(dtb, n, "max-frequency", freq, sizeof(freq));
		imgp_dt_set_prop_(dtb, n, "fuzz-big", big, sizeof(big));
	}
	imgp_dt_add_node_(dtb, "/fuzz/node@1");
	imgp_dt_apply_overlay_(dtb, ovl_label, fdt_totalsize(ovl_label));
	imgp_dt_apply_overlay_(dtb, ovl_path, fdt_totalsize(ovl_path));
	n = imgp_dt_find_node_(dtb, "&sdhci1");
	if (n > 0)
		imgp_dt_delete_node_(dtb, n);
	imgp_dtb_finish_(dtb, &blob, &len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imgp_buf dts = { 0 };
	struct imgp_dtb dtb;

	if (!blobs_made) {
		make_base(base_blob);
		make_overlay(ovl_label, true);
		make_overlay(ovl_path, false);
		blobs_made = true;
	}
	if (imgp_dtb_load_(&dtb, data, size) == 0) {
		imgp_dt_to_dts_(&dtb, &dts);
		imgp_buf_free(&dts);
		fuzz_list_mmc(&dtb);
		fuzz_find(&dtb);
		fuzz_edit(&dtb);
		imgp_dt_to_dts_(&dtb, &dts);
		imgp_buf_free(&dts);
		imgp_dtb_free_(&dtb);
	}
	/* The input as an overlay on the fixed base. */
	if (imgp_dtb_load_(&dtb, base_blob, fdt_totalsize(base_blob)))
		abort();
	if (imgp_dt_apply_overlay_(&dtb, data, size) == 0) {
		fuzz_list_mmc(&dtb);
		imgp_dt_to_dts_(&dtb, &dts);
		imgp_buf_free(&dts);
	}
	imgp_dtb_free_(&dtb);
	imgp_errclear_();
	return 0;
}
