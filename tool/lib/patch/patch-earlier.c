// SPDX-License-Identifier: MIT
/*
 * Whether a property absent from a tree edited in place was deleted by an
 * earlier run or was never there. The tree file alone cannot say: both
 * look the same. Two witnesses can.
 *
 * The package that shipped the tree: dpkg keeps the MD5 of every file it
 * installed (/var/lib/dpkg/info/PKG.md5sums on the root filesystem). A
 * tree file that still matches what a package shipped under its name was
 * never edited, so the property was never there; a copy of the shipped
 * tree still as shipped (Raspberry Pi OS and Debian copy
 * /usr/lib/linux-image-VERSION's trees to the boot partition) says whether
 * it had the property.
 *
 * Where no package lists the tree, the undo journal of the last run in
 * place: that run wrote the tree's bytes (where the filesystem maps its
 * files; else its partition's), so the tree is its work.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/md5.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "patch/patch.h"
#include "disk/disk.h"

#define DPKG_INFO "/var/lib/dpkg/info"
/* The biggest md5sums (a kernel's, every module) are under 1 MiB. */
#define MD5SUMS_MAX ((size_t)8 << 20)
/* Packages are a few thousand; more files than this is no dpkg database. */
#define MD5SUMS_FILES_MAX 50000
/* Kernel flavours shipping a tree of that name; a few, never many. */
#define SHIPPED_MAX 16

struct shipped {
	uint8_t md5[MD5_DIGEST_SIZE];    /* of the tree file as it is now */
	const char *name;                /* its base name */
	bool as_shipped;                 /* a package lists it with that MD5 */
	size_t n;
	char *paths[SHIPPED_MAX];        /* listed under its name, other MD5 */
	uint8_t sums[SHIPPED_MAX][MD5_DIGEST_SIZE];
};

static void md5_of(const void *data, size_t len, uint8_t out[MD5_DIGEST_SIZE])
{
	struct md5_ctx ctx;

	md5_init(&ctx);
	md5_update(&ctx, len, data);
	md5_digest(&ctx, MD5_DIGEST_SIZE, out);
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "HEX32  path" into sum and the path's start; false for any other line. */
static bool md5sums_line(const char *line, size_t len, uint8_t sum[MD5_DIGEST_SIZE],
			 const char **path, size_t *plen)
{
	if (len < 2 * MD5_DIGEST_SIZE + 3 || line[32] != ' ' || line[33] != ' ')
		return false;
	for (size_t i = 0; i < MD5_DIGEST_SIZE; i++) {
		int hi = hex_nibble(line[2 * i]), lo = hex_nibble(line[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		sum[i] = (uint8_t)(hi << 4 | lo);
	}
	*path = line + 34;
	*plen = len - 34;
	return true;
}

/* The entries of one md5sums file whose base name is s->name. */
static int md5sums_scan(struct shipped *s, const char *text, size_t len)
{
	size_t nlen = strlen(s->name);

	for (const char *line = text, *end = text + len; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line)), *path;
		size_t llen = (size_t)((nl ? nl : end) - line), plen;
		uint8_t sum[MD5_DIGEST_SIZE];

		if (md5sums_line(line, llen, sum, &path, &plen) && plen > nlen &&
		    path[plen - nlen - 1] == '/' &&
		    memcmp(path + plen - nlen, s->name, nlen) == 0) {
			if (memcmp(sum, s->md5, sizeof(sum)) == 0) {
				s->as_shipped = true;
			} else if (s->n < SHIPPED_MAX) {
				if (asprintf(&s->paths[s->n], "/%.*s", (int)plen, path) < 0)
					return imgp_fail(ENOMEM, "out of memory");
				memcpy(s->sums[s->n++], sum, sizeof(sum));
			}
		}
		line += llen + 1;
	}
	return 0;
}

/* What every package's md5sums says of files named like the tree. */
static int dpkg_lookup(struct imgp_patch *patch, const struct imgp_part *root,
		       struct shipped *s)
{
	struct imgp_buf text = { 0 };
	struct imgp_fs *fs;
	char **names = NULL;
	size_t n = 0;
	int rc;

	rc = imgp_patch_fs_(patch, root, &fs);
	if (!rc)
		rc = imgp_fs_list_(fs, DPKG_INFO, &names, &n);
	/* No dpkg database (or none imgpatch can read): it knows nothing. */
	if (rc && rc != -ENOMEM) {
		imgp_errclear_();
		return 0;
	}
	for (size_t i = 0; !rc && i < n && i < MD5SUMS_FILES_MAX; i++) {
		size_t len = strlen(names[i]);
		char path[600];

		if (len < 9 || strcmp(names[i] + len - 8, ".md5sums") ||
		    snprintf(path, sizeof(path), DPKG_INFO "/%s", names[i]) >= (int)sizeof(path))
			continue;
		text.len = 0;
		rc = imgp_fs_read_file_(fs, path, MD5SUMS_MAX, &text);
		if (!rc)
			rc = md5sums_scan(s, (const char *)text.data, text.len);
		/* One unreadable list only loses what it would have said. */
		if (rc && rc != -ENOMEM) {
			imgp_errclear_();
			rc = 0;
		}
	}
	imgp_buf_free(&text);
	imgp_fs_list_free_(names, n);
	return rc;
}

/* Whether blob (a .dtb, or the FIT the tree is one image of) has path:prop. */
static bool tree_has(const struct imgp_patch *patch, struct imgp_buf *blob,
		     const char *path, const char *prop)
{
	struct imgp_dtb dtb = { 0 };
	struct imgp_fit fit = { 0 };
	const struct imgp_fit_image *img;
	const uint8_t *payload = blob->data;
	size_t size = blob->len, len;
	bool has = false;
	uint8_t *whole;

	if (patch->fit_path) {
		whole = imgp_buf_steal_(blob, &len);
		if (!whole || imgp_fit_parse_(&fit, whole, len) ||
		    imgp_fit_find_fdt_(&fit, patch->fit_image, &img) ||
		    imgp_fit_payload_(&fit, img, &payload, &size))
			payload = NULL;
	}
	if (payload && imgp_dtb_load_(&dtb, payload, size) == 0) {
		has = imgp_dt_has_prop_(&dtb, path, prop);
		imgp_dtb_free_(&dtb);
	}
	if (patch->fit_path)
		imgp_fit_free_(&fit);
	imgp_errclear_();
	return has;
}

/*
 * 1 when a listed copy still as shipped has the property, 0 when those
 * copies lack it, 2 when no copy is as shipped (the tree's own file was
 * edited since, as Armbian's under /boot/dtb-VERSION).
 */
static int shipped_copies(struct imgp_patch *patch, const struct imgp_part *root,
			  const struct shipped *s, const char *path, const char *prop)
{
	struct imgp_buf raw = { 0 };
	bool pristine = false, existed;
	uint8_t sum[MD5_DIGEST_SIZE];
	int rc = 0;

	for (size_t i = 0; !rc && i < s->n; i++) {
		raw.len = 0;
		if (imgp_patch_read_(patch, root, s->paths[i],
				    patch->fit_path ? IMGP_FIT_MAX : IMGP_DTB_MAX,
				    &raw, &existed) || !existed) {
			imgp_errclear_();
			continue;
		}
		md5_of(raw.data, raw.len, sum);
		if (memcmp(sum, s->sums[i], sizeof(sum)))
			continue;
		pristine = true;
		if (tree_has(patch, &raw, path, prop))
			rc = 1;
	}
	imgp_buf_free(&raw);
	return rc ? rc : pristine ? 0 : 2;
}

/* 1 when the last run in place on the image wrote file's bytes, else 0. */
static int journal_wrote(struct imgp_patch *patch, const char *file)
{
	const struct imgp_part *part = patch->boot_part;
	struct imgp_extent whole = { 0, part->start, part->size };
	struct imgp_file_map map = { 0 };
	char *journal = imgp_journal_path(imgp_disk_path_(patch->disk));
	struct imgp_fs *fs;
	int rc;

	if (!journal)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_patch_fs_(patch, part, &fs);
	if (!rc)
		rc = imgp_fs_map_file_(fs, file, &map);
	if (rc == -ENOMEM) {
		free(journal);
		return rc;
	}
	imgp_errclear_();
	rc = rc ? imgp_journal_touched_(journal, imgp_disk_image_(patch->disk), &whole, 1) :
		  imgp_journal_touched_(journal, imgp_disk_image_(patch->disk), map.ext, map.n);
	imgp_file_map_free_(&map);
	free(journal);
	return rc;
}

int imgp_patch_dt_deleted_before_(struct imgp_patch *patch, const char *path,
				 const char *prop)
{
	const char *file = patch->fit_path ? patch->fit_path : patch->dtb_file;
	const struct imgp_part *root;
	struct shipped s = { .name = NULL };
	struct imgp_buf raw = { 0 };
	bool existed = false;
	int rc;

	if (!file || !patch->boot_part)
		return 0;
	root = imgp_patch_part_(patch, "root");
	if (!root)
		imgp_errclear_();
	s.name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	rc = imgp_patch_read_(patch, patch->boot_part, file,
			     patch->fit_path ? IMGP_FIT_MAX : IMGP_DTB_MAX, &raw,
			     &existed);
	if (!rc && existed && root) {
		md5_of(raw.data, raw.len, s.md5);
		rc = dpkg_lookup(patch, root, &s);
	}
	imgp_buf_free(&raw);
	/* Listed as it is: never edited. Listed otherwise: the copies say. */
	if (!rc && existed && !s.as_shipped)
		rc = s.n ? shipped_copies(patch, root, &s, path, prop) != 0 :
			   journal_wrote(patch, file);
	for (size_t i = 0; i < s.n; i++)
		free(s.paths[i]);
	if (rc < 0 && rc != -ENOMEM) {
		imgp_errclear_();
		rc = 0;
	}
	return rc;
}
