// SPDX-License-Identifier: MIT
/*
 * Device tree blobs: loading into a buffer that can be edited, and the
 * edits (properties, nodes) made in it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "dt-internal.h"
#include "dt/dt.h"

/*
 * Whether a property name at offset nameoff of the strings block lies
 * inside it, NUL-terminated (fdt_check_header() put the block inside the
 * blob).
 */
static bool name_in_strings(const void *fdt, uint32_t nameoff)
{
	const char *strings = (const char *)fdt + fdt_off_dt_strings(fdt);
	uint32_t size = fdt_size_dt_strings(fdt);

	return nameoff < size && memchr(strings + nameoff, '\0', size - nameoff);
}

int imgp_fdt_check_full_(const void *fdt, size_t bufsize)
{
	const uint8_t *block;
	size_t size, off = 0;
	int rc;

	rc = fdt_check_header(fdt);
	if (rc)
		return rc;
	if (fdt_totalsize(fdt) > bufsize)
		return -FDT_ERR_TRUNCATED;
	/* fdt_check_header() put the structure block inside the blob. */
	block = (const uint8_t *)fdt + fdt_off_dt_struct(fdt);
	size = fdt_version(fdt) >= 17 ? fdt_size_dt_struct(fdt) :
					fdt_totalsize(fdt) - fdt_off_dt_struct(fdt);
	/* The tags as fdt_next_tag() steps through them, up to FDT_END. */
	while (size - off >= FDT_TAGSIZE) {
		uint32_t tag = fdt32_ld((const fdt32_t *)(block + off)), len;
		const uint8_t *nul;

		off += FDT_TAGSIZE;
		switch (tag) {
		case FDT_BEGIN_NODE:
			nul = memchr(block + off, '\0', size - off);
			if (!nul)
				return -FDT_ERR_BADSTRUCTURE;
			off = (size_t)(nul - block) + 1;
			break;
		case FDT_PROP:
			if (size - off < 8)
				return -FDT_ERR_BADSTRUCTURE;
			len = fdt32_ld((const fdt32_t *)(block + off));
			if (len > size - off - 8)
				return -FDT_ERR_BADSTRUCTURE;
			/*
			 * libfdt before 1.7.0 looks a version 16 tree's names
			 * up anywhere in the blob, but fdt_open_into() makes
			 * it version 17, whose names must lie in the strings
			 * block: such a tree would pass here and break once
			 * opened for an edit.
			 */
			if (!name_in_strings(fdt, fdt32_ld((const fdt32_t *)(block + off + 4))))
				return -FDT_ERR_BADOFFSET;
			off += 8 + len;
			/* Before version 16 a value of 8 bytes or more is 8-byte aligned. */
			if (fdt_version(fdt) < 16 && len >= 8 && (off - len) % 8 != 0)
				off += 4;
			break;
		case FDT_END_NODE:
		case FDT_NOP:
			break;
		case FDT_END:
			return fdt_check_full(fdt, bufsize);
		default:
			return -FDT_ERR_BADSTRUCTURE;
		}
		off = (off + FDT_TAGSIZE - 1) & ~(size_t)(FDT_TAGSIZE - 1);
		if (off > size)
			return -FDT_ERR_BADSTRUCTURE;
	}
	return -FDT_ERR_TRUNCATED;
}

int imgp_dtb_load_(struct imgp_dtb *dtb, const void *blob, size_t size)
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
	rc = imgp_fdt_check_full_(copy, total);
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

void imgp_dtb_free_(struct imgp_dtb *dtb)
{
	free(dtb->fdt);
	dtb->fdt = NULL;
	dtb->bufsize = 0;
}

int imgp_dtb_finish_(struct imgp_dtb *dtb, const void **blob, size_t *size)
{
	int rc = fdt_pack(dtb->fdt);

	if (rc)
		return imgp_fail(EINVAL, "cannot pack device tree: %s",
				 fdt_strerror(rc));
	*blob = dtb->fdt;
	*size = fdt_totalsize(dtb->fdt);
	return 0;
}

int imgp_dt_node_path_(const struct imgp_dtb *dtb, int node, char *out,
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

int imgp_dt_delete_prop_(struct imgp_dtb *dtb, int node, const char *prop)
{
	int rc = fdt_delprop(dtb->fdt, node, prop);

	if (rc == -FDT_ERR_NOTFOUND)
		return 1;
	if (rc)
		return imgp_fail(EINVAL, "cannot delete property '%s': %s", prop,
				 fdt_strerror(rc));
	return 0;
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

int imgp_dt_set_prop_(struct imgp_dtb *dtb, int node, const char *prop,
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

int imgp_dt_add_node_(struct imgp_dtb *dtb, const char *path)
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

int imgp_dt_delete_node_(struct imgp_dtb *dtb, int node)
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
