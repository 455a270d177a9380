// SPDX-License-Identifier: MIT
/*
 * Loading: parses a recipe file with libconfuse and checks everything
 * that needs no image (actions, options, values, the local files it names,
 * parameter references, the order of device tree steps). The param
 * sections are loaded by recipe-param.c.
 */
#include <confuse.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/distance.h"
#include "recipe-internal.h"

/* ---------------------------------------------------- libconfuse glue */

/*
 * libconfuse's messages, as "FILE:LINE: msg", into the failure message:
 * the parse starts with none (imgp_errclear_), so a message there is an
 * earlier one of this parse. The file name is the cfg's own (load_file
 * sets it; libconfuse copies it into each section).
 */
static void cfg_errfn(cfg_t *cfg, const char *fmt, va_list ap)
{
	char msg[512], key[NAME_MAX_LEN + 1];
	const char *hint = NULL;
	const char *path = cfg && cfg->filename ? cfg->filename : "recipe";

	/* Only the first: later ones follow from it. */
	if (imgp_errmsg()[0])
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* A misspelt key: name the one that was meant. */
	if (cfg && cfg->opts && sscanf(msg, "no such option '%64[^']'", key) == 1) {
		size_t best = 3;

		for (cfg_opt_t *o = cfg->opts; o->name; o++) {
			size_t d = imgp_word_distance_(key, o->name);

			if (d < best) {
				best = d;
				hint = o->name;
			}
		}
	}
	if (hint)
		imgp_fail(EINVAL, "%s:%d: %s (did you mean '%s'?)", path, cfg->line, msg, hint);
	else
		imgp_fail(EINVAL, "%s:%d: %s", path, cfg ? cfg->line : 0, msg);
}


/* ---------------------------------------------------------- loading */

/* "FILE:LINE: " + message, as -EINVAL. */
int imgp_recipe_load_err_(const struct loader *ld, int line, const char *fmt, ...)
{
	char msg[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		return imgp_fail(EINVAL, "%s:%d: %s", ld->r->path, line, msg);
	return imgp_fail(EINVAL, "%s: %s", ld->r->path, msg);
}

/* An optional top-level string: its pooled copy, "" when absent. */
static int load_text(struct loader *ld, const char *key, bool required,
		     bool one_line, const char **out)
{
	const char *v = cfg_size(ld->cfg, key) ? cfg_getstr(ld->cfg, key) : NULL;

	if (!v || !*v) {
		*out = "";
		if (required)
			return imgp_recipe_load_err_(ld, 0, "missing '%s'", key);
		return 0;
	}
	if (one_line && strchr(v, '\n'))
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, 0, key),
					    "'%s' must be one line", key);
	*out = imgp_recipe_pool_dup_(ld->r, v);
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/* Checks that the references in s name declared parameters. */
static int check_refs(struct loader *ld, const char *s, char *why,
		      size_t whylen)
{
	return imgp_recipe_walk_refs_(ld->r, s, NULL, NULL, why, whylen);
}

static int load_rules(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	cfg_t *m = cfg_size(ld->cfg, "match") ? cfg_getsec(ld->cfg, "match") : NULL;
	size_t si = imgp_recipe_scan_sec_(&ld->sc, "match", 0);
	size_t n = 0;
	char why[1024];

	if (!m)
		return 0;
	for (int k = 0; k < R_COUNT; k++)
		n += cfg_size(m, rule_keys[k]);
	r->rules = calloc(n ? n : 1, sizeof(*r->rules));
	if (!r->rules || !imgp_recipe_pool_keep_(r, (char *)r->rules))
		return imgp_fail(ENOMEM, "out of memory");
	for (int k = 0; k < R_COUNT; k++) {
		int line = imgp_recipe_key_line_(&ld->sc, si, rule_keys[k]);

		for (unsigned j = 0; j < cfg_size(m, rule_keys[k]); j++) {
			struct match_rule *rule = &r->rules[r->nrules++];
			const char *v = cfg_getnstr(m, rule_keys[k], j);

			rule->kind = (enum rule_kind)k;
			rule->line = line;
			rule->raw = imgp_recipe_pool_dup_(r, v ? v : "");
			if (!rule->raw)
				return imgp_fail(ENOMEM, "out of memory");
			if (check_refs(ld, rule->raw, why, sizeof(why)))
				return imgp_recipe_load_err_(ld, line, "match: %s: %s",
							    rule_keys[k], why);
		}
	}
	for (size_t i = 0; i < r->nrules; i++) {
		const struct match_rule *rule = &r->rules[i];
		const char *colon = strchr(rule->raw, ':');
		const char *bad;

		if (rule->kind == R_PART) {
			bad = imgp_recipe_check_value_(K_PART, rule->raw, false, why, sizeof(why));
		} else if (rule->kind != R_FILE) {
			bad = imgp_recipe_check_value_(K_WORD, rule->raw, false, why, sizeof(why));
		} else if (!colon || colon[1] != '/') {
			bad = "must be PART:/PATH (as boot:/image.fit)";
		} else {
			char part[256];

			snprintf(part, sizeof(part), "%.*s", (int)(colon - rule->raw),
				 rule->raw);
			bad = imgp_recipe_check_value_(K_PART, part, false, why, sizeof(why));
			if (!bad)
				bad = imgp_recipe_check_value_(K_FSPATH, colon + 1, false, why,
							 sizeof(why));
		}
		if (bad)
			return imgp_recipe_load_err_(ld, rule->line, "match: %s '%s': %s",
						    rule_keys[rule->kind], rule->raw, bad);
	}
	return 0;
}

/*
 * A step's when = "${NAME}=VALUE": NAME a parameter, VALUE one it can be
 * bound to (one of its values; for one without a list, a value it takes),
 * kept as binding would leave it so that the two compare as strings.
 */
static int load_when(struct loader *ld, cfg_t *sec, size_t si, size_t i)
{
	struct imgp_recipe *r = ld->r;
	struct recipe_step *st = &r->steps[i];
	int line = imgp_recipe_key_line_(&ld->sc, si, "when");
	const char *w = cfg_getstr(sec, "when"), *close, *value;
	const struct imgp_recipe_param *p;
	char names[512], list[512];
	size_t off = 0;
	long num;

	w = w ? w : "";
	close = strchr(w, '}');
	if (strncmp(w, "${", 2) || !close || close[1] != '=' || !close[2])
		return imgp_recipe_load_err_(ld, line, "step %zu (%s): when '%s': must be \"${PARAMETER}=VALUE\"",
					    i + 1, st->action->name, w);
	if (st->action->dt != DT_NONE)
		return imgp_recipe_load_err_(ld, line, "step %zu (%s): when: a device tree step always runs (the tree is loaded, edited and written in order)",
					    i + 1, st->action->name);
	p = imgp_recipe_find_param_(r, w + 2, (size_t)(close - w - 2));
	if (!p) {
		imgp_recipe_param_names_(r, names, sizeof(names));
		return imgp_recipe_load_err_(ld, line, "step %zu (%s): when '%s': no parameter '%.*s' (parameters: %s)",
					    i + 1, st->action->name, w, (int)(close - w - 2), w + 2,
					    r->nparams ? names : "none");
	}
	value = close + 2;
	if (p->nvalues) {
		size_t k;

		list[0] = '\0';
		for (k = 0; k < p->nvalues && strcmp(p->values[k], value); k++)
			off += (size_t)snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0,
						"%s%s", k ? ", " : "", p->values[k]);
		if (k == p->nvalues)
			return imgp_recipe_load_err_(ld, line, "step %zu (%s): when '%s': '%s' is not a value of parameter '%s' (values: %s)",
						    i + 1, st->action->name, w, value, p->name, list);
	} else if (imgp_recipe_param_check_(r, p, value, &num)) {
		return imgp_recipe_load_err_(ld, line, "step %zu (%s): when '%s': %s", i + 1,
					    st->action->name, w, imgp_errmsg());
	}
	st->when = imgp_recipe_pool_dup_(r, w);
	st->when_param = (size_t)(p - r->params);
	st->when_value = p->nvalues ? imgp_recipe_pool_dup_(r, value)
				    : imgp_recipe_param_norm_(r, p, value, num);
	return st->when && st->when_value ? 0 : imgp_fail(ENOMEM, "out of memory");
}

bool imgp_recipe_step_runs_(const struct imgp_recipe *r, const struct recipe_step *st)
{
	const char *v = st->when ? r->params[st->when_param].value : NULL;

	return !st->when || (v && !strcmp(v, st->when_value));
}

static int load_step(struct loader *ld, size_t i)
{
	struct imgp_recipe *r = ld->r;
	struct recipe_step *st = &r->steps[i];
	cfg_t *sec = cfg_getnsec(ld->cfg, "step", (unsigned)i);
	size_t si = imgp_recipe_scan_sec_(&ld->sc, "step", i);
	const char *name = cfg_size(sec, "action") ? cfg_getstr(sec, "action") : NULL;
	char takes[256], why[1024];
	const struct action_opt *ao;
	size_t off = 0;
	int nalt = 0;

	st->line = imgp_recipe_sec_line_(&ld->sc, si);
	if (!name) {
		return imgp_recipe_load_err_(ld, st->line, "step %zu: missing 'action'", i + 1);
	}
	st->action = imgp_recipe_find_action_(name);
	if (!st->action) {
		char list[1024];

		for (size_t k = 0; k < imgp_recipe_nactions_ && off < sizeof(list); k++)
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%s", k ? ", " : "",
						imgp_recipe_actions_[k].name);
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "action"),
					    "step %zu: unknown action '%s' (actions: %s)",
					    i + 1, name, list);
	}
	takes[0] = '\0';
	off = 0;
	for (ao = st->action->opts; ao->flags && off < sizeof(takes); ao++)
		off += (size_t)snprintf(takes + off, sizeof(takes) - off, "%s%s",
					ao == st->action->opts ? "" : ", ",
					opt_names[ao->opt]);
	for (int o = OP_ACTION + 1; o < OP_COUNT; o++) {
		const char *v;

		if (!cfg_size(sec, opt_names[o]))
			continue;
		ao = imgp_recipe_action_opt_(st->action, (enum opt)o);
		if (!ao)
			return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, opt_names[o]),
						    "step %zu (%s): option '%s' is not taken by %s (it takes: %s)",
						    i + 1, name, opt_names[o], name, takes);
		v = cfg_getstr(sec, opt_names[o]);
		st->raw[o] = imgp_recipe_pool_dup_(r, v ? v : "");
		if (!st->raw[o])
			return imgp_fail(ENOMEM, "out of memory");
	}
	for (ao = st->action->opts; ao->flags; ao++) {
		const char *v = st->raw[ao->opt];
		const char *bad;
		int line = imgp_recipe_key_line_(&ld->sc, si, opt_names[ao->opt]);

		if (!v) {
			if (ao->flags & REQ)
				return imgp_recipe_load_err_(ld, st->line, "step %zu (%s): missing '%s'",
							    i + 1, name, opt_names[ao->opt]);
			continue;
		}
		nalt += (ao->flags & ALT) != 0;
		if (check_refs(ld, v, why, sizeof(why)))
			return imgp_recipe_load_err_(ld, line, "step %zu (%s): %s: %s", i + 1,
						    name, opt_names[ao->opt], why);
		bad = imgp_recipe_check_value_(ao->kind, v, false, why, sizeof(why));
		if (bad)
			return imgp_recipe_load_err_(ld, line, "step %zu (%s): %s '%s': %s",
						    i + 1, name, opt_names[ao->opt], v, bad);
	}
	if (!strstr(st->raw[OP_PATH] ? st->raw[OP_PATH] : "", "${")) {
		const char *bad = imgp_recipe_check_step_(st->action, st->raw);

		if (bad)
			return imgp_recipe_load_err_(ld, st->line, "step %zu (%s): %s", i + 1, name,
						    bad);
	}
	if (cfg_size(sec, "when")) {
		int rc = load_when(ld, sec, si, i);

		if (rc)
			return rc;
	}
	if (nalt != 1) {
		const char *alts[2] = { NULL, NULL };
		int k = 0;

		for (ao = st->action->opts; ao->flags; ao++)
			if ((ao->flags & ALT) && k < 2)
				alts[k++] = opt_names[ao->opt];
		if (k && !nalt)
			return imgp_recipe_load_err_(ld, st->line, "step %zu (%s): needs '%s' or '%s'",
						    i + 1, name, alts[0], alts[1]);
		if (k)
			return imgp_recipe_load_err_(ld, st->line, "step %zu (%s): give '%s' or '%s', not both",
						    i + 1, name, alts[0], alts[1]);
	}
	return 0;
}

/*
 * The load step chose the tree's way from its first write-tree step; a
 * later one goes that way too, and may not name another (step i, first
 * the one before it).
 */
static int check_same_way(struct loader *ld, const struct recipe_step *st, size_t i,
			  const struct recipe_step *first)
{
	static const int keys[] = { OP_VIA, OP_NAME };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const char *mine = st->raw[keys[k]], *its = first->raw[keys[k]];

		if (mine && (!its || strcmp(mine, its)))
			return imgp_recipe_load_err_(ld, st->line, "step %zu (%s): %s '%s': step %zu already chose how this tree is written (%s%s%s%s); give the same or none",
						    i + 1, st->action->name, opt_names[keys[k]],
						    mine, (size_t)(first - ld->r->steps) + 1,
						    its ? "" : "no ", opt_names[keys[k]],
						    its ? " " : "", its ? its : "");
	}
	return 0;
}

/* Device tree steps in an order the patch operations can follow. */
static int check_dt_order(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	size_t loaded = 0, unwritten = 0;
	int rc;

	for (size_t i = 0; i < r->nsteps; i++) {
		const struct recipe_step *st = &r->steps[i];

		switch (st->action->dt) {
		case DT_LOAD:
			if (loaded)
				return imgp_recipe_load_err_(ld, st->line, "step %zu (%s): step %zu already loaded a device tree; a recipe edits one tree",
							    i + 1, st->action->name, loaded);
			loaded = i + 1;
			break;
		case DT_EDIT:
		case DT_CHECK:
		case DT_WRITE:
			if (!loaded)
				return imgp_recipe_load_err_(ld, st->line, "step %zu (%s): no device tree loaded yet (put an fdt-from-fit or dtb-from-file step before it)",
							    i + 1, st->action->name);
			if (st->action->dt == DT_WRITE)
				unwritten = 0;
			else if (st->action->dt == DT_EDIT && !unwritten)
				unwritten = i + 1;
			/* The load step learns what its way depends on. */
			if (st->action->dt == DT_WRITE && !r->steps[loaded - 1].writer &&
			    imgp_recipe_is_write_tree_(st))
				r->steps[loaded - 1].writer = st;
			else if (imgp_recipe_is_write_tree_(st) &&
				 (rc = check_same_way(ld, st, i, r->steps[loaded - 1].writer)))
				return rc;
			if (imgp_recipe_is_delete_(st))
				r->steps[loaded - 1].deletes = true;
			if (imgp_recipe_is_write_tree_(st))
				r->steps[i].deletes = r->steps[loaded - 1].deletes;
			if (imgp_recipe_is_write_tree_(st) && st->raw[OP_VIA] &&
			    !strstr(st->raw[OP_VIA], "${")) {
				enum imgp_via via;

				if (imgp_via_parse(st->raw[OP_VIA], &via) < 0)
					return imgp_recipe_load_err_(ld, st->line, "step %zu (%s): %s",
								    i + 1, st->action->name, imgp_errmsg());
			}
			break;
		case DT_NONE:
			break;
		}
	}
	if (unwritten)
		return imgp_recipe_load_err_(ld, r->steps[unwritten - 1].line, "step %zu (%s): the device tree is never written after this change (add a write-dtb step)",
					    unwritten, r->steps[unwritten - 1].action->name);
	return 0;
}

const struct recipe_step *imgp_recipe_first_dt_load_(const struct imgp_recipe *r)
{
	for (size_t i = 0; i < r->nsteps; i++)
		if (r->steps[i].action->dt == DT_LOAD)
			return &r->steps[i];
	return NULL;
}

/* A key set twice in one section: libconfuse would keep the last silently. */
static int check_duplicates(struct loader *ld, cfg_opt_t *const *sec_opts)
{
	const struct scan *s = &ld->sc;

	for (size_t i = 0; i < s->nkeys; i++) {
		const struct scan_key *k = &s->keys[i];
		cfg_opt_t *opts = sec_opts[0];

		if (k->sec) {
			const char *kind = s->secs[k->sec - 1].kind;

			opts = !strcmp(kind, "param") ? sec_opts[1] :
			       !strcmp(kind, "match") ? sec_opts[2] :
			       !strcmp(kind, "step") ? sec_opts[3] : NULL;
		}
		if (!opts)
			continue;
		for (; opts->name; opts++)
			if (!strcmp(opts->name, k->key))
				break;
		if (!opts->name || (opts->flags & (CFGF_LIST | CFGF_MULTI)))
			continue;
		for (size_t j = 0; j < i; j++)
			if (s->keys[j].sec == k->sec &&
			    !strcmp(s->keys[j].key, k->key))
				return imgp_recipe_load_err_(ld, k->line, "'%s' is set twice (first on line %d)",
							    k->key, s->keys[j].line);
	}
	return 0;
}

/* Stage 1: the recipe text parsed by libconfuse, each key at most once. */
static int parse_cfg(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	cfg_opt_t param_opts[] = {
		CFG_STR("description", NULL, CFGF_NODEFAULT),
		CFG_STR("type", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("values", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("alias", NULL, CFGF_NODEFAULT),
		CFG_STR("default", NULL, CFGF_NODEFAULT),
		CFG_INT("min", 0, CFGF_NODEFAULT),
		CFG_INT("max", 0, CFGF_NODEFAULT),
		CFG_BOOL("required", cfg_false, CFGF_NODEFAULT),
		CFG_BOOL("secret", cfg_false, CFGF_NODEFAULT),
		CFG_STR("pattern", NULL, CFGF_NODEFAULT),
		CFG_STR("pattern-text", NULL, CFGF_NODEFAULT),
		CFG_END()
	};
	cfg_opt_t match_opts[] = {
		CFG_STR_LIST("partition-label", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("partition", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("file", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("fit-fdt", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("compatible", NULL, CFGF_NODEFAULT),
		CFG_END()
	};
	cfg_opt_t step_opts[OP_COUNT + 2];
	cfg_opt_t top_opts[] = {
		CFG_STR("name", NULL, CFGF_NODEFAULT),
		CFG_STR("summary", NULL, CFGF_NODEFAULT),
		CFG_STR("description", NULL, CFGF_NODEFAULT),
		CFG_STR("source", NULL, CFGF_NODEFAULT),
		CFG_STR("risks", NULL, CFGF_NODEFAULT),
		CFG_STR("undo", NULL, CFGF_NODEFAULT),
		CFG_SEC("param", param_opts,
			CFGF_MULTI | CFGF_TITLE | CFGF_NO_TITLE_DUPES),
		CFG_SEC("match", match_opts, CFGF_NODEFAULT),
		CFG_SEC("step", step_opts, CFGF_MULTI),
		CFG_END()
	};
	cfg_opt_t *all_opts[4] = { top_opts, param_opts, match_opts, step_opts };
	cfg_opt_t end = CFG_END();
	FILE *fp;
	int rc;

	for (int o = 0; o < OP_COUNT; o++) {
		cfg_opt_t str = CFG_STR(opt_names[o], NULL, CFGF_NODEFAULT);

		step_opts[o] = str;
	}
	/* Not an action's option: any step may have it (load_when). */
	step_opts[OP_COUNT] = (cfg_opt_t)CFG_STR("when", NULL, CFGF_NODEFAULT);
	step_opts[OP_COUNT + 1] = end;

	ld->cfg = cfg_init(top_opts, CFGF_NONE);
	if (!ld->cfg)
		return imgp_fail(ENOMEM, "out of memory");
	cfg_set_error_function(ld->cfg, cfg_errfn);
	fp = fmemopen(ld->sc.out.data, ld->sc.out.len, "r");
	if (!fp)
		return imgp_fail(ENOMEM, "out of memory");
	/* cfg_parse_fp() keeps the name; cfg_free() frees it. */
	ld->cfg->filename = strdup(r->path);
	if (!ld->cfg->filename) {
		fclose(fp);
		return imgp_fail(ENOMEM, "out of memory");
	}
	imgp_errclear_();
	rc = cfg_parse_fp(ld->cfg, fp);
	fclose(fp);
	if (rc != CFG_SUCCESS)
		return imgp_errmsg()[0] ? -EINVAL : imgp_recipe_load_err_(ld, 0, "cannot parse");

	return check_duplicates(ld, all_opts);
}

/* Stage 2: the name, which the file name must match, and the texts. */
static int load_head(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	char base[NAME_MAX + 1];
	const char *slash;
	int rc;

	rc = load_text(ld, "name", true, true, &r->name);
	if (rc)
		return rc;
	if (!imgp_recipe_is_name_(r->name))
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, 0, "name"),
					    "name '%s' must be letters, digits, '.', '_', '+' and '-'",
					    r->name);
	slash = strrchr(r->path, '/');
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : r->path);
	if (imgp_recipe_ends_with_(base, ".recipe"))
		base[strlen(base) - strlen(".recipe")] = '\0';
	/* Recipes are found by file name: the two must agree. */
	if (strcmp(base, r->name))
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, 0, "name"),
					    "name '%s' differs from the file name '%s.recipe' (rename one of them)",
					    r->name, base);
	rc = load_text(ld, "summary", true, true, &r->summary);
	if (!rc)
		rc = load_text(ld, "description", true, false, &r->description);
	if (!rc)
		rc = load_text(ld, "source", true, false, &r->source);
	if (!rc)
		rc = load_text(ld, "risks", false, false, &r->risks);
	if (!rc)
		rc = load_text(ld, "undo", false, false, &r->undo);
	return rc;
}

/* Stage 3: the parameters. */
static int load_params(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	int rc;

	r->nparams = cfg_size(ld->cfg, "param");
	r->params = calloc(r->nparams ? r->nparams : 1, sizeof(*r->params));
	r->patterns = calloc(r->nparams ? r->nparams : 1, sizeof(*r->patterns));
	r->compiled = calloc(r->nparams ? r->nparams : 1, sizeof(*r->compiled));
	if (!r->params || !r->patterns || !r->compiled)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nparams; i++) {
		rc = imgp_recipe_load_param_(ld, i);
		if (rc)
			return rc;
	}
	return 0;
}

/* Stage 4: the steps, at least one. */
static int load_steps(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	int rc;

	r->nsteps = cfg_size(ld->cfg, "step");
	if (!r->nsteps)
		return imgp_recipe_load_err_(ld, 0, "no steps (add 'step { action = ... }' sections)");
	r->steps = calloc(r->nsteps, sizeof(*r->steps));
	if (!r->steps)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nsteps; i++) {
		rc = load_step(ld, i);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * A recipe file, in stages: its text, the head, the parameters, the steps,
 * then the match rules and the local files the steps name.
 */
static int parse_recipe(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	int rc;

	rc = parse_cfg(ld);
	if (!rc)
		rc = load_head(ld);
	if (!rc)
		rc = load_params(ld);
	if (!rc)
		rc = load_steps(ld);
	if (rc)
		return rc;
	rc = load_rules(ld);
	if (!rc)
		rc = check_dt_order(ld);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->nrules; i++)
		if (r->rules[i].kind == R_COMPAT && !imgp_recipe_first_dt_load_(r))
			return imgp_recipe_load_err_(ld, r->rules[i].line, "match: compatible needs a step that loads a device tree (fdt-from-fit or dtb-from-file)");
	return imgp_recipe_resolve_locals_(r, false, ld);
}

/*
 * Finds a local file in the recipe's directory, then in its overlays/
 * subdirectory. The real path must stay inside the directory, so that a
 * symbolic link cannot lead a recipe to read elsewhere.
 */
static int resolve_local(struct imgp_recipe *r, const char *name,
			 const char **out)
{
	static const char *const subdirs[] = { "", "overlays/" };
	size_t dlen = strlen(r->dir);

	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		char cand[PATH_MAX], real[PATH_MAX];
		int err;

		if ((size_t)snprintf(cand, sizeof(cand), "%s/%s%s", r->dir,
				     subdirs[i], name) >= sizeof(cand))
			return imgp_fail(ENAMETOOLONG, "'%s': name too long", name);
		if (!realpath(cand, real)) {
			err = errno;
			if (err == ENOENT || err == ENOTDIR)
				continue;
			return imgp_fail(err, "'%s': %s", name, strerror(err));
		}
		if (strncmp(real, r->dir, dlen) || real[dlen] != '/')
			return imgp_fail(EACCES, "'%s' leads outside the recipe's directory",
					 name);
		if (!imgp_recipe_is_regular_(real))
			return imgp_fail(EINVAL, "'%s' is not a regular file", name);
		*out = imgp_recipe_pool_dup_(r, real);
		return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
	}
	return imgp_fail(ENOENT, "'%s' not found next to the recipe (looked in %s and %s/overlays)",
			 name, r->dir, r->dir);
}

/*
 * Resolves the local files of every step: as written at load time (names
 * with parameters wait), with the bound values at bind time.
 */
int imgp_recipe_resolve_locals_(struct imgp_recipe *r, bool bound, struct loader *ld)
{
	for (size_t i = 0; i < r->nsteps; i++) {
		struct recipe_step *st = &r->steps[i];

		for (const struct action_opt *ao = st->action->opts; ao->flags; ao++) {
			const char *v = bound ? st->val[ao->opt] : st->raw[ao->opt];
			const char *real = NULL;
			int rc;

			if (ao->kind != K_LOCAL || !v || (!bound && strstr(v, "${")))
				continue;
			rc = resolve_local(r, v, &real);
			if (rc) {
				if (ld)
					return imgp_recipe_load_err_(ld, st->line, "step %zu (%s): %s: %s",
								    i + 1, st->action->name,
								    opt_names[ao->opt], imgp_errmsg());
				return imgp_fail_ctx(rc, "%s:%d: step %zu (%s): %s",
						     r->path, st->line, i + 1,
						     st->action->name,
						     opt_names[ao->opt]);
			}
			if (bound)
				st->local = real;
		}
	}
	return 0;
}

int imgp_recipe_load(const char *path, struct imgp_recipe **out)
{
	struct loader ld = { 0 };
	struct imgp_recipe *r;
	struct imgp_buf text = { 0 };
	char real[PATH_MAX];
	const uint8_t *nul;
	char *dir;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return imgp_fail(ENOMEM, "out of memory");
	ld.r = r;
	ld.sc.path = path;
	r->path = imgp_recipe_pool_dup_(r, path);
	if (!r->path) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = imgp_read_local_(path, RECIPE_MAX, false, &text);
	if (rc)
		goto out;
	nul = memchr(text.data, '\0', text.len);
	if (nul) {
		int line = 1;

		for (const uint8_t *p = text.data; p < nul; p++)
			line += *p == '\n';
		rc = imgp_recipe_load_err_(&ld, line, "NUL byte in the file");
		goto out;
	}
	if (!realpath(path, real)) {
		int err = errno;

		rc = imgp_fail(err, "%s: %s", path, strerror(err));
		goto out;
	}
	/* "/x.recipe" keeps "" as its directory: paths are dir + "/" + name. */
	dir = strrchr(real, '/');
	*dir = '\0';
	r->dir = imgp_recipe_pool_dup_(r, real);
	if (!r->dir) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = imgp_recipe_scan_text_(&ld.sc, (const char *)text.data, text.len);
	if (!rc)
		rc = parse_recipe(&ld);
	r->loaded = !rc;
	/* Bound to the defaults at once when nothing has to be given. */
	if (!rc) {
		bool need = false;

		for (size_t i = 0; i < r->nparams; i++)
			need |= r->params[i].required;
		if (!need)
			rc = imgp_recipe_bind(r, NULL, 0);
	}
out:
	if (ld.cfg)
		cfg_free(ld.cfg);
	imgp_recipe_scan_free_(&ld.sc);
	imgp_buf_free(&text);
	if (rc) {
		imgp_recipe_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void imgp_recipe_free(struct imgp_recipe *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->npool; i++)
		free(r->pool[i]);
	free(r->pool);
	for (size_t i = 0; r->compiled && i < r->nparams; i++)
		if (r->compiled[i])
			regfree(&r->patterns[i]);
	free(r->compiled);
	free(r->patterns);
	free(r->params);
	free(r->steps);
	free(r);
}
