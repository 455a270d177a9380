// SPDX-License-Identifier: MIT
/*
 * The MBR label (part-mbr.c) through its ops alone, on tables written byte
 * by byte: what probe takes for an MBR, what read makes of primaries, the
 * EBR chain of logical partitions and hostile entries (each refusal with
 * its exact message, the image unchanged). The checks every label shares
 * (overlaps) are imgp_table_read_'s, in test-part.c; sfdisk reads one of
 * these hand-made tables back as an independent judge of the bytes.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "part/part.h"
#include "unit.h"

#define MiB (1024ull * 1024)
#define IMG_SIZE (8 * MiB)
#define DISK_ID 0x5eed0b0du

static const struct unit_mbr_slot no_slots[4];

static int mbr_read(const char *path, struct imgp_table *tab)
{
	return unit_label_read(&imgp_label_mbr_, path, tab);
}

static int mbr_probe(const char *path)
{
	return unit_label_probe(&imgp_label_mbr_, path);
}

/* A fresh image of IMG_SIZE with this MBR. */
static bool fresh(const char *path, const struct unit_mbr_slot slots[4])
{
	return unit_sparse_file(path, IMG_SIZE) == 0 &&
	       unit_write_mbr(path, 0, DISK_ID, slots) == 0;
}

static void refused(const char *path, int err, const char *msg, const char *name)
{
	unit_label_refused(&imgp_label_mbr_, path, err, msg, name);
}

static void test_probe(void)
{
	const char *path = unit_path("probe.img");
	struct unit_mbr_slot one[4] = { { 0x80, 0x83, 2048, 2048 } };
	struct unit_mbr_slot badflag[4] = { { 0, 0x83, 2048, 2048 }, { 0x01, 0x83, 4096, 2048 } };
	uint8_t fat[512] = { 0xeb, 0x3c, 0x90 };
	uint8_t b = 0;

	CHECK(unit_sparse_file(path, 511) == 0 && mbr_probe(path) == 0,
	      "probe: an image shorter than a sector is no MBR");
	CHECK(unit_sparse_file(path, IMG_SIZE) == 0 && mbr_probe(path) == 0,
	      "probe: zeros are no MBR");
	CHECK(fresh(path, one) && mbr_probe(path) == 1, "probe: 0x55aa and sane flags are an MBR");
	CHECK(fresh(path, no_slots) && mbr_probe(path) == 1,
	      "probe: an MBR with four empty slots is still one");
	CHECK(fresh(path, one) && unit_write_at(path, 511, &b, 1) == 0 && mbr_probe(path) == 0,
	      "probe: without 0xaa at 511 it is not");
	CHECK(fresh(path, badflag) && mbr_probe(path) == 0,
	      "probe: a boot flag other than 0x00/0x80 is no partition table");
	memcpy(fat + 0x52, "FAT32   ", 8);
	fat[510] = 0x55;
	fat[511] = 0xaa;
	CHECK(unit_sparse_file(path, IMG_SIZE) == 0 && unit_write_at(path, 0, fat, 512) == 0 &&
	      mbr_probe(path) == 0, "probe: a FAT32 boot sector (superfloppy) is no MBR");
	memset(fat, 0, sizeof(fat));
	fat[0] = 0xeb;
	fat[2] = 0x90;
	memcpy(fat + 3, "NTFS    ", 8);
	fat[510] = 0x55;
	fat[511] = 0xaa;
	CHECK(unit_write_at(path, 0, fat, 512) == 0 && mbr_probe(path) == 0,
	      "probe: an NTFS boot sector is no MBR");
}

static void test_primaries(void)
{
	const char *path = unit_path("primary.img");
	struct unit_mbr_slot slots[4] = {
		{ 0, 0x0c, 2048, 4096 },
		{ 0 },
		{ 0x80, 0x83, 6144, 8192 },
		{ 0, 0x42, 14336, 1024 },
	};
	struct imgp_table tab;
	const struct imgp_part *p;

	if (!fresh(path, slots)) {
		CHECK(0, "primaries: fixture");
		return;
	}
	CHECK(mbr_read(path, &tab) == 0, "primaries: read");
	CHECK_STR(tab.label, "dos", "primaries: label dos");
	CHECK_STR(tab.id, "0x5eed0b0d", "primaries: disk id as 0x%08x");
	CHECK(tab.sector_size == 512 && !tab.used_backup, "primaries: 512-byte sectors");
	CHECK(tab.nparts == 3, "primaries: an empty slot is skipped");
	if (tab.nparts == 3) {
		p = &tab.parts[0];
		CHECK(p->number == 1 && p->start == 2048 * 512ull && p->size == 4096 * 512ull,
		      "primaries: p1 number and extent in bytes");
		CHECK_STR(p->type, "0x0c", "primaries: p1 type");
		CHECK_STR(p->type_name, "W95 FAT32 (LBA)", "primaries: p1 type name");
		CHECK_STR(p->uuid, "5eed0b0d-01", "primaries: p1 PARTUUID");
		CHECK(!p->bootable && !p->logical && !p->container && !p->name[0],
		      "primaries: p1 flags");
		p = &tab.parts[1];
		CHECK(p->number == 3 && p->bootable, "primaries: p3 keeps its slot number, active");
		CHECK_STR(p->uuid, "5eed0b0d-03", "primaries: p3 PARTUUID");
		CHECK_STR(p->type_name, "Linux", "primaries: p3 type name");
		p = &tab.parts[2];
		CHECK(p->number == 4 && !p->type_name, "primaries: an unknown type has no name");
		CHECK_STR(p->type, "0x42", "primaries: p4 type");
	}
	imgp_table_free_(&tab);

	/* A slot with a type but no sectors is empty too, as in fdisk. */
	slots[0].sectors = 0;
	CHECK(fresh(path, slots) && mbr_read(path, &tab) == 0 && tab.nparts == 2 &&
	      tab.parts[0].number == 3, "primaries: a slot of 0 sectors is empty");
	imgp_table_free_(&tab);
}

static void test_logicals(void)
{
	const char *path = unit_path("logical.img");
	/* Extended 0x85 at 4096 (8192 sectors); EBRs at 4096 and 8192. */
	struct unit_mbr_slot mbr[4] = { { 0, 0x83, 2048, 2048 }, { 0, 0x85, 4096, 8192 } };
	/* Two data entries in one EBR: the first counts, as fdisk. */
	struct unit_mbr_slot ebr1[4] = { { 0, 0x82, 2048, 1024 }, { 0, 0x83, 3000, 10 },
					 { 0, 0x05, 4096, 2048 } };
	struct unit_mbr_slot ebr2[4] = { { 0x80, 0x0c, 64, 1024 } };
	struct imgp_table tab;
	const struct imgp_part *p;

	if (!fresh(path, mbr) || unit_write_mbr(path, 4096, 0, ebr1) ||
	    unit_write_mbr(path, 8192, 0, ebr2)) {
		CHECK(0, "logicals: fixture");
		return;
	}
	CHECK(mbr_read(path, &tab) == 0 && tab.nparts == 4, "logicals: 2 primaries, 2 logicals");
	if (tab.nparts == 4) {
		p = &tab.parts[1];
		CHECK(p->number == 2 && p->container && !p->logical, "logicals: p2 is the container");
		CHECK_STR(p->type_name, "Linux extended", "logicals: 0x85 is Linux extended");
		p = &tab.parts[2];
		CHECK(p->number == 5 && p->logical && !p->container, "logicals: p5 logical");
		CHECK(p->start == (4096 + 2048) * 512ull && p->size == 1024 * 512ull,
		      "logicals: p5 starts relative to its EBR");
		CHECK_STR(p->type_name, "Linux swap / Solaris", "logicals: p5 the first data entry");
		CHECK_STR(p->uuid, "5eed0b0d-05", "logicals: p5 PARTUUID");
		p = &tab.parts[3];
		CHECK(p->number == 6 && p->start == (8192 + 64) * 512ull && p->bootable,
		      "logicals: p6 through the link, relative to the extended partition");
	}
	imgp_table_free_(&tab);

	/* sfdisk reads the same hand-made chain. */
	{
		static const char *const lines[] = {
			"label-id: 0x5eed0b0d",
			"/logical.img5 : start=        6144, size=        1024, type=82",
			"/logical.img6 : start=        8256, size=        1024, type=c, bootable",
			NULL,
		};
		int rc = unit_sfdisk_dump_has(path, lines);

		if (rc < 0)
			SKIP_TOOL("logicals: sfdisk reads the chain", "sfdisk");
		else
			CHECK(rc == 1, "logicals: sfdisk --dump sees p5 and p6 where read put them");
	}
}

static void test_refusals(void)
{
	const char *path = unit_path("bad.img");
	struct unit_mbr_slot ext[4] = { { 0, 0x0f, 4096, 8192 } };
	struct imgp_table tab;

	CHECK(unit_sparse_file(path, 100) == 0, "refusals: a 100-byte image");
	refused(path, EINVAL, "MBR: image is too small to hold a partition table (100 bytes)",
		"tiny image");
	CHECK(unit_sparse_file(path, IMG_SIZE) == 0, "refusals: a blank image");
	refused(path, EINVAL, "MBR: no 0x55aa signature in sector 0", "no signature");
	{
		struct unit_mbr_slot s[4] = { { 0, 0xee, 1, 100 } };

		fresh(path, s);
		refused(path, EINVAL,
			"MBR: partition 1 is a GPT protective entry (type 0xee) but there is no valid GPT",
			"protective entry");
	}
	{
		struct unit_mbr_slot s[4] = { { 0 }, { 0, 0x83, 0xffffffffu, 0xffffffffu } };

		fresh(path, s);
		refused(path, EINVAL,
			"MBR: partition 2 (start 4294967295, 4294967295 sectors) extends past the end of the image (16384 sectors): truncated image?",
			"hostile start and size");
	}
	{
		struct unit_mbr_slot s[4] = { { 0, 0x05, 2048, 2048 }, { 0, 0x0f, 4096, 2048 } };

		fresh(path, s);
		refused(path, EINVAL, "MBR: more than one extended partition (1 and 2)",
			"two extended partitions");
	}
	{
		struct unit_mbr_slot s[4] = { { 0, 0x83, 0, 2048 } };

		fresh(path, s);
		refused(path, EINVAL,
			"MBR: partition 1 starts at sector 0, on top of the partition table",
			"start on the table");
		/* An isohybrid image: the first partition spans ISO 9660 from sector 0. */
		CHECK(unit_write_at(path, 16 * 2048 + 1, "CD001", 5) == 0 &&
		      mbr_read(path, &tab) == 0 && tab.nparts == 1 && tab.parts[0].start == 0,
		      "isohybrid: a partition at sector 0 over ISO 9660 is read");
		imgp_table_free_(&tab);
	}

	/* The EBR chain. */
	fresh(path, ext);
	CHECK(mbr_read(path, &tab) == 0 && tab.nparts == 1 && tab.parts[0].container,
	      "ebr: a blank first EBR is an extended partition with no logicals");
	imgp_table_free_(&tab);
	{
		struct unit_mbr_slot e[4] = { { 0, 0x83, 0, 100 } };

		unit_write_mbr(path, 4096, 0, e);
		refused(path, EINVAL, "MBR: logical partition 5 starts on its own EBR (sector 4096)",
			"logical on its EBR");
	}
	{
		struct unit_mbr_slot e[4] = { { 0, 0x83, 1, 0xfffffff0u } };

		unit_write_mbr(path, 4096, 0, e);
		refused(path, EINVAL,
			"MBR: logical partition 5 (start 4097, 4294967280 sectors) extends past the end of the image (16384 sectors): truncated image?",
			"logical of hostile size");
	}
	{
		struct unit_mbr_slot e[4] = { { 0, 0x83, 1, 100 }, { 0, 0x05, 0xfffffff0u, 1 } };

		unit_write_mbr(path, 4096, 0, e);
		refused(path, EINVAL,
			"MBR: EBR link to sector 4294971376 points outside extended partition 1 (sectors 4096..12287)",
			"link of hostile start");
	}
	{
		struct unit_mbr_slot e[4] = { { 0, 0x83, 1, 100 }, { 0, 0x05, 2048, 100 } };
		uint8_t junk[512];

		memset(junk, 0x11, sizeof(junk));
		unit_write_mbr(path, 4096, 0, e);
		unit_write_at(path, (4096 + 2048) * 512ull, junk, sizeof(junk));
		refused(path, EINVAL,
			"MBR: EBR at sector 6144 (in extended partition 1) has no 0x55aa signature",
			"second EBR without signature");
	}
	{
		/* An EBR that links to itself. */
		struct unit_mbr_slot e[4] = { { 0, 0x83, 1, 100 }, { 0, 0x05, 0, 100 } };

		unit_write_mbr(path, 4096, 0, e);
		refused(path, EINVAL, "MBR: the EBR chain of partition 1 loops back to sector 4096",
			"EBR links to itself");
	}
}

int main(void)
{
	if (unit_tmpdir_create("part-mbr")) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	CHECK_STR(imgp_label_mbr_.name, "dos", "ops: the label's name");
	test_probe();
	test_primaries();
	test_logicals();
	test_refusals();
	return unit_done();
}
