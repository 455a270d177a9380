// SPDX-License-Identifier: MIT
/*
 * /etc/fstab: find an entry and edit its mount options. The file is never
 * rebuilt: an edit replaces the bytes of one options field and keeps every
 * other byte (comments, spacing, CRLF, a missing final newline) as it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "text/text.h"

/* fstab files are a few hundred bytes; the bound keeps a corrupt one cheap. */
#define FSTAB_MAX (1024 * 1024)
#define FSTAB_FIELDS 6
/*
 * Bytes of mount points a "not found" message lists: what fits in one
 * message (log.c keeps 2 KiB) with its context, not a count of entries.
 */
#define FSTAB_LIST_BYTES 1536

enum { F_SPEC, F_FILE, F_TYPE, F_OPTS, F_FREQ, F_PASSNO };

struct fstab_ent {
	int line;
	int nfields;
	size_t off[FSTAB_FIELDS];
	size_t len[FSTAB_FIELDS];
};

struct fstab {
	const char *text;
	size_t len;
	struct fstab_ent *ents;
	size_t n, cap;
};

/* A slice of the text or of the ops string; never NUL-terminated. */
struct opt {
	const char *p;
	size_t n;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void fstab_free(struct fstab *t)
{
	free(t->ents);
	t->ents = NULL;
	t->n = t->cap = 0;
}

static int fstab_add(struct fstab *t, const struct fstab_ent *e)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct fstab_ent *p = realloc(t->ents, cap * sizeof(*p));

		if (!p)
			return imgp_fail(ENOMEM, "out of memory");
		t->ents = p;
		t->cap = cap;
	}
	t->ents[t->n++] = *e;
	return 0;
}

/* freq and passno: plain decimal numbers, as mount(8) reads them. */
static int fstab_number(const char *s, size_t n, int line, const char *what)
{
	int v = 0;
	size_t i;

	/* Nine digits cannot overflow an int. */
	if (n == 0 || n > 9)
		goto bad;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		v = v * 10 + (s[i] - '0');
	}
	return v;
bad:
	return imgp_fail(EINVAL, "line %d: %s '%.*s' is not a number", line,
			 what, (int)(n > 64 ? 64 : n), s);
}

static int fstab_parse_line(struct fstab *t, size_t start, size_t end,
			    int line)
{
	const char *s = t->text;
	struct fstab_ent e = { .line = line };
	size_t i = start;
	int rc;

	while (i < end && is_blank(s[i]))
		i++;
	if (i == end || s[i] == '#')
		return 0;
	while (i < end) {
		/* A comment after the options field is tolerated and kept. */
		if (e.nfields > F_OPTS && s[i] == '#')
			break;
		if (e.nfields == FSTAB_FIELDS)
			return imgp_fail(EINVAL, "line %d: expected at most %d fields",
					 line, FSTAB_FIELDS);
		e.off[e.nfields] = i;
		while (i < end && !is_blank(s[i]))
			i++;
		e.len[e.nfields] = i - e.off[e.nfields];
		e.nfields++;
		while (i < end && is_blank(s[i]))
			i++;
	}
	if (e.nfields < 4)
		return imgp_fail(EINVAL, "line %d: expected at least 4 fields",
				 line);
	if (e.nfields > F_FREQ) {
		rc = fstab_number(s + e.off[F_FREQ], e.len[F_FREQ], line,
				  "dump frequency");
		if (rc < 0)
			return rc;
	}
	if (e.nfields > F_PASSNO) {
		rc = fstab_number(s + e.off[F_PASSNO], e.len[F_PASSNO], line,
				  "fsck pass number");
		if (rc < 0)
			return rc;
	}
	return fstab_add(t, &e);
}

static int fstab_parse(struct fstab *t, const char *text, size_t len)
{
	size_t pos = 0;
	int line = 0, rc;

	memset(t, 0, sizeof(*t));
	if (len > FSTAB_MAX)
		return imgp_fail(EFBIG, "fstab is %zu bytes, more than the %d allowed",
				 len, FSTAB_MAX);
	if (len && memchr(text, '\0', len))
		return imgp_fail(EINVAL, "fstab contains a NUL byte: not a text file");
	t->text = text;
	t->len = len;
	while (pos < len) {
		size_t eol = pos, end;

		line++;
		while (eol < len && text[eol] != '\n')
			eol++;
		/* A CR before the LF belongs to the line ending, kept as is. */
		end = eol;
		if (end > pos && text[end - 1] == '\r')
			end--;
		rc = fstab_parse_line(t, pos, end, line);
		if (rc) {
			fstab_free(t);
			return rc;
		}
		pos = eol < len ? eol + 1 : len;
	}
	return 0;
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* Decodes \ooo escapes (\040 for a space, \011 for a tab) as mount does. */
static char *fstab_unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	size_t i = 0;

	if (!out)
		return NULL;
	while (i < n) {
		if (s[i] == '\\' && n - i >= 4 && is_octal(s[i + 1]) &&
		    is_octal(s[i + 2]) && is_octal(s[i + 3])) {
			int v = (s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
				(s[i + 3] - '0');

			/* \000 would cut the string; such a field stays as written. */
			if (v > 0 && v < 256) {
				*o++ = (char)v;
				i += 4;
				continue;
			}
		}
		*o++ = s[i++];
	}
	*o = '\0';
	return out;
}

/* Length without trailing slashes, so that "/boot/" names "/boot". */
static size_t mnt_len(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	return n;
}

static int fstab_field(const struct fstab *t, const struct fstab_ent *e,
		       int field, char **out)
{
	*out = fstab_unescape(t->text + e->off[field], e->len[field]);
	return *out ? 0 : imgp_fail(ENOMEM, "out of memory");
}

/*
 * Lists the mount points for the "not found" message, each once, as many
 * as FSTAB_LIST_BYTES holds; past that, how many entries there are. The
 * bytes bound the mount points compared with, so that a hostile fstab of
 * a hundred thousand lines stays linear.
 */
static int fstab_not_found(const struct fstab *t, const char *mountpoint)
{
	struct imgp_buf listed = { 0 }, list = { 0 };  /* listed: fstab_ent pointers */
	size_t i, j, nlisted = 0;
	int rc = 0;

	for (i = 0; i < t->n && !rc; i++) {
		const struct fstab_ent *e = &t->ents[i], **seen;
		char *file;
		bool dup = false;

		seen = (const struct fstab_ent **)listed.data;
		for (j = 0; j < nlisted && !dup; j++)
			dup = seen[j]->len[F_FILE] == e->len[F_FILE] &&
			      !memcmp(t->text + seen[j]->off[F_FILE],
				      t->text + e->off[F_FILE], e->len[F_FILE]);
		if (dup)
			continue;
		if (list.len >= FSTAB_LIST_BYTES) {
			/* A message's list, not the file's: the file is read whole. */
			rc = imgp_buf_printf(&list, ", ... %zu entries in all", t->n);
			break;
		}
		rc = imgp_buf_append(&listed, &e, sizeof(e));
		if (rc)
			break;
		nlisted++;
		rc = fstab_field(t, e, F_FILE, &file);
		if (rc)
			break;
		rc = imgp_buf_printf(&list, "%s%s", list.len ? ", " : "", file);
		free(file);
	}
	imgp_buf_free(&listed);
	if (rc) {
		imgp_buf_free(&list);
		return imgp_fail(ENOMEM, "out of memory");
	}
	if (list.len)
		rc = imgp_fail(ENOENT, "no fstab entry for '%s' (have: %s)",
			       mountpoint, (const char *)list.data);
	else
		rc = imgp_fail(ENOENT, "no fstab entry for '%s' (the file has no entries)",
			       mountpoint);
	imgp_buf_free(&list);
	return rc;
}

/* Finds the last entry at mountpoint: mount(8) lets a later line win. */
static int fstab_find(const struct fstab *t, const char *mountpoint,
		      const struct fstab_ent **out)
{
	size_t want = mnt_len(mountpoint), i;

	*out = NULL;
	for (i = t->n; i-- > 0;) {
		char *file;
		bool match;
		int rc = fstab_field(t, &t->ents[i], F_FILE, &file);

		if (rc)
			return rc;
		match = mnt_len(file) == want && !memcmp(file, mountpoint, want);
		free(file);
		if (match) {
			*out = &t->ents[i];
			return 0;
		}
	}
	return fstab_not_found(t, mountpoint);
}

/* One parsed line as the public entry: fields unescaped, numbers read. */
static int fstab_entry(const struct fstab *t, const char *text,
		       const struct fstab_ent *e, struct imgp_fstab_entry *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->line = e->line;
	rc = fstab_field(t, e, F_SPEC, &out->spec);
	if (!rc)
		rc = fstab_field(t, e, F_FILE, &out->file);
	if (!rc)
		rc = fstab_field(t, e, F_TYPE, &out->vfstype);
	if (!rc)
		rc = fstab_field(t, e, F_OPTS, &out->options);
	if (rc) {
		imgp_fstab_entry_free_(out);
		return rc;
	}
	/* Both were validated by the parser; a missing field means 0. */
	if (e->nfields > F_FREQ)
		out->freq = fstab_number(text + e->off[F_FREQ], e->len[F_FREQ],
					 e->line, "dump frequency");
	if (e->nfields > F_PASSNO)
		out->passno = fstab_number(text + e->off[F_PASSNO],
					   e->len[F_PASSNO], e->line,
					   "fsck pass number");
	return 0;
}

int imgp_fstab_get_(const char *text, size_t len, const char *mountpoint,
		   struct imgp_fstab_entry *out)
{
	const struct fstab_ent *e;
	struct fstab t;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = fstab_parse(&t, text, len);
	if (rc)
		return rc;
	rc = fstab_find(&t, mountpoint, &e);
	if (!rc)
		rc = fstab_entry(&t, text, e, out);
	fstab_free(&t);
	return rc;
}

int imgp_fstab_list_(const char *text, size_t len, struct imgp_fstab_entry **out,
		    size_t *n)
{
	struct imgp_fstab_entry *list = NULL;
	struct fstab t;
	int rc;

	*out = NULL;
	*n = 0;
	rc = fstab_parse(&t, text, len);
	if (rc)
		return rc;
	if (t.n) {
		list = calloc(t.n, sizeof(*list));
		if (!list)
			rc = imgp_fail(ENOMEM, "out of memory");
	}
	for (size_t i = 0; !rc && i < t.n; i++) {
		rc = fstab_entry(&t, text, &t.ents[i], &list[i]);
		if (!rc)
			(*n)++;
	}
	fstab_free(&t);
	if (rc) {
		imgp_fstab_list_free_(list, *n);
		*n = 0;
		return rc;
	}
	*out = list;
	return 0;
}

void imgp_fstab_list_free_(struct imgp_fstab_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		imgp_fstab_entry_free_(&e[i]);
	free(e);
}

void imgp_fstab_entry_free_(struct imgp_fstab_entry *e)
{
	free(e->spec);
	free(e->file);
	free(e->vfstype);
	free(e->options);
	memset(e, 0, sizeof(*e));
}

/*
 * Splits a comma list; commas inside double quotes (SELinux context="a,b")
 * do not split. Returns the number of items stored (at most max).
 */
static size_t opt_split(const char *s, size_t n, struct opt *out, size_t max)
{
	size_t i, start = 0, count = 0;
	bool quoted = false;

	for (i = 0; i <= n; i++) {
		if (i < n && s[i] == '"')
			quoted = !quoted;
		if (i < n && (s[i] != ',' || quoted))
			continue;
		if (count < max) {
			out[count].p = s + start;
			out[count].n = i - start;
		}
		count++;
		start = i + 1;
	}
	return count < max ? count : max;
}

static size_t opt_count(const char *s, size_t n)
{
	size_t i, count = 1;
	bool quoted = false;

	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			quoted = !quoted;
		else if (s[i] == ',' && !quoted)
			count++;
	}
	return count;
}

/* Length of the option name: "commit" in "commit=5". */
static size_t opt_name_len(const struct opt *o)
{
	const char *eq = memchr(o->p, '=', o->n);

	return eq ? (size_t)(eq - o->p) : o->n;
}

static bool opt_same_name(const struct opt *a, const struct opt *b)
{
	size_t n = opt_name_len(a);

	return n == opt_name_len(b) && !memcmp(a->p, b->p, n);
}

static bool opt_equal(const struct opt *a, const struct opt *b)
{
	return a->n == b->n && !memcmp(a->p, b->p, a->n);
}

static int ops_check(const char *ops, const struct opt *edits, size_t n)
{
	size_t i, j;

	if (!*ops)
		return imgp_fail(EINVAL, "empty fstab option edit: expected e.g. '-discard,+noatime'");
	for (i = 0; i < n; i++) {
		const struct opt *o = &edits[i];
		struct opt name;

		if (o->n == 0)
			return imgp_fail(EINVAL, "empty item in fstab option edit '%s'",
					 ops);
		name.p = o->p + 1;
		name.n = o->n - 1;
		if (o->p[0] != '+' && o->p[0] != '-')
			return imgp_fail(EINVAL, "fstab option edit '%.*s' must start with + or -",
					 (int)o->n, o->p);
		if (opt_name_len(&name) == 0)
			return imgp_fail(EINVAL, "fstab option edit '%.*s' has no option name",
					 (int)o->n, o->p);
		/* fstab fields cannot hold raw blanks; mount would split them. */
		for (j = 1; j < o->n; j++) {
			unsigned char c = (unsigned char)o->p[j];

			if (c <= ' ' || c == 0x7f)
				return imgp_fail(EINVAL, "fstab option edit '%.*s' contains a blank or control character",
						 (int)o->n, o->p);
		}
	}
	return 0;
}

static void opt_remove(struct opt *list, size_t *n, size_t at)
{
	memmove(&list[at], &list[at + 1], (*n - at - 1) * sizeof(*list));
	(*n)--;
}

/* Applies one edit ("+opt", "-opt", "+key=val") to the option list. */
static void opt_apply(struct opt *list, size_t *n, const struct opt *edit)
{
	struct opt o = { edit->p + 1, edit->n - 1 };
	bool has_value = opt_name_len(&o) < o.n;
	size_t i = 0;
	bool done = false;

	if (edit->p[0] == '-') {
		/* "-opt" drops opt and opt=*; "-opt=val" only that exact item. */
		while (i < *n) {
			if (has_value ? opt_equal(&list[i], &o) :
					opt_same_name(&list[i], &o))
				opt_remove(list, n, i);
			else
				i++;
		}
		return;
	}
	if (has_value) {
		/* "+key=val" takes the place of the first key=*, drops the rest. */
		while (i < *n) {
			if (!opt_same_name(&list[i], &o)) {
				i++;
			} else if (!done) {
				list[i++] = o;
				done = true;
			} else {
				opt_remove(list, n, i);
			}
		}
	} else {
		for (i = 0; i < *n && !done; i++)
			done = opt_equal(&list[i], &o);
	}
	if (!done)
		list[(*n)++] = o;
}

int imgp_fstab_edit_(const char *text, size_t len, const char *mountpoint,
		    const char *ops, struct imgp_buf *out)
{
	const struct fstab_ent *e;
	struct opt *list = NULL, *edits = NULL;
	struct imgp_buf opts = { 0 };
	size_t nlist, nedits, cap, i;
	const char *field;
	size_t field_len;
	struct fstab t;
	bool changed;
	int rc;

	out->len = 0;
	if (out->data)
		out->data[0] = '\0';
	rc = fstab_parse(&t, text, len);
	if (rc)
		return rc;

	nedits = opt_count(ops, strlen(ops));
	edits = calloc(nedits, sizeof(*edits));
	if (!edits) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	opt_split(ops, strlen(ops), edits, nedits);
	rc = ops_check(ops, edits, nedits);
	if (rc)
		goto out;

	rc = fstab_find(&t, mountpoint, &e);
	if (rc)
		goto out;
	field = text + e->off[F_OPTS];
	field_len = e->len[F_OPTS];

	/* Every edit adds at most one item, so this never grows. */
	cap = opt_count(field, field_len) + nedits;
	list = calloc(cap, sizeof(*list));
	if (!list) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	nlist = opt_split(field, field_len, list, cap);
	for (i = 0; i < nedits; i++)
		opt_apply(list, &nlist, &edits[i]);

	for (i = 0; i < nlist && !rc; i++) {
		if (i)
			rc = imgp_buf_append(&opts, ",", 1);
		if (!rc)
			rc = imgp_buf_append(&opts, list[i].p, list[i].n);
	}
	if (!rc && nlist == 0)
		rc = imgp_buf_append(&opts, "defaults", 8);
	if (rc) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	changed = opts.len != field_len || memcmp(opts.data, field, field_len);

	rc = imgp_buf_append(out, text, (size_t)(field - text));
	if (!rc)
		rc = imgp_buf_append(out, opts.data, opts.len);
	if (!rc)
		rc = imgp_buf_append(out, field + field_len,
				     len - (size_t)(field - text) - field_len);
	if (rc) {
		out->len = 0;
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = changed ? 1 : 0;
out:
	imgp_buf_free(&opts);
	free(list);
	free(edits);
	fstab_free(&t);
	return rc;
}
