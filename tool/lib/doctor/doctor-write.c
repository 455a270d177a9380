// SPDX-License-Identifier: MIT
/*
 * What imgpatch doctor shows of a report: every finding with its
 * evidence, cost and fix (the apply and patch commands, shell-quoted), as
 * text or as one JSON document (tool/schema/doctor.schema.json).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "part/part.h"
#include "doctor.h"
#include "text/json.h"

struct doctor_out {
	FILE *out;
	const char *path;        /* the image as its user named it */
	char *image;             /* the same as a shell word, for the fix commands */
	bool compressed;         /* fixes recompress it: --in-place */
	bool failed;             /* out of memory on the way */
	const struct imgp_doctor *doc;
	struct imgp_doctor_view v;
};

/* "imgpatch apply RECIPE IMAGE ARGS" / "imgpatch patch IMAGE ARGS", or NULL. */
static char *fix_command(struct doctor_out *d, const struct imgp_finding *f,
			 bool apply)
{
	char *s;
	int n;

	if (apply && f->recipe)
		n = asprintf(&s, "imgpatch apply %s %s%s%s%s", f->recipe, d->image,
			     f->recipe_args && *f->recipe_args ? " " : "",
			     f->recipe_args ? f->recipe_args : "",
			     d->compressed ? " --in-place" : "");
	else if (!apply && f->patch_args)
		n = asprintf(&s, "imgpatch patch %s %s%s", d->image, f->patch_args,
			     d->compressed ? " --in-place" : "");
	else
		return NULL;
	if (n < 0) {
		d->failed = true;
		return NULL;
	}
	return s;
}

/* ------------------------------------------------------------------ text */

static void text_evidence(FILE *out, const struct imgp_finding *f)
{
	const char *sep = "";

	fputs("         where: ", out);
	if (f->partition) {
		fprintf(out, IMGP_PART_FMT, f->partition);
		sep = " ";
	}
	if (f->file) {
		fprintf(out, "%s%s", sep, f->file);
		if (f->line)
			fprintf(out, ":%d", f->line);
		sep = ", ";
	}
	if (f->fdt) {
		fprintf(out, "%sfdt %s", sep, f->fdt);
		sep = ", ";
	}
	if (f->node) {
		fprintf(out, "%snode %s", sep, f->node);
		sep = ", ";
	}
	if (f->property)
		fprintf(out, "%s%s", sep, f->property);
	fputc('\n', out);
}

/*
 * Where U-Boot picks one of many trees and nothing in the image says
 * which: one line per tree with its findings' ids, not every finding.
 */
static void text_by_tree(struct doctor_out *d)
{
	size_t n = d->v.nfindings;
	bool *done = calloc(n ? n : 1, sizeof(*done));

	if (!done) {
		d->failed = true;
		return;
	}
	fprintf(d->out, "%zu trees: U-Boot picks one by its %s, and the image does not say which "
	       "(no U-Boot before its first partition names one); findings by tree "
	       "(imgpatch doctor %s --model TREE for one in full):\n",
	       d->v.ntrees, d->v.chooser, d->image);
	for (size_t i = 0; i < n; i++) {
		const struct imgp_finding *f = imgp_doctor_finding_(d->doc, i);
		const char *sep = "";

		if (done[i] || !f->tree)
			continue;
		fprintf(d->out, "  %s:", f->tree + (strncmp(f->tree, "boot path ", 10) ? 0 :
					  strcspn(f->tree, ":") + 2));
		for (size_t k = i; k < n; k++) {
			const struct imgp_finding *g = imgp_doctor_finding_(d->doc, k);

			if (done[k] || !g->tree || strcmp(g->tree, f->tree))
				continue;
			done[k] = true;
			fprintf(d->out, "%s %s (%s)", sep, g->id, imgp_severity_name_(g->severity));
			sep = ",";
		}
		fputc('\n', d->out);
	}
	fputc('\n', d->out);
	free(done);
}

static void print_text(struct doctor_out *d)
{
	const struct imgp_doctor_view *v = &d->v;
	const struct imgp_finding *f;
	size_t warnings = 0;

	if (v->picked && v->ntrees > 1)
		fprintf(d->out, "tree judged: %s, picked by %s, of the %zu the boot path offers\n\n",
		       v->picked, v->picked_by, v->ntrees);
	if (v->chooser)
		text_by_tree(d);
	for (size_t i = 0; (f = imgp_doctor_finding_(d->doc, i)); i++) {
		const char *lead = "         fix:   ";
		char *cmd;

		warnings += f->severity == IMGP_SEVERITY_WARNING;
		if (v->chooser && f->tree)
			continue;
		fprintf(d->out, "%-7s  %s: %s\n", imgp_severity_name_(f->severity), f->id,
		       f->title ? f->title : "");
		text_evidence(d->out, f);
		/* A FIT's tree is named by file and fdt; another path's by its provenance. */
		if (f->tree && f->boot_path && !f->tree_in_fit) {
			/* The model, unless the tree's file already says it. */
			bool model = f->model && !strstr(f->tree, f->model);

			fprintf(d->out, "         tree:  %s%s%s%s\n", f->tree, model ? " (model " : "",
			       model ? f->model : "", model ? ")" : "");
		}
		if (f->cost)
			fprintf(d->out, "         cost:  %s\n", f->cost);
		if (f->hint) {
			fprintf(d->out, "%s%s\n", lead, f->hint);
			lead = "                ";
		}
		for (int apply = 1; apply >= 0; apply--) {
			cmd = fix_command(d, f, apply);
			if (cmd)
				fprintf(d->out, "%s%s\n", lead, cmd);
			if (cmd)
				lead = "                ";
			free(cmd);
		}
		fputc('\n', d->out);
	}
	if (v->root_unread)
		fprintf(d->out, "root: %s\n\n", v->root_unread);
	if (!v->nfindings)
		fprintf(d->out, "%s: no findings\n", d->path);
	else
		fprintf(d->out, "%s: %zu finding%s: %zu warning%s, %zu info\n", d->path,
		       v->nfindings, v->nfindings == 1 ? "" : "s", warnings,
		       warnings == 1 ? "" : "s", v->nfindings - warnings);
}

/* ------------------------------------------------------------------ JSON */

static void json_opt_int(struct imgp_json *j, const char *key, int v)
{
	if (v)
		imgp_json_kv_int_(j, key, v);
	else
		imgp_json_kv_null_(j, key);
}

static void json_finding(struct imgp_json *j, struct doctor_out *d,
			 const struct imgp_finding *f)
{
	char *cmd;

	imgp_json_object_begin_(j);
	imgp_json_kv_string_(j, "id", f->id);
	imgp_json_kv_string_(j, "severity", imgp_severity_name_(f->severity));
	imgp_json_kv_string_(j, "title", f->title);
	imgp_json_kv_string_(j, "cost", f->cost);
	imgp_json_key_(j, "evidence");
	imgp_json_object_begin_(j);
	json_opt_int(j, "partition", f->partition);
	imgp_json_kv_string_(j, "file", f->file);
	imgp_json_kv_string_(j, "fdt", f->fdt);
	imgp_json_kv_string_(j, "node", f->node);
	imgp_json_kv_string_(j, "property", f->property);
	json_opt_int(j, "line", f->line);
	imgp_json_kv_string_(j, "boot_path", f->boot_path);
	imgp_json_kv_string_(j, "model", f->model);
	imgp_json_kv_string_(j, "tree", f->tree);
	imgp_json_object_end_(j);
	imgp_json_key_(j, "fix");
	imgp_json_object_begin_(j);
	imgp_json_kv_string_(j, "recipe", f->recipe);
	cmd = fix_command(d, f, true);
	imgp_json_kv_string_(j, "apply", cmd);
	free(cmd);
	cmd = fix_command(d, f, false);
	imgp_json_kv_string_(j, "command", cmd);
	free(cmd);
	imgp_json_kv_string_(j, "hint", f->hint);
	imgp_json_object_end_(j);
	imgp_json_object_end_(j);
}

static int print_json(struct doctor_out *d)
{
	const struct imgp_finding *f;
	size_t warnings = 0;
	struct imgp_json j;
	int rc;

	imgp_json_init_(&j, d->out);
	imgp_json_object_begin_(&j);
	imgp_json_kv_uint_(&j, "schema_version", 1);
	imgp_json_kv_string_(&j, "image", d->path);
	imgp_json_key_(&j, "findings");
	imgp_json_array_begin_(&j);
	for (size_t i = 0; (f = imgp_doctor_finding_(d->doc, i)); i++) {
		json_finding(&j, d, f);
		warnings += f->severity == IMGP_SEVERITY_WARNING;
	}
	imgp_json_array_end_(&j);
	imgp_json_key_(&j, "summary");
	imgp_json_object_begin_(&j);
	imgp_json_kv_uint_(&j, "warning", warnings);
	imgp_json_kv_uint_(&j, "info", d->v.nfindings - warnings);
	imgp_json_object_end_(&j);
	imgp_json_kv_string_(&j, "root_unread", d->v.root_unread);
	imgp_json_object_end_(&j);
	rc = imgp_json_finish_(&j);
	if (rc == -EINVAL)
		return imgp_fail(EINVAL, "internal error: malformed JSON output");
	return rc;
}


int imgp_doctor_write(const struct imgp_doctor *doc, const struct imgp_doctor_write_opts *opts,
		      FILE *out)
{
	struct imgp_buf quoted = { 0 };
	struct doctor_out d = {
		.out = out, .path = opts->name, .compressed = opts->compressed, .doc = doc,
	};
	int rc = imgp_shell_quote_(&quoted, opts->name);

	if (rc)
		return rc;
	d.image = (char *)quoted.data;
	imgp_doctor_get_(doc, &d.v);
	if (opts->json) {
		rc = print_json(&d);
	} else {
		print_text(&d);
		rc = fflush(out) || ferror(out) ? -EIO : 0;
	}
	if (!rc && d.failed)
		rc = imgp_fail(ENOMEM, "out of memory");
	imgp_buf_free(&quoted);
	return rc;
}

bool imgp_doctor_found(const struct imgp_doctor *doc, enum imgp_severity sev)
{
	const struct imgp_finding *f;

	for (size_t i = 0; (f = imgp_doctor_finding_(doc, i)); i++)
		if (f->severity >= sev)
			return true;
	return false;
}
