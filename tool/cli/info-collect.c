// SPDX-License-Identifier: MIT
/*
 * imgpatch info: collecting the facts, printing none. A failure is kept
 * with its section (see info.h) and collecting goes on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

/* Upper bounds for files read into memory (the FIT is read piecewise). */
#define SCRIPT_MAX ((size_t)1 << 20)
#define DTB_MAX ((size_t)16 << 20)
#define FSTAB_MAX ((size_t)1 << 20)
#define MMC_MAX 64

static const char *const script_paths[] = { "/boot.scr.uimg", "/boot.scr" };

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

/* The library's reason for rc, kept: the next call overwrites the message. */
static char *reason(int rc)
{
	const char *msg = imgp_errmsg();

	return xstrdup(*msg ? msg : strerror(rc < 0 ? -rc : rc));
}

/* Like reason(), for a failure that makes info exit with status 1. */
static char *problem(struct info *in, int rc)
{
	in->problems++;
	return reason(rc);
}

static int part_read(struct info *in, const struct imgp_part *part,
		     const char *path, size_t max, struct imgp_buf *out)
{
	struct imgp_fs fs;
	int rc;

	rc = imgp_fs_open(&fs, &in->disk.img, part);
	if (rc)
		return rc;
	rc = imgp_fs_read_file(&fs, path, max, out);
	imgp_fs_close(&fs);
	if (rc)
		imgp_buf_free(out);
	return rc;
}

/* Returns 1 when path exists on part, 0 when not, <0 on error. */
static int part_exists(struct info *in, const struct imgp_part *part,
		       const char *path)
{
	struct imgp_fs fs;
	int rc;

	rc = imgp_fs_open(&fs, &in->disk.img, part);
	if (rc)
		return rc;
	rc = imgp_fs_exists(&fs, path);
	imgp_fs_close(&fs);
	return rc;
}

/* A filesystem that does not open (dirty, larger than its partition) is a problem. */
void info_collect_fs(struct info *in)
{
	in->fs_error = xcalloc(in->disk.tab.nparts, sizeof(*in->fs_error));
	for (size_t i = 0; i < in->disk.tab.nparts; i++) {
		const struct imgp_part *part = &in->disk.tab.parts[i];
		struct imgp_fs fs;
		int rc;

		if (part->container || !part->fstype[0])
			continue;
		rc = imgp_fs_open(&fs, &in->disk.img, part);
		if (rc == -ENOTSUP)
			continue;
		if (rc) {
			in->fs_error[i] = problem(in, rc);
			continue;
		}
		imgp_fs_close(&fs);
	}
}

/*
 * The FIT is read piecewise: its structure, then each payload once to
 * verify its hashes, so memory holds one payload at a time, not the file.
 */
void info_collect_fit(struct info *in)
{
	struct info_fit *f = &in->fit;
	struct imgp_fs fs;
	int rc;

	f->part = imgp_disk_find_file(&in->disk, f->path);
	if (!f->part) {
		f->missing = reason(-ENOENT);
		return;
	}
	rc = imgp_fs_open(&fs, &in->disk.img, f->part);
	if (!rc) {
		rc = imgp_fs_load_fit(&fs, f->path, &f->fit);
		imgp_fs_close(&fs);
	}
	if (rc) {
		f->error = problem(in, rc);
		return;
	}
	f->size = f->fit.size;
	f->parsed = true;
	f->hash = xcalloc(f->fit.nimages, sizeof(*f->hash));
	for (size_t i = 0; i < f->fit.nimages; i++) {
		const struct imgp_fit_image *img = &f->fit.images[i];
		struct info_hash *h = &f->hash[i];

		if (!img->hash_algos[0])
			continue;
		rc = imgp_fit_verify(&f->fit, img);
		if (rc == 0) {
			h->state = HASH_OK;
		} else if (rc == -ENOTSUP) {
			/* Not known to be bad: shown, but no reason to fail. */
			h->state = HASH_UNSUPPORTED;
			h->error = reason(rc);
		} else {
			h->state = HASH_BAD;
			h->error = problem(in, rc);
		}
	}
}

/* The first of script_paths on part; NULL when none is there, or on error. */
static const char *script_on(struct info *in, const struct imgp_part *part)
{
	struct info_script *s = &in->script;

	for (size_t i = 0; i < sizeof(script_paths) / sizeof(script_paths[0]); i++) {
		int rc = part_exists(in, part, script_paths[i]);

		if (rc < 0) {
			s->error = problem(in, rc);
			return NULL;
		}
		if (rc > 0)
			return script_paths[i];
	}
	return NULL;
}

void info_collect_script(struct info *in)
{
	struct info_script *s = &in->script;
	struct imgp_buf buf = { 0 };
	int rc;

	if (in->fit.part) {
		s->path = script_on(in, in->fit.part);
		if (s->error)
			return;
		if (s->path)
			s->part = in->fit.part;
	}
	for (size_t i = 0; !s->path &&
	     i < sizeof(script_paths) / sizeof(script_paths[0]); i++) {
		s->part = imgp_disk_find_file(&in->disk, script_paths[i]);
		if (s->part)
			s->path = script_paths[i];
	}
	if (!s->path) {
		s->part = NULL;
		s->missing = xstrdup("no partition has /boot.scr.uimg or /boot.scr");
		return;
	}
	rc = part_read(in, s->part, s->path, SCRIPT_MAX, &buf);
	if (rc) {
		s->error = problem(in, rc);
		return;
	}
	s->size = buf.len;
	rc = imgp_bootscr_parse(&s->scr, buf.data, buf.len);
	imgp_buf_free(&buf);
	s->parse_rc = rc;
	if (rc) {
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", s->part->number,
			      s->part->fstype, s->path);
		s->error = problem(in, rc);
		return;
	}
	s->parsed = true;
	s->loads_override = imgp_bootscr_mentions(&s->scr, OVERRIDE_WORD);
}

void info_collect_override(struct info *in)
{
	struct info_override *o = &in->override;
	int rc;

	o->part = in->fit.part ? in->fit.part : in->script.part;
	if (!o->part) {
		o->part = imgp_disk_find_file(&in->disk, OVERRIDE_PATH);
		if (!o->part) {
			o->missing = reason(-ENOENT);
			return;
		}
		rc = 1;
	} else {
		rc = part_exists(in, o->part, OVERRIDE_PATH);
	}
	if (rc < 0) {
		o->error = problem(in, rc);
		return;
	}
	o->exists = rc > 0;
	if (!o->exists)
		return;
	rc = part_read(in, o->part, OVERRIDE_PATH, DTB_MAX, &o->data);
	if (rc)
		o->error = problem(in, rc);
}

static void collect_mmc(struct info *in, struct info_dt *dt, const void *blob,
			size_t size)
{
	struct imgp_dtb dtb;
	int rc;

	rc = imgp_dtb_load(&dtb, blob, size);
	if (rc) {
		dt->state = DT_ERROR;
		dt->error = problem(in, rc);
		return;
	}
	dt->mmc = xcalloc(MMC_MAX, sizeof(*dt->mmc));
	rc = imgp_dt_list_mmc(&dtb, dt->mmc, MMC_MAX);
	imgp_dtb_free(&dtb);
	if (rc < 0) {
		dt->state = DT_ERROR;
		dt->error = problem(in, rc);
		return;
	}
	dt->nmmc = (size_t)rc;
}

static void collect_fit_dt(struct info *in, struct info_dt *dt, size_t i)
{
	const struct imgp_fit_image *img = &in->fit.fit.images[i];
	const struct info_hash *h = &in->fit.hash[i];
	const uint8_t *data;
	size_t size;
	int rc;

	dt->image = img;
	if (strcmp(img->compression, "none") != 0) {
		dt->state = DT_COMPRESSED;
		return;
	}
	/* Already reported with the image: counting it twice would mislead. */
	if (h->state == HASH_BAD || h->state == HASH_UNSUPPORTED) {
		dt->state = DT_SKIPPED;
		dt->error = xstrdup(h->error);
		return;
	}
	rc = imgp_fit_payload(&in->fit.fit, img, &data, &size);
	if (rc) {
		dt->state = DT_ERROR;
		dt->error = problem(in, rc);
		return;
	}
	collect_mmc(in, dt, data, size);
}

void info_collect_dts(struct info *in)
{
	const struct imgp_fit *fit = &in->fit.fit;
	bool override = in->override.exists && !in->override.error;
	size_t n = 0;

	if (in->fit.parsed)
		for (size_t i = 0; i < fit->nimages; i++)
			n += strcmp(fit->images[i].type, "flat_dt") == 0;
	in->dts = xcalloc(n + override, sizeof(*in->dts));
	if (in->fit.parsed) {
		for (size_t i = 0; i < fit->nimages; i++)
			if (strcmp(fit->images[i].type, "flat_dt") == 0)
				collect_fit_dt(in, &in->dts[in->ndts++], i);
	}
	if (override)
		collect_mmc(in, &in->dts[in->ndts++], in->override.data.data,
			    in->override.data.len);
}

void info_collect_fstab(struct info *in)
{
	struct info_fstab *f = &in->fstab;
	struct imgp_buf buf = { 0 };
	int rc;

	f->part = imgp_disk_find_file(&in->disk, "/etc/fstab");
	if (!f->part) {
		f->missing = reason(-ENOENT);
		return;
	}
	rc = part_read(in, f->part, "/etc/fstab", FSTAB_MAX, &buf);
	if (rc) {
		f->error = problem(in, rc);
		return;
	}
	rc = imgp_fstab_get((const char *)buf.data, buf.len, "/", &f->root);
	imgp_buf_free(&buf);
	if (rc == -ENOENT) {
		/* Legitimate: the root may come from the kernel command line. */
		f->no_root = reason(rc);
	} else if (rc) {
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): /etc/fstab",
			      f->part->number, f->part->fstype);
		f->error = problem(in, rc);
	} else {
		f->have_root = true;
	}
}

void info_free(struct info *in)
{
	for (size_t i = 0; in->fs_error && i < in->disk.tab.nparts; i++)
		free(in->fs_error[i]);
	free(in->fs_error);
	for (size_t i = 0; i < in->ndts; i++) {
		free(in->dts[i].error);
		free(in->dts[i].mmc);
	}
	free(in->dts);
	if (in->fit.hash)
		for (size_t i = 0; i < in->fit.fit.nimages; i++)
			free(in->fit.hash[i].error);
	free(in->fit.hash);
	if (in->fit.parsed)
		imgp_fit_free(&in->fit.fit);
	free(in->fit.missing);
	free(in->fit.error);
	if (in->script.parsed)
		imgp_bootscr_free(&in->script.scr);
	free(in->script.missing);
	free(in->script.error);
	imgp_buf_free(&in->override.data);
	free(in->override.missing);
	free(in->override.error);
	if (in->fstab.have_root)
		imgp_fstab_entry_free(&in->fstab.root);
	free(in->fstab.missing);
	free(in->fstab.error);
	free(in->fstab.no_root);
	imgp_disk_close(&in->disk);
}
