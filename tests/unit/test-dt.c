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
#include "unit.h"

#define REAL_DTB "smk-k26-revA-sm-k26-revA-sck-kv-g-revB.dtb"

static char dir[256];

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

static const char *at(const char *name)
{
	static char paths[8][512];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
	return p;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* The whole file, malloc'd and NUL-terminated; NULL when unreadable. */
static uint8_t *read_file(const char *path, size_t *len)
{
	struct imgp_buf b = { 0 };
	uint8_t chunk[4096];
	FILE *f = fopen(path, "rb");
	size_t n;

	*len = 0;
	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (imgp_buf_append(&b, chunk, n)) {
			imgp_buf_free(&b);
			break;
		}
	fclose(f);
	if (!b.data)
		return NULL;
	return imgp_buf_steal(&b, len);
}

static int run(const char *const argv[], struct imgp_buf *out)
{
	int rc = imgp_run(argv, NULL, out);

	if (rc)
		printf("# %s: %s\n", argv[0], imgp_errmsg());
	return rc;
}

static void cleanup(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlink(at(e->d_name));
		closedir(d);
	}
	rmdir(dir);
}

static int load_file(struct imgp_dtb *dtb, const char *path)
{
	size_t len;
	uint8_t *raw = read_file(path, &len);
	int rc;

	if (!raw)
		return -ENOENT;
	rc = imgp_dtb_load(dtb, raw, len);
	free(raw);
	return rc;
}

/* The path of what a spec resolves to, or "" with rc set. */
static const char *find(const struct imgp_dtb *dtb, const char *spec, int *rc)
{
	static char path[256];

	path[0] = '\0';
	*rc = imgp_dt_find_node(dtb, spec);
	if (*rc >= 0 && imgp_dt_node_path(dtb, *rc, path, sizeof(path)))
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
	const char *argv[16] = { "fdtput", "-d", at("fdtput.dtb"), node };
	struct imgp_dtb dtb;
	const void *blob;
	uint8_t *raw, *want;
	size_t len, wlen, size;
	int i, off, rc;

	raw = read_file(file, &len);
	if (!raw || write_file(at("fdtput.dtb"), raw, len)) {
		CHECK(0, "copy for fdtput");
		free(raw);
		return;
	}
	for (i = 0; i < nprops && i < 10; i++)
		argv[4 + i] = props[i];
	rc = run(argv, NULL);
	want = rc ? NULL : read_file(at("fdtput.dtb"), &wlen);

	rc = imgp_dtb_load(&dtb, raw, len);
	free(raw);
	CHECK(rc == 0, "load for deletion");
	if (rc) {
		free(want);
		return;
	}
	off = imgp_dt_find_node(&dtb, node);
	for (i = 0; i < nprops && off >= 0; i++)
		if (imgp_dt_delete_prop(&dtb, off, props[i]) != 0)
			off = -1;
	CHECK(off >= 0, "every property deleted");
	CHECK(off >= 0 && imgp_dt_delete_prop(&dtb, off, props[0]) == 1,
	      "deleting it again reports it absent");
	rc = imgp_dtb_finish(&dtb, &blob, &size);
	CHECK(rc == 0 && want && size == wlen && !memcmp(blob, want, size),
	      "result is byte-for-byte what fdtput -d writes");
	CHECK(rc == 0 && fdt_check_full(blob, size) == 0 &&
	      !fdt_getprop(blob, fdt_path_offset(blob, node), props[0], NULL),
	      "the property is gone from a valid tree");
	free(want);
	imgp_dtb_free(&dtb);
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
	node = imgp_dt_find_node(dtb, node_spec);
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
		if (imgp_dt_format_value(v, len, val, sizeof(val)))
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

	if (run(argv, &out)) {
		imgp_buf_free(&out);
		return NULL;
	}
	return (char *)imgp_buf_steal(&out, NULL);
}

static void check_load(void)
{
	struct imgp_dtb dtb;
	uint8_t junk[64];
	uint8_t *raw;
	size_t len;
	int rc;

	memset(junk, 0x5a, sizeof(junk));
	rc = imgp_dtb_load(&dtb, junk, sizeof(junk));
	CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "not a device tree blob"),
	      "garbage is refused");
	rc = imgp_dtb_load(&dtb, junk, 8);
	CHECK(rc == -EINVAL, "8 bytes are refused");
	raw = read_file(at("t.dtb"), &len);
	rc = raw ? imgp_dtb_load(&dtb, raw, len / 2) : -1;
	CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "truncated"),
	      "truncated tree is refused");
	if (raw && len > 200) {
		/* A property length that runs past the structure block. */
		int node = fdt_path_offset(raw, "/soc/serial@4000");
		int off = node < 0 ? -1 : fdt_first_property_offset(raw, node);

		if (off >= 0) {
			uint8_t *p = raw + fdt_off_dt_struct(raw) + off + 4;

			p[0] = 0x7f;
			rc = imgp_dtb_load(&dtb, raw, len);
			CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "broken device tree"),
			      "fdt_check_full catches a bad property length");
		}
	}
	free(raw);
}

static void check_find(void)
{
	struct imgp_dtb dtb;
	const char *path;
	int rc;

	if (load_file(&dtb, at("t.dtb"))) {
		CHECK(0, "load test tree");
		return;
	}
	path = find(&dtb, "mmc", &rc);
	CHECK(rc == -EEXIST, "bare name matching three nodes is -EEXIST");
	CHECK_STR(imgp_errmsg(),
		  "node 'mmc' is ambiguous (matches: /soc/mmc@1000, /soc/mmc@2000, /soc/mmc@5000); give a full path or a &label",
		  "ambiguous message lists every match");
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
	imgp_dtb_free(&dtb);

	if (load_file(&dtb, at("nosym.dtb"))) {
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
	imgp_dtb_free(&dtb);
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

	node = imgp_dt_find_node(dtb, "serial@4000");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[64];

		v = fdt_getprop(dtb->fdt, node, cases[i].prop, &len);
		rc = v ? imgp_dt_format_value(v, len, out, sizeof(out)) : -1;
		snprintf(name, sizeof(name), "format %s", cases[i].prop);
		CHECK(rc == 0, name);
		CHECK_STR(out, cases[i].want, name);
	}
	v = fdt_getprop(dtb->fdt, imgp_dt_find_node(dtb, "/"), "compatible", &len);
	rc = v ? imgp_dt_format_value(v, len, out, sizeof(out)) : -1;
	CHECK_STR(out, "\"vendor,board\", \"vendor,soc\"", "format string list");

	v = fdt_getprop(dtb->fdt, node, "reg", &len);
	rc = imgp_dt_format_value(v, len, out, 8);
	CHECK(rc == -ENOSPC, "truncated value is -ENOSPC");
	CHECK_STR(out, "<0x4...", "truncated value ends in ...");
	rc = imgp_dt_format_value(v, len, out, 2);
	CHECK(rc == -ENOSPC && strlen(out) < 2, "tiny buffer stays terminated");
	rc = imgp_dt_format_value(v, len, out, 0);
	CHECK(rc == -ENOSPC, "zero-size buffer is -ENOSPC");
	rc = imgp_dt_format_value(v, len, out, 15);
	CHECK(rc == 0 && !strcmp(out, "<0x4000 0x100>"), "exact fit is not truncated");
	rc = imgp_dt_format_value(v, -1, out, sizeof(out));
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
	struct imgp_dt_mmc mmc[8];
	const struct imgp_dt_mmc_prop *p;
	int n;

	n = imgp_dt_list_mmc(dtb, mmc, 8);
	CHECK(n == 4, "four SD/eMMC controllers (not the serial, not the pwrseq)");
	if (n != 4)
		return;
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
	CHECK(mmc[3].nprops == 16, "18 speed properties are capped at 16");
	CHECK(!mmc_prop(&mmc[3], "vqmmc-supply"), "the ones past the cap are dropped");

	n = imgp_dt_list_mmc(dtb, mmc, 2);
	CHECK(n == 2 && !strcmp(mmc[1].path, "/soc/mmc@2000"),
	      "list stops at max entries");
	n = imgp_dt_list_mmc(dtb, mmc, 0);
	CHECK(n == 0, "max 0 lists nothing");
}

static const char *real_path(const char *file)
{
	static char path[512];
	const char *base = getenv("IMGP_TEST_DTB_DIR");

	snprintf(path, sizeof(path), "%s/%s", base && *base ? base : "tests/dtb",
		 file);
	if (access(path, R_OK) != 0) {
		printf("# skip %s: not found\n", path);
		return NULL;
	}
	return path;
}

/* Checks any real tree supports: every controller round-trips and formats. */
static void check_real_generic(const char *file)
{
	struct imgp_dt_mmc mmc[8];
	struct imgp_dtb dtb;
	const char *path = real_path(file), *p;
	char *dts, name[160];
	int rc, n, i, ok = 1, del = -1;

	if (!path)
		return;
	printf("# %s\n", file);
	rc = load_file(&dtb, path);
	snprintf(name, sizeof(name), "load %s", file);
	CHECK(rc == 0, name);
	if (rc)
		return;
	n = imgp_dt_list_mmc(&dtb, mmc, 8);
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
	imgp_dtb_free(&dtb);
	if (del >= 0) {
		const char *props[] = { mmc[del].props[0].name };

		check_like_fdtput(path, mmc[del].path, props, 1);
	}
}

/* The Kria K26 tree (sm-k26 SOM on the KV260 carrier), as the recipes use it. */
static void check_real_k26(void)
{
	static const char *const no18[] = { "no-1-8-v" };
	struct imgp_dt_mmc mmc[8];
	struct imgp_dtb dtb;
	const char *path = real_path(REAL_DTB), *p;
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
	n = imgp_dt_list_mmc(&dtb, mmc, 8);
	for (i = 0; i < n; i++)
		if (!strcmp(mmc[i].path, "/axi/mmc@ff170000") &&
		    mmc_prop(&mmc[i], "no-1-8-v"))
			found = 1;
	CHECK(found, "k26: mmc@ff170000 listed with no-1-8-v");
	imgp_dtb_free(&dtb);
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
	imgp_dtb_free(&dtb);
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

int main(void)
{
	static const char *const props[] = { "no-1-8-v", "cap-sd-highspeed" };
	const char *tmp = getenv("TMPDIR");
	const char *dtc[] = { "dtc", "-q", "-@", "-I", "dts", "-O", "dtb", "-o",
			      NULL, NULL, NULL };
	struct imgp_dtb dtb;
	char *dts = NULL;

	snprintf(dir, sizeof(dir), "%s/imgp-test-dt.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	dtc[8] = at("t.dtb");
	dtc[9] = at("t.dts");
	if (write_file(at("t.dts"), test_dts, sizeof(test_dts) - 1) ||
	    run(dtc, NULL)) {
		CHECK(0, "fixtures: dtc compiles the test tree");
		goto out;
	}
	/* The same tree without -@: no __symbols__. */
	dtc[2] = "-q";
	dtc[8] = at("nosym.dtb");
	if (run(dtc, NULL) || !(dts = decompile(at("t.dtb")))) {
		CHECK(0, "fixtures: dtc compiles and decompiles");
		goto out;
	}

	check_load();
	check_find();
	if (load_file(&dtb, at("t.dtb")) == 0) {
		check_format(&dtb, dts);
		check_mmc(&dtb);
		imgp_dtb_free(&dtb);
	} else {
		CHECK(0, "load test tree");
	}
	check_like_fdtput(at("t.dtb"), "/soc/mmc@1000", props, 2);
	check_real_trees();
out:
	free(dts);
	cleanup();
	return unit_done();
}
