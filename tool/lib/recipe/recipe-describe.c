// SPDX-License-Identifier: MIT
/*
 * Describing: a recipe as text for `recipe show`, and its steps one by
 * one for the JSON output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe-internal.h"

/* ---------------------------------------------------------- describe */

/*
 * Appends text reflowed to WRAP columns at indent: lines of a paragraph are
 * joined, a blank line separates paragraphs, and a line that starts with
 * '-', '*' or white space starts a new output line (lists stay lists).
 */
static int put_wrapped(struct imgp_buf *out, const char *text, int indent)
{
	int col = 0, rc = 0;
	bool blank = false;
	const char *p = text;

	while (!rc && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		size_t i = 0;

		while (i < len && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i == len) {
			/* One blank line between paragraphs, none at the start. */
			if (col)
				rc = imgp_buf_printf(out, "\n");
			col = 0;
			blank = true;
		} else {
			if (blank && out->len)
				rc = imgp_buf_printf(out, "\n");
			blank = false;
			if (col && (i > 0 || p[i] == '-' || p[i] == '*')) {
				rc |= imgp_buf_printf(out, "\n");
				col = 0;
			}
			while (!rc && i < len) {
				size_t w = i;

				while (w < len && p[w] != ' ' && p[w] != '\t')
					w++;
				if (col && col + 1 + (int)(w - i) > WRAP) {
					rc = imgp_buf_printf(out, "\n");
					col = 0;
				}
				if (!col)
					rc |= imgp_buf_printf(out, "%*s%.*s", indent, "",
							      (int)(w - i), p + i);
				else
					rc |= imgp_buf_printf(out, " %.*s",
							      (int)(w - i), p + i);
				col += (col ? 1 : indent) + (int)(w - i);
				for (i = w; i < len && (p[i] == ' ' || p[i] == '\t'); i++)
					;
			}
		}
		p += len + (eol ? 1 : 0);
	}
	if (!rc && col)
		rc = imgp_buf_printf(out, "\n");
	return rc;
}

/* Renders an action's show template for a step (see struct action). */
static int put_step(struct imgp_buf *out, const struct recipe_step *st)
{
	const char *t = st->action->show;
	int rc = 0;

	while (!rc && *t) {
		if (*t == '[') {
			const char *end = strchr(t, ']');
			bool all = true;

			/* Optional part: shown when every option in it is set. */
			for (const char *q = t; q < end; q++) {
				if (*q != '{')
					continue;
				q += q[1] == '?';
				for (int o = 0; o < OP_COUNT; o++) {
					size_t n = strlen(opt_names[o]);

					if (!strncmp(q + 1, opt_names[o], n) &&
					    q[1 + n] == '}' && !st->raw[o])
						all = false;
				}
			}
			if (!all) {
				t = end + 1;
				continue;
			}
			t++;
			continue;
		}
		if (*t == ']') {
			t++;
			continue;
		}
		if (*t == '{') {
			bool hide = t[1] == '?';
			const char *name = t + 1 + hide;
			const char *end = strchr(name, '}');

			for (int o = 0; o < OP_COUNT; o++)
				if (strlen(opt_names[o]) == (size_t)(end - name) &&
				    !strncmp(name, opt_names[o], (size_t)(end - name)) &&
				    !hide)
					rc = imgp_buf_printf(out, "%s",
							     st->raw[o] ? st->raw[o] : "");
			t = end + 1;
			continue;
		}
		rc = imgp_buf_append(out, t, 1);
		t++;
	}
	if (!rc && st->when)
		rc = imgp_buf_printf(out, " (only when %.*s=%s)",
				     (int)strcspn(st->when + 2, "}"), st->when + 2,
				     st->when_value) ? -ENOMEM : 0;
	return rc;
}

size_t imgp_recipe_nsteps(const struct imgp_recipe *r)
{
	return r->nsteps;
}

int imgp_recipe_step(const struct imgp_recipe *r, size_t i, const char **action,
		     struct imgp_buf *text)
{
	if (i >= r->nsteps)
		return imgp_fail(ERANGE, "recipe '%s' has %zu steps", r->name, r->nsteps);
	*action = r->steps[i].action->name;
	return put_step(text, &r->steps[i]) ? imgp_fail(ENOMEM, "out of memory") : 0;
}

static int put_section(struct imgp_buf *out, const char *title, const char *text)
{
	int rc;

	if (!*text)
		return 0;
	rc = imgp_buf_printf(out, "\n%s:\n", title);
	return rc ? rc : put_wrapped(out, text, 2);
}

int imgp_recipe_describe(const struct imgp_recipe *r, struct imgp_buf *out)
{
	const struct recipe_step *load = imgp_recipe_first_dt_load_(r);
	int rc;

	rc = imgp_buf_printf(out, "%s: %s\n\n", r->name, r->summary);
	if (!rc)
		rc = put_wrapped(out, r->description, 2);
	if (!rc && r->nparams)
		rc = imgp_buf_printf(out, "\nparameters:\n");
	for (size_t i = 0; !rc && i < r->nparams; i++) {
		const struct imgp_recipe_param *p = &r->params[i];
		const char *sep = "";

		rc = imgp_buf_printf(out, "  %s (", p->name);
		if (!rc && p->required) {
			rc = imgp_buf_printf(out, "required");
			sep = "; ";
		}
		/* Reports show "set" for it: the user knows why the value is missing there. */
		if (!rc && p->secret) {
			rc = imgp_buf_printf(out, "%ssecret", sep);
			sep = "; ";
		}
		if (!rc && p->is_int) {
			rc = imgp_buf_printf(out, "%sinteger", sep);
			if (!rc && p->has_min && p->has_max)
				rc = imgp_buf_printf(out, " %ld..%ld", p->min, p->max);
			else if (!rc && p->has_min)
				rc = imgp_buf_printf(out, " >= %ld", p->min);
			else if (!rc && p->has_max)
				rc = imgp_buf_printf(out, " <= %ld", p->max);
			sep = "; ";
		}
		if (!rc && p->nvalues) {
			rc = imgp_buf_printf(out, "%sone of: ", sep);
			for (size_t k = 0; !rc && k < p->nvalues; k++)
				rc = imgp_buf_printf(out, "%s%s", k ? ", " : "",
						     p->values[k]);
			sep = "; ";
		}
		for (size_t k = 0; !rc && k < p->naliases; k++)
			rc = imgp_buf_printf(out, "%s%s means %s", k ? ", " : sep,
					     p->alias_given[k], p->alias_value[k]);
		if (!rc && p->def)
			rc = imgp_buf_printf(out, "%sdefault: %s", sep, p->def);
		if (!rc)
			rc = imgp_buf_printf(out, ")\n");
		if (!rc)
			rc = put_wrapped(out, p->description, 6);
		/* The words, wrapped; the pattern as written, on a line of its own. */
		if (!rc && p->pattern_text) {
			char *must;

			if (asprintf(&must, "must be %s", p->pattern_text) < 0)
				return imgp_fail(ENOMEM, "out of memory");
			rc = put_wrapped(out, must, 6);
			free(must);
		}
		if (!rc && p->pattern)
			rc = imgp_buf_printf(out, "      pattern: %s\n", p->pattern);
	}
	if (!rc)
		rc = imgp_buf_printf(out, "\nmatches:\n");
	if (!rc && !r->nrules)
		rc = imgp_buf_printf(out, "  any image\n");
	for (int k = 0; !rc && k < R_COUNT; k++) {
		static const char *const titles[R_COUNT] = {
			"partition labels", "partitions", "files", "fdt images in the FIT",
			"root compatible",
		};
		size_t n = 0;

		for (size_t i = 0; !rc && i < r->nrules; i++) {
			if (r->rules[i].kind != (enum rule_kind)k)
				continue;
			if (n++)
				rc = imgp_buf_printf(out, ", %s", r->rules[i].raw);
			else
				rc = imgp_buf_printf(out, "  %s: %s", titles[k],
						     r->rules[i].raw);
		}
		if (!rc && n && k == R_FITFDT)
			rc = imgp_buf_printf(out, " (in %s)",
					     load && load->action->run == imgp_recipe_run_fdt_from_fit_ ?
					     load->raw[OP_FIT] : "/image.fit");
		if (!rc && n && k == R_COMPAT)
			rc = imgp_buf_printf(out, " (of the tree step %zu loads)",
					     (size_t)(load - r->steps) + 1);
		if (!rc && n)
			rc = imgp_buf_printf(out, "\n");
	}
	if (!rc)
		rc = imgp_buf_printf(out, "\nsteps:\n");
	for (size_t i = 0; !rc && i < r->nsteps; i++) {
		rc = imgp_buf_printf(out, "  %zu. %s: ", i + 1,
				     r->steps[i].action->name);
		if (!rc)
			rc = put_step(out, &r->steps[i]);
		if (!rc)
			rc = imgp_buf_printf(out, "\n");
	}
	if (!rc)
		rc = put_section(out, "source", r->source);
	if (!rc)
		rc = put_section(out, "risks", r->risks);
	if (!rc)
		rc = put_section(out, "undo", r->undo);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}
