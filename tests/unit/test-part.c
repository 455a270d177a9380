// SPDX-License-Identifier: MIT
/*
 * Partition tables: images are partitioned at test time by sfdisk/fdisk and
 * formatted by mkfs.vfat/mke2fs, then read back; broken tables are made by
 * patching those images or by writing MBR/EBR sectors by hand.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "core/endian.h"
#include "unit.h"
#include "fs/fs.h"

#define MiB (1024ull * 1024)

/* ---------------------------------------------------------------- helpers */

/* Records that a fixture was built; false (and a failed check) when not. */
static bool made(int rc, const char *name)
{
	CHECK(rc == 0, name);
	return rc == 0;
}

/*
 * The program's path in $PATH or the sbin directories; NULL when absent.
 * The string is static until the next call.
 */
static const char *find_tool(const char *name)
{
	static char found[PATH_MAX];
	const char *env = getenv("PATH");
	char dirs[4096];
	char *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin", env ? env : "/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(found, sizeof(found), "%s/%s", d, name);
		if (access(found, X_OK) == 0)
			return found;
	}
	return NULL;
}

static int resize_file(const char *path, uint64_t size)
{
	return truncate(path, (off_t)size);
}

/* Partitions the image with an sfdisk script; 0 on success. */
static int sfdisk(const char *img, const char *script)
{
	const char *tool = find_tool("sfdisk");
	char spath[PATH_MAX], prog[PATH_MAX];
	const char *argv[] = { prog, "--quiet", img, NULL };

	if (!tool)
		return -1;
	snprintf(prog, sizeof(prog), "%s", tool);
	unit_path_keep(spath, sizeof(spath), "script");
	if (unit_write_text(spath, script))
		return -1;
	return unit_spawn(argv, spath, NULL);
}

/* Recomputes the entries and header CRCs of the GPT header at lba. */
static int gpt_fix_crcs(const char *img, unsigned ss, uint64_t lba)
{
	uint8_t h[4096], *entries;
	uint32_t hsize;
	size_t len;
	int rc = -1;

	if (unit_read_at(img, lba * ss, h, ss))
		return -1;
	len = (size_t)get_le32(h + 80) * get_le32(h + 84);
	entries = malloc(len);
	if (!entries)
		return -1;
	if (unit_read_at(img, get_le64(h + 72) * ss, entries, len))
		goto out;
	put_le32(h + 88, imgp_crc32_(0, entries, len));
	hsize = get_le32(h + 12);
	if (hsize > ss)
		goto out;
	put_le32(h + 16, 0);
	put_le32(h + 16, imgp_crc32_(0, h, hsize));
	rc = unit_write_at(img, lba * ss, h, ss);
out:
	free(entries);
	return rc;
}

/* Opens img and reads its table; returns what imgp_table_read_ returned. */
static int open_table(const char *path, struct imgp_image *img,
		      struct imgp_table *tab)
{
	int rc;

	imgp_errclear_();
	unit_warnings[0] = '\0';
	memset(tab, 0, sizeof(*tab));
	rc = imgp_image_open_(img, path, false);
	if (rc)
		return rc;
	img->ctx = unit_log_ctx();
	rc = imgp_table_read_(img, tab);
	return rc;
}

static bool msg_has(const char *needle)
{
	bool ok = strstr(imgp_errmsg(), needle) != NULL;

	if (!ok)
		printf("#   message: '%s'\n#   wanted:  '%s'\n", imgp_errmsg(), needle);
	return ok;
}

/* Expects imgp_table_read_ to fail on path with err and a message part. */
static void expect_fail(const char *path, int err, const char *needle,
			const char *name)
{
	struct imgp_image img;
	struct imgp_table tab;
	int rc = open_table(path, &img, &tab);
	char what[256];

	snprintf(what, sizeof(what), "%s: error code", name);
	CHECK(rc == -err, what);
	if (rc != -err)
		printf("#   rc %d (%s)\n", rc, imgp_errmsg());
	snprintf(what, sizeof(what), "%s: message", name);
	CHECK(msg_has(needle), what);
	CHECK(tab.parts == NULL && tab.nparts == 0, "failed read leaves an empty table");
	imgp_table_free_(&tab);
	imgp_image_close_(&img);
}

/* ------------------------------------------------------------- fixtures */

static const char gpt_script[] =
	"label: gpt\n"
	"label-id: 8A9F3F9E-6D1C-4C6B-9E2B-2F8B4D0C1A11\n"
	"first-lba: 2048\n"
	"start=2048, size=8192, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, "
	"uuid=11111111-2222-4333-8444-555555555555, name=\"system-boot\", "
	"attrs=\"LegacyBIOSBootable\"\n"
	"start=10240, size=16384, type=B921B045-1DF0-41C3-AF44-4C6F280D3FAE, "
	"uuid=AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE, name=\"writable\"\n"
	"start=26624, size=4096, type=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F, "
	"name=\"swap\"\n";

/* 32 MiB: 65536 sectors; backup header at LBA 65535, its entries at 65503. */
#define GPT_IMG_SIZE (32 * MiB)
#define GPT_LAST_LBA 65535ull
#define GPT_BACKUP_ENTRIES_LBA 65503ull

static int make_gpt(const char *path)
{
	if (unit_sparse_file(path, GPT_IMG_SIZE))
		return -1;
	return sfdisk(path, gpt_script);
}

static const char mbr_script[] =
	"label: dos\n"
	"label-id: 0x1234abcd\n"
	"start=2048, size=8192, type=c, bootable\n"
	"start=10240, size=8192, type=83\n"
	"start=18432, size=61440, type=5\n"
	"start=20480, size=8192, type=83\n"
	"start=30720, size=8192, type=82\n";

static int make_mbr(const char *path)
{
	if (unit_sparse_file(path, 64 * MiB))
		return -1;
	return sfdisk(path, mbr_script);
}

/* ---------------------------------------------------------------- GPT */

static void test_gpt(void)
{
	const char *path = unit_path("gpt.img");
	struct imgp_image img;
	struct imgp_table tab;
	const struct imgp_part *p;

	CHECK(make_gpt(path) == 0, "gpt: sfdisk makes the fixture");
	CHECK(open_table(path, &img, &tab) == 0, "gpt: table reads");
	CHECK_STR(tab.label, "gpt", "gpt: label");
	CHECK_STR(tab.id, "8a9f3f9e-6d1c-4c6b-9e2b-2f8b4d0c1a11", "gpt: disk guid, lower case");
	CHECK(tab.sector_size == 512, "gpt: sector size");
	CHECK(!tab.used_backup, "gpt: primary header used");
	CHECK(tab.nparts == 3, "gpt: three partitions");
	CHECK(unit_warnings[0] == '\0', "gpt: no unit_warnings");
	if (tab.nparts != 3)
		goto out;
	p = &tab.parts[0];
	CHECK(p->number == 1, "gpt: p1 number");
	CHECK(p->start == 2048 * 512ull && p->size == 8192 * 512ull, "gpt: p1 extent");
	CHECK_STR(p->type, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b", "gpt: p1 type");
	CHECK_STR(p->type_name, "EFI System", "gpt: p1 type name");
	CHECK_STR(p->name, "system-boot", "gpt: p1 name");
	CHECK_STR(p->uuid, "11111111-2222-4333-8444-555555555555", "gpt: p1 uuid");
	CHECK(p->bootable, "gpt: p1 legacy BIOS bootable");
	CHECK(!p->logical && !p->container, "gpt: p1 plain");
	CHECK(p->fstype[0] == '\0', "gpt: fstype empty before probing");
	p = &tab.parts[1];
	CHECK(p->number == 2 && p->start == 10240 * 512ull &&
	      p->size == 16384 * 512ull, "gpt: p2 number and extent");
	CHECK_STR(p->type_name, "Linux root (ARM-64)", "gpt: p2 type name");
	CHECK_STR(p->name, "writable", "gpt: p2 name");
	CHECK_STR(p->uuid, "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "gpt: p2 uuid");
	CHECK(!p->bootable, "gpt: p2 not bootable");
	p = &tab.parts[2];
	CHECK(p->number == 3 && p->size == 4096 * 512ull, "gpt: p3");
	CHECK_STR(p->type_name, "Linux swap", "gpt: p3 type name");

	/* Lookup: number, then GPT name, then filesystem label. */
	p = imgp_table_find_(&tab, "2");
	CHECK(p && p->number == 2, "find: by number");
	p = imgp_table_find_(&tab, "system-boot");
	CHECK(p && p->number == 1, "find: by GPT name");
	snprintf(tab.parts[2].fslabel, sizeof(tab.parts[2].fslabel), "swapspace");
	p = imgp_table_find_(&tab, "swapspace");
	CHECK(p && p->number == 3, "find: by filesystem label");
	snprintf(tab.parts[0].fslabel, sizeof(tab.parts[0].fslabel), "writable");
	p = imgp_table_find_(&tab, "writable");
	CHECK(p && p->number == 2, "find: a GPT name wins over a label");
	p = imgp_table_find_(&tab, "4");
	CHECK(!p, "find: missing number");
	CHECK(msg_has("no partition '4' (have: 1 'system-boot' writable, 2 'writable', 3 'swap' swapspace)"),
	      "find: message lists the partitions");
	p = imgp_table_find_(&tab, "nope");
	CHECK(!p && msg_has("no partition 'nope' (have: 1"), "find: missing name");
	snprintf(tab.parts[1].fslabel, sizeof(tab.parts[1].fslabel), "dup");
	snprintf(tab.parts[2].fslabel, sizeof(tab.parts[2].fslabel), "dup");
	p = imgp_table_find_(&tab, "dup");
	CHECK(!p && msg_has("label 'dup' is ambiguous (partitions 2, 3)"),
	      "find: ambiguous label refused");

	/* Reads inside a partition are bounded by it. */
	{
		uint8_t b[16];

		CHECK(imgp_part_read_(&img, &tab.parts[2], tab.parts[2].size - 16,
				     b, sizeof(b)) == 0, "part read: last bytes");
		CHECK(imgp_part_read_(&img, &tab.parts[2], tab.parts[2].size - 15,
				     b, sizeof(b)) == -ERANGE &&
		      msg_has("p3: read of 16 bytes at offset 2097137 is past the end of the partition (2097152 bytes)"),
		      "part read: past the end refused");
		CHECK(imgp_part_read_(&img, &tab.parts[2], UINT64_MAX, b, 1) == -ERANGE,
		      "part read: huge offset refused");
	}
out:
	imgp_table_free_(&tab);
	CHECK(tab.parts == NULL && tab.nparts == 0, "table free empties it");
	imgp_image_close_(&img);
}

static void test_gpt_names(void)
{
	const char *path = unit_path("names.img");
	/* a, u-umlaut, U+1D11E as a surrogate pair, z, a lone high surrogate, q */
	static const uint16_t units[] = { 'a', 0x00fc, 0xd834, 0xdd1e, 'z',
					  0xd800, 'q', 0, 'x' };
	uint8_t name[72] = { 0 };
	struct imgp_image img;
	struct imgp_table tab;
	char want[128];

	if (!made(make_gpt(path), "names: fixture"))
		return;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		put_le16(name + 2 * i, units[i]);
	/* Entry 3 of the primary array (LBA 2), name at offset 56. */
	unit_write_at(path, 1024 + 2 * 128 + 56, name, sizeof(name));
	/* Entry 2: 36 euro signs, 3 UTF-8 bytes each, fill the name exactly. */
	for (int i = 0; i < 36; i++)
		put_le16(name + 2 * i, 0x20ac);
	unit_write_at(path, 1024 + 1 * 128 + 56, name, sizeof(name));
	CHECK(gpt_fix_crcs(path, 512, 1) == 0, "names: CRCs fixed");
	CHECK(open_table(path, &img, &tab) == 0 && tab.nparts == 3 &&
	      !tab.used_backup, "names: table reads");
	if (tab.nparts == 3) {
		CHECK_STR(tab.parts[2].name, "a\xc3\xbc\xf0\x9d\x84\x9ez\xef\xbf\xbdq",
			  "names: UTF-16 surrogates and NUL end");
		want[0] = '\0';
		for (int i = 0; i < 36; i++)
			strcat(want, "\xe2\x82\xac");
		CHECK_STR(tab.parts[1].name, want, "names: longest name fits");
		CHECK(strlen(tab.parts[1].name) == IMGP_GPT_NAME_MAX,
		      "names: 108 bytes");
	}
	imgp_table_free_(&tab);
	imgp_image_close_(&img);
}

static void test_gpt_backup(void)
{
	const char *path = unit_path("backup.img");
	struct imgp_image img;
	struct imgp_table tab;
	uint8_t junk = 0x5a, zero[512] = { 0 };
	char want[PATH_MAX + 64];

	/* Primary header CRC broken: the backup is used, with a warning. */
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	unit_write_at(path, 512 + 60, &junk, 1); /* inside the disk GUID */
	CHECK(open_table(path, &img, &tab) == 0, "backup: table reads");
	CHECK(tab.used_backup, "backup: used_backup set");
	CHECK(tab.nparts == 3 && !strcmp(tab.parts[1].name, "writable"),
	      "backup: partitions from the backup copy");
	snprintf(want, sizeof(want), "%s: primary GPT header is corrupt (CRC mismatch); using the backup header\n",
		 path);
	CHECK_STR(unit_warnings, want, "backup: warning names the image and the reason");
	imgp_table_free_(&tab);
	imgp_image_close_(&img);

	/* Both headers broken. */
	unit_write_at(path, GPT_LAST_LBA * 512 + 60, &junk, 1);
	expect_fail(path, EINVAL,
		    "GPT is corrupt: primary header CRC mismatch and backup header (LBA 65535) CRC mismatch",
		    "both headers corrupt");

	/* Primary wiped: the backup is found in the last sector. */
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	unit_write_at(path, 512, zero, sizeof(zero));
	CHECK(open_table(path, &img, &tab) == 0 && tab.used_backup &&
	      tab.nparts == 3, "wiped primary: backup found at the end");
	CHECK(strstr(unit_warnings, "(has no 'EFI PART' signature)") != NULL,
	      "wiped primary: warning says why");
	imgp_table_free_(&tab);
	imgp_image_close_(&img);

	/* Primary entries array CRC broken, then the backup's too. */
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	unit_write_at(path, 1024 + 128 + 60, &junk, 1);
	CHECK(open_table(path, &img, &tab) == 0 && tab.used_backup,
	      "entries CRC: backup used");
	CHECK(strstr(unit_warnings, "(entries array CRC mismatch)") != NULL,
	      "entries CRC: warning says why");
	imgp_table_free_(&tab);
	imgp_image_close_(&img);
	unit_write_at(path, GPT_BACKUP_ENTRIES_LBA * 512 + 128 + 60, &junk, 1);
	expect_fail(path, EINVAL,
		    "GPT is corrupt: primary header entries array CRC mismatch and backup header (LBA 65535) entries array CRC mismatch",
		    "both entries arrays corrupt");

	/* A header with a valid CRC but a nonsense entry size. */
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	{
		uint8_t v[4];

		put_le32(v, 100);
		unit_write_at(path, 512 + 84, v, 4);
		gpt_fix_crcs(path, 512, 1);
	}
	CHECK(open_table(path, &img, &tab) == 0 && tab.used_backup,
	      "entry size: backup used");
	CHECK(strstr(unit_warnings, "entry size 100 is invalid") != NULL,
	      "entry size: warning says why");
	imgp_table_free_(&tab);
	imgp_image_close_(&img);

	/* A header size beyond the sector. */
	{
		uint8_t v[4];

		put_le32(v, 600);
		unit_write_at(path, GPT_LAST_LBA * 512 + 12, v, 4);
	}
	expect_fail(path, EINVAL,
		    "and backup header (LBA 65535) size 600 is out of range (92..512)",
		    "header size out of range");
}

static void test_gpt_bad_entries(void)
{
	const char *path = unit_path("entries.img");
	uint8_t v[8];

	/* Partition 2 starts inside partition 1. */
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	put_le64(v, 9000);
	unit_write_at(path, 1024 + 128 + 32, v, 8);
	gpt_fix_crcs(path, 512, 1);
	expect_fail(path, EINVAL,
		    "GPT: partitions 1 and 2 overlap (p1: sectors 2048..10239, p2: sectors 9000..26623)",
		    "gpt overlap");

	/* Partition 1 starts before the first usable LBA. */
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	put_le64(v, 1000);
	unit_write_at(path, 1024 + 32, v, 8);
	gpt_fix_crcs(path, 512, 1);
	expect_fail(path, EINVAL,
		    "GPT: partition 1 (LBA 1000..10239) lies outside the usable area (LBA 2048..65502)",
		    "gpt outside usable area");

	/* Last LBA before first. */
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	put_le64(v, 100);
	unit_write_at(path, 1024 + 2 * 128 + 40, v, 8);
	gpt_fix_crcs(path, 512, 1);
	expect_fail(path, EINVAL,
		    "GPT: partition 3 ends before it starts (first LBA 26624, last LBA 100)",
		    "gpt reversed partition");

	/* Truncated image: the table is intact, the partitions are not. */
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	resize_file(path, 12 * MiB);
	expect_fail(path, EINVAL,
		    "GPT: partition 2 extends past the end of the image (last LBA 26623, image has 24576 sectors): truncated image?",
		    "gpt truncated image");
}

static void test_gpt_4k(void)
{
	const char *path = unit_path("gpt4k.img");
	const char *cmds = unit_path("fdisk-cmds");
	const char *tool = find_tool("fdisk");
	char prog[PATH_MAX];
	const char *argv[] = { prog, "-b", "4096", path, NULL };
	struct imgp_image img;
	struct imgp_table tab;

	if (!tool) {
		SKIP_TOOL("4096-byte sector GPT", "fdisk");
		return;
	}
	snprintf(prog, sizeof(prog), "%s", tool);
	unit_sparse_file(path, 64 * MiB);
	unit_write_text(cmds, "g\nn\n\n\n+4M\nn\n\n\n+8M\nw\n");
	CHECK(unit_spawn(argv, cmds, NULL) == 0, "4k: fdisk makes the fixture");
	CHECK(open_table(path, &img, &tab) == 0, "4k: table reads");
	CHECK(tab.sector_size == 4096 && tab.nparts == 2, "4k: sector size and count");
	if (tab.nparts == 2) {
		CHECK(tab.parts[0].start == 1 * MiB && tab.parts[0].size == 4 * MiB,
		      "4k: p1 extent in bytes");
		CHECK(tab.parts[1].start == 5 * MiB && tab.parts[1].size == 8 * MiB,
		      "4k: p2 extent in bytes");
		CHECK_STR(tab.parts[1].type_name, "Linux filesystem", "4k: type name");
	}
	imgp_table_free_(&tab);
	imgp_image_close_(&img);

	/* The primary header of a 4k GPT broken: backup in the last 4k sector. */
	{
		uint8_t junk = 0x5a;

		unit_write_at(path, 4096 + 60, &junk, 1);
	}
	CHECK(open_table(path, &img, &tab) == 0 && tab.used_backup &&
	      tab.sector_size == 4096 && tab.nparts == 2, "4k: backup used");
	imgp_table_free_(&tab);
	imgp_image_close_(&img);
}

static void test_gpt_mbr_variants(void)
{
	const char *path = unit_path("variants.img");
	struct imgp_image img;
	struct imgp_table tab;
	uint8_t zero[512] = { 0 };
	struct unit_mbr_slot plain[4] = { { 0, 0x83, 2048, 8192 } };
	struct unit_mbr_slot pmbr[4] = { { 0, 0xee, 1, 65535 } };

	/* No MBR at all: sfdisk, libblkid and Linux see no table; refused. */
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	unit_write_at(path, 0, zero, sizeof(zero));
	expect_fail(path, EINVAL,
		    "GPT: there is a GPT header but no protective MBR",
		    "gpt without protective MBR");

	/* A real MBR over a stale GPT: the MBR rules, as in blkid and fdisk. */
	unit_write_mbr(path, 0, 0xcafef00d, plain);
	CHECK(open_table(path, &img, &tab) == 0 && !strcmp(tab.label, "dos") &&
	      tab.nparts == 1, "stale GPT behind an MBR reads as MBR");
	imgp_table_free_(&tab);
	imgp_image_close_(&img);

	/* A protective MBR with no GPT is an error, not one odd partition. */
	unit_sparse_file(path, 32 * MiB);
	unit_write_mbr(path, 0, 0, pmbr);
	expect_fail(path, EINVAL,
		    "GPT: the MBR is protective (type 0xee) but there is no GPT header",
		    "protective MBR without GPT");
}

/* ---------------------------------------------------------------- MBR */

static void test_mbr(void)
{
	const char *path = unit_path("mbr.img");
	struct imgp_image img;
	struct imgp_table tab;
	const struct imgp_part *p;
	static const int numbers[] = { 1, 2, 3, 5, 6 };

	CHECK(make_mbr(path) == 0, "mbr: sfdisk makes the fixture");
	CHECK(open_table(path, &img, &tab) == 0, "mbr: table reads");
	CHECK_STR(tab.label, "dos", "mbr: label");
	CHECK_STR(tab.id, "0x1234abcd", "mbr: disk identifier");
	CHECK(tab.sector_size == 512 && !tab.used_backup, "mbr: sector size");
	CHECK(tab.nparts == 5, "mbr: 3 primary + 2 logical");
	if (tab.nparts != 5)
		goto out;
	for (int i = 0; i < 5; i++)
		CHECK(tab.parts[i].number == numbers[i], "mbr: numbering 1 2 3 5 6");
	p = &tab.parts[0];
	CHECK(p->start == 2048 * 512ull && p->size == 8192 * 512ull, "mbr: p1 extent");
	CHECK_STR(p->type, "0x0c", "mbr: p1 type");
	CHECK_STR(p->type_name, "W95 FAT32 (LBA)", "mbr: p1 type name");
	CHECK_STR(p->uuid, "1234abcd-01", "mbr: p1 PARTUUID form");
	CHECK(p->bootable && !tab.parts[1].bootable, "mbr: active flag");
	CHECK(p->name[0] == '\0', "mbr: no names");
	p = &tab.parts[2];
	CHECK(p->container && !p->logical, "mbr: p3 is the extended container");
	CHECK_STR(p->type_name, "Extended", "mbr: p3 type name");
	p = &tab.parts[3];
	CHECK(p->logical && !p->container, "mbr: p5 logical");
	CHECK(p->start == 20480 * 512ull && p->size == 8192 * 512ull, "mbr: p5 extent");
	CHECK_STR(p->uuid, "1234abcd-05", "mbr: p5 PARTUUID form");
	p = &tab.parts[4];
	CHECK(p->logical && p->start == 30720 * 512ull, "mbr: p6 logical extent");
	CHECK_STR(p->type_name, "Linux swap / Solaris", "mbr: p6 type name");
	p = imgp_table_find_(&tab, "6");
	CHECK(p && p->number == 6, "mbr: find logical by number");
	CHECK(!imgp_table_find_(&tab, "4") &&
	      msg_has("no partition '4' (have: 1, 2, 3 (extended), 5, 6)"),
	      "mbr: find lists partitions");
out:
	imgp_table_free_(&tab);
	imgp_image_close_(&img);

	/* The same image cut short: the extended partition runs off the end. */
	resize_file(path, 16 * MiB);
	expect_fail(path, EINVAL,
		    "MBR: partition 3 (start 18432, 61440 sectors) extends past the end of the image (32768 sectors): truncated image?",
		    "mbr truncated image");
}

static void test_mbr_crafted(void)
{
	const char *path = unit_path("crafted.img");
	struct imgp_image img;
	struct imgp_table tab;

	/* Empty slots keep the numbering. */
	{
		struct unit_mbr_slot s[4] = { { 0 }, { 0x80, 0x83, 2048, 2048 },
					 { 0 }, { 0, 0x0c, 4096, 2048 } };

		unit_sparse_file(path, 8 * MiB);
		unit_write_mbr(path, 0, 0xdeadbeef, s);
		CHECK(open_table(path, &img, &tab) == 0 && tab.nparts == 2,
		      "empty slots: two partitions");
		if (tab.nparts == 2)
			CHECK(tab.parts[0].number == 2 && tab.parts[1].number == 4 &&
			      !strcmp(tab.parts[1].uuid, "deadbeef-04"),
			      "empty slots: numbers 2 and 4 kept");
		imgp_table_free_(&tab);
		imgp_image_close_(&img);
	}
	/* Overlapping primaries. */
	{
		struct unit_mbr_slot s[4] = { { 0, 0x83, 2048, 4096 },
					 { 0, 0x83, 4096, 2048 } };

		unit_write_mbr(path, 0, 0, s);
		expect_fail(path, EINVAL,
			    "MBR: partitions 1 and 2 overlap (p1: sectors 2048..6143, p2: sectors 4096..6143)",
			    "mbr overlap");
	}
	/* A primary inside the extended partition. */
	{
		struct unit_mbr_slot s[4] = { { 0, 0x05, 2048, 8192 },
					 { 0, 0x83, 4096, 1024 } };

		unit_write_mbr(path, 0, 0, s);
		expect_fail(path, EINVAL, "MBR: partitions 1 and 2 overlap",
			    "mbr primary inside extended");
	}
	/* A partition starting on the MBR itself. */
	{
		struct unit_mbr_slot s[4] = { { 0, 0x83, 0, 2048 } };

		unit_write_mbr(path, 0, 0, s);
		expect_fail(path, EINVAL,
			    "MBR: partition 1 starts at sector 0, on top of the partition table",
			    "mbr start 0");
	}
	/* Bad boot flags: not a partition table at all. */
	{
		struct unit_mbr_slot s[4] = { { 0x12, 0x83, 2048, 2048 } };

		unit_write_mbr(path, 0, 0, s);
		expect_fail(path, ENOENT, "no partition table (neither GPT nor MBR)",
			    "mbr with bad boot flag");
	}
}

static void test_ebr(void)
{
	const char *path = unit_path("ebr.img");
	struct imgp_image img;
	struct imgp_table tab;
	struct unit_mbr_slot mbr[4] = { { 0, 0x0f, 2048, 40960 } };

	/* EBR A (2048) -> EBR B (6144) -> back to A. */
	{
		struct unit_mbr_slot a[4] = { { 0, 0x83, 1, 1000 }, { 0, 0x05, 4096, 2000 } };
		struct unit_mbr_slot b[4] = { { 0, 0x83, 1, 1000 }, { 0, 0x05, 0, 2000 } };

		unit_sparse_file(path, 32 * MiB);
		unit_write_mbr(path, 0, 1, mbr);
		unit_write_mbr(path, 2048, 0, a);
		unit_write_mbr(path, 6144, 0, b);
		expect_fail(path, EINVAL,
			    "MBR: the EBR chain of partition 1 loops back to sector 2048",
			    "ebr loop");
	}
	/* A blank first EBR: an extended partition with no logicals. */
	{
		uint8_t zero[512] = { 0 };

		unit_write_at(path, 2048 * 512, zero, sizeof(zero));
		CHECK(open_table(path, &img, &tab) == 0 && tab.nparts == 1 &&
		      tab.parts[0].container, "ebr: blank first EBR");
		imgp_table_free_(&tab);
		imgp_image_close_(&img);
	}
	/* A logical partition running past its extended partition. */
	{
		struct unit_mbr_slot a[4] = { { 0, 0x83, 1, 50000 } };

		unit_write_mbr(path, 2048, 0, a);
		expect_fail(path, EINVAL,
			    "MBR: logical partition 5 (start 2049, 50000 sectors) is not inside extended partition 1 (start 2048, 40960 sectors)",
			    "ebr logical outside extended");
	}
	/* A link pointing past the extended partition. */
	{
		struct unit_mbr_slot a[4] = { { 0, 0x83, 1, 100 }, { 0, 0x05, 40960, 100 } };

		unit_write_mbr(path, 2048, 0, a);
		expect_fail(path, EINVAL,
			    "MBR: EBR link to sector 43008 points outside extended partition 1",
			    "ebr link outside extended");
	}
	/* Two logicals overlapping each other. */
	{
		struct unit_mbr_slot a[4] = { { 0, 0x83, 1, 5000 }, { 0, 0x05, 4096, 2000 } };
		struct unit_mbr_slot b[4] = { { 0, 0x83, 1, 1000 } };

		unit_write_mbr(path, 2048, 0, a);
		unit_write_mbr(path, 6144, 0, b);
		expect_fail(path, EINVAL,
			    "MBR: partitions 5 and 6 overlap (p5: sectors 2049..7048, p6: sectors 6145..7144)",
			    "ebr logicals overlap");
	}
	/* 128 EBRs are read; a 129th is refused as a runaway chain. */
	for (int len = 128; len <= 129; len++) {
		struct unit_mbr_slot big[4] = { { 0, 0x05, 2048, 16 * 200 } };

		unit_sparse_file(path, 8 * MiB);
		unit_write_mbr(path, 0, 1, big);
		for (int k = 0; k < len; k++) {
			struct unit_mbr_slot e[4] = { { 0, 0x83, 1, 8 },
						 { 0, 0x05, 16u * (k + 1), 16 } };

			if (k == len - 1)
				memset(&e[1], 0, sizeof(e[1]));
			unit_write_mbr(path, 2048 + 16 * k, 0, e);
		}
		if (len == 128) {
			CHECK(open_table(path, &img, &tab) == 0 && tab.nparts == 129 &&
			      tab.parts[128].number == 132, "ebr: 128 logical partitions");
			imgp_table_free_(&tab);
			imgp_image_close_(&img);
		} else {
			expect_fail(path, EINVAL,
				    "MBR: more than 128 EBRs in extended partition 1",
				    "ebr chain too long");
		}
	}
}

/* ---------------------------------------------------------- no table */

static void test_no_table(void)
{
	const char *path = unit_path("blank.img");
	const char *mkfs = find_tool("mkfs.vfat");

	unit_sparse_file(path, 1 * MiB);
	expect_fail(path, ENOENT, "no partition table (neither GPT nor MBR)",
		    "blank image");
	unit_sparse_file(path, 100);
	expect_fail(path, EINVAL,
		    "image is too small to hold a partition table (100 bytes, an MBR needs 512)",
		    "tiny image");

	/* A filesystem without a table ends in 0x55aa too. */
	if (!mkfs) {
		SKIP_TOOL("superfloppy check", "mkfs.vfat");
		return;
	}
	{
		char prog[PATH_MAX];
		const char *argv[] = { prog, "-i", "12345678", path, NULL };

		snprintf(prog, sizeof(prog), "%s", mkfs);
		unit_sparse_file(path, 8 * MiB);
		CHECK(unit_spawn(argv, NULL, NULL) == 0, "superfloppy: mkfs.vfat");
		expect_fail(path, ENOENT, "no partition table (neither GPT nor MBR)",
			    "superfloppy FAT image");
	}
}

/* ------------------------------------------------------------ probe_fs */

static void test_probe_fs(void)
{
	const char *path = unit_path("fs.img");
	char vprog[PATH_MAX] = "", eprog[PATH_MAX] = "";
	const char *vargv[] = { vprog, "-i", "1234abcd", "-n", "system-boot",
				"--offset", "2048", path, "4096", NULL };
	const char *eargv[] = { eprog, "-q", "-F", "-t", "ext4", "-L", "writable",
				"-U", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
				"-E", "offset=5242880", path, "8M", NULL };
	struct imgp_image img;
	struct imgp_table tab;
	const struct imgp_part *p;
	uint8_t b[2];

	/* find_tool() returns static storage: copy each answer. */
	if (find_tool("mkfs.vfat"))
		snprintf(vprog, sizeof(vprog), "%s", find_tool("mkfs.vfat"));
	if (find_tool("mke2fs"))
		snprintf(eprog, sizeof(eprog), "%s", find_tool("mke2fs"));
	if (!vprog[0] || !eprog[0]) {
		SKIP_TOOL("probe_fs", !vprog[0] && !eprog[0] ? "mkfs.vfat mke2fs" :
			  !vprog[0] ? "mkfs.vfat" : "mke2fs");
		return;
	}
	if (!made(make_gpt(path), "gpt fixture"))
		return;
	CHECK(unit_spawn(vargv, NULL, NULL) == 0, "probe: mkfs.vfat at partition 1");
	CHECK(unit_spawn(eargv, NULL, NULL) == 0, "probe: mke2fs at partition 2");
	CHECK(open_table(path, &img, &tab) == 0 && tab.nparts == 3, "probe: table reads");
	if (tab.nparts != 3)
		goto out;
	CHECK(imgp_fs_identify_(&img, &tab) == 0, "probe: probe_fs");
	CHECK_STR(tab.parts[0].fstype, "vfat", "probe: p1 vfat");
	CHECK_STR(tab.parts[0].fslabel, "system-boot", "probe: p1 label");
	CHECK_STR(tab.parts[0].fsuuid, "1234-ABCD", "probe: p1 uuid");
	CHECK_STR(tab.parts[1].fstype, "ext4", "probe: p2 ext4");
	CHECK_STR(tab.parts[1].fslabel, "writable", "probe: p2 label");
	CHECK_STR(tab.parts[1].fsuuid, "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
		  "probe: p2 uuid");
	CHECK(tab.parts[2].fstype[0] == '\0' && tab.parts[2].fslabel[0] == '\0',
	      "probe: p3 unformatted stays empty");
	CHECK(!imgp_table_find_(&tab, "x") &&
	      msg_has("no partition 'x' (have: 1 'system-boot' vfat system-boot, 2 'writable' ext4 writable, 3 'swap')"),
	      "probe: find lists filesystems");
	CHECK(imgp_part_read_(&img, &tab.parts[0], 510, b, 2) == 0 &&
	      b[0] == 0x55 && b[1] == 0xaa, "probe: part read finds the FAT boot signature");
	CHECK(imgp_part_read_(&img, &tab.parts[1], 1024 + 0x38, b, 2) == 0 &&
	      b[0] == 0x53 && b[1] == 0xef, "probe: part read finds the ext4 magic");
out:
	imgp_table_free_(&tab);
	imgp_image_close_(&img);

	/* MBR: logicals are probed, the extended container is skipped. */
	{
		const char *mpath = unit_path("fsmbr.img");
		const char *largv[] = { vprog, "-n", "LOGICAL", "--offset", "20480",
					mpath, "4096", NULL };

		if (!made(make_mbr(mpath), "probe: mbr fixture"))
			return;
		CHECK(unit_spawn(largv, NULL, NULL) == 0, "probe: mkfs.vfat at logical 5");
		CHECK(open_table(mpath, &img, &tab) == 0 && tab.nparts == 5 &&
		      imgp_fs_identify_(&img, &tab) == 0, "probe: mbr probe_fs");
		if (tab.nparts == 5) {
			CHECK(tab.parts[2].container && tab.parts[2].fstype[0] == '\0',
			      "probe: extended container skipped");
			CHECK_STR(tab.parts[3].fstype, "vfat", "probe: logical 5 vfat");
			p = imgp_table_find_(&tab, "LOGICAL");
			CHECK(p && p->number == 5, "probe: find logical by label");
		}
		imgp_table_free_(&tab);
		imgp_image_close_(&img);
	}
}

int main(void)
{
	if (unit_tmpdir_create("part")) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	atexit(unit_tmpdir_remove);
	if (!unit_log_ctx()) {
		printf("not ok 1 - cannot make a context\n");
		return 1;
	}

	test_no_table();
	test_mbr_crafted();
	test_ebr();
	if (!find_tool("sfdisk")) {
		SKIP_TOOL("sfdisk fixtures", "sfdisk");
		return unit_done();
	}
	test_gpt();
	test_gpt_names();
	test_gpt_backup();
	test_gpt_bad_entries();
	test_gpt_4k();
	test_gpt_mbr_variants();
	test_mbr();
	test_probe_fs();
	return unit_done();
}
