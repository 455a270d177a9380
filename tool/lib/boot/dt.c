// SPDX-License-Identifier: MIT
/*
 * Device tree blobs: loading into a buffer that can be edited, resolving the
 * node specs users type, formatting values as dtc does, and listing the
 * SD/eMMC controllers whose properties limit the bus speed.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "imgpatch-internal.h"

/* Deleting only shrinks a tree; the slack is for edits that add bytes. */
#define DT_SLACK 65536
/* Candidate lists in messages stop here: a message is not a listing. */
#define DT_LIST_MAX 12
#define DT_PATH_MAX 1024

int imgp_dtb_load(struct imgp_dtb *dtb, const void *blob, size_t size)
{
	size_t total;
	void *copy, *fdt;
	int rc;

	memset(dtb, 0, sizeof(*dtb));
	if (size < sizeof(struct fdt_header))
		return imgp_fail(EINVAL, "not a device tree blob: only %zu bytes",
				 size);
	/* libfdt sizes are ints. */
	if (size > INT_MAX - DT_SLACK)
		return imgp_fail(EFBIG, "device tree is too large (%zu bytes)", size);
	/*
	 * libfdt wants 8-byte aligned blobs, and FIT payloads often sit at
	 * 4-byte offsets: check an aligned copy.
	 */
	copy = malloc(size);
	if (!copy)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(copy, blob, size);
	rc = fdt_check_header(copy);
	if (rc) {
		free(copy);
		return imgp_fail(EINVAL, "not a device tree blob: %s",
				 fdt_strerror(rc));
	}
	total = fdt_totalsize(copy);
	if (total > size) {
		free(copy);
		return imgp_fail(EINVAL,
				 "device tree is %zu bytes but only %zu are there (truncated?)",
				 total, size);
	}
	rc = fdt_check_full(copy, total);
	if (rc) {
		free(copy);
		return imgp_fail(EINVAL, "broken device tree: %s", fdt_strerror(rc));
	}
	fdt = malloc(total + DT_SLACK);
	if (!fdt) {
		free(copy);
		return imgp_fail(ENOMEM, "out of memory");
	}
	rc = fdt_open_into(copy, fdt, (int)(total + DT_SLACK));
	free(copy);
	if (rc) {
		free(fdt);
		return imgp_fail(EINVAL, "cannot open device tree: %s",
				 fdt_strerror(rc));
	}
	dtb->fdt = fdt;
	dtb->bufsize = total + DT_SLACK;
	return 0;
}

void imgp_dtb_free(struct imgp_dtb *dtb)
{
	free(dtb->fdt);
	dtb->fdt = NULL;
	dtb->bufsize = 0;
}

int imgp_dtb_finish(struct imgp_dtb *dtb, const void **blob, size_t *size)
{
	int rc = fdt_pack(dtb->fdt);

	if (rc)
		return imgp_fail(EINVAL, "cannot pack device tree: %s",
				 fdt_strerror(rc));
	*blob = dtb->fdt;
	*size = fdt_totalsize(dtb->fdt);
	return 0;
}

int imgp_dt_node_path(const struct imgp_dtb *dtb, int node, char *out,
		      size_t outlen)
{
	int rc;

	rc = fdt_get_path(dtb->fdt, node, out,
			  outlen > INT_MAX ? INT_MAX : (int)outlen);
	if (rc == -FDT_ERR_NOSPACE)
		return imgp_fail(ENAMETOOLONG,
				 "path of the node at offset %d is longer than %zu bytes",
				 node, outlen);
	if (rc)
		return imgp_fail(EINVAL, "node at offset %d: %s", node,
				 fdt_strerror(rc));
	return 0;
}

int imgp_dt_delete_prop(struct imgp_dtb *dtb, int node, const char *prop)
{
	int rc = fdt_delprop(dtb->fdt, node, prop);

	if (rc == -FDT_ERR_NOTFOUND)
		return 1;
	if (rc)
		return imgp_fail(EINVAL, "cannot delete property '%s': %s", prop,
				 fdt_strerror(rc));
	return 0;
}

/* ------------------------------------------------------------ matching */

/* Length of a node name without its unit address ("mmc" of "mmc@ff170000"). */
static size_t dt_base_len(const char *name)
{
	return strcspn(name, "@");
}

static bool dt_base_eq(const char *name, const char *base, size_t len)
{
	return dt_base_len(name) == len && strncmp(name, base, len) == 0;
}

static bool dt_is_mmc(const void *fdt, int node)
{
	static const char *const names[] = { "mmc", "sdhci", "sdmmc", "emmc", "sd" };
	static const char *const drivers[] = { "sdhci", "mmc", "dw-mshc" };
	const char *name, *p, *end;
	size_t i;
	int len;

	name = fdt_get_name(fdt, node, NULL);
	if (!name)
		return false;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (dt_base_eq(name, names[i], strlen(names[i])))
			return true;
	p = fdt_getprop(fdt, node, "compatible", &len);
	if (!p || len <= 0 || p[len - 1] != '\0')
		return false;
	for (end = p + len; p < end; p += strlen(p) + 1) {
		/* "mmc-pwrseq-simple" powers a card; it is not a controller. */
		if (strstr(p, "pwrseq"))
			continue;
		for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
			if (strstr(p, drivers[i]))
				return true;
	}
	return false;
}

/* Node paths gathered for a message: "/a, /b, ..." */
struct dt_list {
	struct imgp_buf buf;
	int count;
	int first;
	int err;
};

static void dt_list_add(const void *fdt, int node, struct dt_list *l)
{
	char path[DT_PATH_MAX];

	if (l->count++ == 0)
		l->first = node;
	if (l->count > DT_LIST_MAX) {
		if (l->count == DT_LIST_MAX + 1 && !l->err)
			l->err = imgp_buf_printf(&l->buf, ", ...");
		return;
	}
	if (fdt_get_path(fdt, node, path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "<offset %d>", node);
	if (!l->err)
		l->err = imgp_buf_printf(&l->buf, "%s%s", l->buf.len ? ", " : "",
					 path);
}

/*
 * Does an absolute path match a spec? Component by component; a spec
 * component without '@' stands for any unit address, as in libfdt. libfdt
 * silently takes the first such match, we insist on exactly one.
 */
static bool dt_path_matches(const char *spec, const char *path)
{
	for (;;) {
		size_t sl, pl, sb;

		spec += strspn(spec, "/");
		path += strspn(path, "/");
		if (!*spec || !*path)
			return !*spec && !*path;
		sl = strcspn(spec, "/");
		pl = strcspn(path, "/");
		sb = strcspn(spec, "@/");
		if (sb < sl) {
			if (sl != pl || strncmp(spec, path, sl) != 0)
				return false;
		} else if (strcspn(path, "@/") != sb ||
			   strncmp(spec, path, sb) != 0) {
			return false;
		}
		spec += sl;
		path += pl;
	}
}

enum dt_how { DT_PATH, DT_FULL_NAME, DT_BASE_NAME };

/* By name; paths are matched during the walk (dt_walk_path). */
static bool dt_node_matches(const void *fdt, int node, const char *spec,
			    enum dt_how how)
{
	const char *name;

	switch (how) {
	case DT_PATH:
		return false;
	case DT_FULL_NAME:
		name = fdt_get_name(fdt, node, NULL);
		return name && strcmp(name, spec) == 0;
	case DT_BASE_NAME:
		name = fdt_get_name(fdt, node, NULL);
		return name && dt_base_eq(name, spec, strlen(spec));
	}
	return false;
}

static int dt_walk_error(int rc)
{
	return imgp_fail(EINVAL, "broken device tree: %s", fdt_strerror(rc));
}

/* ENOENT listing nodes with the same base name, or else the SD/eMMC controllers. */
static int dt_not_found(const void *fdt, const char *what, const char *spec,
			const char *base, size_t baselen)
{
	struct dt_list l = { 0 };
	const char *kind = "candidates";
	int node, rc;

	for (node = fdt_next_node(fdt, -1, NULL); node >= 0;
	     node = fdt_next_node(fdt, node, NULL)) {
		const char *name = fdt_get_name(fdt, node, NULL);

		if (baselen && name && dt_base_eq(name, base, baselen))
			dt_list_add(fdt, node, &l);
	}
	if (!l.count) {
		kind = "SD/eMMC controllers";
		for (node = fdt_next_node(fdt, -1, NULL); node >= 0;
		     node = fdt_next_node(fdt, node, NULL))
			if (dt_is_mmc(fdt, node))
				dt_list_add(fdt, node, &l);
	}
	if (l.err)
		rc = imgp_fail(ENOMEM, "out of memory");
	else if (l.count)
		rc = imgp_fail(ENOENT, "%s '%s' not found (%s: %s)", what, spec,
			       kind, (const char *)l.buf.data);
	else
		rc = imgp_fail(ENOENT, "%s '%s' not found", what, spec);
	imgp_buf_free(&l.buf);
	return rc;
}

/*
 * The path of each node during one walk in tree order. fdt_get_path() walks
 * from the root every time, which made a search of a hostile tree with
 * 40000 nodes take a minute. Any path at depth DT_PATH_MAX or more is too
 * long, as fdt_get_path() would find.
 */
struct dt_path_walk {
	char path[DT_PATH_MAX];
	size_t len[DT_PATH_MAX]; /* path length per depth; SIZE_MAX: too long */
};

/* Sets w->path to node's path; false when it does not fit. */
static bool dt_walk_path(const void *fdt, int node, int depth,
			 struct dt_path_walk *w)
{
	const char *name;
	size_t pl;
	int nl;

	if (depth < 0 || depth >= DT_PATH_MAX)
		return false;
	if (depth == 0) {
		w->len[0] = 0;
		memcpy(w->path, "/", 2);
		return true;
	}
	/* The parent came earlier in the walk, so path holds its path. */
	pl = w->len[depth - 1];
	name = fdt_get_name(fdt, node, &nl);
	if (pl == SIZE_MAX || !name || nl < 0 ||
	    pl + 1 + (size_t)nl >= DT_PATH_MAX) {
		w->len[depth] = SIZE_MAX;
		return false;
	}
	w->path[pl] = '/';
	memcpy(w->path + pl + 1, name, (size_t)nl);
	w->path[pl + 1 + nl] = '\0';
	w->len[depth] = pl + 1 + (size_t)nl;
	return true;
}

static int dt_find_label(const void *fdt, const char *label)
{
	struct {
		struct dt_path_walk walk;
		char mmc[DT_LIST_MAX][DT_PATH_MAX];
	} *h;
	struct imgp_buf b = { 0 };
	const char *path;
	size_t nmmc = 0;
	int sym, node, prop, len, rc = 0, depth = -1;

	if (!*label)
		return imgp_fail(EINVAL, "empty label after '&'");
	sym = fdt_path_offset(fdt, "/__symbols__");
	if (sym < 0)
		return imgp_fail(ENOENT,
				 "label '%s' not found: the tree has no __symbols__ (compile it with dtc -@)",
				 label);
	path = fdt_getprop(fdt, sym, label, &len);
	if (path) {
		if (len < 1 || path[len - 1] != '\0')
			return imgp_fail(EINVAL, "label '%s': __symbols__ entry is not a path",
					 label);
		node = fdt_path_offset(fdt, path);
		if (node < 0)
			return imgp_fail(ENOENT,
					 "label '%s' points at '%s', which is not in the tree",
					 label, path);
		return node;
	}
	/*
	 * Not there: suggest the labels that name SD/eMMC controllers. The
	 * paths of the first controllers come from one walk; resolving every
	 * label took a minute on a hostile tree with 40000 of them.
	 */
	h = malloc(sizeof(*h));
	if (!h)
		return imgp_fail(ENOMEM, "out of memory");
	for (node = fdt_next_node(fdt, -1, &depth);
	     node >= 0 && depth >= 0 && nmmc < DT_LIST_MAX;
	     node = fdt_next_node(fdt, node, &depth))
		if (dt_walk_path(fdt, node, depth, &h->walk) &&
		    dt_is_mmc(fdt, node))
			strcpy(h->mmc[nmmc++], h->walk.path);
	fdt_for_each_property_offset(prop, fdt, sym) {
		const char *name;

		path = fdt_getprop_by_offset(fdt, prop, &name, &len);
		if (!path || len < 1 || path[len - 1] != '\0')
			continue;
		for (size_t i = 0; i < nmmc && !rc; i++)
			if (!strcmp(path, h->mmc[i])) {
				rc = imgp_buf_printf(&b, "%s&%s",
						     b.len ? ", " : "", name);
				break;
			}
	}
	free(h);
	if (rc)
		rc = imgp_fail(ENOMEM, "out of memory");
	else if (b.len)
		rc = imgp_fail(ENOENT, "label '%s' not found (SD/eMMC labels: %s)",
			       label, (const char *)b.data);
	else
		rc = imgp_fail(ENOENT, "label '%s' not found in __symbols__", label);
	imgp_buf_free(&b);
	return rc;
}

int imgp_dt_find_node(const struct imgp_dtb *dtb, const char *spec)
{
	const void *fdt = dtb->fdt;
	struct dt_list l = { 0 };
	struct dt_path_walk *w = NULL;
	const char *base;
	enum dt_how how;
	int node, rc, depth = -1;

	if (!*spec)
		return imgp_fail(EINVAL, "empty node name");
	if (spec[0] == '&')
		return dt_find_label(fdt, spec + 1);
	if (spec[0] == '/') {
		char path[DT_PATH_MAX];

		/* The common case: a full path that libfdt resolves as given. */
		node = fdt_path_offset(fdt, spec);
		if (node >= 0 && fdt_get_path(fdt, node, path, sizeof(path)) == 0 &&
		    strcmp(path, spec) == 0)
			return node;
		how = DT_PATH;
	} else if (strchr(spec, '/')) {
		return imgp_fail(EINVAL, "node '%s': a path must start with '/'",
				 spec);
	} else {
		how = strchr(spec, '@') ? DT_FULL_NAME : DT_BASE_NAME;
	}

	if (how == DT_PATH) {
		w = malloc(sizeof(*w));
		if (!w)
			return imgp_fail(ENOMEM, "out of memory");
	}
	/* With a depth, the walk ends at depth -1 rather than NOTFOUND. */
	for (node = fdt_next_node(fdt, -1, &depth); node >= 0 && depth >= 0;
	     node = fdt_next_node(fdt, node, &depth))
		if (how == DT_PATH ?
		    dt_walk_path(fdt, node, depth, w) &&
		    dt_path_matches(spec, w->path) :
		    dt_node_matches(fdt, node, spec, how))
			dt_list_add(fdt, node, &l);
	free(w);
	if (node < 0 && node != -FDT_ERR_NOTFOUND) {
		rc = dt_walk_error(node);
	} else if (l.err) {
		rc = imgp_fail(ENOMEM, "out of memory");
	} else if (l.count == 1) {
		rc = l.first;
	} else if (l.count > 1) {
		rc = imgp_fail(EEXIST,
			       "node '%s' is ambiguous (matches: %s); give a full path or a &label",
			       spec, (const char *)l.buf.data);
	} else {
		base = strrchr(spec, '/');
		base = base ? base + 1 : spec;
		rc = dt_not_found(fdt, "node", spec, base, dt_base_len(base));
	}
	imgp_buf_free(&l.buf);
	return rc;
}

/* ---------------------------------------------------------- formatting */

/* Bounded output: remembers truncation, ends it with "..." at the close. */
struct dt_out {
	char *s;
	size_t cap, pos;
	bool trunc;
};

static void dt_putc(struct dt_out *o, char c)
{
	if (o->pos + 1 < o->cap)
		o->s[o->pos++] = c;
	else
		o->trunc = true;
}

static void dt_puts(struct dt_out *o, const char *s)
{
	while (*s)
		dt_putc(o, *s++);
}

static int dt_close(struct dt_out *o)
{
	if (!o->trunc) {
		o->s[o->pos] = '\0';
		return 0;
	}
	if (o->cap >= 4) {
		if (o->pos > o->cap - 4)
			o->pos = o->cap - 4;
		memcpy(o->s + o->pos, "...", 4);
	} else {
		o->s[0] = '\0';
	}
	return imgp_fail(ENOSPC, "value does not fit in %zu bytes", o->cap);
}

/* What dtc treats as string bytes: printable ASCII, NUL and C escapes. */
static bool dt_is_string_byte(uint8_t c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\0' ||
		(c && strchr("\a\b\t\n\v\f\r", c));
}

/* The test dtc applies when decompiling a property without type markers. */
static bool dt_looks_like_strings(const uint8_t *p, int len)
{
	int i, nul = 0;

	if (len <= 0 || p[len - 1] != '\0')
		return false;
	for (i = 0; i < len; i++) {
		if (!dt_is_string_byte(p[i]))
			return false;
		if (!p[i])
			nul++;
	}
	return nul <= len - nul;
}

static void dt_put_string(struct dt_out *o, const uint8_t *p, const uint8_t *end)
{
	static const char esc_from[] = "\a\b\t\n\v\f\r\\\"";
	static const char esc_to[] = "abtnvfr\\\"";
	char tmp[8];

	dt_putc(o, '"');
	for (; p < end && *p; p++) {
		const char *e = strchr(esc_from, *p);

		if (e) {
			dt_putc(o, '\\');
			dt_putc(o, esc_to[e - esc_from]);
		} else if (*p >= 0x20 && *p < 0x7f) {
			dt_putc(o, (char)*p);
		} else {
			snprintf(tmp, sizeof(tmp), "\\x%02x", *p);
			dt_puts(o, tmp);
		}
	}
	dt_putc(o, '"');
}

int imgp_dt_format_value(const void *val, int len, char *out, size_t outlen)
{
	struct dt_out o = { out, outlen, 0, false };
	const uint8_t *p = val, *end;
	char tmp[16];
	int i;

	if (!outlen)
		return imgp_fail(ENOSPC, "no room for a value");
	if (len < 0 || (len > 0 && !val)) {
		out[0] = '\0';
		return imgp_fail(EINVAL, "invalid property length %d", len);
	}
	end = p + len;
	if (len == 0) {
		/* A boolean property: dtc prints just the name. */
	} else if (dt_looks_like_strings(p, len)) {
		while (p < end) {
			if (p != val)
				dt_puts(&o, ", ");
			dt_put_string(&o, p, end);
			p += strnlen((const char *)p, (size_t)(end - p)) + 1;
		}
	} else if (len % 4 == 0) {
		dt_putc(&o, '<');
		for (i = 0; i < len; i += 4) {
			/* dtc -O dts prints cells as 0x%02x: <0x01 0xbebc200>. */
			snprintf(tmp, sizeof(tmp), "%s0x%02x", i ? " " : "",
				 fdt32_ld((const fdt32_t *)(p + i)));
			dt_puts(&o, tmp);
		}
		dt_putc(&o, '>');
	} else {
		dt_putc(&o, '[');
		for (i = 0; i < len; i++) {
			snprintf(tmp, sizeof(tmp), "%s%02x", i ? " " : "", p[i]);
			dt_puts(&o, tmp);
		}
		dt_putc(&o, ']');
	}
	return dt_close(&o);
}

/* ---------------------------------------------------------------- mmc */

static bool dt_is_speed_prop(const char *name)
{
	static const char *const exact[] = {
		"no-1-8-v", "max-frequency", "bus-width", "non-removable",
		"mmc-hs400-enhanced-strobe", "cap-mmc-highspeed",
		"cap-sd-highspeed", "vqmmc-supply",
	};
	static const char *const prefix[] = {
		"sd-uhs-", "mmc-hs200-", "mmc-hs400-", "mmc-ddr-",
	};
	size_t i;

	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(name, exact[i]) == 0)
			return true;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
			return true;
	return false;
}

static int dt_fill_mmc(const struct imgp_dtb *dtb, int node,
		       struct imgp_dt_mmc *m)
{
	const size_t maxprops = sizeof(m->props) / sizeof(m->props[0]);
	const void *fdt = dtb->fdt;
	const char *status;
	int prop, len, rc;

	memset(m, 0, sizeof(*m));
	rc = imgp_dt_node_path(dtb, node, m->path, sizeof(m->path));
	if (rc)
		return rc;
	status = fdt_getprop(fdt, node, "status", &len);
	if (status && len > 0 && status[len - 1] == '\0')
		snprintf(m->status, sizeof(m->status), "%s", status);
	else
		snprintf(m->status, sizeof(m->status), "okay");

	fdt_for_each_property_offset(prop, fdt, node) {
		struct imgp_dt_mmc_prop *mp;
		const char *name;
		const void *val;

		val = fdt_getprop_by_offset(fdt, prop, &name, &len);
		if (!val || !name)
			return imgp_fail(EINVAL, "%s: %s", m->path, fdt_strerror(len));
		if (!dt_is_speed_prop(name))
			continue;
		if (m->nprops == maxprops) {
			imgp_warn("%s: more than %zu speed properties, '%s' not listed",
				  m->path, maxprops, name);
			continue;
		}
		mp = &m->props[m->nprops++];
		snprintf(mp->name, sizeof(mp->name), "%s", name);
		/* A value too long to show is cut with "...": fine for a listing. */
		rc = imgp_dt_format_value(val, len, mp->value, sizeof(mp->value));
		if (rc && rc != -ENOSPC)
			return rc;
	}
	return 0;
}

int imgp_dt_list_mmc(const struct imgp_dtb *dtb, struct imgp_dt_mmc *out,
		     size_t max)
{
	const void *fdt = dtb->fdt;
	size_t n = 0;
	int node, rc;

	if (max > INT_MAX)
		max = INT_MAX;
	for (node = fdt_next_node(fdt, -1, NULL); node >= 0;
	     node = fdt_next_node(fdt, node, NULL)) {
		if (!dt_is_mmc(fdt, node))
			continue;
		if (n == max) {
			imgp_warn("more than %zu SD/eMMC controllers, listing the first %zu",
				  max, max);
			return (int)n;
		}
		rc = dt_fill_mmc(dtb, node, &out[n]);
		if (rc)
			return rc;
		n++;
	}
	if (node != -FDT_ERR_NOTFOUND)
		return dt_walk_error(node);
	return (int)n;
}

/* ------------------------------------------------------------- editing */

/*
 * Makes room for at least extra more bytes. Offsets stay valid: the blocks
 * keep their order and the structure block does not move.
 */
static int dt_grow(struct imgp_dtb *dtb, size_t extra)
{
	size_t size;
	void *fdt;
	int rc;

	/* libfdt sizes are ints. */
	if (extra > (size_t)INT_MAX - DT_SLACK ||
	    dtb->bufsize > (size_t)INT_MAX - DT_SLACK - extra)
		return imgp_fail(EFBIG, "device tree would grow past %d bytes",
				 INT_MAX);
	size = dtb->bufsize + extra + DT_SLACK;
	fdt = realloc(dtb->fdt, size);
	if (!fdt)
		return imgp_fail(ENOMEM, "out of memory");
	dtb->fdt = fdt;
	rc = fdt_open_into(fdt, fdt, (int)size);
	if (rc)
		return imgp_fail(EINVAL, "cannot grow device tree: %s",
				 fdt_strerror(rc));
	dtb->bufsize = size;
	return 0;
}

/* The characters dtc source allows in property names. */
static bool dt_prop_name_ok(const char *name)
{
	return *name && strspn(name, "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789,._+*#?@-") == strlen(name);
}

int imgp_dt_set_prop(struct imgp_dtb *dtb, int node, const char *prop,
		     const void *val, size_t len)
{
	int rc;

	if (!dt_prop_name_ok(prop))
		return imgp_fail(EINVAL, "bad property name '%s'", prop);
	if (len > (size_t)INT_MAX - DT_SLACK)
		return imgp_fail(EFBIG, "property '%s' is too large (%zu bytes)",
				 prop, len);
	rc = fdt_setprop(dtb->fdt, node, prop, val, (int)len);
	if (rc == -FDT_ERR_NOSPACE) {
		/* The value, the name in the strings block, the tag and length. */
		rc = dt_grow(dtb, len + strlen(prop) + 1 + 16);
		if (rc)
			return imgp_fail_ctx(rc, "property '%s'", prop);
		rc = fdt_setprop(dtb->fdt, node, prop, val, (int)len);
	}
	if (rc)
		return imgp_fail(EINVAL, "cannot set property '%s': %s", prop,
				 fdt_strerror(rc));
	return 0;
}

/*
 * A node name as the devicetree specification spells it: name[@unit],
 * both parts from [A-Za-z0-9,._+-], the name not empty.
 */
static bool dt_node_name_ok(const char *name, size_t len)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,._+-";
	size_t i, at = len;

	for (i = 0; i < len; i++) {
		if (name[i] == '@' && at == len)
			at = i;
		else if (!name[i] || !strchr(ok, name[i]))
			return false;
	}
	return at > 0;
}

/*
 * The subnode with exactly this name. libfdt's lookup lets "mmc" match
 * "mmc@ff160000", which would make add_node() skip creating "mmc".
 */
static int dt_subnode_exact(const void *fdt, int parent, const char *name,
			    size_t len)
{
	const char *n;
	int child, nlen;

	fdt_for_each_subnode(child, fdt, parent) {
		n = fdt_get_name(fdt, child, &nlen);
		if (n && (size_t)nlen == len && !memcmp(n, name, len))
			return child;
	}
	return child;
}

int imgp_dt_add_node(struct imgp_dtb *dtb, const char *path)
{
	const char *p = path;
	int node = 0, child;
	size_t n;
	int rc;

	if (path[0] != '/')
		return imgp_fail(EINVAL, "node path '%s' must start with '/'", path);
	for (;;) {
		p += strspn(p, "/");
		if (!*p)
			return node;
		n = strcspn(p, "/");
		if (n > INT_MAX || !dt_node_name_ok(p, n))
			return imgp_fail(EINVAL, "node path '%s': bad node name '%.*s'",
					 path, (int)(n > INT_MAX ? INT_MAX : n), p);
		child = dt_subnode_exact(dtb->fdt, node, p, n);
		if (child == -FDT_ERR_NOTFOUND) {
			child = fdt_add_subnode_namelen(dtb->fdt, node, p, (int)n);
			if (child == -FDT_ERR_NOSPACE) {
				/* The name padded to 4 bytes, begin and end tags. */
				rc = dt_grow(dtb, n + 16);
				if (rc)
					return imgp_fail_ctx(rc, "node '%s'", path);
				child = fdt_add_subnode_namelen(dtb->fdt, node, p,
								(int)n);
			}
			if (child == -FDT_ERR_EXISTS)
				return imgp_fail(EEXIST,
						 "cannot add node '%s': a sibling named '%.*s@...' is in the way (libfdt cannot tell them apart)",
						 path, (int)n, p);
		}
		if (child < 0)
			return imgp_fail(EINVAL, "cannot add node '%s': %s", path,
					 fdt_strerror(child));
		node = child;
		p += n;
	}
}

int imgp_dt_delete_node(struct imgp_dtb *dtb, int node)
{
	int rc;

	if (node == 0)
		return imgp_fail(EINVAL, "cannot delete the root node");
	rc = fdt_del_node(dtb->fdt, node);
	if (rc)
		return imgp_fail(rc == -FDT_ERR_NOTFOUND ? ENOENT : EINVAL,
				 "cannot delete the node at offset %d: %s", node,
				 fdt_strerror(rc));
	return 0;
}

/* ------------------------------------------------------------- parsing */

struct dt_parse {
	const char *text;        /* the whole value, for messages */
	const char *p;
	struct imgp_buf *out;
};

static int dt_bad(const struct dt_parse *ps, const char *fmt, ...)
	IMGP_PRINTF(2, 3);
static int dt_bad(const struct dt_parse *ps, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return imgp_fail(EINVAL, "bad property value '%s': %s", ps->text, why);
}

static void dt_skip_space(struct dt_parse *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
	       *ps->p == '\r')
		ps->p++;
}

static int dt_out_bytes(struct dt_parse *ps, const void *data, size_t len)
{
	if (imgp_buf_append(ps->out, data, len))
		return imgp_fail(ENOMEM, "out of memory");
	return 0;
}

static int dt_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One cell: decimal or 0x hex, at most 32 bits. */
static int dt_parse_cell(struct dt_parse *ps, const char *tok, size_t len)
{
	uint64_t v = 0;
	uint8_t be[4];
	size_t i = 0;
	int base = 10, d;

	if (len > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (len > 1 && tok[0] == '0' && tok[1] >= '0' && tok[1] <= '9') {
		/* dtc reads a leading 0 as octal: refuse rather than guess. */
		return dt_bad(ps, "'%.*s' has a leading zero (octal in dtc): write it in decimal or 0x hex",
			      (int)len, tok);
	}
	for (; i < len; i++) {
		d = dt_hexval(tok[i]);
		if (d < 0 || d >= base)
			return dt_bad(ps, "'%.*s' is not a number", (int)len, tok);
		v = v * (unsigned)base + (unsigned)d;
		if (v > UINT32_MAX)
			return dt_bad(ps, "'%.*s' does not fit in 32 bits",
				      (int)len, tok);
	}
	be[0] = (uint8_t)(v >> 24);
	be[1] = (uint8_t)(v >> 16);
	be[2] = (uint8_t)(v >> 8);
	be[3] = (uint8_t)v;
	return dt_out_bytes(ps, be, sizeof(be));
}

static int dt_parse_cells(struct dt_parse *ps)
{
	const char *tok;
	size_t len;
	int rc;

	ps->p++;
	for (;;) {
		dt_skip_space(ps);
		if (*ps->p == '>') {
			ps->p++;
			return 0;
		}
		if (!*ps->p)
			return dt_bad(ps, "missing '>'");
		tok = ps->p;
		len = strcspn(tok, " \t\r\n>");
		ps->p += len;
		rc = dt_parse_cell(ps, tok, len);
		if (rc)
			return rc;
	}
}

static int dt_parse_string(struct dt_parse *ps)
{
	char c;
	int rc;

	ps->p++;
	for (;;) {
		c = *ps->p++;
		if (!c)
			return dt_bad(ps, "missing closing '\"'");
		if (c == '"')
			break;
		if (c == '\\') {
			switch (*ps->p) {
			case '"':
			case '\\':
				c = *ps->p;
				break;
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			default:
				return dt_bad(ps, "unknown escape '\\%c' (known: \\\" \\\\ \\n \\t)",
					      *ps->p ? *ps->p : ' ');
			}
			ps->p++;
		}
		rc = dt_out_bytes(ps, &c, 1);
		if (rc)
			return rc;
	}
	return dt_out_bytes(ps, "", 1);
}

/* "[01 02 ab]" or, as dtc also takes it, "[0102ab]". */
static int dt_parse_bytes(struct dt_parse *ps)
{
	uint8_t byte;
	int hi, lo, rc;

	ps->p++;
	for (;;) {
		dt_skip_space(ps);
		if (*ps->p == ']') {
			ps->p++;
			return 0;
		}
		if (!*ps->p)
			return dt_bad(ps, "missing ']'");
		hi = dt_hexval(ps->p[0]);
		lo = hi < 0 ? -1 : dt_hexval(ps->p[1]);
		if (lo < 0)
			return dt_bad(ps, "'%.*s' is not a byte (two hex digits)",
				      (int)strcspn(ps->p, " \t\r\n]"), ps->p);
		byte = (uint8_t)(hi << 4 | lo);
		ps->p += 2;
		rc = dt_out_bytes(ps, &byte, 1);
		if (rc)
			return rc;
	}
}

/* A whole value that is not in dtc syntax: the text as one string. */
static int dt_parse_word(struct dt_parse *ps)
{
	size_t len = strlen(ps->p);
	int rc;

	if (ps->p[0] == '&')
		return dt_bad(ps, "references to labels are not supported: give the phandle as <0x..>");
	if (!strncmp(ps->p, "/bits/", 6))
		return dt_bad(ps, "/bits/ is not supported: give 32-bit cells <..> or bytes [..]");
	while (len && strchr(" \t\r\n", ps->p[len - 1]))
		len--;
	/* A bare number is one cell, as the contract says: max-frequency=150000000. */
	if (len && ps->p[0] >= '0' && ps->p[0] <= '9') {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(ps->p, &end, 0);
		if ((size_t)(end - ps->p) == len && !errno && v <= UINT32_MAX &&
		    !(ps->p[0] == '0' && len > 1 && ps->p[1] != 'x' && ps->p[1] != 'X')) {
			fdt32_t cell = cpu_to_fdt32((uint32_t)v);

			return dt_out_bytes(ps, &cell, sizeof(cell));
		}
	}
	if (memchr(ps->p, '"', len))
		return dt_bad(ps, "a string with '\"' in it must be quoted");
	rc = dt_out_bytes(ps, ps->p, len);
	return rc ? rc : dt_out_bytes(ps, "", 1);
}

int imgp_dt_parse_value(const char *text, struct imgp_buf *out)
{
	struct dt_parse ps = { text, text, out };
	size_t old_len = out->len;
	int rc = 0;

	dt_skip_space(&ps);
	if (!*ps.p)
		return dt_out_bytes(&ps, "", 0);
	if (!strchr("\"<[", *ps.p)) {
		rc = dt_parse_word(&ps);
		goto out;
	}
	/* A list of pieces, each "string", <cells> or [bytes], joined by ','. */
	for (;;) {
		switch (*ps.p) {
		case '"':
			rc = dt_parse_string(&ps);
			break;
		case '<':
			rc = dt_parse_cells(&ps);
			break;
		case '[':
			rc = dt_parse_bytes(&ps);
			break;
		case '\0':
			rc = dt_bad(&ps, "nothing after ','");
			break;
		default:
			rc = dt_bad(&ps, "unexpected '%c': expected \"string\", <cells> or [bytes]",
				    *ps.p);
		}
		if (rc)
			break;
		dt_skip_space(&ps);
		if (!*ps.p)
			break;
		if (*ps.p != ',') {
			rc = dt_bad(&ps, "unexpected '%c' after a value: separate values with ','",
				    *ps.p);
			break;
		}
		ps.p++;
		dt_skip_space(&ps);
	}
out:
	if (rc) {
		out->len = old_len;
		if (out->data)
			out->data[old_len] = '\0';
	}
	return rc;
}

/* ------------------------------------------------------------- overlays */

/*
 * "fragment@0" from a __fixups__ entry "/fragment@0/__overlay__/x:clocks:4":
 * the first component of the path.
 */
static int dt_fixup_fragment(const char *entry, struct imgp_buf *frags)
{
	const char *name = entry + strspn(entry, "/");
	size_t len = strcspn(name, "/:");
	const char *p, *end;

	if (!len)
		return 0;
	/* One mention per fragment, however many properties use the label. */
	p = frags->data ? (const char *)frags->data : "";
	for (end = p + frags->len; p < end;) {
		size_t n = strcspn(p, ",");

		if (n == len && !memcmp(p, name, len))
			return 0;
		p += n + 2;
	}
	return imgp_buf_printf(frags, "%s%.*s", frags->len ? ", " : "",
			       (int)len, name);
}

/*
 * libfdt reports a label the base lacks as a bare FDT_ERR_NOTFOUND, after
 * it has half-modified both trees; check them up front and name the labels.
 */
static int dt_check_fixups(const void *base, const void *ovl)
{
	struct imgp_buf msg = { 0 }, frags = { 0 };
	const char *label, *val, *p, *end;
	int fix, sym, prop, len, missing = 0, err = 0, rc;

	fix = fdt_path_offset(ovl, "/__fixups__");
	if (fix == -FDT_ERR_NOTFOUND)
		return 0;
	if (fix < 0)
		return imgp_fail(EINVAL, "broken overlay: %s", fdt_strerror(fix));
	if (fdt_first_property_offset(ovl, fix) < 0)
		return 0;
	sym = fdt_path_offset(base, "/__symbols__");
	if (sym < 0)
		return imgp_fail(EINVAL, "the base tree has no __symbols__ (compile it with dtc -@)");

	fdt_for_each_property_offset(prop, ovl, fix) {
		val = fdt_getprop_by_offset(ovl, prop, &label, &len);
		if (!val || !label)
			return imgp_fail(EINVAL, "broken overlay: %s", fdt_strerror(len));
		if (fdt_getprop(base, sym, label, NULL))
			continue;
		frags.len = 0;
		if (len > 0 && val[len - 1] == '\0')
			for (p = val, end = val + len; p < end && !err;
			     p += strlen(p) + 1)
				err = dt_fixup_fragment(p, &frags);
		if (!err)
			err = imgp_buf_printf(&msg, "%s'%s'", missing ? ", " : "",
					      label);
		if (!err && frags.len)
			err = imgp_buf_printf(&msg, " (overlay %s)",
					      (const char *)frags.data);
		missing++;
	}
	if (err)
		rc = imgp_fail(ENOMEM, "out of memory");
	else if (missing)
		rc = imgp_fail(EINVAL, "unresolved label%s %s", missing > 1 ? "s" : "",
			       (const char *)msg.data);
	else
		rc = 0;
	imgp_buf_free(&msg);
	imgp_buf_free(&frags);
	return rc;
}

/* A tree without a single fragment would "apply" as a silent no-op. */
static int dt_check_fragments(const void *ovl)
{
	int frag;

	fdt_for_each_subnode(frag, ovl, 0)
		if (fdt_subnode_offset(ovl, frag, "__overlay__") >= 0)
			return 0;
	return imgp_fail(EINVAL, "not an overlay: no fragment has an __overlay__ node (compile it from a /plugin/; source)");
}

/* After a failed apply: a target-path the base lacks is the usual reason. */
static int dt_explain_overlay(const void *base, const void *ovl, int err)
{
	const char *path, *name;
	int frag, len;

	fdt_for_each_subnode(frag, ovl, 0) {
		path = fdt_getprop(ovl, frag, "target-path", &len);
		if (!path || len < 1 || path[len - 1] != '\0')
			continue;
		if (fdt_path_offset(base, path) >= 0)
			continue;
		name = fdt_get_name(ovl, frag, NULL);
		return imgp_fail(ENOENT, "overlay %s: target-path '%s' is not in the base tree",
				 name ? name : "?", path);
	}
	return imgp_fail(EINVAL, "cannot apply the overlay: %s", fdt_strerror(err));
}

int imgp_dt_apply_overlay(struct imgp_dtb *dtb, const void *overlay,
			  size_t len)
{
	void *ovl = NULL, *ovl_work = NULL, *base = NULL;
	size_t olen, size;
	int rc, tries;

	if (len < sizeof(struct fdt_header))
		return imgp_fail(EINVAL, "overlay is not a device tree blob: only %zu bytes",
				 len);
	if (len > INT_MAX / 4)
		return imgp_fail(EFBIG, "overlay is too large (%zu bytes)", len);
	/* libfdt wants 8-byte alignment; the caller's bytes may lack it. */
	ovl = malloc(len);
	if (!ovl)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(ovl, overlay, len);
	rc = fdt_check_header(ovl);
	if (rc) {
		rc = imgp_fail(EINVAL, "overlay is not a device tree blob: %s",
			       fdt_strerror(rc));
		goto out;
	}
	olen = fdt_totalsize(ovl);
	if (olen > len) {
		rc = imgp_fail(EINVAL, "overlay is %zu bytes but only %zu are there (truncated?)",
			       olen, len);
		goto out;
	}
	rc = fdt_check_full(ovl, olen);
	if (rc) {
		rc = imgp_fail(EINVAL, "broken overlay: %s", fdt_strerror(rc));
		goto out;
	}
	rc = dt_check_fragments(ovl);
	if (!rc)
		rc = dt_check_fixups(dtb->fdt, ovl);
	if (rc)
		goto out;

	/*
	 * fdt_overlay_apply() changes both trees and leaves them corrupt when
	 * it fails, so it works on copies; room for the whole overlay is
	 * nearly always enough, more is tried a few times.
	 */
	size = fdt_totalsize(dtb->fdt) + olen + DT_SLACK;
	ovl_work = malloc(olen);
	if (!ovl_work) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (tries = 0;; tries++) {
		if (size > INT_MAX) {
			rc = imgp_fail(EFBIG, "device tree would grow past %d bytes",
				       INT_MAX);
			goto out;
		}
		base = malloc(size);
		if (!base) {
			rc = imgp_fail(ENOMEM, "out of memory");
			goto out;
		}
		rc = fdt_open_into(dtb->fdt, base, (int)size);
		if (rc) {
			rc = imgp_fail(EINVAL, "cannot open device tree: %s",
				       fdt_strerror(rc));
			goto out;
		}
		memcpy(ovl_work, ovl, olen);
		rc = fdt_overlay_apply(base, ovl_work);
		if (rc != -FDT_ERR_NOSPACE || tries == 3)
			break;
		free(base);
		base = NULL;
		size *= 2;
	}
	if (rc) {
		rc = dt_explain_overlay(dtb->fdt, ovl, rc);
		goto out;
	}
	free(dtb->fdt);
	dtb->fdt = base;
	dtb->bufsize = size;
	base = NULL;
out:
	free(base);
	free(ovl_work);
	free(ovl);
	return rc;
}

/* ------------------------------------------------------------- source */

/*
 * A value as dtc 1.6 decompiles it: the whole property is one string (its
 * inner NULs as "\0"), cells or bytes, by the same guess as dtc makes.
 */
static int dts_put_value(struct imgp_buf *b, const uint8_t *p, int len)
{
	static const char esc_from[] = "\a\b\t\n\v\f\r\\\"";
	static const char esc_to[] = "abtnvfr\\\"";
	const char *e;
	int i, rc = 0;

	if (len == 0)
		return imgp_buf_append(b, ";\n", 2);
	if (dt_looks_like_strings(p, len)) {
		rc = imgp_buf_append(b, " = \"", 4);
		for (i = 0; !rc && i < len - 1; i++) {
			e = p[i] ? strchr(esc_from, p[i]) : NULL;
			if (!p[i])
				rc = imgp_buf_append(b, "\\0", 2);
			else if (e)
				rc = imgp_buf_printf(b, "\\%c", esc_to[e - esc_from]);
			else
				rc = imgp_buf_append(b, &p[i], 1);
		}
		if (!rc)
			rc = imgp_buf_append(b, "\";\n", 3);
	} else if (len % 4 == 0) {
		rc = imgp_buf_append(b, " = <", 4);
		for (i = 0; !rc && i < len; i += 4)
			rc = imgp_buf_printf(b, "%s0x%02x", i ? " " : "",
					     fdt32_ld((const fdt32_t *)(p + i)));
		if (!rc)
			rc = imgp_buf_append(b, ">;\n", 3);
	} else {
		rc = imgp_buf_append(b, " = [", 4);
		for (i = 0; !rc && i < len; i++)
			rc = imgp_buf_printf(b, "%s%02x", i ? " " : "", p[i]);
		if (!rc)
			rc = imgp_buf_append(b, "];\n", 3);
	}
	return rc;
}

static int dts_indent(struct imgp_buf *b, int depth)
{
	int rc = 0;

	while (!rc && depth-- > 0)
		rc = imgp_buf_append(b, "\t", 1);
	return rc;
}

static int dts_put_node(struct imgp_buf *b, const void *fdt, int node,
			int depth)
{
	const char *name, *val;
	int prop, len, rc;

	name = fdt_get_name(fdt, node, &len);
	if (!name)
		return imgp_fail(EINVAL, "broken device tree: %s", fdt_strerror(len));
	/* dtc sets every subnode apart from what comes before it. */
	rc = depth ? imgp_buf_append(b, "\n", 1) : 0;
	if (!rc)
		rc = dts_indent(b, depth);
	if (!rc)
		rc = imgp_buf_printf(b, "%s {\n", *name ? name : "/");
	fdt_for_each_property_offset(prop, fdt, node) {
		if (rc)
			return rc;
		val = fdt_getprop_by_offset(fdt, prop, &name, &len);
		if (!val || !name)
			return imgp_fail(EINVAL, "broken device tree: %s",
					 fdt_strerror(len));
		rc = dts_indent(b, depth + 1);
		if (!rc)
			rc = imgp_buf_append(b, name, strlen(name));
		if (!rc)
			rc = dts_put_value(b, (const uint8_t *)val, len);
	}
	if (!rc && prop != -FDT_ERR_NOTFOUND)
		return imgp_fail(EINVAL, "broken device tree: %s", fdt_strerror(prop));
	return rc;
}

static int dts_close_node(struct imgp_buf *b, int depth)
{
	int rc = dts_indent(b, depth);

	return rc ? rc : imgp_buf_append(b, "};\n", 3);
}

int imgp_dt_to_dts(const struct imgp_dtb *dtb, struct imgp_buf *out)
{
	const void *fdt = dtb->fdt;
	size_t old_len = out->len;
	uint64_t addr, size;
	int node, depth = 0, open = -1, n, i, rc;

	rc = imgp_buf_printf(out, "/dts-v1/;\n\n");
	n = fdt_num_mem_rsv(fdt);
	if (n < 0) {
		rc = imgp_fail(EINVAL, "broken device tree: %s", fdt_strerror(n));
		goto out;
	}
	for (i = 0; !rc && i < n; i++) {
		rc = fdt_get_mem_rsv(fdt, i, &addr, &size);
		if (rc) {
			rc = imgp_fail(EINVAL, "broken device tree: %s",
				       fdt_strerror(rc));
			goto out;
		}
		rc = imgp_buf_printf(out, "/memreserve/\t0x%016" PRIx64 " 0x%016" PRIx64 ";\n",
				     addr, size);
	}
	/*
	 * Iterative rather than recursive: a tree from an image can nest as
	 * deep as it likes. After the root closes, fdt_next_node() returns
	 * an offset with depth -1.
	 */
	for (node = 0; !rc && node >= 0 && depth >= 0;
	     node = fdt_next_node(fdt, node, &depth)) {
		for (; !rc && open >= depth; open--)
			rc = dts_close_node(out, open);
		if (!rc)
			rc = dts_put_node(out, fdt, node, depth);
		open = depth;
	}
	if (!rc && node < 0 && node != -FDT_ERR_NOTFOUND)
		rc = imgp_fail(EINVAL, "broken device tree: %s", fdt_strerror(node));
	for (; !rc && open >= 0; open--)
		rc = dts_close_node(out, open);
out:
	if (rc == -ENOMEM)
		rc = imgp_fail(ENOMEM, "out of memory");
	if (rc) {
		out->len = old_len;
		if (out->data)
			out->data[old_len] = '\0';
	}
	return rc;
}
