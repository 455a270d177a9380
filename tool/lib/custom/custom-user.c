// SPDX-License-Identifier: MIT
/*
 * The account files (passwd, shadow, group, gshadow) as Debian's useradd
 * writes them, edited as text: the lines a user adds go where shadow's
 * commonio puts them and every other line stays as it was.
 *
 * Sources of the rules, Debian 12's shadow 1:4.13+dfsg1-1+deb12u2
 * (apt-get source shadow):
 *  - names: libmisc/chkname.c with debian/patches/506_relaxed_usernames;
 *    the length bound is USER_NAME_MAX_LENGTH, utmpx's ut_user (32 with
 *    glibc), and GROUP_NAME_MAX_LENGTH, 32 (debian/rules
 *    --with-group-name-max-length=32);
 *  - uid and gid: libmisc/find_new_uid.c, find_new_gid.c; src/useradd.c
 *    main() asks find_new_gid for the uid as the preferred gid;
 *  - login.defs reading: lib/getdef.c def_load(), getdef_ulong(),
 *    getdef_num(); /etc/default/useradd reading: src/useradd.c
 *    get_defaults(), with debian/patches/502_debian_useradd_defaults
 *    (HOME /home, SHELL /bin/bash when the file does not say);
 *  - the new lines: src/useradd.c new_pwent(), new_spent() (the change
 *    date from libmisc/gettime.c, which honours SOURCE_DATE_EPOCH),
 *    new_grent(), new_sgent(), grp_update(); lib/commonio.c
 *    add_one_entry_nis() puts a new line before the first NIS ('+'/'-')
 *    line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/epoch.h"
#include "custom/custom.h"

/* Name bounds: see the opening comment. */
#define USER_NAME_MAX 32
/* Account files of real systems are a few KiB; the bound keeps a corrupt one cheap. */
#define ACCT_FILE_MAX (8u * 1024 * 1024)
/* The largest id that is not (uid_t)-1, which means "no id". */
#define ACCT_ID_MAX 4294967294UL

int imgp_user_name_check_(const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (!len)
		return imgp_fail(EINVAL, "an empty user name");
	if (len > USER_NAME_MAX)
		return imgp_fail(EINVAL, "a user name of %zu bytes: useradd takes at most %d",
				 len, USER_NAME_MAX);
	/* characters first: a name is only quoted once it has no control character */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		/* useradd refuses ':', ',' and white space (isspace in the C locale). */
		if (c == ':' || c == ',' || c == ' ' || (c >= '\t' && c <= '\r'))
			return imgp_fail(EINVAL, "a user name with %s: useradd refuses it",
					 c == ':' ? "a ':'" : c == ',' ? "a ','" : "white space");
		/*
		 * Stricter than useradd: a control character would reach
		 * messages and terminals, and a '/' (or the names "." and "..")
		 * would put the home folder outside HOME.
		 */
		if (c < 0x20 || c == 0x7f)
			return imgp_fail(EINVAL, "a user name with a control character");
		if (c == '/')
			return imgp_fail(EINVAL, "a user name with a '/': the home folder would be elsewhere");
	}
	if (name[0] == '-' || name[0] == '+' || name[0] == '~')
		return imgp_fail(EINVAL, "user name '%s': useradd refuses a name that starts with '%c'",
				 name, name[0]);
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return imgp_fail(EINVAL, "user name '%s': the home folder would be HOME itself or above it",
				 name);
	return 0;
}

/*
 * Whether a field value (gecos, home, shell, password) can go into an
 * account file: shadow's valid_field() (lib/fields.c with
 * debian/patches/0003-Overhaul-valid_field.patch) refuses ':', a newline
 * and control characters.
 */
static int acct_field_check(const char *what, const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p == ':' || *p < 0x20 || *p == 0x7f)
			return imgp_fail(EINVAL, "%s: a ':', a newline or a control character", what);
	return 0;
}

/*
 * A shadow password field: a crypt hash, "!" or "*" (locked, no password),
 * "!" before a hash; never empty, which would let anyone in with none.
 */
static int shadow_field_check(const char *hash)
{
	if (!*hash)
		return imgp_fail(EINVAL, "an empty password field: anyone could log in without a password");
	return acct_field_check("the password field", hash);
}

/* ------------------------------------------------- one account file as lines */

struct acct_table {
	const char *file;        /* its path, for messages */
	unsigned nfields;
	char **line;             /* each without its newline, NUL-terminated */
	size_t n;
	bool changed;
};

static void acct_free(struct acct_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->line[i]);
	free(t->line);
	t->line = NULL;
	t->n = 0;
}

/* A NIS line ("+name" or "-@netgroup"): kept, never an account of this file. */
static bool acct_is_nis(const char *line)
{
	return line[0] == '+' || line[0] == '-';
}

static unsigned acct_count_fields(const char *line)
{
	unsigned n = 1;

	for (; *line; line++)
		n += *line == ':';
	return n;
}

/* Field i of line (0-based) and its length; the line has been checked. */
static const char *acct_field(const char *line, unsigned i, size_t *len)
{
	for (; i; i--)
		line = strchr(line, ':') + 1;
	*len = strcspn(line, ":");
	return line;
}

static bool acct_field_is(const char *line, unsigned i, const char *value)
{
	size_t len;
	const char *f = acct_field(line, i, &len);

	return len == strlen(value) && !memcmp(f, value, len);
}

/* A decimal id of at most ACCT_ID_MAX, as the whole field. */
static int acct_parse_id(const char *s, size_t len, unsigned long *out)
{
	unsigned long v = 0;

	if (!len || len > 10)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > ACCT_ID_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * Splits b into lines, each an account with nfields fields (a NIS line and
 * an empty line are kept as they are); the fields idfields names (a bit
 * per field) must be decimal ids.
 */
static int acct_parse(const struct imgp_buf *b, const char *file, unsigned nfields,
		      unsigned idfields, struct acct_table *t)
{
	const char *p = (const char *)b->data, *end = p + b->len;
	size_t lineno = 0;

	memset(t, 0, sizeof(*t));
	t->file = file;
	t->nfields = nfields;
	if (b->len > ACCT_FILE_MAX)
		return imgp_fail(EINVAL, "%s: %zu bytes, more than an account file holds",
				 file, b->len);
	if (b->len && memchr(p, '\0', b->len))
		return imgp_fail(EINVAL, "%s: a NUL byte: not a text file", file);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char **grown;
		char *line;
		unsigned nf;

		lineno++;
		line = strndup(p, len);
		grown = line ? realloc(t->line, (t->n + 1) * sizeof(*grown)) : NULL;
		if (!grown) {
			free(line);
			acct_free(t);
			return -ENOMEM;
		}
		t->line = grown;
		t->line[t->n++] = line;
		p += len + (nl != NULL);
		if (!*line || acct_is_nis(line))
			continue;
		nf = acct_count_fields(line);
		if (nf != nfields) {
			acct_free(t);
			return imgp_fail(EINVAL, "%s line %zu: %u fields, not %u", file, lineno,
					 nf, nfields);
		}
		for (unsigned i = 0; i < nfields; i++) {
			unsigned long id;
			size_t flen;
			const char *f;

			if (!(idfields & (1u << i)))
				continue;
			f = acct_field(line, i, &flen);
			if (acct_parse_id(f, flen, &id)) {
				acct_free(t);
				return imgp_fail(EINVAL, "%s line %zu: field %u is not a number",
						 file, lineno, i + 1);
			}
		}
	}
	return 0;
}

/* The index of name's line, or -1. */
static long acct_find(const struct acct_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (*t->line[i] && !acct_is_nis(t->line[i]) && acct_field_is(t->line[i], 0, name))
			return (long)i;
	return -1;
}

static unsigned long acct_id(const char *line, unsigned field)
{
	unsigned long id = 0;
	size_t len;
	const char *f = acct_field(line, field, &len);

	(void)acct_parse_id(f, len, &id);   /* checked by acct_parse */
	return id;
}

/* Takes line: replaces line idx, or (idx -1) goes before the first NIS line. */
static int acct_put(struct acct_table *t, long idx, char *line)
{
	char **grown;
	size_t at = t->n;

	if (!line)
		return -ENOMEM;
	t->changed = true;
	if (idx >= 0) {
		free(t->line[idx]);
		t->line[idx] = line;
		return 0;
	}
	grown = realloc(t->line, (t->n + 1) * sizeof(*grown));
	if (!grown) {
		free(line);
		return -ENOMEM;
	}
	t->line = grown;
	for (size_t i = 0; i < t->n; i++)
		if (acct_is_nis(t->line[i])) {
			at = i;
			break;
		}
	memmove(&t->line[at + 1], &t->line[at], (t->n - at) * sizeof(*grown));
	t->line[at] = line;
	t->n++;
	return 0;
}

/* line with field i replaced by value (malloc'd), or NULL. */
static char *acct_with_field(const char *line, unsigned i, const char *value)
{
	size_t len;
	const char *f = acct_field(line, i, &len);
	char *out = NULL;

	if (asprintf(&out, "%.*s%s%s", (int)(f - line), line, value, f + len) < 0)
		return NULL;
	return out;
}

/* Whether the comma-separated member list (field i) has name. */
static bool acct_has_member(const char *line, unsigned i, const char *name)
{
	size_t len, nlen = strlen(name);
	const char *f = acct_field(line, i, &len), *end = f + len;

	while (f < end) {
		const char *comma = memchr(f, ',', (size_t)(end - f));
		size_t mlen = comma ? (size_t)(comma - f) : (size_t)(end - f);

		if (mlen == nlen && !memcmp(f, name, nlen))
			return true;
		f += mlen + 1;
	}
	return false;
}

/* Adds name to the member list in field i of line idx, unless it is there. */
static int acct_add_member(struct acct_table *t, size_t idx, unsigned i, const char *name)
{
	const char *line = t->line[idx];
	size_t len;
	const char *f = acct_field(line, i, &len);
	char *out = NULL;

	if (acct_has_member(line, i, name))
		return 0;
	if (asprintf(&out, "%.*s%s%s%s", (int)(f + len - line), line, len ? "," : "", name,
		     f + len) < 0)
		return -ENOMEM;
	return acct_put(t, (long)idx, out);
}

static int acct_write(const struct acct_table *t, struct imgp_buf *out)
{
	struct imgp_buf b = { 0 };

	for (size_t i = 0; i < t->n; i++)
		if (imgp_buf_append(&b, t->line[i], strlen(t->line[i])) ||
		    imgp_buf_append(&b, "\n", 1)) {
			imgp_buf_free(&b);
			return -ENOMEM;
		}
	imgp_buf_free(out);
	*out = b;
	return 0;
}

/* ------------------------------------------ login.defs, /etc/default/useradd */

/*
 * login.defs' value of key into val (as shadow's def_load reads it:
 * blanks around the name, the value's leading blanks and quotes skipped
 * and cut at the next quote, the last line of a name wins); false when
 * the file does not name it.
 */
bool imgp_custom_logindefs_get_(const char *text, size_t len, const char *key,
			       char *val, size_t size)
{
	const char *p = text, *end = text ? text + len : NULL;
	size_t klen = strlen(key);
	bool found = false;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *name, *v;
		size_t vlen;

		name = p;
		p = nl ? nl + 1 : end;
		while (le > name && isspace((unsigned char)le[-1]))
			le--;
		while (name < le && (*name == ' ' || *name == '\t'))
			name++;
		if (name == le || *name == '#')
			continue;
		if ((size_t)(le - name) <= klen || memcmp(name, key, klen) ||
		    (name[klen] != ' ' && name[klen] != '\t'))
			continue;
		v = name + klen;
		while (v < le && (*v == ' ' || *v == '\t' || *v == '"'))
			v++;
		vlen = 0;
		while (v + vlen < le && v[vlen] != '"')
			vlen++;
		if (vlen >= size)
			vlen = size - 1;
		memcpy(val, v, vlen);
		val[vlen] = '\0';
		found = true;
	}
	return found;
}

/* getdef_ulong: strtoul's forms (decimal, 0x, 0) or dflt. */
static unsigned long logindefs_ulong(const struct imgp_buf *defs, const char *key,
				     unsigned long dflt)
{
	char v[64], *endp;
	unsigned long r;

	if (!imgp_custom_logindefs_get_((const char *)defs->data, defs->len, key, v, sizeof(v)) ||
	    !*v)
		return dflt;
	errno = 0;
	r = strtoul(v, &endp, 0);
	return *endp || errno || v[0] == '-' ? dflt : r;
}

/* getdef_num: a signed int or dflt. */
static long logindefs_num(const struct imgp_buf *defs, const char *key, long dflt)
{
	char v[64], *endp;
	long r;

	if (!imgp_custom_logindefs_get_((const char *)defs->data, defs->len, key, v, sizeof(v)) ||
	    !*v)
		return dflt;
	errno = 0;
	r = strtol(v, &endp, 0);
	return *endp || errno || r > INT32_MAX || r < INT32_MIN ? dflt : r;
}

/*
 * /etc/default/useradd's KEY=VALUE, malloc'd: the value after "KEY=" at
 * the start of a line, the last such line winning, as get_defaults()
 * reads it; NULL with *rc 0 when absent.
 */
static char *useradd_default(const struct imgp_buf *defs, const char *key, int *rc)
{
	const char *p = (const char *)defs->data, *end = p + defs->len;
	size_t klen = strlen(key);
	char *v = NULL;

	*rc = 0;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > klen && !memcmp(p, key, klen) && p[klen] == '=') {
			free(v);
			v = strndup(p + klen + 1, (size_t)(le - p) - klen - 1);
			if (!v) {
				*rc = -ENOMEM;
				return NULL;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return v;
}

/* ------------------------------------------------------------ the four files */

struct userdb_tables {
	struct acct_table pw, sp, gr, sg;
};

enum { PW_NAME, PW_PASSWD, PW_UID, PW_GID, PW_GECOS, PW_DIR, PW_SHELL };
enum { SP_NAME, SP_PWDP, SP_LSTCHG };
enum { GR_NAME, GR_PASSWD, GR_GID, GR_MEM };
enum { SG_NAME, SG_PASSWD, SG_ADM, SG_MEM };

static void userdb_tables_free(struct userdb_tables *t)
{
	acct_free(&t->pw);
	acct_free(&t->sp);
	acct_free(&t->gr);
	acct_free(&t->sg);
}

static int userdb_parse(const struct imgp_userdb *db, struct userdb_tables *t)
{
	int rc;

	memset(t, 0, sizeof(*t));
	rc = acct_parse(&db->passwd, "/etc/passwd", 7, 1u << PW_UID | 1u << PW_GID, &t->pw);
	if (!rc)
		rc = acct_parse(&db->shadow, "/etc/shadow", 9, 0, &t->sp);
	if (!rc)
		rc = acct_parse(&db->group, "/etc/group", 4, 1u << GR_GID, &t->gr);
	if (!rc)
		rc = acct_parse(&db->gshadow, "/etc/gshadow", 4, 0, &t->sg);
	if (rc)
		userdb_tables_free(t);
	return rc;
}

/* Writes the changed files into db, all or none. */
static int userdb_commit(struct imgp_userdb *db, const struct userdb_tables *t)
{
	const struct acct_table *tab[] = { &t->pw, &t->sp, &t->gr, &t->sg };
	struct imgp_buf *dst[] = { &db->passwd, &db->shadow, &db->group, &db->gshadow };
	struct imgp_buf text[4] = { { 0 } };

	for (size_t i = 0; i < 4; i++)
		if (tab[i]->changed && acct_write(tab[i], &text[i])) {
			for (size_t j = 0; j < 4; j++)
				imgp_buf_free(&text[j]);
			return -ENOMEM;
		}
	for (size_t i = 0; i < 4; i++)
		if (tab[i]->changed) {
			imgp_buf_free(dst[i]);
			*dst[i] = text[i];
		}
	return 0;
}

void imgp_userdb_free_(struct imgp_userdb *db)
{
	imgp_buf_free(&db->passwd);
	imgp_buf_free(&db->shadow);
	imgp_buf_free(&db->group);
	imgp_buf_free(&db->gshadow);
	imgp_buf_free(&db->login_defs);
	imgp_buf_free(&db->useradd_defaults);
}

/* Today in days since 1970 (SOURCE_DATE_EPOCH when set), as gettime() / DAY. */
static int userdb_today(long *day)
{
	int64_t epoch;
	int rc = imgp_source_date_epoch_(&epoch);

	if (rc)
		return rc;
	if (epoch < 0)
		epoch = (int64_t)time(NULL);
	*day = (long)(epoch / 86400);
	return 0;
}

/* An age field as putspent() writes it: empty for -1. */
static void shadow_age(char *out, size_t size, long v)
{
	if (v == -1)
		*out = '\0';
	else
		snprintf(out, size, "%ld", v);
}

/* EXPIRE= of /etc/default/useradd in days (strtoday: a number of days or a date), -1: none. */
static int shadow_expire(const struct imgp_buf *defs, long *out)
{
	int rc;
	char *v = useradd_default(defs, "EXPIRE", &rc), *end;
	struct tm tm;

	*out = -1;
	if (!v || !*v) {
		free(v);
		return rc;
	}
	errno = 0;
	*out = strtol(v, &end, 10);
	if (!*end && !errno && *out >= -1) {
		free(v);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(v, "%Y-%m-%d", &tm);
	if (!end || *end) {
		free(v);
		return imgp_fail(EINVAL, "/etc/default/useradd: EXPIRE is not a date (YYYY-MM-DD)");
	}
	free(v);
	*out = (long)(timegm(&tm) / 86400);
	return 0;
}

/* A new shadow line, as new_spent() fills it from login.defs and the defaults. */
static int shadow_line(const struct imgp_userdb *db, const char *name, const char *hash,
		       char **out)
{
	char lst[24], min[24], max[24], warn[24], inact[24], expire[24];
	long day, in = -1, ex;
	char *v;
	int rc = userdb_today(&day);

	if (!rc)
		rc = shadow_expire(&db->useradd_defaults, &ex);
	if (rc)
		return rc;
	/* get_defaults: INACTIVE that is not a number >= -1 is ignored */
	v = useradd_default(&db->useradd_defaults, "INACTIVE", &rc);
	if (rc)
		return rc;
	if (v) {
		char *end;

		errno = 0;
		in = strtol(v, &end, 0);
		if (!*v || *end || errno || in < -1)
			in = -1;
		free(v);
	}
	shadow_age(lst, sizeof(lst), day ? day : -1);
	shadow_age(min, sizeof(min), logindefs_num(&db->login_defs, "PASS_MIN_DAYS", -1));
	shadow_age(max, sizeof(max), logindefs_num(&db->login_defs, "PASS_MAX_DAYS", -1));
	shadow_age(warn, sizeof(warn), logindefs_num(&db->login_defs, "PASS_WARN_AGE", -1));
	shadow_age(inact, sizeof(inact), in);
	shadow_age(expire, sizeof(expire), ex);
	if (asprintf(out, "%s:%s:%s:%s:%s:%s:%s:%s:", name, hash, lst, min, max, warn, inact,
		     expire) < 0)
		return -ENOMEM;
	return 0;
}

/* Sets name's shadow password field, or adds its line; a new hash dates the change. */
static int shadow_set(const struct imgp_userdb *db, struct acct_table *sp, const char *name,
		      const char *hash)
{
	long idx = acct_find(sp, name), day;
	char *line, *dated, lst[24];
	int rc;

	if (idx < 0) {
		rc = shadow_line(db, name, hash, &line);
		return rc ? rc : acct_put(sp, -1, line);
	}
	line = acct_with_field(sp->line[idx], SP_PWDP, hash);
	if (!line)
		return -ENOMEM;
	/* chpasswd dates a new password; locking one ("!" before it) does not */
	if (hash[0] == '$') {
		rc = userdb_today(&day);
		if (rc) {
			free(line);
			return rc;
		}
		shadow_age(lst, sizeof(lst), day ? day : -1);
		dated = acct_with_field(line, SP_LSTCHG, lst);
		free(line);
		line = dated;
	}
	return acct_put(sp, idx, line);
}

/* ------------------------------------------------------------ uid and gid */

static int id_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

struct id_set {
	unsigned long *v;
	size_t n;
};

static bool id_used(const struct id_set *s, unsigned long id)
{
	return bsearch(&id, s->v, s->n, sizeof(*s->v), id_cmp) != NULL;
}

/* login.defs' MIN..MAX for new ids (getdef_ulong, get_ranges' defaults). */
static int id_range(const struct imgp_userdb *db, const char *kmin, const char *kmax,
		    unsigned long *min, unsigned long *max)
{
	*min = logindefs_ulong(&db->login_defs, kmin, 1000);
	*max = logindefs_ulong(&db->login_defs, kmax, 60000);
	if (*max > ACCT_ID_MAX)
		return imgp_fail(EINVAL, "/etc/login.defs: %s %lu is not an id", kmax, *max);
	if (*max < *min)
		return imgp_fail(EINVAL, "/etc/login.defs: %s (%lu) is above %s (%lu)", kmin, *min,
				 kmax, *max);
	return 0;
}

/*
 * A new id, as find_new_uid/find_new_gid choose it for a user that is not
 * a system one: preferred when it is in range and free, else one above
 * the highest in range, else (the top taken) the lowest free one.
 */
static int id_pick(const struct acct_table *t, unsigned field, const char *kmin,
		   const char *kmax, const struct imgp_userdb *db,
		   const unsigned long *preferred, unsigned long *out)
{
	struct id_set used = { 0 };
	unsigned long min, max, highest, id;
	int rc = id_range(db, kmin, kmax, &min, &max);

	if (rc)
		return rc;
	used.v = malloc((t->n + 1) * sizeof(*used.v));
	if (!used.v)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		if (*t->line[i] && !acct_is_nis(t->line[i]))
			used.v[used.n++] = acct_id(t->line[i], field);
	qsort(used.v, used.n, sizeof(*used.v), id_cmp);
	rc = 0;
	if (preferred && *preferred >= min && *preferred <= max && !id_used(&used, *preferred)) {
		*out = *preferred;
		goto out;
	}
	highest = min;
	for (size_t i = 0; i < used.n; i++)
		if (used.v[i] >= highest && used.v[i] <= max)
			highest = used.v[i] + 1;
	if (highest > max)
		highest = min;
	/* each loop meets a free id within used.n + 1 steps unless the range is full */
	for (id = highest; id <= max; id++)
		if (!id_used(&used, id)) {
			*out = id;
			goto out;
		}
	for (id = min; id < highest; id++)
		if (!id_used(&used, id)) {
			*out = id;
			goto out;
		}
	rc = imgp_fail(ENOSPC, "%s: every id of %s..%s (%lu..%lu) is taken", t->file, kmin,
		       kmax, min, max);
out:
	free(used.v);
	return rc;
}

/* ------------------------------------------------------------ the user */

/* Adds name to each of groups the group file has (grp_update): group, then gshadow. */
static int userdb_join(struct userdb_tables *t, const char *name,
		       const char *const *groups, size_t ngroups)
{
	int rc = 0;

	for (size_t g = 0; g < ngroups && !rc; g++) {
		long gi = acct_find(&t->gr, groups[g]), si;

		if (gi < 0)
			continue;
		rc = acct_add_member(&t->gr, (size_t)gi, GR_MEM, name);
		si = acct_find(&t->sg, groups[g]);
		if (!rc && si >= 0)
			rc = acct_add_member(&t->sg, (size_t)si, SG_MEM, name);
	}
	return rc;
}

/* The new user's passwd, group and gshadow lines, with the ids useradd -U picks. */
static int userdb_new(const struct imgp_userdb *db, struct userdb_tables *t,
		      const struct imgp_user_add *u, unsigned long *uid, unsigned long *gid,
		      char **home)
{
	char *base, *shell = NULL, *line = NULL;
	int rc;

	if (acct_find(&t->gr, u->name) >= 0)
		return imgp_fail(EEXIST, "/etc/group: a group '%s' is there already, "
				 "and useradd -U does not take it over",
				 u->name);
	rc = id_pick(&t->pw, PW_UID, "UID_MIN", "UID_MAX", db, NULL, uid);
	if (!rc)
		rc = id_pick(&t->gr, GR_GID, "GID_MIN", "GID_MAX", db, uid, gid);
	if (rc)
		return rc;
	base = useradd_default(&db->useradd_defaults, "HOME", &rc);
	if (!rc && !u->shell)
		shell = useradd_default(&db->useradd_defaults, "SHELL", &rc);
	if (!rc && asprintf(home, "%s/%s", base ? base : "/home", u->name) < 0) {
		*home = NULL;
		rc = -ENOMEM;
	}
	free(base);
	if (!rc)
		rc = acct_field_check("/etc/default/useradd: HOME", *home);
	if (!rc && (*home)[0] != '/')
		rc = imgp_fail(EINVAL, "/etc/default/useradd: HOME is not an absolute path");
	if (!rc && shell)
		rc = acct_field_check("/etc/default/useradd: SHELL", shell);
	if (!rc && asprintf(&line, "%s:x:%lu:%lu:%s:%s:%s", u->name, *uid, *gid,
			    u->gecos ? u->gecos : "", *home,
			    u->shell ? u->shell : shell ? shell : "/bin/bash") < 0)
		rc = -ENOMEM;
	free(shell);
	if (!rc)
		rc = acct_put(&t->pw, -1, line);
	if (!rc) {
		/* spw_update: the whole line, a stale one replaced */
		rc = shadow_line(db, u->name, u->hash ? u->hash : "!", &line);
		if (!rc)
			rc = acct_put(&t->sp, acct_find(&t->sp, u->name), line);
	}
	if (!rc) {
		line = NULL;
		rc = asprintf(&line, "%s:x:%lu:", u->name, *gid) < 0 ? -ENOMEM
								   : acct_put(&t->gr, -1, line);
	}
	if (!rc) {
		/* new_sgent: "!" and no administrators or members; a stale line is replaced */
		line = NULL;
		rc = asprintf(&line, "%s:!::", u->name) < 0 ? -ENOMEM
			: acct_put(&t->sg, acct_find(&t->sg, u->name), line);
	}
	if (rc) {
		free(*home);
		*home = NULL;
	}
	return rc;
}

int imgp_userdb_add_(struct imgp_userdb *db, const struct imgp_user_add *u,
		    unsigned *uid, unsigned *gid, char **home)
{
	struct userdb_tables t;
	unsigned long id_u = 0, id_g = 0;
	char *dir = NULL;
	long idx;
	int rc = imgp_user_name_check_(u->name);

	if (!rc && u->gecos)
		rc = acct_field_check("the user's full name", u->gecos);
	if (!rc && u->shell)
		rc = acct_field_check("the shell", u->shell);
	if (!rc && u->shell && u->shell[0] != '/')
		rc = imgp_fail(EINVAL, "the shell is not an absolute path");
	if (!rc && u->hash)
		rc = shadow_field_check(u->hash);
	if (!rc)
		rc = userdb_parse(db, &t);
	if (rc)
		return rc;
	idx = acct_find(&t.pw, u->name);
	if (idx >= 0) {
		/* already there: keeps uid and home, gains the groups */
		size_t len;
		const char *f = acct_field(t.pw.line[idx], PW_DIR, &len);

		id_u = acct_id(t.pw.line[idx], PW_UID);
		id_g = acct_id(t.pw.line[idx], PW_GID);
		dir = strndup(f, len);
		rc = dir ? 0 : -ENOMEM;
		if (!rc && u->hash)
			rc = shadow_set(db, &t.sp, u->name, u->hash);
	} else {
		rc = userdb_new(db, &t, u, &id_u, &id_g, &dir);
	}
	if (!rc)
		rc = userdb_join(&t, u->name, u->groups, u->ngroups);
	if (!rc)
		rc = userdb_commit(db, &t);
	userdb_tables_free(&t);
	if (rc) {
		free(dir);
		return rc;
	}
	if (uid)
		*uid = (unsigned)id_u;
	if (gid)
		*gid = (unsigned)id_g;
	if (home)
		*home = dir;
	else
		free(dir);
	return 0;
}

int imgp_userdb_set_hash_(struct imgp_userdb *db, const char *user, const char *hash)
{
	struct userdb_tables t;
	long idx;
	int rc = imgp_user_name_check_(user);

	if (!rc)
		rc = shadow_field_check(hash);
	if (!rc)
		rc = userdb_parse(db, &t);
	if (rc)
		return rc;
	idx = acct_find(&t.pw, user);
	if (idx < 0)
		rc = imgp_fail(ENOENT, "/etc/passwd: no user '%s'", user);
	else if (!acct_field_is(t.pw.line[idx], PW_PASSWD, "x"))
		/* the hash lives in shadow; passwd says so */
		rc = acct_put(&t.pw, idx, acct_with_field(t.pw.line[idx], PW_PASSWD, "x"));
	if (!rc)
		rc = shadow_set(db, &t.sp, user, hash);
	if (!rc)
		rc = userdb_commit(db, &t);
	userdb_tables_free(&t);
	return rc;
}

int imgp_userdb_lookup_(const struct imgp_userdb *db, const char *user, unsigned *uid,
		       unsigned *gid, char **home)
{
	struct acct_table pw;
	long idx;
	int rc = imgp_user_name_check_(user);

	if (!rc)
		rc = acct_parse(&db->passwd, "/etc/passwd", 7, 1u << PW_UID | 1u << PW_GID, &pw);
	if (rc)
		return rc;
	idx = acct_find(&pw, user);
	if (idx < 0) {
		rc = imgp_fail(ENOENT, "/etc/passwd: no user '%s'", user);
	} else {
		size_t len;
		const char *f = acct_field(pw.line[idx], PW_DIR, &len);

		if (home) {
			*home = strndup(f, len);
			if (!*home)
				rc = -ENOMEM;
		}
		if (uid)
			*uid = (unsigned)acct_id(pw.line[idx], PW_UID);
		if (gid)
			*gid = (unsigned)acct_id(pw.line[idx], PW_GID);
	}
	acct_free(&pw);
	return rc;
}

/* ------------------------------------------------------------ the first user's groups */

/*
 * What each distribution gives the user it makes first:
 *  - Debian's installer: user-setup 1.95 (Debian 12), templates'
 *    passwd/user-default-groups, and sudo from user-setup-apply when root
 *    has no password (usr/lib/user-setup/user-setup-apply);
 *  - Ubuntu: cloud-init's config/cloud.cfg.tmpl, default_user groups for
 *    "ubuntu" (canonical/cloud-init 0167c1b929e649ee1f35467d10f4c2e4978fda6d);
 *  - Raspberry Pi OS: pi-gen bookworm (4be6bbd0933c900517cb309d4f4f44267d2c2cac),
 *    stage2/01-sys-tweaks/01-run.sh's adduser loop; userconf-pi renames
 *    that user, so a user made at first boot has the same groups.
 */
static const char *const groups_debian[] = {
	"audio", "cdrom", "dip", "floppy", "video", "plugdev", "netdev", "scanner",
	"bluetooth", "debian-tor", "lpadmin", "sudo", NULL,
};
static const char *const groups_ubuntu[] = {
	"adm", "cdrom", "dip", "lxd", "sudo", NULL,
};
static const char *const groups_raspbian[] = {
	"adm", "dialout", "cdrom", "audio", "users", "sudo", "video", "games", "plugdev",
	"input", "gpio", "spi", "i2c", "netdev", "render", NULL,
};

size_t imgp_user_first_groups_(const struct imgp_userdb *db, const char *distro_id,
			      const char *out[IMGP_USER_GROUPS_MAX + 1])
{
	const char *const *want = groups_debian;
	struct acct_table gr;
	size_t n = 0;

	if (distro_id && !strcmp(distro_id, "ubuntu"))
		want = groups_ubuntu;
	else if (distro_id && !strcmp(distro_id, "raspbian"))
		want = groups_raspbian;
	out[0] = NULL;
	if (acct_parse(&db->group, "/etc/group", 4, 1u << GR_GID, &gr))
		return 0;
	for (; *want && n < IMGP_USER_GROUPS_MAX; want++)
		if (acct_find(&gr, *want) >= 0)
			out[n++] = *want;
	out[n] = NULL;
	acct_free(&gr);
	return n;
}
