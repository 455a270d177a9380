// SPDX-License-Identifier: MIT
/*
 * imgpatch doctor: every storage-performance finding the library knows
 * for an image (imgp_doctor_run, read-only), as text or as one JSON
 * document (tool/schema/doctor.schema.json). With --fail-on a CI job can
 * fail on a finding; without it the exit status only says whether the
 * image could be examined.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text/json.h"

/* --fail-on: a finding at or above the severity was found. */
#define EXIT_FINDINGS 3

struct doctor_cmd {
	const char *path;        /* IMAGE as given */
	char *image;             /* IMAGE as a shell word, for the fix commands */
	bool compressed;         /* fixes recompress it: --in-place */
	struct imgp_doctor *doc;
	struct imgp_doctor_view v;
};

/* "imgpatch apply RECIPE IMAGE ARGS" / "imgpatch patch IMAGE ARGS", or NULL. */
static char *fix_command(const struct doctor_cmd *dc, const struct imgp_finding *f,
			 bool apply)
{
	char *s;
	int n;

	if (apply && f->recipe)
		n = asprintf(&s, "imgpatch apply %s %s%s%s%s", f->recipe, dc->image,
			     f->recipe_args && *f->recipe_args ? " " : "",
			     f->recipe_args ? f->recipe_args : "",
			     dc->compressed ? " --in-place" : "");
	else if (!apply && f->patch_args)
		n = asprintf(&s, "imgpatch patch %s %s%s", dc->image, f->patch_args,
			     dc->compressed ? " --in-place" : "");
	else
		return NULL;
	if (n < 0)
		die("out of memory");
	return s;
}

/* ------------------------------------------------------------------ text */

static void text_evidence(const struct imgp_finding *f)
{
	const char *sep = "";

	fputs("         where: ", stdout);
	if (f->partition) {
		printf(IMGP_PART_FMT, f->partition);
		sep = " ";
	}
	if (f->file) {
		printf("%s%s", sep, f->file);
		if (f->line)
			printf(":%d", f->line);
		sep = ", ";
	}
	if (f->fdt) {
		printf("%sfdt %s", sep, f->fdt);
		sep = ", ";
	}
	if (f->node) {
		printf("%snode %s", sep, f->node);
		sep = ", ";
	}
	if (f->property)
		printf("%s%s", sep, f->property);
	putchar('\n');
}

/*
 * Where U-Boot picks one of many trees and nothing in the image says
 * which: one line per tree with its findings' ids, not every finding.
 */
static void text_by_tree(const struct doctor_cmd *dc)
{
	size_t n = dc->v.nfindings;
	bool *done = calloc(n ? n : 1, sizeof(*done));

	if (!done)
		die("out of memory");
	printf("%zu trees: U-Boot picks one by its %s, and the image does not say which "
	       "(no U-Boot before its first partition names one); findings by tree "
	       "(imgpatch doctor %s --model TREE for one in full):\n",
	       dc->v.ntrees, dc->v.chooser, dc->image);
	for (size_t i = 0; i < n; i++) {
		const struct imgp_finding *f = imgp_doctor_finding(dc->doc, i);
		const char *sep = "";

		if (done[i] || !f->tree)
			continue;
		printf("  %s:", f->tree + (strncmp(f->tree, "boot path ", 10) ? 0 :
					  strcspn(f->tree, ":") + 2));
		for (size_t k = i; k < n; k++) {
			const struct imgp_finding *g = imgp_doctor_finding(dc->doc, k);

			if (done[k] || !g->tree || strcmp(g->tree, f->tree))
				continue;
			done[k] = true;
			printf("%s %s (%s)", sep, g->id, imgp_severity_name(g->severity));
			sep = ",";
		}
		putchar('\n');
	}
	putchar('\n');
	free(done);
}

static void print_text(const struct doctor_cmd *dc)
{
	const struct imgp_doctor_view *v = &dc->v;
	const struct imgp_finding *f;
	size_t warnings = 0;

	if (v->picked && v->ntrees > 1)
		printf("tree judged: %s, picked by %s, of the %zu the boot path offers\n\n",
		       v->picked, v->picked_by, v->ntrees);
	if (v->chooser)
		text_by_tree(dc);
	for (size_t i = 0; (f = imgp_doctor_finding(dc->doc, i)); i++) {
		const char *lead = "         fix:   ";
		char *cmd;

		warnings += f->severity == IMGP_SEVERITY_WARNING;
		if (v->chooser && f->tree)
			continue;
		printf("%-7s  %s: %s\n", imgp_severity_name(f->severity), f->id,
		       f->title ? f->title : "");
		text_evidence(f);
		/* A FIT's tree is named by file and fdt; another path's by its provenance. */
		if (f->tree && f->boot_path && !f->tree_in_fit) {
			/* The model, unless the tree's file already says it. */
			bool model = f->model && !strstr(f->tree, f->model);

			printf("         tree:  %s%s%s%s\n", f->tree, model ? " (model " : "",
			       model ? f->model : "", model ? ")" : "");
		}
		if (f->cost)
			printf("         cost:  %s\n", f->cost);
		if (f->hint) {
			printf("%s%s\n", lead, f->hint);
			lead = "                ";
		}
		for (int apply = 1; apply >= 0; apply--) {
			cmd = fix_command(dc, f, apply);
			if (cmd)
				printf("%s%s\n", lead, cmd);
			if (cmd)
				lead = "                ";
			free(cmd);
		}
		putchar('\n');
	}
	if (v->root_unread)
		printf("root: %s\n\n", v->root_unread);
	if (!v->nfindings)
		printf("%s: no findings\n", dc->path);
	else
		printf("%s: %zu finding%s: %zu warning%s, %zu info\n", dc->path,
		       v->nfindings, v->nfindings == 1 ? "" : "s", warnings,
		       warnings == 1 ? "" : "s", v->nfindings - warnings);
}

/* ------------------------------------------------------------------ JSON */

static void json_opt_int(struct imgp_json *j, const char *key, int v)
{
	if (v)
		imgp_json_kv_int(j, key, v);
	else
		imgp_json_kv_null(j, key);
}

static void json_finding(struct imgp_json *j, const struct doctor_cmd *dc,
			 const struct imgp_finding *f)
{
	char *cmd;

	imgp_json_object_begin(j);
	imgp_json_kv_string(j, "id", f->id);
	imgp_json_kv_string(j, "severity", imgp_severity_name(f->severity));
	imgp_json_kv_string(j, "title", f->title);
	imgp_json_kv_string(j, "cost", f->cost);
	imgp_json_key(j, "evidence");
	imgp_json_object_begin(j);
	json_opt_int(j, "partition", f->partition);
	imgp_json_kv_string(j, "file", f->file);
	imgp_json_kv_string(j, "fdt", f->fdt);
	imgp_json_kv_string(j, "node", f->node);
	imgp_json_kv_string(j, "property", f->property);
	json_opt_int(j, "line", f->line);
	imgp_json_kv_string(j, "boot_path", f->boot_path);
	imgp_json_kv_string(j, "model", f->model);
	imgp_json_kv_string(j, "tree", f->tree);
	imgp_json_object_end(j);
	imgp_json_key(j, "fix");
	imgp_json_object_begin(j);
	imgp_json_kv_string(j, "recipe", f->recipe);
	cmd = fix_command(dc, f, true);
	imgp_json_kv_string(j, "apply", cmd);
	free(cmd);
	cmd = fix_command(dc, f, false);
	imgp_json_kv_string(j, "command", cmd);
	free(cmd);
	imgp_json_kv_string(j, "hint", f->hint);
	imgp_json_object_end(j);
	imgp_json_object_end(j);
}

static int print_json(const struct doctor_cmd *dc)
{
	const struct imgp_finding *f;
	size_t warnings = 0;
	struct imgp_json j;
	int rc;

	imgp_json_init(&j, stdout);
	imgp_json_object_begin(&j);
	imgp_json_kv_uint(&j, "schema_version", 1);
	imgp_json_kv_string(&j, "image", dc->path);
	imgp_json_key(&j, "findings");
	imgp_json_array_begin(&j);
	for (size_t i = 0; (f = imgp_doctor_finding(dc->doc, i)); i++) {
		json_finding(&j, dc, f);
		warnings += f->severity == IMGP_SEVERITY_WARNING;
	}
	imgp_json_array_end(&j);
	imgp_json_key(&j, "summary");
	imgp_json_object_begin(&j);
	imgp_json_kv_uint(&j, "warning", warnings);
	imgp_json_kv_uint(&j, "info", dc->v.nfindings - warnings);
	imgp_json_object_end(&j);
	imgp_json_kv_string(&j, "root_unread", dc->v.root_unread);
	imgp_json_object_end(&j);
	rc = imgp_json_finish(&j);
	if (rc == -EINVAL)
		error("internal error: malformed JSON output");
	return rc;
}

/* ------------------------------------------------------------------- cmd */

enum { OPT_JSON = 256, OPT_FIT, OPT_FDT, OPT_FAIL_ON, OPT_MODEL };

static const struct cli_option doctor_options[] = {
	{ OPT_JSON, "json", 0, NULL, "print one JSON document (schema_version 1)" },
	{ OPT_FIT, "fit", 0, "PATH", "FIT file to look for (default " IMGP_FIT_PATH ")" },
	{ OPT_FDT, "fdt", 0, "NAME|INDEX", "examine only this fdt of the FIT" },
	{ OPT_MODEL, "model", 0, "MODEL", "examine only the tree the boot path boots for\n"
	  "MODEL (a model, a tree's file name or path)" },
	{ OPT_FAIL_ON, "fail-on", 0, "SEVERITY", "exit 3 when a finding of SEVERITY (warning or\n"
	  "info) or a worse one is found" },
	CLI_OPTIONS_END,
};

static const struct cli_option *const doctor_tables[] = { doctor_options, NULL };

static const struct cli_command doctor_command = {
	"doctor",
	"Usage: imgpatch doctor IMAGE [--json] [--fit PATH] [--fdt NAME|INDEX]\n"
	"                       [--model MODEL] [--fail-on warning|info]\n"
	"List what keeps IMAGE's storage below what its hardware can do: SD/eMMC\n"
	"controller settings of the device trees the board boots, fstab options,\n"
	"swap, fstrim.timer, the boot script's override hook, kernel fixes and\n"
	"config.txt; each finding with its cost, evidence and fix. Read-only.\n\n",
	doctor_tables,
	"Exit status: 0 examined (with or without findings), 1 the image cannot be\n"
	"read, 2 usage error, 3 a finding at or above the --fail-on severity.\n",
};

int cmd_doctor(int argc, char **argv)
{
	static const char *const args[] = { "IMAGE" };
	struct imgp_doctor_opts dopts = { 0 };
	struct doctor_cmd dc = { 0 };
	enum imgp_severity fail_on = IMGP_SEVERITY_WARNING;
	struct imgp_buf quoted = { 0 };
	struct cli_parser p;
	struct cli_read img;
	bool json = false, fail = false;
	char *fit_path = NULL;
	int c = CLI_END, rc = 0;

	cli_parser_init(&p, &doctor_command, argc, argv);
	while (!rc && (c = cli_next(&p)) > 0) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case OPT_FIT:
			cli_fit_path(&p, &fit_path);
			break;
		case OPT_FDT:
			dopts.fdt = p.value;
			break;
		case OPT_MODEL:
			dopts.model = p.value;
			break;
		case OPT_FAIL_ON:
			if (imgp_severity_parse(p.value, &fail_on))
				rc = cli_bad_value(&p, "warning or info");
			fail = true;
			break;
		}
	}
	if (!rc)
		rc = c == CLI_STOP ? p.exit : cli_arguments(&p, 1, 1, args);
	dc.path = rc || c == CLI_STOP ? NULL : p.args[0];
	cli_parser_free(&p);
	if (rc || c == CLI_STOP) {
		free(fit_path);
		return rc;
	}
	dopts.fit_path = fit_path;
	if (imgp_shell_quote(&quoted, dc.path))
		die("out of memory");
	dc.image = (char *)quoted.data;

	rc = cli_read_open(&img, dc.path);
	dc.compressed = !rc && imgp_work_format(img.src) != IMGP_FMT_RAW;
	if (!rc && imgp_doctor_run(img.disk, &dopts, &dc.doc))
		rc = error_lib_typed(dc.path, dopts.model != NULL);
	if (!rc) {
		imgp_doctor_get(dc.doc, &dc.v);
		int out;

		if (json) {
			out = print_json(&dc);
		} else {
			print_text(&dc);
			out = fflush(stdout) || ferror(stdout) ? -EIO : 0;
		}
		if (out == -EIO)
			error("cannot write output: %s", strerror(EIO));
		if (out)
			rc = EXIT_ERROR;
	}
	for (size_t i = 0; !rc && fail && i < dc.v.nfindings; i++)
		if (imgp_doctor_finding(dc.doc, i)->severity >= fail_on)
			rc = EXIT_FINDINGS;
	imgp_doctor_free(dc.doc);
	imgp_buf_free(&quoted);
	cli_read_close(&img);
	free(fit_path);
	return rc;
}
