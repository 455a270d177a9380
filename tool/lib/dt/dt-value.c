// SPDX-License-Identifier: MIT
/*
 * Device tree property values: formatting a value as dtc does and parsing
 * a value written in dtc syntax.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "core/endian.h"
#include "dt-internal.h"
#include "dt/dt.h"

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
bool imgp_dt_looks_like_strings_(const uint8_t *p, int len)
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

int imgp_dt_format_value_(const void *val, int len, char *out, size_t outlen)
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
	} else if (imgp_dt_looks_like_strings_(p, len)) {
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
	put_be32(be, (uint32_t)v);
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

int imgp_dt_parse_value_(const char *text, struct imgp_buf *out)
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
