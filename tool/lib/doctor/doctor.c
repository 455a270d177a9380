// SPDX-License-Identifier: MIT
/*
 * imgpatch doctor: storage-performance findings of an image, read-only.
 * What every check needs comes from one survey of the image (survey.c:
 * boot and root partitions, the FIT, the boot script and its hook,
 * /etc/fstab); the device trees judged are the effective trees the boot
 * path boots (effective.c). Then each check of the registry below adds
 * its findings.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "doctor/doctor.h"
#include "boot/bootpath.h"
#include "disk/disk.h"

/* At most this many .dtb files of a boot partition are examined. */
#define DOCTOR_DTB_FILES 64

static const struct {
	const char *name;
	int (*run)(struct doctor *d);
} doctor_checks[] = {
	/* mmc first: the boot check rates its finding by the trees' findings. */
	{ "mmc", imgp_doctor_check_mmc_ },
	{ "fstab", imgp_doctor_check_fstab_ },
	{ "boot", imgp_doctor_check_boot_ },
	{ "kernel", imgp_doctor_check_kernel_ },
	{ "rpi", imgp_doctor_check_rpi_ },
};

const char *imgp_severity_name_(enum imgp_severity sev)
{
	return sev == IMGP_SEVERITY_WARNING ? "warning" : "info";
}

int imgp_severity_parse(const char *name, enum imgp_severity *out)
{
	if (strcmp(name, "warning") == 0)
		*out = IMGP_SEVERITY_WARNING;
	else if (strcmp(name, "info") == 0)
		*out = IMGP_SEVERITY_INFO;
	else
		return imgp_fail(EINVAL, "unknown severity '%s' (have: warning, info)",
				 name);
	return 0;
}

int imgp_shell_quote_(struct imgp_buf *out, const char *arg)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";
	int rc;

	if (*arg && strspn(arg, safe) == strlen(arg))
		return imgp_buf_append(out, arg, strlen(arg));
	rc = imgp_buf_append(out, "'", 1);
	for (const char *p = arg; !rc && *p; p++)
		rc = *p == '\'' ? imgp_buf_append(out, "'\\''", 4) :
				  imgp_buf_append(out, p, 1);
	return rc ? rc : imgp_buf_append(out, "'", 1);
}

/* ------------------------------------------------------------ findings */

int imgp_doctor_set_(char **field, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return imgp_fail(ENOMEM, "out of memory");
	/* Names come from the image: nothing in them may drive a terminal. */
	for (unsigned char *p = (unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			*p = '?';
	free(*field);
	*field = s;
	return 0;
}

int imgp_doctor_tree_evidence_(struct imgp_finding *f, const struct doctor_tree *t,
			 const char *node, const char *prop)
{
	int rc;

	f->partition = t->part->number;
	rc = imgp_doctor_set_(&f->file, "%s", t->file);
	if (!rc && t->image)
		rc = imgp_doctor_set_(&f->fdt, "%s", t->image->name);
	if (!rc && node)
		rc = imgp_doctor_set_(&f->node, "%s", node);
	if (!rc && prop)
		rc = imgp_doctor_set_(&f->property, "%s", prop);
	if (!rc && t->eff)
		rc = imgp_doctor_path_evidence_(f, t->eff);
	return rc;
}

int imgp_doctor_path_evidence_(struct imgp_finding *f, const struct imgp_effective *t)
{
	const struct imgp_bootpath *bp = imgp_bootpath_named_(t->boot_path);
	int rc = imgp_doctor_set_(&f->boot_path, "%s", t->boot_path);

	f->tree_in_fit = bp && (bp->flags & IMGP_BOOTPATHF_FIT);

	if (!rc && t->model)
		rc = imgp_doctor_set_(&f->model, "%s", t->model);
	if (!rc)
		rc = imgp_doctor_set_(&f->tree, "%s", t->provenance);
	return rc;
}

int imgp_doctor_tree_patch_(struct doctor *d, struct imgp_finding *f,
		      const struct doctor_tree *t, const char *option,
		      const char *arg)
{
	struct imgp_buf b = { 0 };
	int rc = 0;

	if (!t->image || !d->sv.script.loads_override)
		return 0;
	if (strcmp(d->sv.fit_path, IMGP_FIT_PATH) != 0) {
		rc = imgp_buf_printf(&b, "--fit ");
		if (!rc)
			rc = imgp_shell_quote_(&b, d->sv.fit_path);
		if (!rc)
			rc = imgp_buf_printf(&b, " ");
	}
	if (!rc)
		rc = imgp_buf_printf(&b, "--fdt ");
	if (!rc)
		rc = imgp_shell_quote_(&b, t->image->name);
	if (!rc)
		rc = imgp_buf_printf(&b, " %s ", option);
	if (!rc)
		rc = imgp_shell_quote_(&b, arg);
	if (!rc)
		rc = imgp_doctor_set_(&f->patch_args, "%s", (char *)b.data);
	imgp_buf_free(&b);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

bool imgp_doctor_dt_has_string_(const void *fdt, int node, const char *prop,
			  const char *s)
{
	return fdt_stringlist_search(fdt, node, prop, s) >= 0;
}

static void finding_free(struct imgp_finding *f)
{
	free(f->title);
	free(f->cost);
	free(f->file);
	free(f->fdt);
	free(f->node);
	free(f->property);
	free(f->boot_path);
	free(f->model);
	free(f->tree);
	free(f->recipe_args);
	free(f->patch_args);
	free(f->hint);
}

void imgp_doctor_clear_(struct imgp_doctor *doc)
{
	for (size_t i = 0; i < doc->n; i++)
		finding_free(&doc->findings[i]);
	free(doc->findings);
	free(doc->picked);
	free(doc->root_unread);
	memset(doc, 0, sizeof(*doc));
}

/* --------------------------------------------------------------- reads */

int imgp_doctor_exists_(struct doctor *d, const struct imgp_part *part,
		  const char *path)
{
	struct imgp_fs *fs = imgp_survey_fs_(&d->sv, part);

	return fs ? imgp_fs_exists_(fs, path) : -ENOTSUP;
}

int imgp_doctor_read_(struct doctor *d, const struct imgp_part *part,
		const char *path, size_t max, struct imgp_buf *out)
{
	struct imgp_fs *fs = imgp_survey_fs_(&d->sv, part);
	int rc;

	out->len = 0;
	if (!fs)
		return -ENOTSUP;
	rc = imgp_fs_exists_(fs, path);
	if (rc > 0)
		rc = imgp_survey_read_file_(fs, path, max, out);
	else if (rc == 0)
		return 0;
	/* The filesystem layer's message names the partition and the file. */
	return rc ? rc : 1;
}

int imgp_doctor_list_(struct doctor *d, const struct imgp_part *part,
		const char *dir, char ***names, size_t *n)
{
	struct imgp_fs *fs = imgp_survey_fs_(&d->sv, part);

	*names = NULL;
	*n = 0;
	return fs ? imgp_fs_list_(fs, dir, names, n) : -ENOTSUP;
}

bool imgp_doctor_script_mentions_(const struct doctor *d, const char *word)
{
	return d->sv.script.parsed && imgp_bootscr_mentions_(&d->sv.script.scr, word);
}

bool imgp_doctor_override_in_effect_(const struct doctor *d)
{
	return imgp_effective_override_loaded_(&d->sv);
}

/* ------------------------------------------------------------- judge */

/* A fact the survey could not read, other than "not there", stops the doctor. */
static int unreadable(int rc, const char *error)
{
	return rc && rc != -ENOENT ? imgp_survey_fail_(rc, error) : 0;
}

/*
 * The doctor examines only what reads: a filesystem that does not open,
 * a lookup that failed, a boot configuration that does not read, a
 * corrupt FIT, boot script or fstab is the error.
 */
static int survey_readable(const struct imgp_survey *sv)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < sv->disk->tab.nparts; i++)
		rc = sv->fs_rc[i] ? imgp_survey_fail_(sv->fs_rc[i], sv->fs_error[i]) : 0;
	if (!rc)
		rc = unreadable(sv->boot_rc, sv->boot_error);
	if (!rc)
		rc = unreadable(sv->fit.rc, sv->fit.error);
	/* The boot path's own configuration: judging without it says nothing. */
	if (!rc && sv->bootpath)
		rc = unreadable(sv->bootinfo.rc, sv->bootinfo.error);
	/* Found but not read (a dangling link, a bad CRC) is an error too. */
	if (!rc && sv->boot)
		rc = sv->script.path && sv->script.rc ?
		     imgp_survey_fail_(sv->script.rc, sv->script.error) :
		     unreadable(sv->script.rc, sv->script.error);
	if (!rc && sv->boot)
		rc = unreadable(sv->override.rc, sv->override.error);
	if (!rc)
		rc = unreadable(sv->root_rc, sv->root_error);
	if (!rc && sv->root && sv->fstab.rc)
		rc = imgp_survey_fail_(sv->fstab.rc, sv->fstab.error);
	return rc;
}

static struct doctor_tree *tree_new(struct doctor *d,
				    const struct imgp_part *part,
				    const char *file)
{
	struct doctor_tree *grown, *t;

	grown = realloc(d->trees, (d->ntrees + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	d->trees = grown;
	t = &d->trees[d->ntrees];
	memset(t, 0, sizeof(*t));
	t->part = part;
	t->file = strdup(file);
	if (!t->file)
		return NULL;
	d->ntrees++;
	return t;
}

static int tree_load(struct doctor *d, struct doctor_tree *t, const void *blob,
		     size_t size)
{
	int rc = imgp_dtb_load_(&t->dtb, blob, size);

	if (!rc)
		return 0;
	if (t->image)
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s: %s", t->part->number,
			      t->part->fstype, d->sv.fit_path, t->image->name);
	else
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", t->part->number,
			      t->part->fstype, t->file);
	/* Not counted as a tree: nothing to free but the name (named above). */
	free(t->file);
	d->ntrees--;
	return rc;
}

/*
 * An effective tree joins the trees judged (sharing its dtb). One the
 * board boots no tree from is not judged: the base tree not there, a FIT
 * fdt compressed (see README, Limits), an overlay that leaves no tree (the
 * first and the last are the boot check's findings, doctor-boot.c); a
 * base tree that does not read is the error.
 */
static int add_effective(struct doctor *d, struct imgp_effective *eff)
{
	struct doctor_tree *t;

	if (!eff->dtb.fdt && !eff->failed &&
	    (eff->rc == -ENOENT ||
	     (eff->rc == -ENOTSUP && eff->image &&
	      strcmp(eff->image->compression, "none") != 0))) {
		imgp_debug(imgp_survey_ctx_(&d->sv), "%s: %s", eff->provenance, eff->error);
		return 0;
	}
	if (!eff->dtb.fdt && !eff->failed)
		return imgp_survey_fail_(eff->rc, eff->error);
	/* An overlay that failed is the boot check's finding (doctor-boot.c). */
	if (!eff->dtb.fdt)
		return 0;
	t = tree_new(d, eff->part, eff->path);
	if (!t)
		return imgp_fail(ENOMEM, "out of memory");
	t->image = eff->image;
	t->eff = eff;
	/* Shared: the effective tree keeps it (and frees it). */
	t->dtb = eff->dtb;
	return 0;
}

/* --fdt: that fdt image of the FIT, whatever the boot script loads (the only tree). */
static int add_fit_tree(struct doctor *d, const struct imgp_fit_image *img)
{
	int rc;

	d->effective = calloc(1, sizeof(*d->effective));
	if (!d->effective)
		return imgp_fail(ENOMEM, "out of memory");
	d->neffective = 1;
	d->own_effective = true;
	rc = imgp_effective_fit_image_(&d->sv, img, d->effective);
	return rc ? rc : add_effective(d, d->effective);
}

static int add_file_tree(struct doctor *d, const char *path)
{
	struct imgp_buf buf = { 0 };
	struct doctor_tree *t;
	int rc;

	rc = imgp_doctor_read_(d, d->sv.boot, path, IMGP_DTB_MAX, &buf);
	if (rc > 0) {
		t = tree_new(d, d->sv.boot, path);
		rc = t ? tree_load(d, t, buf.data, buf.len) :
			 imgp_fail(ENOMEM, "out of memory");
	}
	imgp_buf_free(&buf);
	return rc < 0 ? rc : 0;
}

static bool is_dtb_name(const char *name)
{
	size_t len = strlen(name);

	return len > 4 && strcmp(name + len - 4, ".dtb") == 0;
}

/*
 * The trees the board may boot: the one --fdt names; else the effective
 * trees of the boot path (the override the boot script loads, else every
 * FIT fdt; the trees a boot path lists, overlays applied); else, where no
 * boot path names a tree, the .dtb files at the top of the boot partition.
 */
static int pick_trees(struct doctor *d, const char *fdt_spec, const char *model)
{
	const struct imgp_fit *fit = &d->sv.fit.fit;
	const struct imgp_fit_image *img;
	size_t files = 0;
	int rc = 0;

	if (fdt_spec) {
		if (!d->sv.fit.parsed)
			return imgp_fail(ENOENT, "--fdt '%s': no FIT (no partition has %s)",
					 fdt_spec, d->sv.fit_path);
		rc = imgp_fit_find_fdt_(fit, fdt_spec, &img);
		return rc ? rc : add_fit_tree(d, img);
	}
	/* The survey's (IMGP_SURVEY_EFFECTIVE): the trees info lists. */
	d->effective = d->sv.effective;
	d->neffective = d->sv.neffective;
	d->out->ntrees = d->neffective;
	if (model || d->neffective > 1) {
		const struct imgp_effective *t = NULL;

		/* --model, else the tree the image's own U-Boot picks, if it names one. */
		rc = model ? imgp_effective_pick_model_(d->effective, d->neffective, model, &t) :
			     imgp_effective_pick_(d->effective, d->neffective, NULL, &t);
		if (rc && model)
			return rc;
		imgp_errclear_();
		if (!rc && (model || (t->bootdt && t->bootdt->uboot_default))) {
			d->out->picked = strdup(imgp_effective_name_(t));
			d->out->picked_by = model ? "--model" :
					    "the image's U-Boot (its default environment's fdtfile)";
			/* The one judged: the boot checks see it alone too. */
			d->effective = (struct imgp_effective *)t;
			d->neffective = 1;
			imgp_effective_warn_(imgp_survey_ctx_(&d->sv), t, 1);
			return d->out->picked ? add_effective(d, d->effective) :
						imgp_fail(ENOMEM, "out of memory");
		}
		rc = 0;
		d->out->chooser = d->sv.bootinfo.chooser;
	}
	/* Each tree is judged: the warnings of all, a shared one said once. */
	imgp_effective_warn_(imgp_survey_ctx_(&d->sv), d->effective, d->neffective);
	for (size_t i = 0; !rc && i < d->neffective; i++)
		rc = add_effective(d, &d->effective[i]);
	if (rc || d->neffective)
		return rc;
	for (size_t i = 0; i < d->nboot_names && !rc; i++) {
		char path[512];

		if (!is_dtb_name(d->boot_names[i]))
			continue;
		if (++files > DOCTOR_DTB_FILES) {
			imgp_warn(imgp_survey_ctx_(&d->sv),
				  IMGP_PART_FMT ": more than %d .dtb files, examining the first %d",
				  d->sv.boot->number, DOCTOR_DTB_FILES, DOCTOR_DTB_FILES);
			break;
		}
		if ((size_t)snprintf(path, sizeof(path), "/%s", d->boot_names[i]) >=
		    sizeof(path))
			continue;
		rc = add_file_tree(d, path);
	}
	return rc;
}

/*
 * A root on a filesystem imgpatch cannot read (btrfs, xfs, ...) leaves the
 * boot side judged and says which findings went unjudged for want of it.
 */
static int root_unread(struct doctor *d)
{
	static const enum doctor_finding_id need_root[] = {
		DOCTOR_FSTAB_DISCARD, DOCTOR_FSTAB_ATIME, DOCTOR_FSTRIM_TIMER_OFF,
	};
	const struct imgp_part *p = d->sv.root_unread;
	struct imgp_buf b = { 0 };
	int rc;

	if (d->sv.root || !p)
		return 0;
	rc = imgp_buf_printf(&b, IMGP_PART_FMT " (%s), the likely root, could not be read (%s); not judged:",
			     p->number, p->fstype,
			     imgp_fs_encrypted_(p->fstype) ?
			     "it is encrypted: imgpatch opens no LUKS container" :
			     "imgpatch reads FAT and ext2/3/4");
	for (size_t i = 0; !rc && i < sizeof(need_root) / sizeof(need_root[0]); i++)
		rc = imgp_buf_printf(&b, "%s %s", i ? "," : "", imgp_doctor_findings_[need_root[i]].id);
	if (rc) {
		imgp_buf_free(&b);
		return imgp_fail(ENOMEM, "out of memory");
	}
	d->out->root_unread = (char *)b.data;
	return 0;
}

static int gather(struct doctor *d, struct imgp_disk *disk,
		  const struct imgp_doctor_opts *opts)
{
	/* --fdt names the one tree judged: no effective trees then. */
	const struct imgp_survey_opts sopts = {
		.fit_path = opts->fit_path,
		.what = IMGP_SURVEY_BOOT | IMGP_SURVEY_FSTAB |
			(opts->fdt ? 0 : IMGP_SURVEY_EFFECTIVE),
	};
	int rc;

	rc = imgp_survey_open_(&d->sv, disk, &sopts);
	if (!rc)
		rc = survey_readable(&d->sv);
	if (!rc)
		rc = root_unread(d);
	if (rc || !d->sv.boot)
		return rc;
	rc = imgp_doctor_list_(d, d->sv.boot, "/", &d->boot_names, &d->nboot_names);
	if (rc == -ENOTSUP) {
		/* A filesystem without listings: no .dtb files to find. */
		imgp_errclear_();
		rc = 0;
	}
	return rc ? rc : pick_trees(d, opts->fdt, opts->model);
}

static void doctor_release(struct doctor *d)
{
	for (size_t i = 0; i < d->ntrees; i++) {
		free(d->trees[i].file);
		if (!d->trees[i].eff)
			imgp_dtb_free_(&d->trees[i].dtb);
	}
	free(d->trees);
	if (d->own_effective)
		imgp_effective_free_(d->effective, d->neffective);
	imgp_fs_list_free_(d->boot_names, d->nboot_names);
	imgp_survey_close_(&d->sv);
}

int imgp_doctor_run(struct imgp_disk *disk, const struct imgp_doctor_opts *opts,
		    struct imgp_doctor **doc)
{
	struct imgp_doctor *out = calloc(1, sizeof(*out));
	struct doctor d = { .out = out };
	int rc;

	*doc = NULL;
	if (!out)
		return imgp_fail(ENOMEM, "out of memory");
	rc = gather(&d, disk, opts);
	for (size_t i = 0; !rc && i < sizeof(doctor_checks) / sizeof(doctor_checks[0]); i++) {
		rc = doctor_checks[i].run(&d);
		if (rc)
			imgp_fail_ctx(rc, "%s check", doctor_checks[i].name);
	}
	doctor_release(&d);
	if (rc)
		imgp_doctor_free(out);
	else
		*doc = out;
	return rc;
}

void imgp_doctor_free(struct imgp_doctor *doc)
{
	if (!doc)
		return;
	imgp_doctor_clear_(doc);
	free(doc);
}

const struct imgp_finding *imgp_doctor_finding_(const struct imgp_doctor *doc, size_t i)
{
	return i < doc->n ? &doc->findings[i] : NULL;
}

void imgp_doctor_get_(const struct imgp_doctor *doc, struct imgp_doctor_view *out)
{
	*out = (struct imgp_doctor_view){
		.nfindings = doc->n,
		.picked = doc->picked,
		.picked_by = doc->picked_by,
		.ntrees = doc->ntrees,
		.chooser = doc->chooser,
		.root_unread = doc->root_unread,
	};
}
