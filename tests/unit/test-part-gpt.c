// SPDX-License-Identifier: MIT
/*
 * The GPT label (part-gpt.c) through its ops alone, on tables written byte
 * by byte in the test (512- and 4096-byte sectors): probe, what read makes
 * of the entries, the header and entries CRCs of both copies and which copy
 * is used, the bounds of the entries array, hostile counts and sizes, and
 * the warnings about the backup. Every refusal has its exact message and
 * leaves the image unchanged. sfdisk reads the hand-made table back as an
 * independent judge of its bytes (CRCs included).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "core/endian.h"
#include "unit.h"

#define MiB (1024ull * 1024)

/* Header fields, by offset (UEFI spec 5.3.2). */
#define H_SIZE 12
#define H_CRC 16
#define H_MY 24
#define H_ALT 32
#define H_FIRST 40
#define H_LAST 48
#define H_GUID 56
#define H_ELBA 72
#define H_NUM 80
#define H_ESIZE 84
#define H_ECRC 88

static const char linux_fs[] = "0fc63daf-8483-4772-8e79-3d69d8477de4";
static const char esp[] = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b";
static const char disk_guid[] = "6a1e7c3b-0d2f-4e5a-9b8c-7d6e5f4a3b2c";

/* A GUID's text into its on-disk bytes: the first three fields little-endian. */
static void guid_put(uint8_t *out, const char *text)
{
	unsigned a, b, c, d[8];

	sscanf(text, "%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x", &a, &b, &c, &d[0], &d[1],
	       &d[2], &d[3], &d[4], &d[5], &d[6], &d[7]);
	put_le32(out, a);
	put_le16(out + 4, (uint16_t)b);
	put_le16(out + 6, (uint16_t)c);
	for (int i = 0; i < 8; i++)
		out[8 + i] = (uint8_t)d[i];
}

/* A table being written: its geometry and its entries array. */
struct gpt {
	const char *path;
	unsigned ss;
	uint64_t nsectors;
	uint32_t num, esize;
	uint64_t esectors;       /* sectors of the entries array */
	uint8_t *entries;
};

static bool gpt_new(struct gpt *g, const char *path, unsigned ss, uint64_t nsectors,
		    uint32_t num, uint32_t esize)
{
	free(g->entries);
	g->path = path;
	g->ss = ss;
	g->nsectors = nsectors;
	g->num = num;
	g->esize = esize;
	g->esectors = ((uint64_t)num * esize + ss - 1) / ss;
	g->entries = calloc(num, esize);
	return g->entries && unit_sparse_file(path, nsectors * ss) == 0;
}

static void gpt_entry(struct gpt *g, uint32_t i, const char *type, const char *uuid,
		      uint64_t first, uint64_t last, uint64_t attrs, const char *name)
{
	uint8_t *e = g->entries + (size_t)i * g->esize;

	guid_put(e, type);
	guid_put(e + 16, uuid);
	put_le64(e + 32, first);
	put_le64(e + 40, last);
	put_le64(e + 48, attrs);
	for (int k = 0; name[k] && k < 36; k++)
		put_le16(e + 56 + 2 * k, (uint8_t)name[k]);
}

/* The header of one copy at my, its entries at elba, both CRCs set. */
static int gpt_put_header(const struct gpt *g, uint64_t my, uint64_t alt, uint64_t elba)
{
	uint8_t h[4096] = { 0 };

	memcpy(h, "EFI PART", 8);
	put_le32(h + 8, 0x00010000);
	put_le32(h + H_SIZE, 92);
	put_le64(h + H_MY, my);
	put_le64(h + H_ALT, alt);
	put_le64(h + H_FIRST, 2 + g->esectors);
	put_le64(h + H_LAST, g->nsectors - 2 - g->esectors);
	guid_put(h + H_GUID, disk_guid);
	put_le64(h + H_ELBA, elba);
	put_le32(h + H_NUM, g->num);
	put_le32(h + H_ESIZE, g->esize);
	put_le32(h + H_ECRC, imgp_crc32_(0, g->entries, (size_t)g->num * g->esize));
	put_le32(h + H_CRC, imgp_crc32_(0, h, 92));
	if (unit_write_at(g->path, elba * g->ss, g->entries, (size_t)g->num * g->esize))
		return -1;
	return unit_write_at(g->path, my * g->ss, h, g->ss);
}

/* Protective MBR, primary and backup copies. */
static bool gpt_write(const struct gpt *g)
{
	uint64_t last = g->nsectors - 1;
	struct unit_mbr_slot pmbr[4] = {
		{ 0, 0xee, 1, last > 0xffffffffu ? 0xffffffffu : (uint32_t)last },
	};

	return unit_write_mbr(g->path, 0, 0, pmbr) == 0 &&
	       gpt_put_header(g, 1, last, 2) == 0 &&
	       gpt_put_header(g, last, 1, last - g->esectors) == 0;
}

/* Sets a header field of the copy at lba (4 or 8 bytes), its CRC made good again. */
static void hdr_set(const struct gpt *g, uint64_t lba, unsigned off, uint64_t v, int width)
{
	uint8_t h[4096];
	uint32_t hsize;

	unit_read_at(g->path, lba * g->ss, h, g->ss);
	if (width == 4)
		put_le32(h + off, (uint32_t)v);
	else
		put_le64(h + off, v);
	hsize = get_le32(h + H_SIZE);
	put_le32(h + H_CRC, 0);
	put_le32(h + H_CRC, imgp_crc32_(0, h, hsize <= g->ss ? hsize : 92));
	unit_write_at(g->path, lba * g->ss, h, g->ss);
}

/* Both copies' field alike. */
static void hdr_set_both(const struct gpt *g, unsigned off, uint64_t v, int width)
{
	hdr_set(g, 1, off, v, width);
	hdr_set(g, g->nsectors - 1, off, v, width);
}

static void gpt_free(struct gpt *g)
{
	free(g->entries);
	g->entries = NULL;
}

static int label_probe(const char *path)
{
	return unit_label_probe(&imgp_label_gpt_, path);
}

static int label_read(const char *path, struct imgp_table *tab)
{
	return unit_label_read(&imgp_label_gpt_, path, tab);
}

static void refused(const char *path, const char *msg, const char *name)
{
	unit_label_refused(&imgp_label_gpt_, path, EINVAL, msg, name);
}

/* read takes the backup; the warning says why, exactly. */
static void uses_backup(const char *path, const char *why, const char *name)
{
	struct imgp_table tab;
	char want[PATH_MAX + 256], what[256];

	snprintf(what, sizeof(what), "%s: the backup is used", name);
	CHECK(label_read(path, &tab) == 0 && tab.used_backup && tab.nparts == 2, what);
	snprintf(want, sizeof(want),
		 "%s: primary GPT header is corrupt (%s); using the backup header\n", path, why);
	snprintf(what, sizeof(what), "%s: the warning", name);
	CHECK_STR(unit_warnings, want, what);
	imgp_table_free_(&tab);
}

/* ----------------------------------------------------------------- fixture */

/* 2 MiB of 512-byte sectors: 4096; 128 entries in 32 sectors; usable 34..4062. */
#define SMALL 4096ull

static bool small_table(struct gpt *g, const char *path)
{
	if (!gpt_new(g, path, 512, SMALL, 128, 128))
		return false;
	gpt_entry(g, 0, esp, "11111111-2222-4333-8444-555555555555", 34, 1057, 1ull << 2,
		  "boot");
	gpt_entry(g, 3, linux_fs, "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", 2048, 4061, 0,
		  "rootfs");
	return gpt_write(g);
}

static void test_probe(void)
{
	const char *path = unit_path("probe.img");
	struct unit_mbr_slot plain[4] = { { 0, 0x83, 2048, 100 } };
	struct gpt g = { 0 };
	uint8_t zero[2] = { 0 };

	CHECK(unit_sparse_file(path, 511) == 0 && label_probe(path) == 0,
	      "probe: shorter than a sector: no GPT");
	CHECK(unit_sparse_file(path, SMALL * 512) == 0 && label_probe(path) == 0,
	      "probe: zeros: no GPT");
	CHECK(unit_write_mbr(path, 0, 1, plain) == 0 && label_probe(path) == 0,
	      "probe: an MBR without a 0xee entry is no GPT");
	CHECK(small_table(&g, path) && label_probe(path) == 1,
	      "probe: a protective MBR is a GPT");
	/* No MBR signature: the header alone is found, for read to say why it is refused. */
	CHECK(unit_write_at(path, 510, zero, 2) == 0 && label_probe(path) == 1,
	      "probe: a GPT header at LBA 1 without an MBR");
	gpt_free(&g);
}

static void test_read(void)
{
	const char *path = unit_path("gpt.img");
	struct imgp_table tab;
	const struct imgp_part *p;
	struct gpt g = { 0 };

	if (!small_table(&g, path)) {
		CHECK(0, "read: fixture");
		return;
	}
	CHECK(label_read(path, &tab) == 0, "read: the table reads");
	CHECK_STR(tab.label, "gpt", "read: label gpt");
	CHECK_STR(tab.id, disk_guid, "read: the disk GUID, mixed-endian decoded");
	CHECK(tab.sector_size == 512 && !tab.used_backup, "read: 512-byte sectors, primary used");
	CHECK_STR(unit_warnings, "", "read: no warning");
	CHECK(tab.nparts == 2, "read: two entries used of 128");
	if (tab.nparts == 2) {
		p = &tab.parts[0];
		CHECK(p->number == 1 && p->start == 34 * 512ull && p->size == 1024 * 512ull,
		      "read: p1 extent, last LBA inclusive");
		CHECK_STR(p->type, esp, "read: p1 type GUID");
		CHECK_STR(p->type_name, "EFI System", "read: p1 type name");
		CHECK_STR(p->uuid, "11111111-2222-4333-8444-555555555555", "read: p1 GUID");
		CHECK_STR(p->name, "boot", "read: p1 name");
		CHECK(p->bootable && !p->logical && !p->container, "read: p1 legacy BIOS bootable");
		p = &tab.parts[1];
		CHECK(p->number == 4, "read: p4 keeps its entry's number");
		CHECK(p->start == 2048 * 512ull && p->size == 2014 * 512ull, "read: p4 extent");
		CHECK_STR(p->type_name, "Linux filesystem", "read: p4 type name");
		CHECK_STR(p->name, "rootfs", "read: p4 name");
		CHECK(!p->bootable, "read: p4 not bootable");
	}
	imgp_table_free_(&tab);

	/* sfdisk judges the hand-made bytes, CRCs and all. */
	{
		static const char *const lines[] = {
			"label-id: 6A1E7C3B-0D2F-4E5A-9B8C-7D6E5F4A3B2C",
			"first-lba: 34",
			"last-lba: 4062",
			"/gpt.img1 : start=          34, size=        1024, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=11111111-2222-4333-8444-555555555555, name=\"boot\", attrs=\"LegacyBIOSBootable\"",
			"/gpt.img4 : start=        2048, size=        2014, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE, name=\"rootfs\"",
			NULL,
		};
		int rc = unit_sfdisk_dump_has(path, lines);

		if (rc < 0)
			SKIP_TOOL("read: sfdisk reads the table", "sfdisk");
		else
			CHECK(rc == 1, "read: sfdisk --dump reads the same table");
	}

	/* Overlapping partitions: the label reads both; the table refuses them. */
	{
		struct imgp_image img;

		gpt_entry(&g, 1, linux_fs, "cccccccc-bbbb-4ccc-8ddd-eeeeeeeeeeee", 1000, 2100, 0, "x");
		gpt_write(&g);
		CHECK(label_read(path, &tab) == 0 && tab.nparts == 3,
		      "overlap: the label reads both partitions");
		imgp_table_free_(&tab);
		CHECK(imgp_image_open_(&img, path, false) == 0 &&
		      imgp_table_read_(&img, &tab) == -EINVAL, "overlap: imgp_table_read_ refuses it");
		CHECK_STR(imgp_errmsg(),
			  "GPT: partitions 1 and 2 overlap (p1: sectors 34..1057, p2: sectors 1000..2100)",
			  "overlap: the message");
		imgp_image_close_(&img);
	}
	gpt_free(&g);
}

/* Other geometry: 4096-byte sectors, 256-byte entries, the largest array. */
static void test_geometry(void)
{
	const char *path = unit_path("geometry.img");
	struct imgp_table tab;
	struct gpt g = { 0 };

	/* 16 MiB of 4 KiB sectors: 4096; 128 entries fill 4 sectors. */
	CHECK(gpt_new(&g, path, 4096, 4096, 128, 128), "4k: fixture");
	gpt_entry(&g, 0, linux_fs, "11111111-2222-4333-8444-555555555555", 256, 511, 0, "a");
	CHECK(gpt_write(&g) && label_read(path, &tab) == 0 && tab.sector_size == 4096 &&
	      tab.nparts == 1 && tab.parts[0].start == 256 * 4096ull &&
	      tab.parts[0].size == 256 * 4096ull, "4k: extents in 4096-byte sectors");
	imgp_table_free_(&tab);
	/* Its primary broken: the backup in the last 4 KiB sector. */
	hdr_set(&g, 1, H_MY, 7, 8);
	CHECK(label_read(path, &tab) == 0 && tab.used_backup && tab.sector_size == 4096 &&
	      strstr(unit_warnings, "(says it is at LBA 7)"), "4k: the backup found at the end");
	imgp_table_free_(&tab);
	gpt_free(&g);

	/* 256-byte entries: the stride is the header's, not the struct's. */
	CHECK(gpt_new(&g, path, 512, SMALL, 64, 256), "256-byte entries: fixture");
	gpt_entry(&g, 1, linux_fs, "11111111-2222-4333-8444-555555555555", 100, 199, 0, "second");
	CHECK(gpt_write(&g) && label_read(path, &tab) == 0 && tab.nparts == 1 &&
	      tab.parts[0].number == 2 && !strcmp(tab.parts[0].name, "second") &&
	      tab.parts[0].start == 100 * 512ull, "256-byte entries: read at their stride");
	imgp_table_free_(&tab);
	gpt_free(&g);

	/* 4 MiB of entries is the bound: 32768 of 128 bytes are read, 32769 are not. */
	CHECK(gpt_new(&g, path, 512, 24 * MiB / 512, 32768, 128), "largest array: fixture");
	gpt_entry(&g, 32767, linux_fs, "11111111-2222-4333-8444-555555555555", 20000, 20999, 0,
		  "last");
	CHECK(gpt_write(&g) && label_read(path, &tab) == 0 && tab.nparts == 1 &&
	      tab.parts[0].number == 32768, "largest array: entry 32768 read");
	imgp_table_free_(&tab);
	hdr_set_both(&g, H_NUM, 32769, 4);
	refused(path,
		"GPT is corrupt: primary header entry count 32769 is invalid (4194432 bytes of entries, at most 4194304) and backup header (LBA 49151) entry count 32769 is invalid (4194432 bytes of entries, at most 4194304)",
		"array over the bound");
	gpt_free(&g);
}

/* One header field made hostile in both copies: refused with both reasons. */
static void test_hostile_headers(void)
{
	static const struct {
		unsigned off;
		uint64_t value;
		int width;
		const char *name, *msg;
	} cases[] = {
		{ H_NUM, 0xffffffffu, 4, "entry count 2^32-1",
		  "GPT is corrupt: primary header entry count 4294967295 is invalid (549755813760 bytes of entries, at most 4194304) and backup header (LBA 4095) entry count 4294967295 is invalid (549755813760 bytes of entries, at most 4194304)" },
		{ H_NUM, 0, 4, "entry count 0",
		  "GPT is corrupt: primary header entry count 0 is invalid (0 bytes of entries, at most 4194304) and backup header (LBA 4095) entry count 0 is invalid (0 bytes of entries, at most 4194304)" },
		{ H_ESIZE, 0xfffffff8u, 4, "entry size 2^32-8",
		  "GPT is corrupt: primary header entry size 4294967288 is invalid (want a multiple of 8, 128..4096) and backup header (LBA 4095) entry size 4294967288 is invalid (want a multiple of 8, 128..4096)" },
		{ H_ESIZE, 132, 4, "entry size not a multiple of 8",
		  "GPT is corrupt: primary header entry size 132 is invalid (want a multiple of 8, 128..4096) and backup header (LBA 4095) entry size 132 is invalid (want a multiple of 8, 128..4096)" },
		{ H_ELBA, 0xfffffffffffffff0ull, 8, "entries array at a hostile LBA",
		  "GPT is corrupt: primary header entries array (LBA 18446744073709551600, 16384 bytes) lies outside the image and backup header (LBA 4095) entries array (LBA 18446744073709551600, 16384 bytes) lies outside the image" },
		{ H_ELBA, 4080, 8, "entries array running off the end",
		  "GPT is corrupt: primary header entries array (LBA 4080, 16384 bytes) lies outside the image and backup header (LBA 4095) entries array (LBA 4080, 16384 bytes) lies outside the image" },
		{ H_ELBA, 0, 8, "entries array at LBA 0",
		  "GPT is corrupt: primary header entries array (LBA 0, 16384 bytes) lies outside the image and backup header (LBA 4095) entries array (LBA 0, 16384 bytes) lies outside the image" },
		{ H_ELBA, 1000, 8, "entries array in the usable area",
		  "GPT is corrupt: primary header entries array (LBA 1000..1031) overlaps the header or the usable area (LBA 34..4062) and backup header (LBA 4095) entries array (LBA 1000..1031) overlaps the header or the usable area (LBA 34..4062)" },
		{ H_FIRST, 5000, 8, "usable area reversed",
		  "GPT is corrupt: primary header has an invalid usable area (LBA 5000..4062) and backup header (LBA 4095) has an invalid usable area (LBA 5000..4062)" },
		{ H_SIZE, 91, 4, "header size 91",
		  "GPT is corrupt: primary header size 91 is out of range (92..512) and backup header (LBA 4095) size 91 is out of range (92..512)" },
		{ H_SIZE, 0xffffffffu, 4, "header size 2^32-1",
		  "GPT is corrupt: primary header size 4294967295 is out of range (92..512) and backup header (LBA 4095) size 4294967295 is out of range (92..512)" },
	};
	const char *path = unit_path("hostile.img");
	struct gpt g = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!small_table(&g, path)) {
			CHECK(0, "hostile: fixture");
			break;
		}
		hdr_set_both(&g, cases[i].off, cases[i].value, cases[i].width);
		refused(path, cases[i].msg, cases[i].name);
	}
	gpt_free(&g);
}

static void test_copies(void)
{
	const char *path = unit_path("copies.img");
	struct gpt g = { 0 };
	uint8_t junk = 0x5a;

	/* The primary header's entries broken: the backup, found at its alternate LBA. */
	if (!small_table(&g, path)) {
		CHECK(0, "copies: fixture");
		return;
	}
	unit_write_at(path, 2 * 512 + 3, &junk, 1);
	uses_backup(path, "entries array CRC mismatch", "entries CRC");

	/* A sound primary whose alternate LBA holds no header: the last sector still does. */
	small_table(&g, path);
	hdr_set(&g, 1, H_ELBA, 0xffffffffu, 8);
	hdr_set(&g, 1, H_ALT, 500, 8);
	uses_backup(path, "entries array (LBA 4294967295, 16384 bytes) lies outside the image",
		    "alternate LBA holds no header");

	/* Header CRC. */
	small_table(&g, path);
	unit_write_at(path, 512 + H_GUID, &junk, 1);
	uses_backup(path, "CRC mismatch", "header CRC");

	/* Both broken, each its own way. */
	unit_write_at(path, (SMALL - 1 - 32) * 512 + 7, &junk, 1);
	refused(path,
		"GPT is corrupt: primary header CRC mismatch and backup header (LBA 4095) entries array CRC mismatch",
		"both copies broken");

	/* A protective MBR and no header anywhere. */
	{
		uint8_t zero[512] = { 0 };

		small_table(&g, path);
		unit_write_at(path, 512, zero, sizeof(zero));
		unit_write_at(path, (SMALL - 1) * 512, zero, sizeof(zero));
		refused(path,
			"GPT: the MBR is protective (type 0xee) but there is no GPT header at LBA 1 or in the last sector; wiped or not a GPT disk",
			"no header");
	}
	/* A header without a protective MBR. */
	{
		uint8_t zero[2] = { 0 };

		small_table(&g, path);
		unit_write_at(path, 510, zero, 2);
		refused(path,
			"GPT: there is a GPT header but no protective MBR (sector 0 has no 0x55aa signature): sfdisk, libblkid and Linux see no partition table; `sgdisk -e` writes a protective MBR",
			"no protective MBR");
	}
	CHECK(unit_sparse_file(path, 1000) == 0, "copies: a 1000-byte image");
	refused(path, "GPT: image is too small to hold a partition table (1000 bytes)",
		"tiny image");
	gpt_free(&g);
}

/* What the used copy's entries may not say. */
static void test_entries(void)
{
	const char *path = unit_path("entries.img");
	struct gpt g = { 0 };

	if (!small_table(&g, path)) {
		CHECK(0, "entries: fixture");
		return;
	}
	gpt_entry(&g, 3, linux_fs, "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", 2048, UINT64_MAX, 0, "r");
	gpt_write(&g);
	refused(path,
		"GPT: partition 4 extends past the end of the image (last LBA 18446744073709551615, image has 4096 sectors): truncated image?",
		"entry of hostile last LBA");
	gpt_entry(&g, 3, linux_fs, "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", UINT64_MAX, 2048, 0, "r");
	gpt_write(&g);
	refused(path,
		"GPT: partition 4 ends before it starts (first LBA 18446744073709551615, last LBA 2048)",
		"entry of hostile first LBA");
	gpt_entry(&g, 3, linux_fs, "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", 2048, 4090, 0, "r");
	gpt_write(&g);
	refused(path,
		"GPT: partition 4 (LBA 2048..4090) lies outside the usable area (LBA 34..4062)",
		"entry over the backup array");
	gpt_free(&g);
}

/* The primary used: what is wrong with the backup is a warning. */
static void backup_warns(const char *want, const char *name)
{
	struct imgp_table tab;
	char what[256];

	snprintf(what, sizeof(what), "%s: the primary is used", name);
	CHECK(label_read(unit_path("warn.img"), &tab) == 0 && !tab.used_backup &&
	      tab.nparts == 2, what);
	snprintf(what, sizeof(what), "%s: the warning", name);
	CHECK_STR(unit_warnings, want, what);
	imgp_table_free_(&tab);
}

static void test_backup_warnings(void)
{
	/* A field of one copy's header (its CRC made good): the warning after "IMAGE: ". */
	static const struct {
		bool backup;
		unsigned off;
		uint64_t value;
		const char *name, *msg;
	} cases[] = {
		{ true, H_GUID, 0x1234, "backup differs",
		  "GPT: the backup table (LBA 4095) differs from the primary; using the primary; `sgdisk -e` writes the backup again" },
		{ false, H_ALT, 1, "no backup named",
		  "GPT: the primary header names no backup header (alternate LBA 1); `sgdisk -e` writes one at the end" },
		{ false, H_ALT, UINT64_MAX, "backup past the end",
		  "GPT: the backup header (LBA 18446744073709551615) lies past the end of the image (4096 sectors): a shortened image? `sgdisk -e` writes one at the end" },
		/* Shortened after its last partition: the usable area runs off the end. */
		{ false, H_LAST, 8000, "usable area past the end",
		  "GPT: the usable area (LBA 34..8000) runs past the end of the image (4096 sectors): a shortened image? sfdisk, libblkid and Linux see no GPT in it until it is written to a device of at least 4096512 bytes; `sgdisk -e` fits the table to the image" },
	};
	char path[PATH_MAX], want[PATH_MAX + 512];
	struct gpt g = { 0 };
	uint8_t junk = 0x5a;

	unit_path_keep(path, sizeof(path), "warn.img");
	if (!small_table(&g, path)) {
		CHECK(0, "warnings: fixture");
		return;
	}
	unit_write_at(path, (SMALL - 1) * 512 + H_GUID, &junk, 1);
	snprintf(want, sizeof(want), "%s: GPT: the backup header (LBA 4095) is damaged (CRC mismatch); using the primary header; `sgdisk -e` writes the backup again\n",
		 path);
	backup_warns(want, "backup damaged");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		small_table(&g, path);
		hdr_set(&g, cases[i].backup ? SMALL - 1 : 1, cases[i].off, cases[i].value, 8);
		snprintf(want, sizeof(want), "%s: %s\n", path, cases[i].msg);
		backup_warns(want, cases[i].name);
	}
	gpt_free(&g);
}

int main(void)
{
	if (unit_tmpdir_create("part-gpt")) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	CHECK_STR(imgp_label_gpt_.name, "gpt", "ops: the label's name");
	test_probe();
	test_read();
	test_geometry();
	test_hostile_headers();
	test_copies();
	test_entries();
	test_backup_warnings();
	return unit_done();
}
