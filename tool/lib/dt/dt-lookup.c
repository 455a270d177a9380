// SPDX-License-Identifier: MIT
/*
 * Device tree node lookup: resolving the node specs users type (a path,
 * a label, a node name with or without its unit address) to a node, with
 * the candidates named when none or several match.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libfdt.h>

#include "core/distance.h"
#include "dt-internal.h"
#include "dt/dt.h"

/* Candidate lists in messages stop here: a message is not a listing. */
#define DT_LIST_MAX 12
#define DT_PATH_MAX 1024

/* ------------------------------------------------------------ matching */

/* Length of a node name without its unit address ("mmc" of "mmc@ff170000"). */
static size_t dt_base_len(const char *name)
{
	return strcspn(name, "@");
}

bool imgp_dt_base_eq_(const char *name, const char *base, size_t len)
{
	return dt_base_len(name) == len && strncmp(name, base, len) == 0;
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
		return name && imgp_dt_base_eq_(name, spec, strlen(spec));
	}
	return false;
}

int imgp_dt_walk_error_(int rc)
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

		if (baselen && name && imgp_dt_base_eq_(name, base, baselen))
			dt_list_add(fdt, node, &l);
	}
	if (!l.count) {
		kind = "SD/eMMC controllers";
		for (node = fdt_next_node(fdt, -1, NULL); node >= 0;
		     node = fdt_next_node(fdt, node, NULL))
			if (imgp_dt_is_mmc_(fdt, node))
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
		node = imgp_dt_path_offset_(fdt, path, len - 1);
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
		    imgp_dt_is_mmc_(fdt, node))
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

int imgp_dt_find_node_(const struct imgp_dtb *dtb, const char *spec)
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
		rc = imgp_dt_walk_error_(node);
	} else if (l.err) {
		rc = imgp_fail(ENOMEM, "out of memory");
	} else if (l.count == 1) {
		rc = l.first;
	} else if (l.count > 1) {
		/* A &label only works where the tree kept its labels (dtc -@). */
		rc = imgp_fail(EEXIST, "node '%s' is ambiguous (matches: %s); give a full path%s",
			       spec, (const char *)l.buf.data,
			       fdt_path_offset(fdt, "/__symbols__") >= 0 ? " or a &label" : "");
	} else {
		base = strrchr(spec, '/');
		base = base ? base + 1 : spec;
		rc = dt_not_found(fdt, "node", spec, base, dt_base_len(base));
	}
	imgp_buf_free(&l.buf);
	return rc;
}

/* ---------------------------------------------------------- properties */

/* Property names this close to the one asked for are offered as typos. */
#define DT_CLOSE 2

bool imgp_dt_has_prop_(const struct imgp_dtb *dtb, const char *path,
		      const char *prop)
{
	int node;

	if (!dtb->fdt)
		return false;
	node = imgp_dt_path_offset_(dtb->fdt, path, (int)strlen(path));
	return node >= 0 && fdt_getprop(dtb->fdt, node, prop, NULL) != NULL;
}

bool imgp_dt_prop_is_typo_(const struct imgp_dtb *dtb, int node, const char *prop)
{
	const void *fdt = dtb->fdt;
	int off;

	fdt_for_each_property_offset(off, fdt, node) {
		const char *name;

		if (fdt_getprop_by_offset(fdt, off, &name, NULL) && strcmp(name, prop) &&
		    (!strcasecmp(name, prop) || imgp_word_distance_(name, prop) <= DT_CLOSE))
			return true;
	}
	return false;
}

int imgp_dt_prop_not_found_(const struct imgp_dtb *dtb, int node,
			   const char *prop)
{
	const void *fdt = dtb->fdt;
	struct imgp_buf close = { 0 }, all = { 0 };
	size_t nclose = 0, nall = 0;
	int off, err = 0, rc;

	fdt_for_each_property_offset(off, fdt, node) {
		const char *name;

		if (!fdt_getprop_by_offset(fdt, off, &name, NULL))
			continue;
		if (nall < DT_LIST_MAX)
			err |= imgp_buf_printf(&all, "%s%s", nall ? ", " : "", name);
		else if (nall == DT_LIST_MAX)
			err |= imgp_buf_printf(&all, ", ...");
		nall++;
		if (strcasecmp(name, prop) &&
		    imgp_word_distance_(name, prop) > DT_CLOSE)
			continue;
		if (nclose < DT_LIST_MAX)
			err |= imgp_buf_printf(&close, "%s%s", nclose ? ", " : "", name);
		nclose++;
	}
	if (err)
		rc = imgp_fail(ENOMEM, "out of memory");
	else if (nclose)
		rc = imgp_fail(ENOENT, "property '%s' not found (candidates: %s)",
			       prop, (const char *)close.data);
	else if (nall)
		rc = imgp_fail(ENOENT, "property '%s' not found (the node has: %s)",
			       prop, (const char *)all.data);
	else
		rc = imgp_fail(ENOENT, "property '%s' not found (the node has none)",
			       prop);
	imgp_buf_free(&close);
	imgp_buf_free(&all);
	return rc;
}
