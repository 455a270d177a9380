// SPDX-License-Identifier: MIT
/*
 * What the FAT backend parses itself (no mtools run): the boot sector's
 * geometry, mshowfat's cluster chains, mdir's listings and size line, and
 * which reads a damage check's finding is about. The texts are as mtools
 * 4.0.33 prints them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "fs/fs.h"
#include "fs/fat-check.h"
#include "unit.h"

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

/* A FAT32 boot sector: 512-byte sectors, 1 per cluster, 32 reserved, 2 FATs of 100. */
static void fat32_boot_sector(uint8_t *bs, uint32_t total)
{
	memset(bs, 0, 512);
	bs[0] = 0xeb;
	put16(bs + 11, 512);
	bs[13] = 1;
	put16(bs + 14, 32);
	bs[16] = 2;
	put32(bs + 32, total);
	put32(bs + 36, 100);
	bs[510] = 0x55;
	bs[511] = 0xaa;
}

static void test_geometry(void)
{
	struct imgp_fat_geom g;
	uint8_t bs[512];

	fat32_boot_sector(bs, 65536);
	CHECK(imgp_fat_geometry_(bs, 65536 * 512ull, &g) == 0, "geometry: FAT32 accepted");
	CHECK(g.meta_end == 232 * 512 && g.cluster_bytes == 512 &&
	      g.nclusters == 65536 - 232, "geometry: data area after 32 + 2 * 100 sectors");
	CHECK(imgp_fat_geometry_(bs, 65535 * 512ull, &g) == -EINVAL &&
	      strstr(imgp_errmsg(), "larger than its partition"),
	      "geometry: larger than the partition");
	bs[13] = 0;
	CHECK(imgp_fat_geometry_(bs, 65536 * 512ull, &g) == -EINVAL,
	      "geometry: 0 sectors per cluster");
	fat32_boot_sector(bs, 200);
	CHECK(imgp_fat_geometry_(bs, 65536 * 512ull, &g) == -EINVAL &&
	      strstr(imgp_errmsg(), "leave no data area"), "geometry: no data area");
	imgp_errclear_();
}

static void test_chain(void)
{
	const struct imgp_fat_geom g = { .meta_end = 1000, .cluster_bytes = 512, .nclusters = 100 };
	struct imgp_fat_ranges r = { 0 };

	CHECK(imgp_fat_parse_chain_(&g, "::/image.fit <6-8> <3>", &r) == 0 && r.n == 2,
	      "chain: two ranges");
	if (r.n == 2) {
		CHECK(r.r[0].file_off == 1000 + 4 * 512 && r.r[0].len == 3 * 512,
		      "chain: clusters 6-8 after the metadata");
		CHECK(r.r[1].file_off == 1000 + 512 && r.r[1].len == 512, "chain: cluster 3");
	}
	CHECK(imgp_fat_parse_chain_(&g, "::/ Root directory or empty file", &r) == 0 &&
	      r.n == 2, "chain: an empty file adds nothing");
	CHECK(imgp_fat_parse_chain_(&g, "::/x <101-102>", &r) == -EIO,
	      "chain: past the last cluster");
	CHECK(imgp_fat_parse_chain_(&g, "::/x <1>", &r) == -EIO, "chain: cluster 1");
	CHECK(imgp_fat_parse_chain_(&g, "::/x <9-4>", &r) == -EIO, "chain: reversed range");
	CHECK(imgp_fat_parse_chain_(&g, "::/x <5", &r) == -EIO, "chain: unterminated");
	free(r.r);
	imgp_errclear_();
}

static const char listing[] =
	"::/boot/\n"
	"::/boot/config.txt\n"
	"::/boot/overlays/\n"
	"::/boot/overlays/a.dtbo\n"
	"::/Image\n";

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void test_listing(void)
{
	char **names = NULL;
	size_t n = 0;

	CHECK(imgp_fat_listing_find_(listing, "::/BOOT") == 2, "find: a folder, any case");
	CHECK(imgp_fat_listing_find_(listing, "::/boot/config.txt") == 1, "find: a file");
	CHECK(imgp_fat_listing_find_(listing, "::/boot/config") == 0, "find: a prefix is not a match");
	CHECK(imgp_fat_listing_find_(listing, "::/BOOTSC~1.UIM") == -ENOENT,
	      "find: an 8.3 alias cannot be told");
	CHECK(imgp_fat_listing_find_("", "::/") == 2, "find: the root of an empty listing");
	CHECK(imgp_fat_listing_find_("", "::/x") == 0, "find: nothing in an empty listing");

	CHECK(imgp_fat_listing_dirs_(listing, &names, &n) == 0 && n == 3, "dirs: root and two");
	if (n == 3) {
		CHECK_STR(names[0], "::/", "dirs: the root first");
		CHECK_STR(names[2], "::/boot/overlays", "dirs: without the slash");
	}
	names_free(names, n);
	names = NULL;
	n = 0;
	CHECK(imgp_fat_listing_dirs_("", &names, &n) == 0 && n == 1,
	      "dirs: an empty root is one folder");
	names_free(names, n);
	names = NULL;
	n = 0;

	CHECK(imgp_fat_listing_children_(listing, "::/boot/", &names, &n) == 0 && n == 2,
	      "children: not those of subfolders");
	if (n == 2) {
		CHECK_STR(names[0], "config.txt", "children: a file");
		CHECK_STR(names[1], "overlays", "children: a folder, without the slash");
	}
	names_free(names, n);
	names = NULL;
	n = 0;
	CHECK(imgp_fat_listing_children_("", "::/", &names, &n) == 0 && n == 0,
	      "children: none in an empty root");
	free(names);
}

static void test_size(void)
{
	uint64_t size = 0;

	CHECK(imgp_fat_parse_size_(" Volume in drive : is BOOT\n"
				  "Directory for ::/\n\n"
				  "image    fit    190748 2023-11-14  22:13\n"
				  "        1 file              190 748 bytes\n"
				  "                         65 866 240 bytes free\n",
				  "::/image.fit", &size) == 0 && size == 190748,
	      "size: the summary line, digits grouped");
	CHECK(imgp_fat_parse_size_("Directory for ::/boot\n\nNo files\n", "::/BOOT", &size) == -EISDIR,
	      "size: a folder");
	CHECK(imgp_fat_parse_size_("        2 files              10 bytes\n", "::/x", &size) == -EIO,
	      "size: no one-file line");
	CHECK(imgp_fat_parse_size_("1 file 12 bytes free\n", "::/x", &size) == -EIO,
	      "size: a line that only starts like one");
	imgp_errclear_();
}

/* One 32-byte directory entry: 8.3 name, attributes, first cluster, size. */
static void dirent(uint8_t *e, const char *name83, uint8_t attr, uint32_t cluster,
		   uint32_t size)
{
	memset(e, 0, 32);
	memcpy(e, name83, 11);
	e[11] = attr;
	e[20] = (uint8_t)(cluster >> 16);
	e[21] = (uint8_t)(cluster >> 24);
	e[26] = (uint8_t)cluster;
	e[27] = (uint8_t)(cluster >> 8);
	for (int i = 0; i < 4; i++)
		e[28 + i] = (uint8_t)(size >> (8 * i));
}

static void test_dirent(void)
{
	uint8_t dir[32 * 6];
	uint64_t size = 0;

	memset(dir, 0, sizeof(dir));
	dirent(dir, "BOOT       ", 0x08, 0, 0);                 /* volume label */
	dirent(dir + 32, "Ax\0i\0m\0a\0g", 0x0f, 0, 0);        /* a long-name part */
	dirent(dir + 64, "IMAGE   FIT", 0x20, 0x10003, 190748);
	dirent(dir + 96, "SUB        ", 0x10, 0x10004, 0);
	dirent(dir + 128, "\xe5OLD    FIT", 0x20, 0x10005, 77);  /* deleted */
	CHECK(imgp_fat_dirent_size_(dir, sizeof(dir), 0x10003, true, &size) == 0 &&
	      size == 190748, "dirent: the file on its first cluster (FAT32)");
	CHECK(imgp_fat_dirent_size_(dir, sizeof(dir), 3, false, &size) == 0 && size == 190748,
	      "dirent: FAT16 ignores the high half");
	CHECK(imgp_fat_dirent_size_(dir, sizeof(dir), 0x10004, true, &size) == -EISDIR,
	      "dirent: a folder's entry");
	CHECK(imgp_fat_dirent_size_(dir, sizeof(dir), 0x10005, true, &size) == -ENOENT,
	      "dirent: a deleted entry is none");
	dirent(dir + 160, "COPY    FIT", 0x20, 0x10003, 5);
	CHECK(imgp_fat_dirent_size_(dir, sizeof(dir), 0x10003, true, &size) == -ENOENT,
	      "dirent: two entries on one chain (cross-linked) are no answer");
	dir[64] = 0;
	CHECK(imgp_fat_dirent_size_(dir, sizeof(dir), 0x10004, true, &size) == -ENOENT,
	      "dirent: nothing after the end mark");
}

/* A finding about path (alias in 8.3 names), as fat-check.c keeps it. */
static struct imgp_fat_finding finding(const char *path, const char *alias)
{
	struct imgp_fat_finding f = { (char *)path, (char *)alias, (char *)"why" };

	return f;
}

static void test_damage_find(void)
{
	struct imgp_fat_finding f[2] = {
		finding("/EXTLINUX/extlinux.conf", "/EXTLINUX/EXTLIN~1.CON"),
		finding("/Long Folder", "/LONGFO~1"),
	};
	struct imgp_fat_damage d = { f, 2, 0 };

	CHECK(imgp_fat_damage_find_(&d, "/extlinux/extlinux.conf") == &f[0],
	      "damage: a file by its long name, in any case");
	CHECK(imgp_fat_damage_find_(&d, "extlinux//EXTLIN~1.con") == &f[0],
	      "damage: by its 8.3 name, slashes doubled, no leading slash");
	CHECK(imgp_fat_damage_find_(&d, "/boot/../extlinux/./extlinux.conf") == &f[0],
	      "damage: . and .. walked as mtools walks them");
	CHECK(imgp_fat_damage_find_(&d, "/../../extlinux/extlinux.conf") == &f[0],
	      "damage: .. stops at the root");
	CHECK(!imgp_fat_damage_find_(&d, "/extlinux") && !imgp_fat_damage_find_(&d, "/extlinux/x"),
	      "damage: not the folder of a damaged file, nor its other files");
	CHECK(!imgp_fat_damage_find_(&d, "/extlinux/extlinux.confx"),
	      "damage: a longer name is another file");
	CHECK(imgp_fat_damage_find_(&d, "/LONGFO~1/a/b") == &f[1] &&
	      imgp_fat_damage_find_(&d, "/long folder") == &f[1],
	      "damage: everything under a damaged folder, and the folder");
	f[1] = finding("/", "/");
	CHECK(imgp_fat_damage_find_(&d, "/image.fit") == &f[1],
	      "damage: the root's covers every path");
	d.n = 1;
	d.more = 3;
	CHECK(imgp_fat_damage_find_(&d, "/image.fit") == &f[0],
	      "damage: with findings not kept, any path is refused");
	d.n = 0;
	d.more = 0;
	CHECK(!imgp_fat_damage_find_(&d, "/"), "damage: none found, nothing refused");
}

int main(void)
{
	test_geometry();
	test_chain();
	test_listing();
	test_size();
	test_dirent();
	test_damage_find();
	return unit_done();
}
