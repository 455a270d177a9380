// SPDX-License-Identifier: MIT
/*
 * Patch planning and the single commit point. Operations record whole-file
 * replacements in memory; only imgp_patch_commit() writes, after every
 * operation has been validated, so bad input never changes the image.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"

/* Bounds on what a patch reads into memory. */
#define FIT_MAX ((size_t)1 << 30)
#define TEXT_MAX ((size_t)1 << 20)
#define DTB_MAX ((size_t)64 << 20)
#define BOOTSCR_MAX ((size_t)1 << 20)

void imgp_patch_init(struct imgp_patch *patch, struct imgp_disk *disk)
{
	memset(patch, 0, sizeof(*patch));
	patch->disk = disk;
}

void imgp_patch_free(struct imgp_patch *patch)
{
	for (size_t i = 0; i < patch->nchanges; i++) {
		struct imgp_change *c = &patch->changes[i];

		free(c->path);
		imgp_buf_free(&c->old);
		imgp_buf_free(&c->new);
		imgp_buf_free(&c->notes);
	}
	free(patch->changes);
	if (patch->have_dtb)
		imgp_dtb_free(&patch->dtb);
	free(patch->dtb_origin);
	imgp_buf_free(&patch->dtb_notes);
	memset(patch, 0, sizeof(*patch));
}

static struct imgp_change *patch_find(struct imgp_patch *patch,
				      const struct imgp_part *part,
				      const char *path)
{
	for (size_t i = 0; i < patch->nchanges; i++) {
		struct imgp_change *c = &patch->changes[i];

		if (c->part == part && strcmp(c->path, path) == 0)
			return c;
	}
	return NULL;
}

static int read_from_image(struct imgp_patch *patch,
			   const struct imgp_part *part, const char *path,
			   size_t max, struct imgp_buf *out, bool *existed)
{
	struct imgp_fs fs;
	int rc;

	rc = imgp_fs_open(&fs, &patch->disk->img, part, false);
	if (rc)
		return rc;
	rc = imgp_fs_exists(&fs, path);
	*existed = rc > 0;
	if (rc > 0)
		rc = imgp_fs_read_file(&fs, path, max, out);
	imgp_fs_close(&fs);
	return rc < 0 ? rc : 0;
}

int imgp_patch_read(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *path, size_t max, struct imgp_buf *out,
		    bool *existed)
{
	struct imgp_change *c = patch_find(patch, part, path);

	out->len = 0;
	if (!c)
		return read_from_image(patch, part, path, max, out, existed);
	*existed = true;
	return imgp_buf_append(out, c->new.data, c->new.len);
}

int imgp_patch_write(struct imgp_patch *patch, const struct imgp_part *part,
		     const char *path, const void *data, size_t len, bool text,
		     const char *note)
{
	struct imgp_change *c = patch_find(patch, part, path);
	int rc;

	if (!c) {
		struct imgp_change *grown;

		grown = realloc(patch->changes,
				(patch->nchanges + 1) * sizeof(*grown));
		if (!grown)
			return imgp_fail(ENOMEM, "out of memory");
		patch->changes = grown;
		c = &patch->changes[patch->nchanges];
		memset(c, 0, sizeof(*c));
		c->part = part;
		c->path = strdup(path);
		if (!c->path)
			return imgp_fail(ENOMEM, "out of memory");
		patch->nchanges++;
		rc = read_from_image(patch, part, path, SIZE_MAX, &c->old,
				     &c->existed);
		if (rc)
			return rc;
	}
	c->text = text;
	c->new.len = 0;
	rc = imgp_buf_append(&c->new, data, len);
	if (!rc && note)
		rc = imgp_buf_printf(&c->notes, "    %s\n", note);
	return rc ? imgp_fail(-rc, "out of memory") : 0;
}

static bool change_pending(const struct imgp_change *c)
{
	return !c->existed || c->old.len != c->new.len ||
	       memcmp(c->old.data, c->new.data, c->new.len) != 0;
}

size_t imgp_patch_pending(const struct imgp_patch *patch)
{
	size_t n = 0;

	for (size_t i = 0; i < patch->nchanges; i++)
		n += change_pending(&patch->changes[i]);
	return n;
}

int imgp_patch_load_fdt(struct imgp_patch *patch, const char *fit_path,
			const char *spec)
{
	const struct imgp_part *part;
	const struct imgp_fit_image *fimg = NULL;
	struct imgp_fit fit = { 0 };
	struct imgp_buf raw = { 0 };
	const uint8_t *payload;
	size_t size, len;
	uint8_t *data;
	bool existed;
	int rc;

	if (patch->have_dtb)
		return imgp_fail(EINVAL, "a device tree is already loaded");
	part = imgp_disk_find_file(patch->disk, fit_path);
	if (!part)
		return -ENOENT;
	rc = imgp_patch_read(patch, part, fit_path, FIT_MAX, &raw, &existed);
	if (rc)
		goto fail_buf;
	data = imgp_buf_steal(&raw, &len);
	rc = imgp_fit_parse(&fit, data, len);
	if (rc)
		goto fail;
	if (spec) {
		rc = imgp_fit_find_fdt(&fit, spec, &fimg);
	} else {
		struct imgp_buf names = { 0 };
		size_t n = 0;

		for (size_t i = 0; i < fit.nimages; i++) {
			if (strcmp(fit.images[i].type, "flat_dt"))
				continue;
			fimg = &fit.images[i];
			imgp_buf_printf(&names, "%s%d %s", n ? ", " : "",
					fimg->index, fimg->name);
			n++;
		}
		if (n != 1)
			rc = imgp_fail(EINVAL, n ? "the FIT has %zu fdt images: choose one with --fdt (have: %s)"
						 : "the FIT has %zu fdt images",
				       n, names.len ? (char *)names.data : "");
		imgp_buf_free(&names);
	}
	if (!rc)
		rc = imgp_fit_payload(&fit, fimg, &payload, &size);
	if (!rc)
		rc = imgp_dtb_load(&patch->dtb, payload, size);
	if (rc) {
		if (fimg)
			imgp_fail_ctx(rc, "%s", fimg->name);
		goto fail;
	}
	patch->have_dtb = true;
	patch->boot_part = part;
	if (asprintf(&patch->dtb_origin, "%s in " IMGP_PART_FMT " %s",
		     fimg->name, part->number, fit_path) < 0) {
		patch->dtb_origin = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	imgp_fit_free(&fit);
	return rc;
fail:
	imgp_fit_free(&fit);
fail_buf:
	imgp_buf_free(&raw);
	return imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
			     part->fstype, fit_path);
}

int imgp_patch_dt_delete(struct imgp_patch *patch, const char *node,
			 const char *prop)
{
	char path[1024];
	int off, rc;

	if (!patch->have_dtb)
		return imgp_fail(EINVAL, "no device tree loaded");
	off = imgp_dt_find_node(&patch->dtb, node);
	if (off < 0)
		return imgp_fail_ctx(off, "%s", patch->dtb_origin);
	rc = imgp_dt_node_path(&patch->dtb, off, path, sizeof(path));
	if (rc)
		return rc;
	rc = imgp_dt_delete_prop(&patch->dtb, off, prop);
	if (rc < 0)
		return imgp_fail_ctx(rc, "%s: %s: delete %s", patch->dtb_origin,
				     path, prop);
	rc = imgp_buf_printf(&patch->dtb_notes, "    %s: %s %s\n", path,
			     rc == 1 ? "already without" : "delete", prop);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_patch_write_dtb(struct imgp_patch *patch, const char *path)
{
	const void *blob;
	size_t size;
	struct imgp_change *c;
	char note[512];
	int rc;

	if (!patch->have_dtb)
		return imgp_fail(EINVAL, "no device tree loaded");
	rc = imgp_dtb_finish(&patch->dtb, &blob, &size);
	if (rc)
		return rc;
	snprintf(note, sizeof(note), "from %s", patch->dtb_origin);
	rc = imgp_patch_write(patch, patch->boot_part, path, blob, size, false,
			      note);
	if (rc)
		return rc;
	c = patch_find(patch, patch->boot_part, path);
	rc = imgp_buf_append(&c->notes, patch->dtb_notes.data,
			     patch->dtb_notes.len);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_patch_boot_hook(struct imgp_patch *patch, const char *word)
{
	static const char *const scripts[] = { "/boot.scr.uimg", "/boot.scr" };
	const struct imgp_part *part = patch->boot_part;
	struct imgp_buf raw = { 0 };
	struct imgp_bootscr scr;
	bool existed = false;
	int rc = 0;

	if (!part)
		return imgp_fail(EINVAL, "no boot partition known yet");
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		rc = imgp_patch_read(patch, part, scripts[i], BOOTSCR_MAX, &raw,
				     &existed);
		if (rc || !existed)
			continue;
		rc = imgp_bootscr_parse(&scr, raw.data, raw.len);
		if (rc) {
			imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
				      part->fstype, scripts[i]);
			break;
		}
		rc = imgp_bootscr_mentions(&scr, word);
		if (!rc)
			imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s does not load %s: the board will ignore it",
				  part->number, part->fstype, scripts[i], word);
		imgp_bootscr_free(&scr);
		break;
	}
	if (!rc && !existed)
		imgp_fail(ENOENT, IMGP_PART_FMT " (%s): no boot script (/boot.scr.uimg or /boot.scr) to load %s: the board will ignore it",
			  part->number, part->fstype, word);
	imgp_buf_free(&raw);
	return rc;
}

int imgp_patch_fstab(struct imgp_patch *patch, const char *root,
		     const char *mountpoint, const char *ops)
{
	static const char fstab[] = "/etc/fstab";
	const struct imgp_part *part;
	struct imgp_buf old = { 0 }, new = { 0 };
	struct imgp_fstab_entry before, after;
	char note[1024];
	bool existed;
	int rc;

	part = root ? imgp_table_find(&patch->disk->tab, root)
		    : imgp_disk_find_file(patch->disk, fstab);
	if (!part)
		return -ENOENT;
	rc = imgp_patch_read(patch, part, fstab, TEXT_MAX, &old, &existed);
	if (!rc && !existed)
		rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file",
			       part->number, part->fstype, fstab);
	if (rc)
		goto out;
	rc = imgp_fstab_edit((char *)old.data, old.len, mountpoint, ops, &new);
	if (rc < 0) {
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
			      part->fstype, fstab);
		goto out;
	}
	note[0] = '\0';
	if (imgp_fstab_get((char *)old.data, old.len, mountpoint, &before) == 0) {
		if (imgp_fstab_get((char *)new.data, new.len, mountpoint, &after) == 0) {
			snprintf(note, sizeof(note), "%s: options %s -> %s%s",
				 mountpoint, before.options, after.options,
				 rc ? "" : " (unchanged)");
			imgp_fstab_entry_free(&after);
		}
		imgp_fstab_entry_free(&before);
	}
	rc = imgp_patch_write(patch, part, fstab, new.data, new.len, true,
			      note[0] ? note : NULL);
out:
	imgp_buf_free(&old);
	imgp_buf_free(&new);
	return rc;
}

/* The i-th line of text (without its newline), for the line diff. */
static size_t next_line(const struct imgp_buf *b, size_t *pos, const char **line)
{
	const char *start = (const char *)b->data + *pos;
	const char *nl = memchr(start, '\n', b->len - *pos);
	size_t len = nl ? (size_t)(nl - start) : b->len - *pos;

	*line = start;
	*pos += len + (nl ? 1 : 0);
	return len;
}

/*
 * Edits here never add or remove lines, so a line-by-line comparison is an
 * exact diff; differing line counts fall back to old block / new block.
 */
static int describe_text(const struct imgp_change *c, struct imgp_buf *out)
{
	size_t po = 0, pn = 0;
	size_t nold = 0, nnew = 0;
	int rc = 0;

	for (size_t i = 0; i < c->old.len; i++)
		nold += c->old.data[i] == '\n';
	for (size_t i = 0; i < c->new.len; i++)
		nnew += c->new.data[i] == '\n';
	if (nold == nnew) {
		while (!rc && (po < c->old.len || pn < c->new.len)) {
			const char *lo = "", *ln = "";
			size_t lenold = 0, lennew = 0;

			if (po < c->old.len)
				lenold = next_line(&c->old, &po, &lo);
			if (pn < c->new.len)
				lennew = next_line(&c->new, &pn, &ln);
			if (lenold == lennew && memcmp(lo, ln, lenold) == 0)
				continue;
			rc = imgp_buf_printf(out, "  - %.*s\n  + %.*s\n",
					     (int)lenold, lo, (int)lennew, ln);
		}
		return rc;
	}
	while (!rc && po < c->old.len) {
		const char *l;
		size_t len = next_line(&c->old, &po, &l);

		rc = imgp_buf_printf(out, "  - %.*s\n", (int)len, l);
	}
	while (!rc && pn < c->new.len) {
		const char *l;
		size_t len = next_line(&c->new, &pn, &l);

		rc = imgp_buf_printf(out, "  + %.*s\n", (int)len, l);
	}
	return rc;
}

int imgp_patch_describe(const struct imgp_patch *patch, struct imgp_buf *out)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < patch->nchanges; i++) {
		const struct imgp_change *c = &patch->changes[i];

		rc = imgp_buf_printf(out, IMGP_PART_FMT " (%s) %s: ",
				     c->part->number, c->part->fstype, c->path);
		if (rc)
			break;
		if (!change_pending(c))
			rc = imgp_buf_printf(out, "unchanged (already applied)\n");
		else if (!c->existed)
			rc = imgp_buf_printf(out, "new file, %zu bytes\n", c->new.len);
		else
			rc = imgp_buf_printf(out, "%zu -> %zu bytes\n", c->old.len,
					     c->new.len);
		if (!rc)
			rc = imgp_buf_append(out, c->notes.data, c->notes.len);
		if (!rc && c->text && c->existed && change_pending(c))
			rc = describe_text(c, out);
	}
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_patch_commit(struct imgp_patch *patch, const char *path)
{
	struct imgp_image img;
	int rc;

	rc = imgp_image_open(&img, path, true);
	if (rc)
		return rc;
	if (img.size != patch->disk->img.size) {
		imgp_image_close(&img);
		return imgp_fail(EINVAL, "%s: size differs from the planned image", path);
	}
	for (size_t i = 0; !rc && i < patch->nchanges; i++) {
		struct imgp_change *c = &patch->changes[i];
		struct imgp_fs fs;

		if (!change_pending(c))
			continue;
		rc = imgp_fs_open(&fs, &img, c->part, true);
		if (rc)
			break;
		rc = imgp_fs_write_file(&fs, c->path, c->new.data, c->new.len);
		imgp_fs_close(&fs);
	}
	if (!rc)
		rc = imgp_image_sync(&img);
	imgp_image_close(&img);
	return rc;
}
