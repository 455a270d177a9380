// SPDX-License-Identifier: MIT
/*
 * Parameters: loading a recipe's param sections (type, range, pattern,
 * values, aliases, default) and checking a value given for one.
 */
#include <confuse.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recipe-internal.h"

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
	if (imgp_recipe_has_ctl_(v, false))
		return imgp_fail(EINVAL, "%s must be one line without control characters (got '%s')",
				 who, imgp_recipe_show_value_(v, shown, sizeof(shown)));
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
					 imgp_recipe_show_value_(v, shown, sizeof(shown)));
		return imgp_fail(EINVAL, "%s must match the pattern '%s' (got '%s')",
				 who, p->pattern,
				 imgp_recipe_show_value_(v, shown, sizeof(shown)));
	}
	if (!p->is_int)
		return 0;
	if (!imgp_recipe_parse_long_(v, num))
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

int imgp_recipe_param_check_(const struct imgp_recipe *r,
		       const struct imgp_recipe_param *p, const char *v,
		       long *num)
{
	return param_check(r, p, v, true, num);
}

/* A checked value as it is substituted: integers in plain decimal. */
const char *imgp_recipe_param_norm_(struct imgp_recipe *r,
			      const struct imgp_recipe_param *p, const char *v,
			      long num)
{
	char *s;

	if (!p->is_int)
		return imgp_recipe_pool_dup_(r, v);
	if (asprintf(&s, "%ld", num) < 0)
		return NULL;
	return imgp_recipe_pool_keep_(r, s);
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
	int line = imgp_recipe_key_line_(&ld->sc, si, "alias");
	const char **given, **value;
	long num;

	if (imgp_recipe_has_key_(&ld->sc, si, "alias") && !n)
		return imgp_recipe_load_err_(ld, line, "parameter '%s': empty list of aliases",
					    p->name);
	given = calloc(n ? n : 1, sizeof(*given));
	value = calloc(n ? n : 1, sizeof(*value));
	if (!given || !imgp_recipe_pool_keep_(r, (char *)given)) {
		free(value);
		return imgp_fail(ENOMEM, "out of memory");
	}
	if (!value || !imgp_recipe_pool_keep_(r, (char *)value))
		return imgp_fail(ENOMEM, "out of memory");
	for (unsigned k = 0; k < n; k++) {
		const char *a = cfg_getnstr(sec, "alias", k);
		const char *eq = a ? strchr(a, '=') : NULL;
		const char *from;

		if (!eq || eq == a || imgp_recipe_has_ctl_(a, false))
			return imgp_recipe_load_err_(ld, line, "parameter '%s': an alias is \"GIVEN=VALUE\" on one line (got '%s')",
						    p->name, a ? a : "");
		from = imgp_recipe_pool_keep_(r, strndup(a, (size_t)(eq - a)));
		if (!from)
			return imgp_fail(ENOMEM, "out of memory");
		if (!param_check(r, p, from, true, &num))
			return imgp_recipe_load_err_(ld, line, "parameter '%s': alias '%s' is already one of its values",
						    p->name, from);
		imgp_errclear_();
		for (unsigned j = 0; j < k; j++)
			if (!strcmp(given[j], from))
				return imgp_recipe_load_err_(ld, line, "parameter '%s': alias '%s' is listed twice",
							    p->name, from);
		if (param_check(r, p, eq + 1, true, &num))
			return imgp_recipe_load_err_(ld, line, "parameter '%s': alias '%s': %s",
						    p->name, from, imgp_errmsg());
		given[k] = from;
		value[k] = imgp_recipe_pool_dup_(r, eq + 1);
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
	int line = imgp_recipe_key_line_(&ld->sc, si, "pattern");
	char *anchored, err[256];
	const char *bad;
	int rc;

	if (text && !pat)
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "pattern-text"),
					    "parameter '%s': pattern-text without a pattern",
					    p->name);
	if (!pat)
		return 0;
	if (p->is_int)
		return imgp_recipe_load_err_(ld, line, "parameter '%s': pattern needs type = \"string\" (an int has min and max)",
					    p->name);
	if (!*pat || imgp_recipe_has_ctl_(pat, false))
		return imgp_recipe_load_err_(ld, line, "parameter '%s': pattern must be a non-empty single line",
					    p->name);
	if (text && (!*text || imgp_recipe_has_ctl_(text, false)))
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "pattern-text"),
					    "parameter '%s': pattern-text must be a non-empty single line",
					    p->name);
	bad = pattern_problem(pat);
	if (bad)
		return imgp_recipe_load_err_(ld, line, "parameter '%s': pattern '%s': %s",
					    p->name, pat, bad);
	if (asprintf(&anchored, "^(%s)$", pat) < 0)
		return imgp_fail(ENOMEM, "out of memory");
	rc = regcomp(&r->patterns[i], anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	if (rc) {
		regerror(rc, &r->patterns[i], err, sizeof(err));
		return imgp_recipe_load_err_(ld, line, "parameter '%s': pattern '%s': %s",
					    p->name, pat, err);
	}
	r->compiled[i] = true;
	p->pattern = imgp_recipe_pool_dup_(r, pat);
	p->pattern_text = text ? imgp_recipe_pool_dup_(r, text) : NULL;
	if (!p->pattern || (text && !p->pattern_text))
		return imgp_fail(ENOMEM, "out of memory");
	return 0;
}

int imgp_recipe_load_param_(struct loader *ld, size_t i)
{
	struct imgp_recipe *r = ld->r;
	struct imgp_recipe_param *p = &r->params[i];
	cfg_t *sec = cfg_getnsec(ld->cfg, "param", (unsigned)i);
	size_t si = imgp_recipe_scan_sec_(&ld->sc, "param", i);
	int line = imgp_recipe_sec_line_(&ld->sc, si);
	const char *title = cfg_title(sec);
	const char *type = cfg_size(sec, "type") ? cfg_getstr(sec, "type") : "string";
	const char *desc = cfg_size(sec, "description") ? cfg_getstr(sec, "description") : NULL;
	unsigned nvalues = cfg_size(sec, "values");
	const char **values;
	long num;
	int rc;

	if (!title || !imgp_recipe_is_ident_(title, strlen(title)))
		return imgp_recipe_load_err_(ld, line, "parameter name '%s' must be letters, digits, '_' and '-', starting with a letter or '_'",
					    title ? title : "");
	p->name = imgp_recipe_pool_dup_(r, title);
	if (!p->name)
		return imgp_fail(ENOMEM, "out of memory");
	if (!desc || !*desc)
		return imgp_recipe_load_err_(ld, line, "parameter '%s': missing 'description'",
					    title);
	p->description = imgp_recipe_pool_dup_(r, desc);
	if (!p->description)
		return imgp_fail(ENOMEM, "out of memory");
	if (!strcmp(type, "int"))
		p->is_int = true;
	else if (strcmp(type, "string"))
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "type"),
					    "parameter '%s': type must be \"string\" or \"int\" (got '%s')",
					    title, type);
	p->has_min = cfg_size(sec, "min") > 0;
	p->has_max = cfg_size(sec, "max") > 0;
	if ((p->has_min || p->has_max) && !p->is_int)
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, p->has_min ? "min" : "max"),
					    "parameter '%s': min and max need type = \"int\"",
					    title);
	if (p->has_min)
		p->min = cfg_getint(sec, "min");
	if (p->has_max)
		p->max = cfg_getint(sec, "max");
	if (p->has_min && p->has_max && p->min > p->max)
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "max"),
					    "parameter '%s': min %ld is above max %ld", title,
					    p->min, p->max);
	rc = load_pattern(ld, sec, si, i);
	if (rc)
		return rc;
	if (imgp_recipe_has_key_(&ld->sc, si, "values") && !nvalues)
		return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "values"),
					    "parameter '%s': empty list of values", title);
	values = calloc(nvalues ? nvalues : 1, sizeof(*values));
	if (!values || !imgp_recipe_pool_keep_(r, (char *)values))
		return imgp_fail(ENOMEM, "out of memory");
	for (unsigned k = 0; k < nvalues; k++) {
		const char *v = cfg_getnstr(sec, "values", k);

		if (!v || !*v || imgp_recipe_has_ctl_(v, false))
			return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "values"),
						    "parameter '%s': values must be non-empty single lines",
						    title);
		for (unsigned j = 0; j < k; j++)
			if (!strcmp(values[j], v))
				return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "values"),
							    "parameter '%s': value '%s' is listed twice",
							    title, v);
		/* Each value must itself be a valid value of the type. */
		if (param_check(r, p, v, false, &num))
			return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "values"),
						    "parameter '%s': %s", title, imgp_errmsg());
		values[k] = imgp_recipe_pool_dup_(r, v);
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
			return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "default"),
						    "parameter '%s' is required and has a default: choose one",
						    title);
		if (param_check(r, p, d ? d : "", true, &num))
			return imgp_recipe_load_err_(ld, imgp_recipe_key_line_(&ld->sc, si, "default"),
						    "parameter '%s': default: %s", title,
						    imgp_errmsg());
		p->def = imgp_recipe_param_norm_(r, p, d ? d : "", num);
		if (!p->def)
			return imgp_fail(ENOMEM, "out of memory");
	} else if (!p->required) {
		return imgp_recipe_load_err_(ld, line, "parameter '%s' needs a default or required = true",
					    title);
	}
	return 0;
}
