// SPDX-License-Identifier: MIT
/*
 * Fuzzes the FIT reader and the device-tree extraction that follows it: the
 * input is an image.fit. Every image is verified and its payload taken;
 * flat_dt payloads go through the same edits a patch makes. The same input
 * is also read piecewise (the skeleton walk a patch uses): when both readers
 * accept it, they must agree on every image.
 */
#include <errno.h>
#include <stdlib.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "fuzz.h"



static void fuzz_fdt(const uint8_t *payload, size_t len)
{
	struct imgp_buf dts = { 0 };
	struct imgp_dtb dtb;
	const void *blob;
	size_t blen;
	int node;

	if (imgp_dtb_load_(&dtb, payload, len))
		return;
	fuzz_list_mmc(&dtb);
	imgp_dt_to_dts_(&dtb, &dts);
	imgp_buf_free(&dts);
	node = imgp_dt_find_node_(&dtb, "mmc");
	if (node >= 0)
		imgp_dt_delete_prop_(&dtb, node, "no-1-8-v");
	node = imgp_dt_find_node_(&dtb, "/axi/mmc@ff170000");
	if (node >= 0)
		imgp_dt_delete_prop_(&dtb, node, "no-1-8-v");
	imgp_dtb_finish_(&dtb, &blob, &blen);
	imgp_dtb_free_(&dtb);
}

struct mem {
	const uint8_t *data;
	size_t size;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem *m = ctx;

	if (off > m->size || len > m->size - off)
		return imgp_fail(ERANGE, "past the end");
	memcpy(buf, m->data + off, len);
	return 0;
}

/* The piecewise reader; its index compared with the whole reader's. */
static void fuzz_piecewise(const uint8_t *data, size_t size,
			   const struct imgp_fit *whole)
{
	struct mem m = { data, size };
	struct imgp_reader rd = { mem_read, NULL, &m, size };
	struct imgp_fit fit;

	if (imgp_fit_load_(&fit, &rd)) {
		imgp_errclear_();
		return;
	}
	if (whole) {
		if (fit.nimages != whole->nimages || fit.nconfs != whole->nconfs)
			abort();
		for (size_t i = 0; i < fit.nimages; i++)
			if (strcmp(fit.images[i].name, whole->images[i].name) ||
			    fit.images[i].size != whole->images[i].size)
				abort();
	}
	for (size_t i = 0; i < fit.nimages; i++) {
		const uint8_t *payload;
		size_t len;

		if (!imgp_fit_payload_(&fit, &fit.images[i], &payload, &len) &&
		    whole && memcmp(payload, whole->images[i].data, len))
			abort();
	}
	imgp_fit_free_(&fit);
	imgp_errclear_();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const specs[] = {
		"6", "0", "99999999999", "fdt-smk-k26-revA-sck-kv-g-revB.dtb",
		"smk-k26-revA-sck-kv-g-revB.dtb", "fdt-1", "kernel-1",
	};
	const struct imgp_fit_image *img;
	struct imgp_fit fit;
	uint8_t *copy;

	copy = (uint8_t *)fuzz_dup(data, size);
	if (!copy)
		return 0;
	/* Takes copy, also on failure. */
	if (imgp_fit_parse_(&fit, copy, size)) {
		imgp_errclear_();
		fuzz_piecewise(data, size, NULL);
		return 0;
	}
	fuzz_piecewise(data, size, &fit);
	for (size_t i = 0; i < fit.nimages; i++) {
		const uint8_t *payload;
		size_t len;

		img = &fit.images[i];
		imgp_fit_verify_(&fit, img);
		/*
		 * A mutated payload rarely keeps its hash: go on with the
		 * unverified bytes, whose bounds the parser checked.
		 */
		if (imgp_fit_payload_(&fit, img, &payload, &len)) {
			payload = img->data;
			len = img->size;
		}
		if (strcmp(img->type, "flat_dt") == 0)
			fuzz_fdt(payload, len);
	}
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		imgp_fit_find_fdt_(&fit, specs[i], &img);
	if (fit.nimages)
		imgp_fit_find_fdt_(&fit, fit.images[fit.nimages - 1].name, &img);
	imgp_fit_free_(&fit);
	imgp_errclear_();
	return 0;
}
