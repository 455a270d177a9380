// SPDX-License-Identifier: MIT
/*
 * A device tree as DTS source, as dtc 1.6 decompiles it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "dt-internal.h"
#include "dt/dt.h"

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
	if (imgp_dt_looks_like_strings_(p, len)) {
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

int imgp_dt_to_dts_(const struct imgp_dtb *dtb, struct imgp_buf *out)
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
