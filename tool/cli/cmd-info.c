// SPDX-License-Identifier: MIT
/*
 * imgpatch info: what an image holds, read-only. The library surveys the
 * image first (survey.c); the survey is printed afterwards, as text or as
 * one JSON document, so both outputs always say the same. A damaged section (bad FIT hash, corrupt boot
 * script, dirty ext4) is reported where it belongs and turns the exit status
 * into 1, but never stops the other sections.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

bool info_fit_missing(const struct info *in)
{
	return !in->fit.part;
}

bool info_script_missing(const struct info *in)
{
	return !in->script.path && in->script.rc == -ENOENT;
}

bool info_override_missing(const struct info *in)
{
	return !in->script.override_part;
}

bool info_fstab_missing(const struct info *in)
{
	return !in->v.root && in->v.root_rc == -ENOENT;
}

bool info_script_loads_override(const struct info *in)
{
	return in->script.loads_override;
}

const char *info_fstab_error(const struct info *in)
{
	const struct imgp_fstab_view *f = &in->fstab;

	if (info_fstab_missing(in))
		return NULL;
	if (f->rc)
		return f->error;
	return f->root_rc && f->root_rc != -ENOENT ? f->root_error : NULL;
}

bool info_shows(const struct info *in, size_t i, const struct imgp_entry_view *dt)
{
	if (in->picked)
		return in->pick.entry == (long)i;
	return !in->brief || dt->uboot_default;
}

bool info_shows_tree(const struct info *in, const struct imgp_tree_view *tree)
{
	return !in->picked || (in->pick.image >= 0 && in->pick.image == tree->image);
}

bool info_effective(const struct info *in, size_t i, struct imgp_effective_view *e)
{
	for (size_t k = 0; !imgp_survey_get_effective(in->sv, k, e); k++)
		if (e->entry == (long)i)
			return true;
	return false;
}

const char *info_warning(const struct info *in, const struct imgp_effective_view *e,
			 size_t k)
{
	const char *image = imgp_disk_path(in->disk);
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
static int count_problems(const struct info *in)
{
	struct imgp_fit_image_view img;
	struct imgp_tree_view tree;
	struct imgp_effective_view e;
	int n = imgp_disk_table(in->disk)->used_backup;

	for (size_t i = 0; i < imgp_disk_table(in->disk)->nparts; i++)
		n += imgp_survey_fs_error(in->sv, i) != NULL;
	n += !info_fit_missing(in) && in->fit.rc;
	for (size_t i = 0; !imgp_survey_get_fit_image(in->sv, i, &img); i++)
		n += img.hash == IMGP_HASH_BAD;
	n += !info_script_missing(in) && in->script.rc;
	n += !info_override_missing(in) && in->script.override_rc &&
	     in->script.override_rc != -ENOENT;
	for (size_t i = 0; !imgp_survey_get_tree(in->sv, i, &tree); i++)
		n += info_shows_tree(in, &tree) && tree.state == IMGP_TREE_ERROR;
	/* With --model, that tree's alone; else each one's, shown or not. */
	for (size_t i = 0; i < in->v.nentries; i++)
		n += (!in->picked || in->pick.entry == (long)i) &&
		     info_effective(in, i, &e) && e.tree.state == IMGP_TREE_ERROR;
	n += info_fstab_error(in) != NULL;
	n += in->v.bootpath_rc != 0;
	return n;
}

enum { OPT_JSON = 256, OPT_FIT, OPT_MODEL };

static const struct cli_option info_options[] = {
	{ OPT_JSON, "json", 0, NULL, "print one JSON document (schema_version 1)" },
	{ OPT_MODEL, "model", 0, "MODEL", "show only the tree the boot path boots for MODEL\n"
	  "(a model, a tree's file name or path)" },
	{ OPT_FIT, "fit", 0, "PATH", "FIT file to look for (default " IMGP_FIT_PATH ")" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const info_tables[] = { info_options, NULL };

static const struct cli_command info_command = {
	"info",
	"Usage: imgpatch info [--json] [--fit PATH] [--model MODEL] IMAGE\n"
	"Show an image's partitions, its FIT, boot script, SD/eMMC controller\n"
	"settings and the root fstab entry. Read-only.\n\n",
	info_tables,
	"Exit status: 0 all fine, 1 a problem was found (reported in its\n"
	"section) or the image cannot be read, 2 usage error.\n",
};

static void free_cmdlines(struct info *in)
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
static void get_cmdlines(struct info *in)
{
	struct imgp_survey *sv = in->sv;
	struct imgp_entry_view dt;
	int rc;

	if (!in->v.bootpath)
		return;
	in->cmdlines = calloc(1, sizeof(*in->cmdlines));
	if (!in->cmdlines)
		die("out of memory");
	in->ncmdlines = 1;
	rc = in->picked && in->pick.entry >= 0 ?
	     imgp_survey_get_entry(sv, (size_t)in->pick.entry, &dt) : -ENOENT;
	rc = imgp_survey_cmdline(sv, rc ? NULL : dt.path, &in->cmdlines[0].line,
				 &in->cmdlines[0].where, &in->cmdlines[0].loader);
	if (rc == -EINVAL && in->v.nentries > 1 && !in->picked) {
		free_cmdlines(in);
		in->cmdlines = calloc(in->v.nentries, sizeof(*in->cmdlines));
		if (!in->cmdlines)
			die("out of memory");
		in->ncmdlines = in->v.nentries;
		rc = 0;
		for (size_t n = 0; !rc && !imgp_survey_get_entry(sv, n, &dt); n++) {
			struct info_cmdline *c = &in->cmdlines[n];

			/* A tree not shown keeps its line out too. */
			if (in->brief && !info_shows(in, n, &dt))
				continue;
			c->model = dt.model ? dt.model : dt.path;
			rc = imgp_survey_cmdline(sv, dt.path, &c->line, &c->where, &c->loader);
		}
	}
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc) {
		in->cmdline_error = strdup(imgp_errmsg());
		if (!in->cmdline_error)
			die("out of memory");
	}
}

/*
 * A btrfs root is mounted at the subvolume rootflags= names, the last
 * subvol= or subvolid= option winning as in any mount option list.
 */
static void get_root_subvol(struct info *in)
{
	const struct imgp_part *p = in->v.root_unread;
	const struct imgp_buf *line;
	struct imgp_buf flags = { 0 };
	char *opt, *save = NULL;
	int rc;

	if (in->v.root || !p || strcmp(p->fstype, "btrfs") != 0 ||
	    in->cmdline_error || in->ncmdlines != 1)
		return;
	line = &in->cmdlines[0].line;
	rc = imgp_cmdline_get((const char *)line->data, line->len, "rootflags", &flags);
	if (rc < 0)
		die("out of memory");
	in->root_subvol_known = true;
	for (opt = rc ? strtok_r((char *)flags.data, ",", &save) : NULL; opt;
	     opt = strtok_r(NULL, ",", &save)) {
		if (strncmp(opt, "subvol=", 7) != 0 && strncmp(opt, "subvolid=", 9) != 0)
			continue;
		free(in->root_subvol);
		in->root_subvol = strdup(opt);
		if (!in->root_subvol)
			die("out of memory");
	}
	imgp_buf_free(&flags);
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
static void get_root_opens(struct info *in)
{
	static const char *const keys[] = { "cryptdevice", "rd.luks.uuid", "rd.luks.name" };
	const struct imgp_part *p = in->v.root_unread;
	const struct imgp_buf *line;

	if (in->v.root || !p || strcmp(p->fstype, "crypto_LUKS") != 0 ||
	    in->cmdline_error || in->ncmdlines != 1)
		return;
	line = &in->cmdlines[0].line;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && !in->root_opens; k++) {
		struct imgp_buf v = { 0 };
		const char *val, *end;
		int rc = imgp_cmdline_get((const char *)line->data, line->len, keys[k], &v);

		if (rc < 0)
			die("out of memory");
		if (!rc)
			continue;
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
		if (asprintf(&in->root_opens, "%s=%s", keys[k], (const char *)v.data) < 0)
			die("out of memory");
		imgp_buf_free(&v);
	}
}

int cmd_info(int argc, char **argv)
{
	static const char *const args[] = { "IMAGE" };
	struct cli_parser p;
	struct cli_read img;
	struct imgp_survey_opts sopts = {
		.what = IMGP_SURVEY_BOOT | IMGP_SURVEY_TREES | IMGP_SURVEY_EFFECTIVE |
			IMGP_SURVEY_FSTAB,
	};
	struct info in = { 0 };
	char *fit_path = NULL;
	const char *model = NULL;
	size_t pick = 0;
	bool json = false;
	int c, rc;

	cli_parser_init(&p, &info_command, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		if (c == OPT_JSON) {
			json = true;
			continue;
		}
		if (c == OPT_MODEL) {
			model = p.value;
			continue;
		}
		cli_fit_path(&p, &fit_path);
	}
	rc = c == CLI_STOP ? p.exit : cli_arguments(&p, 1, 1, args);
	in.path = rc || c == CLI_STOP ? NULL : p.args[0];
	cli_parser_free(&p);
	if (rc || c == CLI_STOP) {
		free(fit_path);
		return rc;
	}
	sopts.fit_path = fit_path;

	rc = cli_read_open(&img, in.path);
	if (rc) {
		free(fit_path);
		return rc;
	}
	if (imgp_survey_new(&in.sv, img.disk, &sopts)) {
		rc = error_lib(in.path);
		cli_read_close(&img);
		free(fit_path);
		return rc;
	}
	in.disk = img.disk;
	imgp_survey_get(in.sv, &in.v);
	imgp_survey_get_fit(in.sv, &in.fit);
	imgp_survey_get_script(in.sv, &in.script);
	imgp_survey_get_fstab(in.sv, &in.fstab);
	/* --model: the tree as cat --dtb and doctor --model pick it. */
	if (model && imgp_survey_pick(in.sv, model, true, &pick)) {
		rc = error_lib_typed(in.path, true);
		imgp_survey_free(in.sv);
		cli_read_close(&img);
		free(fit_path);
		return rc;
	}
	/* A dozen trees are listed in full, as the library's messages name a dozen. */
	in.picked = model && !imgp_survey_get_effective(in.sv, pick, &in.pick);
	in.brief = !json && !model && in.v.chooser && in.v.nentries > 12;
	in.problems = count_problems(&in);
	get_cmdlines(&in);
	get_root_subvol(&in);
	get_root_opens(&in);

	if (json) {
		rc = info_print_json(&in);
	} else {
		info_print_text(&in);
		rc = fflush(stdout) || ferror(stdout) ? -EIO : 0;
	}
	if (rc == -EIO)
		error("cannot write output: %s", strerror(EIO));
	if (!rc && in.problems)
		error("%s: %d problem%s found", in.path, in.problems,
		      in.problems == 1 ? "" : "s");
	rc = (rc || in.problems) ? EXIT_ERROR : EXIT_OK;
	free_cmdlines(&in);
	free(in.cmdline_error);
	free(in.root_subvol);
	free(in.root_opens);
	imgp_survey_free(in.sv);
	cli_read_close(&img);
	free(fit_path);
	return rc;
}
