// SPDX-License-Identifier: MIT
/*
 * Applying an overlay the way the Raspberry Pi firmware does for a
 * dtoverlay= line, in its order (that of Raspberry Pi's dtmerge, which
 * the tests take as the reference):
 *
 *  1. resolve: each __fixups__ label is looked up in the base tree's
 *     __symbols__ (a target without a phandle gets the next free one);
 *     the overlay's own phandles move past the base's largest, and its
 *     references to them (__local_fixups__) follow;
 *  2. the line's parameters (dt-rpi-params.c), which may swap a fragment's
 *     __dormant__ and __overlay__ or change its target;
 *  3. merge: fragments that target the overlay itself first, then each
 *     fragment with an __overlay__ into its target or target-path in the
 *     base, properties replaced (a "bootargs" grows), subnodes merged.
 *     The __overlay__ node's own phandle is left out (only __overrides__
 *     refer to it), exported symbols and aliases are rebased onto the
 *     targets' paths.
 *
 * libfdt's fdt_overlay_apply() differs where it matters for these
 * overlays: it knows no parameters, refuses an __overlay__ node with a
 * phandle, and renumbers phandles by its own rule.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "dt-internal.h"
#include "dt-rpi.h"
#include "dt/dt.h"

static bool rpi_is_fragment(const char *name)
{
	return strncmp(name, "fragment@", 9) == 0 || strncmp(name, "fragment-", 9) == 0;
}

/*
 * Patches each "path:property:offset" of list (len bytes, entries that
 * imgp_dt_overlay_check_shape_() passed) in t: with phandle, or (relative)
 * by adding phandle to what is there.
 */
static int rpi_fixup_list(struct rpi_tree *t, const char *list, int len,
			  uint32_t phandle, bool relative)
{
	for (const char *p = list, *end = list + len; p < end; p += strlen(p) + 1) {
		struct imgp_dt_fixup fx;
		uint8_t *val;
		int rc = imgp_dt_fixup_parse_(t->fdt, p, &fx);

		if (rc)
			return imgp_fail_ctx(rc, "%s", t->what);
		val = fdt_getprop_namelen_w(t->fdt, fx.node, fx.name, fx.namelen, NULL);
		if (!val)
			return imgp_rpi_tree_fail_(t, -FDT_ERR_NOTFOUND);
		fdt32_st(val + fx.offset, relative ? phandle + fdt32_ld((fdt32_t *)(val + fx.offset))
						   : phandle);
	}
	return 0;
}

/* __local_fixups__ as a tree mirroring the overlay: cell offsets to move by delta. */
static int rpi_local_fixups(struct rpi_tree *t, int fix, int node, uint32_t delta)
{
	int prop, sub, rc, olen;

	fdt_for_each_property_offset(prop, t->fdt, fix) {
		const char *name;
		const fdt32_t *offs = fdt_getprop_by_offset(t->fdt, prop, &name, &olen);
		uint8_t *val;
		int vlen;

		if (!offs)
			return imgp_rpi_tree_fail_(t, olen);
		val = fdt_getprop_w(t->fdt, node, name, &vlen);
		if (!val)
			return imgp_fail(EINVAL, "%s: __local_fixups__ names property '%s' that is not there",
					 t->what, name);
		for (int i = 0; i + 4 <= olen; i += 4) {
			uint32_t at = fdt32_ld(offs + i / 4);

			if (vlen < 4 || at > (uint32_t)vlen - 4)
				return imgp_fail(EINVAL, "%s: __local_fixups__ of '%s' is outside it",
						 t->what, name);
			fdt32_st(val + at, fdt32_ld((fdt32_t *)(val + at)) + delta);
		}
	}
	fdt_for_each_subnode(sub, t->fdt, fix) {
		int len, target;
		const char *name = fdt_get_name(t->fdt, sub, &len);

		target = fdt_subnode_offset_namelen(t->fdt, node, name, len);
		if (target < 0)
			return imgp_fail(EINVAL, "%s: __local_fixups__ names node '%s' that is not there",
					 t->what, name);
		rc = rpi_local_fixups(t, sub, target, delta);
		if (rc)
			return rc;
	}
	return 0;
}

/* Step 1 for __fixups__: the base's labels into the overlay (*base_max may grow). */
static int rpi_resolve_labels(struct rpi_tree *base, struct rpi_tree *ovl,
			      uint32_t *base_max)
{
	int fix = fdt_path_offset(ovl->fdt, "/__fixups__"), sym, prop, rc;

	if (fix < 0 || fdt_first_property_offset(ovl->fdt, fix) < 0)
		return 0;
	sym = fdt_path_offset(base->fdt, "/__symbols__");
	if (sym < 0)
		return imgp_fail(EINVAL, "the base tree has no __symbols__ (it was not compiled with dtc -@), so the labels %s refers to cannot be found",
				 ovl->what);
	fdt_for_each_property_offset(prop, ovl->fdt, fix) {
		const char *label, *path, *list;
		uint32_t phandle;
		int len, plen, node;

		list = fdt_getprop_by_offset(ovl->fdt, prop, &label, &len);
		if (!list)
			return imgp_rpi_tree_fail_(ovl, len);
		plen = (int)strlen(label) + 1;
		path = label[0] == '/' ? label : fdt_getprop(base->fdt, sym, label, &plen);
		if (!path)
			return imgp_fail(ENOENT, "%s refers to label '%s', which the base tree does not have",
					 ovl->what, label);
		/* dtmerge takes a symbol as a path; libfdt would take an alias, too. */
		if (plen < 2 || memchr(path, '\0', (size_t)plen) != path + plen - 1)
			return imgp_fail(EBADMSG, "the base tree's __symbols__ entry '%s' is not a path",
					 label);
		node = imgp_dt_path_offset_(base->fdt, path, plen - 1);
		if (node < 0)
			return imgp_fail(ENOENT, "%s refers to '%s' (%s), which is not in the base tree",
					 ovl->what, label, path);
		phandle = fdt_get_phandle(base->fdt, node);
		if (!phandle) {
			fdt32_t cell = cpu_to_fdt32(++*base_max);

			phandle = *base_max;
			rc = imgp_rpi_setprop_(base, node, "phandle", &cell, sizeof(cell));
			if (rc)
				return rc;
			sym = fdt_path_offset(base->fdt, "/__symbols__");
		}
		rc = rpi_fixup_list(ovl, list, len, phandle, false);
		if (rc)
			return rc;
	}
	return 0;
}

/* Step 1 for the overlay's own phandles: moved past the base's largest. */
static int rpi_relocate(struct rpi_tree *ovl, uint32_t delta)
{
	static const char *const names[] = { "phandle", "linux,phandle" };
	int node, fix, len;
	const char *list;

	for (node = 0; node >= 0; node = fdt_next_node(ovl->fdt, node, NULL)) {
		for (size_t i = 0; i < 2; i++) {
			uint8_t *val = fdt_getprop_w(ovl->fdt, node, names[i], &len);

			if (!val)
				continue;
			if (len < 4)
				return imgp_fail(EINVAL, "%s: %s property too small", ovl->what,
						 names[i]);
			fdt32_st(val, fdt32_ld((fdt32_t *)val) + delta);
		}
	}
	fix = fdt_path_offset(ovl->fdt, "/__local_fixups__");
	if (fix < 0)
		return 0;
	/*
	 * Old dtc wrote one "fixup" list instead of a mirrored tree (a root
	 * with a "fixup" of its own has it mirrored, as the shape check reads it).
	 */
	list = fdt_getprop(ovl->fdt, fix, "fixup", &len);
	if (list && !fdt_getprop(ovl->fdt, 0, "fixup", NULL))
		return rpi_fixup_list(ovl, list, len, delta, true);
	return rpi_local_fixups(ovl, fix, 0, delta);
}

/*
 * The node a fragment targets: in base (its target-path or target), or,
 * base NULL, inside the overlay itself (target only, a phandle of its
 * own: at most ovl_max). -ENOENT with imgp_fail() when there is none.
 */
static int rpi_fragment_target(const struct rpi_tree *base,
			       const struct rpi_tree *ovl, int frag,
			       uint32_t ovl_max)
{
	const char *name = fdt_get_name(ovl->fdt, frag, NULL), *path;
	const fdt32_t *target;
	uint32_t phandle;
	int len, node;

	path = fdt_getprop(ovl->fdt, frag, "target-path", &len);
	if (path) {
		if (!base)
			return -ENOENT;
		if (len && path[len - 1] == '\0')
			len--;
		if (!len || memchr(path, '\0', (size_t)len))
			return imgp_fail(EBADMSG, "%s: %s: target-path is not a path", ovl->what,
					 name);
		node = imgp_dt_path_offset_(base->fdt, path, len);
		if (node == -FDT_ERR_BADVALUE)
			return imgp_fail(EBADMSG, "%s: %s: target-path '%.*s' is an alias whose value in the base tree is not a path from the root",
					 ovl->what, name, len, path);
		if (node < 0)
			return imgp_fail(ENOENT, "%s: %s: target-path '%.*s' is not in the base tree",
					 ovl->what, name, len, path);
		return node;
	}
	target = fdt_getprop(ovl->fdt, frag, "target", &len);
	if (!target || len != 4) {
		if (!base)
			return -ENOENT;
		return imgp_fail(ENOENT, "%s: %s has no target or target-path",
				 ovl->what, name);
	}
	phandle = fdt32_ld(target);
	if (!base) {
		if (phandle > ovl_max)
			return -ENOENT;
		node = fdt_node_offset_by_phandle(ovl->fdt, phandle);
		return node < 0 ? -ENOENT : node;
	}
	node = fdt_node_offset_by_phandle(base->fdt, phandle);
	if (node < 0)
		return imgp_fail(ENOENT, "%s: %s: its target (phandle %u) is not in the base tree",
				 ovl->what, name, phandle);
	return node;
}

/*
 * Merges node src of tree from into node dst of t: properties replaced
 * (except the top node's phandle, unless it asks to keep it), "bootargs"
 * appended to, subnodes merged by name or added.
 */
static int rpi_merge_node(struct rpi_tree *t, int dst, const struct rpi_tree *from,
			  int src, int depth)
{
	bool keep_phandle = depth > 0 ||
		fdt_getprop(from->fdt, src, "dtoverlay,preserve-phandle", NULL);
	int prop, sub, len, oldlen, rc = 0;

	fdt_for_each_property_offset(prop, from->fdt, src) {
		const char *name, *old;
		const void *val = fdt_getprop_by_offset(from->fdt, prop, &name, &len);

		if (!val)
			return imgp_rpi_tree_fail_(from, len);
		if (strcmp(name, "name") == 0 ||
		    strcmp(name, "dtoverlay,preserve-phandle") == 0 ||
		    (!keep_phandle && (strcmp(name, "phandle") == 0 ||
				       strcmp(name, "linux,phandle") == 0)))
			continue;
		old = fdt_getprop(t->fdt, dst, name, &oldlen);
		if (strcmp(name, "bootargs") == 0 && old && oldlen > 0 && old[0]) {
			struct imgp_buf joined = { 0 };

			if (imgp_buf_append(&joined, old, (size_t)oldlen - 1) ||
			    imgp_buf_append(&joined, " ", 1) ||
			    imgp_buf_append(&joined, val, (size_t)len))
				rc = imgp_fail(ENOMEM, "out of memory");
			else
				rc = imgp_rpi_setprop_(t, dst, name, joined.data, (int)joined.len);
			imgp_buf_free(&joined);
		} else {
			rc = imgp_rpi_setprop_(t, dst, name, val, len);
		}
		if (rc)
			return rc;
	}
	fdt_for_each_subnode(sub, from->fdt, src) {
		const char *name = fdt_get_name(from->fdt, sub, &len);
		int node = fdt_subnode_offset_namelen(t->fdt, dst, name, len);

		if (node < 0)
			node = imgp_rpi_add_subnode_(t, dst, name, len);
		if (node < 0)
			return node;
		rc = rpi_merge_node(t, node, from, sub, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Path properties of src (in ovl) into node dst of base: one that points
 * into a fragment ("/fragment@0/__overlay__/x") is rebased onto the
 * fragment's target ("/soc/x"), any other copied as it is.
 */
static int rpi_copy_paths(struct rpi_tree *base, int dst, const struct rpi_tree *ovl,
			  int src)
{
	int prop, len, rc;

	fdt_for_each_property_offset(prop, ovl->fdt, src) {
		const char *name, *slash, *rest;
		const char *path = fdt_getprop_by_offset(ovl->fdt, prop, &name, &len);
		struct imgp_buf rebased = { 0 };
		char target[1024];
		int frag, node;

		if (!path)
			return imgp_rpi_tree_fail_(ovl, len);
		slash = path[0] == '/' ? strchr(path + 1, '/') : NULL;
		if (!slash || strncmp(slash + 1, "__overlay__", 11) != 0 ||
		    (slash[12] != '/' && slash[12] != '\0')) {
			rc = imgp_rpi_setprop_(base, dst, name, path, len);
			if (rc)
				return rc;
			continue;
		}
		frag = fdt_path_offset_namelen(ovl->fdt, path, (int)(slash - path));
		node = frag < 0 ? frag : rpi_fragment_target(base, ovl, frag, 0);
		if (node < 0)
			return frag < 0 ? imgp_fail(ENOENT, "%s: symbol '%s' points at no fragment",
						    ovl->what, name) : node;
		rc = fdt_get_path(base->fdt, node, target, sizeof(target));
		if (rc)
			return imgp_rpi_tree_fail_(base, rc);
		rest = slash + 12;
		/* The root as target: "/" + "/x" is "/x". */
		if (strcmp(target, "/") == 0 && *rest)
			rest++;
		if (imgp_buf_printf(&rebased, "%s%s", target, rest))
			return imgp_fail(ENOMEM, "out of memory");
		rc = imgp_rpi_setprop_(base, dst, name, rebased.data, (int)rebased.len + 1);
		imgp_buf_free(&rebased);
		if (rc)
			return rc;
	}
	return 0;
}

/* Only the symbols __exports__ names leave the overlay; none without it. */
static int rpi_filter_symbols(struct rpi_tree *ovl)
{
	int sym = fdt_path_offset(ovl->fdt, "/__symbols__"), exports, prop, rc;

	if (sym < 0)
		return 0;
	if (fdt_path_offset(ovl->fdt, "/__exports__") < 0) {
		rc = fdt_del_node(ovl->fdt, sym);
		return rc ? imgp_rpi_tree_fail_(ovl, rc) : 0;
	}
	for (;;) {
		const char *name, *unexported = NULL;

		/* Deleting moves what follows: look again each time. */
		sym = fdt_path_offset(ovl->fdt, "/__symbols__");
		exports = fdt_path_offset(ovl->fdt, "/__exports__");
		fdt_for_each_property_offset(prop, ovl->fdt, sym) {
			if (!fdt_getprop_by_offset(ovl->fdt, prop, &name, NULL))
				return imgp_rpi_tree_fail_(ovl, prop);
			if (!fdt_getprop(ovl->fdt, exports, name, NULL)) {
				unexported = name;
				break;
			}
		}
		if (!unexported)
			return 0;
		rc = fdt_delprop(ovl->fdt, sym, unexported);
		if (rc)
			return imgp_rpi_tree_fail_(ovl, rc);
	}
}

/* The index-th subnode of the overlay's root; <0 past the last. */
static int rpi_nth_subnode(const void *fdt, int index)
{
	int node;

	fdt_for_each_subnode(node, fdt, 0)
		if (index-- == 0)
			return node;
	return -FDT_ERR_NOTFOUND;
}

/*
 * Fragments that target a node of the overlay itself are merged there
 * first, and then go dormant.
 */
static int rpi_merge_inside(struct rpi_tree *ovl, uint32_t ovl_max)
{
	int frag, rc;

	for (int i = 0; (frag = rpi_nth_subnode(ovl->fdt, i)) >= 0; i++) {
		struct rpi_tree merged;
		int src, target;

		if (!rpi_is_fragment(fdt_get_name(ovl->fdt, frag, NULL)))
			continue;
		src = fdt_subnode_offset(ovl->fdt, frag, "__overlay__");
		target = src < 0 ? -1 : rpi_fragment_target(NULL, ovl, frag, ovl_max);
		if (target < 0)
			continue;
		/* Merged into a copy: the source must not move under the merge. */
		rc = imgp_rpi_tree_copy_(&merged, ovl);
		if (!rc)
			rc = rpi_merge_node(&merged, target, ovl, src, 0);
		if (rc) {
			imgp_rpi_tree_free_(&merged);
			return rc;
		}
		imgp_rpi_tree_free_(ovl);
		*ovl = merged;
		frag = rpi_nth_subnode(ovl->fdt, i);
		src = fdt_subnode_offset(ovl->fdt, frag, "__overlay__");
		if (src >= 0) {
			rc = imgp_rpi_set_name_(ovl, src, "__dormant__");
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Step 3: the overlay's active fragments, symbols and aliases into base. */
static int rpi_merge(struct rpi_tree *base, struct rpi_tree *ovl, uint32_t ovl_max)
{
	int node, rc;

	rc = rpi_filter_symbols(ovl);
	if (!rc)
		rc = rpi_merge_inside(ovl, ovl_max);
	if (rc)
		return rc;
	fdt_for_each_subnode(node, ovl->fdt, 0) {
		const char *name = fdt_get_name(ovl->fdt, node, NULL), *tname;
		int src, target;

		if (strcmp(name, "__symbols__") == 0) {
			target = fdt_path_offset(base->fdt, "/__symbols__");
			rc = target < 0 ? 0 : rpi_copy_paths(base, target, ovl, node);
		} else if (rpi_is_fragment(name)) {
			src = fdt_subnode_offset(ovl->fdt, node, "__overlay__");
			/* Without one it is __dormant__: a parameter did not enable it. */
			if (src < 0)
				continue;
			target = rpi_fragment_target(base, ovl, node, ovl_max);
			if (target < 0)
				return target;
			tname = fdt_get_name(base->fdt, target, NULL);
			if (tname && strcmp(tname, "aliases") == 0)
				rc = rpi_copy_paths(base, target, ovl, src);
			else
				rc = rpi_merge_node(base, target, ovl, src, 0);
		}
		if (rc)
			return rc;
	}
	return 0;
}

int imgp_rpi_dtoverlay_(void **fdt, size_t *size, const void *overlay,
		       size_t len, const char *name, const char *params,
		       const char *what, struct imgp_buf *warnings)
{
	struct rpi_tree base = { 0 }, ovl = { 0 };
	struct imgp_buf label = { 0 }, line = { 0 };
	uint32_t base_max, ovl_max;
	int rc;

	if (imgp_buf_printf(&label, "overlay %s", name) ||
	    imgp_buf_printf(&line, "dtoverlay=%s", name)) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	rc = imgp_rpi_tree_load_(&base, *fdt, *size, "the base tree");
	if (!rc)
		rc = imgp_rpi_tree_load_(&ovl, overlay, len, (const char *)label.data);
	if (!rc) {
		rc = imgp_dt_overlay_check_shape_(ovl.fdt);
		if (rc)
			imgp_fail_ctx(rc, "broken %s", ovl.what);
	}
	if (rc)
		goto out;
	base_max = imgp_rpi_max_phandle_(base.fdt);
	ovl_max = imgp_rpi_max_phandle_(ovl.fdt);
	rc = rpi_resolve_labels(&base, &ovl, &base_max);
	if (!rc)
		rc = rpi_relocate(&ovl, base_max);
	ovl_max += base_max;
	if (!rc)
		rc = imgp_rpi_params_apply_(&ovl, &base, params,
				      what ? what : (const char *)line.data, warnings);
	if (!rc)
		rc = rpi_merge(&base, &ovl, ovl_max);
	if (rc)
		goto out;
	free(*fdt);
	*fdt = base.fdt;
	*size = base.size;
	base.fdt = NULL;
out:
	imgp_rpi_tree_free_(&base);
	imgp_rpi_tree_free_(&ovl);
	imgp_buf_free(&label);
	imgp_buf_free(&line);
	return rc;
}
