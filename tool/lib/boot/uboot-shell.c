// SPDX-License-Identifier: MIT
/*
 * U-Boot's script language as a board runs a boot script: hush's lists
 * ("a; b", "a && b", "a || b", if/then/elif/else/fi), its variables (an
 * unquoted ${x} that is not set is no word at all, so "test ${x} -eq 1"
 * runs as "test -eq 1"), $?, setenv and printenv, and the test command
 * with cmd/test.c's rules (U-Boot 2023.01). Every other command goes to
 * the caller, which says what it does and returns its status.
 *
 * Also the room U-Boot gives a tree: fdt_shrink_to_minimum() (behind "fdt
 * resize [N]", N hex, and pxe's 8 KiB per overlay).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "boot/bootpath.h"

/* ------------------------------------------------------------------ test */

long imgp_uboot_strtol_(const char *s)
{
	unsigned base = 10;
	bool negative = *s == '-';
	unsigned long v = 0;

	/* simple_strtol(s, NULL, 0): a sign, then 0x hex, 0 octal, else decimal. */
	if (negative)
		s++;
	if (s[0] == '0') {
		base = tolower((unsigned char)s[1]) == 'x' && isxdigit((unsigned char)s[2]) ? 16 : 8;
		if (base == 16)
			s += 2;
	}
	for (;; s++) {
		unsigned d = isdigit((unsigned char)*s) ? (unsigned)(*s - '0') :
			     isxdigit((unsigned char)*s) ? (unsigned)(tolower((unsigned char)*s) - 'a' + 10) :
			     base;

		if (d >= base)
			break;
		v = v * base + d;
	}
	return negative ? -(long)v : (long)v;
}

enum test_op {
	T_STR_EQ, T_STR_NE, T_STR_LT, T_STR_GT,
	T_INT_EQ, T_INT_NE, T_INT_LT, T_INT_LE, T_INT_GT, T_INT_GE,
	T_NOT, T_OR, T_AND, T_EMPTY, T_NONEMPTY, T_EXISTS,
};

/*
 * cmd/test.c's operators, in the order it looks for them: where the word
 * sits (0: first word left, 1: the second) and how many words it takes.
 */
static const struct {
	unsigned at;
	const char *word;
	enum test_op op;
	unsigned takes;
} test_ops[] = {
	{ 1, "=", T_STR_EQ, 3 }, { 1, "!=", T_STR_NE, 3 },
	{ 1, "<", T_STR_LT, 3 }, { 1, ">", T_STR_GT, 3 },
	{ 1, "-eq", T_INT_EQ, 3 }, { 1, "-ne", T_INT_NE, 3 },
	{ 1, "-lt", T_INT_LT, 3 }, { 1, "-le", T_INT_LE, 3 },
	{ 1, "-gt", T_INT_GT, 3 }, { 1, "-ge", T_INT_GE, 3 },
	{ 0, "!", T_NOT, 1 }, { 0, "-o", T_OR, 1 }, { 0, "-a", T_AND, 1 },
	{ 0, "-z", T_EMPTY, 2 }, { 0, "-n", T_NONEMPTY, 2 },
	{ 0, "-e", T_EXISTS, 4 },
};
#define NTEST_OPS (sizeof(test_ops) / sizeof(test_ops[0]))

/* One operator's truth; "-e" asks U-Boot's filesystems, taken as false here. */
static bool test_one(enum test_op op, const char *const *w)
{
	long a, b;

	switch (op) {
	case T_EMPTY: return !*w[1];
	case T_NONEMPTY: return *w[1];
	case T_STR_EQ: return strcmp(w[0], w[2]) == 0;
	case T_STR_NE: return strcmp(w[0], w[2]) != 0;
	case T_STR_LT: return strcmp(w[0], w[2]) < 0;
	case T_STR_GT: return strcmp(w[0], w[2]) > 0;
	default: break;
	}
	a = imgp_uboot_strtol_(w[0]);
	b = imgp_uboot_strtol_(w[2]);
	switch (op) {
	case T_INT_EQ: return a == b;
	case T_INT_NE: return a != b;
	case T_INT_LT: return a < b;
	case T_INT_LE: return a <= b;
	case T_INT_GT: return a > b;
	case T_INT_GE: return a >= b;
	default: return false;
	}
}

int imgp_uboot_test_(int argc, const char *const *argv)
{
	const char *const *w = argv + 1;
	int left = argc - 1;
	bool value = false, pending_not = false, have_prev = false, prev = false;
	enum test_op joiner = T_NOT;

	/* Fewer than two words after "test": false. */
	if (argc < 3)
		return 1;
	while (left > 0) {
		size_t k;

		for (k = 0; k < NTEST_OPS; k++)
			if ((unsigned)left > test_ops[k].at &&
			    strcmp(w[test_ops[k].at], test_ops[k].word) == 0)
				break;
		/*
		 * A word that is no operator where one is looked for, or an
		 * operator short of words, makes the whole test true (it
		 * stops with the result set, which the end inverts): "test
		 * -eq 1" is true.
		 */
		if (k == NTEST_OPS || (unsigned)left < test_ops[k].takes)
			return 0;
		switch (test_ops[k].op) {
		case T_OR:
		case T_AND:
			/* What came before is kept; the next operand joins it. */
			prev = value;
			have_prev = true;
			joiner = test_ops[k].op;
			break;
		case T_NOT:
			pending_not = !pending_not;
			break;
		default:
			value = test_one(test_ops[k].op, w);
			if (pending_not)
				value = !value;
			pending_not = false;
			if (have_prev)
				value = joiner == T_OR ? prev || value : prev && value;
			have_prev = false;
			break;
		}
		/* "-o"/"-a"/"!" leave value as it was, as cmd/test.c does. */
		w += test_ops[k].takes;
		left -= (int)test_ops[k].takes;
	}
	return value ? 0 : 1;
}

size_t imgp_uboot_fdt_room_(size_t used, unsigned long extra)
{
	/* Five reserve entries (the tree and an initrd) plus extra, to 4 KiB. */
	size_t size = used + 5 * 16 + extra;

	return (size + 0xfff) & ~(size_t)0xfff;
}

/* ------------------------------------------------------------------ hush */

struct var {
	char *name, *value;      /* value NULL: unset by the script */
};

/* An if/fi being run: its branches and whether one was taken. */
struct frame {
	bool outer;              /* the commands around the if run */
	bool in_cond;            /* between if/elif and then */
	bool taken;              /* a branch ran (or runs) */
	bool body;               /* the current branch runs */
};

struct imgp_ushell {
	const struct imgp_ushell_ops *ops;
	void *ctx;
	struct imgp_buf vars;    /* struct var, as many as the script sets */
	size_t nvars;
	int status;              /* $? */
	struct imgp_buf frames;  /* struct frame, one per if open: as deep as the script nests */
	size_t depth;
	/* Variables a test read unset: the outcome may hang on them. */
	struct imgp_buf unset;   /* char *, each once */
	size_t nunset;
	bool in_test;
};

struct imgp_ushell *imgp_ushell_new_(const struct imgp_ushell_ops *ops, void *ctx)
{
	struct imgp_ushell *sh = calloc(1, sizeof(*sh));

	if (!sh) {
		imgp_fail(ENOMEM, "out of memory");
		return NULL;
	}
	sh->ops = ops;
	sh->ctx = ctx;
	return sh;
}

void imgp_ushell_free_(struct imgp_ushell *sh)
{
	if (!sh)
		return;
	struct var *vars = (struct var *)sh->vars.data;
	char **unset = (char **)sh->unset.data;

	for (size_t i = 0; i < sh->nvars; i++) {
		free(vars[i].name);
		free(vars[i].value);
	}
	for (size_t i = 0; i < sh->nunset; i++)
		free(unset[i]);
	imgp_buf_free(&sh->frames);
	imgp_buf_free(&sh->vars);
	imgp_buf_free(&sh->unset);
	free(sh);
}

static struct var *find_var(struct imgp_ushell *sh, const char *name, size_t len)
{
	struct var *vars = (struct var *)sh->vars.data;

	for (size_t i = 0; i < sh->nvars; i++)
		if (strlen(vars[i].name) == len && !memcmp(vars[i].name, name, len))
			return &vars[i];
	return NULL;
}

int imgp_ushell_setvar_(struct imgp_ushell *sh, const char *name, const char *value)
{
	struct var *v = find_var(sh, name, strlen(name));
	char *copy = value ? strdup(value) : NULL;

	if (value && !copy)
		return imgp_fail(ENOMEM, "out of memory");
	if (!v) {
		struct var added = { .name = strdup(name) };

		if (!added.name || imgp_buf_append(&sh->vars, &added, sizeof(added))) {
			free(added.name);
			free(copy);
			return imgp_fail(ENOMEM, "out of memory");
		}
		v = &((struct var *)sh->vars.data)[sh->nvars++];
	}
	free(v->value);
	v->value = copy;
	return 0;
}

const char *imgp_ushell_getvar_(struct imgp_ushell *sh, const char *name)
{
	struct var *v = find_var(sh, name, strlen(name));

	if (v)
		return v->value;
	return sh->ops->board ? sh->ops->board(sh->ctx, name) : NULL;
}

size_t imgp_ushell_unset_(const struct imgp_ushell *sh, const char *const **names)
{
	*names = (const char *const *)sh->unset.data;
	return sh->nunset;
}

static int note_unset(struct imgp_ushell *sh, const char *name, size_t len)
{
	char **unset = (char **)sh->unset.data, *copy;

	for (size_t i = 0; i < sh->nunset; i++)
		if (strlen(unset[i]) == len && !memcmp(unset[i], name, len))
			return 0;
	copy = strndup(name, len);
	if (!copy || imgp_buf_append(&sh->unset, &copy, sizeof(copy))) {
		free(copy);
		return imgp_fail(ENOMEM, "out of memory");
	}
	sh->nunset++;
	return 0;
}

/* The value of $name (len bytes) or NULL when unset. */
static int lookup(struct imgp_ushell *sh, const char *name, size_t len,
		  const char **value, char *status)
{
	struct var *v;
	char *key;

	if (len == 1 && *name == '?') {
		snprintf(status, 12, "%d", sh->status);
		*value = status;
		return 0;
	}
	v = find_var(sh, name, len);
	if (v) {
		*value = v->value;
	} else {
		key = strndup(name, len);
		if (!key)
			return imgp_fail(ENOMEM, "out of memory");
		*value = sh->ops->board ? sh->ops->board(sh->ctx, key) : NULL;
		free(key);
	}
	return !*value && sh->in_test ? note_unset(sh, name, len) : 0;
}

/*
 * The words of one simple command from *p (up to ';', '&&', '||', a
 * newline or the end), expanded into buf; an unquoted word that expands to
 * nothing is dropped, as hush drops it. Returns the number of words, or
 * -errno.
 */
static int expand(struct imgp_ushell *sh, const char **p, struct imgp_buf *buf,
		  struct imgp_buf *starts, bool *quoted_any)
{
	const char *s = *p;
	int n = 0, rc = 0;

	buf->len = 0;
	starts->len = 0;
	*quoted_any = false;
	for (;;) {
		bool quoted = false, any = false;
		size_t start;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '\n' || *s == ';' || *s == '#' ||
		    (s[0] == '&' && s[1] == '&') || (s[0] == '|' && s[1] == '|'))
			break;
		start = buf->len;
		while (!rc && *s && !strchr(" \t\n;", *s) &&
		       !(s[0] == '&' && s[1] == '&') && !(s[0] == '|' && s[1] == '|')) {
			char q = 0;

			if (*s == '\'') {
				const char *e = strchr(s + 1, '\'');

				e = e ? e : s + strlen(s);
				rc = imgp_buf_append(buf, s + 1, (size_t)(e - s - 1));
				s = *e ? e + 1 : e;
				quoted = any = true;
				continue;
			}
			if (*s == '"') {
				q = '"';
				s++;
				quoted = any = true;
			}
			while (!rc && *s && (q ? *s != q : !strchr(" \t\n;'\"", *s)) &&
			       (q || !((s[0] == '&' && s[1] == '&') || (s[0] == '|' && s[1] == '|')))) {
				if (*s == '$' && (s[1] == '{' || isalnum((unsigned char)s[1]) ||
						  s[1] == '_' || s[1] == '?')) {
					const char *name = s + 1 + (s[1] == '{'), *value;
					size_t len = s[1] == '{' ? strcspn(name, "}") :
						     s[1] == '?' ? 1 : strspn(name, "abcdefghijklmnopqrstuvwxyz"
									   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
					char status[12];

					rc = lookup(sh, name, len, &value, status);
					if (!rc && value)
						rc = imgp_buf_append(buf, value, strlen(value));
					s = name + len + (s[1] == '{' && name[len] == '}');
					any = true;
					continue;
				}
				if (*s == '\\' && s[1])
					s++;
				rc = imgp_buf_append(buf, s++, 1);
				any = true;
			}
			if (q && *s == q)
				s++;
		}
		if (rc)
			return rc;
		if (!any)
			break;
		/* Unquoted and empty: no word (hush's rule for ${unset}). */
		if (!quoted && buf->len == start)
			continue;
		*quoted_any |= quoted;
		rc = imgp_buf_append(buf, "", 1);
		if (!rc)
			rc = imgp_buf_append(starts, &start, sizeof(start));
		if (rc)
			return imgp_fail(ENOMEM, "out of memory");
		n++;
	}
	*p = s;
	return n;
}

/* The innermost if open, or NULL. */
static struct frame *frame_top(const struct imgp_ushell *sh)
{
	return sh->depth ? (struct frame *)sh->frames.data + sh->depth - 1 : NULL;
}

/* Whether the command at this point runs: the branch it is in is taken. */
static bool running(const struct imgp_ushell *sh)
{
	const struct frame *f = frame_top(sh);

	if (!f)
		return true;
	return f->in_cond ? f->outer && !f->taken : f->body;
}

/* The shell's own commands; others go to the caller. Returns the status. */
static int command(struct imgp_ushell *sh, int argc, char **argv, int *status)
{
	int rc = 0;

	if (strcmp(argv[0], "test") == 0) {
		*status = imgp_uboot_test_(argc, (const char *const *)argv);
	} else if (strcmp(argv[0], "true") == 0) {
		*status = 0;
	} else if (strcmp(argv[0], "false") == 0) {
		*status = 1;
	} else if (strcmp(argv[0], "setenv") == 0 || strcmp(argv[0], "env") == 0) {
		int k = strcmp(argv[0], "env") == 0 ? 2 : 1;
		struct imgp_buf value = { 0 };

		/* "setenv x a b" joins the words with blanks; "setenv x" unsets it. */
		if (k == 2 && (argc < 3 || strcmp(argv[1], "set") != 0))
			return sh->ops->run(sh->ctx, sh, argc, argv, status);
		if (argc <= k) {
			*status = 1;
			return 0;
		}
		for (int i = k + 1; !rc && i < argc; i++)
			rc = imgp_buf_printf(&value, "%s%s", i > k + 1 ? " " : "", argv[i]);
		if (!rc)
			rc = imgp_ushell_setvar_(sh, argv[k], argc > k + 1 ? (char *)value.data : NULL);
		imgp_buf_free(&value);
		*status = rc ? 1 : 0;
	} else if (strcmp(argv[0], "printenv") == 0) {
		*status = 0;
		sh->in_test = true;
		for (int i = 1; !rc && i < argc; i++) {
			const char *v;
			char tmp[12];

			rc = lookup(sh, argv[i], strlen(argv[i]), &v, tmp);
			if (!v)
				*status = 1;
		}
		sh->in_test = false;
	} else {
		rc = sh->ops->run(sh->ctx, sh, argc, argv, status);
	}
	return rc;
}

/* One line of keywords and commands: "if test x; then a && b; else c; fi". */
static int run_line(struct imgp_ushell *sh, const char *s)
{
	/* The words, their offsets in buf, argv: as many as the command has. */
	struct imgp_buf buf = { 0 }, starts = { 0 }, args = { 0 };
	int rc = 0;
	enum { NONE, AND, OR } join = NONE;

	while (!rc && *s) {
		bool quoted, again = true;
		const char *mark;
		int n;

		/* The keywords at a command's start change which branch runs. */
		while (again) {
			size_t len;

			again = false;
			while (*s == ' ' || *s == '\t')
				s++;
			len = strcspn(s, " \t;\n");
			if (len == 2 && !strncmp(s, "if", 2)) {
				struct frame f = { .outer = running(sh), .in_cond = true };

				if (imgp_buf_append(&sh->frames, &f, sizeof(f))) {
					rc = imgp_fail(ENOMEM, "out of memory");
					break;
				}
				sh->depth++;
			} else if (sh->depth && len == 4 && !strncmp(s, "then", 4)) {
				struct frame *f = frame_top(sh);

				f->body = f->outer && !f->taken && sh->status == 0;
				f->taken |= f->body;
				f->in_cond = false;
			} else if (sh->depth && len == 4 && !strncmp(s, "elif", 4)) {
				frame_top(sh)->in_cond = true;
			} else if (sh->depth && len == 4 && !strncmp(s, "else", 4)) {
				struct frame *f = frame_top(sh);

				f->body = f->outer && !f->taken;
				f->taken = true;
				f->in_cond = false;
			} else if (sh->depth && len == 2 && !strncmp(s, "fi", 2)) {
				sh->depth--;
				sh->frames.len -= sizeof(struct frame);
			} else {
				break;
			}
			s += len;
			again = true;
			join = NONE;
		}
		if (rc)
			break;
		mark = s;
		sh->in_test = strncmp(s, "test", 4) == 0 && (s[4] == ' ' || s[4] == '\t');
		n = running(sh) && !(join == AND && sh->status) && !(join == OR && !sh->status) ?
		    expand(sh, &s, &buf, &starts, &quoted) : 0;
		sh->in_test = false;
		if (n < 0) {
			rc = n;
			break;
		}
		if (s == mark) {
			/* Not run: step over the command's text. */
			while (*s && *s != ';' && !(s[0] == '&' && s[1] == '&') &&
			       !(s[0] == '|' && s[1] == '|')) {
				if (*s == '"' || *s == '\'') {
					const char *e = strchr(s + 1, *s);

					s = e ? e : s + strlen(s) - 1;
				}
				s++;
			}
		}
		if (n > 0) {
			const size_t *at = (const size_t *)starts.data;
			char *word;
			int status = 0;

			args.len = 0;
			for (int i = 0; !rc && i <= n; i++) {
				word = i < n ? (char *)buf.data + at[i] : NULL;
				rc = imgp_buf_append(&args, &word, sizeof(word));
			}
			if (rc) {
				rc = imgp_fail(ENOMEM, "out of memory");
				break;
			}
			rc = command(sh, n, (char **)args.data, &status);
			sh->status = status;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#')
			break;
		if (s[0] == '&' && s[1] == '&') {
			join = AND;
			s += 2;
		} else if (s[0] == '|' && s[1] == '|') {
			join = OR;
			s += 2;
		} else if (*s == ';') {
			join = NONE;
			s++;
		}
	}
	imgp_buf_free(&args);
	imgp_buf_free(&starts);
	imgp_buf_free(&buf);
	return rc;
}

int imgp_ushell_run_(struct imgp_ushell *sh, const char *text)
{
	const char *line = text;
	int rc = 0;

	while (!rc && line && *line) {
		const char *end = strchr(line, '\n');
		char *copy = strndup(line, end ? (size_t)(end - line) : strlen(line));

		if (!copy)
			return imgp_fail(ENOMEM, "out of memory");
		copy[strcspn(copy, "\r")] = '\0';
		rc = run_line(sh, copy);
		free(copy);
		line = end ? end + 1 : NULL;
	}
	return rc;
}
