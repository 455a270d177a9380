// SPDX-License-Identifier: MIT
/*
 * What imgpatch reads of a FAT without mtools, and of mtools' output: the
 * boot sector's geometry, mshowfat's cluster chains, and the recursive
 * "mdir -/ -a" listing (its folders, a name's kind, a folder's children,
 * a file's size). Pure functions over bytes and text, so the unit tests
 * feed them mtools' real output (tests/unit/test-fat-parse.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "fs/fs.h"
#include "core/endian.h"

/* The boot-sector fields that say how large the filesystem claims to be. */
int imgp_fat_geometry_(const uint8_t *bs, uint64_t part_size, struct imgp_fat_geom *g)
{
	uint64_t total, bytes, reserved, nfats, fatsz, rootsecs, meta;
	unsigned bps;

	bps = get_le16(bs + 11);
	if (bps < 512 || bps > 4096 || (bps & (bps - 1)) || bs[13] == 0 ||
	    bs[510] != 0x55 || bs[511] != 0xaa)
		return imgp_fail(EINVAL, "FAT boot sector is invalid (bytes per sector %u, sectors per cluster %u)",
				 bps, bs[13]);
	total = get_le16(bs + 19);
	if (total == 0)
		total = get_le32(bs + 32);
	reserved = get_le16(bs + 14);
	nfats = bs[16];
	fatsz = get_le16(bs + 22) ? get_le16(bs + 22) : get_le32(bs + 36);
	rootsecs = ((uint64_t)get_le16(bs + 17) * 32 + bps - 1) / bps;
	meta = reserved + nfats * fatsz + rootsecs;
	/* The areas before the data must fit, or mtools reads past them. */
	if (!reserved || !nfats || !fatsz || meta >= total)
		return imgp_fail(EINVAL, "FAT geometry is inconsistent: %llu reserved + %llu FATs of %llu sectors + a root directory of %llu sectors leave no data area in %llu sectors",
				 (unsigned long long)reserved, (unsigned long long)nfats,
				 (unsigned long long)fatsz, (unsigned long long)rootsecs,
				 (unsigned long long)total);
	bytes = total * bps;
	if (bytes > part_size)
		return imgp_fail(EINVAL, "FAT filesystem (%llu bytes) is larger than its partition (%llu bytes)",
				 (unsigned long long)bytes, (unsigned long long)part_size);
	g->meta_end = meta * bps;
	g->cluster_bytes = (uint64_t)bs[13] * bps;
	g->nclusters = (total - meta) / bs[13];
	return 0;
}

/*
 * Cluster ranges as mshowfat prints them after the name: "<6-184839>",
 * "<3> <9-12>", or "Root directory or empty file" (no clusters). Each
 * becomes a byte range of the partition, checked against the data area.
 */
int imgp_fat_parse_chain_(const struct imgp_fat_geom *g, const char *line,
			 struct imgp_fat_ranges *out)
{
	const char *p = strchr(line, '<');

	while (p) {
		unsigned long long a, b;
		char *end;

		a = strtoull(p + 1, &end, 10);
		b = a;
		if (*end == '-')
			b = strtoull(end + 1, &end, 10);
		if (*end != '>' || a < 2 || b < a || b - 2 >= g->nclusters)
			return imgp_fail(EIO, "mshowfat printed a cluster chain outside the filesystem: %s",
					 line);
		{
			struct imgp_extent *grown = realloc(out->r, (out->n + 1) * sizeof(*grown));

			if (!grown)
				return imgp_fail(ENOMEM, "out of memory");
			out->r = grown;
			grown[out->n].file_off = g->meta_end + (a - 2) * g->cluster_bytes;
			grown[out->n].len = (b - a + 1) * g->cluster_bytes;
			grown[out->n].img_off = 0;
			out->n++;
		}
		p = strchr(end, '<');
	}
	return 0;
}

/* The mtools names of every directory, "::/" first. */
int imgp_fat_listing_dirs_(const char *text, char ***out, size_t *n)
{
	const char *line, *eol;
	char **dirs;
	size_t count = 1;

	*out = NULL;
	*n = 0;
	dirs = calloc(1, sizeof(*dirs));
	if (!dirs || !(dirs[0] = strdup("::/"))) {
		free(dirs);
		return imgp_fail(ENOMEM, "out of memory");
	}
	for (line = text; *line; line = *eol ? eol + 1 : eol) {
		size_t len;
		char **grown;

		eol = strchrnul(line, '\n');
		len = (size_t)(eol - line);
		if (len < 4 || line[len - 1] != '/')
			continue;
		grown = realloc(dirs, (count + 1) * sizeof(*grown));
		if (grown)
			dirs = grown;
		if (!grown || !(dirs[count] = strndup(line, len - 1))) {
			imgp_fs_list_free_(dirs, count);
			return imgp_fail(ENOMEM, "out of memory");
		}
		count++;
	}
	*out = dirs;
	*n = count;
	return 0;
}

/*
 * A lookup in the listing: 1 file, 2 folder, 0 missing, -ENOENT when the
 * listing cannot tell (an 8.3 alias such as BOOTSC~1.UIM, or a name mtools
 * may print converted: mdir itself is asked then).
 */
int imgp_fat_listing_find_(const char *text, const char *target)
{
	size_t tlen = strlen(target);
	const char *line, *eol;

	if (!strcmp(target, "::/"))
		return 2;
	for (const char *p = target; *p; p++)
		if (*p == '~' || (unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			return -ENOENT;
	for (line = text; *line; line = *eol ? eol + 1 : eol) {
		size_t len;

		eol = strchrnul(line, '\n');
		len = (size_t)(eol - line);
		if (len >= tlen && !strncasecmp(line, target, tlen) &&
		    (len == tlen || (len == tlen + 1 && line[tlen] == '/')))
			return len == tlen ? 1 : 2;
	}
	return 0;
}

/*
 * The names in a folder, from the listing: lines "::/dir/name", a folder's
 * with a "/" after it.
 */
int imgp_fat_listing_children_(const char *text, const char *prefix, char ***names,
			      size_t *n)
{
	size_t plen = strlen(prefix);
	const char *line, *eol;
	int rc = 0;

	for (line = text; !rc && *line; line = *eol ? eol + 1 : eol) {
		size_t len, name;

		eol = strchrnul(line, '\n');
		len = (size_t)(eol - line);
		if (len <= plen || strncasecmp(line, prefix, plen))
			continue;
		name = len - plen - (line[len - 1] == '/');
		/* Only the folder's own entries, not those of its subfolders. */
		if (!memchr(line + plen, '/', name))
			rc = imgp_fs_names_add_(names, n, line + plen, name);
	}
	return rc;
}

/*
 * The size of the file target, from mdir's listing of it: "Directory for
 * ::/dir" names the folder listed (target itself when it is a folder), and
 * the summary line gives the bytes: "1 file  94 634 860 bytes".
 */
int imgp_fat_parse_size_(const char *text, const char *target, uint64_t *size)
{
	size_t tlen = strlen(target);
	const char *line, *eol;
	bool found = false;

	for (line = text; *line; line = *eol ? eol + 1 : eol) {
		const char *p = line + strspn(line, " ");
		uint64_t v = 0;

		eol = strchrnul(line, '\n');
		if ((size_t)(eol - p) == 14 + tlen && !strncmp(p, "Directory for ", 14) &&
		    !strncasecmp(p + 14, target, tlen))
			return imgp_fail(EISDIR, "is a directory, not a file");
		if ((size_t)(eol - p) < 7 || strncmp(p, "1 file ", 7))
			continue;
		for (p += 7; p < eol && (*p == ' ' || (*p >= '0' && *p <= '9')); p++)
			if (*p != ' ' && v < UINT64_MAX / 10)
				v = v * 10 + (uint64_t)(*p - '0');
		if (eol - p == 5 && !strncmp(p, "bytes", 5)) {
			*size = v;
			found = true;
		}
	}
	if (!found)
		return imgp_fail(EIO, "mdir did not print the size of %s", target);
	return 0;
}
