// SPDX-License-Identifier: MIT
/*
 * Recipes: a named, documented patch read from a libconfuse file. Loading
 * checks everything that needs no image (actions, options, paths, the local
 * files a recipe names, parameter references); binding fixes the
 * parameters and checks the steps again with their values in place;
 * matching checks the image; applying runs the steps through the patch
 * operations, so a recipe can do nothing that the patch command cannot.
 */
#include <confuse.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch-internal.h"

#define RECIPE_MAX ((size_t)1 << 20)  /* a recipe file */
#define LOCAL_MAX ((size_t)16 << 20)  /* an overlay, script or file it names */
#define NAME_MAX_LEN 64               /* recipe and parameter names */
#define SCRIPT_NAME_MAX 32            /* U-Boot legacy image name */
#define WRAP 78                       /* describe output width */

/* ------------------------------------------------------------ the model */

/* Every option a step can have; each action takes some of them. */
enum opt {
	OP_ACTION, OP_FIT, OP_FDT, OP_PART, OP_PATH, OP_NODE, OP_PROPERTY, OP_VALUE,
	OP_OVERLAY, OP_WORD, OP_MOUNTPOINT, OP_OPTIONS, OP_CONTENT, OP_FILE, OP_KEY,
	OP_SECTION, OP_TOKEN, OP_TARGET, OP_SCRIPT, OP_NAME, OP_ARCH, OP_COUNT
};

static const char *const opt_names[OP_COUNT] = {
	"action", "fit", "fdt", "part", "path", "node", "property", "value",
	"overlay", "word", "mountpoint", "options", "content", "file", "key",
	"section", "token", "target", "script", "name", "arch",
};

/* What an option's value must look like. */
enum kind {
	K_FSPATH,       /* absolute path inside a filesystem, no "." or ".." */
	K_PART,         /* "boot", "root", a partition number or a label */
	K_LOCAL,        /* a file next to the recipe (or in overlays/) */
	K_TEXT,         /* any text, newlines too */
	K_LINE,         /* one line, may be empty */
	K_WORD,         /* one non-empty line */
	K_NOSPACE,      /* non-empty, no white space */
	K_DTPATH,       /* absolute device tree node path */
	K_DTVALUE,      /* property value in dtc syntax */
	K_FSTABOPS,     /* "-discard,+noatime" */
	K_ARCH,         /* U-Boot architecture name */
	K_SCRNAME,      /* U-Boot image name */
};

#define REQ 1u  /* required */
#define OPT 2u  /* optional */
#define ALT 4u  /* exactly one of the ALT options */

struct action_opt {
	enum opt opt;
	enum kind kind;
	unsigned flags;         /* 0 ends the list */
};

/*
 * How a step uses the device tree being edited, for the order checks. An
 * overlay that is never written still proves that it applies: a check.
 */
enum dt_use { DT_NONE, DT_LOAD, DT_EDIT, DT_CHECK, DT_WRITE };

struct recipe_step;
struct action {
	const char *name;
	enum dt_use dt;
	/* "{opt}" is the option's value; "[...]" shows only when every option
	 * in it is set; "{?opt}" shows nothing but needs opt. */
	const char *show;
	int (*run)(struct imgp_patch *patch, const struct recipe_step *st);
	struct action_opt opts[7];
};

struct recipe_step {
	const struct action *action;
	int line;
	const char *raw[OP_COUNT];       /* as written; NULL when absent */
	const char *val[OP_COUNT];       /* with parameters substituted */
	const char *local;              /* resolved path of a K_LOCAL option */
};

enum rule_kind { R_LABEL, R_FILE, R_FITFDT, R_COMPAT, R_COUNT };

static const char *const rule_keys[R_COUNT] = {
	"partition-label", "file", "fit-fdt", "compatible",
};

struct match_rule {
	enum rule_kind kind;
	int line;
	const char *raw;
	const char *val;
};

struct imgp_recipe {
	const char *path;
	const char *dir;                /* real path of its directory */
	const char *name, *summary, *description, *source, *risks, *undo;
	size_t nparams;
	struct imgp_recipe_param *params;
	size_t nrules;
	struct match_rule *rules;
	size_t nsteps;
	struct recipe_step *steps;
	bool bound;
	/* Every string above is owned here, freed together. */
	char **pool;
	size_t npool, cappool;
};

/* ------------------------------------------------------- string pool */

static const char *pool_keep(struct imgp_recipe *r, char *s)
{
	if (!s)
		return NULL;
	if (r->npool == r->cappool) {
		size_t cap = r->cappool ? 2 * r->cappool : 64;
		char **grown = realloc(r->pool, cap * sizeof(*grown));

		if (!grown) {
			free(s);
			return NULL;
		}
		r->pool = grown;
		r->cappool = cap;
	}
	r->pool[r->npool++] = s;
	return s;
}

static const char *pool_dup(struct imgp_recipe *r, const char *s)
{
	return pool_keep(r, strdup(s));
}

/* ---------------------------------------------------- file helpers */

/*
 * Reads a whole regular file of at most max bytes (NUL-terminated).
 * nofollow: the path was resolved already, a link there now is a swap.
 */
static int read_whole(const char *path, size_t max, bool nofollow,
		      struct imgp_buf *out)
{
	struct stat st;
	int fd, err, rc = 0;

	out->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		err = errno;
		return imgp_fail(err, "%s: %s", path, strerror(err));
	}
	if (fstat(fd, &st) < 0) {
		err = errno;
		rc = imgp_fail(err, "%s: %s", path, strerror(err));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = imgp_fail(EINVAL, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > max) {
		rc = imgp_fail(EFBIG, "%s: larger than %zu bytes", path, max);
		goto out;
	}
	if (imgp_buf_reserve(out, (size_t)st.st_size + 1)) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (;;) {
		uint8_t chunk[8192];
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			rc = imgp_fail(err, "%s: read error: %s", path, strerror(err));
			break;
		}
		if (n == 0)
			break;
		/* The file may grow while we read it: the bound still holds. */
		if (out->len + (size_t)n > max) {
			rc = imgp_fail(EFBIG, "%s: larger than %zu bytes", path, max);
			break;
		}
		if (imgp_buf_append(out, chunk, (size_t)n)) {
			rc = imgp_fail(ENOMEM, "out of memory");
			break;
		}
	}
	if (!rc && imgp_buf_append(out, "", 0))
		rc = imgp_fail(ENOMEM, "out of memory");
out:
	close(fd);
	return rc;
}

static bool is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ------------------------------------------------------ value checks */

static bool is_ident(const char *s, size_t len)
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

static bool is_recipe_name(const char *s)
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

static bool has_ctl(const char *s, bool tab_ok)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c < 0x20 && !(tab_ok && c == '\t')) || c == 0x7f)
			return true;
	}
	return false;
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
static bool parse_long(const char *s, long *out)
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
static const char *check_value(enum kind k, const char *v, bool bound,
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
		if (has_ctl(v, false))
			return "control character in path";
		return check_components(v + 1);
	case K_LOCAL:
		if (!*v)
			return "empty file name";
		if (v[0] == '/')
			return "must be a file name relative to the recipe's directory, not an absolute path";
		if (has_ctl(v, false))
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
		if (has_ctl(v, false) || strchr(v, ':'))
			return "must be boot, root, a partition number or a label";
		if (later)
			return NULL;
		if (v[0] >= '0' && v[0] <= '9') {
			if (!parse_long(v, &num) || num < 1 || v[0] == '0')
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
		return has_ctl(v, true) ? "must be one line of text" : NULL;
	case K_NOSPACE:
		if (!*v)
			return "must not be empty";
		for (const char *p = v; *p; p++)
			if ((unsigned char)*p <= ' ' || *p == 0x7f)
				return "must not contain white space";
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
		return has_ctl(v, false) ? "control character in options" : NULL;
	case K_DTVALUE:
		if (has_ctl(v, true))
			return "must be one line";
		if (later)
			return NULL;
		rc = imgp_dt_parse_value(v, &tmp);
		imgp_buf_free(&tmp);
		if (rc) {
			snprintf(why, whylen, "%s", imgp_errmsg());
			return why;
		}
		return NULL;
	case K_ARCH:
		if (later)
			return NULL;
		rc = imgp_bootscr_make("x", 1, NULL, v, 0, &tmp);
		imgp_buf_free(&tmp);
		if (rc) {
			snprintf(why, whylen, "%s", imgp_errmsg());
			return why;
		}
		return NULL;
	case K_SCRNAME:
		bad = has_ctl(v, true) ? "must be one line" : NULL;
		if (!bad && !later && strlen(v) > SCRIPT_NAME_MAX)
			bad = "longer than the 32 bytes a U-Boot image name holds";
		return bad;
	}
	return NULL;
}

/* -------------------------------------------------- parameter refs */

static struct imgp_recipe_param *find_param(const struct imgp_recipe *r,
					    const char *name, size_t len)
{
	for (size_t i = 0; i < r->nparams; i++)
		if (strlen(r->params[i].name) == len &&
		    !memcmp(r->params[i].name, name, len))
			return &r->params[i];
	return NULL;
}

/* "a, b, c" of the declared parameter names, into buf. */
static void param_names(const struct imgp_recipe *r, char *buf, size_t len)
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
static int walk_refs(const struct imgp_recipe *r, const char *s,
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
		if (!is_ident(p + 2, len)) {
			snprintf(why, whylen, "'%.*s' is not a parameter name",
				 (int)len, p + 2);
			return -EINVAL;
		}
		param = find_param(r, p + 2, len);
		if (!param) {
			char names[512];

			param_names(r, names, sizeof(names));
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

/* --------------------------------------------------------- the scanner */

/*
 * libconfuse reads "${VAR}" in double-quoted and bare strings as an
 * environment variable, and miscounts lines after comments. So the text it
 * parses is first rewritten here: comments become blanks (newlines kept),
 * "${" inside double quotes becomes "\${" (which libconfuse reads back as
 * "${"), and "${" outside quotes is refused. On the way the scanner notes
 * the line of every top-level section and of every key, which libconfuse
 * does not keep, for messages and duplicate checks.
 */
struct scan_sec {
	char kind[32];
	int line;
};

struct scan_key {
	size_t sec;                     /* 0: top level; n: secs[n - 1] */
	char key[32];
	int line;
};

struct scan {
	const char *path;
	struct imgp_buf out;
	size_t nsecs, nkeys;
	struct scan_sec *secs;
	struct scan_key *keys;
	/* parser state */
	enum { S_KEY, S_AFTER_KEY, S_TITLE, S_VALUE, S_LIST, S_FUNC } st;
	int depth;
	size_t cur;
	char key[32];
	int keyline;
};

enum { T_WORD = 256 };

static int scan_add_key(struct scan *s, size_t sec, const char *key, int line)
{
	struct scan_key *grown = realloc(s->keys, (s->nkeys + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	s->keys = grown;
	grown[s->nkeys].sec = sec;
	snprintf(grown[s->nkeys].key, sizeof(grown[s->nkeys].key), "%s", key);
	grown[s->nkeys].line = line;
	s->nkeys++;
	return 0;
}

static int scan_open(struct scan *s)
{
	int rc = 0;

	if (s->depth == 0) {
		struct scan_sec *grown = realloc(s->secs,
						 (s->nsecs + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->secs = grown;
		snprintf(grown[s->nsecs].kind, sizeof(grown[s->nsecs].kind),
			 "%s", s->key);
		grown[s->nsecs].line = s->keyline;
		s->nsecs++;
		rc = scan_add_key(s, 0, s->key, s->keyline);
		s->cur = s->nsecs;
	}
	s->depth++;
	s->st = S_KEY;
	return rc;
}

static int scan_token(struct scan *s, int tok, const char *word, size_t wlen,
		      int line)
{
	switch (s->st) {
	case S_KEY:
		if (tok == T_WORD) {
			snprintf(s->key, sizeof(s->key), "%.*s", (int)wlen, word);
			s->keyline = line;
			s->st = S_AFTER_KEY;
		} else if (tok == '}' && s->depth > 0) {
			if (--s->depth == 0)
				s->cur = 0;
		}
		return 0;
	case S_AFTER_KEY:
		if (tok == '=' || tok == '+')
			s->st = S_VALUE;
		else if (tok == T_WORD)
			s->st = S_TITLE;
		else if (tok == '{')
			return scan_open(s);
		else
			s->st = tok == '(' ? S_FUNC : S_KEY;
		return 0;
	case S_TITLE:
		if (tok == '{')
			return scan_open(s);
		s->st = S_KEY;
		return 0;
	case S_VALUE:
		s->st = tok == '{' ? S_LIST : S_KEY;
		return scan_add_key(s, s->depth ? s->cur : 0, s->key, s->keyline);
	case S_LIST:
		if (tok == '}')
			s->st = S_KEY;
		return 0;
	case S_FUNC:
		if (tok == ')')
			s->st = S_KEY;
		return 0;
	}
	return 0;
}

static int scan_text(struct scan *s, const char *t, size_t len)
{
	struct imgp_buf *o = &s->out;
	int line = 1, rc = 0;
	size_t i = 0;

	while (!rc && i < len) {
		char c = t[i];

		if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
			line += c == '\n';
			rc = imgp_buf_append(o, &t[i++], 1);
		} else if (c == '#' || (c == '/' && i + 1 < len && t[i + 1] == '/')) {
			for (; i < len && t[i] != '\n'; i++)
				rc |= imgp_buf_append(o, " ", 1);
		} else if (c == '/' && i + 1 < len && t[i + 1] == '*') {
			int start = line;

			for (i += 2, rc = imgp_buf_append(o, "  ", 2);
			     i < len && !(t[i] == '*' && i + 1 < len && t[i + 1] == '/');
			     i++) {
				line += t[i] == '\n';
				rc |= imgp_buf_append(o, t[i] == '\n' ? "\n" : " ", 1);
			}
			if (i >= len)
				return imgp_fail(EINVAL, "%s:%d: unterminated comment",
						 s->path, start);
			rc |= imgp_buf_append(o, "  ", 2);
			i += 2;
		} else if (c == '"' || c == '\'') {
			size_t start = i++;
			int sline = line;

			rc = imgp_buf_append(o, &c, 1);
			while (!rc && i < len && t[i] != c) {
				if (t[i] == '\\' && i + 1 < len) {
					line += t[i + 1] == '\n';
					rc = imgp_buf_append(o, &t[i], 2);
					i += 2;
					continue;
				}
				if (c == '"' && t[i] == '$' && i + 1 < len &&
				    t[i + 1] == '{')
					rc = imgp_buf_append(o, "\\", 1);
				line += t[i] == '\n';
				rc |= imgp_buf_append(o, &t[i++], 1);
			}
			if (i >= len)
				return imgp_fail(EINVAL, "%s:%d: unterminated string",
						 s->path, sline);
			rc |= imgp_buf_append(o, &t[i++], 1);
			if (!rc)
				rc = scan_token(s, T_WORD, t + start + 1,
						i - start - 2, sline);
		} else if (strchr("{}=,()", c) || (c == '+' && i + 1 < len &&
						    t[i + 1] == '=')) {
			size_t n = c == '+' ? 2 : 1;

			rc = imgp_buf_append(o, &t[i], n);
			i += n;
			if (!rc)
				rc = scan_token(s, c, NULL, 0, line);
		} else {
			size_t start = i;

			for (; i < len && !strchr(" \t\r\n\"'{}=,()+#", t[i]); i++) {
				if (t[i] == '$' && i + 1 < len && t[i + 1] == '{')
					return imgp_fail(EINVAL, "%s:%d: '${' outside quotes: put the value in quotes (\"...\")",
							 s->path, line);
			}
			if (i == start) {
				/* A lone '+': libconfuse skips it too. */
				rc = imgp_buf_append(o, &t[i++], 1);
				continue;
			}
			rc = imgp_buf_append(o, t + start, i - start);
			if (!rc)
				rc = scan_token(s, T_WORD, t + start, i - start, line);
		}
	}
	/* libconfuse wants a final newline; fmemopen wants a non-empty buffer. */
	if (!rc)
		rc = imgp_buf_append(o, "\n", 1);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

static void scan_free(struct scan *s)
{
	imgp_buf_free(&s->out);
	free(s->secs);
	free(s->keys);
}

/* 1-based index into secs of the ordinal-th section of kind, or 0. */
static size_t scan_sec(const struct scan *s, const char *kind, size_t ordinal)
{
	for (size_t i = 0; i < s->nsecs; i++)
		if (!strcmp(s->secs[i].kind, kind) && ordinal-- == 0)
			return i + 1;
	return 0;
}

static int sec_line(const struct scan *s, size_t sec)
{
	return sec ? s->secs[sec - 1].line : 0;
}

static bool has_key(const struct scan *s, size_t sec, const char *key)
{
	for (size_t i = 0; i < s->nkeys; i++)
		if (s->keys[i].sec == sec && !strcmp(s->keys[i].key, key))
			return true;
	return false;
}

/* Line of the last key in section sec, or the section's own line. */
static int key_line(const struct scan *s, size_t sec, const char *key)
{
	int line = 0;

	for (size_t i = 0; i < s->nkeys; i++)
		if (s->keys[i].sec == sec && !strcmp(s->keys[i].key, key))
			line = s->keys[i].line;
	return line ? line : sec_line(s, sec);
}

/* ---------------------------------------------------- libconfuse glue */

static _Thread_local const char *cfg_path;
static _Thread_local bool cfg_failed;

/* Edit distance of two short words, capped: enough to catch typos. */
static size_t word_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[NAME_MAX_LEN + 1];

	if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

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
			size_t d = word_distance(key, o->name);

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

/* ------------------------------------------------------------ actions */

static int run_fdt_from_fit(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_load_fdt(patch, st->val[OP_FIT], st->val[OP_FDT]);
}

static int run_dtb_from_file(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_load_dtb_file(patch, st->val[OP_PART], st->val[OP_PATH]);
}

static int run_dt_delete(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_dt_delete(patch, st->val[OP_NODE], st->val[OP_PROPERTY]);
}

static int run_dt_set(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_dt_set(patch, st->val[OP_NODE], st->val[OP_PROPERTY],
				 st->val[OP_VALUE]);
}

static int run_dt_add_node(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_dt_add_node(patch, st->val[OP_PATH]);
}

static int run_dt_delete_node(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_dt_delete_node(patch, st->val[OP_NODE]);
}

static int run_dt_overlay(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_buf dtbo = { 0 };
	int rc;

	rc = read_whole(st->local, LOCAL_MAX, true, &dtbo);
	if (!rc)
		rc = imgp_patch_dt_overlay(patch, dtbo.data, dtbo.len,
					   st->val[OP_OVERLAY]);
	imgp_buf_free(&dtbo);
	return rc;
}

static int run_write_dtb(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_write_dtb(patch, st->val[OP_PATH]);
}

static int run_boot_hook(struct imgp_patch *patch, const struct recipe_step *st)
{
	int rc = imgp_patch_boot_hook(patch, st->val[OP_WORD]);

	/* 0: no hook; the message says which script lacks it. */
	if (rc == 0)
		return -ENOENT;
	return rc < 0 ? rc : 0;
}

static int run_fstab(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_fstab(patch, st->val[OP_PART], st->val[OP_MOUNTPOINT],
				st->val[OP_OPTIONS]);
}

/* The inline text of opt, or the content of the step's local file. */
static int step_text(const struct recipe_step *st, enum opt opt,
		     struct imgp_buf *out)
{
	if (st->val[opt])
		return imgp_buf_append(out, st->val[opt], strlen(st->val[opt])) ?
			imgp_fail(ENOMEM, "out of memory") : 0;
	return read_whole(st->local, LOCAL_MAX, true, out);
}

static int run_write_file(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_buf data = { 0 };
	int rc = step_text(st, OP_CONTENT, &data);

	if (!rc)
		rc = imgp_patch_put_file(patch, st->val[OP_PART], st->val[OP_PATH],
					 data.data, data.len);
	imgp_buf_free(&data);
	return rc;
}

static int run_set_line(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_line_set(patch, st->val[OP_PART], st->val[OP_PATH],
				   st->val[OP_KEY], st->val[OP_VALUE],
				   st->val[OP_SECTION]);
}

static int run_remove_line(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_line_remove(patch, st->val[OP_PART], st->val[OP_PATH],
				      st->val[OP_KEY]);
}

static int run_set_token(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_token_set(patch, st->val[OP_PART], st->val[OP_PATH],
				    st->val[OP_TOKEN]);
}

static int run_remove_token(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_token_remove(patch, st->val[OP_PART], st->val[OP_PATH],
				       st->val[OP_KEY]);
}

static int run_symlink(struct imgp_patch *patch, const struct recipe_step *st)
{
	return imgp_patch_symlink(patch, st->val[OP_PART], st->val[OP_PATH],
				  st->val[OP_TARGET]);
}

static int run_boot_script(struct imgp_patch *patch, const struct recipe_step *st)
{
	struct imgp_buf text = { 0 };
	int rc = step_text(st, OP_SCRIPT, &text);

	if (!rc)
		rc = imgp_patch_bootscr(patch, st->val[OP_PART], st->val[OP_PATH],
					(const char *)text.data, text.len,
					st->val[OP_NAME], st->val[OP_ARCH]);
	imgp_buf_free(&text);
	return rc;
}

#define PART_PATH { OP_PART, K_PART, REQ }, { OP_PATH, K_FSPATH, REQ }

static const struct action actions[] = {
	{ "fdt-from-fit", DT_LOAD,
	  "take the device tree[ '{fdt}'] from the FIT {fit}", run_fdt_from_fit,
	  { { OP_FIT, K_FSPATH, REQ }, { OP_FDT, K_WORD, OPT } } },
	{ "dtb-from-file", DT_LOAD, "take the device tree from {part}:{path}",
	  run_dtb_from_file, { PART_PATH } },
	{ "dt-delete-property", DT_EDIT, "delete property '{property}' of node {node}",
	  run_dt_delete,
	  { { OP_NODE, K_WORD, REQ }, { OP_PROPERTY, K_NOSPACE, REQ } } },
	{ "dt-set-property", DT_EDIT,
	  "set property '{property}' of node {node} to {value}", run_dt_set,
	  { { OP_NODE, K_WORD, REQ }, { OP_PROPERTY, K_NOSPACE, REQ },
	    { OP_VALUE, K_DTVALUE, REQ } } },
	{ "dt-add-node", DT_EDIT, "add node {path}", run_dt_add_node,
	  { { OP_PATH, K_DTPATH, REQ } } },
	{ "dt-delete-node", DT_EDIT, "delete node {node}", run_dt_delete_node,
	  { { OP_NODE, K_WORD, REQ } } },
	{ "dt-overlay", DT_CHECK, "apply the overlay {overlay}", run_dt_overlay,
	  { { OP_OVERLAY, K_LOCAL, REQ } } },
	{ "write-dtb", DT_WRITE,
	  "write the device tree to {path} on the partition it came from",
	  run_write_dtb, { { OP_PATH, K_FSPATH, REQ } } },
	{ "require-boot-hook", DT_NONE,
	  "require the boot script to load '{word}'", run_boot_hook,
	  { { OP_WORD, K_WORD, REQ } } },
	{ "fstab", DT_NONE,
	  "change the options of {mountpoint} in [{part}:]/etc/fstab: {options}",
	  run_fstab,
	  { { OP_MOUNTPOINT, K_NOSPACE, REQ }, { OP_OPTIONS, K_FSTABOPS, REQ },
	    { OP_PART, K_PART, OPT } } },
	{ "write-file", DT_NONE,
	  "write {part}:{path} from [the file {file}][{?content}inline text]",
	  run_write_file,
	  { PART_PATH, { OP_CONTENT, K_TEXT, ALT }, { OP_FILE, K_LOCAL, ALT } } },
	{ "set-line", DT_NONE,
	  "set '{key}={value}' in {part}:{path}[ (section '{section}')]",
	  run_set_line,
	  { PART_PATH, { OP_KEY, K_NOSPACE, REQ }, { OP_VALUE, K_LINE, REQ },
	    { OP_SECTION, K_NOSPACE, OPT } } },
	{ "remove-line", DT_NONE, "remove the '{key}=' lines of {part}:{path}",
	  run_remove_line, { PART_PATH, { OP_KEY, K_NOSPACE, REQ } } },
	{ "set-token", DT_NONE, "set token '{token}' in {part}:{path}",
	  run_set_token, { PART_PATH, { OP_TOKEN, K_NOSPACE, REQ } } },
	{ "remove-token", DT_NONE, "remove token '{key}' from {part}:{path}",
	  run_remove_token, { PART_PATH, { OP_KEY, K_NOSPACE, REQ } } },
	{ "symlink", DT_NONE, "link {part}:{path} -> {target}", run_symlink,
	  { PART_PATH, { OP_TARGET, K_WORD, REQ } } },
	{ "boot-script", DT_NONE,
	  "write the U-Boot script image {part}:{path} from [the file {file}][{?script}inline text][, name '{name}'][, arch {arch}]",
	  run_boot_script,
	  { PART_PATH, { OP_SCRIPT, K_TEXT, ALT }, { OP_FILE, K_LOCAL, ALT },
	    { OP_NAME, K_SCRNAME, OPT }, { OP_ARCH, K_ARCH, OPT } } },
};

#define NACTIONS (sizeof(actions) / sizeof(actions[0]))

static const struct action *find_action(const char *name)
{
	for (size_t i = 0; i < NACTIONS; i++)
		if (!strcmp(actions[i].name, name))
			return &actions[i];
	return NULL;
}

static const struct action_opt *action_opt(const struct action *a, enum opt o)
{
	for (const struct action_opt *ao = a->opts; ao->flags; ao++)
		if (ao->opt == o)
			return ao;
	return NULL;
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
		return load_err(ld, key_line(&ld->sc, 0, key),
				"'%s' must be one line", key);
	*out = pool_dup(ld->r, v);
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/* Checks value v against what parameter p accepts; *num gets an int's value. */
static int param_check(const struct imgp_recipe_param *p, const char *v,
		       long *num)
{
	*num = 0;
	if (p->nvalues) {
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
	if (!p->is_int)
		return 0;
	if (!parse_long(v, num))
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

/* A checked value as it is substituted: integers in plain decimal. */
static const char *param_norm(struct imgp_recipe *r,
			      const struct imgp_recipe_param *p, const char *v,
			      long num)
{
	char *s;

	if (!p->is_int)
		return pool_dup(r, v);
	if (asprintf(&s, "%ld", num) < 0)
		return NULL;
	return pool_keep(r, s);
}

static int load_param(struct loader *ld, size_t i)
{
	struct imgp_recipe *r = ld->r;
	struct imgp_recipe_param *p = &r->params[i];
	cfg_t *sec = cfg_getnsec(ld->cfg, "param", (unsigned)i);
	size_t si = scan_sec(&ld->sc, "param", i);
	int line = sec_line(&ld->sc, si);
	const char *title = cfg_title(sec);
	const char *type = cfg_size(sec, "type") ? cfg_getstr(sec, "type") : "string";
	const char *desc = cfg_size(sec, "description") ? cfg_getstr(sec, "description") : NULL;
	unsigned nvalues = cfg_size(sec, "values");
	const char **values;
	long num;

	if (!title || !is_ident(title, strlen(title)))
		return load_err(ld, line, "parameter name '%s' must be letters, digits, '_' and '-', starting with a letter or '_'",
				title ? title : "");
	p->name = pool_dup(r, title);
	if (!p->name)
		return imgp_fail(ENOMEM, "out of memory");
	if (!desc || !*desc)
		return load_err(ld, line, "parameter '%s': missing 'description'",
				title);
	p->description = pool_dup(r, desc);
	if (!p->description)
		return imgp_fail(ENOMEM, "out of memory");
	if (!strcmp(type, "int"))
		p->is_int = true;
	else if (strcmp(type, "string"))
		return load_err(ld, key_line(&ld->sc, si, "type"),
				"parameter '%s': type must be \"string\" or \"int\" (got '%s')",
				title, type);
	p->has_min = cfg_size(sec, "min") > 0;
	p->has_max = cfg_size(sec, "max") > 0;
	if ((p->has_min || p->has_max) && !p->is_int)
		return load_err(ld, key_line(&ld->sc, si, p->has_min ? "min" : "max"),
				"parameter '%s': min and max need type = \"int\"",
				title);
	if (p->has_min)
		p->min = cfg_getint(sec, "min");
	if (p->has_max)
		p->max = cfg_getint(sec, "max");
	if (p->has_min && p->has_max && p->min > p->max)
		return load_err(ld, key_line(&ld->sc, si, "max"),
				"parameter '%s': min %ld is above max %ld", title,
				p->min, p->max);
	if (has_key(&ld->sc, si, "values") && !nvalues)
		return load_err(ld, key_line(&ld->sc, si, "values"),
				"parameter '%s': empty list of values", title);
	values = calloc(nvalues ? nvalues : 1, sizeof(*values));
	if (!values || !pool_keep(r, (char *)values))
		return imgp_fail(ENOMEM, "out of memory");
	for (unsigned k = 0; k < nvalues; k++) {
		const char *v = cfg_getnstr(sec, "values", k);
		struct imgp_recipe_param one = *p;

		if (!v || !*v || has_ctl(v, false))
			return load_err(ld, key_line(&ld->sc, si, "values"),
					"parameter '%s': values must be non-empty single lines",
					title);
		for (unsigned j = 0; j < k; j++)
			if (!strcmp(values[j], v))
				return load_err(ld, key_line(&ld->sc, si, "values"),
						"parameter '%s': value '%s' is listed twice",
						title, v);
		/* Each value must itself be a valid value of the type. */
		one.nvalues = 0;
		if (param_check(&one, v, &num))
			return load_err(ld, key_line(&ld->sc, si, "values"),
					"parameter '%s': %s", title, imgp_errmsg());
		values[k] = pool_dup(r, v);
		if (!values[k])
			return imgp_fail(ENOMEM, "out of memory");
	}
	p->values = values;
	p->nvalues = nvalues;
	p->required = cfg_size(sec, "required") && cfg_getbool(sec, "required");
	if (cfg_size(sec, "default")) {
		const char *d = cfg_getstr(sec, "default");

		if (p->required)
			return load_err(ld, key_line(&ld->sc, si, "default"),
					"parameter '%s' is required and has a default: choose one",
					title);
		if (param_check(p, d ? d : "", &num))
			return load_err(ld, key_line(&ld->sc, si, "default"),
					"parameter '%s': default: %s", title,
					imgp_errmsg());
		p->def = param_norm(r, p, d ? d : "", num);
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
	return walk_refs(ld->r, s, NULL, NULL, why, whylen);
}

static int load_rules(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	cfg_t *m = cfg_size(ld->cfg, "match") ? cfg_getsec(ld->cfg, "match") : NULL;
	size_t si = scan_sec(&ld->sc, "match", 0);
	size_t n = 0;
	char why[1024];

	if (!m)
		return 0;
	for (int k = 0; k < R_COUNT; k++)
		n += cfg_size(m, rule_keys[k]);
	r->rules = calloc(n ? n : 1, sizeof(*r->rules));
	if (!r->rules || !pool_keep(r, (char *)r->rules))
		return imgp_fail(ENOMEM, "out of memory");
	for (int k = 0; k < R_COUNT; k++) {
		int line = key_line(&ld->sc, si, rule_keys[k]);

		for (unsigned j = 0; j < cfg_size(m, rule_keys[k]); j++) {
			struct match_rule *rule = &r->rules[r->nrules++];
			const char *v = cfg_getnstr(m, rule_keys[k], j);

			rule->kind = (enum rule_kind)k;
			rule->line = line;
			rule->raw = pool_dup(r, v ? v : "");
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

		if (rule->kind != R_FILE) {
			bad = check_value(K_WORD, rule->raw, false, why, sizeof(why));
		} else if (!colon || colon[1] != '/') {
			bad = "must be PART:/PATH (as boot:/image.fit)";
		} else {
			char part[256];

			snprintf(part, sizeof(part), "%.*s", (int)(colon - rule->raw),
				 rule->raw);
			bad = check_value(K_PART, part, false, why, sizeof(why));
			if (!bad)
				bad = check_value(K_FSPATH, colon + 1, false, why,
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
	size_t si = scan_sec(&ld->sc, "step", i);
	const char *name = cfg_size(sec, "action") ? cfg_getstr(sec, "action") : NULL;
	char takes[256], why[1024];
	const struct action_opt *ao;
	size_t off = 0;
	int nalt = 0;

	st->line = sec_line(&ld->sc, si);
	if (!name) {
		return load_err(ld, st->line, "step %zu: missing 'action'", i + 1);
	}
	st->action = find_action(name);
	if (!st->action) {
		char list[1024];

		for (size_t k = 0; k < NACTIONS && off < sizeof(list); k++)
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%s", k ? ", " : "",
						actions[k].name);
		return load_err(ld, key_line(&ld->sc, si, "action"),
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
		ao = action_opt(st->action, (enum opt)o);
		if (!ao)
			return load_err(ld, key_line(&ld->sc, si, opt_names[o]),
					"step %zu (%s): option '%s' is not taken by %s (it takes: %s)",
					i + 1, name, opt_names[o], name, takes);
		v = cfg_getstr(sec, opt_names[o]);
		st->raw[o] = pool_dup(r, v ? v : "");
		if (!st->raw[o])
			return imgp_fail(ENOMEM, "out of memory");
	}
	for (ao = st->action->opts; ao->flags; ao++) {
		const char *v = st->raw[ao->opt];
		const char *bad;
		int line = key_line(&ld->sc, si, opt_names[ao->opt]);

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
		bad = check_value(ao->kind, v, false, why, sizeof(why));
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
	const struct imgp_recipe *r = ld->r;
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

static const struct recipe_step *first_dt_load(const struct imgp_recipe *r)
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

static int resolve_locals(struct imgp_recipe *r, bool bound, struct loader *ld);

static int parse_recipe(struct loader *ld)
{
	struct imgp_recipe *r = ld->r;
	cfg_opt_t param_opts[] = {
		CFG_STR("description", NULL, CFGF_NODEFAULT),
		CFG_STR("type", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("values", NULL, CFGF_NODEFAULT),
		CFG_STR("default", NULL, CFGF_NODEFAULT),
		CFG_INT("min", 0, CFGF_NODEFAULT),
		CFG_INT("max", 0, CFGF_NODEFAULT),
		CFG_BOOL("required", cfg_false, CFGF_NODEFAULT),
		CFG_END()
	};
	cfg_opt_t match_opts[] = {
		CFG_STR_LIST("partition-label", NULL, CFGF_NODEFAULT),
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
	if (!is_recipe_name(r->name))
		return load_err(ld, key_line(&ld->sc, 0, "name"),
				"name '%s' must be letters, digits, '.', '_', '+' and '-'",
				r->name);
	slash = strrchr(r->path, '/');
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : r->path);
	if (ends_with(base, ".recipe"))
		base[strlen(base) - strlen(".recipe")] = '\0';
	/* Recipes are found by file name: the two must agree. */
	if (strcmp(base, r->name))
		return load_err(ld, key_line(&ld->sc, 0, "name"),
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
	if (!r->params)
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
		if (r->rules[i].kind == R_COMPAT && !first_dt_load(r))
			return load_err(ld, r->rules[i].line, "match: compatible needs a step that loads a device tree (fdt-from-fit or dtb-from-file)");
	return resolve_locals(r, false, ld);
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
		if (!is_regular(real))
			return imgp_fail(EINVAL, "'%s' is not a regular file", name);
		*out = pool_dup(r, real);
		return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
	}
	return imgp_fail(ENOENT, "'%s' not found next to the recipe (looked in %s and %s/overlays)",
			 name, r->dir, r->dir);
}

/*
 * Resolves the local files of every step: as written at load time (names
 * with parameters wait), with the bound values at bind time.
 */
static int resolve_locals(struct imgp_recipe *r, bool bound, struct loader *ld)
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
	r->path = pool_dup(r, path);
	if (!r->path) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = read_whole(path, RECIPE_MAX, false, &text);
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
	r->dir = pool_dup(r, real);
	if (!r->dir) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = scan_text(&ld.sc, (const char *)text.data, text.len);
	if (!rc)
		rc = parse_recipe(&ld);
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
	scan_free(&ld.sc);
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
	free(r->params);
	free(r->steps);
	free(r);
}

/* ---------------------------------------------------------- binding */

/* The hint for a required parameter that was not given. */
static int required_error(const struct imgp_recipe_param *p)
{
	char list[512];
	size_t off = 0;

	list[0] = '\0';
	for (size_t i = 0; i < p->nvalues && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					i ? ", " : "", p->values[i]);
	if (p->nvalues)
		return imgp_fail(EINVAL, "parameter '%s' is required (one of: %s): give --set %s=%s",
				 p->name, list, p->name, p->values[0]);
	if (p->is_int && p->has_min && p->has_max)
		return imgp_fail(EINVAL, "parameter '%s' is required (%ld..%ld): give --set %s=%ld",
				 p->name, p->min, p->max, p->name, p->min);
	return imgp_fail(EINVAL, "parameter '%s' is required (%s): give --set %s=VALUE",
			 p->name, p->description, p->name);
}

/* Substitutes the bound values into s; *out is pooled. */
static int substitute(struct imgp_recipe *r, const char *s,
		      const char *const *values, const char **out)
{
	struct imgp_buf b = { 0 };
	char why[512];
	int rc;

	rc = imgp_buf_append(&b, "", 0);
	if (!rc)
		rc = walk_refs(r, s, values, &b, why, sizeof(why));
	if (rc) {
		imgp_buf_free(&b);
		/* References were checked at load time: only memory is left. */
		return rc == -ENOMEM ? imgp_fail(ENOMEM, "out of memory")
				     : imgp_fail(EINVAL, "%s", why);
	}
	*out = pool_keep(r, (char *)imgp_buf_steal(&b, NULL));
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

int imgp_recipe_bind(struct imgp_recipe *r, const char *const *sets,
		     size_t nsets)
{
	const char **values = calloc(r->nparams ? r->nparams : 1, sizeof(*values));
	const char **saved_val = NULL, **saved_local = NULL, **saved_rule = NULL;
	char names[512];
	long num;
	int rc = 0;

	if (!values)
		return imgp_fail(ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < nsets; i++) {
		const char *eq = strchr(sets[i], '=');
		struct imgp_recipe_param *p;

		if (!eq || eq == sets[i]) {
			rc = imgp_fail(EINVAL, "'%s': expected NAME=VALUE", sets[i]);
			break;
		}
		p = find_param(r, sets[i], (size_t)(eq - sets[i]));
		if (!p) {
			param_names(r, names, sizeof(names));
			rc = r->nparams ?
				imgp_fail(EINVAL, "recipe '%s' has no parameter '%.*s' (parameters: %s)",
					  r->name, (int)(eq - sets[i]), sets[i], names) :
				imgp_fail(EINVAL, "recipe '%s' has no parameter '%.*s' (it takes none)",
					  r->name, (int)(eq - sets[i]), sets[i]);
			break;
		}
		if (values[p - r->params]) {
			rc = imgp_fail(EINVAL, "parameter '%s' is given twice", p->name);
			break;
		}
		rc = param_check(p, eq + 1, &num);
		if (!rc) {
			values[p - r->params] = param_norm(r, p, eq + 1, num);
			if (!values[p - r->params])
				rc = imgp_fail(ENOMEM, "out of memory");
		}
	}
	for (size_t i = 0; !rc && i < r->nparams; i++) {
		if (values[i])
			continue;
		if (r->params[i].required)
			rc = required_error(&r->params[i]);
		else
			values[i] = r->params[i].def;
	}
	if (rc)
		goto out;

	/* Keep the old binding until the new one has passed every check. */
	saved_val = calloc(r->nsteps * OP_COUNT + 1, sizeof(*saved_val));
	saved_local = calloc(r->nsteps + 1, sizeof(*saved_local));
	saved_rule = calloc(r->nrules + 1, sizeof(*saved_rule));
	if (!saved_val || !saved_local || !saved_rule) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->nsteps; i++) {
		memcpy(saved_val + i * OP_COUNT, r->steps[i].val,
		       sizeof(r->steps[i].val));
		saved_local[i] = r->steps[i].local;
	}
	for (size_t i = 0; i < r->nrules; i++)
		saved_rule[i] = r->rules[i].val;

	for (size_t i = 0; !rc && i < r->nsteps; i++) {
		struct recipe_step *st = &r->steps[i];

		st->local = NULL;
		for (const struct action_opt *ao = st->action->opts; !rc && ao->flags; ao++) {
			const char *bad;
			char why[1024];

			st->val[ao->opt] = NULL;
			if (!st->raw[ao->opt])
				continue;
			rc = substitute(r, st->raw[ao->opt], values, &st->val[ao->opt]);
			if (rc)
				break;
			bad = check_value(ao->kind, st->val[ao->opt], true, why,
					  sizeof(why));
			if (bad)
				rc = imgp_fail(EINVAL, "%s:%d: step %zu (%s): %s '%s': %s",
					       r->path, st->line, i + 1,
					       st->action->name, opt_names[ao->opt],
					       st->val[ao->opt], bad);
		}
	}
	for (size_t i = 0; !rc && i < r->nrules; i++) {
		struct match_rule *rule = &r->rules[i];
		char why[1024];
		const char *bad;

		rc = substitute(r, rule->raw, values, &rule->val);
		if (rc)
			break;
		if (rule->kind == R_FILE) {
			const char *colon = strchr(rule->val, ':');
			char part[256];

			bad = "must be PART:/PATH (as boot:/image.fit)";
			if (colon && colon[1] == '/') {
				snprintf(part, sizeof(part), "%.*s",
					 (int)(colon - rule->val), rule->val);
				bad = check_value(K_PART, part, true, why, sizeof(why));
				if (!bad)
					bad = check_value(K_FSPATH, colon + 1, true,
							  why, sizeof(why));
			}
		} else {
			bad = check_value(K_WORD, rule->val, true, why, sizeof(why));
		}
		if (bad)
			rc = imgp_fail(EINVAL, "%s:%d: match: %s '%s': %s", r->path,
				       rule->line, rule_keys[rule->kind], rule->val,
				       bad);
	}
	if (!rc)
		rc = resolve_locals(r, true, NULL);
	if (rc) {
		for (size_t i = 0; i < r->nsteps; i++) {
			memcpy(r->steps[i].val, saved_val + i * OP_COUNT,
			       sizeof(r->steps[i].val));
			r->steps[i].local = saved_local[i];
		}
		for (size_t i = 0; i < r->nrules; i++)
			r->rules[i].val = saved_rule[i];
		goto out;
	}
	for (size_t i = 0; i < r->nparams; i++)
		r->params[i].value = values[i];
	r->bound = true;
out:
	free(saved_val);
	free(saved_local);
	free(saved_rule);
	free(values);
	return rc;
}

static int check_bound(const struct imgp_recipe *r)
{
	if (r->bound)
		return 0;
	for (size_t i = 0; i < r->nparams; i++)
		if (r->params[i].required && !r->params[i].value)
			return required_error(&r->params[i]);
	return imgp_fail(EINVAL, "recipe '%s': parameters are not bound", r->name);
}

/* ------------------------------------------------------ finding, listing */

/* "" when dir already ends in '/', so that paths read "dir/x.recipe". */
static const char *dir_sep(const char *dir)
{
	return *dir && dir[strlen(dir) - 1] == '/' ? "" : "/";
}

int imgp_recipe_find(const char *spec, const char *const *dirs, char **path_out)
{
	struct imgp_buf searched = { 0 };
	char name[NAME_MAX + 1];
	int rc;

	*path_out = NULL;
	if (!spec || !*spec)
		return imgp_fail(EINVAL, "empty recipe name");
	if (strchr(spec, '/') || (ends_with(spec, ".recipe") && is_regular(spec))) {
		struct stat st;

		if (stat(spec, &st) < 0) {
			int err = errno;

			return imgp_fail(err, "%s: %s", spec, strerror(err));
		}
		if (!S_ISREG(st.st_mode))
			return imgp_fail(EINVAL, "%s: not a regular file", spec);
		*path_out = strdup(spec);
		return *path_out ? 0 : imgp_fail(ENOMEM, "out of memory");
	}
	snprintf(name, sizeof(name), "%s", spec);
	if (ends_with(name, ".recipe"))
		name[strlen(name) - strlen(".recipe")] = '\0';
	for (size_t i = 0; dirs && dirs[i]; i++) {
		char *path;

		if (asprintf(&path, "%s%s%s.recipe", dirs[i], dir_sep(dirs[i]),
			     name) < 0) {
			imgp_buf_free(&searched);
			return imgp_fail(ENOMEM, "out of memory");
		}
		if (is_regular(path)) {
			imgp_buf_free(&searched);
			*path_out = path;
			return 0;
		}
		free(path);
		if (imgp_buf_printf(&searched, "%s%s", i ? ", " : "", dirs[i])) {
			imgp_buf_free(&searched);
			return imgp_fail(ENOMEM, "out of memory");
		}
	}
	rc = imgp_fail(ENOENT, "no recipe '%s' (searched: %s; see 'imgpatch recipes')",
		       spec, searched.len ? (char *)searched.data : "no directories");
	imgp_buf_free(&searched);
	return rc;
}

static int cmp_recipe(const void *a, const void *b)
{
	const struct imgp_recipe *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static bool seen_name(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

int imgp_recipe_list(const char *const *dirs, struct imgp_recipe ***out,
		     size_t *n)
{
	struct imgp_recipe **list = NULL;
	char **names = NULL;
	size_t nlist = 0, nnames = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	for (size_t d = 0; !rc && dirs && dirs[d]; d++) {
		struct dirent *de;
		DIR *dh = opendir(dirs[d]);

		if (!dh) {
			int err = errno;

			/* A search directory that does not exist has no recipes. */
			if (err == ENOENT || err == ENOTDIR)
				continue;
			rc = imgp_fail(err, "%s: %s", dirs[d], strerror(err));
			break;
		}
		while (!rc && (de = readdir(dh))) {
			struct imgp_recipe *r, **grown;
			char **gnames, *path;

			if (de->d_name[0] == '.' || !ends_with(de->d_name, ".recipe"))
				continue;
			/* The first directory's recipe hides later ones. */
			if (seen_name(names, nnames, de->d_name))
				continue;
			gnames = realloc(names, (nnames + 1) * sizeof(*gnames));
			if (!gnames) {
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			names = gnames;
			names[nnames] = strdup(de->d_name);
			if (!names[nnames]) {
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			nnames++;
			if (asprintf(&path, "%s%s%s", dirs[d], dir_sep(dirs[d]),
				     de->d_name) < 0) {
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			if (!is_regular(path)) {
				free(path);
				continue;
			}
			rc = imgp_recipe_load(path, &r);
			free(path);
			if (rc == -ENOMEM)
				break;
			if (rc) {
				imgp_warn("%s", imgp_errmsg());
				rc = 0;
				continue;
			}
			grown = realloc(list, (nlist + 1) * sizeof(*grown));
			if (!grown) {
				imgp_recipe_free(r);
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			list = grown;
			list[nlist++] = r;
		}
		closedir(dh);
	}
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (rc) {
		imgp_recipe_list_free(list, nlist);
		return rc;
	}
	if (nlist)
		qsort(list, nlist, sizeof(*list), cmp_recipe);
	*out = list;
	*n = nlist;
	return 0;
}

void imgp_recipe_list_free(struct imgp_recipe **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		imgp_recipe_free(list[i]);
	free(list);
}

/* -------------------------------------------------------- accessors */

const char *imgp_recipe_path(const struct imgp_recipe *r)
{
	return r->path;
}

const char *imgp_recipe_name(const struct imgp_recipe *r)
{
	return r->name;
}

const char *imgp_recipe_summary(const struct imgp_recipe *r)
{
	return r->summary;
}

const char *imgp_recipe_description(const struct imgp_recipe *r)
{
	return r->description;
}

const char *imgp_recipe_source(const struct imgp_recipe *r)
{
	return r->source;
}

const char *imgp_recipe_risks(const struct imgp_recipe *r)
{
	return r->risks;
}

const char *imgp_recipe_undo(const struct imgp_recipe *r)
{
	return r->undo;
}

size_t imgp_recipe_params(const struct imgp_recipe *r,
			  const struct imgp_recipe_param **params)
{
	*params = r->params;
	return r->nparams;
}

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
	const struct recipe_step *load = first_dt_load(r);
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
		if (!rc && p->def)
			rc = imgp_buf_printf(out, "%sdefault: %s", sep, p->def);
		if (!rc)
			rc = imgp_buf_printf(out, ")\n");
		if (!rc)
			rc = put_wrapped(out, p->description, 6);
	}
	if (!rc)
		rc = imgp_buf_printf(out, "\nmatches:\n");
	if (!rc && !r->nrules)
		rc = imgp_buf_printf(out, "  any image\n");
	for (int k = 0; !rc && k < R_COUNT; k++) {
		static const char *const titles[R_COUNT] = {
			"partition labels", "files", "fdt images in the FIT",
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
					     load && load->action->run == run_fdt_from_fit ?
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

/* ------------------------------------------------------------ matching */

/* "p1 'system-boot' (vfat), p2 'writable' (ext4)" */
static int list_parts(const struct imgp_table *tab, struct imgp_buf *b)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < tab->nparts; i++) {
		const struct imgp_part *p = &tab->parts[i];
		const char *label = p->fslabel[0] ? p->fslabel : p->name;

		if (p->container)
			continue;
		rc = imgp_buf_printf(b, "%s" IMGP_PART_FMT, b->len ? ", " : "",
				     p->number);
		if (!rc && label[0])
			rc = imgp_buf_printf(b, " '%s'", label);
		if (!rc && p->name[0] && p->fslabel[0] && strcmp(p->name, p->fslabel))
			rc = imgp_buf_printf(b, " (GPT name '%s')", p->name);
		if (!rc)
			rc = imgp_buf_printf(b, " (%s)", p->fstype[0] ? p->fstype : "unknown");
	}
	return rc;
}

static int match_label(struct imgp_patch *patch, const char *label)
{
	const struct imgp_table *tab = &patch->disk->tab;
	struct imgp_buf have = { 0 };
	int rc;

	for (size_t i = 0; i < tab->nparts; i++)
		if (!strcmp(tab->parts[i].fslabel, label) ||
		    !strcmp(tab->parts[i].name, label))
			return 0;
	rc = list_parts(tab, &have);
	if (!rc)
		rc = imgp_fail(ENOENT, "expected a partition labelled '%s', found: %s",
			       label, have.len ? (char *)have.data : "no partitions");
	imgp_buf_free(&have);
	return rc;
}

static int match_file(struct imgp_patch *patch, const char *spec)
{
	const char *colon = strchr(spec, ':');
	const struct imgp_part *part;
	struct imgp_fs fs;
	char pspec[256];
	int rc;

	snprintf(pspec, sizeof(pspec), "%.*s", (int)(colon - spec), spec);
	part = imgp_patch_part(patch, pspec);
	if (!part)
		return imgp_fail_ctx(-ENOENT, "expected %s, found", spec);
	rc = imgp_fs_open(&fs, &patch->disk->img, part);
	if (rc)
		return imgp_fail_ctx(rc, "expected %s, found", spec);
	rc = imgp_fs_exists(&fs, colon + 1);
	imgp_fs_close(&fs);
	if (rc < 0)
		return imgp_fail_ctx(rc, "expected %s", spec);
	if (rc == 0)
		return imgp_fail(ENOENT, "expected %s, found: no such file on "
				 IMGP_PART_FMT " (%s)", spec, part->number,
				 part->fstype);
	return 0;
}

/* The FIT the rules and the load step read, parsed once for both. */
struct match_fit {
	const char *path;
	bool loaded;
	struct imgp_fit fit;
};

static int fit_get(struct imgp_patch *patch, struct match_fit *mf)
{
	const struct imgp_part *part;
	int rc;

	if (mf->loaded)
		return 0;
	part = imgp_disk_find_file(patch->disk, mf->path);
	if (!part)
		return -ENOENT;
	rc = imgp_patch_load_fit(patch, part, mf->path, &mf->fit);
	if (rc)
		return rc;
	mf->loaded = true;
	return 0;
}

static int match_fit_fdt(struct imgp_patch *patch, struct match_fit *mf,
			 const char *name)
{
	struct imgp_buf have = { 0 };
	int rc = fit_get(patch, mf);

	if (rc)
		return imgp_fail_ctx(rc, "expected FIT fdt '%s', found", name);
	for (size_t i = 0; i < mf->fit.nimages; i++)
		if (!strcmp(mf->fit.images[i].type, "flat_dt") &&
		    !strcmp(mf->fit.images[i].name, name))
			return 0;
	for (size_t i = 0; !rc && i < mf->fit.nimages; i++)
		if (!strcmp(mf->fit.images[i].type, "flat_dt"))
			rc = imgp_buf_printf(&have, "%s%s", have.len ? ", " : "",
					     mf->fit.images[i].name);
	if (!rc)
		rc = imgp_fail(ENOENT, "expected FIT fdt '%s' in %s (have: %s)", name,
			       mf->path, have.len ? (char *)have.data : "no fdt images");
	imgp_buf_free(&have);
	return rc;
}

/* The tree the first load step would load, without loading it into patch. */
static int load_tree(struct imgp_patch *patch, const struct recipe_step *st,
		     struct match_fit *mf, struct imgp_dtb *dtb)
{
	if (st->action->run == run_fdt_from_fit) {
		const struct imgp_fit_image *img = NULL;
		const uint8_t *data;
		size_t size;
		int rc = fit_get(patch, mf);

		if (!rc && st->val[OP_FDT]) {
			rc = imgp_fit_find_fdt(&mf->fit, st->val[OP_FDT], &img);
		} else if (!rc) {
			for (size_t i = 0; i < mf->fit.nimages; i++) {
				if (strcmp(mf->fit.images[i].type, "flat_dt"))
					continue;
				if (img)
					return imgp_fail(EINVAL, "the FIT has several fdt images: the fdt-from-fit step must name one");
				img = &mf->fit.images[i];
			}
			if (!img)
				rc = imgp_fail(ENOENT, "the FIT has no fdt image");
		}
		if (!rc)
			rc = imgp_fit_payload(&mf->fit, img, &data, &size);
		if (!rc)
			rc = imgp_dtb_load(dtb, data, size);
		return rc;
	} else {
		const struct imgp_part *part = imgp_patch_part(patch, st->val[OP_PART]);
		struct imgp_buf raw = { 0 };
		bool existed;
		int rc;

		if (!part)
			return -ENOENT;
		rc = imgp_patch_read(patch, part, st->val[OP_PATH], IMGP_DTB_MAX,
				     &raw, &existed);
		if (!rc && !existed)
			rc = imgp_fail(ENOENT, IMGP_PART_FMT " (%s): %s: no such file",
				       part->number, part->fstype, st->val[OP_PATH]);
		if (!rc)
			rc = imgp_dtb_load(dtb, raw.data, raw.len);
		imgp_buf_free(&raw);
		return rc;
	}
}

static int match_compat(const struct imgp_dtb *dtb, const char *want)
{
	struct imgp_buf have = { 0 };
	const char *prop;
	int len, rc = 0;

	prop = fdt_getprop(dtb->fdt, 0, "compatible", &len);
	if (prop && len > 0 && fdt_stringlist_contains(prop, len, want))
		return 0;
	for (int off = 0; prop && off < len && !rc;) {
		size_t n = strnlen(prop + off, (size_t)(len - off));

		rc = imgp_buf_printf(&have, "%s'%.*s'", have.len ? ", " : "",
				     (int)n, prop + off);
		off += (int)n + 1;
	}
	if (!rc)
		rc = imgp_fail(ENOENT, "expected root compatible '%s', found: %s",
			       want, have.len ? (char *)have.data : "none");
	imgp_buf_free(&have);
	return rc;
}

int imgp_recipe_match(const struct imgp_recipe *r, struct imgp_patch *patch)
{
	const struct recipe_step *load = first_dt_load(r);
	struct match_fit mf = { "/image.fit", false, { 0 } };
	struct imgp_dtb dtb = { 0 };
	bool have_dtb = false;
	int rc = check_bound(r);

	if (load && load->action->run == run_fdt_from_fit)
		mf.path = load->val[OP_FIT];
	for (int k = 0; !rc && k < R_COUNT; k++) {
		for (size_t i = 0; !rc && i < r->nrules; i++) {
			const struct match_rule *rule = &r->rules[i];

			if (rule->kind != (enum rule_kind)k)
				continue;
			switch (rule->kind) {
			case R_LABEL:
				rc = match_label(patch, rule->val);
				break;
			case R_FILE:
				rc = match_file(patch, rule->val);
				break;
			case R_FITFDT:
				rc = match_fit_fdt(patch, &mf, rule->val);
				break;
			case R_COMPAT:
				if (!have_dtb) {
					rc = load_tree(patch, load, &mf, &dtb);
					if (rc) {
						imgp_fail_ctx(rc, "expected root compatible '%s', found", rule->val);
						break;
					}
					have_dtb = true;
				}
				rc = match_compat(&dtb, rule->val);
				break;
			case R_COUNT:
				break;
			}
		}
	}
	if (have_dtb)
		imgp_dtb_free(&dtb);
	if (mf.loaded)
		imgp_fit_free(&mf.fit);
	if (rc && r->bound)
		imgp_fail_ctx(rc, "recipe '%s' does not match this image", r->name);
	return rc;
}

/* ------------------------------------------------------------ applying */

int imgp_recipe_apply(const struct imgp_recipe *r, struct imgp_patch *patch)
{
	int rc = check_bound(r);

	for (size_t i = 0; !rc && i < r->nsteps; i++) {
		const struct recipe_step *st = &r->steps[i];

		imgp_errclear();
		rc = st->action->run(patch, st);
		if (rc)
			imgp_fail_ctx(rc, "step %zu (%s)", i + 1, st->action->name);
	}
	return rc;
}
