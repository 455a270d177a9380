// SPDX-License-Identifier: MIT
/*
 * Value checks: what each kind of option value must look like, and the
 * "${name}" parameter references in a value.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "recipe-internal.h"

/* ------------------------------------------------------ value checks */

bool imgp_recipe_is_ident_(const char *s, size_t len)
{
	if (!len || len > NAME_MAX_LEN)
		return false;
	if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') ||
	      (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (size_t i = 1; i < len; i++) {
		char c = s[i];

		if (!(c == '_' || c == '-' || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

bool imgp_recipe_is_name_(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > NAME_MAX_LEN || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-' || c == '+'))
			return false;
	}
	return true;
}

bool imgp_recipe_has_ctl_(const char *s, bool tab_ok)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c < 0x20 && !(tab_ok && c == '\t')) || c == 0x7f)
			return true;
	}
	return false;
}

/*
 * v as a message shows it, in buf: control characters and '\' escaped C
 * style (a newline as \n, ESC as \x1b), cut with "..." where it would not
 * fit, so that one bad value stays one line of error. Returns buf.
 */
const char *imgp_recipe_show_value_(const char *v, char *buf, size_t len)
{
	size_t off = 0;

	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;
		char esc[5];

		switch (c) {
		case '\n': snprintf(esc, sizeof(esc), "\\n"); break;
		case '\r': snprintf(esc, sizeof(esc), "\\r"); break;
		case '\t': snprintf(esc, sizeof(esc), "\\t"); break;
		case '\\': snprintf(esc, sizeof(esc), "\\\\"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				snprintf(esc, sizeof(esc), "\\x%02x", c);
			else
				snprintf(esc, sizeof(esc), "%c", c);
		}
		/* Room for this, "..." and the NUL. */
		if (off + strlen(esc) + 4 > len) {
			snprintf(buf + off, len - off, "...");
			return buf;
		}
		off += (size_t)snprintf(buf + off, len - off, "%s", esc);
	}
	buf[off] = '\0';
	return buf;
}

/*
 * Checks the components of a '/'-separated path: none empty, "." or "..".
 * Returns NULL or the reason.
 */
static const char *check_components(const char *p)
{
	while (*p) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == 0)
			return "empty path component ('//' or a trailing '/')";
		if (n == 1 && p[0] == '.')
			return "'.' component";
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "'..' component (a recipe stays inside what it names)";
		p += n;
		if (*p == '/')
			p++;
		if (end && !*p)
			return "empty path component ('//' or a trailing '/')";
	}
	return NULL;
}

/* The number a decimal string holds, if it is one. */
bool imgp_recipe_parse_long_(const char *s, long *out)
{
	char *end;

	if (!*s || !(*s == '-' || (*s >= '0' && *s <= '9')))
		return false;
	errno = 0;
	*out = strtol(s, &end, 10);
	return !errno && !*end;
}

/*
 * Checks value v of kind k. Checks whose outcome parameters could change
 * wait for binding (bound false and v holds "${"); paths are checked both
 * times, so that a recipe is safe as written and as bound. Returns NULL or
 * the reason, in why.
 */
const char *imgp_recipe_check_value_(enum kind k, const char *v, bool bound,
			       char *why, size_t whylen)
{
	bool later = !bound && strstr(v, "${");
	struct imgp_buf tmp = { 0 };
	const char *bad;
	long num;
	int rc;

	switch (k) {
	case K_FSPATH:
		if (v[0] != '/')
			return "must be an absolute path (start with '/')";
		if (!v[1])
			return "must name a file, not '/'";
		if (imgp_recipe_has_ctl_(v, false))
			return "control character in path";
		return check_components(v + 1);
	case K_LOCAL:
		if (!*v)
			return "empty file name";
		if (v[0] == '/')
			return "must be a file name relative to the recipe's directory, not an absolute path";
		if (imgp_recipe_has_ctl_(v, false))
			return "control character in file name";
		return check_components(v);
	case K_DTPATH:
		if (v[0] != '/' || !v[1])
			return "must be an absolute node path (as /chosen/x)";
		for (const char *p = v; *p; p++)
			if (*p == ' ' || *p == '\t' || (unsigned char)*p < 0x20)
				return "white space in node path";
		return check_components(v + 1);
	case K_PART:
		if (!*v)
			return "empty partition";
		if (imgp_recipe_has_ctl_(v, false) || strchr(v, ':'))
			return "must be boot, root, a partition number or a label";
		if (later)
			return NULL;
		if (v[0] >= '0' && v[0] <= '9') {
			if (!imgp_recipe_parse_long_(v, &num) || num < 1 || v[0] == '0')
				return "partition numbers start at 1";
		}
		return NULL;
	case K_TEXT:
		return NULL;
	case K_LINE:
		return strchr(v, '\n') || strchr(v, '\r') ? "must be one line" : NULL;
	case K_WORD:
		if (!*v)
			return "must not be empty";
		return imgp_recipe_has_ctl_(v, true) ? "must be one line of text" : NULL;
	case K_NOSPACE:
		if (!*v)
			return "must not be empty";
		for (const char *p = v; *p; p++)
			if ((unsigned char)*p <= ' ' || *p == 0x7f)
				return "must not contain white space";
		return NULL;
	case K_CMDLINE:
		if (later)
			return NULL;
		if (imgp_cmdline_check(v)) {
			imgp_errclear_();
			return "must be kernel command line edits, as \"+cgroup_memory=1,-quiet\" (+WORD, +KEY=VALUE, -WORD, -KEY; one word each)";
		}
		return NULL;
	case K_FSTABOPS:
		if (later)
			return NULL;
		for (const char *p = v;;) {
			size_t n = strcspn(p, ",");

			if (n < 2 || (p[0] != '+' && p[0] != '-'))
				return "must be a list of +option and -option, as \"-discard,+noatime\"";
			if (memchr(p, ' ', n) || memchr(p, '\t', n))
				return "must not contain white space";
			if (!p[n])
				break;
			p += n + 1;
		}
		return imgp_recipe_has_ctl_(v, false) ? "control character in options" : NULL;
	case K_DTVALUE:
		if (imgp_recipe_has_ctl_(v, true))
			return "must be one line";
		if (later)
			return NULL;
		rc = imgp_dt_parse_value_(v, &tmp);
		imgp_buf_free(&tmp);
		if (rc) {
			snprintf(why, whylen, "%s", imgp_errmsg());
			return why;
		}
		return NULL;
	case K_ARCH:
		if (later)
			return NULL;
		rc = imgp_bootscr_make_("x", 1, NULL, v, 0, &tmp);
		imgp_buf_free(&tmp);
		if (rc) {
			snprintf(why, whylen, "%s", imgp_errmsg());
			return why;
		}
		return NULL;
	case K_MODE:
		if (later)
			return NULL;
		if (strlen(v) < 3 || strlen(v) > 4 || strspn(v, "01234567") != strlen(v))
			return "must be permission bits in octal, as \"0600\" (at most 0777)";
		return strtoul(v, NULL, 8) > 0777 ? "must be permission bits in octal, as \"0600\" (at most 0777)" : NULL;
	case K_YAML:
		if (later)
			return NULL;
		if (imgp_yaml_entry_check_(NULL, v)) {
			snprintf(why, whylen, "%s", imgp_errmsg());
			imgp_errclear_();
			return why;
		}
		return NULL;
	case K_SCRNAME:
		bad = imgp_recipe_has_ctl_(v, true) ? "must be one line" : NULL;
		if (!bad && !later && strlen(v) > SCRIPT_NAME_MAX)
			bad = "longer than the 32 bytes a U-Boot image name holds";
		return bad;
	}
	return NULL;
}

/* -------------------------------------------------- parameter refs */

struct imgp_recipe_param *imgp_recipe_find_param_(const struct imgp_recipe *r,
					    const char *name, size_t len)
{
	for (size_t i = 0; i < r->nparams; i++)
		if (strlen(r->params[i].name) == len &&
		    !memcmp(r->params[i].name, name, len))
			return &r->params[i];
	return NULL;
}

/* "a, b, c" of the declared parameter names, into buf. */
void imgp_recipe_param_names_(const struct imgp_recipe *r, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->nparams && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? ", " : "", r->params[i].name);
}

/*
 * Walks the "${name}" references of s: "$$" is a literal '$', any other
 * '$' stays as it is. Every name must be a declared parameter. With out,
 * appends s with values[i] in place of parameter i. Returns 0, -ENOMEM, or
 * -EINVAL with the reason in why.
 */
int imgp_recipe_walk_refs_(const struct imgp_recipe *r, const char *s,
		     const char *const *values, struct imgp_buf *out,
		     char *why, size_t whylen)
{
	const char *p = s;
	int rc = 0;

	while (!rc && *p) {
		const struct imgp_recipe_param *param;
		const char *end;
		size_t len;

		if (p[0] != '$' || (p[1] != '{' && p[1] != '$')) {
			size_t n = strcspn(p + 1, "$") + 1;

			if (out)
				rc = imgp_buf_append(out, p, n);
			p += n;
			continue;
		}
		if (p[1] == '$') {
			if (out)
				rc = imgp_buf_append(out, "$", 1);
			p += 2;
			continue;
		}
		end = strchr(p + 2, '}');
		if (!end) {
			snprintf(why, whylen, "unterminated '${' (write $$ for a literal $)");
			return -EINVAL;
		}
		len = (size_t)(end - p - 2);
		if (!imgp_recipe_is_ident_(p + 2, len)) {
			snprintf(why, whylen, "'%.*s' is not a parameter name",
				 (int)len, p + 2);
			return -EINVAL;
		}
		param = imgp_recipe_find_param_(r, p + 2, len);
		if (!param) {
			char names[512];

			imgp_recipe_param_names_(r, names, sizeof(names));
			if (r->nparams)
				snprintf(why, whylen, "undeclared parameter '%.*s' (declared: %s)",
					 (int)len, p + 2, names);
			else
				snprintf(why, whylen, "undeclared parameter '%.*s' (the recipe declares none: add a 'param %.*s { ... }' section)",
					 (int)len, p + 2, (int)len, p + 2);
			return -EINVAL;
		}
		if (out && values[param - r->params])
			rc = imgp_buf_append(out, values[param - r->params],
					     strlen(values[param - r->params]));
		p = end + 1;
	}
	return rc;
}
