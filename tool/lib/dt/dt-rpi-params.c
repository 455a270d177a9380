// SPDX-License-Identifier: MIT
/*
 * The Raspberry Pi firmware's device tree parameters. A tree's
 * /__overrides__ node names the parameters a dtparam= line (the base
 * tree's) or a dtoverlay= line (the overlay's) may set; each property is a
 * list of targets, a phandle and a string each:
 *
 *   <&node>,"prop"              the value as a string ("status": on/off
 *                               become "okay"/"disabled")
 *   <&node>,"prop:N"            a 32-bit cell at byte N (".N" 8, ";N" 16,
 *                               "#N" 64 bits); a short property grows
 *   <&node>,"prop?"             a boolean: present when the value is true
 *                               ("prop!": present when false)
 *   <&node>,"prop["             a byte string from hex digits
 *   <&node>,"prop:N=lit"        the literal instead of the value; an empty
 *                               one takes the cell (or, for a string, the
 *                               string: a label's path) that follows
 *   <&node>,"prop{a=x,b,=d}"    the value looked up: x for a, b for b, d
 *                               for anything else
 *   <0>,"+N-N=N!N"              fragment N of the overlay enabled,
 *                               disabled, or by the (inverted) value:
 *                               __dormant__ and __overlay__ swap names
 *
 * The semantics are the firmware's as Raspberry Pi's dtmerge applies them
 * offline (its tests keep dtmerge's results). A parameter no tree names, or
 * a value that does not parse, is ignored with a message in the firmware's
 * log; here it is a warning, and the line goes on.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "dt-internal.h"
#include "dt-rpi.h"
#include "core/core.h"
#include "dt/dt.h"

/* ------------------------------------------------- trees that grow */

int imgp_rpi_tree_load_(struct rpi_tree *t, const void *blob, size_t len,
		  const char *what)
{
	size_t total;
	int rc;

	t->fdt = NULL;
	t->size = 0;
	t->what = what;
	if (len < sizeof(struct fdt_header))
		return imgp_fail(EINVAL, "%s is not a device tree blob: only %zu bytes",
				 what, len);
	/* libfdt wants the blob aligned; the caller's bytes may not be. */
	total = fdt_totalsize(blob);
	if (total > len)
		return imgp_fail(EINVAL, "%s is %zu bytes but only %zu are there (truncated?)",
				 what, total, len);
	if (total > INT_MAX / 4)
		return imgp_fail(EFBIG, "%s is too large (%zu bytes)", what, total);
	t->size = total + DT_SLACK;
	t->fdt = malloc(t->size);
	if (!t->fdt)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(t->fdt, blob, total);
	rc = fdt_check_header(t->fdt);
	if (!rc)
		rc = imgp_fdt_check_full_(t->fdt, total);
	if (!rc)
		rc = fdt_open_into(t->fdt, t->fdt, (int)t->size);
	if (rc) {
		rc = imgp_fail(EINVAL, "%s is not a valid device tree blob: %s",
			       what, fdt_strerror(rc));
		imgp_rpi_tree_free_(t);
	}
	return rc;
}

int imgp_rpi_tree_copy_(struct rpi_tree *dst, const struct rpi_tree *src)
{
	dst->fdt = malloc(src->size);
	if (!dst->fdt)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(dst->fdt, src->fdt, src->size);
	dst->size = src->size;
	dst->what = src->what;
	return 0;
}

void imgp_rpi_tree_free_(struct rpi_tree *t)
{
	free(t->fdt);
	t->fdt = NULL;
	t->size = 0;
}

int imgp_rpi_tree_fail_(const struct rpi_tree *t, int err)
{
	return imgp_fail(EINVAL, "%s: %s", t->what, fdt_strerror(err));
}

/*
 * Room for need more bytes. Node and property offsets stay valid: the
 * structure block keeps its place, only the strings after it move.
 */
static int rpi_tree_grow(struct rpi_tree *t, size_t need)
{
	size_t size = t->size + need + DT_SLACK;
	void *p;
	int rc;

	if (size > INT_MAX / 2)
		return imgp_fail(EFBIG, "%s would grow past %d bytes", t->what,
				 INT_MAX / 2);
	p = realloc(t->fdt, size);
	if (!p)
		return imgp_fail(ENOMEM, "out of memory");
	t->fdt = p;
	t->size = size;
	rc = fdt_open_into(p, p, (int)size);
	return rc ? imgp_rpi_tree_fail_(t, rc) : 0;
}

int imgp_rpi_setprop_(struct rpi_tree *t, int node, const char *name,
		const void *val, int len)
{
	int rc;

	while ((rc = fdt_setprop(t->fdt, node, name, val, len)) == -FDT_ERR_NOSPACE) {
		rc = rpi_tree_grow(t, (size_t)len + strlen(name) + 16);
		if (rc)
			return rc;
	}
	return rc ? imgp_rpi_tree_fail_(t, rc) : 0;
}

int imgp_rpi_delprop_(struct rpi_tree *t, int node, const char *name)
{
	int rc = fdt_delprop(t->fdt, node, name);

	return rc && rc != -FDT_ERR_NOTFOUND ? imgp_rpi_tree_fail_(t, rc) : 0;
}

int imgp_rpi_add_subnode_(struct rpi_tree *t, int parent, const char *name, int len)
{
	int rc;

	while ((rc = fdt_add_subnode_namelen(t->fdt, parent, name, len)) ==
	       -FDT_ERR_NOSPACE) {
		rc = rpi_tree_grow(t, (size_t)len + 16);
		if (rc)
			return rc;
	}
	return rc < 0 ? imgp_rpi_tree_fail_(t, rc) : rc;
}

int imgp_rpi_set_name_(struct rpi_tree *t, int node, const char *name)
{
	int rc;

	while ((rc = fdt_set_name(t->fdt, node, name)) == -FDT_ERR_NOSPACE) {
		rc = rpi_tree_grow(t, strlen(name) + 8);
		if (rc)
			return rc;
	}
	return rc ? imgp_rpi_tree_fail_(t, rc) : 0;
}

uint32_t imgp_rpi_max_phandle_(const void *fdt)
{
	uint32_t max = 0;

	if (fdt_find_max_phandle(fdt, &max))
		return 0;
	return max;
}

/* ------------------------------------------------------ parameters */

/*
 * A cell target's offset into its property: cells sit a few bytes in; one
 * past this would have the property grown to its size (up to 2 GiB).
 */
#define RPI_CELL_OFFSET_MAX (1 << 20)

/* What a target changes. */
enum rpi_kind {
	RPI_END,                 /* no more targets */
	RPI_STRING,
	RPI_CELL,                /* an integer of width bytes at offset */
	RPI_BOOL,
	RPI_BOOL_INV,
	RPI_BYTES,
	RPI_FRAGMENTS,           /* prop holds "+N-N=N!N" */
};

/* One target of a parameter, read from the __overrides__ data. */
struct rpi_target {
	enum rpi_kind kind;
	uint32_t phandle;
	char *prop;
	int offset, width;
	struct imgp_buf value;   /* what is assigned, NUL-terminated */
};

static int rpi_malformed(const char *param, const char *problem)
{
	return imgp_fail(EINVAL, "__overrides__ of parameter '%s' is malformed: %s",
			 param, problem);
}

static int rpi_value_set(struct imgp_buf *value, const char *s, size_t len)
{
	value->len = 0;
	if (imgp_buf_append(value, s, len) || imgp_buf_append(value, "", 1))
		return imgp_fail(ENOMEM, "out of memory");
	return 0;
}

/*
 * One immediate of a lookup at p: 'quoted', bare up to ',' or '}', or a
 * cell (the string ends and four bytes follow). Into out unless NULL.
 * Returns what follows it, or NULL when it is malformed.
 */
static const char *rpi_immediate(const char *p, const char *end,
				 struct imgp_buf *out, int *rc)
{
	char cell[16];
	size_t len;

	*rc = 0;
	if (p + 1 < end && !*p) {
		if (p + 5 > end)
			return NULL;
		/* dtmerge prints a looked-up cell signed, a literal one unsigned. */
		snprintf(cell, sizeof(cell), "%d", (int32_t)fdt32_ld((const fdt32_t *)(p + 1)));
		if (out)
			*rc = rpi_value_set(out, cell, strlen(cell));
		return p + 5;
	}
	if (*p == '\'') {
		p++;
		len = strcspn(p, "'");
		if (!p[len])
			return NULL;
		if (out)
			*rc = rpi_value_set(out, p, len);
		p += len + 1;
	} else {
		len = strcspn(p, ",}");
		if (out)
			*rc = rpi_value_set(out, p, len);
		p += len;
	}
	return *p == ',' ? p + 1 : p;
}

/*
 * "prop{a=x,b,=d}": tg->value looked up in the table at p; *next is moved
 * past the table (its cells may run past the string). A key without a
 * value gives the key itself; the empty key gives the default.
 */
static int rpi_lookup(const char *param, const char *p, const char *end,
		      const char **next, struct rpi_target *tg)
{
	char *key = strdup((const char *)tg->value.data);
	int found = 0, rc = 0;

	if (!key)
		return imgp_fail(ENOMEM, "out of memory");
	while (!rc && p < end && *p && *p != '}') {
		size_t len = strcspn(p, "=,}");
		char sep = p[len];
		bool take = false;

		if (!len) {
			take = sep && !found;
			found = take ? 2 : found;
		} else if (found != 1 && len == strlen(key) && !memcmp(p, key, len)) {
			take = true;
			found = 1;
		}
		p += len;
		if (sep == '=') {
			p = rpi_immediate(p + 1, end, take ? &tg->value : NULL, &rc);
			if (!p && !rc)
				rc = rpi_malformed(param, "a lookup value is cut short");
		} else {
			if (take)
				rc = rpi_value_set(&tg->value, key, strlen(key));
			if (sep == ',')
				p++;
		}
	}
	if (!rc && !found) {
		imgp_fail(EINVAL, "parameter '%s': no match for '%s' in its lookup table",
			  param, key);
		rc = RPI_IGNORED;
	}
	free(key);
	if (rc)
		return rc;
	if (p == end) {
		*next = p;
		return 0;
	}
	if (*p != '}' || p + 1 >= end || p[1])
		return rpi_malformed(param, "a lookup table without its '}'");
	*next = p + 2;
	return 0;
}

/* The literal of "prop=lit" (or the cell or string after it) as tg->value. */
static int rpi_literal(const char *param, const char *lit, const char **next,
		       const char *end, struct rpi_target *tg)
{
	const char *nul;
	char cell[16];

	if (tg->kind == RPI_STRING || tg->kind == RPI_BYTES || *lit) {
		if (tg->kind != RPI_STRING || *lit)
			return rpi_value_set(&tg->value, lit, strlen(lit));
		/* "prop=",&label: dtc writes the label's path as the next string. */
		if (*next == end)
			return rpi_value_set(&tg->value, "", 0);
		nul = memchr(*next, '\0', (size_t)(end - *next));
		if (!nul)
			return rpi_malformed(param, "a string without its NUL");
		lit = *next;
		*next = nul + 1;
		return rpi_value_set(&tg->value, lit, (size_t)(nul - lit));
	}
	if (end - *next < 4)
		return rpi_malformed(param, "a cell literal is cut short");
	snprintf(cell, sizeof(cell), "%u", fdt32_ld((const fdt32_t *)*next));
	*next += 4;
	return rpi_value_set(&tg->value, cell, strlen(cell));
}

/*
 * Reads the target at *p (data ends at end) of parameter param set to
 * value into tg (kind RPI_END past the last). Returns 0, RPI_IGNORED or
 * -errno.
 */
static int rpi_target_read(const char *param, const char *value,
			   const char **p, const char *end,
			   struct rpi_target *tg)
{
	static const char seps[] = ".;:#?![{=";
	const char *spec, *nul, *lit = NULL;
	size_t len, name_len, target_len;
	char lit_type = 0;
	int rc;

	tg->kind = RPI_END;
	if (*p >= end)
		return 0;
	if (end - *p < 6)
		return rpi_malformed(param, "a target is cut short");
	tg->phandle = fdt32_ld((const fdt32_t *)*p);
	spec = *p + 4;
	nul = memchr(spec, '\0', (size_t)(end - spec));
	if (!nul)
		return rpi_malformed(param, "a string without its NUL");
	len = (size_t)(nul - spec);
	*p = nul + 1;
	rc = rpi_value_set(&tg->value, value, strlen(value));
	if (rc)
		return rc;
	if ((int32_t)tg->phandle < 0)
		return rpi_malformed(param, "a negative phandle");

	if (!tg->phandle) {
		tg->kind = RPI_FRAGMENTS;
		name_len = len;
	} else {
		target_len = strcspn(spec, "={");
		name_len = strcspn(spec, seps);
		if (target_len < len) {
			lit_type = spec[target_len];
			lit = spec + target_len + 1;
		}
		tg->kind = RPI_STRING;
		if (name_len < target_len) {
			char sep = spec[name_len];

			if (sep == '?') {
				tg->kind = RPI_BOOL;
			} else if (sep == '!') {
				tg->kind = RPI_BOOL_INV;
			} else if (sep == '[') {
				tg->kind = RPI_BYTES;
			} else {
				tg->kind = RPI_CELL;
				/* Clamped: a number past int is past RPI_CELL_OFFSET_MAX too. */
				long offset = strtol(spec + name_len + 1, NULL, 10);

				tg->offset = offset < 0 ? -1 :
					     offset > RPI_CELL_OFFSET_MAX ? RPI_CELL_OFFSET_MAX + 1 :
					     (int)offset;
				tg->width = 1 << (strchr(seps, sep) - seps);
			}
		}
	}
	tg->prop = strndup(spec, name_len);
	if (!tg->prop)
		return imgp_fail(ENOMEM, "out of memory");

	if (lit_type == '=')
		rc = rpi_literal(param, lit, p, end, tg);
	else if (lit_type == '{')
		rc = rpi_lookup(param, lit, end, p, tg);
	if (rc)
		return rc;

	if (tg->kind == RPI_STRING && strcmp(tg->prop, "status") == 0) {
		static const char *const on[] = { "y", "yes", "on", "true", "enable", "1" };
		static const char *const off[] = { "n", "no", "off", "false", "0" };
		const char *v = (const char *)tg->value.data;

		for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++)
			if (strcmp(v, on[i]) == 0)
				return rpi_value_set(&tg->value, "okay", 4);
		for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
			if (strcmp(v, off[i]) == 0)
				return rpi_value_set(&tg->value, "disabled", 8);
	}
	return 0;
}

/* A value as a number: 0x.., 0.., words (on, off, up, ...). 0 or RPI_IGNORED. */
static int rpi_number(const char *param, const char *v, bool fragments,
		      uint64_t *out)
{
	static const struct {
		const char *word;
		uint64_t n;
	} words[] = {
		{ "y", 1 }, { "yes", 1 }, { "on", 1 }, { "true", 1 }, { "down", 1 },
		{ "n", 0 }, { "no", 0 }, { "off", 0 }, { "false", 0 }, { "up", 2 },
	};
	char *end;

	*out = strtoull(v, &end, 0);
	if (!*end)
		return 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcmp(v, words[i].word) == 0) {
			*out = words[i].n;
			return 0;
		}
	}
	if (fragments) {
		/* Any other word enables: "dtoverlay=x,frag=anything". */
		*out = 1;
		return 0;
	}
	imgp_fail(EINVAL, "parameter '%s': invalid value '%s'", param, v);
	return RPI_IGNORED;
}

/* Two hex digits at p as a byte; -1 when they are not. */
static int rpi_hex_byte(const char *p)
{
	static const char digits[] = "0123456789abcdef0123456789ABCDEF";
	const char *hi = p[0] ? strchr(digits, p[0]) : NULL;
	const char *lo = hi && p[1] ? strchr(digits, p[1]) : NULL;

	if (!lo)
		return -1;
	return (int)((hi - digits) % 16 * 16 + (lo - digits) % 16);
}

/* The character of a one-letter C escape ("\\n"); -1 for none. */
static int rpi_escape(int c)
{
	switch (c) {
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	case 'v': return '\v';
	case '\\': case '\'': case '"': return c;
	default: return -1;
	}
}

/* "prop" set to a string: C escapes; "bootargs" appends, "name" renames. */
static int rpi_set_string(struct rpi_tree *t, int node, const char *param,
			  const struct rpi_target *tg)
{
	const char *p = (const char *)tg->value.data, *old;
	struct imgp_buf s = { 0 };
	int c, len, rc = 0;
	char ch;

	while (*p && !rc) {
		c = (unsigned char)*p++;
		if (c == '\\') {
			c = (unsigned char)*p++;
			if (c >= '0' && c <= '7') {
				c -= '0';
				for (int i = 0; i < 2 && *p >= '0' && *p <= '7'; i++)
					c = c * 8 + *p++ - '0';
				c = c > 255 ? -1 : c;
			} else if (c == 'x') {
				c = rpi_hex_byte(p);
				p += c < 0 ? 0 : 2;
			} else {
				c = rpi_escape(c);
			}
			if (c < 0) {
				imgp_buf_free(&s);
				imgp_fail(EINVAL, "parameter '%s': invalid escape in '%s'",
					  param, (const char *)tg->value.data);
				return RPI_IGNORED;
			}
		}
		ch = (char)c;
		if (imgp_buf_append(&s, &ch, 1))
			rc = imgp_fail(ENOMEM, "out of memory");
	}
	if (!rc && imgp_buf_append(&s, "", 1))
		rc = imgp_fail(ENOMEM, "out of memory");
	if (rc)
		goto out;

	old = fdt_getprop(t->fdt, node, tg->prop, &len);
	if (strcmp(tg->prop, "bootargs") == 0 && old && len > 0 && old[0]) {
		/* The kernel command line grows: "... old new". */
		struct imgp_buf joined = { 0 };

		if (imgp_buf_append(&joined, old, (size_t)len - 1) ||
		    imgp_buf_append(&joined, " ", 1) ||
		    imgp_buf_append(&joined, s.data, s.len))
			rc = imgp_fail(ENOMEM, "out of memory");
		else
			rc = imgp_rpi_setprop_(t, node, tg->prop, joined.data, (int)joined.len);
		imgp_buf_free(&joined);
	} else if (strcmp(tg->prop, "name") == 0) {
		rc = imgp_rpi_set_name_(t, node, (const char *)s.data);
	} else {
		rc = imgp_rpi_setprop_(t, node, tg->prop, s.data, (int)s.len);
	}
out:
	imgp_buf_free(&s);
	return rc;
}

/* "prop[": hex bytes, separated by nothing, ':' or blanks (32 at most, as dtmerge). */
static int rpi_set_bytes(struct rpi_tree *t, int node, const char *param,
			 const struct rpi_target *tg)
{
	const char *p = (const char *)tg->value.data;
	uint8_t bytes[32];
	int n = 0;

	while (*p) {
		int byte;

		if (*p == ':' || *p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		byte = rpi_hex_byte(p);
		if (byte < 0 || n == (int)sizeof(bytes))
			goto bad;
		bytes[n++] = (uint8_t)byte;
		p += 2;
	}
	return imgp_rpi_setprop_(t, node, tg->prop, bytes, n);
bad:
	imgp_fail(EINVAL, "parameter '%s': invalid byte string '%s'", param,
		  (const char *)tg->value.data);
	return RPI_IGNORED;
}

/* "prop:N": a cell of tg->width bytes at tg->offset; "reg" also renames the node. */
static int rpi_set_cell(struct rpi_tree *t, int node, uint64_t v,
			const struct rpi_target *tg)
{
	int len, need, rc = 0;
	const uint8_t *old = fdt_getprop(t->fdt, node, tg->prop, &len);
	uint8_t *cell, *grown = NULL;

	if (tg->offset < 0)
		return imgp_fail(EINVAL, "negative offset in '%s'", tg->prop);
	if (tg->offset > RPI_CELL_OFFSET_MAX)
		return imgp_fail(EINVAL, "offset in '%s' is past %d bytes", tg->prop,
				 RPI_CELL_OFFSET_MAX);
	need = tg->offset + tg->width;
	if (!old || len < need) {
		/* Missing or short: zero-padded and set whole, except "reg" (a pseudo-property). */
		grown = calloc(1, (size_t)need);
		if (!grown)
			return imgp_fail(ENOMEM, "out of memory");
		if (old && len > 0)
			memcpy(grown, old, (size_t)len);
		cell = grown + tg->offset;
	} else {
		cell = (uint8_t *)fdt_getprop_w(t->fdt, node, tg->prop, &len) + tg->offset;
	}
	for (int i = 0; i < tg->width; i++)
		cell[i] = (uint8_t)(v >> (8 * (tg->width - 1 - i)));
	if (grown && strcmp(tg->prop, "reg") != 0)
		rc = imgp_rpi_setprop_(t, node, tg->prop, grown, need);
	free(grown);
	if (!rc && strcmp(tg->prop, "reg") == 0 && tg->offset == 0) {
		const char *name = fdt_get_name(t->fdt, node, NULL);
		const char *at = name ? strchr(name, '@') : NULL;
		struct imgp_buf renamed = { 0 };

		if (at) {
			if (imgp_buf_printf(&renamed, "%.*s@%x", (int)(at - name), name,
					    (uint32_t)v))
				rc = imgp_fail(ENOMEM, "out of memory");
			else
				rc = imgp_rpi_set_name_(t, node, (const char *)renamed.data);
			imgp_buf_free(&renamed);
		}
	}
	return rc;
}

/* "+N-N=N!N": fragment N's __overlay__ and __dormant__ swap names. */
static int rpi_set_fragments(struct rpi_tree *t, const char *param,
			     const char *ops, uint64_t v)
{
	static const char *const state[2] = { "__dormant__", "__overlay__" };
	const char *p = ops;
	char path[32], *end;

	while (*p) {
		char op = *p;
		unsigned long n;
		bool active;
		int frag, node, rc;

		if (!strchr("+-=!", op)) {
			imgp_fail(EINVAL, "parameter '%s': invalid fragment operation '%s'",
				  param, ops);
			return RPI_IGNORED;
		}
		n = strtoul(p + 1, &end, 0);
		p = end;
		active = op == '+' || (op == '=' && v) || (op == '!' && !v);
		snprintf(path, sizeof(path), "/fragment@%lu", n);
		frag = fdt_path_offset(t->fdt, path);
		if (frag < 0) {
			snprintf(path, sizeof(path), "/fragment-%lu", n);
			frag = fdt_path_offset(t->fdt, path);
		}
		if (frag < 0) {
			imgp_fail(ENOENT, "parameter '%s': fragment %lu not found", param, n);
			return RPI_IGNORED;
		}
		node = fdt_subnode_offset(t->fdt, frag, state[!active]);
		if (node >= 0) {
			rc = imgp_rpi_set_name_(t, node, state[active]);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int rpi_target_apply(struct rpi_tree *t, const char *param,
			    const struct rpi_target *tg)
{
	const char *v = (const char *)tg->value.data;
	uint64_t n = 0;
	int node, rc;

	if (tg->kind == RPI_FRAGMENTS) {
		rc = rpi_number(param, v, true, &n);
		return rc ? rc : rpi_set_fragments(t, param, tg->prop, n);
	}
	node = fdt_node_offset_by_phandle(t->fdt, tg->phandle);
	if (node < 0) {
		imgp_fail(ENOENT, "parameter '%s': no node with phandle %u in %s",
			  param, tg->phandle, t->what);
		return RPI_IGNORED;
	}
	switch (tg->kind) {
	case RPI_STRING:
		return rpi_set_string(t, node, param, tg);
	case RPI_BYTES:
		return rpi_set_bytes(t, node, param, tg);
	default:
		break;
	}
	rc = rpi_number(param, v, false, &n);
	if (rc)
		return rc;
	if (tg->kind == RPI_CELL)
		return rpi_set_cell(t, node, n, tg);
	if (!!n ^ (tg->kind == RPI_BOOL_INV))
		return imgp_rpi_setprop_(t, node, tg->prop, NULL, 0);
	return imgp_rpi_delprop_(t, node, tg->prop);
}

/*
 * The __overrides__ property name of t, copied with a NUL after it (the
 * tree moves under it as the parameter is applied). Returns 1 with *data
 * and *len, 0 when t does not name it, -ENOMEM.
 */
static int rpi_override(const struct rpi_tree *t, const char *name,
			char **data, int *len)
{
	int node = fdt_path_offset(t->fdt, "/__overrides__");
	const char *val;

	val = node < 0 ? NULL : fdt_getprop(t->fdt, node, name, len);
	if (!val)
		return 0;
	*data = malloc((size_t)*len + 1);
	if (!*data)
		return imgp_fail(ENOMEM, "out of memory");
	memcpy(*data, val, (size_t)*len);
	(*data)[*len] = '\0';
	return 1;
}

/* One parameter: 0, RPI_IGNORED (the message set) or -errno. */
static int rpi_param_apply(struct rpi_tree *ovl, struct rpi_tree *base,
			   const char *name, const char *value)
{
	struct rpi_target tg = { .prop = NULL };
	struct rpi_tree *t = ovl;
	const char *p, *end;
	char *data = NULL;
	int len = 0, rc;

	rc = ovl ? rpi_override(ovl, name, &data, &len) : 0;
	if (!rc) {
		t = base;
		rc = rpi_override(base, name, &data, &len);
	}
	if (rc < 0)
		return rc;
	if (!rc) {
		imgp_fail(ENOENT, "unknown parameter '%s'", name);
		return RPI_IGNORED;
	}
	/* An empty one ("arm_freq;") is a setting the firmware reads itself. */
	p = data;
	end = data + len;
	do {
		free(tg.prop);
		tg.prop = NULL;
		rc = rpi_target_read(name, value, &p, end, &tg);
		if (!rc && tg.kind != RPI_END)
			rc = rpi_target_apply(t, name, &tg);
	} while (!rc && tg.kind != RPI_END);
	free(tg.prop);
	imgp_buf_free(&tg.value);
	free(data);
	return rc;
}

int imgp_rpi_params_apply_(struct rpi_tree *ovl, struct rpi_tree *base,
		     const char *params, const char *what,
		     struct imgp_buf *warnings)
{
	char *list, *item, *next;
	int rc = 0;

	if (!params || !*params)
		return 0;
	list = strdup(params);
	if (!list)
		return imgp_fail(ENOMEM, "out of memory");
	for (item = list; item && !rc; item = next) {
		char *eq;

		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!*item)
			continue;
		eq = strchr(item, '=');
		if (eq)
			*eq = '\0';
		/* "dtparam=sd_poll_once" sets the parameter to "true". */
		rc = rpi_param_apply(ovl, base, item, eq ? eq + 1 : "true");
		if (rc == RPI_IGNORED) {
			imgp_warn_into_(warnings, "%s: %s: ignored, as the firmware does",
				       what, imgp_errmsg());
			imgp_errclear_();
			rc = 0;
		}
	}
	free(list);
	return rc;
}

int imgp_rpi_dtparam_(void **fdt, size_t *size, const char *params,
		     const char *what, struct imgp_buf *warnings)
{
	struct rpi_tree base;
	int rc;

	rc = imgp_rpi_tree_load_(&base, *fdt, *size, "the base tree");
	if (!rc)
		rc = imgp_rpi_params_apply_(NULL, &base, params, what ? what : "dtparam",
					   warnings);
	if (rc) {
		imgp_rpi_tree_free_(&base);
		return rc;
	}
	free(*fdt);
	*fdt = base.fdt;
	*size = base.size;
	return 0;
}
