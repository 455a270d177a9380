// SPDX-License-Identifier: MIT
/*
 * The effective trees of a survey (imgpatch.h has the rules): the tree each
 * way of booting really hands the kernel, its base tree with the overlays
 * its loader applies. The one place that decides which tree a FIT image
 * boots (the override file or the FIT's own); info, cat, doctor and patch
 * read the result.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "fit/fit.h"
#include "dt/dt.h"
#include "boot/boot.h"
#include "boot/bootpath.h"

/* What a loader does when an overlay does not apply. */
enum apply_failure {
	FAILURE_SKIPS,           /* goes on without it (the Raspberry Pi firmware) */
	FAILURE_RESTORES,        /* reloads the base tree: no overlay at all (Armbian) */
	FAILURE_BREAKS,          /* U-Boot's fdt apply: no valid tree is left */
};

static enum apply_failure apply_failure(const struct imgp_survey *sv)
{
	/* The Raspberry Pi firmware reports a bad overlay and goes on. */
	if (sv->bootpath->apply || sv->bootpath == &imgp_bootpath_rpi_)
		return FAILURE_SKIPS;
	/* Armbian's boot.scr: "fdt apply || setenv overlay_error", then a reload. */
	if (sv->bootpath == &imgp_bootpath_armbian_)
		return FAILURE_RESTORES;
	/* libfdt erases the base tree's magic when fdt_overlay_apply() fails. */
	return FAILURE_BREAKS;
}

static const char *const failure_text[] = {
	[FAILURE_SKIPS] = "the firmware goes on without it",
	[FAILURE_RESTORES] = "Armbian's boot.scr then reloads the base tree, without any overlay",
	[FAILURE_BREAKS] = "U-Boot's fdt apply leaves no valid tree behind (libfdt erases it): this boot fails",
};

/* Keeps the current message, with what follows from it, as t's failure. */
static int keep_failure(struct imgp_effective *t, int rc, const char *overlay,
			const char *then)
{
	const char *msg = imgp_errmsg();

	t->rc = rc;
	free(t->error);
	free(t->failed);
	t->error = NULL;
	t->failed = NULL;
	if (asprintf(&t->error, "%s%s%s", *msg ? msg : strerror(-rc),
		     then ? ": " : "", then ? then : "") < 0) {
		t->error = NULL;
		return imgp_fail(ENOMEM, "out of memory");
	}
	if (overlay) {
		t->failed = strdup(overlay);
		if (!t->failed)
			return imgp_fail(ENOMEM, "out of memory");
	}
	imgp_errclear_();
	return 0;
}

/*
 * A tree or overlay file on part. U-Boot's filesystems take "a//b" and a
 * path without its leading '/' (u-boot-update writes "/boot/dtbo//x.dtbo",
 * user.scr loads "x.dtbo"): the same file here.
 */
static int read_blob(struct imgp_survey *sv, const struct imgp_part *part,
		     const char *path, struct imgp_buf *out)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, part);
	char *clean = malloc(strlen(path) + 2), *o = clean;
	int rc;

	if (!clean)
		return imgp_fail(ENOMEM, "out of memory");
	*o++ = '/';
	for (const char *p = path; *p; p++)
		if (*p != '/' || o[-1] != '/')
			*o++ = *p;
	*o = '\0';
	rc = fs ? imgp_survey_read_file_(fs, clean, IMGP_DTB_MAX, out) : -ENOTSUP;
	free(clean);
	return rc;
}

/* The base tree: a file on t->part, or t->image of the FIT. */
static int load_base(struct imgp_survey *sv, struct imgp_effective *t)
{
	struct imgp_buf buf = { 0 };
	const uint8_t *data;
	size_t size;
	int rc;

	if (t->image) {
		rc = imgp_fit_payload_(&sv->fit.fit, t->image, &data, &size);
		if (rc)
			return imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", t->part->number,
					     t->part->fstype, sv->fit_path);
		rc = imgp_dtb_load_(&t->dtb, data, size);
		if (rc)
			imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s: %s", t->part->number,
				      t->part->fstype, sv->fit_path, t->image->name);
		return rc;
	}
	/* After a failed label, the tree of the one sysboot went on to. */
	const char *path = t->ran && t->ran != t->bootdt ? t->ran->path : t->path;

	if (t->part == sv->override.part && sv->override.data.len &&
	    strcmp(path, IMGP_OVERRIDE_PATH) == 0) {
		data = sv->override.data.data;
		size = sv->override.data.len;
		rc = 0;
	} else {
		rc = read_blob(sv, t->part, path, &buf);
		data = buf.data;
		size = buf.len;
	}
	if (!rc) {
		rc = imgp_dtb_load_(&t->dtb, data, size);
		if (rc)
			imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", t->part->number,
				      t->part->fstype, path);
		else
			t->fdt_total = fdt_totalsize(data);
	}
	imgp_buf_free(&buf);
	return rc;
}

/*
 * Entry i of the boot path's list, through the path's own loader: it gets
 * a malloc'd copy of the tree, *size being the buffer's size (room to
 * grow in), which it may realloc. Its warnings go into warnings.
 */
static int apply_own(struct imgp_survey *sv, struct imgp_effective *t, size_t i,
		     struct imgp_buf *warnings)
{
	size_t size = t->dtb.bufsize;
	void *fdt = malloc(size);
	int rc;

	/* On copies: a failed apply must leave the tree as it was. */
	if (!fdt)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(fdt, t->dtb.fdt, size);
	rc = sv->bootpath->apply(sv, t->ran, i, &fdt, &size, warnings);
	if (rc) {
		free(fdt);
		return rc == -ENOENT ? -EINVAL : rc;
	}
	free(t->dtb.fdt);
	t->dtb.fdt = fdt;
	t->dtb.bufsize = size;
	return 0;
}

/*
 * Entry i as an overlay file on t->part, applied as U-Boot's fdt apply:
 * where the loader bounds the room, in a tree of *total bytes (after the
 * resize the boot path names before it).
 */
static int apply_file(struct imgp_survey *sv, struct imgp_effective *t, size_t i,
		      size_t *total, bool *missing)
{
	const char *path = t->ran->overlays[i];
	const long *room = t->ran->room;
	struct imgp_buf buf = { 0 };
	int rc;

	rc = read_blob(sv, t->part, path, &buf);
	*missing = rc == -ENOENT;
	if (!rc && room) {
		if (room[i] >= 0)
			*total = imgp_uboot_fdt_room_(imgp_dt_used_(&t->dtb), (unsigned long)room[i]);
		rc = imgp_dt_apply_overlay_in_(&t->dtb, buf.data, buf.len, *total);
	} else if (!rc) {
		rc = imgp_dt_apply_overlay_(&t->dtb, buf.data, buf.len);
		/* -ENOENT stays "the file is not there" (a target it lacks is not that). */
		rc = rc == -ENOENT ? -EINVAL : rc;
	}
	if (rc && rc != -ENOMEM && !*missing)
		imgp_fail_ctx(rc, IMGP_PART_FMT " (%s): %s", t->part->number,
			      t->part->fstype, path);
	imgp_buf_free(&buf);
	return rc;
}

/*
 * An extlinux label whose tree is left broken (libfdt erases it when an
 * overlay fails): booti fails, label_boot() returns and sysboot goes on to
 * the next label that loads. Keeps the failure with what follows; returns
 * 1 when there is such a label (t->ran is then that label, for build() to
 * load), 0 when the boot ends, -ENOMEM.
 */
static int next_label(struct imgp_effective *t, int rc, const char *overlay)
{
	const struct imgp_survey_bootdt *next = t->ran->next;
	struct imgp_buf then = { 0 };
	int err;

	if (!next)
		err = imgp_buf_printf(&then, "U-Boot's fdt apply leaves no valid tree behind (libfdt erases it): booti fails, and label %s is the last sysboot can boot: this boot fails",
				      t->ran->label);
	else
		err = imgp_buf_printf(&then, "U-Boot's fdt apply leaves no valid tree behind (libfdt erases it): booti fails, and sysboot goes on to label %s%s%s%s, %s",
				      next->label, next->append ? " (append " : "",
				      next->append ? next->append : "", next->append ? ")" : "",
				      next->path ? "whose tree this is" : "with U-Boot's own tree");
	if (!err && (!t->rc || t->rc == -ENOENT || t->ran != t->bootdt))
		err = keep_failure(t, rc, overlay, (char *)then.data);
	imgp_buf_free(&then);
	if (err)
		return -ENOMEM;
	imgp_dtb_free_(&t->dtb);
	t->napplied = 0;
	if (!next || !next->path)
		return 0;
	t->ran = next;
	t->reverted = true;
	return 1;
}

/*
 * The boot path's overlays, in order, with its loader's answer to a
 * failure; warnings go into warnings (NULL: dropped).
 */
static int apply_overlays(struct imgp_survey *sv, struct imgp_effective *t,
			  bool *applied, struct imgp_buf *warnings)
{
	const struct imgp_survey_bootdt *dt = t->ran;
	enum apply_failure on_failure = apply_failure(sv);
	size_t total = t->fdt_total;

	for (size_t i = 0; i < dt->noverlays; i++) {
		bool missing = false;
		int rc;

		/*
		 * A parameter line (the Raspberry Pi's "dtparam=x=on") is no file:
		 * only the path's own apply method knows what it does.
		 */
		if (!sv->bootpath->apply && strchr(dt->overlays[i], '=') &&
		    !strchr(dt->overlays[i], '/'))
			continue;
		rc = sv->bootpath->apply ? apply_own(sv, t, i, warnings) :
		     apply_file(sv, t, i, &total, &missing);
		/*
		 * A broken overlay (a fixup past its property, an alias loop) is
		 * no boot to describe: libfdt would write out of bounds.
		 */
		if (rc == -ENOMEM || rc == -EBADMSG)
			return rc;
		if (!rc) {
			applied[i] = true;
			t->napplied++;
			continue;
		}
		if (missing) {
			/* Every loader guards its load ("if load ...; then"). */
			if (!t->rc && keep_failure(t, rc, dt->overlays[i],
						   "not loaded, the boot goes on without it"))
				return -ENOMEM;
			continue;
		}
		/* One that does not apply is news over one that is not there. */
		if (on_failure == FAILURE_BREAKS && dt->label)
			return next_label(t, rc, dt->overlays[i]);
		if ((!t->rc || t->rc == -ENOENT) &&
		    keep_failure(t, rc, dt->overlays[i], failure_text[on_failure]))
			return -ENOMEM;
		if (on_failure == FAILURE_SKIPS)
			continue;
		imgp_dtb_free_(&t->dtb);
		memset(applied, 0, dt->noverlays * sizeof(*applied));
		t->napplied = 0;
		if (on_failure == FAILURE_BREAKS)
			return 0;
		rc = load_base(sv, t);
		if (rc)
			return rc == -ENOMEM ? rc : keep_failure(t, rc, NULL, NULL);
		t->reverted = true;
		return 0;
	}
	return 0;
}

/*
 * A script run on a tree: its variables, the tree its fdt commands edit,
 * and where its warnings go.
 */
struct script_run {
	const struct imgp_survey_bootdt *dt;
	struct imgp_dtb *dtb;
	struct imgp_buf *warnings;
};

/* A variable of the scripts t->ran sources: the last setting of it. */
static const char *script_var(void *ctx, const char *name)
{
	const struct imgp_survey_bootdt *dt = ((struct script_run *)ctx)->dt;
	size_t n = strlen(name);

	for (size_t i = dt->nscript_vars; i-- > 0;)
		if (!strncmp(dt->script_vars[i], name, n) && dt->script_vars[i][n] == '=')
			return dt->script_vars[i] + n + 1;
	return NULL;
}

/* A command of such a script: fdt edits the tree; echo succeeds; the rest fail. */
static int script_command(void *ctx, struct imgp_ushell *sh, int argc, char **argv,
			  int *status)
{
	struct script_run *run = ctx;
	int rc = 0;

	(void)sh;
	*status = 1;
	if (!strcmp(argv[0], "fdt"))
		rc = imgp_uboot_fdt_cmd_(run->dtb, argc, argv, run->warnings);
	else if (!strcmp(argv[0], "echo"))
		rc = 0;
	else
		rc = 1;
	if (rc < 0)
		return rc;
	*status = rc;
	return 0;
}

/*
 * The scripts the loader sources after the overlays (Armbian's fixup.scr),
 * run on the tree: their fdt set/rm/mknode are what the kernel gets. One
 * that cannot be read is not sourced, as the loader's "load" would fail.
 * Warnings go into warnings (NULL: dropped). Returns 0, or -ENOMEM.
 */
static int run_scripts(struct imgp_survey *sv, struct imgp_effective *t, bool *ran,
		       struct imgp_buf *warnings)
{
	static const struct imgp_ushell_ops ops = { script_var, script_command };
	const struct imgp_survey_bootdt *dt = t->ran;
	struct script_run run = { dt, &t->dtb, warnings };
	int rc = 0;

	*ran = false;
	for (size_t i = 0; !rc && i < dt->nscripts; i++) {
		struct imgp_bootscr scr = { 0 };
		struct imgp_buf buf = { 0 };
		struct imgp_ushell *sh;

		rc = read_blob(sv, t->part, dt->scripts[i], &buf);
		if (!rc)
			rc = imgp_bootscr_parse_(&scr, buf.data, buf.len);
		imgp_buf_free(&buf);
		if (rc) {
			if (rc != -ENOMEM)
				imgp_warn_into_(warnings, IMGP_PART_FMT " (%s): %s: not run: %s",
					       t->part->number, t->part->fstype, dt->scripts[i],
					       imgp_errmsg());
			rc = rc == -ENOMEM ? rc : 0;
			imgp_errclear_();
			continue;
		}
		/* The board's variables are those the loader imported: dt's. */
		sh = imgp_ushell_new_(&ops, &run);
		rc = sh ? 0 : imgp_fail(ENOMEM, "out of memory");
		if (!rc)
			rc = imgp_ushell_run_(sh, scr.text);
		if (rc && rc != -ENOMEM) {
			imgp_warn_into_(warnings, IMGP_PART_FMT " (%s): %s: %s", t->part->number,
				       t->part->fstype, dt->scripts[i], imgp_errmsg());
			imgp_errclear_();
			rc = 0;
		}
		imgp_ushell_free_(sh);
		imgp_bootscr_free_(&scr);
		*ran = *ran || !rc;
	}
	return rc;
}

/* "boot path armbian: /boot/dtb/x.dtb + /boot/dtb/overlay/y.dtbo" */
static int provenance(struct imgp_survey *sv, struct imgp_effective *t,
		      const bool *applied, bool scripts_ran)
{
	struct imgp_buf b = { 0 };
	size_t head;
	int rc;

	rc = imgp_buf_printf(&b, "boot path %s: ", sv->bootpath->name);
	head = b.len;
	if (!rc && t->image)
		rc = imgp_buf_printf(&b, "%s %s", sv->fit_path, t->image->name);
	else if (!rc && !(t->ran && t->ran != t->bootdt))
		rc = imgp_buf_printf(&b, "%s", t->path);
	if (!rc && !t->image && strcmp(t->path, IMGP_OVERRIDE_PATH) == 0 &&
	    sv->bootpath == &imgp_bootpath_fit_)
		rc = imgp_buf_printf(&b, ", loaded by %s instead of the FIT's tree",
				     sv->script.path);
	if (!rc && t->ran && t->ran != t->bootdt)
		rc = imgp_buf_printf(&b, "%s", t->ran->path);
	for (size_t i = 0; !rc && t->ran && i < t->ran->noverlays; i++)
		if (applied[i])
			rc = imgp_buf_printf(&b, " + %s", t->ran->overlays[i]);
	for (size_t i = 0; !rc && scripts_ran && i < t->ran->nscripts; i++)
		rc = imgp_buf_printf(&b, " + %s", t->ran->scripts[i]);
	if (!rc && t->ran && t->ran != t->bootdt)
		rc = imgp_buf_printf(&b, " (label %s: sysboot's next, label %s failed)",
				     t->ran->label, t->bootdt->label);
	t->provenance = rc ? NULL : (char *)imgp_buf_steal_(&b, NULL);
	t->booted = t->provenance ? t->provenance + head : NULL;
	imgp_buf_free(&b);
	return t->provenance ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/* The captured warnings, a line each, into t->warnings. 0 or -ENOMEM. */
static int keep_warnings(struct imgp_effective *t, char *lines)
{
	for (char *line = lines, *end; *line; line = end + 1) {
		char **grown = realloc(t->warnings, (t->nwarnings + 1) * sizeof(*grown));

		end = strchr(line, '\n');
		*end = '\0';
		if (!grown)
			return imgp_fail(ENOMEM, "out of memory");
		t->warnings = grown;
		grown[t->nwarnings] = strdup(line);
		if (!grown[t->nwarnings])
			return imgp_fail(ENOMEM, "out of memory");
		t->nwarnings++;
	}
	return 0;
}

/*
 * Builds t (part, path, image, bootdt set): the base, then the overlays;
 * with kept, the warnings met go into t->warnings, not to the log.
 */
static int build(struct imgp_survey *sv, struct imgp_effective *t, bool kept)
{
	/* Kept: what is computed keeps its warnings, else they go to the log. */
	struct imgp_buf warnings = { 0 }, *into = &warnings;
	bool *applied, scripts_ran = false;
	size_t n = 0;
	int rc;

	/* Room to mark the overlays of the longest label sysboot may reach. */
	for (const struct imgp_survey_bootdt *dt = t->bootdt; dt; dt = dt->next)
		n = dt->noverlays > n ? dt->noverlays : n;
	applied = calloc(n ? n : 1, sizeof(*applied));
	if (!applied)
		return imgp_fail(ENOMEM, "out of memory");
	t->boot_path = sv->bootpath_name;
	t->ran = t->bootdt;
	/* What the boot depends on that the image does not say, as warnings. */
	for (size_t i = 0; t->bootdt && i < t->bootdt->nnotes; i++)
		imgp_warn_into_(into, "%s", t->bootdt->notes[i]);
	do {
		memset(applied, 0, (n ? n : 1) * sizeof(*applied));
		rc = load_base(sv, t);
		if (rc && rc != -ENOMEM)
			rc = t->ran == t->bootdt ? keep_failure(t, rc, NULL, NULL) : 0;
		else if (!rc && t->ran && t->ran->noverlays)
			rc = apply_overlays(sv, t, applied, into);
		/* 1: that label failed too, sysboot goes on to the next. */
	} while (rc == 1);
	/* After a failed overlay Armbian boots the base tree without its fixups. */
	if (!rc && t->dtb.fdt && !t->reverted && t->ran && t->ran->nscripts)
		rc = run_scripts(sv, t, &scripts_ran, into);
	if (!rc)
		rc = provenance(sv, t, applied, scripts_ran);
	if (!kept)
		imgp_warn_lines_(imgp_survey_ctx_(sv), (const char *)warnings.data);
	else if (!rc && warnings.len)
		rc = keep_warnings(t, (char *)warnings.data);
	imgp_buf_free(&warnings);
	free(applied);
	return rc;
}

static int set_string(char **field, const char *s)
{
	*field = s ? strdup(s) : NULL;
	return s && !*field ? imgp_fail(ENOMEM, "out of memory") : 0;
}

static int fit_image(struct imgp_survey *sv, const struct imgp_fit_image *img,
		     struct imgp_effective *t, bool kept)
{
	const struct imgp_fit *fit = &sv->fit.fit;
	const char *model = NULL;

	memset(t, 0, sizeof(*t));
	/* The first configuration that boots it names it, as the script picks one. */
	for (size_t i = 0; i < fit->nconfs && !model; i++)
		if (fit->confs[i].fdt && strcmp(fit->confs[i].fdt, img->name) == 0)
			model = fit->confs[i].name;
	t->part = sv->fit.part;
	t->image = img;
	if (set_string(&t->model, model) || set_string(&t->path, sv->fit_path))
		return -ENOMEM;
	return build(sv, t, kept);
}

int imgp_effective_fit_image_(struct imgp_survey *sv, const struct imgp_fit_image *img,
			     struct imgp_effective *t)
{
	return fit_image(sv, img, t, false);
}

bool imgp_effective_override_loaded_(const struct imgp_survey *sv)
{
	return sv->bootpath == &imgp_bootpath_fit_ && sv->hook_loaded &&
	       sv->override.exists;
}

/* The trees of a FIT: the override the script loads, else each fdt image. */
static int build_fit(struct imgp_survey *sv, struct imgp_effective **trees, size_t *n)
{
	const struct imgp_fit *fit = &sv->fit.fit;
	size_t count = 0;
	int rc = 0;

	if (imgp_effective_override_loaded_(sv)) {
		*trees = calloc(1, sizeof(**trees));
		if (!*trees)
			return imgp_fail(ENOMEM, "out of memory");
		*n = 1;
		(*trees)->part = sv->override.part;
		rc = set_string(&(*trees)->path, IMGP_OVERRIDE_PATH);
		return rc ? rc : build(sv, *trees, true);
	}
	if (!sv->fit.parsed)
		return 0;
	for (size_t i = 0; i < fit->nimages; i++)
		count += strcmp(fit->images[i].type, "flat_dt") == 0;
	*trees = calloc(count ? count : 1, sizeof(**trees));
	if (!*trees)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < fit->nimages; i++) {
		if (strcmp(fit->images[i].type, "flat_dt") != 0)
			continue;
		rc = fit_image(sv, &fit->images[i], &(*trees)[*n], true);
		(*n)++;
	}
	return rc;
}

/* Kept, not logged: a command warns of the trees it touches alone. */
int imgp_effective_build_(struct imgp_survey *sv, struct imgp_effective **trees,
			 size_t *n)
{
	const struct imgp_survey_bootinfo *bi = &sv->bootinfo;
	int rc = 0;

	*trees = NULL;
	*n = 0;
	if (!sv->bootpath || !sv->boot)
		return 0;
	if (sv->bootpath == &imgp_bootpath_fit_) {
		rc = build_fit(sv, trees, n);
	} else if (bi->ndts) {
		*trees = calloc(bi->ndts, sizeof(**trees));
		if (!*trees)
			return imgp_fail(ENOMEM, "out of memory");
		for (size_t i = 0; !rc && i < bi->ndts; i++) {
			struct imgp_effective *t = &(*trees)[(*n)++];

			t->part = sv->boot;
			t->bootdt = &bi->dts[i];
			rc = set_string(&t->model, bi->dts[i].model);
			if (!rc)
				rc = set_string(&t->path, bi->dts[i].path);
			if (!rc)
				rc = build(sv, t, true);
		}
	}
	if (rc) {
		imgp_effective_free_(*trees, *n);
		*trees = NULL;
		*n = 0;
	}
	return rc;
}


void imgp_effective_free_(struct imgp_effective *trees, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(trees[i].model);
		free(trees[i].provenance);
		free(trees[i].path);
		free(trees[i].error);
		free(trees[i].failed);
		for (size_t k = 0; k < trees[i].nwarnings; k++)
			free(trees[i].warnings[k]);
		free(trees[i].warnings);
		imgp_dtb_free_(&trees[i].dtb);
	}
	free(trees);
}

const char *imgp_effective_name_(const struct imgp_effective *t)
{
	return t->model ? t->model : t->image ? t->image->name : t->path;
}

/* A FIT tree by its configuration or image name, a boot path's as patch names it. */
static bool is_named(const struct imgp_effective *t, const char *name)
{
	return (t->model && strcmp(t->model, name) == 0) ||
	       (t->image && strcmp(t->image->name, name) == 0) ||
	       (!t->image && strcmp(t->path, name) == 0) ||
	       (t->bootdt && imgp_bootdt_named_(t->bootdt, name));
}

/* "a, b, c": the names of the trees, for a message. */
static char *names(const struct imgp_effective *trees, size_t n)
{
	struct imgp_buf b = { 0 };
	char *s;
	int rc = imgp_buf_printf(&b, "%s", "");

	for (size_t i = 0; !rc && i < n && i < IMGP_NAMES_SHOWN; i++)
		rc = imgp_buf_printf(&b, "%s%s", i ? ", " : "",
				     imgp_effective_name_(&trees[i]));
	/* A kernel's every tree is info's to list, not one line's. */
	if (!rc && n > IMGP_NAMES_SHOWN)
		rc = imgp_buf_printf(&b, ", ... %zu in all: imgpatch info --json lists them", n);
	s = rc ? NULL : (char *)imgp_buf_steal_(&b, NULL);
	imgp_buf_free(&b);
	return s;
}

int imgp_effective_pick_(const struct imgp_effective *trees, size_t n,
			const char *model, const struct imgp_effective **out)
{
	size_t found = 0;
	char *have;
	int rc;

	*out = NULL;
	if (!n)
		return imgp_fail(ENOENT, "no tree: the boot path names none");

	for (size_t i = 0; model && i < n; i++)
		if (is_named(&trees[i], model)) {
			*out = *out ? *out : &trees[i];
			found++;
		}
	if (found > 1) {
		have = names(trees, n);
		if (!have)
			return imgp_fail(ENOMEM, "out of memory");
		rc = imgp_fail_name_(EEXIST, "'%s' names %zu trees (have: %s): name one by its path",
			       model, found, have);
		free(have);
		*out = NULL;
		return rc;
	}
	/* Without a model, the tree the image's own U-Boot picks. */
	for (size_t i = 0; !model && n > 1 && i < n && !*out; i++)
		if (trees[i].bootdt && trees[i].bootdt->uboot_default)
			*out = &trees[i];
	if (*out || (!model && n == 1)) {
		*out = *out ? *out : &trees[0];
		return 0;
	}
	have = names(trees, n);
	if (!have)
		return imgp_fail(ENOMEM, "out of memory");
	rc = model ? imgp_fail_name_(ENOENT, "no tree '%s' (have: %s)", model, have) :
		     imgp_fail(EEXIST, "%zu trees (%s): name one", n, have);
	free(have);
	return rc;
}

int imgp_effective_pick_model_(const struct imgp_effective *trees, size_t n,
			      const char *model, const struct imgp_effective **out)
{
	int rc = imgp_effective_pick_(trees, n, model, out);

	/* Past a dozen, the list of names is info's to give, not one line's. */
	if (rc == -ENOENT && n > IMGP_NAMES_SHOWN)
		return imgp_fail_name_(ENOENT, "--model '%s': no such tree among the %zu the boot path offers (imgpatch info --json lists them)",
				      model, n);
	return rc ? imgp_fail_ctx(rc, "--model '%s'", model) : 0;
}
