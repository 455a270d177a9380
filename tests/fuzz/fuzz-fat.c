// SPDX-License-Identifier: MIT
/*
 * Fuzzes what the FAT backend parses itself: the boot sector's geometry,
 * mshowfat's cluster chains and mdir's listings and size lines (mtools is
 * not run). The input is a 512-byte boot sector (zero-padded when shorter)
 * followed by NUL-separated fields: mshowfat output, an "mdir -/ -b -a"
 * listing, an "mdir -a" listing and a name to look up. The input taken
 * whole is also a partition for the damage check (fat-check.c): a seed that
 * is a small FAT image reaches its chains and folders.
 */
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "fs/fat-check.h"
#include "fuzz.h"

#define FAT_BOOT_SECTOR 512

/* A FAT16 of 64 MiB: the geometry chains are checked against when the boot sector is refused. */
static const struct imgp_fat_geom fallback = {
	.meta_end = 133 * 512,
	.cluster_bytes = 2048,
	.nclusters = 32700,
};

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Every line of text through the chain parser; each range inside the data area. */
static void fuzz_chains(const struct imgp_fat_geom *g, char *text)
{
	struct imgp_fat_ranges r = { 0 };
	uint64_t end = g->meta_end + g->nclusters * g->cluster_bytes;
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (imgp_fat_parse_chain_(g, line, &r))
			break;
	for (size_t i = 0; i < r.n; i++)
		if (r.r[i].file_off < g->meta_end || r.r[i].len > end - r.r[i].file_off ||
		    r.r[i].file_off + r.r[i].len > end)
			__builtin_trap();
	free(r.r);
}

static void fuzz_listing(const char *text, const char *target)
{
	char **dirs = NULL, **names = NULL;
	size_t ndirs = 0, nnames = 0;
	char prefix[512];

	imgp_fat_listing_find_(text, target);
	if (imgp_fat_listing_dirs_(text, &dirs, &ndirs) == 0) {
		/* Every folder the listing names is one the lookup finds. */
		for (size_t i = 0; i < ndirs; i++)
			if (imgp_fat_listing_find_(text, dirs[i]) == 0)
				__builtin_trap();
		for (size_t i = 0; i < ndirs && i < 8; i++) {
			snprintf(prefix, sizeof(prefix), "%s/", strcmp(dirs[i], "::/") ? dirs[i] : "::");
			imgp_fat_listing_children_(text, prefix, &names, &nnames);
		}
		names_free(dirs, ndirs);
	}
	snprintf(prefix, sizeof(prefix), "%s/", target);
	imgp_fat_listing_children_(text, prefix, &names, &nnames);
	names_free(names, nnames);
}

/* The input as a partition in a memory file: every chain and folder checked, then looked up. */
static void fuzz_damage(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {
		"/", "", "/extlinux/extlinux.conf", "EXTLINUX//EXTLIN~1.CON", "/a/b/c/d",
	};
	static struct fuzz_memfile image;
	struct imgp_part part = { .number = 1, .fstype = "vfat" };
	struct imgp_fat_damage d;
	struct imgp_image img;

	if (fuzz_memfile_set(&image, "fuzz-fat", data, size))
		abort();
	if (imgp_image_open_(&img, image.path, false))
		return;
	part.size = img.size;
	if (imgp_fat_check_(&img, &part, &d) == 0) {
		/* At most the bound kept, each naming its path; the root's covers every path. */
		if (d.n > IMGP_FAT_FINDINGS_MAX || (d.more && d.n != IMGP_FAT_FINDINGS_MAX))
			__builtin_trap();
		for (size_t i = 0; i < d.n; i++)
			if (d.f[i].path[0] != '/' || d.f[i].alias[0] != '/' ||
			    !strstr(d.f[i].why, d.f[i].path) ||
			    (!strcmp(d.f[i].path, "/") && !imgp_fat_damage_find_(&d, "/a/b/c/d")))
				__builtin_trap();
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
			imgp_fat_damage_find_(&d, paths[i]);
		imgp_fat_damage_free_(&d);
	}
	imgp_image_close_(&img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t bs[FAT_BOOT_SECTOR] = { 0 };
	const uint8_t *f[4] = { NULL };
	size_t len[4] = { 0 }, pos;
	struct imgp_fat_geom g;
	char *chains = NULL, *listing = NULL, *sizes = NULL, *target = NULL;
	uint64_t fsize;

	memcpy(bs, data, size < sizeof(bs) ? size : sizeof(bs));
	pos = size < sizeof(bs) ? size : sizeof(bs);
	for (int i = 0; i < 4; i++)
		fuzz_field(data, size, &pos, &f[i], &len[i]);
	chains = fuzz_str(f[0] ? (const void *)f[0] : "", len[0]);
	listing = fuzz_str(f[1] ? (const void *)f[1] : "", len[1]);
	sizes = fuzz_str(f[2] ? (const void *)f[2] : "", len[2]);
	target = f[3] ? fuzz_str(f[3], len[3] < 400 ? len[3] : 400) : fuzz_str("::/boot", 7);
	if (!chains || !listing || !sizes || !target)
		goto out;

	imgp_fat_geometry_(bs, (uint64_t)64 << 20, &g);
	if (imgp_fat_geometry_(bs, UINT64_MAX, &g) == 0) {
		if (!g.cluster_bytes || g.meta_end > UINT64_MAX / 2)
			__builtin_trap();
	} else {
		g = fallback;
	}
	fuzz_listing(listing, target);
	imgp_fat_parse_size_(sizes, target, &fsize);
	imgp_fat_parse_size_(listing, "::/", &fsize);
	/* Last: the chain parser cuts its text into lines. */
	fuzz_chains(&g, chains);
	fuzz_damage(data, size);
out:
	free(target);
	free(sizes);
	free(listing);
	free(chains);
	imgp_errclear_();
	return 0;
}
