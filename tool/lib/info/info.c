// SPDX-License-Identifier: MIT
/*
 * What info shows of a survey, gathered once: its facts, the tree --model
 * picks, the kernel command lines, what the command line says of a root
 * imgpatch cannot read, and how many problems there are. Written
 * afterwards as text or as one JSON document, so both outputs always say
 * the same. A damaged section (bad FIT hash, corrupt boot script, dirty
 * ext4) is reported where it belongs and counts as a problem, but never
 * stops the other sections.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

bool imgp_info_fit_missing_(const struct imgp_info *in)
{
	return !in->fit.part;
}

bool imgp_info_script_missing_(const struct imgp_info *in)
{
	return !in->script.path && in->script.rc == -ENOENT;
}

bool imgp_info_override_missing_(const struct imgp_info *in)
{
	return !in->script.override_part;
}

bool imgp_info_fstab_missing_(const struct imgp_info *in)
{
	return !in->v.root && in->v.root_rc == -ENOENT;
}

bool imgp_info_script_loads_override_(const struct imgp_info *in)
{
	return in->script.loads_override;
}

const char *imgp_info_fstab_error_(const struct imgp_info *in)
{
	const struct imgp_fstab_view *f = &in->fstab;

	if (imgp_info_fstab_missing_(in))
		return NULL;
	if (f->rc)
		return f->error;
	return f->root_rc && f->root_rc != -ENOENT ? f->root_error : NULL;
}

bool imgp_info_shows_(const struct imgp_info *in, size_t i, const struct imgp_entry_view *dt)
{
	if (in->picked)
		return in->pick.entry == (long)i;
	return !in->brief || dt->uboot_default;
}

bool imgp_info_shows_tree_(const struct imgp_info *in, const struct imgp_tree_view *tree)
{
	return !in->picked || (in->pick.image >= 0 && in->pick.image == tree->image);
}

bool imgp_info_effective_(const struct imgp_info *in, size_t i, struct imgp_effective_view *e)
{
	for (size_t k = 0; !imgp_survey_get_effective_(in->sv, k, e); k++)
		if (e->entry == (long)i)
			return true;
	return false;
}

const char *imgp_info_warning_(const struct imgp_info *in, const struct imgp_effective_view *e,
			 size_t k)
{
	const char *image = imgp_disk_path_(in->disk);
	size_t n = strlen(image);

	if (k < e->nwarnings) {
		/* Shown with the image's report: not "IMAGE: " again. */
		const char *w = e->warnings[k];

		return strncmp(w, image, n) == 0 && strncmp(w + n, ": ", 2) == 0 ? w + n + 2 : w;
	}
	return k == e->nwarnings && e->rc && e->tree.state == IMGP_TREE_OK ? e->error : NULL;
}

/*
 * What makes info exit with status 1: each fact that could not be read,
 * and each tree of the boot path that the boot ends without (but for a
 * base tree that is simply not there).
 */
static int count_problems(const struct imgp_info *in)
{
	struct imgp_fit_image_view img;
	struct imgp_tree_view tree;
	struct imgp_effective_view e;
	int n = imgp_disk_table_(in->disk)->used_backup;

	for (size_t i = 0; i < imgp_disk_table_(in->disk)->nparts; i++)
		n += imgp_survey_fs_error_(in->sv, i) != NULL;
	n += !imgp_info_fit_missing_(in) && in->fit.rc;
	for (size_t i = 0; !imgp_survey_get_fit_image_(in->sv, i, &img); i++)
		n += img.hash == IMGP_HASH_BAD;
	n += !imgp_info_script_missing_(in) && in->script.rc;
	n += !imgp_info_override_missing_(in) && in->script.override_rc &&
	     in->script.override_rc != -ENOENT;
	for (size_t i = 0; !imgp_survey_get_tree_(in->sv, i, &tree); i++)
		n += imgp_info_shows_tree_(in, &tree) && tree.state == IMGP_TREE_ERROR;
	/* With --model, that tree's alone; else each one's, shown or not. */
	for (size_t i = 0; i < in->v.nentries; i++)
		n += (!in->picked || in->pick.entry == (long)i) &&
		     imgp_info_effective_(in, i, &e) && e.tree.state == IMGP_TREE_ERROR;
	n += imgp_info_fstab_error_(in) != NULL;
	n += in->v.bootpath_rc != 0;
	return n;
}

static void free_cmdlines(struct imgp_info *in)
{
	for (size_t i = 0; i < in->ncmdlines; i++) {
		imgp_buf_free(&in->cmdlines[i].where);
		imgp_buf_free(&in->cmdlines[i].line);
		imgp_buf_free(&in->cmdlines[i].loader);
	}
	free(in->cmdlines);
	in->cmdlines = NULL;
	in->ncmdlines = 0;
}

/*
 * The boot path's kernel command line: one, or one per tree where they
 * differ (a boot path that keeps one per model).
 */
static int get_cmdlines(struct imgp_info *in)
{
	struct imgp_survey *sv = in->sv;
	struct imgp_entry_view dt;
	int rc;

	if (!in->v.bootpath)
		return 0;
	in->cmdlines = calloc(1, sizeof(*in->cmdlines));
	if (!in->cmdlines)
		return imgp_fail(ENOMEM, "out of memory");
	in->ncmdlines = 1;
	rc = in->picked && in->pick.entry >= 0 ?
	     imgp_survey_get_entry_(sv, (size_t)in->pick.entry, &dt) : -ENOENT;
	rc = imgp_survey_cmdline(sv, rc ? NULL : dt.path, &in->cmdlines[0].line,
				 &in->cmdlines[0].where, &in->cmdlines[0].loader);
	if (rc == -EINVAL && in->v.nentries > 1 && !in->picked) {
		free_cmdlines(in);
		in->cmdlines = calloc(in->v.nentries, sizeof(*in->cmdlines));
		if (!in->cmdlines)
			return imgp_fail(ENOMEM, "out of memory");
		in->ncmdlines = in->v.nentries;
		rc = 0;
		for (size_t n = 0; !rc && !imgp_survey_get_entry_(sv, n, &dt); n++) {
			struct imgp_info_cmdline *c = &in->cmdlines[n];

			/* A tree not shown keeps its line out too. */
			if (in->brief && !imgp_info_shows_(in, n, &dt))
				continue;
			c->model = dt.model ? dt.model : dt.path;
			rc = imgp_survey_cmdline(sv, dt.path, &c->line, &c->where, &c->loader);
		}
	}
	if (rc == -ENOMEM)
		return imgp_fail(ENOMEM, "out of memory");
	if (rc) {
		in->cmdline_error = strdup(imgp_errmsg());
		if (!in->cmdline_error)
			return imgp_fail(ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * A btrfs root is mounted at the subvolume rootflags= names, the last
 * subvol= or subvolid= option winning as in any mount option list.
 */
static int get_root_subvol(struct imgp_info *in)
{
	const struct imgp_part *p = in->v.root_unread;
	const struct imgp_buf *line;
	struct imgp_buf flags = { 0 };
	char *opt, *save = NULL;
	int rc;

	if (in->v.root || !p || strcmp(p->fstype, "btrfs") != 0 ||
	    in->cmdline_error || in->ncmdlines != 1)
		return 0;
	line = &in->cmdlines[0].line;
	rc = imgp_cmdline_get_((const char *)line->data, line->len, "rootflags", &flags);
	if (rc < 0) {
		imgp_buf_free(&flags);
		return imgp_fail(ENOMEM, "out of memory");
	}
	in->root_subvol_known = true;
	for (opt = rc ? strtok_r((char *)flags.data, ",", &save) : NULL; opt;
	     opt = strtok_r(NULL, ",", &save)) {
		if (strncmp(opt, "subvol=", 7) != 0 && strncmp(opt, "subvolid=", 9) != 0)
			continue;
		free(in->root_subvol);
		in->root_subvol = strdup(opt);
		if (!in->root_subvol) {
			imgp_buf_free(&flags);
			return imgp_fail(ENOMEM, "out of memory");
		}
	}
	imgp_buf_free(&flags);
	return 0;
}

/* Whether id (len bytes) is the UUID want, as blkid prints it. */
static bool same_uuid(const char *id, size_t len, const char *want)
{
	return *want && strlen(want) == len && !strncasecmp(id, want, len);
}

/*
 * The initramfs opens a LUKS root by the container the command line
 * names: cryptdevice=SPEC:NAME (mkinitcpio's encrypt hook, Armbian),
 * rd.luks.uuid=[luks-]UUID and rd.luks.name=UUID=NAME (dracut, systemd).
 * A SPEC other than UUID= or PARTUUID= (a device path) is shown as it is.
 */
static int get_root_opens(struct imgp_info *in)
{
	static const char *const keys[] = { "cryptdevice", "rd.luks.uuid", "rd.luks.name" };
	const struct imgp_part *p = in->v.root_unread;
	const struct imgp_buf *line;

	if (in->v.root || !p || strcmp(p->fstype, "crypto_LUKS") != 0 ||
	    in->cmdline_error || in->ncmdlines != 1)
		return 0;
	line = &in->cmdlines[0].line;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && !in->root_opens; k++) {
		struct imgp_buf v = { 0 };
		const char *val, *end;
		int rc = imgp_cmdline_get_((const char *)line->data, line->len, keys[k], &v);

		if (rc <= 0) {
			imgp_buf_free(&v);
			if (rc < 0)
				return imgp_fail(ENOMEM, "out of memory");
			continue;
		}
		val = (const char *)v.data;
		if (k == 1 && !strncmp(val, "luks-", 5))
			val += 5;
		end = k == 0 ? strrchr(val, ':') : k == 2 ? strchr(val, '=') : NULL;
		if (!end)
			end = val + strlen(val);
		if (k == 0 && !strncmp(val, "UUID=", 5))
			in->root_opens_other = !same_uuid(val + 5, (size_t)(end - val - 5), p->fsuuid);
		else if (k == 0 && !strncmp(val, "PARTUUID=", 9))
			in->root_opens_other = !same_uuid(val + 9, (size_t)(end - val - 9), p->uuid);
		else if (k > 0)
			in->root_opens_other = !same_uuid(val, (size_t)(end - val), p->fsuuid);
		rc = asprintf(&in->root_opens, "%s=%s", keys[k], (const char *)v.data);
		imgp_buf_free(&v);
		if (rc < 0) {
			in->root_opens = NULL;
			return imgp_fail(ENOMEM, "out of memory");
		}
	}
	return 0;
}


int imgp_info_write(struct imgp_survey *sv, const struct imgp_info_opts *opts, FILE *out,
		    int *problems)
{
	struct imgp_info in = { .out = out, .path = opts->name, .sv = sv };
	size_t pick = 0;
	int rc = 0;

	*problems = 0;
	in.disk = sv->disk;
	imgp_survey_get_(sv, &in.v);
	imgp_survey_get_fit_(sv, &in.fit);
	imgp_survey_get_script_(sv, &in.script);
	imgp_survey_get_fstab_(sv, &in.fstab);
	/* --model: the tree as cat --dtb and doctor --model pick it. */
	if (opts->model) {
		rc = imgp_survey_pick_(sv, opts->model, true, &pick);
		if (rc)
			return rc;
	}
	/* A dozen trees are listed in full, as the library's messages name a dozen. */
	in.picked = opts->model && !imgp_survey_get_effective_(sv, pick, &in.pick);
	in.brief = !opts->json && !opts->model && in.v.chooser && in.v.nentries > 12;
	in.problems = count_problems(&in);
	rc = get_cmdlines(&in);
	if (!rc)
		rc = get_root_subvol(&in);
	if (!rc)
		rc = get_root_opens(&in);
	if (!rc)
		rc = opts->json ? imgp_info_print_json_(&in) : imgp_info_print_text_(&in);
	if (!rc)
		*problems = in.problems;
	free_cmdlines(&in);
	free(in.cmdline_error);
	free(in.root_subvol);
	free(in.root_opens);
	return rc;
}
