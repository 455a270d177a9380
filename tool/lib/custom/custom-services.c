// SPDX-License-Identifier: MIT
/*
 * systemd units and first-boot scripts for customize: --enable, --disable
 * and --mask make the links systemctl would (custom-units.c says which);
 * --firstboot and --firstboot-command install a script that the runner of
 * custom-firstboot.c runs once at the first boot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "patch/patch.h"
#include "custom/custom.h"
#include "custom/custom-run.h"

int imgp_custom_plan_unit_op_(struct custom_run *run, const char *op, const char *value)
{
	struct imgp_unit_root root;
	struct imgp_unit_links links = { 0 };
	int rc;

	imgp_custom_unit_root_(run, &root);
	if (strcmp(op, "enable") == 0)
		rc = imgp_units_enable_(&root, value, &links);
	else if (strcmp(op, "disable") == 0)
		rc = imgp_units_disable_(&root, value, &links);
	else
		rc = imgp_units_mask_(&root, value, &links);
	if (!rc)
		rc = imgp_custom_apply_links_(run, &links);
	if (!rc)
		rc = imgp_custom_note_(run, "%s %s: %zu link%s, as systemctl %s makes them", op, value,
				    links.n, links.n == 1 ? "" : "s", op);
	imgp_unit_links_free_(&links);
	return rc;
}

/* "0003-NAME" -> 3 and NAME; -1 for another name. */
static long script_number(const char *file, const char **name)
{
	char *end;
	long n = strtol(file, &end, 10);

	if (end != file + 4 || *end != '-')
		return -1;
	*name = end + 1;
	return n;
}

/*
 * The number the next script gets: one past those the folder holds; or
 * the number of a script of the same name and text already there (an
 * earlier run's: a second run changes nothing). *same: that was so.
 */
static int next_number(struct custom_run *run, const struct imgp_gen_files *f,
		       unsigned *seq, bool *same)
{
	const struct imgp_part *part;
	char **names = NULL, *dir = NULL;
	size_t n = 0;
	long max = 0;
	const char *want = strrchr(f->v[f->n - 1].path, '/') + 1 + 5;
	int rc = imgp_custom_locate_(run, IMGP_FIRSTBOOT_DIR, &part, &dir);

	*same = false;
	if (!rc) {
		rc = imgp_patch_list_(run->patch, part, dir, &names, &n);
		if (rc == -ENOENT) {
			imgp_errclear_();
			rc = 0;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const char *name;
		long k = script_number(names[i], &name);

		if (!rc && k >= 0 && strcmp(name, want) == 0 && !*same) {
			struct imgp_buf old = { 0 };
			char *path = NULL;
			bool exists = false;

			rc = asprintf(&path, "%s/%s", dir, names[i]) < 0 ?
			     imgp_fail(ENOMEM, "out of memory") :
			     imgp_custom_read_(run, part, path, &old, &exists);
			if (!rc && exists && old.len == f->v[f->n - 1].text.len &&
			    memcmp(old.data, f->v[f->n - 1].text.data, old.len) == 0) {
				*same = true;
				*seq = (unsigned)k;
			}
			imgp_buf_free(&old);
			free(path);
		}
		if (k > max)
			max = k;
		free(names[i]);
	}
	free(names);
	free(dir);
	if (!*same)
		*seq = (unsigned)max + 1 > run->firstboot_seq ? (unsigned)max + 1
							      : run->firstboot_seq;
	return rc;
}

int imgp_custom_plan_firstboot_(struct custom_run *run, const char *op, const char *value)
{
	struct imgp_buf script = { 0 };
	struct imgp_gen_files files = { 0 };
	struct imgp_unit_root root;
	struct imgp_unit_links links = { 0 };
	const char *name = "command";
	unsigned seq = 0;
	bool same = false;
	int rc;

	if (strcmp(op, "firstboot") == 0) {
		rc = imgp_read_local_(value, 1 << 20, false, &script);
		name = strrchr(value, '/') ? strrchr(value, '/') + 1 : value;
	} else {
		rc = imgp_buf_printf(&script, "#!/bin/sh\n%s\n", value) ?
		     imgp_fail(ENOMEM, "out of memory") : 0;
	}
	/* Numbered once the folder is read: a probe with 0 gives the script's name. */
	if (!rc)
		rc = imgp_firstboot_files_(0, name, (char *)script.data, script.len, &files);
	if (!rc)
		rc = next_number(run, &files, &seq, &same);
	imgp_gen_files_free_(&files);
	if (!rc)
		rc = imgp_firstboot_files_(seq, name, (char *)script.data, script.len, &files);
	for (size_t i = 0; !rc && i < files.n; i++)
		rc = imgp_custom_put_(run, files.v[i].path, files.v[i].text.data, files.v[i].text.len,
				files.v[i].mode, 0, 0, files.v[i].secret, NULL);
	run->firstboot_seq = seq + 1;
	imgp_custom_unit_root_(run, &root);
	if (!rc)
		rc = imgp_units_enable_(&root, IMGP_FIRSTBOOT_UNIT, &links);
	if (!rc)
		rc = imgp_custom_apply_links_(run, &links);
	if (!rc)
		rc = imgp_custom_note_(run, "%s %s: %s, run once at the first boot by %s", op,
				    value,
				    files.n ? files.v[files.n - 1].path : "", IMGP_FIRSTBOOT_UNIT);
	imgp_unit_links_free_(&links);
	imgp_gen_files_free_(&files);
	imgp_buf_free(&script);
	return rc;
}
