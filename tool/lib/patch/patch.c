// SPDX-License-Identifier: MIT
/*
 * Patch planning and the single commit point. Operations record whole-file
 * replacements in memory; only imgp_patch_commit() writes, after every
 * operation has been validated, so bad input never changes the image.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nettle/sha2.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "text/text.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"
#include "core/epoch.h"
#include "disk/disk.h"


int imgp_patch_new(struct imgp_patch **out, struct imgp_disk *disk)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return imgp_fail(ENOMEM, "out of memory");
	(*out)->disk = disk;
	return 0;
}

void imgp_patch_free(struct imgp_patch *patch)
{
	if (!patch)
		return;
	for (size_t i = 0; i < patch->nchanges; i++)
		imgp_change_free_(&patch->changes[i]);
	free(patch->changes);
	if (patch->have_dtb)
		imgp_dtb_free_(&patch->dtb);
	imgp_dtb_free_(&patch->dtb_source);
	free(patch->dtb_origin);
	free(patch->dtb_file);
	free(patch->fit_path);
	free(patch->tree_why);
	free(patch->tree_override);
	free(patch->tree_name);
	free(patch->fit_image);
	imgp_buf_free(&patch->dtb_notes);
	imgp_buf_free(&patch->dtb_before);
	imgp_dt_plan_free_(patch->dt_plan);
	for (size_t i = 0; i < patch->nfits; i++) {
		imgp_fit_free_(patch->fits[i]);
		free(patch->fits[i]);
	}
	free(patch->fits);
	imgp_survey_free(patch->survey);
	free(patch);
}

void imgp_change_free_(struct imgp_change *c)
{
	free(c->path);
	imgp_buf_free(&c->old);
	imgp_buf_free(&c->new);
	imgp_buf_free(&c->notes);
}

/*
 * The last change at path: one after a DELETE of it makes a new one, and
 * a DELETE drops every change before it at or under its path.
 */
struct imgp_change *imgp_patch_find_(struct imgp_patch *patch,
				    const struct imgp_part *part, const char *path)
{
	for (size_t i = patch->nchanges; i-- > 0;) {
		struct imgp_change *c = &patch->changes[i];

		if (c->part == part && strcmp(c->path, path) == 0)
			return c->kind == IMGP_CHANGE_DELETE ? NULL : c;
	}
	return NULL;
}

/*
 * The survey's filesystem of part: the files a patch reads before the
 * commit are read where the survey opened them, never opened again. One
 * the survey could not open gives the survey's reason; one it did not try
 * (no filesystem imgpatch knows) the reason opening it gives.
 */
int imgp_patch_fs_(struct imgp_patch *patch, const struct imgp_part *part,
		  struct imgp_fs **out)
{
	struct imgp_survey *sv = imgp_patch_survey_(patch);
	size_t i = (size_t)(part - patch->disk->tab.parts);
	struct imgp_fs fs;
	int rc;

	*out = NULL;
	if (!sv)
		return -ENOMEM;
	if (i < patch->disk->tab.nparts && sv->fs_open[i]) {
		*out = &sv->fs[i];
		return 0;
	}
	if (i < patch->disk->tab.nparts && sv->fs_rc[i])
		return imgp_survey_fail_(sv->fs_rc[i], sv->fs_error[i]);
	/* Not tried by the survey (no filesystem imgpatch knows): opening says why. */
	rc = imgp_fs_open_(&fs, &patch->disk->img, part);
	if (!rc) {
		imgp_fs_close_(&fs);
		imgp_survey_fs_(sv, part);
		rc = -ENOTSUP;
	}
	return rc;
}

static int read_from_image(struct imgp_patch *patch,
			   const struct imgp_part *part, const char *path,
			   size_t max, struct imgp_buf *out, bool *existed)
{
	struct imgp_fs *fs;
	int rc;

	rc = imgp_patch_fs_(patch, part, &fs);
	if (rc)
		return rc;
	/*
	 * Read first, look up only when that fails (each is an mtools run on
	 * FAT): missing is no error, but a dangling symbolic link is.
	 */
	rc = imgp_survey_read_file_(fs, path, max, out);
	*existed = rc == 0;
	if (rc == -ENOENT) {
		char *why = strdup(imgp_errmsg());
		int found = imgp_fs_exists_(fs, path);

		if (found == 0)
			imgp_errclear_();
		else if (found > 0)
			imgp_fail(ENOENT, "%s", why ? why : "no such file");
		rc = found == 0 ? 0 : found < 0 ? found : -ENOENT;
		free(why);
	}
	return rc;
}

/* Whether the folder path is there; a file there is refused while planning, named. */
static int dir_in_image(struct imgp_patch *patch, const struct imgp_part *part,
			const char *path, bool *existed)
{
	struct imgp_fs_stat_ st;
	struct imgp_fs *fs;
	int rc;

	*existed = false;
	rc = imgp_patch_fs_(patch, part, &fs);
	if (!rc)
		rc = imgp_fs_stat_(fs, path, &st);
	if (rc == -ENOENT) {
		imgp_errclear_();
		return 0;
	}
	if (rc)
		return rc;
	/* A link is taken as mkdir -p takes it: its target is the folder. */
	if (st.type == IMGP_FS_REG || st.type == IMGP_FS_OTHER)
		return imgp_fail(EEXIST, IMGP_PART_FMT " (%s): %s: exists and is not a folder",
				 part->number, part->fstype, path);
	*existed = true;
	return 0;
}

static int readlink_from_image(struct imgp_patch *patch,
			       const struct imgp_part *part, const char *path,
			       struct imgp_buf *out, bool *existed)
{
	struct imgp_fs *fs;
	int rc;

	rc = imgp_patch_fs_(patch, part, &fs);
	if (rc)
		return rc;
	rc = imgp_fs_exists_(fs, path);
	*existed = false;
	if (rc > 0) {
		rc = imgp_fs_readlink_(fs, path, out);
		*existed = rc == 0;
	}
	return rc < 0 ? rc : 0;
}

int imgp_patch_read_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *path, size_t max, struct imgp_buf *out,
		    bool *existed)
{
	struct imgp_change *c = imgp_patch_find_(patch, part, path);

	out->len = 0;
	*existed = false;
	if (!c && imgp_patch_gone_(patch, part, path))
		return 0;
	if (!c || c->kind == IMGP_CHANGE_ATTR)
		return read_from_image(patch, part, path, max, out, existed);
	*existed = true;
	return imgp_buf_append(out, c->new.data, c->new.len);
}

/* Keeps a FIT the patch loaded: those it hands out live as long as it. */
static int patch_keep_fit(struct imgp_patch *patch, struct imgp_fit *fit,
			  struct imgp_fit **out)
{
	struct imgp_fit **grown = realloc(patch->fits, (patch->nfits + 1) * sizeof(*grown));
	struct imgp_fit *kept = malloc(sizeof(*kept));

	if (grown)
		patch->fits = grown;
	if (!grown || !kept) {
		free(kept);
		imgp_fit_free_(fit);
		return imgp_fail(ENOMEM, "out of memory");
	}
	*kept = *fit;
	patch->fits[patch->nfits++] = kept;
	*out = kept;
	return 0;
}

/*
 * A FIT no step changed is the survey's (read piecewise once), or read
 * piecewise from the survey's filesystem; a FIT an earlier step changed,
 * or one a filesystem cannot map, is read whole.
 */
int imgp_patch_load_fit_(struct imgp_patch *patch, const struct imgp_part *part,
			const char *path, struct imgp_fit **out)
{
	struct imgp_change *c = imgp_patch_find_(patch, part, path);
	struct imgp_survey *sv = imgp_patch_survey_(patch);
	struct imgp_fit fit = { 0 };
	struct imgp_fs *fs;
	int rc;

	*out = NULL;
	if (!sv)
		return -ENOMEM;
	if (c && c->kind == IMGP_CHANGE_ATTR)
		c = NULL;
	if (!c && imgp_patch_gone_(patch, part, path))
		return imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file (deleted by the plan)",
				 part->number, part->fstype, path);
	if (!c && sv->fit.parsed && sv->fit.part == part && !strcmp(sv->fit_path, path)) {
		*out = &sv->fit.fit;
		return 0;
	}
	if (!c) {
		rc = imgp_patch_fs_(patch, part, &fs);
		if (!rc)
			rc = imgp_fit_load_file_(&fit, fs, path);
		return rc ? rc : patch_keep_fit(patch, &fit, out);
	}
	if (c->kind != IMGP_CHANGE_FILE)
		return imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file",
				 part->number, part->fstype, path);
	{
		uint8_t *copy = malloc(c->new.len ? c->new.len : 1);

		if (!copy)
			return imgp_fail(ENOMEM, "out of memory");
		memcpy(copy, c->new.data, c->new.len);
		rc = imgp_fit_parse_(&fit, copy, c->new.len);
	}
	if (rc)
		return imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", part->number,
				     part->fstype, path);
	return patch_keep_fit(patch, &fit, out);
}

static const char *kind_name(const struct imgp_change *c)
{
	switch (c->kind) {
	case IMGP_CHANGE_SYMLINK:
		return "a symbolic link";
	case IMGP_CHANGE_DIR:
		return "a folder";
	case IMGP_CHANGE_ATTR:
		return c->was.type == IMGP_FS_DIR ? "a folder" :
		       c->was.type == IMGP_FS_LNK ? "a symbolic link" : "a file";
	default:
		return "a file";
	}
}

/* What kind a change of only the mode or owner becomes when its content is planned. */
static bool attr_becomes(const struct imgp_change *c, enum imgp_change_kind kind)
{
	return (kind == IMGP_CHANGE_FILE && c->was.type == IMGP_FS_REG) ||
	       (kind == IMGP_CHANGE_DIR && c->was.type == IMGP_FS_DIR) ||
	       (kind == IMGP_CHANGE_SYMLINK && c->was.type == IMGP_FS_LNK);
}

/* What is at the change's path in the image: old and existed. */
static int change_read(struct imgp_patch *patch, struct imgp_change *c)
{
	const struct imgp_part *part = c->part;

	/* Removed by a planned DELETE: a new one is made after it. */
	if (c->kind != IMGP_CHANGE_ATTR && imgp_patch_gone_(patch, part, c->path))
		return 0;
	switch (c->kind) {
	case IMGP_CHANGE_SYMLINK:
		return readlink_from_image(patch, part, c->path, &c->old, &c->existed);
	case IMGP_CHANGE_DIR:
		return dir_in_image(patch, part, c->path, &c->existed);
	case IMGP_CHANGE_FILE:
		return read_from_image(patch, part, c->path, SIZE_MAX, &c->old,
				       &c->existed);
	default:
		c->existed = true;
		return 0;
	}
}

int imgp_patch_append_(struct imgp_patch *patch, enum imgp_change_kind kind,
		      const struct imgp_part *part, const char *path, size_t len,
		      struct imgp_change **out)
{
	struct imgp_change *c, *grown;

	grown = realloc(patch->changes, (patch->nchanges + 1) * sizeof(*grown));
	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	patch->changes = grown;
	c = &patch->changes[patch->nchanges];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->part = part;
	c->path = strndup(path, len);
	if (!c->path)
		return imgp_fail(ENOMEM, "out of memory");
	patch->nchanges++;
	*out = c;
	return 0;
}

int imgp_patch_change_(struct imgp_patch *patch, enum imgp_change_kind kind,
		      const struct imgp_part *part, const char *path,
		      struct imgp_change **out)
{
	struct imgp_change *c = imgp_patch_find_(patch, part, path);
	int rc;

	if (c && c->kind == IMGP_CHANGE_ATTR && kind != IMGP_CHANGE_ATTR &&
	    attr_becomes(c, kind)) {
		/* Its mode or owner planned first: its content now too. */
		c->kind = kind;
		rc = change_read(patch, c);
		*out = c;
		return rc;
	}
	if (c) {
		if (c->kind != kind && kind != IMGP_CHANGE_ATTR)
			return imgp_fail(EINVAL, IMGP_PART_FMT " (%s): %s: planned both as %s and as %s",
					 part->number, part->fstype, path, kind_name(c),
					 kind == IMGP_CHANGE_FILE ? "a file" :
					 kind == IMGP_CHANGE_DIR ? "a folder" : "a symbolic link");
		*out = c;
		return 0;
	}
	rc = imgp_patch_append_(patch, kind, part, path, strlen(path), &c);
	if (!rc)
		rc = change_read(patch, c);
	if (rc)
		return rc;
	*out = c;
	return 0;
}

int imgp_patch_write_(struct imgp_patch *patch, const struct imgp_part *part,
		     const char *path, const void *data, size_t len, bool text,
		     const char *note)
{
	struct imgp_change *c;
	int rc;

	rc = imgp_patch_change_(patch, IMGP_CHANGE_FILE, part, path, &c);
	if (rc)
		return rc;
	c->text = text;
	c->new.len = 0;
	rc = imgp_buf_append(&c->new, data, len);
	while (!rc && note && *note) {
		const char *nl = strchr(note, '\n');
		int n = nl ? (int)(nl - note) : (int)strlen(note);

		rc = imgp_buf_printf(&c->notes, "    %.*s\n", n, note);
		note += n + (nl ? 1 : 0);
	}
	return rc ? imgp_fail(-rc, "out of memory") : 0;
}

void imgp_patch_mode_(struct imgp_patch *patch, const struct imgp_part *part,
		     const char *path, unsigned mode)
{
	(void)imgp_patch_attr_(patch, part, path, (int)(mode & 07777), -1, -1);
}

int imgp_patch_mkdir_(struct imgp_patch *patch, const struct imgp_part *part,
		     const char *path, const char *why)
{
	struct imgp_change *c;
	int rc;

	rc = imgp_patch_change_(patch, IMGP_CHANGE_DIR, part, path, &c);
	if (rc || c->existed || c->notes.len)
		return rc;
	rc = imgp_buf_printf(&c->notes, "    %s\n", why);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_patch_link_(struct imgp_patch *patch, const struct imgp_part *part,
		    const char *path, const char *target)
{
	struct imgp_change *c;
	int rc = imgp_patch_change_(patch, IMGP_CHANGE_SYMLINK, part, path, &c);

	if (rc)
		return rc;
	c->new.len = 0;
	rc = imgp_buf_append(&c->new, target, strlen(target));
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

int imgp_patch_symlink_(struct imgp_patch *patch, const char *part_spec,
		       const char *path, const char *target)
{
	const struct imgp_part *part = imgp_patch_part_(patch, part_spec);

	return part ? imgp_patch_link_(patch, part, path, target) : -ENOENT;
}

static int boot_view_exists(void *ctx, const char *path, bool *there)
{
	struct imgp_patch *patch = ctx;
	struct imgp_buf raw = { 0 };
	int rc;

	*there = false;
	rc = imgp_patch_read_(patch, patch->boot_part, path, IMGP_TEXT_MAX, &raw, there);
	imgp_buf_free(&raw);
	return rc;
}

void imgp_patch_boot_view_(struct imgp_patch *patch, struct imgp_boot_view *view)
{
	view->exists = boot_view_exists;
	view->ctx = patch;
}

int imgp_patch_readlink_(struct imgp_patch *patch, const struct imgp_part *part,
			const char *path, struct imgp_buf *out, bool *exists)
{
	struct imgp_change *c = imgp_patch_find_(patch, part, path);

	out->len = 0;
	*exists = false;
	if (c && c->kind == IMGP_CHANGE_SYMLINK) {
		*exists = true;
		return imgp_buf_append(out, c->new.data, c->new.len) ?
		       imgp_fail(ENOMEM, "out of memory") : 0;
	}
	if (c && (c->kind == IMGP_CHANGE_FILE || c->kind == IMGP_CHANGE_DIR)) {
		*exists = true;
		return -EINVAL;
	}
	if (imgp_patch_gone_(patch, part, path))
		return 0;
	return readlink_from_image(patch, part, path, out, exists);
}

struct imgp_survey *imgp_patch_survey_(struct imgp_patch *patch)
{
	/* The boot path too: which tree it boots says where an edit goes. */
	static const struct imgp_survey_opts opts = { .what = IMGP_SURVEY_BOOT };
	struct imgp_survey *sv = patch->survey;

	if (sv)
		return sv;
	if (imgp_survey_new(&sv, patch->disk, &opts))
		return NULL;
	patch->survey = sv;
	return sv;
}

const struct imgp_survey_script_ *
imgp_patch_surveyed_script_(struct imgp_patch *patch, const struct imgp_part *part)
{
	const struct imgp_survey *sv = imgp_patch_survey_(patch);

	if (!sv || !sv->script.parsed || sv->script.part != part)
		return NULL;
	/* The first of the names the patch finds, and not planned over. */
	for (size_t i = 0; i < imgp_nbootscr_paths_; i++) {
		if (imgp_patch_find_(patch, part, imgp_bootscr_paths_[i]) ||
		    imgp_patch_gone_(patch, part, imgp_bootscr_paths_[i]))
			return NULL;
		if (!strcmp(sv->script.path, imgp_bootscr_paths_[i]))
			return &sv->script;
	}
	return NULL;
}

/*
 * The partition cloud-init's NoCloud datasource reads its seed from
 * (user-data, meta-data, network-config): one labelled cidata or CIDATA
 * (cloud-init's own labels), system-boot (Ubuntu's preinstalled images
 * name it as NoCloud's fs_label), or bootfs holding /meta-data (Raspberry
 * Pi OS from trixie: pi-gen's stage2/04-cloud-init installs the seed
 * there; a bookworm bootfs has none, and no cloud-init to read one).
 */
static const struct imgp_part *nocloud_part(struct imgp_patch *patch)
{
	static const char *const labels[] = { "cidata", "CIDATA", "system-boot" };
	const struct imgp_table *tab = &patch->disk->tab;
	struct imgp_survey *sv = NULL;

	for (size_t i = 0; i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];
		struct imgp_fs *fs;

		for (size_t k = 0; k < sizeof(labels) / sizeof(labels[0]); k++)
			if (!strcmp(p->fslabel, labels[k]))
				return p;
		if (strcmp(p->fslabel, "bootfs"))
			continue;
		sv = sv ? sv : imgp_patch_survey_(patch);
		if (!sv)
			return NULL;
		fs = imgp_survey_fs_(sv, p);
		if (fs && imgp_fs_exists_(fs, "/meta-data") > 0)
			return p;
	}
	imgp_errclear_();
	imgp_fail(ENOENT, "no cloud-init NoCloud seed: no partition labelled cidata, CIDATA or system-boot, and no bootfs with /meta-data (Raspberry Pi OS before trixie has no cloud-init)");
	return NULL;
}

int imgp_patch_refuse_root_(struct imgp_patch *patch, const struct imgp_part *root,
			   const char *path, const char *alternative)
{
	const struct imgp_part *seed = alternative ? NULL : nocloud_part(patch);
	struct imgp_buf alt = { 0 };
	int rc = 0;

	imgp_errclear_();
	if (alternative && *alternative)
		rc = imgp_buf_printf(&alt, "; %s", alternative);
	else if (seed)
		rc = imgp_buf_printf(&alt, "; first-boot settings can go to cloud-init's seed on " IMGP_PART_FMT " (%s%s%s), which the image reads at first boot: the cloud-init-* recipes (imgpatch recipes)",
				     seed->number, seed->fstype, seed->fslabel[0] ? ", " : "",
				     seed->fslabel);
	if (rc)
		return imgp_fail(ENOMEM, "out of memory");
	rc = imgp_fail(EROFS, "%s%s" IMGP_PART_FMT " (%s), the likely root, %s%s",
		       path ? path : "", path ? ": " : "", root->number, root->fstype,
		       imgp_fs_encrypted_(root->fstype) ?
		       "is encrypted: imgpatch opens no LUKS container and writes nothing inside it" :
		       "is a filesystem imgpatch cannot write (it writes FAT and ext2/3/4)",
		       alt.len ? (char *)alt.data : "");
	imgp_buf_free(&alt);
	return rc;
}

const struct imgp_part *imgp_patch_part_(struct imgp_patch *patch,
					const char *spec)
{
	const struct imgp_survey *sv;
	bool boot = strcmp(spec, "boot") == 0;

	if (!strcmp(spec, "nocloud"))
		return nocloud_part(patch);
	if (!boot && strcmp(spec, "root") != 0)
		return imgp_table_find_(&patch->disk->tab, spec);
	if (boot && patch->boot_part)
		return patch->boot_part;
	sv = imgp_patch_survey_(patch);
	if (!sv)
		return NULL;
	if (boot && !sv->boot)
		imgp_survey_fail_(sv->boot_rc, sv->boot_error);
	else if (!boot && !sv->root && sv->root_unread)
		imgp_patch_refuse_root_(patch, sv->root_unread, NULL, NULL);
	else if (!boot && !sv->root)
		imgp_survey_fail_(sv->root_rc, sv->root_error);
	return boot ? sv->boot : sv->root;
}

/* Whether the change makes or rewrites what is at its path. */
static bool content_pending(const struct imgp_change *c)
{
	switch (c->kind) {
	case IMGP_CHANGE_DIR:
		return !c->existed;
	case IMGP_CHANGE_ATTR:
		return false;
	case IMGP_CHANGE_DELETE:
		return true;
	default:
		return !c->existed || c->old.len != c->new.len ||
		       memcmp(c->old.data, c->new.data, c->new.len) != 0;
	}
}

static bool change_pending(const struct imgp_change *c)
{
	return content_pending(c) || imgp_change_attr_pending_(c);
}

size_t imgp_patch_pending(const struct imgp_patch *patch)
{
	size_t n = 0;

	for (size_t i = 0; i < patch->nchanges; i++)
		n += change_pending(&patch->changes[i]);
	return n;
}

/* "new file, N bytes, sha256 X" or "A -> B bytes"; a secret's sizes only. */
static int describe_file(const struct imgp_change *c, struct imgp_buf *out)
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	int rc;

	if (c->existed)
		return imgp_buf_printf(out, "%zu -> %zu bytes%s", c->old.len, c->new.len,
				       c->secret ? " (holds a secret: not shown)" : "");
	if (c->secret)
		return imgp_buf_printf(out, "new file, %zu bytes (holds a secret: not shown)",
				       c->new.len);
	sha256_init(&ctx);
	sha256_update(&ctx, c->new.len, c->new.data);
	sha256_digest(&ctx, sizeof(digest), digest);
	rc = imgp_buf_printf(out, "new file, %zu bytes, sha256 ", c->new.len);
	for (size_t i = 0; !rc && i < sizeof(digest); i++)
		rc = imgp_buf_printf(out, "%02x", digest[i]);
	return rc;
}

/* What the change makes: "new folder", "symbolic link -> T (was -> U)"... */
static int describe_what(const struct imgp_change *c, struct imgp_buf *out)
{
	switch (c->kind) {
	case IMGP_CHANGE_DIR:
		return imgp_buf_printf(out, "new folder");
	case IMGP_CHANGE_SYMLINK:
		if (c->existed)
			return imgp_buf_printf(out, "symbolic link -> %s (was -> %s)",
					       (char *)c->new.data, (char *)c->old.data);
		return imgp_buf_printf(out, "new symbolic link -> %s",
				       (char *)c->new.data);
	default:
		return describe_file(c, out);
	}
}

static int describe_change(const struct imgp_change *c, struct imgp_buf *out)
{
	char a[1200], b[1200];
	size_t at;
	int rc;

	rc = imgp_buf_printf(out, IMGP_PART_FMT " (%s) %s: ", c->part->number,
			     c->part->fstype, c->path);
	if (rc)
		return rc;
	if (!change_pending(c))
		return imgp_buf_printf(out, "unchanged (already applied)\n");
	at = out->len;
	if (content_pending(c) && c->kind != IMGP_CHANGE_DELETE)
		rc = describe_what(c, out);
	if (!rc)
		rc = imgp_change_describe_attr_(c, out);
	/* Only the mode or owner: the line starts with them, not their comma. */
	if (!rc && out->len >= at + 2 && !memcmp(out->data + at, ", ", 2)) {
		memmove(out->data + at, out->data + at + 2, out->len - at - 2);
		out->len -= 2;
	}
	if (!rc)
		rc = imgp_buf_printf(out, "\n");
	if (!rc)
		rc = imgp_buf_append(out, c->notes.data, c->notes.len);
	if (rc || !c->text || c->secret || c->kind != IMGP_CHANGE_FILE ||
	    !content_pending(c))
		return rc;
	/* Text files: a unified diff, as "diff -u a/... b/..." would print. */
	snprintf(a, sizeof(a), "a/" IMGP_PART_FMT "%s", c->part->number, c->path);
	snprintf(b, sizeof(b), "b/" IMGP_PART_FMT "%s", c->part->number, c->path);
	return imgp_diff_unified_(c->existed ? (char *)c->old.data : "",
				 c->old.len, (char *)c->new.data, c->new.len, a,
				 b, out);
}

int imgp_patch_describe(const struct imgp_patch *patch, struct imgp_buf *out)
{
	int64_t epoch;
	/* Refused before the plan is shown, not when the commit gets to it. */
	int rc = imgp_source_date_epoch_(&epoch);

	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < patch->nchanges; i++)
		rc = describe_change(&patch->changes[i], out);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/* Plans every pending change of one partition into the write set. */
static int capture_partition(struct imgp_patch *patch, struct imgp_image *img,
			     const struct imgp_part *part, struct imgp_writeset *ws)
{
	struct imgp_survey *sv = patch->survey;
	size_t k = (size_t)(part - patch->disk->tab.parts);
	struct imgp_fs fs;
	int rc;

	/* What the survey read of the partition (a FAT's listing) is not read again. */
	rc = imgp_fs_open_capture_(&fs, sv && k < patch->disk->tab.nparts && sv->fs_open[k] ?
				  &sv->fs[k] : NULL, img, part, ws);
	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < patch->nchanges; i++) {
		struct imgp_change *c = &patch->changes[i];

		if (c->part != part || !change_pending(c))
			continue;
		/* In plan order: a removal before what is made again at its path. */
		if (!content_pending(c) || c->kind == IMGP_CHANGE_ATTR)
			rc = 0;
		else if (c->kind == IMGP_CHANGE_DELETE)
			rc = imgp_fs_remove_(&fs, c->path);
		else if (c->kind == IMGP_CHANGE_SYMLINK)
			rc = imgp_fs_symlink_(&fs, c->path, (char *)c->new.data);
		else if (c->kind == IMGP_CHANGE_DIR)
			rc = imgp_fs_mkdir_(&fs, c->path);
		else
			rc = imgp_fs_write_file_(&fs, c->path, c->new.data, c->new.len);
		if (!rc && c->set_mode)
			rc = imgp_fs_set_mode_(&fs, c->path, c->mode);
		if (!rc && c->set_owner)
			rc = imgp_fs_set_owner_(&fs, c->path, c->uid, c->gid);
	}
	if (!rc)
		rc = imgp_fs_finish_(&fs);
	imgp_fs_close_(&fs);
	return rc;
}

/* Plans the pending changes of every partition they touch into the write set. */
static int capture_changes(struct imgp_patch *patch, struct imgp_image *img,
			   struct imgp_writeset *ws)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < patch->disk->tab.nparts; i++) {
		const struct imgp_part *part = &patch->disk->tab.parts[i];
		bool touched = false;

		for (size_t k = 0; k < patch->nchanges; k++)
			touched |= patch->changes[k].part == part &&
				   change_pending(&patch->changes[k]);
		if (touched)
			rc = capture_partition(patch, img, part, ws);
	}
	return rc;
}

int imgp_patch_check_(struct imgp_patch *patch)
{
	struct imgp_writeset *ws = NULL;
	int rc;

	/* The planned-on image, read only: the captured writes are dropped. */
	rc = imgp_writeset_new_(&ws, &patch->disk->img);
	if (!rc)
		rc = capture_changes(patch, &patch->disk->img, ws);
	imgp_writeset_free_(ws);
	return rc;
}

/* Keeps only ranges that really change the image. */
static int drop_unchanged(const struct imgp_image *img, struct imgp_range *r,
			  size_t *n)
{
	size_t kept = 0;
	uint8_t *cur = NULL;
	int rc = 0;

	for (size_t i = 0; i < *n; i++) {
		uint8_t *grown = realloc(cur, r[i].len);

		if (!grown) {
			rc = imgp_fail(ENOMEM, "out of memory");
			break;
		}
		cur = grown;
		rc = imgp_image_read_(img, r[i].off, cur, r[i].len);
		if (rc)
			break;
		if (memcmp(cur, r[i].data, r[i].len) == 0) {
			free(r[i].data);
			continue;
		}
		r[kept++] = r[i];
	}
	if (rc)
		for (size_t i = kept; i < *n; i++)
			r[kept++] = r[i];
	*n = kept;
	free(cur);
	return rc;
}

int imgp_patch_commit(struct imgp_patch *patch, const char *path,
		      const char *journal)
{
	struct imgp_journal *jnl = NULL;
	struct imgp_writeset *ws = NULL;
	struct imgp_range *ranges = NULL;
	struct imgp_image img;
	size_t nranges = 0;
	int rc;

	rc = imgp_image_open_(&img, path, true);
	if (rc)
		return rc;
	img.ctx = patch->disk->img.ctx;
	if (img.size != patch->disk->img.size) {
		imgp_image_close_(&img);
		return imgp_fail(EINVAL, "%s: size differs from the planned image", path);
	}
	/* The planned-on file filled on demand (a block-wise .xz) is written through its filler. */
	if (imgp_image_same_file_(&img, &patch->disk->img))
		imgp_image_inherit_fill_(&img, &patch->disk->img);
	/* 1. Every write is computed first, into memory. */
	rc = imgp_writeset_new_(&ws, &img);
	if (!rc)
		rc = capture_changes(patch, &img, ws);
	if (!rc)
		rc = imgp_writeset_ranges_(ws, &ranges, &nranges);
	if (!rc)
		rc = drop_unchanged(&img, ranges, &nranges);
	/* 2. The old bytes are saved and synced before the image is touched. */
	if (!rc && journal && nranges)
		rc = imgp_journal_begin_(journal, &img, ranges, nranges, &jnl);
	/* 3. The image is written and synced, 4. the journal marked done. */
	for (size_t i = 0; !rc && i < nranges; i++) {
		rc = imgp_image_write_(&img, ranges[i].off, ranges[i].data, ranges[i].len);
		if (!rc)
			imgp_fault_point_();
	}
	/* What was read of the planned-on file before (a FAT's listing) is old now. */
	if (nranges && imgp_image_same_file_(&img, &patch->disk->img))
		patch->disk->img.writes++;
	if (!rc)
		rc = imgp_image_sync_(&img);
	if (!rc && jnl) {
		rc = imgp_journal_done_(jnl);
		jnl = NULL;
	}
	if (rc && jnl)
		imgp_fail_ctx(rc, "the image may be half-written: 'imgpatch undo' restores it from %s",
			      journal);
	imgp_journal_abandon_(jnl);
	imgp_ranges_free_(ranges, nranges);
	imgp_writeset_free_(ws);
	imgp_image_close_(&img);
	return rc;
}
