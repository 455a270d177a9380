// SPDX-License-Identifier: MIT
/*
 * GUID partition tables (UEFI spec, chapter 5): a protective MBR, the primary
 * header at LBA 1 with its entries array, and a backup copy at the end of the
 * disk. Both copies carry CRC-32s; when the primary is damaged the backup is
 * used, as firmware does.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "core/endian.h"

#define GPT_SIGNATURE "EFI PART"
#define GPT_HEADER_MIN 92u
#define GPT_ENTRY_MIN 128u
/* The spec allows 128 * 2^n; nothing real goes beyond a few hundred bytes. */
#define GPT_ENTRY_MAX 4096u
/* 128 entries of 128 bytes is usual; this bounds what we allocate. */
#define GPT_ARRAY_MAX (4u << 20)
#define GPT_NAME_UNITS 36

struct gpt_header {
	uint8_t signature[8];    /* "EFI PART" */
	uint8_t revision[4];
	uint8_t header_size[4];  /* le32, 92..sector size */
	uint8_t header_crc[4];   /* le32, over header_size bytes, itself zeroed */
	uint8_t reserved[4];
	uint8_t my_lba[8];       /* le64 */
	uint8_t alternate_lba[8];
	uint8_t first_usable[8];
	uint8_t last_usable[8];
	uint8_t disk_guid[16];
	uint8_t entries_lba[8];
	uint8_t num_entries[4];  /* le32 */
	uint8_t entry_size[4];   /* le32 */
	uint8_t entries_crc[4];  /* le32, over num_entries * entry_size bytes */
} __attribute__((packed));

struct gpt_entry {
	uint8_t type_guid[16];   /* all zero: unused entry */
	uint8_t unique_guid[16];
	uint8_t first_lba[8];    /* le64, inclusive */
	uint8_t last_lba[8];     /* le64, inclusive */
	uint8_t attributes[8];   /* le64 */
	uint8_t name[GPT_NAME_UNITS * 2]; /* UTF-16LE, NUL-padded */
} __attribute__((packed));

_Static_assert(sizeof(struct gpt_header) == GPT_HEADER_MIN, "GPT header is 92 bytes");
_Static_assert(sizeof(struct gpt_entry) == GPT_ENTRY_MIN, "GPT entry is 128 bytes");
_Static_assert(offsetof(struct gpt_header, header_crc) == 16, "header CRC at 16");
_Static_assert(offsetof(struct gpt_entry, name) == 56, "entry name at 56");

#define GPT_ATTR_LEGACY_BOOT (1ull << 2)

/* Type GUIDs as they appear on SBC and PC images. */
static const struct {
	const char *guid;
	const char *name;
} gpt_types[] = {
	{ "c12a7328-f81f-11d2-ba4b-00a0c93ec93b", "EFI System" },
	{ "21686148-6449-6e6f-744e-656564454649", "BIOS boot" },
	{ "e3c9e316-0b5c-4db8-817d-f92df00215ae", "Microsoft reserved" },
	{ "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7", "Microsoft basic data" },
	{ "de94bba4-06d1-4d40-a16a-bfd50179d6ac", "Windows recovery environment" },
	{ "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f", "Linux swap" },
	{ "0fc63daf-8483-4772-8e79-3d69d8477de4", "Linux filesystem" },
	{ "3b8f8425-20e0-4f3b-907f-1a25a76f98e8", "Linux server data" },
	{ "44479540-f297-41b2-9af7-d131d5f0458a", "Linux root (x86)" },
	{ "4f68bce3-e8cd-4db1-96e7-fbcaf984b709", "Linux root (x86-64)" },
	{ "69dad710-2ce4-4e3c-b16c-21a1d49abed3", "Linux root (ARM)" },
	{ "b921b045-1df0-41c3-af44-4c6f280d3fae", "Linux root (ARM-64)" },
	{ "60d5a7fe-8e7d-435c-b714-3dd8162144e1", "Linux root (RISC-V-32)" },
	{ "72ec70a6-cf74-40e6-bd49-4bda08e8f224", "Linux root (RISC-V-64)" },
	{ "7d0359a3-02b3-4f0a-865c-654403e70625", "Linux /usr (ARM)" },
	{ "b0e01050-ee5f-4390-949a-9101b17104e9", "Linux /usr (ARM-64)" },
	{ "8484680c-9521-48c6-9c11-b0720656f69e", "Linux /usr (x86-64)" },
	{ "bc13c2ff-59e6-4262-a352-b275fd6f7172", "Linux extended boot" },
	{ "8da63339-0007-60c0-c436-083ac8230908", "Linux reserved" },
	{ "933ac7e1-2eb4-4f13-b844-0e14e2aef915", "Linux home" },
	{ "4d21b016-b534-45c2-a9fb-5c16e091fd2d", "Linux variable data" },
	{ "a19d880f-05fc-4d3b-a006-743f0f84911e", "Linux RAID" },
	{ "e6d6d379-f507-44c2-a23c-238f2a3df928", "Linux LVM" },
	{ "3de21764-95bd-54bd-a5c3-4abe786f38a8", "U-Boot environment" },
	{ "fe3a2a5d-4f32-41a7-b725-accc3285a309", "ChromeOS kernel" },
	{ "3cb8e202-3b7e-47dd-8a3c-7ff2a13cfcec", "ChromeOS root fs" },
	{ "5b193300-fc78-40cd-8002-e86c45580b47", "HiFive FSBL" },
	{ "2e54b353-1271-4842-806f-e436d6af6985", "HiFive BBL" },
};

/* One copy of the table (primary or backup) as read from the image. */
struct gpt_copy {
	uint64_t lba;            /* where the header was read */
	struct gpt_header hdr;
	bool has_signature;
	bool header_ok;          /* signature, size, CRC and my_lba check out */
	uint8_t *entries;        /* num_entries * entry_size bytes, owned */
	char why[160];           /* what is wrong, when gpt_load() returns 1 */
};

/* The mixed-endian text form: the first three fields are little-endian. */
static void gpt_guid_str(const uint8_t *g, char *out, size_t outlen)
{
	snprintf(out, outlen,
		 "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 get_le32(g), get_le16(g + 4), get_le16(g + 6), g[8], g[9],
		 g[10], g[11], g[12], g[13], g[14], g[15]);
}

static bool gpt_guid_is_zero(const uint8_t *g)
{
	for (int i = 0; i < 16; i++)
		if (g[i])
			return false;
	return true;
}

static const char *gpt_type_name(const char *guid)
{
	for (size_t i = 0; i < sizeof(gpt_types) / sizeof(gpt_types[0]); i++)
		if (!strcmp(gpt_types[i].guid, guid))
			return gpt_types[i].name;
	return NULL;
}

static size_t utf8_len(uint32_t c)
{
	return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

static size_t utf8_put(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/*
 * Decodes a UTF-16LE name up to its first NUL. Surrogate pairs become one
 * code point; a lone surrogate becomes U+FFFD rather than invalid UTF-8.
 */
static void gpt_name_str(const uint8_t *raw, char *out, size_t outlen)
{
	size_t o = 0;

	for (int i = 0; i < GPT_NAME_UNITS; i++) {
		uint32_t c = get_le16(raw + 2 * i);

		if (!c)
			break;
		if (c >= 0xd800 && c <= 0xdbff && i + 1 < GPT_NAME_UNITS) {
			uint32_t lo = get_le16(raw + 2 * (i + 1));

			if (lo >= 0xdc00 && lo <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			} else {
				c = 0xfffd;
			}
		} else if (c >= 0xd800 && c <= 0xdfff) {
			c = 0xfffd;
		}
		if (o + utf8_len(c) >= outlen)
			break;
		o += utf8_put(out + o, c);
	}
	out[o] = '\0';
}

static bool gpt_has_signature(const uint8_t *sector)
{
	return !memcmp(sector, GPT_SIGNATURE, 8);
}

/* Whether "EFI PART" is at LBA lba for sector size ss. */
static int gpt_signature_at(const struct imgp_image *img, unsigned ss,
			    uint64_t lba)
{
	uint8_t sig[8];
	int rc;

	if (lba >= img->size / ss)
		return 0;
	rc = imgp_image_read_(img, lba * ss, sig, sizeof(sig));
	if (rc)
		return rc;
	return gpt_has_signature(sig);
}

/*
 * A GPT needs a protective MBR; an MBR without one is a plain MBR even when
 * a stale GPT header lingers at LBA 1. Without any MBR, a GPT header alone
 * is found, so that gpt_read() can say why it is refused.
 */
static int gpt_probe(const struct imgp_image *img)
{
	uint8_t s[512];
	int rc;

	if (img->size < sizeof(s))
		return 0;
	rc = imgp_image_read_(img, 0, s, sizeof(s));
	if (rc)
		return rc;
	if (s[510] == 0x55 && s[511] == 0xaa) {
		/* The type byte of each of the four entries at 446. */
		for (int i = 0; i < 4; i++)
			if (s[446 + 16 * i + 4] == 0xee)
				return 1;
		return 0;
	}
	rc = gpt_signature_at(img, 512, 1);
	if (rc)
		return rc;
	return gpt_signature_at(img, 4096, 1);
}

/*
 * sfdisk, libblkid and Linux see no partition table where sector 0 holds no
 * MBR, whatever follows: patching partitions nothing will find is refused.
 */
static int gpt_refuse_without_pmbr(const struct imgp_image *img)
{
	uint8_t sig[2];
	int rc = imgp_image_read_(img, 510, sig, sizeof(sig));

	if (rc)
		return rc;
	if (sig[0] == 0x55 && sig[1] == 0xaa)
		return 0;
	return imgp_fail(EINVAL,
			 "GPT: there is a GPT header but no protective MBR (sector 0 has no 0x55aa signature): sfdisk, libblkid and Linux see no partition table; `sgdisk -e` writes a protective MBR");
}

/*
 * Reads and checks one copy of the table at lba. Returns 0 when it is
 * usable, 1 when not (the reason in c->why), or a negative errno on I/O
 * errors. Partition entries are checked later, on the copy that is used.
 */
static int gpt_load(const struct imgp_image *img, unsigned ss, uint64_t lba,
		    struct gpt_copy *c)
{
	const struct gpt_header *h = &c->hdr;
	uint64_t nsectors = img->size / ss;
	uint64_t first, last, elba, len, esectors;
	uint32_t hsize, crc, num, esize;
	uint8_t *sector;
	int rc;

	memset(c, 0, sizeof(*c));
	c->lba = lba;
	if (lba >= nsectors) {
		snprintf(c->why, sizeof(c->why), "lies past the end of the image");
		return 1;
	}
	sector = malloc(ss);
	if (!sector)
		return imgp_fail(ENOMEM, "GPT: out of memory");
	rc = imgp_image_read_(img, lba * ss, sector, ss);
	if (rc) {
		free(sector);
		return rc;
	}
	memcpy(&c->hdr, sector, sizeof(c->hdr));
	c->has_signature = gpt_has_signature(sector);
	hsize = get_le32(h->header_size);
	if (!c->has_signature) {
		snprintf(c->why, sizeof(c->why), "has no 'EFI PART' signature");
		goto bad;
	}
	if (hsize < GPT_HEADER_MIN || hsize > ss) {
		snprintf(c->why, sizeof(c->why),
			 "size %u is out of range (%u..%u)", hsize,
			 GPT_HEADER_MIN, ss);
		goto bad;
	}
	/* The CRC covers the header with its own CRC field zeroed. */
	memset(sector + offsetof(struct gpt_header, header_crc), 0, 4);
	crc = imgp_crc32_(0, sector, hsize);
	free(sector);
	sector = NULL;
	if (crc != get_le32(h->header_crc)) {
		snprintf(c->why, sizeof(c->why), "CRC mismatch");
		return 1;
	}
	if (get_le64(h->my_lba) != lba) {
		snprintf(c->why, sizeof(c->why),
			 "says it is at LBA %llu", (unsigned long long)get_le64(h->my_lba));
		return 1;
	}
	c->header_ok = true;

	first = get_le64(h->first_usable);
	last = get_le64(h->last_usable);
	if (first > last || first == 0) {
		snprintf(c->why, sizeof(c->why),
			 "has an invalid usable area (LBA %llu..%llu)",
			 (unsigned long long)first, (unsigned long long)last);
		return 1;
	}
	num = get_le32(h->num_entries);
	esize = get_le32(h->entry_size);
	if (esize < GPT_ENTRY_MIN || esize > GPT_ENTRY_MAX || esize % 8) {
		snprintf(c->why, sizeof(c->why),
			 "entry size %u is invalid (want a multiple of 8, %u..%u)",
			 esize, GPT_ENTRY_MIN, GPT_ENTRY_MAX);
		return 1;
	}
	/* Both factors are 32-bit: the product cannot overflow 64 bits. */
	len = (uint64_t)num * esize;
	if (num == 0 || len > GPT_ARRAY_MAX) {
		snprintf(c->why, sizeof(c->why),
			 "entry count %u is invalid (%llu bytes of entries, at most %u)",
			 num, (unsigned long long)len, GPT_ARRAY_MAX);
		return 1;
	}
	elba = get_le64(h->entries_lba);
	esectors = (len + ss - 1) / ss;
	if (elba == 0 || elba >= nsectors || esectors > nsectors - elba) {
		snprintf(c->why, sizeof(c->why),
			 "entries array (LBA %llu, %llu bytes) lies outside the image",
			 (unsigned long long)elba, (unsigned long long)len);
		return 1;
	}
	if ((elba <= lba && lba < elba + esectors) ||
	    (elba <= last && first < elba + esectors)) {
		snprintf(c->why, sizeof(c->why),
			 "entries array (LBA %llu..%llu) overlaps the header or the usable area (LBA %llu..%llu)",
			 (unsigned long long)elba,
			 (unsigned long long)(elba + esectors - 1),
			 (unsigned long long)first, (unsigned long long)last);
		return 1;
	}
	c->entries = malloc(len);
	if (!c->entries)
		return imgp_fail(ENOMEM, "GPT: out of memory");
	rc = imgp_image_read_(img, elba * ss, c->entries, len);
	if (rc)
		return rc;
	crc = imgp_crc32_(0, c->entries, len);
	if (crc != get_le32(h->entries_crc)) {
		snprintf(c->why, sizeof(c->why), "entries array CRC mismatch");
		return 1;
	}
	return 0;
bad:
	free(sector);
	return 1;
}

static void gpt_copy_free(struct gpt_copy *c)
{
	free(c->entries);
	c->entries = NULL;
}

/* Sector size: where a header is found, at LBA 1 or in the last sector. */
static int gpt_sector_size(const struct imgp_image *img, unsigned *ss)
{
	static const unsigned sizes[] = { 512, 4096 };
	int rc;

	for (size_t i = 0; i < 2; i++) {
		rc = gpt_signature_at(img, sizes[i], 1);
		if (rc < 0)
			return rc;
		if (rc) {
			*ss = sizes[i];
			return 0;
		}
	}
	for (size_t i = 0; i < 2; i++) {
		if (img->size / sizes[i] < 2)
			continue;
		rc = gpt_signature_at(img, sizes[i], img->size / sizes[i] - 1);
		if (rc < 0)
			return rc;
		if (rc) {
			*ss = sizes[i];
			return 0;
		}
	}
	*ss = 512;
	return 0;
}

/*
 * Picks the copy to use: the primary when it checks out, else the backup,
 * found through the primary's alternate LBA when the primary header itself
 * is sound, else in the last sector of the image.
 */
static int gpt_load_any(const struct imgp_image *img, unsigned ss,
			struct gpt_copy *use, bool *used_backup)
{
	struct gpt_copy primary, backup;
	uint64_t last = img->size / ss - 1;
	uint64_t alt;
	int rc;

	*used_backup = false;
	rc = gpt_load(img, ss, 1, &primary);
	if (rc == 0) {
		*use = primary;
		return 0;
	}
	if (rc < 0) {
		gpt_copy_free(&primary);
		return rc;
	}
	alt = primary.header_ok ? get_le64(primary.hdr.alternate_lba) : last;
	if (alt == 1 || alt > last)
		alt = last;
	rc = gpt_load(img, ss, alt, &backup);
	if (rc == 1 && alt != last) {
		gpt_copy_free(&backup);
		rc = gpt_load(img, ss, last, &backup);
	}
	if (rc < 0) {
		gpt_copy_free(&primary);
		gpt_copy_free(&backup);
		return rc;
	}
	if (rc == 0) {
		imgp_warn(img->ctx, "%s: primary GPT header is corrupt (%s); using the backup header",
			  img->path, primary.why);
		gpt_copy_free(&primary);
		*use = backup;
		*used_backup = true;
		return 0;
	}
	gpt_copy_free(&primary);
	gpt_copy_free(&backup);
	if (!primary.has_signature && !backup.has_signature)
		return imgp_fail(EINVAL,
				 "GPT: the MBR is protective (type 0xee) but there is no GPT header at LBA 1 or in the last sector; wiped or not a GPT disk");
	return imgp_fail(EINVAL,
			 "GPT is corrupt: primary header %s and backup header (LBA %llu) %s",
			 primary.why, (unsigned long long)backup.lba, backup.why);
}

/*
 * The primary is used: say, as fdisk does, what is wrong at the other end,
 * since firmware and Linux fall back on the backup when the primary breaks.
 * An image shortened after its last partition has its usable area and its
 * backup past its end: sfdisk, libblkid and Linux then see no GPT in the
 * file itself, though the card it is written to (at least as large as the
 * table says) is fine, and the partitions are whole; hence a warning.
 */
static int gpt_check_backup(const struct imgp_image *img, unsigned ss,
			    const struct gpt_copy *primary)
{
	const struct gpt_header *h = &primary->hdr;
	uint64_t nsectors = img->size / ss;
	uint64_t alt = get_le64(h->alternate_lba);
	uint64_t ufirst = get_le64(h->first_usable);
	uint64_t ulast = get_le64(h->last_usable);
	struct gpt_copy backup;
	int rc;

	if (ulast >= nsectors) {
		imgp_warn(img->ctx, "%s: GPT: the usable area (LBA %llu..%llu) runs past the end of the image (%llu sectors): a shortened image? sfdisk, libblkid and Linux see no GPT in it until it is written to a device of at least %llu bytes; `sgdisk -e` fits the table to the image",
			  img->path, (unsigned long long)ufirst,
			  (unsigned long long)ulast, (unsigned long long)nsectors,
			  (unsigned long long)(((alt > ulast ? alt : ulast) + 1) * ss));
		return 0;
	}
	if (alt <= 1) {
		imgp_warn(img->ctx, "%s: GPT: the primary header names no backup header (alternate LBA %llu); `sgdisk -e` writes one at the end",
			  img->path, (unsigned long long)alt);
		return 0;
	}
	if (alt >= nsectors) {
		imgp_warn(img->ctx, "%s: GPT: the backup header (LBA %llu) lies past the end of the image (%llu sectors): a shortened image? `sgdisk -e` writes one at the end",
			  img->path, (unsigned long long)alt,
			  (unsigned long long)nsectors);
		return 0;
	}
	rc = gpt_load(img, ss, alt, &backup);
	if (rc == 1)
		imgp_warn(img->ctx, "%s: GPT: the backup header (LBA %llu) is damaged (%s); using the primary header; `sgdisk -e` writes the backup again",
			  img->path, (unsigned long long)alt, backup.why);
	else if (!rc && (get_le32(backup.hdr.entries_crc) != get_le32(h->entries_crc) ||
			 memcmp(backup.hdr.disk_guid, h->disk_guid, 16) ||
			 get_le64(backup.hdr.first_usable) != ufirst ||
			 get_le64(backup.hdr.last_usable) != ulast))
		imgp_warn(img->ctx, "%s: GPT: the backup table (LBA %llu) differs from the primary; using the primary; `sgdisk -e` writes the backup again",
			  img->path, (unsigned long long)alt);
	gpt_copy_free(&backup);
	return rc < 0 ? rc : 0;
}

/* Checks one entry against the image and the header's usable area. */
static int gpt_check_entry(const struct imgp_image *img, unsigned ss,
			   const struct gpt_header *h, int number,
			   uint64_t first, uint64_t last)
{
	uint64_t nsectors = img->size / ss;
	uint64_t ufirst = get_le64(h->first_usable);
	uint64_t ulast = get_le64(h->last_usable);

	if (first > last)
		return imgp_fail(EINVAL,
				 "GPT: partition %d ends before it starts (first LBA %llu, last LBA %llu)",
				 number, (unsigned long long)first,
				 (unsigned long long)last);
	if (last >= nsectors)
		return imgp_fail(EINVAL,
				 "GPT: partition %d extends past the end of the image (last LBA %llu, image has %llu sectors): truncated image?",
				 number, (unsigned long long)last,
				 (unsigned long long)nsectors);
	if (first < ufirst || last > ulast)
		return imgp_fail(EINVAL,
				 "GPT: partition %d (LBA %llu..%llu) lies outside the usable area (LBA %llu..%llu)",
				 number, (unsigned long long)first,
				 (unsigned long long)last,
				 (unsigned long long)ufirst,
				 (unsigned long long)ulast);
	return 0;
}

static int gpt_read(const struct imgp_image *img, struct imgp_table *tab)
{
	struct gpt_copy c;
	const struct gpt_header *h = &c.hdr;
	uint32_t num, esize;
	size_t n = 0;
	unsigned ss;
	int rc;

	if (img->size < 2 * 512)
		return imgp_fail(EINVAL,
				 "GPT: image is too small to hold a partition table (%llu bytes)",
				 (unsigned long long)img->size);
	rc = gpt_refuse_without_pmbr(img);
	if (rc)
		return rc;
	rc = gpt_sector_size(img, &ss);
	if (rc)
		return rc;
	rc = gpt_load_any(img, ss, &c, &tab->used_backup);
	if (rc)
		return rc;

	tab->label = "gpt";
	tab->sector_size = ss;
	gpt_guid_str(h->disk_guid, tab->id, sizeof(tab->id));
	num = get_le32(h->num_entries);
	esize = get_le32(h->entry_size);
	for (uint32_t i = 0; i < num; i++)
		if (!gpt_guid_is_zero(c.entries + (size_t)i * esize))
			n++;
	tab->nparts = 0;
	tab->parts = calloc(n ? n : 1, sizeof(*tab->parts));
	if (!tab->parts) {
		gpt_copy_free(&c);
		return imgp_fail(ENOMEM, "GPT: out of memory");
	}
	for (uint32_t i = 0; i < num; i++) {
		const struct gpt_entry *e =
			(const void *)(c.entries + (size_t)i * esize);
		struct imgp_part *p;
		uint64_t first, last;

		if (gpt_guid_is_zero(e->type_guid))
			continue;
		first = get_le64(e->first_lba);
		last = get_le64(e->last_lba);
		rc = gpt_check_entry(img, ss, h, (int)i + 1, first, last);
		if (rc) {
			gpt_copy_free(&c);
			return rc;
		}
		p = &tab->parts[tab->nparts++];
		p->number = (int)i + 1;
		p->start = first * ss;
		p->size = (last - first + 1) * ss;
		gpt_guid_str(e->type_guid, p->type, sizeof(p->type));
		p->type_name = gpt_type_name(p->type);
		gpt_name_str(e->name, p->name, sizeof(p->name));
		gpt_guid_str(e->unique_guid, p->uuid, sizeof(p->uuid));
		p->bootable = get_le64(e->attributes) & GPT_ATTR_LEGACY_BOOT;
	}
	if (!tab->used_backup)
		rc = gpt_check_backup(img, ss, &c);
	gpt_copy_free(&c);
	return rc;
}

const struct imgp_label_ops imgp_label_gpt_ = {
	.name = "gpt",
	.probe = gpt_probe,
	.read = gpt_read,
};
