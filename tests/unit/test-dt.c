// SPDX-License-Identifier: MIT
/*
 * Device tree edits and lookups on trees dtc compiles at test time, and on
 * real board trees from $IMGP_TEST_DTB_DIR when they are there. fdtput and
 * dtc are the independent references: a deletion must give the very bytes
 * `fdtput -d` gives, a formatted value the text `dtc -O dts` prints.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "dt/dt.h"
#include "unit.h"

#define REAL_DTB "smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb"

static const char test_dts[] =
	"/dts-v1/;\n"
	"/ {\n"
	"	#address-cells = <1>;\n"
	"	#size-cells = <1>;\n"
	"	model = \"test board\";\n"
	"	compatible = \"vendor,board\", \"vendor,soc\";\n"
	"	soc {\n"
	"		#address-cells = <1>;\n"
	"		#size-cells = <1>;\n"
	"		sdhci0: mmc@1000 {\n"
	"			compatible = \"vendor,soc-sdhci\", \"generic-sdhci\";\n"
	"			reg = <0x1000 0x100>;\n"
	"			no-1-8-v;\n"
	"			bus-width = <4>;\n"
	"			max-frequency = <200000000>;\n"
	"			status = \"okay\";\n"
	"			cap-sd-highspeed;\n"
	"			disable-wp;\n"
	"		};\n"
	"		sdhci1: mmc@2000 {\n"
	"			compatible = \"vendor,soc-sdhci\";\n"
	"			reg = <0x2000 0x100>;\n"
	"			status = \"disabled\";\n"
	"			non-removable;\n"
	"			mmc-hs200-1_8v;\n"
	"			sd-uhs-sdr104;\n"
	"			vqmmc-supply = <&vccio>;\n"
	"		};\n"
	"		dwmmc: dwmmc@3000 {\n"
	"			compatible = \"rockchip,rk3288-dw-mshc\";\n"
	"			reg = <0x3000 0x100>;\n"
	"		};\n"
	"		uart0: serial@4000 {\n"
	"			compatible = \"ns16550a\";\n"
	"			reg = <0x4000 0x100>;\n"
	"			bytes = [01 02 03];\n"
	"			strs = \"a\", \"b\\tc\", \"\";\n"
	"			mixed = [61 62 00 ff];\n"
	"			empty;\n"
	"			quote = \"say \\\"hi\\\" \\\\\";\n"
	"			small = <1 2>;\n"
	"			binary = [00 00 00];\n"
	"		};\n"
	"		wide: mmc@5000 {\n"
	"			reg = <0x5000 0x100>;\n"
	"			no-1-8-v;\n"
	"			max-frequency = <50000000>;\n"
	"			bus-width = <8>;\n"
	"			non-removable;\n"
	"			sd-uhs-sdr12;\n"
	"			sd-uhs-sdr25;\n"
	"			sd-uhs-sdr50;\n"
	"			sd-uhs-sdr104;\n"
	"			sd-uhs-ddr50;\n"
	"			mmc-hs200-1_8v;\n"
	"			mmc-hs200-1_2v;\n"
	"			mmc-hs400-1_8v;\n"
	"			mmc-hs400-1_2v;\n"
	"			mmc-ddr-1_8v;\n"
	"			mmc-hs400-enhanced-strobe;\n"
	"			cap-mmc-highspeed;\n"
	"			cap-sd-highspeed;\n"
	"			vqmmc-supply = <&vccio>;\n"
	"		};\n"
	"	};\n"
	"	vccio: regulator {\n"
	"		compatible = \"regulator-fixed\";\n"
	"	};\n"
	"	pwrseq {\n"
	"		compatible = \"mmc-pwrseq-simple\";\n"
	"	};\n"
	"};\n";

static int load_file(struct imgp_dtb *dtb, const char *path)
{
	size_t len;
	uint8_t *raw = unit_read_file(path, &len);
	int rc;

	if (!raw)
		return -ENOENT;
	rc = imgp_dtb_load_(dtb, raw, len);
	free(raw);
	return rc;
}

/* The path of what a spec resolves to, or "" with rc set. */
static const char *find(const struct imgp_dtb *dtb, const char *spec, int *rc)
{
	static char path[256];

	path[0] = '\0';
	*rc = imgp_dt_find_node_(dtb, spec);
	if (*rc >= 0 && imgp_dt_node_path_(dtb, *rc, path, sizeof(path)))
		path[0] = '\0';
	return path;
}

/*
 * Deletes props from node with the library and with `fdtput -d` on a copy
 * of file; both results must be the same bytes.
 */
static void check_like_fdtput(const char *file, const char *node,
			      const char *const props[], int nprops)
{
	const char *argv[16] = { "fdtput", "-d", unit_path("fdtput.dtb"), node };
	struct imgp_dtb dtb;
	const void *blob;
	uint8_t *raw, *want;
	size_t len, wlen, size;
	int i, off, rc;

	raw = unit_read_file(file, &len);
	if (!raw || unit_write_file(unit_path("fdtput.dtb"), raw, len)) {
		CHECK(0, "copy for fdtput");
		free(raw);
		return;
	}
	for (i = 0; i < nprops && i < 10; i++)
		argv[4 + i] = props[i];
	rc = unit_run(argv, NULL, NULL);
	want = rc ? NULL : unit_read_file(unit_path("fdtput.dtb"), &wlen);

	rc = imgp_dtb_load_(&dtb, raw, len);
	free(raw);
	CHECK(rc == 0, "load for deletion");
	if (rc) {
		free(want);
		return;
	}
	off = imgp_dt_find_node_(&dtb, node);
	for (i = 0; i < nprops && off >= 0; i++)
		if (imgp_dt_delete_prop_(&dtb, off, props[i]) != 0)
			off = -1;
	CHECK(off >= 0, "every property deleted");
	CHECK(off >= 0 && imgp_dt_delete_prop_(&dtb, off, props[0]) == 1,
	      "deleting it again reports it absent");
	rc = imgp_dtb_finish_(&dtb, &blob, &size);
	CHECK(rc == 0 && want && size == wlen && !memcmp(blob, want, size),
	      "result is byte-for-byte what fdtput -d writes");
	CHECK(rc == 0 && fdt_check_full(blob, size) == 0 &&
	      !fdt_getprop(blob, fdt_path_offset(blob, node), props[0], NULL),
	      "the property is gone from a valid tree");
	free(want);
	imgp_dtb_free_(&dtb);
}

/*
 * Formats every property of a node and checks "name = value;" (or "name;")
 * against the text dtc decompiles. dtc 1.6 prints string lists as one string
 * with "\0" inside, so those are left to the fixed expectations.
 */
static void check_like_dtc(const struct imgp_dtb *dtb, const char *dts,
			   const char *node_spec)
{
	char line[512], val[400], *block = NULL;
	const char *start, *end;
	int node, prop, len, checked = 0, same = 1;

	/* Only the node's own block of the decompiled text counts. */
	node = imgp_dt_find_node_(dtb, node_spec);
	snprintf(line, sizeof(line), "\t%s {\n",
		 node >= 0 ? fdt_get_name(dtb->fdt, node, NULL) : "?");
	start = strstr(dts, line);
	end = start ? strstr(start, "};\n") : NULL;
	if (end)
		block = strndup(start, (size_t)(end - start));
	if (!block) {
		CHECK(0, "node block in dtc output");
		return;
	}
	fdt_for_each_property_offset(prop, dtb->fdt, node) {
		const char *name;
		const char *v = fdt_getprop_by_offset(dtb->fdt, prop, &name, &len);

		if (!v || (len > 1 && memchr(v, '\0', (size_t)len - 1) &&
			   v[len - 1] == '\0'))
			continue;
		if (imgp_dt_format_value_(v, len, val, sizeof(val)))
			continue;
		if (len)
			snprintf(line, sizeof(line), "\t%s = %s;\n", name, val);
		else
			snprintf(line, sizeof(line), "\t%s;\n", name);
		checked++;
		if (!strstr(block, line)) {
			printf("# not in dtc output: %s", line);
			same = 0;
		}
	}
	CHECK(node >= 0 && checked > 3 && same,
	      "formatted values match dtc -O dts");
	free(block);
}

static char *decompile(const char *dtb_path)
{
	const char *argv[] = { "dtc", "-q", "-I", "dtb", "-O", "dts", dtb_path, NULL };
	struct imgp_buf out = { 0 };

	if (unit_run(argv, NULL, &out)) {
		imgp_buf_free(&out);
		return NULL;
	}
	return (char *)imgp_buf_steal_(&out, NULL);
}

static void check_load(void)
{
	struct imgp_dtb dtb;
	uint8_t junk[64];
	uint8_t *raw;
	size_t len;
	int rc;

	memset(junk, 0x5a, sizeof(junk));
	rc = imgp_dtb_load_(&dtb, junk, sizeof(junk));
	CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "not a device tree blob"),
	      "garbage is refused");
	rc = imgp_dtb_load_(&dtb, junk, 8);
	CHECK(rc == -EINVAL, "8 bytes are refused");
	raw = unit_read_file(unit_path("t.dtb"), &len);
	rc = raw ? imgp_dtb_load_(&dtb, raw, len / 2) : -1;
	CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "truncated"),
	      "truncated tree is refused");
	if (raw && len > 200) {
		/* A property length that runs past the structure block. */
		int node = fdt_path_offset(raw, "/soc/serial@4000");
		int off = node < 0 ? -1 : fdt_first_property_offset(raw, node);

		if (off >= 0) {
			uint8_t *p = raw + fdt_off_dt_struct(raw) + off + 4;

			p[0] = 0x7f;
			rc = imgp_dtb_load_(&dtb, raw, len);
			CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "broken device tree"),
			      "fdt_check_full catches a bad property length");
			/*
			 * -12: libfdt 1.6.1's fdt_next_tag() steps from the tag
			 * back onto itself, and its fdt_check_full() never returns.
			 */
			memcpy(p, "\xff\xff\xff\xf4", 4);
			rc = imgp_dtb_load_(&dtb, raw, len);
			CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "broken device tree"),
			      "a property length of -12 is refused, not looped on");
			if (load_file(&dtb, unit_path("t.dtb")) == 0) {
				rc = imgp_dt_apply_overlay_(&dtb, raw, len);
				CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "broken overlay"),
				      "an overlay with a property length of -12 is refused");
				imgp_dtb_free_(&dtb);
			}
		}
	}
	free(raw);
}

static void check_find(void)
{
	struct imgp_dtb dtb, dtb2;
	const char *path;
	int rc;

	if (load_file(&dtb, unit_path("t.dtb"))) {
		CHECK(0, "load test tree");
		return;
	}
	path = find(&dtb, "mmc", &rc);
	CHECK(rc == -EEXIST, "bare name matching three nodes is -EEXIST");
	CHECK_STR(imgp_errmsg(),
		  "node 'mmc' is ambiguous (matches: /soc/mmc@1000, /soc/mmc@2000, /soc/mmc@5000); give a full path or a &label",
		  "ambiguous message lists every match");
	if (load_file(&dtb2, unit_path("nosym.dtb")) == 0) {
		find(&dtb2, "mmc", &rc);
		CHECK_STR(imgp_errmsg(),
			  "node 'mmc' is ambiguous (matches: /soc/mmc@1000, /soc/mmc@2000, /soc/mmc@5000); give a full path",
			  "ambiguous: no &label hint in a tree without __symbols__");
		imgp_dtb_free_(&dtb2);
	} else {
		CHECK(0, "load the test tree without __symbols__");
	}
	path = find(&dtb, "mmc@2000", &rc);
	CHECK_STR(path, "/soc/mmc@2000", "name@unit");
	path = find(&dtb, "dwmmc", &rc);
	CHECK_STR(path, "/soc/dwmmc@3000", "unique bare name");
	path = find(&dtb, "/soc/mmc@1000", &rc);
	CHECK_STR(path, "/soc/mmc@1000", "absolute path");
	path = find(&dtb, "/soc/mmc@1000/", &rc);
	CHECK_STR(path, "/soc/mmc@1000", "absolute path with a trailing slash");
	path = find(&dtb, "/", &rc);
	CHECK_STR(path, "/", "root");
	path = find(&dtb, "/soc/dwmmc", &rc);
	CHECK_STR(path, "/soc/dwmmc@3000", "path without a unique unit address");
	path = find(&dtb, "/soc/mmc", &rc);
	CHECK(rc == -EEXIST, "path without unit address matching three is -EEXIST");
	path = find(&dtb, "&sdhci1", &rc);
	CHECK_STR(path, "/soc/mmc@2000", "&label");
	path = find(&dtb, "&nope", &rc);
	CHECK(rc == -ENOENT, "unknown label is -ENOENT");
	CHECK_STR(imgp_errmsg(),
		  "label 'nope' not found (SD/eMMC labels: &sdhci0, &sdhci1, &dwmmc, &wide)",
		  "unknown label message lists SD/eMMC labels");
	path = find(&dtb, "mmc@9000", &rc);
	CHECK(rc == -ENOENT, "missing name@unit is -ENOENT");
	CHECK_STR(imgp_errmsg(),
		  "node 'mmc@9000' not found (candidates: /soc/mmc@1000, /soc/mmc@2000, /soc/mmc@5000)",
		  "missing node message lists nodes of the same name");
	path = find(&dtb, "foo", &rc);
	CHECK_STR(imgp_errmsg(),
		  "node 'foo' not found (SD/eMMC controllers: /soc/mmc@1000, /soc/mmc@2000, /soc/dwmmc@3000, /soc/mmc@5000)",
		  "missing node message falls back to the SD/eMMC controllers");
	path = find(&dtb, "/soc/nothere", &rc);
	CHECK(rc == -ENOENT, "missing absolute path is -ENOENT");
	path = find(&dtb, "/nothere/mmc@1000", &rc);
	CHECK(rc == -ENOENT && strstr(imgp_errmsg(), "candidates: /soc/mmc@1000"),
	      "missing path lists nodes of the same name");
	path = find(&dtb, "soc/mmc@1000", &rc);
	CHECK(rc == -EINVAL, "relative path is -EINVAL");
	path = find(&dtb, "", &rc);
	CHECK(rc == -EINVAL, "empty spec is -EINVAL");
	path = find(&dtb, "&", &rc);
	CHECK(rc == -EINVAL && !path[0], "empty label is -EINVAL");
	imgp_dtb_free_(&dtb);

	if (load_file(&dtb, unit_path("nosym.dtb"))) {
		CHECK(0, "load tree without __symbols__");
		return;
	}
	path = find(&dtb, "&sdhci0", &rc);
	CHECK(rc == -ENOENT, "label in a tree without __symbols__ is -ENOENT");
	CHECK_STR(imgp_errmsg(),
		  "label 'sdhci0' not found: the tree has no __symbols__ (compile it with dtc -@)",
		  "message says how to get __symbols__");
	path = find(&dtb, "mmc@1000", &rc);
	CHECK_STR(path, "/soc/mmc@1000", "name@unit without __symbols__");
	imgp_dtb_free_(&dtb);
}

static void check_format(const struct imgp_dtb *dtb, const char *dts)
{
	static const struct {
		const char *prop, *want;
	} cases[] = {
		{ "compatible", "\"ns16550a\"" },
		{ "reg", "<0x4000 0x100>" },
		{ "bytes", "[01 02 03]" },
		{ "strs", "\"a\", \"b\\tc\", \"\"" },
		{ "mixed", "<0x616200ff>" },
		{ "empty", "" },
		{ "quote", "\"say \\\"hi\\\" \\\\\"" },
		{ "small", "<0x01 0x02>" },
		{ "binary", "[00 00 00]" },
	};
	char out[64];
	const void *v;
	size_t i;
	int node, len, rc;

	node = imgp_dt_find_node_(dtb, "serial@4000");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[64];

		v = fdt_getprop(dtb->fdt, node, cases[i].prop, &len);
		rc = v ? imgp_dt_format_value_(v, len, out, sizeof(out)) : -1;
		snprintf(name, sizeof(name), "format %s", cases[i].prop);
		CHECK(rc == 0, name);
		CHECK_STR(out, cases[i].want, name);
	}
	v = fdt_getprop(dtb->fdt, imgp_dt_find_node_(dtb, "/"), "compatible", &len);
	rc = v ? imgp_dt_format_value_(v, len, out, sizeof(out)) : -1;
	CHECK_STR(out, "\"vendor,board\", \"vendor,soc\"", "format string list");

	v = fdt_getprop(dtb->fdt, node, "reg", &len);
	rc = imgp_dt_format_value_(v, len, out, 8);
	CHECK(rc == -ENOSPC, "truncated value is -ENOSPC");
	CHECK_STR(out, "<0x4...", "truncated value ends in ...");
	rc = imgp_dt_format_value_(v, len, out, 2);
	CHECK(rc == -ENOSPC && strlen(out) < 2, "tiny buffer stays terminated");
	rc = imgp_dt_format_value_(v, len, out, 0);
	CHECK(rc == -ENOSPC, "zero-size buffer is -ENOSPC");
	rc = imgp_dt_format_value_(v, len, out, 15);
	CHECK(rc == 0 && !strcmp(out, "<0x4000 0x100>"), "exact fit is not truncated");
	rc = imgp_dt_format_value_(v, -1, out, sizeof(out));
	CHECK(rc == -EINVAL, "negative length is -EINVAL");

	check_like_dtc(dtb, dts, "serial@4000");
	check_like_dtc(dtb, dts, "mmc@1000");
	check_like_dtc(dtb, dts, "mmc@5000");
}

static const struct imgp_dt_mmc_prop *mmc_prop(const struct imgp_dt_mmc *m,
					       const char *name)
{
	size_t i;

	for (i = 0; i < m->nprops; i++)
		if (!strcmp(m->props[i].name, name))
			return &m->props[i];
	return NULL;
}

static void check_mmc(const struct imgp_dtb *dtb)
{
	struct imgp_dt_mmc *mmc;
	const struct imgp_dt_mmc_prop *p;
	size_t n;

	CHECK(imgp_dt_list_mmc_(dtb, &mmc, &n, NULL) == 0 && n == 4,
	      "four SD/eMMC controllers (not the serial, not the pwrseq)");
	if (n != 4) {
		free(mmc);
		return;
	}
	CHECK_STR(mmc[0].path, "/soc/mmc@1000", "first controller");
	CHECK_STR(mmc[1].path, "/soc/mmc@2000", "second controller");
	CHECK_STR(mmc[2].path, "/soc/dwmmc@3000", "controller found by compatible");
	CHECK_STR(mmc[3].path, "/soc/mmc@5000", "fourth controller");
	CHECK_STR(mmc[0].status, "okay", "status okay");
	CHECK_STR(mmc[1].status, "disabled", "status disabled");
	CHECK_STR(mmc[2].status, "okay", "missing status is okay");
	CHECK(mmc[0].nprops == 4, "speed properties of mmc@1000 only");
	p = mmc_prop(&mmc[0], "no-1-8-v");
	CHECK(p && !p->value[0], "no-1-8-v listed, empty value");
	p = mmc_prop(&mmc[0], "max-frequency");
	CHECK_STR(p ? p->value : NULL, "<0xbebc200>", "max-frequency value");
	p = mmc_prop(&mmc[0], "bus-width");
	CHECK_STR(p ? p->value : NULL, "<0x04>", "bus-width value");
	CHECK(mmc_prop(&mmc[1], "sd-uhs-sdr104") && mmc_prop(&mmc[1], "mmc-hs200-1_8v") &&
	      mmc_prop(&mmc[1], "vqmmc-supply") && mmc_prop(&mmc[1], "non-removable"),
	      "sd-uhs-*, mmc-hs200-*, vqmmc-supply, non-removable listed");
	CHECK(mmc[2].nprops == 0, "controller without speed properties");
	/* As many as the node has: a real eMMC host can have 20. */
	CHECK(mmc[3].nprops == 18, "all 18 speed properties are listed");
	CHECK(mmc_prop(&mmc[3], "vqmmc-supply") != NULL, "the last one too");
	free(mmc);
}

static const char *real_path(const char *file)
{
	static char path[512];
	const char *base = getenv("IMGP_TEST_DTB_DIR");

	snprintf(path, sizeof(path), "%s/%s", base && *base ? base : "tests/dtb",
		 file);
	/* The trees are part of the repository: one missing is a failure. */
	if (access(path, R_OK) != 0) {
		CHECK(false, "real tree present");
		printf("#   %s: not found\n", path);
		return NULL;
	}
	return path;
}

/* Checks any real tree supports: every controller round-trips and formats. */
static void check_real_generic(const char *file)
{
	struct imgp_dt_mmc *mmc = NULL;
	struct imgp_dtb dtb;
	const char *path = real_path(file), *p;
	char *dts, name[160];
	size_t nm = 0;
	int rc, n, i, ok = 1, del = -1;

	if (!path)
		return;
	printf("# %s\n", file);
	rc = load_file(&dtb, path);
	snprintf(name, sizeof(name), "load %s", file);
	CHECK(rc == 0, name);
	if (rc)
		return;
	n = imgp_dt_list_mmc_(&dtb, &mmc, &nm, NULL) ? -1 : (int)nm;
	CHECK(n >= 1, "real tree: SD/eMMC controllers listed");
	for (i = 0; i < n; i++) {
		p = find(&dtb, mmc[i].path, &rc);
		if (strcmp(p, mmc[i].path))
			ok = 0;
		if (del < 0 && mmc[i].nprops)
			del = i;
	}
	CHECK(ok, "real tree: every controller found by its path");
	dts = decompile(path);
	CHECK(dts != NULL, "real tree: dtc decompiles it");
	for (i = 0; dts && i < n; i++)
		check_like_dtc(&dtb, dts, mmc[i].path);
	free(dts);
	imgp_dtb_free_(&dtb);
	if (del >= 0) {
		const char *props[] = { mmc[del].props[0].name };

		check_like_fdtput(path, mmc[del].path, props, 1);
	}
	free(mmc);
}

/* The Kria K26 tree (sm-k26 SOM on the KV260 carrier), as the recipes use it. */
static void check_real_k26(void)
{
	static const char *const no18[] = { "no-1-8-v" };
	struct imgp_dt_mmc *mmc = NULL;
	struct imgp_dtb dtb;
	const char *path = real_path(REAL_DTB), *p;
	size_t nm = 0;
	int rc, n, i, found = 0;

	if (!path || load_file(&dtb, path))
		return;
	p = find(&dtb, "&sdhci1", &rc);
	CHECK_STR(p, "/axi/mmc@ff170000", "k26: &sdhci1");
	p = find(&dtb, "mmc@ff170000", &rc);
	CHECK_STR(p, "/axi/mmc@ff170000", "k26: mmc@ff170000");
	p = find(&dtb, "mmc", &rc);
	CHECK(rc == -EEXIST && strstr(imgp_errmsg(), "/axi/mmc@ff160000") &&
	      strstr(imgp_errmsg(), "/axi/mmc@ff170000"),
	      "k26: bare mmc is ambiguous between both controllers");
	n = imgp_dt_list_mmc_(&dtb, &mmc, &nm, NULL) ? -1 : (int)nm;
	for (i = 0; i < n; i++)
		if (!strcmp(mmc[i].path, "/axi/mmc@ff170000") &&
		    mmc_prop(&mmc[i], "no-1-8-v"))
			found = 1;
	free(mmc);
	CHECK(found, "k26: mmc@ff170000 listed with no-1-8-v");
	imgp_dtb_free_(&dtb);
	check_like_fdtput(path, "/axi/mmc@ff170000", no18, 1);
}

/* A tree built without -@: labels cannot work, the message says why. */
static void check_real_nosym(void)
{
	struct imgp_dtb dtb;
	const char *path = real_path("sun50i-a64-pinephone-1.2.dtb");
	int rc;

	if (!path || load_file(&dtb, path))
		return;
	find(&dtb, "&mmc0", &rc);
	CHECK(rc == -ENOENT && strstr(imgp_errmsg(), "no __symbols__"),
	      "pinephone: label lookup explains the missing __symbols__");
	imgp_dtb_free_(&dtb);
}

static void check_real_trees(void)
{
	static const char *const files[] = {
		REAL_DTB,
		"zynqmp-smk-k26-revA.dtb",
		"sun50i-a64-pinephone-1.2.dtb",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_real_generic(files[i]);
	check_real_k26();
	check_real_nosym();
}

/* ------------------------------------------------- values, edits, overlays */

/* dtc compiles "p = TEXT;" into bytes; NULL when it refuses the text. */
static uint8_t *dtc_value(const char *text, int *len)
{
	const char *argv[] = { "dtc", "-q", "-I", "dts", "-O", "dtb", "-o",
			       NULL, NULL, NULL };
	struct imgp_buf src = { 0 };
	const void *v;
	uint8_t *raw, *copy = NULL;
	size_t size;

	*len = -1;
	argv[7] = unit_path("value.dtb");
	argv[8] = unit_path("value.dts");
	if (imgp_buf_printf(&src, "/dts-v1/;\n/ {\n\tp = %s;\n};\n", text) ||
	    unit_write_file(argv[8], src.data, src.len) || unit_run(argv, NULL, NULL)) {
		imgp_buf_free(&src);
		return NULL;
	}
	imgp_buf_free(&src);
	raw = unit_read_file(argv[7], &size);
	v = raw ? fdt_getprop(raw, 0, "p", len) : NULL;
	if (v && (copy = malloc((size_t)*len + 1)))
		memcpy(copy, v, (size_t)*len);
	free(raw);
	return copy;
}

static void check_parse_value(void)
{
	static const struct {
		const char *text;
		const char *want;
		size_t len;
		bool dtc;                /* dtc source syntax, compare with dtc */
	} ok[] = {
		{ "<1 0x2 0xffffffff>", "\0\0\0\1\0\0\0\2\xff\xff\xff\xff", 12, true },
		{ "<0 4294967295 0xABCDEF>", "\0\0\0\0\xff\xff\xff\xff\0\xab\xcd\xef", 12, true },
		{ "\"a\", \"b\"", "a\0b", 4, true },
		{ "\"q\\\"x\\\\\"", "q\"x\\", 5, true },
		{ "\"tab\\there\\n\"", "tab\there\n", 10, true },
		{ "[01 02 ab]", "\x01\x02\xab", 3, true },
		{ "[0102AB]", "\x01\x02\xab", 3, true },
		{ "[ 01  02 ]", "\x01\x02", 2, true },
		{ "\"\"", "", 1, true },
		{ "\"s\", <1>, [ff]", "s\0\0\0\0\1\xff", 7, true },
		{ "<>", "", 0, true },
		{ "  < 5 >  ", "\0\0\0\5", 4, true },
		{ "150000000", "\x08\xf0\xd1\x80", 4, false },
		{ " 0x20 ", "\0\0\0\x20", 4, false },
		{ "4294967296", "4294967296", 11, false },
		{ "12ab", "12ab", 5, false },
		{ "okay", "okay", 5, false },
		{ " disabled ", "disabled", 9, false },
		{ "/chosen/serial@0", "/chosen/serial@0", 17, false },
		{ "", "", 0, false },
		{ "   ", "", 0, false },
	};
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "<1 x>", "bad property value '<1 x>': 'x' is not a number" },
		{ "<0x100000000>", "bad property value '<0x100000000>': '0x100000000' does not fit in 32 bits" },
		{ "<4294967296>", "bad property value '<4294967296>': '4294967296' does not fit in 32 bits" },
		{ "<0x>", "bad property value '<0x>': '0x' is not a number" },
		{ "<010>", "bad property value '<010>': '010' has a leading zero (octal in dtc): write it in decimal or 0x hex" },
		{ "<1 2", "bad property value '<1 2': missing '>'" },
		{ "<-1>", "bad property value '<-1>': '-1' is not a number" },
		{ "\"abc", "bad property value '\"abc': missing closing '\"'" },
		{ "\"a\\qb\"", "bad property value '\"a\\qb\"': unknown escape '\\q' (known: \\\" \\\\ \\n \\t)" },
		{ "[1]", "bad property value '[1]': '1' is not a byte (two hex digits)" },
		{ "[012]", "bad property value '[012]': '2' is not a byte (two hex digits)" },
		{ "[zz]", "bad property value '[zz]': 'zz' is not a byte (two hex digits)" },
		{ "[01", "bad property value '[01': missing ']'" },
		{ "<1>;", "bad property value '<1>;': unexpected ';' after a value: separate values with ','" },
		{ "\"a\" \"b\"", "bad property value '\"a\" \"b\"': unexpected '\"' after a value: separate values with ','" },
		{ "\"a\",", "bad property value '\"a\",': nothing after ','" },
		{ "\"a\", b", "bad property value '\"a\", b': unexpected 'b': expected \"string\", <cells> or [bytes]" },
		{ "&sdhci1", "bad property value '&sdhci1': references to labels are not supported: give the phandle as <0x..>" },
		{ "/bits/ 8 <1>", "bad property value '/bits/ 8 <1>': /bits/ is not supported: give 32-bit cells <..> or bytes [..]" },
		{ "say \"hi\"", "bad property value 'say \"hi\"': a string with '\"' in it must be quoted" },
	};
	struct imgp_buf out = { 0 };
	char name[160];
	uint8_t *want;
	size_t i;
	int rc, len;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		out.len = 0;
		rc = imgp_dt_parse_value_(ok[i].text, &out);
		snprintf(name, sizeof(name), "parse value '%s'", ok[i].text);
		CHECK(rc == 0 && out.len == ok[i].len &&
		      !memcmp(out.data, ok[i].want, ok[i].len), name);
		if (!ok[i].dtc)
			continue;
		want = dtc_value(ok[i].text, &len);
		snprintf(name, sizeof(name), "parse value '%s': the bytes dtc makes",
			 ok[i].text);
		CHECK(want && rc == 0 && (size_t)len == out.len &&
		      !memcmp(want, out.data, out.len), name);
		free(want);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		imgp_buf_free(&out);
		imgp_buf_append(&out, "xy", 2);
		rc = imgp_dt_parse_value_(bad[i].text, &out);
		snprintf(name, sizeof(name), "parse value '%s' is -EINVAL", bad[i].text);
		CHECK(rc == -EINVAL && out.len == 2 && !strcmp((char *)out.data, "xy"),
		      name);
		CHECK_STR(imgp_errmsg(), bad[i].msg, name);
	}
	imgp_buf_free(&out);
}

/* Writes the finished tree to name in the temporary directory. */
static const char *write_dtb(struct imgp_dtb *dtb, const char *name)
{
	const void *blob;
	const char *path = unit_path(name);
	size_t size;

	if (imgp_dtb_finish_(dtb, &blob, &size) || unit_write_file(path, blob, size))
		return NULL;
	return path;
}

/* `fdtget [-t type|-l] file node [prop]`'s output, or NULL. */
static char *fdtget(const char *opt, const char *file, const char *node,
		    const char *prop)
{
	const char *argv[] = { "fdtget", opt, file, node, prop, NULL };
	struct imgp_buf out = { 0 };

	if (unit_run(argv, NULL, &out)) {
		imgp_buf_free(&out);
		return NULL;
	}
	return (char *)imgp_buf_steal_(&out, NULL);
}

static void check_set_prop(void)
{
	struct imgp_buf val = { 0 };
	struct imgp_dtb dtb;
	const char *file;
	char *big, *got;
	size_t size0, biglen = 64 * 1024;
	int node, rc;

	if (load_file(&dtb, unit_path("t.dtb"))) {
		CHECK(0, "set: load test tree");
		return;
	}
	size0 = dtb.bufsize;
	big = malloc(biglen + 1);
	if (!big) {
		imgp_dtb_free_(&dtb);
		return;
	}
	memset(big, 'z', biglen);
	big[biglen] = '\0';
	node = imgp_dt_find_node_(&dtb, "serial@4000");
	rc = imgp_dt_set_prop_(&dtb, node, "big", big, biglen);
	CHECK(rc == 0 && dtb.bufsize > size0 + biglen,
	      "set: a 64 KiB property grows the buffer");
	/* Offsets stay valid across the growth. */
	rc = imgp_dt_set_prop_(&dtb, node, "big", big, biglen + 1);
	CHECK(rc == 0, "set: replace it with a string (one byte longer)");
	node = imgp_dt_find_node_(&dtb, "mmc@1000");
	rc = imgp_dt_parse_value_("\"disabled\"", &val);
	CHECK(rc == 0 && imgp_dt_set_prop_(&dtb, node, "status", val.data, val.len) == 0,
	      "set: replace status");
	val.len = 0;
	rc = imgp_dt_parse_value_("<50000000>", &val);
	CHECK(rc == 0 && imgp_dt_set_prop_(&dtb, node, "max-frequency", val.data,
					  val.len) == 0,
	      "set: replace max-frequency");
	CHECK(imgp_dt_set_prop_(&dtb, node, "sd-uhs-sdr50", NULL, 0) == 0,
	      "set: add an empty property");
	rc = imgp_dt_set_prop_(&dtb, node, "bad name", "", 1);
	CHECK(rc == -EINVAL && !strcmp(imgp_errmsg(), "bad property name 'bad name'"),
	      "set: a name with a space is -EINVAL");
	file = write_dtb(&dtb, "set.dtb");
	CHECK(file != NULL, "set: write the tree");
	got = file ? fdtget("-ts", file, "/soc/serial@4000", "big") : NULL;
	CHECK(got && strlen(got) == biglen + 1 && !memcmp(got, big, biglen) &&
	      got[biglen] == '\n',
	      "set: fdtget reads the 64 KiB string back");
	free(got);
	got = file ? fdtget("-ts", file, "/soc/mmc@1000", "status") : NULL;
	CHECK_STR(got, "disabled\n", "set: fdtget reads the new status");
	free(got);
	got = file ? fdtget("-tu", file, "/soc/mmc@1000", "max-frequency") : NULL;
	CHECK_STR(got, "50000000\n", "set: fdtget reads the new max-frequency");
	free(got);
	got = file ? fdtget("-ts", file, "/soc/serial@4000", "compatible") : NULL;
	CHECK_STR(got, "ns16550a\n", "set: the rest of the node is intact");
	free(got);
	got = file ? fdtget("-tx", file, "/soc/mmc@1000", "sd-uhs-sdr50") : NULL;
	CHECK_STR(got, "\n", "set: fdtget sees the empty property");
	free(got);
	free(big);
	imgp_buf_free(&val);
	imgp_dtb_free_(&dtb);
}

static void check_add_node(void)
{
	struct imgp_dtb dtb;
	const char *file;
	const void *blob;
	size_t size;
	char *got;
	int node, again, rc;

	if (load_file(&dtb, unit_path("t.dtb"))) {
		CHECK(0, "add: load test tree");
		return;
	}
	/* A packed tree has no room at all: the first edit has to grow it. */
	CHECK(imgp_dtb_finish_(&dtb, &blob, &size) == 0, "add: pack first");
	node = imgp_dt_add_node_(&dtb, "/soc/bus@10/child");
	CHECK(node > 0, "add: two missing nodes");
	rc = node > 0 ? imgp_dt_set_prop_(&dtb, node, "cells", "\0\0\0\1\0\0\0\2", 8) : -1;
	CHECK(rc == 0, "add: set a property on the new node");
	again = imgp_dt_add_node_(&dtb, "/soc//bus@10/child/");
	CHECK(again == imgp_dt_find_node_(&dtb, "/soc/bus@10/child"),
	      "add: an existing path gives its node");
	CHECK(imgp_dt_add_node_(&dtb, "/") == 0, "add: / is the root");
	node = imgp_dt_add_node_(&dtb, "/chosen");
	CHECK(node > 0 && imgp_dt_set_prop_(&dtb, node, "bootargs", "quiet", 6) == 0,
	      "add: /chosen with bootargs");
	rc = imgp_dt_add_node_(&dtb, "/soc/mmc");
	CHECK(rc == -EEXIST, "add: a name libfdt confuses with name@unit is -EEXIST");
	CHECK_STR(imgp_errmsg(),
		  "cannot add node '/soc/mmc': a sibling named 'mmc@...' is in the way (libfdt cannot tell them apart)",
		  "add: the message says why");
	rc = imgp_dt_add_node_(&dtb, "soc/x");
	CHECK(rc == -EINVAL, "add: a relative path is -EINVAL");
	rc = imgp_dt_add_node_(&dtb, "/soc/bad name");
	CHECK(rc == -EINVAL && !strcmp(imgp_errmsg(),
				      "node path '/soc/bad name': bad node name 'bad name'"),
	      "add: a bad node name is -EINVAL");
	rc = imgp_dt_add_node_(&dtb, "/soc/@1");
	CHECK(rc == -EINVAL, "add: a unit address without a name is -EINVAL");
	file = write_dtb(&dtb, "add.dtb");
	got = file ? fdtget("-tx", file, "/soc/bus@10/child", "cells") : NULL;
	CHECK_STR(got, "1 2\n", "add: fdtget reads the property of the new node");
	free(got);
	got = file ? fdtget("-ts", file, "/chosen", "bootargs") : NULL;
	CHECK_STR(got, "quiet\n", "add: fdtget reads /chosen/bootargs");
	free(got);
	got = file ? fdtget("-l", file, "/soc", NULL) : NULL;
	CHECK(got && strstr(got, "bus@10\n") && strstr(got, "mmc@1000\n"),
	      "add: fdtget -l lists the new node among the old ones");
	free(got);
	imgp_dtb_free_(&dtb);
}

static void check_delete_node(void)
{
	struct imgp_dtb dtb;
	const char *file;
	char *got;
	int node, rc;

	if (load_file(&dtb, unit_path("t.dtb"))) {
		CHECK(0, "delete: load test tree");
		return;
	}
	node = imgp_dt_find_node_(&dtb, "dwmmc@3000");
	CHECK(node > 0 && imgp_dt_delete_node_(&dtb, node) == 0,
	      "delete: dwmmc@3000");
	CHECK(imgp_dt_find_node_(&dtb, "/soc/dwmmc@3000") == -ENOENT,
	      "delete: the node is gone");
	rc = imgp_dt_delete_node_(&dtb, 0);
	CHECK(rc == -EINVAL && !strcmp(imgp_errmsg(), "cannot delete the root node"),
	      "delete: the root is refused");
	file = write_dtb(&dtb, "del.dtb");
	got = file ? fdtget("-l", file, "/soc", NULL) : NULL;
	CHECK_STR(got, "mmc@1000\nmmc@2000\nserial@4000\nmmc@5000\n",
		  "delete: fdtget -l lists the siblings only");
	free(got);
	imgp_dtb_free_(&dtb);
}

/* Compiles dts text into name in the temporary directory (-@: with labels). */
static bool compile(const char *name, const char *dts, bool symbols)
{
	char out[512], src[512], srcname[64];
	const char *argv[] = { "dtc", "-q", "-@", "-I", "dts", "-O", "dtb", "-o",
			       out, src, NULL };

	snprintf(srcname, sizeof(srcname), "%s.dts", name);
	snprintf(out, sizeof(out), "%s", unit_path(name));
	snprintf(src, sizeof(src), "%s", unit_path(srcname));
	argv[2] = symbols ? "-@" : "-q";
	return unit_write_file(src, dts, strlen(dts)) == 0 &&
	       unit_run(argv, NULL, NULL) == 0;
}

/*
 * Applies an overlay with the library and with fdtoverlay; the packed
 * results must be the same bytes. Returns the library's result path.
 */
static const char *check_like_fdtoverlay(const char *base, const char *ovl,
					 const char *what)
{
	char name[160], basep[512], ovlp[512], outp[512];
	const char *argv[] = { "fdtoverlay", "-i", basep, "-o", outp, ovlp, NULL };
	struct imgp_dtb dtb;
	const char *file = NULL;
	uint8_t *raw, *want;
	size_t len, wlen;
	int rc;

	snprintf(basep, sizeof(basep), "%s", base);
	snprintf(ovlp, sizeof(ovlp), "%s", ovl);
	snprintf(outp, sizeof(outp), "%s", unit_path("fdtoverlay.dtb"));
	rc = unit_run(argv, NULL, NULL);
	want = rc ? NULL : unit_read_file(outp, &wlen);
	raw = unit_read_file(ovlp, &len);
	rc = raw ? load_file(&dtb, basep) : -1;
	if (!rc) {
		rc = imgp_dt_apply_overlay_(&dtb, raw, len);
		if (rc)
			printf("# %s\n", imgp_errmsg());
		snprintf(name, sizeof(name), "overlay %s: applied", what);
		CHECK(rc == 0, name);
		file = rc ? NULL : write_dtb(&dtb, "applied.dtb");
		imgp_dtb_free_(&dtb);
	}
	free(raw);
	raw = file ? unit_read_file(file, &len) : NULL;
	snprintf(name, sizeof(name), "overlay %s: byte-for-byte what fdtoverlay writes",
		 what);
	CHECK(raw && want && len == wlen && !memcmp(raw, want, len), name);
	free(raw);
	free(want);
	return file;
}

/* Applying must fail with rc and msg, and leave the tree as it was. */
static void check_overlay_refused(const char *base, const char *ovl, int want_rc,
				  const char *msg, const char *what)
{
	char name[160];
	struct imgp_dtb dtb;
	uint8_t *raw, *before = NULL;
	size_t len, used, bufsize = 0;
	int rc = -1;

	raw = unit_read_file(ovl, &len);
	if (raw && load_file(&dtb, base) == 0) {
		bufsize = dtb.bufsize;
		before = malloc(bufsize);
		if (before)
			memcpy(before, dtb.fdt, bufsize);
		rc = imgp_dt_apply_overlay_(&dtb, raw, len);
		snprintf(name, sizeof(name), "overlay %s: refused", what);
		CHECK(rc == want_rc, name);
		snprintf(name, sizeof(name), "overlay %s: message", what);
		CHECK_STR(imgp_errmsg(), msg, name);
		snprintf(name, sizeof(name), "overlay %s: base tree unchanged", what);
		/* The free space past the strings block was never written. */
		used = fdt_off_dt_strings(dtb.fdt) + fdt_size_dt_strings(dtb.fdt);
		CHECK(before && dtb.bufsize == bufsize && used <= bufsize &&
		      fdt_totalsize(dtb.fdt) == bufsize &&
		      !memcmp(before, dtb.fdt, used), name);
		imgp_dtb_free_(&dtb);
	} else {
		CHECK(0, what);
	}
	free(before);
	free(raw);
}

static void check_overlays(void)
{
	static const char by_path[] =
		"/dts-v1/;\n/plugin/;\n"
		"/ {\n"
		"	fragment@0 {\n"
		"		target-path = \"/soc/mmc@1000\";\n"
		"		__overlay__ {\n"
		"			max-frequency = <50000000>;\n"
		"			status = \"disabled\";\n"
		"			new-prop = \"x\", \"y\";\n"
		"			sub@1 { reg = <1>; };\n"
		"		};\n"
		"	};\n"
		"	fragment@1 {\n"
		"		target-path = \"/\";\n"
		"		__overlay__ {\n"
		"			chosen { bootargs = \"quiet\"; };\n"
		"		};\n"
		"	};\n"
		"};\n";
	static const char by_label[] =
		"/dts-v1/;\n/plugin/;\n"
		"&sdhci1 {\n"
		"	max-frequency = <50000000>;\n"
		"	no-1-8-v;\n"
		"	mmc-pwrseq = <&ovl_pwrseq>;\n"
		"};\n"
		"&{/} {\n"
		"	ovl_pwrseq: pwrseq-ovl {\n"
		"		compatible = \"mmc-pwrseq-simple\";\n"
		"	};\n"
		"};\n";
	static const char missing[] =
		"/dts-v1/;\n/plugin/;\n"
		"&sdhci1 { x; };\n"
		"&nosuch { y = <&sdhci1>; };\n"
		"&{/} { z = <&other>; w = <&nosuch>; };\n";
	static const char small_base[] =
		"/dts-v1/;\n"
		"/ {\n"
		"	sdhci1: mmc@1000 { status = \"okay\"; };\n"
		"};\n";
	static const char bad_path[] =
		"/dts-v1/;\n/plugin/;\n"
		"&{/nothere} { x; };\n";
	/*
	 * As Raspberry Pi's overlays: __overrides__ refers to a fragment
	 * whose target is a label (with a target-path, libfdt merges it).
	 */
	static const char overrides[] =
		"/dts-v1/;\n/plugin/;\n"
		"/ {\n"
		"	fragment@0 {\n"
		"		target = <&sdhci1>;\n"
		"		frag0: __overlay__ { brcm,overclock-50 = <0>; };\n"
		"	};\n"
		"	__overrides__ { overclock_50 = <&frag0>, \"brcm,overclock-50:0\"; };\n"
		"};\n";
	static const char dormant[] =
		"/dts-v1/;\n/plugin/;\n"
		"/ {\n"
		"	fragment@0 {\n"
		"		target-path = \"/soc/mmc@1000\";\n"
		"		__dormant__ { status = \"disabled\"; };\n"
		"	};\n"
		"	__overrides__ { off = <0>, \"-0\"; };\n"
		"};\n";
	/* libfdt 1.6.1 reads the cell 0x1a000000 bytes into "ref" and faults. */
	static const char far_fixup[] =
		"/dts-v1/;\n/plugin/;\n"
		"/ {\n"
		"	fragment@0 {\n"
		"		target-path = \"/\";\n"
		"		__overlay__ { x { phandle = <1>; }; y { ref = <1>; }; };\n"
		"	};\n"
		"	__local_fixups__ {\n"
		"		fragment@0 { __overlay__ { y { ref = <0x1a000000>; }; }; };\n"
		"	};\n"
		"};\n";
	char kria[512];
	const char *real = real_path(REAL_DTB), *file;
	struct imgp_dtb dtb;
	uint8_t junk[64];
	bool ok;
	int rc;

	ok = compile("path.dtbo", by_path, true);
	CHECK(ok, "overlay: dtc compiles the target-path overlay");
	if (ok)
		check_like_fdtoverlay(unit_path("t.dtb"), unit_path("path.dtbo"),
				      "by target-path");

	ok = compile("label.dtbo", by_label, true);
	CHECK(ok, "overlay: dtc compiles the &label overlay");
	if (real && ok) {
		snprintf(kria, sizeof(kria), "%s", real);
		file = check_like_fdtoverlay(kria, unit_path("label.dtbo"),
					     "&sdhci1 on the K26 tree");
		if (file && load_file(&dtb, file) == 0) {
			CHECK(imgp_dt_find_node_(&dtb, "&ovl_pwrseq") > 0,
			      "overlay: its labels join __symbols__");
			imgp_dtb_free_(&dtb);
		}
	}

	ok = compile("missing.dtbo", missing, true);
	CHECK(ok, "overlay: dtc compiles the overlay with unknown labels");
	if (ok)
		check_overlay_refused(unit_path("t.dtb"), unit_path("missing.dtbo"),
				      -EINVAL,
				      "unresolved labels 'nosuch' (overlay fragment@1, fragment@2), 'other' (overlay fragment@2)",
				      "with unknown labels");

	ok = compile("small.dtb", small_base, false) &&
	     compile("label.dtbo", by_label, true);
	CHECK(ok, "overlay: dtc compiles a base without __symbols__");
	if (ok)
		check_overlay_refused(unit_path("small.dtb"), unit_path("label.dtbo"),
				      -EINVAL,
				      "the base tree has no __symbols__ (compile it with dtc -@)",
				      "on a base without __symbols__");

	if (compile("badpath.dtbo", bad_path, true))
		check_overlay_refused(unit_path("t.dtb"), unit_path("badpath.dtbo"),
				      -ENOENT,
				      "overlay fragment@0: target-path '/nothere' is not in the base tree",
				      "with a target-path the base lacks");
	if (compile("overrides.dtbo", overrides, true))
		check_overlay_refused(unit_path("t.dtb"), unit_path("overrides.dtbo"),
				      -EINVAL,
				      "cannot apply the overlay: the __overlay__ node of fragment@0 has a phandle of its own (a label that __overrides__ or another node refers to), which libfdt cannot merge; the Raspberry Pi firmware applies such overlays through dtoverlay= in config.txt",
				      "whose __overlay__ node has a phandle");
	if (compile("dormant.dtbo", dormant, true))
		check_overlay_refused(unit_path("t.dtb"), unit_path("dormant.dtbo"),
				      -EINVAL,
				      "overlay has only dormant fragments (__dormant__): a parameter enables them when the firmware applies it (dtoverlay=NAME,PARAM in config.txt); applied as it is, it would change nothing",
				      "with only dormant fragments");
	if (compile("far-fixup.dtbo", far_fixup, false))
		check_overlay_refused(unit_path("t.dtb"), unit_path("far-fixup.dtbo"),
				      -EBADMSG,
				      "broken overlay: __local_fixups__ of 'ref' in /fragment@0/__overlay__/y: offset 436207616 is past its end (4 bytes; a phandle takes 4)",
				      "whose __local_fixups__ point past a property");
	check_overlay_refused(unit_path("t.dtb"), unit_path("nosym.dtb"), -EINVAL,
			      "not an overlay: no fragment has an __overlay__ node (compile it from a /plugin/; source)",
			      "that is a plain tree");

	if (load_file(&dtb, unit_path("t.dtb")) == 0) {
		memset(junk, 0x5a, sizeof(junk));
		rc = imgp_dt_apply_overlay_(&dtb, junk, sizeof(junk));
		CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "overlay is not a device tree blob"),
		      "overlay: garbage is refused");
		rc = imgp_dt_apply_overlay_(&dtb, junk, 4);
		CHECK(rc == -EINVAL, "overlay: 4 bytes are refused");
		imgp_dtb_free_(&dtb);
	}
}

/* imgp_dt_to_dts_() must print what `dtc -I dtb -O dts` prints. */
static void check_dts_like_dtc(const char *file, const char *what)
{
	struct imgp_buf out = { 0 };
	struct imgp_dtb dtb;
	char name[200], *want;
	int rc;

	want = decompile(file);
	rc = load_file(&dtb, file);
	if (!rc) {
		rc = imgp_dt_to_dts_(&dtb, &out);
		imgp_dtb_free_(&dtb);
	}
	snprintf(name, sizeof(name), "dts of %s equals dtc's, byte for byte", what);
	CHECK(rc == 0 && want && out.len == strlen(want) &&
	      !memcmp(out.data, want, out.len), name);
	if (rc == 0 && want && strcmp((char *)out.data, want)) {
		size_t i = 0;

		while (out.data[i] && out.data[i] == (uint8_t)want[i])
			i++;
		printf("# first difference at byte %zu: got '%.40s' want '%.40s'\n",
		       i, (char *)out.data + i, want + i);
	}
	free(want);
	imgp_buf_free(&out);
}

static int is_dtb(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 4 && !strcmp(e->d_name + n - 4, ".dtb");
}

static void check_to_dts(void)
{
	static const char odd[] =
		"/dts-v1/;\n"
		"/memreserve/ 0x10000000 0x4000;\n"
		"/memreserve/ 0xffffffff00000000 0x100;\n"
		"/ {\n"
		"	list = \"a\", \"b\\tc\", \"\";\n"
		"	esc = \"\\a\\b\\v\\f\\r\\n\\\\\\\"\";\n"
		"	high = [c3 a9 00];\n"
		"	mostly-nul = [61 00 00 00 00];\n"
		"	cells = <0 1 0xdeadbeef>;\n"
		"	five = [01 02 03 04 05];\n"
		"	one = \"x\";\n"
		"	empty;\n"
		"	a { b { c { d; }; }; e { }; };\n"
		"	f { };\n"
		"};\n";
	const char *dir = getenv("IMGP_TEST_DTB_DIR");
	struct imgp_buf out = { 0 };
	struct dirent **names = NULL;
	struct imgp_dtb dtb;
	const char *file;
	char *want;
	int i, n;
	bool ok;

	check_dts_like_dtc(unit_path("t.dtb"), "the test tree");
	ok = compile("odd.dtb", odd, false);
	CHECK(ok, "dts: dtc compiles the tree of odd values");
	if (ok)
		check_dts_like_dtc(unit_path("odd.dtb"),
				   "odd values, string lists and /memreserve/");
	file = unit_path("applied.dtb");
	if (access(file, R_OK) == 0)
		check_dts_like_dtc(file, "a tree an overlay was applied to");
	/* Every real tree there is, so that a new one is checked too. */
	n = scandir(dir && *dir ? dir : "tests/dtb", &names, is_dtb, alphasort);
	CHECK(n > 0, "dts: real trees to compare");
	for (i = 0; i < n; i++) {
		if ((file = real_path(names[i]->d_name)))
			check_dts_like_dtc(file, names[i]->d_name);
		free(names[i]);
	}
	free(names);

	/* Edits show up in the text; the output is appended to what is there. */
	if (load_file(&dtb, unit_path("t.dtb")) == 0) {
		imgp_buf_append(&out, "// head\n", 8);
		imgp_dt_delete_node_(&dtb, imgp_dt_find_node_(&dtb, "/soc"));
		CHECK(imgp_dt_to_dts_(&dtb, &out) == 0, "dts: tree without /soc");
		want = (char *)out.data;
		CHECK(!strncmp(want, "// head\n/dts-v1/;\n\n/ {\n", 23) &&
		      !strstr(want, "soc {") && strstr(want, "\t__symbols__ {\n"),
		      "dts: appended, the deleted node is gone");
		imgp_dtb_free_(&dtb);
	}
	imgp_buf_free(&out);
}

/*
 * A hostile tree of 40000 sibling nodes, 5000 with a label: a path search
 * once took each node's path from the root again, and an unknown label
 * resolved every label (seconds to minutes); now each is one walk.
 */
static void check_find_many(void)
{
	const int n = 40000;
	size_t cap = (size_t)n * 64 + 4096;
	void *fdt = malloc(cap);
	struct imgp_dtb dtb;
	char name[16], path[16];
	int rc = fdt ? fdt_create(fdt, (int)cap) : -FDT_ERR_NOSPACE;

	if (!rc)
		rc = fdt_finish_reservemap(fdt);
	if (!rc)
		rc = fdt_begin_node(fdt, "");
	for (int i = 0; !rc && i < n; i++) {
		snprintf(name, sizeof(name), i == n - 2 ? "mmc@%x" : "n%x", i);
		rc = fdt_begin_node(fdt, name);
		if (!rc)
			rc = fdt_end_node(fdt);
	}
	/* libfdt's writer searches its string table for every new name. */
	if (!rc)
		rc = fdt_begin_node(fdt, "__symbols__");
	for (int i = n - n / 8; !rc && i < n; i++) {
		snprintf(name, sizeof(name), "l%x", i);
		snprintf(path, sizeof(path), i == n - 2 ? "/mmc@%x" : "/n%x", i);
		rc = fdt_property_string(fdt, name, path);
	}
	if (!rc)
		rc = fdt_end_node(fdt);
	if (!rc)
		rc = fdt_end_node(fdt);
	if (!rc)
		rc = fdt_finish(fdt);
	if (rc || imgp_dtb_load_(&dtb, fdt, fdt_totalsize(fdt))) {
		CHECK(0, "many nodes: tree made");
		free(fdt);
		return;
	}
	CHECK(imgp_dt_find_node_(&dtb, "/n0/x") == -ENOENT,
	      "many nodes: a missing path is -ENOENT");
	CHECK(imgp_dt_find_node_(&dtb, "/n9c3f/") ==
	      fdt_path_offset(dtb.fdt, "/n9c3f"),
	      "many nodes: the walk matches the last node's path");
	CHECK(imgp_dt_find_node_(&dtb, "&nope") == -ENOENT,
	      "many nodes: an unknown label is -ENOENT");
	CHECK_STR(imgp_errmsg(),
		  "label 'nope' not found (SD/eMMC labels: &l9c3e)",
		  "many nodes: the message names the controller's label");
	imgp_dtb_free_(&dtb);
	free(fdt);
}

/*
 * A version 16 tree whose property names lie outside its strings block:
 * libfdt 1.6.1's own check takes it (its names are looked up anywhere in
 * the blob), but once fdt_open_into() makes it version 17 no name is found.
 * Found by fuzz-rpi-overlay; the check refuses it up front.
 */
static void check_v16_names(void)
{
	static uint64_t blob[64];
	void *fdt = blob;

	if (fdt_create(fdt, sizeof(blob)) || fdt_finish_reservemap(fdt) ||
	    fdt_begin_node(fdt, "") || fdt_property_string(fdt, "model", "m") ||
	    fdt_end_node(fdt) || fdt_finish(fdt)) {
		CHECK(0, "v16 names: the tree is built");
		return;
	}
	fdt_set_version(fdt, 16);
	CHECK(imgp_fdt_check_full_(fdt, sizeof(blob)) == 0,
	      "v16 names: a name inside the strings block passes");
	fdt_set_size_dt_strings(fdt, 0);
	CHECK(imgp_fdt_check_full_(fdt, sizeof(blob)) == -FDT_ERR_BADOFFSET,
	      "v16 names: a name outside the strings block is refused");
	fdt_set_size_dt_strings(fdt, 5);
	CHECK(imgp_fdt_check_full_(fdt, sizeof(blob)) == -FDT_ERR_BADOFFSET,
	      "v16 names: a name cut by the block's end is refused");
}

int main(void)
{
	static const char *const props[] = { "no-1-8-v", "cap-sd-highspeed" };
	const char *dtc[] = { "dtc", "-q", "-@", "-I", "dts", "-O", "dtb", "-o",
			      NULL, NULL, NULL };
	struct imgp_dtb dtb;
	char *dts = NULL;

	if (unit_tmpdir_create("dt")) {
		perror("mkdtemp");
		return 1;
	}
	dtc[8] = unit_path("t.dtb");
	dtc[9] = unit_path("t.dts");
	if (unit_write_file(unit_path("t.dts"), test_dts, sizeof(test_dts) - 1) ||
	    unit_run(dtc, NULL, NULL)) {
		CHECK(0, "fixtures: dtc compiles the test tree");
		goto out;
	}
	/* The same tree without -@: no __symbols__. */
	dtc[2] = "-q";
	dtc[8] = unit_path("nosym.dtb");
	if (unit_run(dtc, NULL, NULL) || !(dts = decompile(unit_path("t.dtb")))) {
		CHECK(0, "fixtures: dtc compiles and decompiles");
		goto out;
	}

	check_load();
	check_find();
	check_v16_names();
	if (load_file(&dtb, unit_path("t.dtb")) == 0) {
		check_format(&dtb, dts);
		check_mmc(&dtb);
		imgp_dtb_free_(&dtb);
	} else {
		CHECK(0, "load test tree");
	}
	check_like_fdtput(unit_path("t.dtb"), "/soc/mmc@1000", props, 2);
	check_real_trees();
	check_parse_value();
	check_set_prop();
	check_add_node();
	check_delete_node();
	check_overlays();
	check_to_dts();
	check_find_many();
out:
	free(dts);
	unit_tmpdir_remove();
	return unit_done();
}
