// SPDX-License-Identifier: MIT
/*
 * The fdt commands a boot script edits the booted tree with (Armbian's
 * fixup.scr), as U-Boot 2023.01's cmd/fdt.c runs them: "set" with cells,
 * bytes and string lists (fdt_parse_prop), "?" keeping a cell, "rm" of a
 * property or node, "mknode", and the failures that leave the tree alone.
 */
#include <string.h>

#include <libfdt.h>

#include "dt/dt.h"
#include "boot/bootpath.h"
#include "unit.h"

/* A tree "/" with /soc/mmc@1c0f000 { max-frequency = <150000000>; }. */
static void make_tree(struct imgp_dtb *dtb)
{
	char blob[4096];
	int soc, mmc;

	fdt_create_empty_tree(blob, sizeof(blob));
	soc = fdt_add_subnode(blob, 0, "soc");
	mmc = fdt_add_subnode(blob, soc, "mmc@1c0f000");
	fdt_setprop_u32(blob, mmc, "max-frequency", 150000000);
	fdt_setprop_string(blob, mmc, "status", "okay");
	fdt_pack(blob);
	CHECK(imgp_dtb_load_(dtb, blob, fdt_totalsize(blob)) == 0, "a tree to edit");
}

/* Runs "fdt ..." split at blanks, as hush splits an unquoted line. */
static int run(struct imgp_dtb *dtb, const char *line)
{
	char copy[256], *argv[16], *save = NULL;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (char *w = strtok_r(copy, " ", &save); w && argc < 16; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	return imgp_uboot_fdt_cmd_(dtb, argc, argv, NULL);
}

static const void *prop(const struct imgp_dtb *dtb, const char *path, const char *name,
			int *len)
{
	int node = fdt_path_offset(dtb->fdt, path);

	*len = -1;
	return node < 0 ? NULL : fdt_getprop(dtb->fdt, node, name, len);
}

int main(void)
{
	static const uint8_t cells[] = { 0, 0, 0, 1, 0, 0, 0, 0x20 };
	static const uint8_t bytes[] = { 0x01, 0xab, 0x0c };
	static const char strings[] = "a\0bc";
	const char *mmc = "/soc/mmc@1c0f000";
	struct imgp_dtb dtb = { 0 };
	const uint8_t *v;
	int len;

	make_tree(&dtb);
	CHECK(run(&dtb, "fdt set /soc/mmc@1c0f000 max-frequency <50000000>") == 0,
	      "set: one cell");
	v = prop(&dtb, mmc, "max-frequency", &len);
	CHECK(len == 4 && v && fdt32_ld((const fdt32_t *)v) == 50000000, "set: the cell's value");
	CHECK(run(&dtb, "fdt set /soc/mmc@1c0f000 cells <1 0x20>") == 0,
	      "set: cells across words");
	v = prop(&dtb, mmc, "cells", &len);
	CHECK(len == 8 && v && !memcmp(v, cells, 8), "set: <1 0x20> is two cells");
	CHECK(run(&dtb, "fdt set /soc/mmc@1c0f000 cells <? 7>") == 0, "set: ? keeps a cell");
	v = prop(&dtb, mmc, "cells", &len);
	CHECK(len == 8 && v && fdt32_ld((const fdt32_t *)v) == 1 &&
	      fdt32_ld((const fdt32_t *)v + 1) == 7, "set: the first cell kept, the second 7");
	CHECK(run(&dtb, "fdt set /soc/mmc@1c0f000 bytes [01 ab 0c]") == 0, "set: bytes");
	v = prop(&dtb, mmc, "bytes", &len);
	CHECK(len == 3 && v && !memcmp(v, bytes, 3), "set: [01 ab 0c] is three bytes");
	CHECK(run(&dtb, "fdt set /soc/mmc@1c0f000 names a bc") == 0, "set: strings");
	v = prop(&dtb, mmc, "names", &len);
	CHECK(len == 5 && v && !memcmp(v, strings, 5), "set: words are a string list");
	CHECK(run(&dtb, "fdt set /soc/mmc@1c0f000 cap-sd-highspeed") == 0, "set: no value");
	v = prop(&dtb, mmc, "cap-sd-highspeed", &len);
	CHECK(len == 0, "set: an empty property");
	CHECK(run(&dtb, "fdt set /soc/nosuch x <1>") == 1, "set: a node not there fails");
	CHECK(run(&dtb, "fdt set /soc/mmc@1c0f000 x <1 2") == 1, "set: no closing > fails");
	CHECK(run(&dtb, "fdt set /soc/mmc@1c0f000 x <zz>") == 1, "set: no number fails");
	CHECK(prop(&dtb, mmc, "x", &len) == NULL, "set: a failed set leaves no property");

	CHECK(run(&dtb, "fdt rm /soc/mmc@1c0f000 status") == 0, "rm: a property");
	CHECK(prop(&dtb, mmc, "status", &len) == NULL, "rm: the property is gone");
	CHECK(run(&dtb, "fdt rm /soc/mmc@1c0f000 status") == 1, "rm: one not there fails");
	CHECK(run(&dtb, "fdt mknode /soc sd-slot") == 0, "mknode: a node");
	CHECK(fdt_path_offset(dtb.fdt, "/soc/sd-slot") >= 0, "mknode: the node is there");
	CHECK(run(&dtb, "fdt mknode /soc sd-slot") == 1, "mknode: one there already fails");
	CHECK(run(&dtb, "fdt mknode / top") == 0 && fdt_path_offset(dtb.fdt, "/top") >= 0,
	      "mknode: under the root");
	CHECK(run(&dtb, "fdt rm /soc/sd-slot") == 0 &&
	      fdt_path_offset(dtb.fdt, "/soc/sd-slot") < 0, "rm: a node");
	CHECK(run(&dtb, "fdt resize 65536") == 0, "resize: nothing to model");
	CHECK(run(&dtb, "fdt") == 1, "fdt alone fails");
	imgp_dtb_free_(&dtb);
	return unit_done();
}
