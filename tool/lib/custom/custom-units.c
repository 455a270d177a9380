// SPDX-License-Identifier: MIT
/*
 * The links `systemctl --root=R enable|disable|mask UNIT` makes or removes
 * (custom.h), worked out as systemd 252 does it offline: Debian 12's
 * systemd 252.39-1~deb12u2, src/shared/install.c (unit_file_enable,
 * unit_file_disable, unit_file_mask and what they call) and
 * src/basic/path-lookup.c (lookup_paths_init, the search path).
 *
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "custom/units.h"

/* ----------------------------------------------------------- the links */

static int unit_out_add(struct unit_ctx *c, const char *path, const char *target)
{
	struct imgp_unit_link *grown;
	struct imgp_unit_links *l = c->out;

	for (size_t k = 0; k < l->n; k++) {
		if (strcmp(l->v[k].path, path))
			continue;
		free(l->v[k].target);
		l->v[k].target = target ? strdup(target) : NULL;
		return target && !l->v[k].target ? -ENOMEM : 0;
	}
	grown = realloc(l->v, (l->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	l->v = grown;
	l->v[l->n].path = strdup(path);
	l->v[l->n].target = target ? strdup(target) : NULL;
	if (!l->v[l->n].path || (target && !l->v[l->n].target)) {
		free(l->v[l->n].path);
		free(l->v[l->n].target);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

/* The link at path as the root has it after the links planned so far. */
static int unit_link_now(struct unit_ctx *c, const char *path, char **target)
{
	char *dir, *canon = NULL, *file;
	int rc;

	*target = NULL;
	for (size_t k = 0; k < c->out->n; k++) {
		if (strcmp(c->out->v[k].path, path))
			continue;
		if (!c->out->v[k].target)
			return -ENOENT;
		*target = strdup(c->out->v[k].target);
		return *target ? 0 : -ENOMEM;
	}
	dir = imgp_unit_dirname_(path);
	rc = dir ? imgp_unit_chase_(c, dir, true, &canon) : -ENOMEM;
	free(dir);
	if (rc)
		return rc;
	file = imgp_unit_join_(canon, imgp_unit_basename_(path));
	free(canon);
	if (!file)
		return -ENOMEM;
	rc = imgp_unit_readlink_(c, file, target);
	free(file);
	return rc == -ENOTDIR ? -ENOENT : rc;
}

/* chroot_unit_symlinks_equivalent: the same file, or the same name in the search path. */
static bool unit_links_equivalent(struct unit_ctx *c, const char *link,
				  const char *a, const char *b)
{
	char *dir = imgp_unit_dirname_(link), *na = NULL, *nb = NULL, *ca = NULL, *cb = NULL;
	bool same = false;

	if (dir && !imgp_unit_normalize_(dir, a, &na) && !imgp_unit_normalize_(dir, b, &nb)) {
		same = !strcmp(na, nb);
		if (!same && !imgp_unit_chase_(c, na, true, &ca) && !imgp_unit_chase_(c, nb, true, &cb)) {
			char *t = NULL;

			/* files_same(): both must exist to be one file. */
			same = !strcmp(ca, cb) && imgp_unit_readlink_(c, ca, &t) == -EINVAL;
			free(t);
		}
		if (!same)
			same = !strcmp(imgp_unit_basename_(na), imgp_unit_basename_(nb)) &&
			       imgp_unit_under_search_path_(na) && imgp_unit_under_search_path_(nb);
	}
	free(dir);
	free(na);
	free(nb);
	free(ca);
	free(cb);
	return same;
}

/*
 * create_symlink: link -> target, unless an equivalent link is there.
 * Another link is replaced when force (WantedBy=, RequiredBy=), else
 * -EEXIST as systemctl fails; so is a file that is not a link.
 */
static int unit_make_link(struct unit_ctx *c, const char *target,
			  const char *link, bool force)
{
	char *now = NULL;
	int rc = unit_link_now(c, link, &now);

	if (rc == -ENOENT)
		return unit_out_add(c, link, target);
	if (rc == -EINVAL)
		return imgp_fail(EEXIST, "%s is there and is not a link", link);
	if (rc)
		return rc;
	if (unit_links_equivalent(c, link, now, target)) {
		free(now);
		return 0;
	}
	if (!force) {
		rc = imgp_fail(EEXIST, "%s is there and is a link to %s, not %s",
			       link, now, target);
		free(now);
		return rc;
	}
	free(now);
	return unit_out_add(c, link, target);
}

/* install_info_symlink_wants: CONFIG/DST.wants/NAME for each of list. */
static int unit_link_wants(struct unit_ctx *c, struct unit_info *i,
			   const struct unit_strv *list, const char *suffix)
{
	unsigned valid = IMGP_UNIT_PLAIN | IMGP_UNIT_INSTANCE | IMGP_UNIT_TEMPLATE;
	struct unit_info inst = { 0 };
	const char *n = i->name;
	int rc = 0;

	if (!list->n)
		return 0;
	if (imgp_unit_name_kind_(i->name) == IMGP_UNIT_TEMPLATE) {
		if (i->default_instance) {
			rc = imgp_unit_name_with_instance_(i->name, i->default_instance,
							  &inst.name);
			if (!rc)
				rc = imgp_unit_search_(c, &inst, false);
			if (!rc && inst.mode == MODE_MASKED)
				rc = imgp_fail(EINVAL, "%s is masked", inst.path);
			n = inst.name;
		} else {
			/* Only a template or an instance may want a bare template. */
			valid = IMGP_UNIT_INSTANCE | IMGP_UNIT_TEMPLATE;
		}
	}
	for (size_t k = 0; !rc && k < list->n; k++) {
		char *dst = NULL, *path = NULL;

		rc = imgp_unit_printf_(i, i->path, list->v[k], &dst);
		if (!rc && !(imgp_unit_name_kind_(dst) & valid))
			rc = imgp_fail(EINVAL, "%s: %s%s: %s", i->path,
				       !strcmp(suffix, ".wants") ? "WantedBy=" : "RequiredBy=",
				       dst, imgp_unit_name_kind_(dst) ?
				       "a template without DefaultInstance= needs an "
				       "instance: name one (NAME@INSTANCE)" :
				       "not a unit name");
		if (!rc && asprintf(&path, UNIT_CONFIG_DIR "/%s%s/%s", dst, suffix, n) < 0) {
			path = NULL;
			rc = -ENOMEM;
		}
		if (!rc)
			rc = unit_make_link(c, i->path, path, true);
		free(dst);
		free(path);
	}
	free(inst.name);
	free(inst.path);
	free(inst.link_target);
	return rc;
}

/* install_info_symlink_alias and unit_file_verify_alias: CONFIG/ALIAS for each Alias=. */
static int unit_link_aliases(struct unit_ctx *c, struct unit_info *i)
{
	int rc = 0;

	for (size_t k = 0; !rc && k < i->aliases.n; k++) {
		char *dst = NULL, *updated = NULL, *path = NULL, *si = NULL;
		const char *slash, *name;

		rc = imgp_unit_printf_(i, i->path, i->aliases.v[k], &dst);
		if (rc)
			break;
		slash = strrchr(dst, '/');
		if (slash) {
			/* The old spelling of WantedBy=: Alias=foo.target.wants/NAME. */
			size_t dl = (size_t)(slash - dst);
			char *dir = strndup(dst, dl);
			char *end = NULL;

			if (dir && dl > 6 && !strcmp(dir + dl - 6, ".wants"))
				end = dir + dl - 6;
			else if (dir && dl > 9 && !strcmp(dir + dl - 9, ".requires"))
				end = dir + dl - 9;
			if (end)
				*end = '\0';
			if (!end || !imgp_unit_name_kind_(dir) ||
			    (strcmp(slash + 1, i->name) &&
			     !(imgp_unit_name_kind_(slash + 1) == IMGP_UNIT_INSTANCE &&
			       imgp_unit_name_kind_(i->name) == IMGP_UNIT_TEMPLATE &&
			       !imgp_unit_name_template_(slash + 1, &si) &&
			       !strcmp(si, i->name))))
				rc = imgp_fail(EINVAL, "%s: Alias=%s: not a link systemd "
					       "makes for %s", i->path, dst, i->name);
			free(dir);
		} else {
			if (imgp_unit_name_kind_(dst) == IMGP_UNIT_TEMPLATE &&
			    imgp_unit_name_kind_(i->name) == IMGP_UNIT_INSTANCE) {
				rc = imgp_unit_name_instance_(i->name, &si);
				if (!rc)
					rc = imgp_unit_name_with_instance_(dst, si, &updated);
				free(si);
				si = NULL;
			}
			name = updated ? updated : dst;
			if (!rc)
				rc = imgp_unit_alias_check_(name, i->name);
			if (rc == -ELOOP) {
				/* A unit's alias to itself is quietly skipped. */
				rc = 0;
				free(dst);
				free(updated);
				continue;
			}
			if (rc && rc != -ENOMEM)
				rc = imgp_fail(EINVAL, "%s: Alias=%s: not an alias systemd "
					       "accepts for %s", i->path, dst, i->name);
		}
		if (!rc && asprintf(&path, UNIT_CONFIG_DIR "/%s", updated ? updated : dst) < 0) {
			path = NULL;
			rc = -ENOMEM;
		}
		if (!rc)
			rc = unit_make_link(c, i->path, path, false);
		free(dst);
		free(updated);
		free(path);
		free(si);
	}
	return rc;
}

static void unit_ctx_free(struct unit_ctx *c)
{
	for (size_t k = 0; k < c->n; k++)
		imgp_unit_info_free_(c->v[k]);
	free(c->v);
	imgp_unit_strv_free_(&c->marked);
}

void imgp_unit_links_free_(struct imgp_unit_links *l)
{
	for (size_t k = 0; k < l->n; k++) {
		free(l->v[k].path);
		free(l->v[k].target);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/*
 * The name systemctl acts on: mangle_names() gives a bare name the suffix
 * .service; anything else must be a unit name as systemd checks it.
 */
static int unit_request(const char *unit, char **name)
{
	*name = NULL;
	if (!unit || !*unit || strlen(unit) > 255 || strchr(unit, '/'))
		return imgp_fail(EINVAL, "'%s' is not a unit name", unit ? unit : "");
	if (!imgp_unit_name_type_(unit)) {
		if (asprintf(name, "%s.service", unit) < 0) {
			*name = NULL;
			return -ENOMEM;
		}
	} else {
		*name = strdup(unit);
		if (!*name)
			return -ENOMEM;
	}
	if (!imgp_unit_name_kind_(*name) ||
	    (imgp_unit_name_kind_(*name) != IMGP_UNIT_PLAIN &&
	     !imgp_unit_type_may_template_(*name))) {
		free(*name);
		*name = NULL;
		return imgp_fail(EINVAL, "'%s' is not a unit name systemd accepts", unit);
	}
	return 0;
}

static int unit_start(const struct imgp_unit_root *root, const char *unit,
		      struct imgp_unit_links *out, struct unit_ctx *c,
		      struct unit_info **start)
{
	char *name;
	int rc;

	memset(c, 0, sizeof(*c));
	c->root = root;
	c->out = out;
	out->v = NULL;
	out->n = 0;
	rc = unit_request(unit, &name);
	if (!rc)
		rc = imgp_unit_add_(c, name, false, start);
	free(name);
	return rc;
}

int imgp_units_enable_(const struct imgp_unit_root *root, const char *unit,
		      struct imgp_unit_links *out)
{
	struct unit_ctx c;
	struct unit_info *start, *i;
	size_t rules = 0;
	int rc;

	rc = unit_start(root, unit, out, &c, &start);
	/* install_info_discover_and_check */
	if (!rc)
		rc = imgp_unit_traverse_(&c, start, true, &i);
	if (!rc && i->mode == MODE_MASKED)
		rc = imgp_fail(EINVAL, "%s is masked (%s)", i->name, i->path);
	/* install_context_apply: every unit named so far, Also= ones added as it goes. */
	for (size_t k = 0; !rc && k < c.n; k++) {
		i = c.v[k];
		if (i->processed)
			continue;
		i->processed = true;
		rc = imgp_unit_traverse_(&c, i, false, NULL);
		if (rc) {
			/* A unit named by Also= that is missing is skipped. */
			if (!i->auxiliary)
				break;
			imgp_errclear_();
			rc = 0;
			continue;
		}
		if (i->mode == MODE_MASKED) {
			rules++;
			continue;
		}
		if (i->mode != MODE_REGULAR)
			continue;
		if (!imgp_unit_in_search_path_(i->path)) {
			char *link = imgp_unit_join_(UNIT_CONFIG_DIR, i->name);

			rc = link ? unit_make_link(&c, i->path, link, false) : -ENOMEM;
			free(link);
		}
		rules += i->aliases.n + i->wanted_by.n + i->required_by.n;
		if (!rc)
			rc = unit_link_aliases(&c, i);
		if (!rc)
			rc = unit_link_wants(&c, i, &i->wanted_by, ".wants");
		if (!rc)
			rc = unit_link_wants(&c, i, &i->required_by, ".requires");
	}
	/*
	 * systemctl only warns "The unit files have no installation config"
	 * and exits 0; customize refuses, since a unit its user asked to
	 * enable that still does not start at boot is a setting that
	 * silently does nothing.
	 */
	if (!rc && !rules)
		rc = imgp_fail(EINVAL, "%s has no [Install] section (WantedBy=, "
			       "RequiredBy=, Alias=, Also=): systemctl enable makes no "
			       "link for it; it starts when another unit needs it",
			       start->path ? start->path : start->name);
	if (rc)
		imgp_unit_links_free_(out);
	unit_ctx_free(&c);
	return rc;
}

/*
 * remove_marked_symlinks_fd: every link below dir (a folder of
 * /etc/systemd/system, folders entered but links to folders not) named as a
 * marked unit or its template, or resolving to a marked path or name.
 * *again: a link was marked, so links to it go too on a further pass.
 */
static int unit_remove_walk(struct unit_ctx *c, const char *dir, unsigned depth,
			    bool *again)
{
	char *canon = NULL, **names = NULL;
	size_t n = 0;
	int rc;

	if (depth > UNIT_TREE_DEPTH)
		return 0;
	rc = imgp_unit_chase_(c, dir, true, &canon);
	if (!rc)
		rc = c->root->list(c->root->arg, canon, &names, &n);
	if (rc == -ENOENT || rc == -ENOTDIR)
		rc = 0, n = 0;
	for (size_t k = 0; k < n; k++) {
		char *path = NULL, *target = NULL, *tmpl = NULL, *dest = NULL;
		bool found;

		if (rc || ++c->walked > UNIT_TREE_ENTRIES) {
			if (!rc)
				rc = imgp_fail(E2BIG, "%s: over %d names", UNIT_CONFIG_DIR,
					       UNIT_TREE_ENTRIES);
			goto next;
		}
		/* A lister that names "." or ".." must not send the walk in circles. */
		if (!strcmp(names[k], ".") || !strcmp(names[k], "..") || strchr(names[k], '/'))
			goto next;
		path = imgp_unit_join_(dir, names[k]);
		if (!path) {
			rc = -ENOMEM;
			goto next;
		}
		rc = unit_link_now(c, path, &target);
		if (rc == -EINVAL) {
			/* Not a link: a folder to enter, or a file. */
			rc = unit_remove_walk(c, path, depth + 1, again);
			goto next;
		}
		if (rc == -ENOENT) {
			rc = 0; /* removed already */
			goto next;
		}
		if (rc || !imgp_unit_name_kind_(names[k]))
			goto next;
		found = imgp_unit_strv_has_(&c->marked, names[k]) ||
			(!imgp_unit_name_template_(names[k], &tmpl) &&
			 imgp_unit_strv_has_(&c->marked, tmpl));
		if (!found) {
			rc = imgp_unit_chase_(c, path, true, &dest);
			if (rc)
				goto next;
			found = imgp_unit_strv_has_(&c->marked, dest) ||
				imgp_unit_strv_has_(&c->marked, imgp_unit_basename_(dest));
		}
		if (found) {
			rc = unit_out_add(c, path, NULL);
			if (!rc && !imgp_unit_strv_has_(&c->marked, path)) {
				rc = imgp_unit_strv_push_(&c->marked, path);
				*again = true;
			}
		}
next:
		free(path);
		free(target);
		free(tmpl);
		free(dest);
		free(names[k]);
	}
	free(names);
	free(canon);
	return rc;
}

int imgp_units_disable_(const struct imgp_unit_root *root, const char *unit,
		       struct imgp_unit_links *out)
{
	struct unit_ctx c;
	struct unit_info *start;
	bool again = true;
	int rc;

	rc = unit_start(root, unit, out, &c, &start);
	/* install_context_mark_for_removal */
	for (size_t k = 0; !rc && k < c.n; k++) {
		struct unit_info *i = c.v[k];

		if (i->processed)
			continue;
		i->processed = true;
		rc = imgp_unit_traverse_(&c, i, true, NULL);
		if (rc == -ENOENT && i->auxiliary) {
			imgp_errclear_();
			rc = 0;
			continue;
		}
		if (rc == -ENOENT)
			break;
		if (rc) {
			/* A dangling alias or a bad link: its name's links still go. */
			imgp_errclear_();
			rc = 0;
		} else if (i->mode != MODE_REGULAR) {
			continue; /* masked, or an alias: its unit is marked instead */
		}
		rc = imgp_unit_strv_push_(&c.marked, i->name);
	}
	while (!rc && again) {
		again = false;
		rc = unit_remove_walk(&c, UNIT_CONFIG_DIR, 0, &again);
	}
	if (rc)
		imgp_unit_links_free_(out);
	unit_ctx_free(&c);
	return rc;
}

/*
 * unit_file_mask: CONFIG/NAME -> /dev/null. systemctl masks a name it
 * cannot find too; customize refuses one, as a typed name that matches
 * nothing in the image is more likely a mistake than a plan.
 */
int imgp_units_mask_(const struct imgp_unit_root *root, const char *unit,
		    struct imgp_unit_links *out)
{
	struct unit_ctx c;
	struct unit_info *start;
	char *link = NULL;
	int rc;

	rc = unit_start(root, unit, out, &c, &start);
	if (!rc)
		rc = imgp_unit_search_(&c, start, false);
	if (!rc) {
		link = imgp_unit_join_(UNIT_CONFIG_DIR, start->name);
		rc = link ? unit_make_link(&c, "/dev/null", link, false) : -ENOMEM;
	}
	free(link);
	if (rc)
		imgp_unit_links_free_(out);
	unit_ctx_free(&c);
	return rc;
}
