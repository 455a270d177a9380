// SPDX-License-Identifier: MIT
/*
 * An overlay checked before it is applied. libfdt's fdt_overlay_apply()
 * (1.6.1, Debian 12's) trusts what the overlay says: a __fixups__ offset
 * of "-4" becomes a write 4 GiB past its property, a __local_fixups__
 * offset a read past it, a relative path an alias followed without end
 * (an alias naming itself recurses until the stack runs out), and a deep
 * tree a recursion as deep. Every entry it follows is checked here first
 * (the Raspberry Pi's merge, which reads the same entries, uses the same
 * checks), and a bad one is named: -EBADMSG, the overlay is broken.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libfdt.h>

#include "dt-internal.h"
#include "dt/dt.h"

/* Linux unflattens no deeper tree (FDT_MAX_DEPTH); libfdt recurses as deep. */
#define DT_OVERLAY_DEPTH 64

/* How much of a string from the image a message quotes. */
#define DT_SHOWN 96

/* s (len bytes) as a message may quote it: printable, cut, one line. */
static const char *dt_shown(char out[DT_SHOWN], const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && s[i]; i++) {
		if (n + 4 >= DT_SHOWN) {
			memcpy(out + n, "...", 3);
			n += 3;
			break;
		}
		out[n++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	}
	out[n] = '\0';
	return out;
}

/* A property value that is one string: NUL-terminated, no NUL inside. */
static bool dt_is_string(const char *val, int len)
{
	return val && len > 0 && memchr(val, '\0', (size_t)len) == val + len - 1;
}

int imgp_dt_path_offset_(const void *fdt, const char *path, int len)
{
	const char *slash, *alias;
	int aliases, alen, node;

	if (len <= 0)
		return -FDT_ERR_BADPATH;
	if (path[0] == '/')
		return fdt_path_offset_namelen(fdt, path, len);
	/* One alias, whose value must be a path from the root: no chain. */
	slash = memchr(path, '/', (size_t)len);
	aliases = fdt_path_offset(fdt, "/aliases");
	if (aliases < 0)
		return aliases == -FDT_ERR_NOTFOUND ? -FDT_ERR_BADPATH : aliases;
	alias = fdt_getprop_namelen(fdt, aliases, path,
				    slash ? (int)(slash - path) : len, &alen);
	if (!alias)
		return -FDT_ERR_BADPATH;
	if (!dt_is_string(alias, alen) || alias[0] != '/')
		return -FDT_ERR_BADVALUE;
	node = fdt_path_offset(fdt, alias);
	if (node < 0 || !slash)
		return node;
	/* The rest below the alias's node, as libfdt walks it. */
	for (const char *p = slash, *end = path + len; p < end;) {
		const char *q;

		while (p < end && *p == '/')
			p++;
		if (p == end)
			break;
		q = memchr(p, '/', (size_t)(end - p));
		if (!q)
			q = end;
		node = fdt_subnode_offset_namelen(fdt, node, p, (int)(q - p));
		if (node < 0)
			return node;
		p = q;
	}
	return node;
}

int imgp_dt_fixup_parse_(const void *ovl, const char *entry, struct imgp_dt_fixup *fx)
{
	char shown[DT_SHOWN];
	const char *name, *num, *val;
	unsigned long long offset = 0;
	int len;

#define FIXUP_FAIL(...) imgp_fail(EBADMSG, "entry '%s': " __VA_ARGS__)
	name = strchr(entry, ':');
	num = name ? strchr(name + 1, ':') : NULL;
	dt_shown(shown, entry, strlen(entry));
	if (!num || strchr(num + 1, ':'))
		return FIXUP_FAIL("not PATH:PROPERTY:OFFSET", shown);
	name++;
	if (entry[0] != '/')
		return FIXUP_FAIL("the path does not start at the root", shown);
	if (name == num)
		return FIXUP_FAIL("no property name", shown);
	if (!num[1])
		return FIXUP_FAIL("no offset", shown);
	for (const char *p = num + 1; *p; p++) {
		if (*p < '0' || *p > '9' || p - num > 10)
			return FIXUP_FAIL("the offset is not a decimal number of at most 10 digits",
					  shown);
		offset = offset * 10 + (unsigned)(*p - '0');
	}
	fx->node = fdt_path_offset_namelen(ovl, entry, (int)(name - 1 - entry));
	if (fx->node < 0)
		return FIXUP_FAIL("the overlay has no such node", shown);
	val = fdt_getprop_namelen(ovl, fx->node, name, (int)(num - name), &len);
	if (!val)
		return FIXUP_FAIL("the node has no such property", shown);
	/* The phandle written there takes 4 bytes. */
	if (len < 4 || offset > (unsigned long long)len - 4)
		return FIXUP_FAIL("offset %llu is past the end of the property (%d bytes; a phandle takes 4)",
				  shown, offset, len);
#undef FIXUP_FAIL
	fx->name = name;
	fx->namelen = (int)(num - name);
	fx->offset = (uint32_t)offset;
	return 0;
}

/* A list of fixup entries (a __fixups__ property's value, or old dtc's "fixup"). */
static int dt_check_fixup_list(const void *ovl, const char *what, const char *list, int len)
{
	char shown[DT_SHOWN];
	struct imgp_dt_fixup fx;
	int rc;

	dt_shown(shown, what, strlen(what));
	if (len <= 0)
		return imgp_fail(EBADMSG, "%s: no entries", shown);
	if (list[len - 1] != '\0')
		return imgp_fail(EBADMSG, "%s: not NUL-terminated", shown);
	for (const char *p = list, *end = list + len; p < end; p += strlen(p) + 1) {
		if (!*p)
			return imgp_fail(EBADMSG, "%s: an empty entry", shown);
		rc = imgp_dt_fixup_parse_(ovl, p, &fx);
		if (rc)
			return imgp_fail_ctx(rc, "%s", shown);
	}
	return 0;
}

/*
 * __local_fixups__ mirrors the overlay: at each of its nodes, a property
 * lists the offsets of cells in the overlay node's property of that name.
 */
static int dt_check_local_fixups(const void *ovl, int node, int fixups)
{
	char shown[DT_SHOWN], path[256];
	const fdt32_t *offsets;
	const char *name;
	int prop, child, tree_child, len, tree_len, rc;

	if (fdt_get_path(ovl, node, path, sizeof(path)))
		snprintf(path, sizeof(path), "?");
	fdt_for_each_property_offset(prop, ovl, fixups) {
		offsets = fdt_getprop_by_offset(ovl, prop, &name, &len);
		if (!offsets || !name)
			return imgp_fail(EBADMSG, "__local_fixups__: %s", fdt_strerror(len));
		dt_shown(shown, name, strlen(name));
		/* Old dtc wrote one list of entries at the top, as __fixups__ does. */
		if (node == 0 && !strcmp(name, "fixup") && !fdt_getprop(ovl, 0, "fixup", NULL)) {
			rc = dt_check_fixup_list(ovl, "__local_fixups__ fixup",
						 (const char *)offsets, len);
			if (rc)
				return rc;
			continue;
		}
		if (!fdt_getprop(ovl, node, name, &tree_len))
			return imgp_fail(EBADMSG, "__local_fixups__ names property '%s' of %s, which is not there",
					 shown, path);
		if (len % 4 != 0)
			return imgp_fail(EBADMSG, "__local_fixups__ of '%s' in %s is %d bytes, not a list of cells",
					 shown, path, len);
		for (int i = 0; i < len / 4; i++)
			if (tree_len < 4 || fdt32_ld(&offsets[i]) > (uint32_t)tree_len - 4)
				return imgp_fail(EBADMSG, "__local_fixups__ of '%s' in %s: offset %u is past its end (%d bytes; a phandle takes 4)",
						 shown, path, fdt32_ld(&offsets[i]), tree_len);
	}
	fdt_for_each_subnode(child, ovl, fixups) {
		name = fdt_get_name(ovl, child, &len);
		tree_child = name ? fdt_subnode_offset(ovl, node, name) : -1;
		if (tree_child < 0)
			return imgp_fail(EBADMSG, "__local_fixups__ names node '%s' under %s, which is not there",
					 dt_shown(shown, name ? name : "?", name ? (size_t)len : 1), path);
		rc = dt_check_local_fixups(ovl, tree_child, child);
		if (rc)
			return rc;
	}
	return 0;
}

int imgp_dt_overlay_check_shape_(const void *ovl)
{
	char shown[DT_SHOWN];
	const char *label, *val;
	int node, depth = 0, fix, prop, len, rc;

	for (node = 0; node >= 0; node = fdt_next_node(ovl, node, &depth))
		if (depth > DT_OVERLAY_DEPTH)
			return imgp_fail(EBADMSG, "nodes nested more than %d deep", DT_OVERLAY_DEPTH);
	fix = fdt_path_offset(ovl, "/__fixups__");
	fdt_for_each_property_offset(prop, ovl, fix) {
		val = fdt_getprop_by_offset(ovl, prop, &label, &len);
		if (!val || !label)
			return imgp_fail(EBADMSG, "__fixups__: %s", fdt_strerror(len));
		snprintf(shown, sizeof(shown), "__fixups__ of label '%s'",
			 dt_shown((char[DT_SHOWN]){ 0 }, label, strlen(label)));
		rc = dt_check_fixup_list(ovl, shown, val, len);
		if (rc)
			return rc;
	}
	fix = fdt_path_offset(ovl, "/__local_fixups__");
	return fix >= 0 ? dt_check_local_fixups(ovl, 0, fix) : 0;
}

/*
 * "fragment@0" from a __fixups__ entry "/fragment@0/__overlay__/x:clocks:4":
 * the first component of the path, added to frags once.
 */
static int dt_fixup_fragment(const char *entry, struct imgp_buf *frags)
{
	const char *name = entry + strspn(entry, "/");
	size_t len = strcspn(name, "/:");
	const char *p, *end;

	if (!len)
		return 0;
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

/* "'x' (overlay fragment@0, fragment@2)": a label the base lacks, for a message. */
static int dt_missing_label(struct imgp_buf *msg, const char *label, const char *list,
			    int len)
{
	struct imgp_buf frags = { 0 };
	char shown[DT_SHOWN];
	int err = 0;

	/* The shape check made list entries, each NUL-terminated. */
	for (const char *p = list; !err && p < list + len; p += strlen(p) + 1)
		err = dt_fixup_fragment(p, &frags);
	if (!err)
		err = imgp_buf_printf(msg, "%s'%s'", msg->len ? ", " : "",
				      dt_shown(shown, label, strlen(label)));
	if (!err && frags.len)
		err = imgp_buf_printf(msg, " (overlay %s)", (const char *)frags.data);
	imgp_buf_free(&frags);
	return err ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/*
 * Each label the overlay refers to: in the base's __symbols__ as a path
 * from the root, to a node with a phandle. Labels the base lacks are
 * named together (libfdt reports them as a bare FDT_ERR_NOTFOUND, after
 * it has half-modified both trees); -EINVAL: the overlay may be fine, the
 * base is not the one it is for.
 */
static int dt_check_labels(const void *base, const void *ovl)
{
	struct imgp_buf missing = { 0 };
	char shown[DT_SHOWN];
	const char *label, *path, *list;
	int fix, sym, prop, len, llen, node, n = 0, rc = 0;

	fix = fdt_path_offset(ovl, "/__fixups__");
	if (fix < 0 || fdt_first_property_offset(ovl, fix) < 0)
		return 0;
	sym = fdt_path_offset(base, "/__symbols__");
	if (sym < 0)
		return imgp_fail(EINVAL, "the base tree has no __symbols__ (compile it with dtc -@)");
	fdt_for_each_property_offset(prop, ovl, fix) {
		list = fdt_getprop_by_offset(ovl, prop, &label, &llen);
		path = fdt_getprop(base, sym, label, &len);
		if (!path) {
			n++;
			rc = dt_missing_label(&missing, label, list, llen);
			if (rc)
				break;
			continue;
		}
		dt_shown(shown, label, strlen(label));
		/* libfdt looks the path up as it is: an alias only to a path from the root. */
		node = dt_is_string(path, len) ? imgp_dt_path_offset_(base, path, len - 1) :
						 -FDT_ERR_BADVALUE;
		if (node == -FDT_ERR_BADVALUE) {
			rc = imgp_fail(EBADMSG, "the base tree's __symbols__ entry '%s' is not a path, or an alias to one",
				       shown);
			break;
		}
		if (node < 0 || !fdt_get_phandle(base, node)) {
			rc = imgp_fail(EINVAL, "label '%s' is %s, which %s in the base tree", shown,
				       dt_shown((char[DT_SHOWN]){ 0 }, path, (size_t)len),
				       node < 0 ? "is not" : "has no phandle");
			break;
		}
	}
	if (!rc && n)
		rc = imgp_fail(EINVAL, "unresolved label%s %s", n > 1 ? "s" : "",
			       (const char *)missing.data);
	imgp_buf_free(&missing);
	return rc;
}

/*
 * A fragment's target-path: one string; as an alias, one whose value is a
 * path from the root (libfdt follows an alias to an alias without end).
 * What a fragment writes into /aliases is such a path too.
 */
static int dt_check_targets(const void *base, const void *ovl)
{
	char shown[DT_SHOWN];
	const char *frag_name, *path, *val, *name;
	int frag, len, target, aliases, prop, vlen;

	aliases = fdt_path_offset(base, "/aliases");
	fdt_for_each_subnode(frag, ovl, 0) {
		int over = fdt_subnode_offset(ovl, frag, "__overlay__");

		if (over < 0)
			continue;
		frag_name = fdt_get_name(ovl, frag, NULL);
		path = fdt_getprop(ovl, frag, "target-path", &len);
		if (!path)
			continue;
		if (!dt_is_string(path, len) || len < 2)
			return imgp_fail(EBADMSG, "%s: target-path is not a path",
					 frag_name ? frag_name : "?");
		target = imgp_dt_path_offset_(base, path, len - 1);
		if (target == -FDT_ERR_BADVALUE)
			return imgp_fail(EBADMSG, "%s: target-path '%s' is an alias whose value in the base tree is not a path from the root",
					 frag_name, dt_shown(shown, path, (size_t)len));
		if (target < 0 || target != aliases)
			continue;
		fdt_for_each_property_offset(prop, ovl, over) {
			val = fdt_getprop_by_offset(ovl, prop, &name, &vlen);
			if (name && strcmp(name, "phandle") && strcmp(name, "linux,phandle") &&
			    strcmp(name, "name") && (!dt_is_string(val, vlen) || val[0] != '/'))
				return imgp_fail(EBADMSG, "%s: alias '%s' is not a path from the root",
						 frag_name, dt_shown(shown, name, strlen(name)));
		}
	}
	return 0;
}

int imgp_dt_overlay_check_(const void *base, const void *ovl)
{
	int rc = imgp_dt_overlay_check_shape_(ovl);

	if (!rc)
		rc = dt_check_targets(base, ovl);
	if (rc)
		return imgp_fail_ctx(rc, "broken overlay");
	return dt_check_labels(base, ovl);
}
