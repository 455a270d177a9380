// SPDX-License-Identifier: MIT
/*
 * Loading: parses a recipe file with libconfuse and checks everything
 * that needs no image (actions, options, values, the local files it names,
 * parameter references, the order of device tree steps).
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

static _Thread_local const char *cfg_path;
static _Thread_local bool cfg_failed;

/* libconfuse's messages, as "FILE:LINE: msg", into the failure message. */
static void cfg_errfn(cfg_t *cfg, const char *fmt, va_list ap)
{
	char msg[512], key[NAME_MAX_LEN + 1];
	const char *hint = NULL;

	/* Only the first: later ones follow from it. */
	if (cfg_failed)
		return;
	cfg_failed = true;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* A misspelt key: name the one that was meant. */
	if (cfg && cfg->opts && sscanf(msg, "no such option '%64[^']'", key) == 1) {
		size_t best = 3;

		for (cfg_opt_t *o = cfg->opts; o->name; o++) {
			size_t d = imgp_word_distance(key, o->name);

			if (d < best) {
				best = d;
				hint = o->name;
			}
		}
	}
	if (hint)
		imgp_fail(EINVAL, "%s:%d: %s (did you mean '%s'?)",
			  cfg_path ? cfg_path : "recipe", cfg->line, msg, hint);
	else
		imgp_fail(EINVAL, "%s:%d: %s", cfg_path ? cfg_path : "recipe",
			  cfg ? cfg->line : 0, msg);
}


/* ---------------------------------------------------------- loading */

struct loader {
	struct imgp_recipe *r;
	struct scan sc;
	cfg_t *cfg;
};

/* "FILE:LINE: " + message, as -EINVAL. */
static int load_err(const struct loader *ld, int line, const char *fmt, ...)
	IMGP_PRINTF(3, 4);

static int load_err(const struct loader *ld, int line, const char *fmt, ...)
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
			return load_err(ld, 0, "missing '%s'", key);
		return 0;
	}
	if (one_line && strchr(v, '\n'))
		return load_err(ld, recipe_key_line(&ld->sc, 0, key),
				"'%s' must be one line", key);
	*out = recipe_pool_dup(ld->r, v);
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/*
 * Checks value v against what parameter p of r accepts; *num gets an int's
 * value. in_list: v must be one of p's values (false while the values are
 * themselves checked). A value is one line: it ends up inside files (YAML,
 * shell assignments) where a control character would start another line
 * or worse. The messages of the checks added for that name the recipe, as
 * one recipe of several given to write may be the one that refuses.
 */
static int param_check(const struct imgp_recipe *r,
		       const struct imgp_recipe_param *p, const char *v,
		       bool in_list, long *num)
{
	char shown[128], who[NAME_MAX_LEN * 2 + 32];

	*num = 0;
	/* At load time the file and line name the recipe already. */
	if (r->loaded)
		snprintf(who, sizeof(who), "recipe '%s': parameter '%s'", r->name, p->name);
	else
		snprintf(who, sizeof(who), "parameter '%s'", p->name);
	if (recipe_has_ctl(v, false))
		return imgp_fail(EINVAL, "%s must be one line without control characters (got '%s')",
				 who, recipe_show_value(v, shown, sizeof(shown)));
	if (in_list && p->nvalues) {
		size_t i;
		char list[512];
		size_t off = 0;

		for (i = 0; i < p->nvalues; i++)
			if (!strcmp(p->values[i], v))
				break;
		if (i == p->nvalues) {
			list[0] = '\0';
			for (i = 0; i < p->nvalues && off < sizeof(list); i++)
				off += (size_t)snprintf(list + off, sizeof(list) - off,
							"%s%s", i ? ", " : "",
							p->values[i]);
			return imgp_fail(EINVAL, "parameter '%s' must be one of: %s (got '%s')",
					 p->name, list, v);
		}
	}
	if (p->pattern &&
	    regexec(&r->patterns[p - r->params], v, 0, NULL, 0) != 0) {
		if (p->pattern_text)
			return imgp_fail(EINVAL, "%s must be %s (got '%s')",
					 who, p->pattern_text,
					 recipe_show_value(v, shown, sizeof(shown)));
		return imgp_fail(EINVAL, "%s must match the pattern '%s' (got '%s')",
				 who, p->pattern,
				 recipe_show_value(v, shown, sizeof(shown)));
	}
	if (!p->is_int)
		return 0;
	if (!recipe_parse_long(v, num))
		return imgp_fail(EINVAL, "parameter '%s' must be an integer (got '%s')",
				 p->name, v);
	if (p->has_min && p->has_max && (*num < p->min || *num > p->max))
		return imgp_fail(EINVAL, "%s must be %ld..%ld (got %s)", p->name,
				 p->min, p->max, v);
	if (p->has_min && *num < p->min)
		return imgp_fail(EINVAL, "%s must be at least %ld (got %s)", p->name,
				 p->min, v);
	if (p->has_max && *num > p->max)
		return imgp_fail(EINVAL, "%s must be at most %ld (got %s)", p->name,
				 p->max, v);
	return 0;
}

int recipe_param_check(const struct imgp_recipe *r,
		       const struct imgp_recipe_param *p, const char *v,
		       long *num)
{
	return param_check(r, p, v, true, num);
}

/* A checked value as it is substituted: integers in plain decimal. */
const char *recipe_param_norm(struct imgp_recipe *r,
			      const struct imgp_recipe_param *p, const char *v,
			      long num)
{
	char *s;

	if (!p->is_int)
		return recipe_pool_dup(r, v);
	if (asprintf(&s, "%ld", num) < 0)
		return NULL;
	return recipe_pool_keep(r, s);
}

/*
 * alias = {"GIVEN=VALUE", ...}: another name a user may give for one of the
 * values (a carrier revision that boots another revision's tree). GIVEN is
 * not a value itself; VALUE must be one.
 */
static int load_aliases(struct loader *ld, cfg_t *sec, size_t si,
			struct imgp_recipe_param *p)
{
	struct imgp_recipe *r = ld->r;
	unsigned n = cfg_size(sec, "alias");
	int line = recipe_key_line(&ld->sc, si, "alias");
	const char **given, **value;
	long num;

	if (recipe_has_key(&ld->sc, si, "alias") && !n)
		return load_err(ld, line, "parameter '%s': empty list of aliases",
				p->name);
	given = calloc(n ? n : 1, sizeof(*given));
	value = calloc(n ? n : 1, sizeof(*value));
	if (!given || !recipe_pool_keep(r, (char *)given)) {
		free(value);
		return imgp_fail(ENOMEM, "out of memory");
	}
	if (!value || !recipe_pool_keep(r, (char *)value))
		return imgp_fail(ENOMEM, "out of memory");
	for (unsigned k = 0; k < n; k++) {
		const char *a = cfg_getnstr(sec, "alias", k);
		const char *eq = a ? strchr(a, '=') : NULL;
		const char *from;

		if (!eq || eq == a || recipe_has_ctl(a, false))
			return load_err(ld, line, "parameter '%s': an alias is \"GIVEN=VALUE\" on one line (got '%s')",
					p->name, a ? a : "");
		from = recipe_pool_keep(r, strndup(a, (size_t)(eq - a)));
		if (!from)
			return imgp_fail(ENOMEM, "out of memory");
		if (!param_check(r, p, from, true, &num))
			return load_err(ld, line, "parameter '%s': alias '%s' is already one of its values",
					p->name, from);
		imgp_errclear();
		for (unsigned j = 0; j < k; j++)
			if (!strcmp(given[j], from))
				return load_err(ld, line, "parameter '%s': alias '%s' is listed twice",
						p->name, from);
		if (param_check(r, p, eq + 1, true, &num))
			return load_err(ld, line, "parameter '%s': alias '%s': %s",
					p->name, from, imgp_errmsg());
		given[k] = from;
		value[k] = recipe_pool_dup(r, eq + 1);
		if (!value[k])
			return imgp_fail(ENOMEM, "out of memory");
	}
	p->alias_given = given;
	p->alias_value = value;
	p->naliases = n;
	return 0;
}

#define PATTERN_MAX_SIZE 1000   /* positions, repetitions expanded */
#define PATTERN_MAX_DEPTH 32

/* Saturating a * b and a + b for the size estimate below. */
static size_t size_mul(size_t a, size_t b)
{
	return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

static size_t size_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/*
 * Checks an extended regular expression before regcomp sees it, returning
 * NULL or the problem:
 * - a ')' that closes no '(': glibc takes it as itself, so "a)|(.*" would
 *   close the anchoring ^( early and match anything;
 * - too large once expanded: glibc copies a group once per repetition of a
 *   bound, so "(((a{99}){99}){99}){99}" is a short line that takes seconds
 *   and gigabytes to compile. The estimate counts one position per atom,
 *   times every bound around it.
 */
static const char *pattern_problem(const char *re)
{
	size_t outer[PATTERN_MAX_DEPTH];
	size_t size = 0, last = 0;
	int depth = 0;

	for (const char *c = re; *c; c++) {
		size_t atom = 1;

		if (*c == '\\' && c[1]) {
			c++;
		} else if (*c == '[') {
			/* "[]...]" and "[^]...]" hold a ']'; "[:alpha:]" a class. */
			c += 1 + (c[1] == '^');
			if (*c == ']')
				c++;
			while (*c && *c != ']') {
				if (*c == '[' && (c[1] == ':' || c[1] == '.' || c[1] == '=')) {
					const char *end = strchr(c + 2, c[1]);

					c = end && end[1] == ']' ? end + 1 : c;
				}
				c++;
			}
			if (!*c)
				return NULL;  /* regcomp reports the open bracket */
		} else if (*c == '(') {
			if (depth == PATTERN_MAX_DEPTH)
				return "groups nested too deep";
			outer[depth++] = size;
			size = 0;
			continue;
		} else if (*c == ')') {
			if (!depth)
				return "a ')' closes no '('";
			atom = size;
			size = outer[--depth];
		} else if (*c == '{') {
			/* "{m}", "{m,}", "{m,n}": the item before, up to n times. */
			char *end;
			unsigned long m = strtoul(c + 1, &end, 10), n = m;

			if (*end == ',')
				n = end[1] == '}' ? m : strtoul(end + 1, &end, 10);
			size = size_add(size, size_mul(last, n ? n - 1 : 0));
			last = size_mul(last, n);
			c = strchr(c, '}') ? strchr(c, '}') : c;
			continue;
		}
		size = size_add(size, atom);
		last = atom;
	}
	while (depth)
		size = size_add(outer[--depth], size);
	return size > PATTERN_MAX_SIZE ? "too large once its repetitions are expanded" : NULL;
}

/*
 * pattern = "ERE": a POSIX extended regular expression the whole value
 * must match (it is anchored here, so "[a-z]+" means ^([a-z]+)$), compiled
 * once for every check; pattern-text = "...": what it means in words, for
 * the messages and recipes show. Strings only: an int has min and max.
 */
static int load_pattern(struct loader *ld, cfg_t *sec, size_t si, size_t i)
{
	struct imgp_recipe *r = ld->r;
	struct imgp_recipe_param *p = &r->params[i];
	const char *pat = cfg_size(sec, "pattern") ? cfg_getstr(sec, "pattern") : NULL;
	const char *text = cfg_size(sec, "pattern-text") ? cfg_getstr(sec, "pattern-text") : NULL;
	int line = recipe_key_line(&ld->sc, si, "pattern");
	char *anchored, err[256];
	const char *bad;
	int rc;

	if (text && !pat)
		return load_err(ld, recipe_key_line(&ld->sc, si, "pattern-text"),
				"parameter '%s': pattern-text without a pattern",
				p->name);
	if (!pat)
		return 0;
	if (p->is_int)
		return load_err(ld, line, "parameter '%s': pattern needs type = \"string\" (an int has min and max)",
				p->name);
	if (!*pat || recipe_has_ctl(pat, false))
		return load_err(ld, line, "parameter '%s': pattern must be a non-empty single line",
				p->name);
	if (text && (!*text || recipe_has_ctl(text, false)))
		return load_err(ld, recipe_key_line(&ld->sc, si, "pattern-text"),
				"parameter '%s': pattern-text must be a non-empty single line",
				p->name);
	bad = pattern_problem(pat);
	if (bad)
		return load_err(ld, line, "parameter '%s': pattern '%s': %s",
				p->name, pat, bad);
	if (asprintf(&anchored, "^(%s)$", pat) < 0)
		return imgp_fail(ENOMEM, "out of memory");
	rc = regcomp(&r->patterns[i], anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	if (rc) {
		regerror(rc, &r->patterns[i], err, sizeof(err));
		return load_err(ld, line, "parameter '%s': pattern '%s': %s",
				p->name, pat, err);
	}
	r->compiled[i] = true;
	p->pattern = recipe_pool_dup(r, pat);
	p->pattern_text = text ? recipe_pool_dup(r, text) : NULL;
	if (!p->pattern || (text && !p->pattern_text))
		return imgp_fail(ENOMEM, "out of memory");
	return 0;
}

static int load_param(struct loader *ld, size_t i)
{
	struct imgp_recipe *r = ld->r;
	struct imgp_recipe_param *p = &r->params[i];
	cfg_t *sec = cfg_getnsec(ld->cfg, "param", (unsigned)i);
	size_t si = recipe_scan_sec(&ld->sc, "param", i);
	int line = recipe_sec_line(&ld->sc, si);
	const char *title = cfg_title(sec);
	const char *type = cfg_size(sec, "type") ? cfg_getstr(sec, "type") : "string";
	const char *desc = cfg_size(sec, "description") ? cfg_getstr(sec, "description") : NULL;
	unsigned nvalues = cfg_size(sec, "values");
	const char **values;
	long num;
	int rc;

	if (!title || !recipe_is_ident(title, strlen(title)))
		return load_err(ld, line, "parameter name '%s' must be letters, digits, '_' and '-', starting with a letter or '_'",
				title ? title : "");
	p->name = recipe_pool_dup(r, title);
	if (!p->name)
		return imgp_fail(ENOMEM, "out of memory");
	if (!desc || !*desc)
		return load_err(ld, line, "parameter '%s': missing 'description'",
				title);
	p->description = recipe_pool_dup(r, desc);
	if (!p->description)
		return imgp_fail(ENOMEM, "out of memory");
	if (!strcmp(type, "int"))
		p->is_int = true;
	else if (strcmp(type, "string"))
		return load_err(ld, recipe_key_line(&ld->sc, si, "type"),
				"parameter '%s': type must be \"string\" or \"int\" (got '%s')",
				title, type);
	p->has_min = cfg_size(sec, "min") > 0;
	p->has_max = cfg_size(sec, "max") > 0;
	if ((p->has_min || p->has_max) && !p->is_int)
		return load_err(ld, recipe_key_line(&ld->sc, si, p->has_min ? "min" : "max"),
				"parameter '%s': min and max need type = \"int\"",
				title);
	if (p->has_min)
		p->min = cfg_getint(sec, "min");
	if (p->has_max)
		p->max = cfg_getint(sec, "max");
	if (p->has_min && p->has_max && p->min > p->max)
		return load_err(ld, recipe_key_line(&ld->sc, si, "max"),
				"parameter '%s': min %ld is above max %ld", title,
				p->min, p->max);
	rc = load_pattern(ld, sec, si, i);
	if (rc)
		return rc;
	if (recipe_has_key(&ld->sc, si, "values") && !nvalues)
		return load_err(ld, recipe_key_line(&ld->sc, si, "values"),
				"parameter '%s': empty list of values", title);
	values = calloc(nvalues ? nvalues : 1, sizeof(*values));
	if (!values || !recipe_pool_keep(r, (char *)values))
		return imgp_fail(ENOMEM, "out of memory");
	for (unsigned k = 0; k < nvalues; k++) {
		const char *v = cfg_getnstr(sec, "values", k);

		if (!v || !*v || recipe_has_ctl(v, false))
			return load_err(ld, recipe_key_line(&ld->sc, si, "values"),
					"parameter '%s': values must be non-empty single lines",
					title);
		for (unsigned j = 0; j < k; j++)
			if (!strcmp(values[j], v))
				return load_err(ld, recipe_key_line(&ld->sc, si, "values"),
						"parameter '%s': value '%s' is listed twice",
						title, v);
		/* Each value must itself be a valid value of the type. */
		if (param_check(r, p, v, false, &num))
			return load_err(ld, recipe_key_line(&ld->sc, si, "values"),
					"parameter '%s': %s", title, imgp_errmsg());
		values[k] = recipe_pool_dup(r, v);
		if (!values[k])
			return imgp_fail(ENOMEM, "out of memory");
	}
	p->values = values;
	p->nvalues = nvalues;
	rc = load_aliases(ld, sec, si, p);
	if (rc)
		return rc;
	p->required = cfg_size(sec, "required") && cfg_getbool(sec, "required");
	p->secret = cfg_size(sec, "secret") && cfg_getbool(sec, "secret");
	if (cfg_size(sec, "default")) {
		const char *d = cfg_getstr(sec, "default");

		if (p->required)
			return load_err(ld, recipe_key_line(&ld->sc, si, "default"),
					"parameter '%s' is required and has a default: choose one",
					title);
		if (param_check(r, p, d ? d : "", true, &num))
			return load_err(ld, recipe_key_line(&ld->sc, si, "default"),
					"parameter '%s': default: %s", title,
					imgp_errmsg());
		p->def = recipe_param_norm(r, p, d ? d : "", num);
		if (!p->def)
			return imgp_fail(ENOMEM, "out of memory");
	} else if (!p->required) {
		return load_err(ld, line, "parameter '%s' needs a default or required = true",
				title);
	}
	return 0;
}

/* Checks that the references in s name declared parameters. */
static int check_refs(struct loader *ld, const char *s, char *why,
		      size_t whylen)
{
	return recipe_walk_refs(ld->r, s, NULL, NULL, why, whylen);
}

static int load_rules(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	cfg_t *m = cfg_size(ld->cfg, "match") ? cfg_getsec(ld->cfg, "match") : NULL;
	size_t si = recipe_scan_sec(&ld->sc, "match", 0);
	size_t n = 0;
	char why[1024];

	if (!m)
		return 0;
	for (int k = 0; k < R_COUNT; k++)
		n += cfg_size(m, rule_keys[k]);
	r->rules = calloc(n ? n : 1, sizeof(*r->rules));
	if (!r->rules || !recipe_pool_keep(r, (char *)r->rules))
		return imgp_fail(ENOMEM, "out of memory");
	for (int k = 0; k < R_COUNT; k++) {
		int line = recipe_key_line(&ld->sc, si, rule_keys[k]);

		for (unsigned j = 0; j < cfg_size(m, rule_keys[k]); j++) {
			struct match_rule *rule = &r->rules[r->nrules++];
			const char *v = cfg_getnstr(m, rule_keys[k], j);

			rule->kind = (enum rule_kind)k;
			rule->line = line;
			rule->raw = recipe_pool_dup(r, v ? v : "");
			if (!rule->raw)
				return imgp_fail(ENOMEM, "out of memory");
			if (check_refs(ld, rule->raw, why, sizeof(why)))
				return load_err(ld, line, "match: %s: %s",
						rule_keys[k], why);
		}
	}
	for (size_t i = 0; i < r->nrules; i++) {
		const struct match_rule *rule = &r->rules[i];
		const char *colon = strchr(rule->raw, ':');
		const char *bad;

		if (rule->kind == R_PART) {
			bad = recipe_check_value(K_PART, rule->raw, false, why, sizeof(why));
		} else if (rule->kind != R_FILE) {
			bad = recipe_check_value(K_WORD, rule->raw, false, why, sizeof(why));
		} else if (!colon || colon[1] != '/') {
			bad = "must be PART:/PATH (as boot:/image.fit)";
		} else {
			char part[256];

			snprintf(part, sizeof(part), "%.*s", (int)(colon - rule->raw),
				 rule->raw);
			bad = recipe_check_value(K_PART, part, false, why, sizeof(why));
			if (!bad)
				bad = recipe_check_value(K_FSPATH, colon + 1, false, why,
							 sizeof(why));
		}
		if (bad)
			return load_err(ld, rule->line, "match: %s '%s': %s",
					rule_keys[rule->kind], rule->raw, bad);
	}
	return 0;
}

static int load_step(struct loader *ld, size_t i)
{
	struct imgp_recipe *r = ld->r;
	struct recipe_step *st = &r->steps[i];
	cfg_t *sec = cfg_getnsec(ld->cfg, "step", (unsigned)i);
	size_t si = recipe_scan_sec(&ld->sc, "step", i);
	const char *name = cfg_size(sec, "action") ? cfg_getstr(sec, "action") : NULL;
	char takes[256], why[1024];
	const struct action_opt *ao;
	size_t off = 0;
	int nalt = 0;

	st->line = recipe_sec_line(&ld->sc, si);
	if (!name) {
		return load_err(ld, st->line, "step %zu: missing 'action'", i + 1);
	}
	st->action = recipe_find_action(name);
	if (!st->action) {
		char list[1024];

		for (size_t k = 0; k < recipe_nactions && off < sizeof(list); k++)
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%s", k ? ", " : "",
						recipe_actions[k].name);
		return load_err(ld, recipe_key_line(&ld->sc, si, "action"),
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
		ao = recipe_action_opt(st->action, (enum opt)o);
		if (!ao)
			return load_err(ld, recipe_key_line(&ld->sc, si, opt_names[o]),
					"step %zu (%s): option '%s' is not taken by %s (it takes: %s)",
					i + 1, name, opt_names[o], name, takes);
		v = cfg_getstr(sec, opt_names[o]);
		st->raw[o] = recipe_pool_dup(r, v ? v : "");
		if (!st->raw[o])
			return imgp_fail(ENOMEM, "out of memory");
	}
	for (ao = st->action->opts; ao->flags; ao++) {
		const char *v = st->raw[ao->opt];
		const char *bad;
		int line = recipe_key_line(&ld->sc, si, opt_names[ao->opt]);

		if (!v) {
			if (ao->flags & REQ)
				return load_err(ld, st->line, "step %zu (%s): missing '%s'",
						i + 1, name, opt_names[ao->opt]);
			continue;
		}
		nalt += (ao->flags & ALT) != 0;
		if (check_refs(ld, v, why, sizeof(why)))
			return load_err(ld, line, "step %zu (%s): %s: %s", i + 1,
					name, opt_names[ao->opt], why);
		bad = recipe_check_value(ao->kind, v, false, why, sizeof(why));
		if (bad)
			return load_err(ld, line, "step %zu (%s): %s '%s': %s",
					i + 1, name, opt_names[ao->opt], v, bad);
	}
	if (nalt != 1) {
		const char *alts[2] = { NULL, NULL };
		int k = 0;

		for (ao = st->action->opts; ao->flags; ao++)
			if ((ao->flags & ALT) && k < 2)
				alts[k++] = opt_names[ao->opt];
		if (k && !nalt)
			return load_err(ld, st->line, "step %zu (%s): needs '%s' or '%s'",
					i + 1, name, alts[0], alts[1]);
		if (k)
			return load_err(ld, st->line, "step %zu (%s): give '%s' or '%s', not both",
					i + 1, name, alts[0], alts[1]);
	}
	return 0;
}

/* Device tree steps in an order the patch operations can follow. */
static int check_dt_order(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	size_t loaded = 0, unwritten = 0;

	for (size_t i = 0; i < r->nsteps; i++) {
		const struct recipe_step *st = &r->steps[i];

		switch (st->action->dt) {
		case DT_LOAD:
			if (loaded)
				return load_err(ld, st->line, "step %zu (%s): step %zu already loaded a device tree; a recipe edits one tree",
						i + 1, st->action->name, loaded);
			loaded = i + 1;
			break;
		case DT_EDIT:
		case DT_CHECK:
		case DT_WRITE:
			if (!loaded)
				return load_err(ld, st->line, "step %zu (%s): no device tree loaded yet (put an fdt-from-fit or dtb-from-file step before it)",
						i + 1, st->action->name);
			if (st->action->dt == DT_WRITE)
				unwritten = 0;
			else if (st->action->dt == DT_EDIT && !unwritten)
				unwritten = i + 1;
			/* The load step learns what its way depends on. */
			if (st->action->dt == DT_WRITE && !r->steps[loaded - 1].writer &&
			    recipe_is_write_tree(st))
				r->steps[loaded - 1].writer = st;
			if (recipe_is_delete(st))
				r->steps[loaded - 1].deletes = true;
			if (recipe_is_write_tree(st))
				r->steps[i].deletes = r->steps[loaded - 1].deletes;
			if (recipe_is_write_tree(st) && st->raw[OP_VIA] &&
			    !strstr(st->raw[OP_VIA], "${")) {
				enum imgp_via via;

				if (imgp_via_parse(st->raw[OP_VIA], &via) < 0)
					return load_err(ld, st->line, "step %zu (%s): %s",
							i + 1, st->action->name, imgp_errmsg());
			}
			break;
		case DT_NONE:
			break;
		}
	}
	if (unwritten)
		return load_err(ld, r->steps[unwritten - 1].line, "step %zu (%s): the device tree is never written after this change (add a write-dtb step)",
				unwritten, r->steps[unwritten - 1].action->name);
	return 0;
}

const struct recipe_step *recipe_first_dt_load(const struct imgp_recipe *r)
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
				return load_err(ld, k->line, "'%s' is set twice (first on line %d)",
						k->key, s->keys[j].line);
	}
	return 0;
}

static int parse_recipe(struct loader *ld)
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
	cfg_opt_t step_opts[OP_COUNT + 1];
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
	char base[NAME_MAX + 1];
	const char *slash;
	FILE *fp;
	int rc;

	for (int o = 0; o < OP_COUNT; o++) {
		cfg_opt_t str = CFG_STR(opt_names[o], NULL, CFGF_NODEFAULT);

		step_opts[o] = str;
	}
	step_opts[OP_COUNT] = end;

	ld->cfg = cfg_init(top_opts, CFGF_NONE);
	if (!ld->cfg)
		return imgp_fail(ENOMEM, "out of memory");
	cfg_set_error_function(ld->cfg, cfg_errfn);
	fp = fmemopen(ld->sc.out.data, ld->sc.out.len, "r");
	if (!fp)
		return imgp_fail(ENOMEM, "out of memory");
	cfg_path = r->path;
	cfg_failed = false;
	rc = cfg_parse_fp(ld->cfg, fp);
	cfg_path = NULL;
	fclose(fp);
	if (rc != CFG_SUCCESS)
		return cfg_failed ? -EINVAL : load_err(ld, 0, "cannot parse");

	rc = check_duplicates(ld, all_opts);
	if (!rc)
		rc = load_text(ld, "name", true, true, &r->name);
	if (rc)
		return rc;
	if (!recipe_is_name(r->name))
		return load_err(ld, recipe_key_line(&ld->sc, 0, "name"),
				"name '%s' must be letters, digits, '.', '_', '+' and '-'",
				r->name);
	slash = strrchr(r->path, '/');
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : r->path);
	if (recipe_ends_with(base, ".recipe"))
		base[strlen(base) - strlen(".recipe")] = '\0';
	/* Recipes are found by file name: the two must agree. */
	if (strcmp(base, r->name))
		return load_err(ld, recipe_key_line(&ld->sc, 0, "name"),
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
	if (rc)
		return rc;

	r->nparams = cfg_size(ld->cfg, "param");
	r->params = calloc(r->nparams ? r->nparams : 1, sizeof(*r->params));
	r->patterns = calloc(r->nparams ? r->nparams : 1, sizeof(*r->patterns));
	r->compiled = calloc(r->nparams ? r->nparams : 1, sizeof(*r->compiled));
	if (!r->params || !r->patterns || !r->compiled)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nparams; i++) {
		rc = load_param(ld, i);
		if (rc)
			return rc;
	}

	r->nsteps = cfg_size(ld->cfg, "step");
	if (!r->nsteps)
		return load_err(ld, 0, "no steps (add 'step { action = ... }' sections)");
	r->steps = calloc(r->nsteps, sizeof(*r->steps));
	if (!r->steps)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nsteps; i++) {
		rc = load_step(ld, i);
		if (rc)
			return rc;
	}
	rc = load_rules(ld);
	if (!rc)
		rc = check_dt_order(ld);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->nrules; i++)
		if (r->rules[i].kind == R_COMPAT && !recipe_first_dt_load(r))
			return load_err(ld, r->rules[i].line, "match: compatible needs a step that loads a device tree (fdt-from-fit or dtb-from-file)");
	return recipe_resolve_locals(r, false, ld);
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
		if (!recipe_is_regular(real))
			return imgp_fail(EINVAL, "'%s' is not a regular file", name);
		*out = recipe_pool_dup(r, real);
		return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
	}
	return imgp_fail(ENOENT, "'%s' not found next to the recipe (looked in %s and %s/overlays)",
			 name, r->dir, r->dir);
}

/*
 * Resolves the local files of every step: as written at load time (names
 * with parameters wait), with the bound values at bind time.
 */
int recipe_resolve_locals(struct imgp_recipe *r, bool bound, struct loader *ld)
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
					return load_err(ld, st->line, "step %zu (%s): %s: %s",
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
	char *dir;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return imgp_fail(ENOMEM, "out of memory");
	ld.r = r;
	ld.sc.path = path;
	r->path = recipe_pool_dup(r, path);
	if (!r->path) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = recipe_read_whole(path, RECIPE_MAX, false, &text);
	if (rc)
		goto out;
	if (memchr(text.data, '\0', text.len)) {
		rc = load_err(&ld, 0, "NUL byte in the file");
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
	r->dir = recipe_pool_dup(r, real);
	if (!r->dir) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = recipe_scan_text(&ld.sc, (const char *)text.data, text.len);
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
	recipe_scan_free(&ld.sc);
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
