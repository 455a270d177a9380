// SPDX-License-Identifier: MIT
/*
 * What an overlay says of itself, checked before libfdt follows it
 * (dt-overlay-check.c): fixup entries parsed strictly (a path from the
 * root, a property there, a decimal offset with room for a phandle), a
 * path through an alias only when the alias is a path from the root (an
 * alias naming itself made libfdt 1.6.1 recurse until its stack ran out),
 * and crafted overlays refused by imgp_dt_apply_overlay_ with the tree
 * left as it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "imgpatch.h"
#include "dt/dt.h"
#include "dt/dt-internal.h"
#include "unit.h"

/*
 * A base: /aliases { self = "self"; up = "../x"; mmc0 = "/soc/mmc@1000"; },
 * /soc/mmc@1000 with phandle 1, /__symbols__ { sd = "/soc/mmc@1000";
 * rel = "self"; bare = "/soc"; viaalias = "mmc0"; }.
 */
static void make_base(char *blob, size_t size)
{
	int aliases, soc, mmc, sym;

	fdt_create_empty_tree(blob, (int)size);
	aliases = fdt_add_subnode(blob, 0, "aliases");
	fdt_setprop_string(blob, aliases, "self", "self");
	fdt_setprop_string(blob, aliases, "up", "../x");
	fdt_setprop_string(blob, aliases, "mmc0", "/soc/mmc@1000");
	soc = fdt_add_subnode(blob, 0, "soc");
	mmc = fdt_add_subnode(blob, soc, "mmc@1000");
	fdt_add_subnode(blob, mmc, "card");
	fdt_setprop_u32(blob, mmc, "phandle", 1);
	sym = fdt_add_subnode(blob, 0, "__symbols__");
	fdt_setprop_string(blob, sym, "sd", "/soc/mmc@1000");
	fdt_setprop_string(blob, sym, "rel", "self");
	fdt_setprop_string(blob, sym, "bare", "/soc");
	fdt_setprop_string(blob, sym, "viaalias", "mmc0");
	fdt_pack(blob);
}

static void check_path_offset(void)
{
	char blob[4096];
	int mmc;

	make_base(blob, sizeof(blob));
	mmc = fdt_path_offset(blob, "/soc/mmc@1000");
	CHECK(imgp_dt_path_offset_(blob, "/soc/mmc@1000", 13) == mmc, "a path from the root");
	CHECK(imgp_dt_path_offset_(blob, "mmc0", 4) == mmc, "an alias to a path from the root");
	CHECK(imgp_dt_path_offset_(blob, "mmc0/card", 9) ==
	      fdt_subnode_offset(blob, mmc, "card"), "below an alias");
	CHECK(imgp_dt_path_offset_(blob, "mmc0//card/", 11) ==
	      fdt_subnode_offset(blob, mmc, "card"), "below an alias, slashes doubled");
	CHECK(imgp_dt_path_offset_(blob, "self", 4) == -FDT_ERR_BADVALUE,
	      "an alias naming itself is refused, not followed");
	CHECK(imgp_dt_path_offset_(blob, "up/x", 4) == -FDT_ERR_BADVALUE,
	      "an alias to a relative path is refused");
	CHECK(imgp_dt_path_offset_(blob, "none", 4) == -FDT_ERR_BADPATH, "no such alias");
	CHECK(imgp_dt_path_offset_(blob, "", 0) == -FDT_ERR_BADPATH, "an empty path");
	CHECK(imgp_dt_path_offset_(blob, "mmc0/none", 9) == -FDT_ERR_NOTFOUND,
	      "no such node below an alias");
}

/* An overlay with /fragment@0 { target = <~0>; __overlay__ { cells = <1 2>; }; }. */
static void make_overlay(char *blob, size_t size)
{
	int frag, over;
	fdt32_t cells[2] = { cpu_to_fdt32(1), cpu_to_fdt32(2) };

	fdt_create_empty_tree(blob, (int)size);
	frag = fdt_add_subnode(blob, 0, "fragment@0");
	fdt_setprop_u32(blob, frag, "target", 0xffffffff);
	over = fdt_add_subnode(blob, frag, "__overlay__");
	fdt_setprop(blob, over, "cells", cells, sizeof(cells));
	fdt_pack(blob);
}

static void check_fixup_parse(void)
{
	static const struct {
		const char *entry, *why;
	} bad[] = {
		{ "/fragment@0:target:-4", "the offset is not a decimal number of at most 10 digits" },
		{ "/fragment@0:target:4294967292", "offset 4294967292 is past the end of the property (4 bytes; a phandle takes 4)" },
		{ "/fragment@0:target:18446744073709551612", "the offset is not a decimal number of at most 10 digits" },
		{ "/fragment@0:target:1", "offset 1 is past the end of the property (4 bytes; a phandle takes 4)" },
		{ "/fragment@0:target:0x0", "the offset is not a decimal number of at most 10 digits" },
		{ "/fragment@0:target:", "no offset" },
		{ "/fragment@0::0", "no property name" },
		{ "/fragment@0:target", "not PATH:PROPERTY:OFFSET" },
		{ "/fragment@0:target:0:", "not PATH:PROPERTY:OFFSET" },
		{ ":target:0", "the path does not start at the root" },
		{ "self:target:0", "the path does not start at the root" },
		{ "/nothere:target:0", "the overlay has no such node" },
		{ "/fragment@0:nothere:0", "the node has no such property" },
		{ "/fragment@0/__overlay__:cells:5", "offset 5 is past the end of the property (8 bytes; a phandle takes 4)" },
		{ "/fragment@0:target:\n", "the offset is not a decimal number of at most 10 digits" },
	};
	struct imgp_dt_fixup fx;
	char blob[4096], want[256], name[128];

	make_overlay(blob, sizeof(blob));
	CHECK(imgp_dt_fixup_parse_(blob, "/fragment@0:target:0", &fx) == 0 &&
	      fx.node == fdt_path_offset(blob, "/fragment@0") && fx.offset == 0 &&
	      fx.namelen == 6 && !strncmp(fx.name, "target", 6), "fixup: a good entry");
	CHECK(imgp_dt_fixup_parse_(blob, "/fragment@0/__overlay__:cells:3", &fx) == 0 &&
	      fx.offset == 3, "fixup: an unaligned offset inside (dtc writes one after a string)");
	CHECK(imgp_dt_fixup_parse_(blob, "/fragment@0/__overlay__:cells:0000000004", &fx) == 0 &&
	      fx.offset == 4, "fixup: leading zeros");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char shown[64];

		snprintf(shown, sizeof(shown), "%s", bad[i].entry);
		for (char *p = shown; *p; p++)
			*p = *p == '\n' ? '?' : *p;
		snprintf(name, sizeof(name), "fixup '%s' refused", shown);
		CHECK(imgp_dt_fixup_parse_(blob, bad[i].entry, &fx) == -EBADMSG, name);
		snprintf(want, sizeof(want), "entry '%s': %s", shown, bad[i].why);
		snprintf(name, sizeof(name), "fixup '%s': its message", shown);
		CHECK_STR(imgp_errmsg(), want, name);
	}
}

/*
 * ovl applied to base with the library: its result, or -2 when a failure
 * left the tree changed.
 */
static int apply(const char *base, const char *ovl)
{
	struct imgp_dtb dtb;
	char *before;
	int rc;

	if (imgp_dtb_load_(&dtb, base, fdt_totalsize(base)))
		return -1;
	before = malloc(dtb.bufsize);
	if (!before) {
		imgp_dtb_free_(&dtb);
		return -1;
	}
	memcpy(before, dtb.fdt, dtb.bufsize);
	rc = imgp_dt_apply_overlay_(&dtb, ovl, fdt_totalsize(ovl));
	if (rc && memcmp(before, dtb.fdt, dtb.bufsize))
		rc = -2;
	free(before);
	imgp_dtb_free_(&dtb);
	return rc;
}

/* make_overlay()'s with __fixups__ { label = list (len bytes) }, applied to base. */
static int apply_with_fixups(const char *base, const char *label, const void *list,
			     int len)
{
	char ovl[4096];

	make_overlay(ovl, sizeof(ovl));
	fdt_open_into(ovl, ovl, sizeof(ovl));
	fdt_setprop(ovl, fdt_add_subnode(ovl, 0, "__fixups__"), label, list, len);
	fdt_pack(ovl);
	return apply(base, ovl);
}

static void check_apply(void)
{
	char base[4096];
	int rc;

	make_base(base, sizeof(base));
	CHECK(apply_with_fixups(base, "sd", "/fragment@0:target:0", 21) == 0,
	      "apply: a good fixup");
	rc = apply_with_fixups(base, "sd", "/fragment@0:target:-4", 22);
	CHECK(rc == -EBADMSG, "apply: the issue's '-4' is refused, the tree as it was");
	CHECK_STR(imgp_errmsg(), "broken overlay: __fixups__ of label 'sd': entry '/fragment@0:target:-4': the offset is not a decimal number of at most 10 digits",
		  "apply: the issue's '-4' named");
	rc = apply_with_fixups(base, "sd", "/fragment@0:target:0\0/x", 23);
	CHECK(rc == -EBADMSG, "apply: an unterminated list");
	CHECK_STR(imgp_errmsg(), "broken overlay: __fixups__ of label 'sd': not NUL-terminated",
		  "apply: an unterminated list named");
	rc = apply_with_fixups(base, "sd", "/fragment@0:target:0\0\0", 22);
	CHECK(rc == -EBADMSG && strstr(imgp_errmsg(), "an empty entry"),
	      "apply: an empty entry");
	rc = apply_with_fixups(base, "sd", "", 0);
	CHECK(rc == -EBADMSG && strstr(imgp_errmsg(), "no entries"), "apply: no entries");
	rc = apply_with_fixups(base, "rel", "/fragment@0:target:0", 21);
	CHECK(rc == -EBADMSG, "apply: a base symbol that is an alias naming itself");
	CHECK_STR(imgp_errmsg(), "the base tree's __symbols__ entry 'rel' is not a path, or an alias to one",
		  "apply: that symbol named");
	CHECK(apply_with_fixups(base, "viaalias", "/fragment@0:target:0", 21) == 0,
	      "apply: a base symbol that is an alias to a path from the root");
	rc = apply_with_fixups(base, "bare", "/fragment@0:target:0", 21);
	CHECK(rc == -EINVAL, "apply: a label whose node has no phandle");
	CHECK_STR(imgp_errmsg(), "label 'bare' is /soc, which has no phandle in the base tree",
		  "apply: that label named");
	rc = apply_with_fixups(base, "none", "/fragment@0:target:0", 21);
	CHECK(rc == -EINVAL, "apply: a label the base lacks");
	CHECK_STR(imgp_errmsg(), "unresolved label 'none' (overlay fragment@0)",
		  "apply: that label named");
}

/* An overlay whose fragment targets path (a string) with one property. */
static int apply_to_path(const char *base, const char *path, const char *prop,
			 const char *value)
{
	char ovl[4096];
	int frag;

	fdt_create_empty_tree(ovl, sizeof(ovl));
	frag = fdt_add_subnode(ovl, 0, "fragment@0");
	fdt_setprop_string(ovl, frag, "target-path", path);
	fdt_setprop_string(ovl, fdt_add_subnode(ovl, frag, "__overlay__"), prop, value);
	fdt_pack(ovl);
	return apply(base, ovl);
}

static void check_targets(void)
{
	char base[4096];
	int rc;

	make_base(base, sizeof(base));
	CHECK(apply_to_path(base, "mmc0", "status", "okay") == 0,
	      "target-path: an alias to a path from the root");
	rc = apply_to_path(base, "self", "status", "okay");
	CHECK(rc == -EBADMSG, "target-path: an alias naming itself");
	CHECK_STR(imgp_errmsg(), "broken overlay: fragment@0: target-path 'self' is an alias whose value in the base tree is not a path from the root",
		  "target-path: that alias named");
	rc = apply_to_path(base, "", "status", "okay");
	CHECK(rc == -EBADMSG && strstr(imgp_errmsg(), "target-path is not a path"),
	      "target-path: empty");
	CHECK(apply_to_path(base, "/aliases", "mmc1", "/soc") == 0,
	      "an alias the overlay adds: a path from the root");
	rc = apply_to_path(base, "/aliases", "loop", "loop");
	CHECK(rc == -EBADMSG, "an alias the overlay adds that names itself");
	CHECK_STR(imgp_errmsg(), "broken overlay: fragment@0: alias 'loop' is not a path from the root",
		  "that alias named");
}

/* The Raspberry Pi's merge reads the same entries through the same checks. */
static void check_rpi(void)
{
	char base[4096], ovl[4096];
	size_t size;
	void *fdt;
	int rc;

	make_base(base, sizeof(base));
	make_overlay(ovl, sizeof(ovl));
	fdt_open_into(ovl, ovl, sizeof(ovl));
	fdt_setprop(ovl, fdt_add_subnode(ovl, 0, "__fixups__"), "sd",
		    "/fragment@0:target:-4", 22);
	fdt_pack(ovl);
	size = fdt_totalsize(base);
	fdt = malloc(size);
	if (!fdt)
		return;
	memcpy(fdt, base, size);
	rc = imgp_rpi_dtoverlay_(&fdt, &size, ovl, fdt_totalsize(ovl), "crafted", NULL,
				NULL, NULL);
	CHECK(rc == -EBADMSG && size == fdt_totalsize(base) && !memcmp(fdt, base, size),
	      "rpi: the issue's '-4' is refused, the tree as it was");
	CHECK_STR(imgp_errmsg(), "broken overlay crafted: __fixups__ of label 'sd': entry '/fragment@0:target:-4': the offset is not a decimal number of at most 10 digits",
		  "rpi: the issue's '-4' named");
	free(fdt);
}

int main(void)
{
	check_path_offset();
	check_fixup_parse();
	check_apply();
	check_targets();
	check_rpi();
	return unit_done();
}
