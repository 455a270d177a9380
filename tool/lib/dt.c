// SPDX-License-Identifier: MIT
/*
 * Device tree blobs: loading into a buffer that can be edited, resolving the
 * node specs users type, formatting values as dtc does, and listing the
 * SD/eMMC controllers whose properties limit the bus speed.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "imgpatch.h"

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

static bool dt_node_matches(const void *fdt, int node, const char *spec,
			    enum dt_how how)
{
	char path[DT_PATH_MAX];
	const char *name;

	switch (how) {
	case DT_PATH:
		return fdt_get_path(fdt, node, path, sizeof(path)) == 0 &&
			dt_path_matches(spec, path);
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

static int dt_find_label(const void *fdt, const char *label)
{
	struct imgp_buf b = { 0 };
	const char *path;
	int sym, node, prop, len, rc = 0;

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
	/* Not there: suggest the labels that name SD/eMMC controllers. */
	fdt_for_each_property_offset(prop, fdt, sym) {
		const char *name;

		path = fdt_getprop_by_offset(fdt, prop, &name, &len);
		if (!path || len < 1 || path[len - 1] != '\0')
			continue;
		node = fdt_path_offset(fdt, path);
		if (node >= 0 && dt_is_mmc(fdt, node) && !rc)
			rc = imgp_buf_printf(&b, "%s&%s", b.len ? ", " : "", name);
	}
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
	const char *base;
	enum dt_how how;
	int node, rc;

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

	for (node = fdt_next_node(fdt, -1, NULL); node >= 0;
	     node = fdt_next_node(fdt, node, NULL))
		if (dt_node_matches(fdt, node, spec, how))
			dt_list_add(fdt, node, &l);
	if (node != -FDT_ERR_NOTFOUND) {
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
