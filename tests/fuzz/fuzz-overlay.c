// SPDX-License-Identifier: MIT
/*
 * Fuzzes the generic overlay apply (U-Boot's fdt apply, libfdt's
 * fdt_overlay_apply) that the effective tree uses for a boot path without
 * its own loader: the input is a base tree then one or more overlays, each
 * blob as long as its header's totalsize says (a seed is the compiled files
 * one after the other). The base is loaded as the effective tree loads one
 * and each overlay applied in turn. imgp_dt_apply_overlay_ promises a tree
 * that passes fdt_check_full on success and the tree unchanged on failure;
 * the harness checks both, and renders the result as DTS.
 */
#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "dt/dt.h"
#include "fuzz.h"

/* At most this many overlays: enough to apply one onto another's result. */
#define FUZZ_OVERLAYS 4

static void apply(struct imgp_dtb *dtb, const uint8_t *data, size_t len)
{
	void *before = dtb->fdt;
	size_t before_size = dtb->bufsize;
	char *copy = fuzz_dup(dtb->fdt, dtb->bufsize);
	char *overlay = fuzz_dup(data, len);
	int rc;

	if (!copy || !overlay)
		abort();
	rc = imgp_dt_apply_overlay_(dtb, overlay, len);
	if (rc == 0) {
		if (fdt_check_full(dtb->fdt, dtb->bufsize) != 0)
			abort();
	} else if (dtb->fdt != before || dtb->bufsize != before_size ||
		   memcmp(dtb->fdt, copy, before_size) != 0) {
		abort();
	}
	free(overlay);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = fuzz_fdt_len(data, size, false), len;
	struct imgp_buf dts = { 0 };
	struct imgp_dtb dtb;
	char *base;

	if (!pos)
		return 0;
	base = fuzz_dup(data, pos);
	if (!base)
		abort();
	if (imgp_dtb_load_(&dtb, base, pos) == 0) {
		for (int i = 0; i < FUZZ_OVERLAYS && (len = fuzz_fdt_len(data + pos, size - pos, false)); i++) {
			apply(&dtb, data + pos, len);
			pos += len;
		}
		imgp_dt_to_dts_(&dtb, &dts);
		imgp_buf_free(&dts);
		imgp_dtb_free_(&dtb);
	}
	free(base);
	imgp_errclear_();
	return 0;
}
