// SPDX-License-Identifier: MIT
/*
 * Fuzzes the Raspberry Pi firmware's overlay engine (dt-rpi-params.c,
 * dt-rpi-overlay.c). The input is a base tree, optionally an overlay, then
 * the overlay's name, NUL, and a parameter list: each blob is as long as its
 * header's totalsize says, so a seed is the two compiled files and the text
 * one after the other. The overlay is applied to the base as a dtoverlay=
 * line, then the parameters as a dtparam= line to the result (or to the base
 * alone). Both calls promise a tree that passes fdt_check_full on success
 * and the caller's buffer untouched on failure; the harness checks both.
 */
#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "dt/dt.h"
#include "fuzz.h"

/* Every warning is formatted: a string the engine hands on unterminated shows. */
static void warnings_check(struct imgp_buf *warned)
{
	if (warned->len && strlen((const char *)warned->data) != warned->len)
		abort();
	imgp_buf_free(warned);
}

/* A failed call leaves the caller's pointer, size and bytes as they were. */
static void check(int rc, void *fdt, size_t size, const void *before_ptr,
		  const void *before, size_t before_size)
{
	if (rc == 0) {
		if (fdt_check_full(fdt, size) != 0)
			abort();
		return;
	}
	if (fdt != before_ptr || size != before_size || memcmp(fdt, before, size) != 0)
		abort();
}

/*
 * One call through apply on *fdt: the result checked against a copy of the
 * tree taken before it.
 */
static void call(void **fdt, size_t *size, const char *overlay, size_t ovl_len,
		 const char *name, const char *params)
{
	void *before = *fdt;
	size_t before_size = *size;
	char *copy = fuzz_dup(*fdt, *size);
	struct imgp_buf warned = { 0 };
	int rc;

	if (!copy)
		abort();
	if (overlay)
		rc = imgp_rpi_dtoverlay_(fdt, size, overlay, ovl_len, name, params, NULL, &warned);
	else
		rc = imgp_rpi_dtparam_(fdt, size, params ? params : "", NULL, &warned);
	check(rc, *fdt, *size, before, copy, before_size);
	warnings_check(&warned);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t base_len = fuzz_fdt_len(data, size, false), ovl_len, pos, name_len = 0, params_len = 0;
	const uint8_t *name_field = (const uint8_t *)"", *params_field = (const uint8_t *)"";
	char *name, *params, *overlay = NULL;
	void *fdt;
	size_t fdt_size = base_len;

	if (!base_len)
		return 0;
	ovl_len = fuzz_fdt_len(data + base_len, size - base_len, false);
	pos = base_len + ovl_len;
	fuzz_field(data, size, &pos, &name_field, &name_len);
	fuzz_field(data, size, &pos, &params_field, &params_len);
	name = fuzz_str(name_field, name_len);
	params = fuzz_str(params_field, params_len);
	fdt = fuzz_dup(data, base_len);
	if (ovl_len)
		overlay = fuzz_dup(data + base_len, ovl_len);
	if (!name || !params || !fdt || (ovl_len && !overlay))
		abort();
	/* dtoverlay=name,params, then dtparam=params on what it left. */
	if (overlay)
		call(&fdt, &fdt_size, overlay, ovl_len, name, params_len ? params : NULL);
	call(&fdt, &fdt_size, NULL, 0, NULL, params);
	free(fdt);
	free(overlay);
	free(name);
	free(params);
	imgp_errclear_();
	return 0;
}
