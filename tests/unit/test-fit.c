// SPDX-License-Identifier: MIT
/*
 * FIT parsing against FITs that mkimage builds at test time: embedded data,
 * external data (-E, data-offset) and absolute positions (-E -p,
 * data-position). dumpimage is the independent reader for order and payloads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libfdt.h>

#include "imgpatch.h"
#include "fit/fit.h"
#include "unit.h"

#define NIMAGES 6

static const char *const env[] = { "SOURCE_DATE_EPOCH=1700000000", NULL };

/* The images in the .its, in order: index = position. */
static const struct {
	const char *name, *type, *comp, *hashes;
} expect[NIMAGES] = {
	{ "kernel-1", "kernel", "gzip", "sha1" },
	{ "ramdisk-1", "ramdisk", "none", "md5" },
	{ "fdt-a.dtb", "flat_dt", "none", "sha1" },
	{ "firmware-1", "firmware", "none", "" },
	{ "fdt-b.dtb", "flat_dt", "none", "sha1,sha384,sha512" },
	{ "fdt-c.dtb", "flat_dt", "none", "crc32,sha256" },
};

static int make_fixtures(void)
{
	static const char *const dts[3] = {
		"/dts-v1/;\n/ { model = \"board a\"; compatible = \"v,a\"; };\n",
		"/dts-v1/;\n/ { model = \"board b\"; soc { mmc@1000 { reg = <0x1000 0x100>; no-1-8-v; }; }; };\n",
		"/dts-v1/;\n/ { model = \"board c, a longer one\"; chosen { bootargs = \"console=ttyS0\"; }; };\n",
	};
	static const char *const tag[3] = { "a", "b", "c" };
	struct imgp_buf its = { 0 };
	uint8_t blob[1001];
	char name[32];
	int i, rc = 0;

	/* Not a multiple of 4, so external data after it needs padding. */
	for (i = 0; i < (int)sizeof(blob); i++)
		blob[i] = (uint8_t)(i * 7 + 3);
	if (unit_write_file(unit_path("kernel.bin"), blob, sizeof(blob)) ||
	    unit_write_file(unit_path("ramdisk.bin"), "initrd!", 7) ||
	    unit_write_file(unit_path("fw.bin"), "firmware", 8))
		return -1;
	for (i = 0; i < 3 && !rc; i++) {
		const char *argv[] = { "dtc", "-I", "dts", "-O", "dtb", "-o", NULL,
				       NULL, NULL };

		snprintf(name, sizeof(name), "%s.dts", tag[i]);
		if (unit_write_file(unit_path(name), dts[i], strlen(dts[i])))
			return -1;
		argv[7] = unit_path(name);
		snprintf(name, sizeof(name), "%s.dtb", tag[i]);
		argv[6] = unit_path(name);
		rc = unit_run(argv, env, NULL);
	}
	if (rc)
		return rc;

	rc = imgp_buf_printf(&its,
		/* "ab" makes the string table end off a 4-byte boundary. */
		"/dts-v1/;\n/ {\n\tdescription = \"test\";\n\tab = \"c\";\n\t#address-cells = <1>;\n"
		"\timages {\n"
		"\t\tkernel-1 { description = \"kernel\"; data = /incbin/(\"%s\"); type = \"kernel\";"
		" arch = \"arm64\"; os = \"linux\"; compression = \"gzip\"; load = <0x80000>;"
		" entry = <0x80000>; hash-1 { algo = \"sha1\"; }; };\n"
		"\t\tramdisk-1 { data = /incbin/(\"%s\"); type = \"ramdisk\"; arch = \"arm64\";"
		" os = \"linux\"; compression = \"none\"; hash-1 { algo = \"md5\"; }; };\n",
		unit_path("kernel.bin"), unit_path("ramdisk.bin"));
	rc |= imgp_buf_printf(&its,
		"\t\tfdt-a.dtb { description = \"a\"; data = /incbin/(\"%s\"); type = \"flat_dt\";"
		" arch = \"arm64\"; compression = \"none\"; hash-1 { algo = \"sha1\"; }; };\n"
		"\t\tfirmware-1 { data = /incbin/(\"%s\"); type = \"firmware\"; arch = \"arm64\";"
		" compression = \"none\"; };\n",
		unit_path("a.dtb"), unit_path("fw.bin"));
	rc |= imgp_buf_printf(&its,
		"\t\tfdt-b.dtb { data = /incbin/(\"%s\"); type = \"flat_dt\"; arch = \"arm64\";"
		" compression = \"none\"; hash-1 { algo = \"sha1\"; }; hash-2 { algo = \"sha384\"; };"
		" hash-3 { algo = \"sha512\"; }; };\n"
		"\t\tfdt-c.dtb { data = /incbin/(\"%s\"); type = \"flat_dt\"; arch = \"arm64\";"
		" compression = \"none\"; hash-1 { algo = \"crc32\"; }; hash-2 { algo = \"sha256\"; }; };\n"
		"\t};\n",
		unit_path("b.dtb"), unit_path("c.dtb"));
	rc |= imgp_buf_printf(&its,
		"\tconfigurations {\n\t\tdefault = \"conf-b\";\n"
		"\t\tconf-a { description = \"board a\"; kernel = \"kernel-1\"; ramdisk = \"ramdisk-1\"; fdt = \"fdt-a.dtb\"; };\n"
		"\t\tconf-b { kernel = \"kernel-1\"; fdt = \"fdt-b.dtb\", \"fdt-c.dtb\"; };\n"
		"\t};\n};\n");
	if (!rc)
		rc = unit_write_file(unit_path("x.its"), its.data, its.len);
	imgp_buf_free(&its);
	return rc;
}

static int make_fit(const char *out, const char *opt1, const char *opt2,
		    const char *opt3)
{
	const char *argv[10] = { "mkimage" };
	int n = 1;

	if (opt1)
		argv[n++] = opt1;
	if (opt2)
		argv[n++] = opt2;
	if (opt3)
		argv[n++] = opt3;
	argv[n++] = "-f";
	argv[n++] = unit_path("x.its");
	argv[n++] = unit_path(out);
	return unit_run(argv, env, NULL);
}

static const struct imgp_fit_image *image(const struct imgp_fit *fit,
					  const char *name)
{
	size_t i;

	for (i = 0; i < fit->nimages; i++)
		if (!strcmp(fit->images[i].name, name))
			return &fit->images[i];
	return NULL;
}

static void check_against_dumpimage(const struct imgp_fit *fit, const char *file)
{
	const char *argv[] = { "dumpimage", "-l", unit_path(file), NULL };
	struct imgp_buf out = { 0 };
	char name[128], *line, *save = NULL;
	int idx, seen = 0, in_order = 1;

	CHECK(unit_run(argv, env, &out) == 0, "dumpimage -l runs");
	for (line = out.data ? strtok_r((char *)out.data, "\n", &save) : NULL;
	     line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, " Image %d (%127[^)])", &idx, name) != 2)
			continue;
		if (idx != seen || (size_t)idx >= fit->nimages ||
		    fit->images[idx].index != idx ||
		    strcmp(fit->images[idx].name, name) != 0)
			in_order = 0;
		seen++;
	}
	CHECK(seen == (int)fit->nimages && in_order,
	      "image names and indexes match dumpimage -l");
	imgp_buf_free(&out);
}

/* Every payload equals what dumpimage -p N extracts. */
static void check_payloads(const struct imgp_fit *fit, const char *file)
{
	size_t i;
	int same = 1;

	for (i = 0; i < fit->nimages; i++) {
		const struct imgp_fit_image *img = &fit->images[i];
		char pos[16];
		const char *argv[] = { "dumpimage", "-T", "flat_dt", "-p", pos,
				       "-o", unit_path("extracted"), unit_path(file),
				       NULL };
		uint8_t *want;
		size_t wlen;

		snprintf(pos, sizeof(pos), "%d", img->index);
		if (unit_run(argv, env, NULL)) {
			same = 0;
			continue;
		}
		want = unit_read_file(unit_path("extracted"), &wlen);
		if (!want || wlen != img->size || memcmp(want, img->data, wlen))
			same = 0;
		free(want);
	}
	CHECK(same, "every payload equals dumpimage -T flat_dt -p N -o output");
}

static void check_fdt_payloads(struct imgp_fit *fit)
{
	static const char *const names[] = { "fdt-a.dtb", "fdt-b.dtb", "fdt-c.dtb" };
	static const char *const files[] = { "a.dtb", "b.dtb", "c.dtb" };
	int i, same = 1;

	for (i = 0; i < 3; i++) {
		const struct imgp_fit_image *img;
		const uint8_t *data;
		size_t size, wlen;
		uint8_t *want;

		if (imgp_fit_find_fdt_(fit, names[i], &img) ||
		    imgp_fit_payload_(fit, img, &data, &size)) {
			same = 0;
			continue;
		}
		want = unit_read_file(unit_path(files[i]), &wlen);
		if (!want || wlen != size || memcmp(want, data, size))
			same = 0;
		free(want);
	}
	CHECK(same, "fdt payloads are the dtbs dtc compiled");
}

static void check_find(const struct imgp_fit *fit)
{
	const struct imgp_fit_image *img = NULL;
	int rc;

	rc = imgp_fit_find_fdt_(fit, "fdt-b.dtb", &img);
	CHECK(rc == 0 && img && img->index == 4, "find fdt by node name");
	img = NULL;
	rc = imgp_fit_find_fdt_(fit, "c.dtb", &img);
	CHECK(rc == 0 && img && !strcmp(img->name, "fdt-c.dtb"),
	      "find fdt by name without the fdt- prefix");
	img = NULL;
	rc = imgp_fit_find_fdt_(fit, "2", &img);
	CHECK(rc == 0 && img && !strcmp(img->name, "fdt-a.dtb"),
	      "find fdt by dumpimage index");
	rc = imgp_fit_find_fdt_(fit, "1", &img);
	CHECK(rc == -EINVAL && !img, "index of a ramdisk is refused");
	CHECK_STR(imgp_errmsg(), "image 1 'ramdisk-1' is a ramdisk, not a flat_dt",
		  "message names index, image and type");
	rc = imgp_fit_find_fdt_(fit, "kernel-1", &img);
	CHECK(rc == -EINVAL, "name of a kernel is refused");
	rc = imgp_fit_find_fdt_(fit, "nope.dtb", &img);
	CHECK(rc == -ENOENT, "unknown fdt name is -ENOENT");
	CHECK_STR(imgp_errmsg(),
		  "fdt 'nope.dtb' not found (have: fdt-a.dtb, fdt-b.dtb, fdt-c.dtb)",
		  "message lists the flat_dt images only");
	rc = imgp_fit_find_fdt_(fit, "6", &img);
	CHECK(rc == -ENOENT, "index past the last image is -ENOENT");
	rc = imgp_fit_find_fdt_(fit, "99999999999999999999", &img);
	CHECK(rc == -ENOENT, "huge index is -ENOENT");
	rc = imgp_fit_find_fdt_(fit, "", &img);
	CHECK(rc == -ENOENT, "empty spec is -ENOENT");
}

static void check_fit(const char *file, bool external)
{
	struct imgp_fit fit;
	const struct imgp_fit_image *img;
	const uint8_t *data;
	size_t len, size, i;
	uint8_t *raw;
	int rc, ok;
	char name[128];

	printf("# %s\n", file);
	raw = unit_read_file(unit_path(file), &len);
	CHECK(raw != NULL, "FIT file is readable");
	if (!raw)
		return;
	rc = imgp_fit_parse_(&fit, raw, len);
	CHECK(rc == 0, "parse");
	if (rc) {
		printf("# %s\n", imgp_errmsg());
		return;
	}
	CHECK(fit.nimages == NIMAGES, "image count");
	ok = fit.nimages == NIMAGES;
	for (i = 0; ok && i < NIMAGES; i++) {
		const struct imgp_fit_image *m = &fit.images[i];

		if (strcmp(m->name, expect[i].name) || m->index != (int)i ||
		    strcmp(m->type, expect[i].type) ||
		    strcmp(m->compression, expect[i].comp) ||
		    strcmp(m->hash_algos, expect[i].hashes) ||
		    m->external != external) {
			printf("# image %zu: %s %s %s '%s' %d\n", i, m->name,
			       m->type, m->compression, m->hash_algos, m->external);
			ok = 0;
		}
	}
	CHECK(ok, "name, index, type, compression, hashes, external of each image");
	CHECK_STR(fit.images[0].description, "kernel", "description");
	CHECK_STR(fit.images[1].description, "", "missing description is empty");
	check_against_dumpimage(&fit, file);

	CHECK(fit.nconfs == 2, "configuration count");
	if (fit.nconfs == 2) {
		CHECK(!fit.confs[0].is_default && fit.confs[1].is_default,
		      "default configuration");
		CHECK_STR(fit.confs[0].kernel, "kernel-1", "configuration kernel");
		CHECK_STR(fit.confs[0].fdt, "fdt-a.dtb", "configuration fdt");
		CHECK_STR(fit.confs[1].fdt, "fdt-b.dtb",
			  "configuration fdt is the first of the list");
		CHECK_STR(fit.confs[0].description, "board a",
			  "configuration description");
	}

	ok = 1;
	for (i = 0; i < fit.nimages; i++)
		if (imgp_fit_verify_(&fit, &fit.images[i])) {
			printf("# %s\n", imgp_errmsg());
			ok = 0;
		}
	CHECK(ok, "every image verifies");
	check_payloads(&fit, file);
	check_fdt_payloads(&fit);
	check_find(&fit);

	img = image(&fit, "firmware-1");
	rc = img ? imgp_fit_payload_(&fit, img, &data, &size) : -1;
	CHECK(rc == 0 && size == 8 && !memcmp(data, "firmware", 8),
	      "payload of an image without hashes");
	img = image(&fit, "kernel-1");
	rc = img ? imgp_fit_payload_(&fit, img, &data, &size) : -1;
	CHECK(rc == -ENOTSUP && !data, "compressed payload is refused");
	snprintf(name, sizeof(name), "image 'kernel-1' is gzip-compressed; %s",
		 "compressed fdt payloads are not supported");
	CHECK_STR(imgp_errmsg(), name, "message names the compression");
	imgp_fit_free_(&fit);
}

/* Flips one payload byte: only that image fails, with its first hash algo. */
static void check_flip(const char *file, const char *victim, const char *algo)
{
	struct imgp_fit fit, bad;
	const struct imgp_fit_image *img;
	const uint8_t *data;
	uint8_t *raw, *copy;
	size_t len, off, i, size;
	char want[128];
	int rc, others = 1;

	raw = unit_read_file(unit_path(file), &len);
	if (!raw || imgp_fit_parse_(&fit, raw, len)) {
		CHECK(0, "parse before corruption");
		return;
	}
	img = image(&fit, victim);
	off = (size_t)(img->data - fit.blob) + img->size / 2;
	copy = malloc(len);
	if (!copy) {
		imgp_fit_free_(&fit);
		return;
	}
	memcpy(copy, fit.blob, len);
	copy[off] ^= 0x40;
	rc = imgp_fit_parse_(&bad, copy, len);
	CHECK(rc == 0, "a corrupt payload still parses");
	if (rc) {
		imgp_fit_free_(&fit);
		return;
	}
	img = image(&bad, victim);
	rc = imgp_fit_verify_(&bad, img);
	CHECK(rc == -EBADMSG, "flipped payload byte fails verification");
	snprintf(want, sizeof(want), "image '%s': %s hash mismatch (FIT is corrupt)",
		 victim, algo);
	CHECK_STR(imgp_errmsg(), want, "mismatch message");
	rc = imgp_fit_payload_(&bad, img, &data, &size);
	CHECK(rc == -EBADMSG && !data, "payload of a corrupt image is refused");
	for (i = 0; i < bad.nimages; i++)
		if (&bad.images[i] != img && imgp_fit_verify_(&bad, &bad.images[i]))
			others = 0;
	CHECK(others, "the other images still verify");
	imgp_fit_free_(&bad);
	imgp_fit_free_(&fit);
}

/* Breaks one hash value in place: each algorithm detects it on its own. */
static void check_bad_value(const char *file, const char *victim,
			    const char *hash, const char *algo)
{
	char node[128];
	struct imgp_fit fit;
	uint8_t *raw;
	const uint8_t *val;
	uint8_t buf[64];
	size_t len;
	int off, vlen, rc;
	char want[128];

	snprintf(node, sizeof(node), "/images/%s/%s", victim, hash);
	raw = unit_read_file(unit_path(file), &len);
	off = raw ? fdt_path_offset(raw, node) : -1;
	val = off >= 0 ? fdt_getprop(raw, off, "value", &vlen) : NULL;
	if (!val || vlen < 1 || vlen > (int)sizeof(buf)) {
		CHECK(0, "hash node found");
		free(raw);
		return;
	}
	memcpy(buf, val, (size_t)vlen);
	buf[vlen - 1] ^= 1;
	fdt_setprop_inplace(raw, off, "value", buf, vlen);
	rc = imgp_fit_parse_(&fit, raw, len);
	if (rc) {
		CHECK(0, "parse with a bad hash value");
		return;
	}
	snprintf(want, sizeof(want), "image '%s': %s hash mismatch (FIT is corrupt)",
		 victim, algo);
	rc = imgp_fit_verify_(&fit, image(&fit, victim));
	CHECK(rc == -EBADMSG, "a bad hash value fails verification");
	CHECK_STR(imgp_errmsg(), want, "each algorithm reports its own mismatch");
	imgp_fit_free_(&fit);
}

/* Copies a FIT into a larger buffer, lets edit() change it, packs it. */
static uint8_t *edited(const char *file, size_t *len,
		       int (*edit)(void *fdt))
{
	uint8_t *raw = unit_read_file(unit_path(file), len), *buf;
	size_t cap = *len + 4096;

	buf = raw ? malloc(cap) : NULL;
	if (!buf || fdt_open_into(raw, buf, (int)cap) || edit(buf) ||
	    fdt_pack(buf)) {
		free(raw);
		free(buf);
		return NULL;
	}
	free(raw);
	*len = fdt_totalsize(buf);
	return buf;
}

static int edit_conf_missing(void *fdt)
{
	return fdt_setprop_string(fdt, fdt_path_offset(fdt, "/configurations/conf-a"),
				  "fdt", "fdt-missing.dtb");
}

static int edit_default_missing(void *fdt)
{
	return fdt_setprop_string(fdt, fdt_path_offset(fdt, "/configurations"),
				  "default", "conf-z");
}

static int edit_unknown_algo(void *fdt)
{
	return fdt_setprop_string(fdt, fdt_path_offset(fdt, "/images/kernel-1/hash-1"),
				  "algo", "sha3-256");
}

static int edit_short_value(void *fdt)
{
	return fdt_setprop(fdt, fdt_path_offset(fdt, "/images/fdt-a.dtb/hash-1"),
			   "value", "abcd", 4);
}

static int edit_no_data(void *fdt)
{
	return fdt_delprop(fdt, fdt_path_offset(fdt, "/images/fdt-a.dtb"), "data");
}

static int edit_type_not_string(void *fdt)
{
	return fdt_setprop_u32(fdt, fdt_path_offset(fdt, "/images/fdt-a.dtb"),
			       "type", 7);
}

static void check_edited(const char *what, int (*edit)(void *fdt), int want_rc,
			 bool verify_kernel, const char *want_msg)
{
	struct imgp_fit fit;
	size_t len;
	uint8_t *blob = edited("embedded.fit", &len, edit);
	int rc;

	if (!blob) {
		CHECK(0, what);
		return;
	}
	rc = imgp_fit_parse_(&fit, blob, len);
	if (!rc && verify_kernel) {
		rc = imgp_fit_verify_(&fit, &fit.images[0]);
		rc = rc ? rc : imgp_fit_verify_(&fit, &fit.images[2]);
	}
	CHECK(rc == want_rc, what);
	CHECK_STR(imgp_errmsg(), want_msg, what);
	/* A failed parse has freed and zeroed fit already. */
	imgp_fit_free_(&fit);
}

static void check_truncated(void)
{
	struct imgp_fit fit, full;
	uint8_t *raw;
	size_t len, cut;
	int rc;
	char want[256];

	raw = unit_read_file(unit_path("embedded.fit"), &len);
	rc = raw ? imgp_fit_parse_(&fit, raw, len / 2) : -1;
	CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "truncated"),
	      "truncated embedded FIT is -EINVAL");

	/* External data: the structure is whole, the last payload is not. */
	raw = unit_read_file(unit_path("external.fit"), &len);
	if (!raw || imgp_fit_parse_(&full, raw, len)) {
		CHECK(0, "parse external FIT");
		return;
	}
	/* mkimage pads the file: cut inside the last payload instead. */
	cut = (size_t)(full.images[5].data - full.blob) + full.images[5].size - 1;
	raw = malloc(len);
	if (raw)
		memcpy(raw, full.blob, len);
	rc = raw ? imgp_fit_parse_(&fit, raw, cut) : -1;
	CHECK(rc == -EINVAL, "truncated external data is -EINVAL");
	snprintf(want, sizeof(want),
		 "image 'fdt-c.dtb': data-offset %zu + data-size %zu is beyond the end of the FIT (%zu bytes)",
		 (size_t)(full.images[5].data - full.blob) -
		 ((fdt_totalsize(full.blob) + 3) & ~3u),
		 full.images[5].size, cut);
	CHECK_STR(imgp_errmsg(), want, "message names image, offset, size, FIT size");
	imgp_fit_free_(&full);

	rc = imgp_fit_parse_(&fit, calloc(1, 16), 16);
	CHECK(rc == -EINVAL, "16-byte file is -EINVAL");
	raw = malloc(256);
	memset(raw, 0x5a, 256);
	rc = imgp_fit_parse_(&fit, raw, 256);
	CHECK(rc == -EINVAL && strstr(imgp_errmsg(), "not a FIT"),
	      "garbage is not a FIT");
	raw = unit_read_file(unit_path("a.dtb"), &len);
	rc = raw ? imgp_fit_parse_(&fit, raw, len) : -1;
	CHECK_STR(imgp_errmsg(), "not a FIT: no /images node",
		  "a plain dtb is not a FIT");
}

/* Edits a u32 property of an external FIT in place and parses the result. */
static int parse_with_u32(const char *file, const char *node, const char *prop,
			  uint32_t val, struct imgp_fit *fit, size_t *len)
{
	uint8_t *raw = unit_read_file(unit_path(file), len);
	int off, rc;

	if (!raw)
		return -1;
	off = fdt_path_offset(raw, node);
	if (fdt_setprop_inplace_u32(raw, off, prop, val)) {
		free(raw);
		return -1;
	}
	rc = imgp_fit_parse_(fit, raw, *len);
	if (!rc)
		imgp_fit_free_(fit);
	return rc;
}

static void check_external_bounds(void)
{
	struct imgp_fit fit;
	char want[256];
	size_t len;
	uint8_t *raw;
	int rc, off;

	rc = parse_with_u32("external.fit", "/images/fdt-a.dtb", "data-size",
			    0xfffffff0u, &fit, &len);
	CHECK(rc == -EINVAL, "data-size beyond the end is -EINVAL");
	CHECK(strstr(imgp_errmsg(), "image 'fdt-a.dtb': data-offset ") &&
	      strstr(imgp_errmsg(), " + data-size 4294967280 is beyond the end of the FIT"),
	      "data-size message");
	rc = parse_with_u32("external.fit", "/images/fdt-a.dtb", "data-offset",
			    0xffffffffu, &fit, &len);
	CHECK(rc == -EINVAL, "huge data-offset is -EINVAL");
	rc = parse_with_u32("position.fit", "/images/fdt-b.dtb", "data-position",
			    0xffffffffu, &fit, &len);
	CHECK(rc == -EINVAL, "huge data-position is -EINVAL");
	snprintf(want, sizeof(want),
		 "image 'fdt-b.dtb': data-position 4294967295 + data-size %s",
		 "");
	CHECK(!strncmp(imgp_errmsg(), want, strlen(want)), "data-position message");
	rc = parse_with_u32("position.fit", "/images/fdt-b.dtb", "data-size",
			    0xffffffffu, &fit, &len);
	CHECK(rc == -EINVAL, "huge data-size with data-position is -EINVAL");

	/* A data-offset without data-size: delprop keeps the total size. */
	raw = unit_read_file(unit_path("external.fit"), &len);
	off = raw ? fdt_path_offset(raw, "/images/ramdisk-1") : -1;
	if (off < 0 || fdt_delprop(raw, off, "data-size")) {
		CHECK(0, "remove data-size");
		free(raw);
		return;
	}
	rc = imgp_fit_parse_(&fit, raw, len);
	CHECK(rc == -EINVAL, "data-offset without data-size is -EINVAL");
	CHECK_STR(imgp_errmsg(), "image 'ramdisk-1': data-offset without data-size",
		  "missing data-size message");
}

/*
 * data-offset counts from the structure's end rounded up to 4 bytes. mkimage
 * pads the structure to 4 itself, so trim that padding off (the string table
 * ends unaligned thanks to "ab") and expect the same payloads.
 */
static void check_rounding(void)
{
	struct imgp_fit fit, trimmed;
	uint8_t *raw, *copy;
	size_t len, i;
	uint32_t end;
	int rc, same = 1;

	raw = unit_read_file(unit_path("external.fit"), &len);
	if (!raw || imgp_fit_parse_(&fit, raw, len)) {
		CHECK(0, "parse external FIT");
		return;
	}
	end = fdt_off_dt_strings(fit.blob) + fdt_size_dt_strings(fit.blob);
	CHECK(end % 4 != 0 && end < fdt_totalsize(fit.blob),
	      "string table of the external FIT ends unaligned");
	copy = malloc(len);
	if (copy) {
		memcpy(copy, fit.blob, len);
		fdt_set_totalsize(copy, end);
	}
	rc = copy ? imgp_fit_parse_(&trimmed, copy, len) : -1;
	CHECK(rc == 0, "FIT with an unaligned structure size parses");
	for (i = 0; !rc && i < fit.nimages; i++)
		if (trimmed.images[i].size != fit.images[i].size ||
		    memcmp(trimmed.images[i].data, fit.images[i].data,
			   fit.images[i].size))
			same = 0;
	CHECK(!rc && same, "data-offset base is rounded up to 4 bytes");
	if (!rc)
		imgp_fit_free_(&trimmed);
	imgp_fit_free_(&fit);
}

/*
 * A FIT of nimages one-byte images and one configuration whose loadables
 * name image 0 nrefs times; malloc'd, NULL on failure.
 */
static uint8_t *many_fit(int nimages, int nrefs, size_t *len)
{
	size_t cap = (size_t)nimages * 64 + (size_t)nrefs * 4 + 4096;
	char *refs = calloc((size_t)nrefs ? (size_t)nrefs : 1, 3);
	uint8_t *fdt = malloc(cap);
	char name[16];
	int rc = fdt && refs ? fdt_create(fdt, (int)cap) : -FDT_ERR_NOSPACE;

	for (int i = 0; refs && i < nrefs; i++)
		memcpy(refs + 3 * i, "i0", 3);
	if (!rc)
		rc = fdt_finish_reservemap(fdt);
	if (!rc)
		rc = fdt_begin_node(fdt, "");
	if (!rc)
		rc = fdt_begin_node(fdt, "images");
	for (int i = 0; !rc && i < nimages; i++) {
		snprintf(name, sizeof(name), "i%x", i);
		rc = fdt_begin_node(fdt, name);
		if (!rc)
			rc = fdt_property(fdt, "data", "x", 1);
		if (!rc)
			rc = fdt_end_node(fdt);
	}
	if (!rc)
		rc = fdt_end_node(fdt);
	if (!rc)
		rc = fdt_begin_node(fdt, "configurations");
	if (!rc)
		rc = fdt_begin_node(fdt, "conf-1");
	if (!rc && nrefs)
		rc = fdt_property(fdt, "loadables", refs, 3 * nrefs);
	if (!rc)
		rc = fdt_end_node(fdt);
	if (!rc)
		rc = fdt_end_node(fdt);
	if (!rc)
		rc = fdt_end_node(fdt);
	if (!rc)
		rc = fdt_finish(fdt);
	free(refs);
	if (rc) {
		free(fdt);
		return NULL;
	}
	*len = fdt_totalsize(fdt);
	return fdt;
}

/*
 * Hostile FITs: 40000 images once took a minute to verify one by one, and
 * as many references seconds to check. Neither is counted now: each costs
 * a lookup, bounded by the FIT's size.
 */
static void check_many(void)
{
	struct imgp_fit fit;
	uint8_t *blob;
	size_t len;
	int rc;

	blob = many_fit(1024, 64, &len);
	rc = blob ? imgp_fit_parse_(&fit, blob, len) : -1;
	CHECK(rc == 0 && fit.nimages == 1024, "many: 1024 images parse");
	if (!rc)
		imgp_fit_free_(&fit);

	/* No bound on the images: each is reached by its node's offset. */
	blob = many_fit(20000, 0, &len);
	rc = blob ? imgp_fit_parse_(&fit, blob, len) : -1;
	CHECK(rc == 0 && fit.nimages == 20000, "many: 20000 images parse");
	if (!rc)
		imgp_fit_free_(&fit);

	/*
	 * No bound on the references either: each is looked up among the
	 * names sorted once, so the FIT's size bounds their cost.
	 */
	blob = many_fit(20000, 200000, &len);
	rc = blob ? imgp_fit_parse_(&fit, blob, len) : -1;
	CHECK(rc == 0 && fit.nimages == 20000 && fit.nconfs == 1,
	      "many: 200000 references to 20000 images parse");
	if (!rc)
		imgp_fit_free_(&fit);
}

/* ---------------------------------------------------------------- rewrite */

/* A tree with one property more (grow) or without its model. */
static uint8_t *changed_tree(const uint8_t *tree, size_t size, bool grow,
			     size_t *len)
{
	size_t cap = size + 64;
	uint8_t *buf = malloc(cap), *src = malloc(size);
	int rc;

	/* libfdt wants the tree 8-byte aligned; a payload may not be. */
	if (src)
		memcpy(src, tree, size);
	if (!buf || !src || fdt_open_into(src, buf, (int)cap)) {
		free(src);
		free(buf);
		return NULL;
	}
	free(src);
	rc = grow ? fdt_setprop_string(buf, 0, "rewritten", "yes")
		  : fdt_delprop(buf, 0, "model");
	if (rc || fdt_pack(buf)) {
		free(buf);
		return NULL;
	}
	*len = fdt_totalsize(buf);
	return buf;
}

/*
 * Replaces victim's tree: the new FIT parses, every image's hashes verify,
 * the victim holds the new tree and every other payload is unchanged, and
 * dumpimage agrees on images and payloads.
 */
static void check_rewrite(const char *file, const char *victim, bool grow)
{
	struct imgp_fit old = { 0 }, new = { 0 };
	const struct imgp_fit_image *img;
	struct imgp_buf out = { 0 };
	uint8_t *raw, *tree = NULL, *copy;
	size_t len, tlen = 0, i;
	char what[160];
	int ok = 1, rc;

	snprintf(what, sizeof(what), "%s: %s %s: rewritten", file, victim,
		 grow ? "grown" : "shrunk");
	raw = unit_read_file(unit_path(file), &len);
	rc = raw ? imgp_fit_parse_(&old, raw, len) : -1;
	img = rc ? NULL : image(&old, victim);
	if (img)
		tree = changed_tree(img->data, img->size, grow, &tlen);
	rc = tree ? imgp_fit_rewrite_(&old, victim, tree, tlen, &out) : -1;
	CHECK(rc == 0, what);
	if (rc) {
		printf("#   %s\n", imgp_errmsg());
		goto out;
	}
	copy = malloc(out.len);
	rc = copy && !unit_write_file(unit_path("rewritten.fit"), out.data, out.len)
		? (memcpy(copy, out.data, out.len), imgp_fit_parse_(&new, copy, out.len))
		: -1;
	snprintf(what, sizeof(what), "%s: %s: the new FIT parses, every hash verifies",
		 file, victim);
	for (i = 0; !rc && i < new.nimages; i++)
		rc = imgp_fit_verify_(&new, &new.images[i]);
	CHECK(rc == 0 && new.nimages == old.nimages, what);
	if (rc)
		goto out;
	for (i = 0; i < new.nimages; i++) {
		const struct imgp_fit_image *n = &new.images[i], *o = &old.images[i];
		bool is_victim = strcmp(n->name, victim) == 0;
		const uint8_t *want = is_victim ? tree : o->data;
		size_t wlen = is_victim ? tlen : o->size;

		if (n->size != wlen || memcmp(n->data, want, wlen) ||
		    n->external != o->external)
			ok = 0;
	}
	snprintf(what, sizeof(what), "%s: %s: the new tree in, every other payload unchanged",
		 file, victim);
	CHECK(ok, what);
	check_against_dumpimage(&new, "rewritten.fit");
	check_payloads(&new, "rewritten.fit");
out:
	imgp_fit_free_(&new);
	imgp_fit_free_(&old);
	imgp_buf_free(&out);
	free(tree);
}

static int edit_signed(void *fdt)
{
	int conf = fdt_path_offset(fdt, "/configurations/conf-b");
	int sig = fdt_add_subnode(fdt, conf, "signature-1");

	return sig < 0 ? sig : fdt_setprop_string(fdt, sig, "algo", "sha256,rsa2048");
}

static void check_rewrite_signed(void)
{
	struct imgp_fit fit = { 0 };
	struct imgp_buf out = { 0 };
	size_t len;
	uint8_t *raw = edited("embedded.fit", &len, edit_signed);
	int rc = raw ? imgp_fit_parse_(&fit, raw, len) : -1;

	if (!rc)
		rc = imgp_fit_rewrite_(&fit, "fdt-a.dtb", fit.images[2].data,
				      fit.images[2].size, &out);
	CHECK(rc == -EPERM && out.len == 0, "a signed FIT is not rewritten");
	CHECK_STR(imgp_errmsg(),
		  "the FIT is signed (/configurations/conf-b/signature-1): re-signing needs the key; use --via override where the boot script loads one",
		  "the refusal names the signature and the way out");
	imgp_fit_free_(&fit);
	imgp_buf_free(&out);
}

int main(void)
{
	if (unit_tmpdir_create("fit")) {
		perror("mkdtemp");
		return 1;
	}
	if (make_fixtures() || make_fit("embedded.fit", NULL, NULL, NULL) ||
	    make_fit("external.fit", "-E", NULL, NULL) ||
	    make_fit("position.fit", "-E", "-p", "0x1000")) {
		CHECK(0, "fixtures: dtc and mkimage build the test FITs");
		unit_tmpdir_remove();
		return unit_done();
	}

	check_rounding();
	check_fit("embedded.fit", false);
	check_fit("external.fit", true);
	check_fit("position.fit", true);

	check_flip("embedded.fit", "fdt-b.dtb", "sha1");
	check_flip("external.fit", "fdt-c.dtb", "crc32");
	check_flip("position.fit", "ramdisk-1", "md5");
	check_bad_value("embedded.fit", "fdt-b.dtb", "hash-2", "sha384");
	check_bad_value("embedded.fit", "fdt-b.dtb", "hash-3", "sha512");
	check_bad_value("embedded.fit", "fdt-c.dtb", "hash-2", "sha256");
	check_bad_value("external.fit", "fdt-c.dtb", "hash-1", "crc32");
	check_bad_value("position.fit", "ramdisk-1", "hash-1", "md5");
	check_bad_value("position.fit", "kernel-1", "hash-1", "sha1");

	check_edited("configuration naming a missing image", edit_conf_missing,
		     -EINVAL, false,
		     "configuration 'conf-a': fdt image 'fdt-missing.dtb' is not in /images");
	check_edited("default naming a missing configuration", edit_default_missing,
		     -EINVAL, false,
		     "default configuration 'conf-z' is not in /configurations");
	check_edited("unknown hash algorithm", edit_unknown_algo, -ENOTSUP, true,
		     "image 'kernel-1': hash algorithm 'sha3-256' is not supported (have: crc32, md5, sha1, sha256, sha384, sha512)");
	check_edited("hash value of the wrong length", edit_short_value, -EBADMSG,
		     true,
		     "image 'fdt-a.dtb': sha1 value is 4 bytes, expected 20 (FIT is corrupt)");
	check_edited("image without data", edit_no_data, -EINVAL, false,
		     "image 'fdt-a.dtb': no data, data-offset or data-position");
	check_edited("type that is not a string", edit_type_not_string, -EINVAL,
		     false, "image 'fdt-a.dtb': property 'type' is not a string");

	check_truncated();
	check_external_bounds();
	check_many();

	check_rewrite("embedded.fit", "fdt-b.dtb", true);
	check_rewrite("embedded.fit", "fdt-a.dtb", false);
	check_rewrite("external.fit", "fdt-b.dtb", true);
	check_rewrite("external.fit", "fdt-c.dtb", false);
	check_rewrite("position.fit", "fdt-a.dtb", true);
	check_rewrite("position.fit", "fdt-b.dtb", false);
	check_rewrite_signed();

	unit_tmpdir_remove();
	return unit_done();
}
