// SPDX-License-Identifier: MIT
/*
 * Where a FAT file's bytes are, for reading it piecewise (a FIT's one
 * tree) and for a commit's copy: its clusters from mshowfat, its size from
 * its folder's entry (fat-dirent.c) when the cached listing names it, so
 * that one mshowfat run maps the file and every folder; else from mdir.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fs-fat-internal.h"
#include "core/endian.h"

static int fat_mdir_size(struct imgp_fs *fs, const char *target, uint64_t *size)
{
	struct fat_priv *priv = fs->priv;
	const char *argv[] = { "mdir", "-a", "-i", priv->drive, target, NULL };
	struct imgp_buf o = { 0 };
	int rc;

	rc = imgp_fat_run_(fs, argv, imgp_fat_mtools_env_, &o);
	if (rc) {
		bool missing = strstr(imgp_errmsg(), "not found") != NULL;

		imgp_buf_free(&o);
		return missing ? imgp_fail(ENOENT, "no such file") : rc;
	}
	rc = imgp_buf_append(&o, "", 1);
	if (!rc)
		rc = imgp_fat_parse_size_((const char *)o.data, target, size);
	imgp_buf_free(&o);
	return rc;
}

/*
 * One mshowfat run on drive for names, in groups: each[i] gets the clusters
 * of names[i]. -EPROTO (no message) when a name's line is not found.
 */
static int fat_chains_each(struct imgp_fs *fs, const char *drive, char **names,
			   size_t n, struct imgp_fat_ranges *each)
{
	struct fat_priv *priv = fs->priv;
	int rc = 0;

	for (size_t g = 0; !rc && g < n; g += FAT_DIRS_PER_RUN) {
		size_t m = n - g < FAT_DIRS_PER_RUN ? n - g : FAT_DIRS_PER_RUN, k = 0;
		const char **argv = calloc(m + 4, sizeof(*argv));
		struct imgp_buf o = { 0 };
		char *line, *save = NULL;

		if (!argv)
			return imgp_fail(ENOMEM, "out of memory");
		argv[0] = "mshowfat";
		argv[1] = "-i";
		argv[2] = drive;
		for (size_t i = 0; i < m; i++)
			argv[3 + i] = names[g + i];
		rc = imgp_fat_run_(fs, argv, imgp_fat_mtools_env_, &o);
		free(argv);
		if (!rc)
			rc = imgp_buf_append(&o, "", 1);
		/* A line per name, in order, starting with the name as given. */
		for (line = rc ? NULL : strtok_r((char *)o.data, "\n", &save); line && !rc;
		     line = strtok_r(NULL, "\n", &save)) {
			size_t len = k < m ? strlen(names[g + k]) : 0;

			if (k < m && !strncmp(line, names[g + k], len) && line[len] == ' ')
				rc = imgp_fat_parse_chain_(&priv->geom, line, &each[g + k++]);
		}
		imgp_buf_free(&o);
		if (!rc && k < m)
			rc = -EPROTO;
	}
	return rc;
}

/* The bytes of the folder dir (an mtools name) whose clusters are chain. */
static int fat_dir_bytes(struct imgp_fs *fs, const char *dir,
			 const struct imgp_fat_ranges *chain, struct imgp_buf *out)
{
	struct fat_priv *priv = fs->priv;
	uint8_t bs[FAT_SECTOR];
	int rc = 0;

	/* FAT12/16 keep the root folder in a fixed area before the data. */
	if (!strcmp(dir, "::/") && !chain->n) {
		uint64_t bps, len;

		rc = imgp_part_read_(fs->img, fs->part, 0, bs, sizeof(bs));
		bps = get_le16(bs + 11);
		len = (uint64_t)get_le16(bs + 17) * 32;
		if (!rc && (!len || (len + bps - 1) / bps * bps > priv->geom.meta_end))
			return 1;
		rc = rc ? rc : imgp_buf_reserve_(out, len);
		if (!rc)
			rc = imgp_part_read_(fs->img, fs->part,
					    priv->geom.meta_end - (len + bps - 1) / bps * bps,
					    out->data, len);
		if (!rc)
			out->len = len;
		return rc;
	}
	for (size_t i = 0; !rc && i < chain->n; i++) {
		if (out->len + chain->r[i].len > FAT_DIR_MAX)
			return 1;
		rc = imgp_buf_reserve_(out, chain->r[i].len);
		if (!rc)
			rc = imgp_part_read_(fs->img, fs->part, chain->r[i].file_off,
					    out->data + out->len, chain->r[i].len);
		if (!rc)
			out->len += chain->r[i].len;
	}
	return rc;
}

/*
 * The clusters and size of the file target without an mdir run of its own:
 * the listing says it is a file, one mshowfat run gives its clusters and
 * every folder's (kept with the listing, for a commit's copy), and its
 * folder's entry on its first cluster gives the size. 0, 1 when this way
 * cannot tell (mdir is asked then), or -errno.
 */
static int fat_map_listed(struct imgp_fs *fs, const char *target,
			  struct imgp_fat_ranges *chain, uint64_t *size)
{
	struct fat_priv *priv = fs->priv;
	struct imgp_fat_ranges *each = NULL;
	struct imgp_buf dir = { 0 };
	char **dirs = NULL, **names = NULL, parent[4200], *slash;
	size_t ndirs = 0, p;
	const char *text;
	uint32_t cluster;
	int rc;

	if (priv->copy_fd >= 0)
		return 1;
	rc = imgp_fat_list_(fs, &text);
	if (!rc)
		rc = imgp_fat_listing_find_(text, target);
	if (rc == 0)
		return imgp_fail(ENOENT, "no such file");
	if (rc == 2)
		return imgp_fail(EISDIR, "is a directory, not a file");
	if (rc != 1)
		return rc == -ENOENT ? 1 : rc;
	/* Its folder: "::/" for "::/image.fit", "::/sub" for "::/sub/x". */
	snprintf(parent, sizeof(parent), "%s", target);
	slash = strrchr(parent, '/');
	if (slash == parent + 2)
		slash[1] = '\0';
	else
		*slash = '\0';
	rc = imgp_fat_listing_dirs_(text, &dirs, &ndirs);
	for (p = 0; !rc && p < ndirs && strcasecmp(dirs[p], parent); p++)
		;
	if (!rc && p == ndirs)
		rc = 1;
	if (!rc) {
		names = calloc(ndirs + 1, sizeof(*names));
		each = calloc(ndirs + 1, sizeof(*each));
		if (!names || !each)
			rc = imgp_fail(ENOMEM, "out of memory");
	}
	if (!rc) {
		names[0] = (char *)target;
		memcpy(names + 1, dirs, ndirs * sizeof(*names));
		rc = fat_chains_each(fs, priv->drive, names, ndirs + 1, each);
		if (rc == -EPROTO)
			rc = 1;
	}
	if (!rc && !each[0].n)
		rc = 1;         /* an empty file: no cluster to find it by */
	if (!rc)
		rc = fat_dir_bytes(fs, parent, &each[1 + p], &dir);
	if (!rc) {
		cluster = (uint32_t)((each[0].r[0].file_off - priv->geom.meta_end) /
				     priv->geom.cluster_bytes + 2);
		rc = imgp_fat_dirent_size_(dir.data, dir.len, cluster,
					  priv->geom.nclusters > FAT16_MAX_CLUSTERS, size);
		if (rc == -EISDIR)
			rc = imgp_fail(EISDIR, "is a directory, not a file");
		else if (rc)
			rc = 1;
	}
	/* Kept while the listing holds (its cache key): the same folders. */
	if (!rc && priv->listing.text == text && priv->listing.ino &&
	    !priv->listing.have_dir_chains) {
		for (size_t i = 1; !rc && i <= ndirs; i++)
			for (size_t j = 0; !rc && j < each[i].n; j++)
				rc = imgp_fat_ranges_add_(&priv->listing.dir_chains,
							 each[i].r[j].file_off, each[i].r[j].len);
		priv->listing.have_dir_chains = !rc;
	}
	if (!rc) {
		*chain = each[0];
		each[0].r = NULL;
	}
	for (size_t i = 0; each && i <= ndirs; i++)
		free(each[i].r);
	free(each);
	free(names);
	imgp_fs_list_free_(dirs, ndirs);
	imgp_buf_free(&dir);
	return rc;
}

int imgp_fat_map_file_(struct imgp_fs *fs, const char *path,
		      struct imgp_file_map *out)
{
	struct fat_priv *priv = fs->priv;
	struct imgp_fat_ranges chain = { 0 };
	char target[4200], *names[1] = { target };
	uint64_t off = 0;
	int rc;

	rc = imgp_fat_refuse_damage_(fs, path);
	if (!rc)
		rc = imgp_fat_target_(path, target, sizeof(target));
	if (!rc)
		rc = fat_map_listed(fs, target, &chain, &out->size);
	if (rc == 1) {
		rc = fat_mdir_size(fs, target, &out->size);
		if (!rc)
			rc = imgp_fat_chains_(fs, priv->drive, names, 1, &chain);
	}
	/* Extents in file order, cut at the file's end. */
	for (size_t i = 0; !rc && i < chain.n && off < out->size; i++) {
		uint64_t len = chain.r[i].len;

		if (len > out->size - off)
			len = out->size - off;
		chain.r[i].img_off = fs->part->start + chain.r[i].file_off;
		chain.r[i].file_off = off;
		chain.r[i].len = len;
		off += len;
		out->n = i + 1;
	}
	if (!rc && off < out->size)
		rc = imgp_fail(EIO, "its cluster chain holds %llu of its %llu bytes (FAT is corrupt: run fsck.fat)",
			       (unsigned long long)off, (unsigned long long)out->size);
	if (rc) {
		free(chain.r);
		out->n = 0;
		return rc;
	}
	out->ext = chain.r;
	return 0;
}
