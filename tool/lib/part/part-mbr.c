// SPDX-License-Identifier: MIT
/*
 * MBR ("dos") partition tables: four primary entries in sector 0 and, inside
 * an extended partition, a chain of EBRs holding the logical partitions.
 * Logical partitions are numbered from 5, as Linux numbers them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "core/endian.h"

/* SD cards and image files use 512-byte logical sectors; so does the MBR. */
#define MBR_SECTOR 512u
/* Linux stops at a few hundred too; a longer chain is a loop or garbage. */
#define MBR_MAX_LOGICAL 128
#define MBR_MAX_PARTS (4 + MBR_MAX_LOGICAL)
/* ISO 9660: the first volume descriptor's identifier, in its 2048-byte block 16. */
#define ISO_VD_ID (16 * 2048 + 1)

/* One 16-byte partition entry, as in the MBR and in every EBR. */
struct mbr_entry {
	uint8_t boot;            /* 0x80 active, 0x00 not */
	uint8_t chs_first[3];    /* ignored: LBA fields are authoritative */
	uint8_t type;
	uint8_t chs_last[3];
	uint8_t start[4];        /* le32; EBR: relative, see mbr_read_chain() */
	uint8_t sectors[4];      /* le32 */
} __attribute__((packed));

struct mbr_sector {
	uint8_t code[440];
	uint8_t disk_id[4];      /* le32 */
	uint8_t reserved[2];
	struct mbr_entry part[4];
	uint8_t signature[2];    /* 0x55 0xaa */
} __attribute__((packed));

_Static_assert(sizeof(struct mbr_entry) == 16, "MBR entry is 16 bytes");
_Static_assert(sizeof(struct mbr_sector) == MBR_SECTOR, "MBR is one sector");

static const struct {
	uint8_t type;
	const char *name;
} mbr_types[] = {
	{ 0x01, "FAT12" },
	{ 0x04, "FAT16 <32M" },
	{ 0x05, "Extended" },
	{ 0x06, "FAT16" },
	{ 0x07, "HPFS/NTFS/exFAT" },
	{ 0x0b, "W95 FAT32" },
	{ 0x0c, "W95 FAT32 (LBA)" },
	{ 0x0e, "W95 FAT16 (LBA)" },
	{ 0x0f, "W95 Ext'd (LBA)" },
	{ 0x82, "Linux swap / Solaris" },
	{ 0x83, "Linux" },
	{ 0x85, "Linux extended" },
	{ 0x8e, "Linux LVM" },
	{ 0xda, "Non-FS data" },
	{ 0xee, "GPT" },
	{ 0xef, "EFI (FAT-12/16/32)" },
	{ 0xfd, "Linux raid autodetect" },
};

static bool mbr_is_extended(uint8_t type)
{
	return type == 0x05 || type == 0x0f || type == 0x85;
}

static const char *mbr_type_name(uint8_t type)
{
	for (size_t i = 0; i < sizeof(mbr_types) / sizeof(mbr_types[0]); i++)
		if (mbr_types[i].type == type)
			return mbr_types[i].name;
	return NULL;
}

static bool mbr_has_signature(const struct mbr_sector *s)
{
	return s->signature[0] == 0x55 && s->signature[1] == 0xaa;
}

/*
 * A FAT or NTFS boot sector (a "superfloppy" without a partition table)
 * ends in 0x55aa too; its jump instruction and filesystem name tell it apart.
 */
static bool mbr_is_boot_sector(const uint8_t *s)
{
	if (!((s[0] == 0xeb && s[2] == 0x90) || s[0] == 0xe9))
		return false;
	return !memcmp(s + 0x36, "FAT", 3) || !memcmp(s + 0x52, "FAT", 3) ||
	       !memcmp(s + 3, "NTFS    ", 8) || !memcmp(s + 3, "EXFAT   ", 8);
}

static int mbr_read_sector(const struct imgp_image *img, uint64_t lba,
			   struct mbr_sector *s)
{
	return imgp_image_read_(img, lba * MBR_SECTOR, s, sizeof(*s));
}

static int mbr_probe(const struct imgp_image *img)
{
	struct mbr_sector s;
	int rc;

	if (img->size < MBR_SECTOR)
		return 0;
	rc = mbr_read_sector(img, 0, &s);
	if (rc)
		return rc;
	if (!mbr_has_signature(&s) || mbr_is_boot_sector((const uint8_t *)&s))
		return 0;
	/* Boot flags other than 0x00/0x80 mean this is not a partition table. */
	for (int i = 0; i < 4; i++)
		if (s.part[i].boot != 0x00 && s.part[i].boot != 0x80)
			return 0;
	return 1;
}

/* Fills one partition from an entry whose absolute start is start (LBA). */
static void mbr_fill(struct imgp_part *p, uint32_t disk_id, int number,
		     const struct mbr_entry *e, uint64_t start)
{
	memset(p, 0, sizeof(*p));
	p->number = number;
	p->start = start * MBR_SECTOR;
	p->size = (uint64_t)get_le32(e->sectors) * MBR_SECTOR;
	snprintf(p->type, sizeof(p->type), "0x%02x", e->type);
	p->type_name = mbr_type_name(e->type);
	/* The PARTUUID form blkid and the kernel use for MBR disks. */
	snprintf(p->uuid, sizeof(p->uuid), "%08x-%02x", disk_id,
		 (unsigned)number & 0xffu);
	p->bootable = e->boot == 0x80;
	p->container = mbr_is_extended(e->type);
}

/* The partition [start, start+sectors) in LBA must end inside the image. */
static int mbr_check_end(const struct imgp_image *img, const char *what,
			 int number, uint64_t start, uint64_t sectors)
{
	if ((start + sectors) * MBR_SECTOR > img->size)
		return imgp_fail(EINVAL,
				 "MBR: %s %d (start %llu, %llu sectors) extends past the end of the image (%llu sectors): truncated image?",
				 what, number, (unsigned long long)start,
				 (unsigned long long)sectors,
				 (unsigned long long)(img->size / MBR_SECTOR));
	return 0;
}

/*
 * Walks the EBR chain of the extended partition [ext_start, ext_end) (LBA).
 * Each EBR holds one data entry (start relative to the EBR itself) and one
 * link entry (start relative to the extended partition) to the next EBR.
 */
static int mbr_read_chain(const struct imgp_image *img, struct imgp_table *tab,
			  uint32_t disk_id, int ext_number, uint64_t ext_start,
			  uint64_t ext_end)
{
	uint64_t visited[MBR_MAX_LOGICAL];
	size_t nvisited = 0;
	uint64_t ebr = ext_start;
	int number = 5;
	int rc;

	for (;;) {
		const struct mbr_entry *data = NULL, *link = NULL;
		struct mbr_sector s;

		for (size_t i = 0; i < nvisited; i++)
			if (visited[i] == ebr)
				return imgp_fail(EINVAL,
						 "MBR: the EBR chain of partition %d loops back to sector %llu",
						 ext_number,
						 (unsigned long long)ebr);
		if (nvisited == MBR_MAX_LOGICAL)
			return imgp_fail(EINVAL,
					 "MBR: more than %d EBRs in extended partition %d: corrupt chain?",
					 MBR_MAX_LOGICAL, ext_number);
		visited[nvisited++] = ebr;

		rc = mbr_read_sector(img, ebr, &s);
		if (rc)
			return imgp_fail_ctx(rc, "MBR: EBR at sector %llu",
					     (unsigned long long)ebr);
		if (!mbr_has_signature(&s)) {
			static const struct mbr_entry zero;
			bool empty = true;

			for (int i = 0; i < 4; i++)
				if (memcmp(&s.part[i], &zero, sizeof(zero)))
					empty = false;
			/* A new extended partition has a blank first EBR. */
			if (ebr == ext_start && empty)
				return 0;
			return imgp_fail(EINVAL,
					 "MBR: EBR at sector %llu (in extended partition %d) has no 0x55aa signature",
					 (unsigned long long)ebr, ext_number);
		}
		/* As fdisk: the first data entry and the first link count. */
		for (int i = 0; i < 4; i++) {
			const struct mbr_entry *e = &s.part[i];

			if (!e->type || !get_le32(e->sectors))
				continue;
			if (mbr_is_extended(e->type)) {
				if (!link)
					link = e;
			} else if (!data) {
				data = e;
			}
		}

		if (data) {
			uint64_t rel = get_le32(data->start);
			uint64_t start = ebr + rel;
			uint64_t sectors = get_le32(data->sectors);
			struct imgp_part *p;

			if (rel == 0)
				return imgp_fail(EINVAL,
						 "MBR: logical partition %d starts on its own EBR (sector %llu)",
						 number, (unsigned long long)ebr);
			rc = mbr_check_end(img, "logical partition", number,
					   start, sectors);
			if (rc)
				return rc;
			if (start + sectors > ext_end)
				return imgp_fail(EINVAL,
						 "MBR: logical partition %d (start %llu, %llu sectors) is not inside extended partition %d (start %llu, %llu sectors)",
						 number, (unsigned long long)start,
						 (unsigned long long)sectors,
						 ext_number,
						 (unsigned long long)ext_start,
						 (unsigned long long)(ext_end - ext_start));
			p = &tab->parts[tab->nparts++];
			mbr_fill(p, disk_id, number, data, start);
			p->logical = true;
			number++;
		}
		if (!link)
			return 0;
		ebr = ext_start + get_le32(link->start);
		if (ebr >= ext_end)
			return imgp_fail(EINVAL,
					 "MBR: EBR link to sector %llu points outside extended partition %d (sectors %llu..%llu)",
					 (unsigned long long)ebr, ext_number,
					 (unsigned long long)ext_start,
					 (unsigned long long)(ext_end - 1));
	}
}

/*
 * An isohybrid image (xorriso, isohybrid) starts a partition at sector 0:
 * it spans the ISO 9660 filesystem, whose first volume descriptor says
 * "CD001" at byte 32769. sfdisk lists it as it is; no backend writes
 * ISO 9660. Anywhere else a partition on top of the table is refused.
 */
static int mbr_is_isohybrid(const struct imgp_image *img)
{
	uint8_t id[5];
	int rc;

	if (img->size < ISO_VD_ID + sizeof(id))
		return 0;
	rc = imgp_image_read_(img, ISO_VD_ID, id, sizeof(id));
	if (rc)
		return rc;
	return !memcmp(id, "CD001", sizeof(id));
}

static int mbr_read(const struct imgp_image *img, struct imgp_table *tab)
{
	struct mbr_sector s;
	uint32_t disk_id;
	int ext_number = 0;
	uint64_t ext_start = 0, ext_end = 0;
	int rc;

	if (img->size < MBR_SECTOR)
		return imgp_fail(EINVAL,
				 "MBR: image is too small to hold a partition table (%llu bytes)",
				 (unsigned long long)img->size);
	rc = mbr_read_sector(img, 0, &s);
	if (rc)
		return rc;
	if (!mbr_has_signature(&s))
		return imgp_fail(EINVAL, "MBR: no 0x55aa signature in sector 0");

	tab->label = "dos";
	tab->sector_size = MBR_SECTOR;
	disk_id = get_le32(s.disk_id);
	snprintf(tab->id, sizeof(tab->id), "0x%08x", disk_id);
	tab->parts = calloc(MBR_MAX_PARTS, sizeof(*tab->parts));
	if (!tab->parts)
		return imgp_fail(ENOMEM, "MBR: out of memory");
	tab->nparts = 0;

	for (int i = 0; i < 4; i++) {
		const struct mbr_entry *e = &s.part[i];
		uint64_t start = get_le32(e->start);
		uint64_t sectors = get_le32(e->sectors);

		/* Empty slots are skipped but keep their number. */
		if (!e->type || !sectors)
			continue;
		if (e->type == 0xee)
			return imgp_fail(EINVAL,
					 "MBR: partition %d is a GPT protective entry (type 0xee) but there is no valid GPT",
					 i + 1);
		rc = start == 0 ? mbr_is_isohybrid(img) : 1;
		if (rc < 0)
			return rc;
		if (rc == 0)
			return imgp_fail(EINVAL,
					 "MBR: partition %d starts at sector 0, on top of the partition table",
					 i + 1);
		rc = mbr_check_end(img, "partition", i + 1, start, sectors);
		if (rc)
			return rc;
		if (mbr_is_extended(e->type)) {
			if (ext_number)
				return imgp_fail(EINVAL,
						 "MBR: more than one extended partition (%d and %d)",
						 ext_number, i + 1);
			ext_number = i + 1;
			ext_start = start;
			ext_end = start + sectors;
		}
		mbr_fill(&tab->parts[tab->nparts++], disk_id, i + 1, e, start);
	}
	if (ext_number)
		return mbr_read_chain(img, tab, disk_id, ext_number, ext_start,
				      ext_end);
	return 0;
}

const struct imgp_label_ops imgp_label_mbr_ = {
	.name = "dos",
	.probe = mbr_probe,
	.read = mbr_read,
};
