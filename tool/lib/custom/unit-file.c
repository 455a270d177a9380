// SPDX-License-Identifier: MIT
/*
 * A unit's files as `systemctl --root` reads them to install it
 * (systemd 252.39, src/shared/install.c: unit_file_search,
 * unit_file_load_or_readlink, install_info_traverse, the [Install] items):
 * the unit found in the search path, its links followed, its [Install]
 * section and drop-ins parsed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "custom/units.h"

static struct unit_info *unit_find(struct unit_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i]->name, name))
			return c->v[i];
	return NULL;
}

/* install_info_add: the unit of that name, added when new. */
int imgp_unit_add_(struct unit_ctx *c, const char *name, bool auxiliary,
		  struct unit_info **out)
{
	struct unit_info *i, **grown;

	if (!imgp_unit_name_kind_(name))
		return imgp_fail(EINVAL, "'%s' is not a unit name systemd accepts", name);
	i = unit_find(c, name);
	if (i) {
		i->auxiliary = i->auxiliary && auxiliary;
		*out = i;
		return 0;
	}
	if (c->n >= UNIT_INFOS_MAX)
		return imgp_fail(E2BIG, "%s: over %d units named by Also=", name,
				 UNIT_INFOS_MAX);
	grown = realloc(c->v, (c->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->v = grown;
	i = calloc(1, sizeof(*i));
	if (!i || !(i->name = strdup(name))) {
		free(i);
		return -ENOMEM;
	}
	i->auxiliary = auxiliary;
	c->v[c->n++] = i;
	*out = i;
	return 0;
}

void imgp_unit_info_free_(struct unit_info *i)
{
	free(i->name);
	free(i->path);
	free(i->link_target);
	imgp_unit_strv_free_(&i->aliases);
	imgp_unit_strv_free_(&i->wanted_by);
	imgp_unit_strv_free_(&i->required_by);
	free(i->default_instance);
	free(i);
}

/*
 * install_name_printf: the specifiers that name units (%n %N %p %i %j %%).
 * The others (%H, %m, %b, ...) are the running machine's, which an image
 * at rest does not have: refused rather than filled from this host.
 */
int imgp_unit_printf_(const struct unit_info *i, const char *file,
		     const char *fmt, char **out)
{
	struct imgp_buf b = { 0 };
	char *part = NULL;
	int rc = 0;

	*out = NULL;
	for (const char *p = fmt; *p && !rc; p++) {
		if (*p != '%') {
			rc = imgp_buf_append(&b, p, 1);
			continue;
		}
		p++;
		switch (*p) {
		case '%':
			rc = imgp_buf_append(&b, "%", 1);
			continue;
		case 'n':
			if (imgp_unit_name_kind_(i->name) == IMGP_UNIT_TEMPLATE &&
			    i->default_instance)
				rc = imgp_unit_name_with_instance_(i->name,
								  i->default_instance, &part);
			else
				part = strdup(i->name);
			break;
		case 'N':
			rc = imgp_unit_name_prefix_(i->name, true, &part);
			if (!rc && part[strlen(part) - 1] == '@' && i->default_instance) {
				char *with;

				if (asprintf(&with, "%s%s", part, i->default_instance) < 0)
					rc = -ENOMEM;
				else {
					free(part);
					part = with;
				}
			}
			break;
		case 'p':
		case 'j':
			rc = imgp_unit_name_prefix_(i->name, false, &part);
			if (!rc && *p == 'j' && strrchr(part, '-')) {
				char *last = strdup(strrchr(part, '-') + 1);

				free(part);
				part = last;
			}
			break;
		case 'i':
			rc = imgp_unit_name_instance_(i->name, &part);
			if (!rc && !*part && i->default_instance) {
				free(part);
				part = strdup(i->default_instance);
			}
			break;
		default:
			imgp_buf_free(&b);
			return imgp_fail(EINVAL, "%s: [Install] '%s': specifier %%%.1s is "
					 "the running system's, unknown in an image",
					 file, fmt, *p ? p : "");
		}
		if (!rc && !part)
			rc = -ENOMEM;
		if (!rc)
			rc = imgp_buf_append(&b, part, strlen(part));
		free(part);
		part = NULL;
	}
	if (!rc)
		rc = imgp_buf_append(&b, "", 1);
	if (!rc)
		*out = (char *)imgp_buf_steal_(&b, NULL);
	imgp_buf_free(&b);
	return rc;
}

/*
 * extract_first_word(EXTRACT_UNQUOTE|EXTRACT_RETAIN_ESCAPE): the next word
 * of *p, quotes taken off, backslashes kept; NULL at the end.
 */
static char *unit_next_word(const char **p)
{
	struct imgp_buf b = { 0 };
	char quote = 0;
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	for (; *s && (quote || (*s != ' ' && *s != '\t')); s++) {
		if (quote && *s == quote) {
			quote = 0;
		} else if (!quote && (*s == '"' || *s == '\'')) {
			quote = *s;
		} else {
			if (*s == '\\' && s[1])
				imgp_buf_append(&b, s++, 1);
			imgp_buf_append(&b, s, 1);
		}
	}
	*p = s;
	if (imgp_buf_append(&b, "", 1)) {
		imgp_buf_free(&b);
		return NULL;
	}
	return (char *)imgp_buf_steal_(&b, NULL);
}

/* One assignment of [Install], as install.c's items[] reads it. */
static int unit_install_key(struct unit_ctx *c, struct unit_info *i,
			    const char *file, const char *key, const char *value)
{
	struct unit_strv *list = NULL;
	char *word, *printed;
	int rc = 0;

	if (!strcmp(key, "DefaultInstance")) {
		/* Only a template has one; an instance ignores it silently. */
		if (imgp_unit_name_kind_(i->name) != IMGP_UNIT_TEMPLATE)
			return 0;
		rc = imgp_unit_printf_(i, file, value, &printed);
		if (rc)
			return rc;
		if (!*printed || !imgp_unit_instance_valid_(printed)) {
			/* systemd warns and ignores a bad one; "" resets it. */
			if (!*printed) {
				free(i->default_instance);
				i->default_instance = NULL;
			}
			free(printed);
			return 0;
		}
		free(i->default_instance);
		i->default_instance = printed;
		return 0;
	}
	if (!strcmp(key, "Also")) {
		for (const char *p = value; (word = unit_next_word(&p));) {
			struct unit_info *also;

			rc = imgp_unit_printf_(i, file, word, &printed);
			free(word);
			if (rc)
				return rc;
			rc = imgp_unit_add_(c, printed, true, &also);
			if (rc)
				rc = imgp_fail_ctx(rc, "%s: Also=", file);
			free(printed);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (!strcmp(key, "Alias")) {
		if (!imgp_unit_type_may_alias_(i->name))
			return 0; /* "Alias= is not allowed for %s units, ignoring." */
		list = &i->aliases;
	} else if (!strcmp(key, "WantedBy")) {
		list = &i->wanted_by;
	} else if (!strcmp(key, "RequiredBy")) {
		list = &i->required_by;
	} else {
		return 0;
	}
	if (!*value) {
		imgp_unit_strv_free_(list); /* an empty assignment resets the list */
		return 0;
	}
	for (const char *p = value; !rc && (word = unit_next_word(&p));) {
		rc = imgp_unit_strv_push_(list, word);
		free(word);
	}
	return rc;
}

static char *unit_strip(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/*
 * The [Install] section of a unit file or drop-in, as config_parse() reads
 * it: comments (# ;), a trailing backslash continues the line, the last
 * section header wins.
 */
static int unit_parse(struct unit_ctx *c, struct unit_info *i, const char *file,
		      char *text)
{
	struct imgp_buf line = { 0 };
	bool install = false;
	int rc = 0;

	for (char *p = text, *e; p && !rc; p = e) {
		char *l, *eq;
		bool cont;

		l = p;
		e = strchr(p, '\n');
		if (e)
			*e++ = '\0';
		l = unit_strip(l);
		if (line.len == 0 && (*l == '#' || *l == ';'))
			continue;
		if (line.len && (*l == '#' || *l == ';'))
			continue; /* a comment inside a continued line */
		cont = *l && l[strlen(l) - 1] == '\\';
		if (cont)
			l[strlen(l) - 1] = ' ';
		rc = imgp_buf_append(&line, l, strlen(l));
		if (rc || cont)
			continue;
		rc = imgp_buf_append(&line, "", 1);
		if (rc)
			break;
		l = unit_strip((char *)line.data);
		if (*l == '[') {
			install = !strcmp(l, "[Install]");
		} else if (install && (eq = strchr(l, '='))) {
			*eq = '\0';
			rc = unit_install_key(c, i, file, unit_strip(l), unit_strip(eq + 1));
		}
		line.len = 0;
	}
	if (!rc && line.len) {
		rc = imgp_buf_append(&line, "", 1);
		if (!rc && install) {
			char *l = unit_strip((char *)line.data), *eq = strchr(l, '=');

			if (eq) {
				*eq = '\0';
				rc = unit_install_key(c, i, file, unit_strip(l),
						      unit_strip(eq + 1));
			}
		}
	}
	imgp_buf_free(&line);
	return rc;
}

/*
 * unit_file_load_or_readlink: what path (a unit file, in the root, its
 * last part unfollowed) is: a file (read when load), empty (masked), or a
 * link: to /dev/null or an empty file (masked), into the search path (an
 * alias, checked as unit_validate_alias_symlink_or_warn checks it), or
 * elsewhere (a linked unit). -ENOENT when there is nothing.
 */
static int unit_load_path(struct unit_ctx *c, struct unit_info *i,
			  const char *path, bool load)
{
	char *dir = NULL, *canon_dir = NULL, *file = NULL, *target = NULL;
	char *simplified = NULL, *canon = NULL, *text = NULL;
	int rc;

	dir = imgp_unit_dirname_(path);
	if (!dir)
		return -ENOMEM;
	rc = imgp_unit_chase_(c, dir, true, &canon_dir);
	if (rc)
		goto out;
	file = imgp_unit_join_(canon_dir, imgp_unit_basename_(path));
	if (!file) {
		rc = -ENOMEM;
		goto out;
	}
	rc = imgp_unit_readlink_(c, file, &target);
	if (rc == -ENOTDIR)
		rc = -ENOENT;
	if (rc == -EINVAL) {
		/* Not a link: the unit file itself. */
		rc = imgp_unit_read_(c, path, &text);
		if (rc)
			goto out;
		if (!*text) {
			i->mode = MODE_MASKED;
		} else {
			i->mode = MODE_REGULAR;
			if (load)
				rc = unit_parse(c, i, path, text);
		}
		goto out;
	}
	if (rc)
		goto out;
	rc = imgp_unit_normalize_(dir, target, &simplified);
	if (!rc)
		rc = imgp_unit_chase_(c, simplified, true, &canon);
	if (rc)
		goto out;
	if (!strcmp(canon, "/dev/null")) {
		i->mode = MODE_MASKED;
	} else if (!imgp_unit_read_(c, canon, &text) && !*text) {
		i->mode = MODE_MASKED;
	} else if (imgp_unit_under_search_path_(simplified)) {
		/* A link to the same name is refused too ("linked unit file"). */
		rc = imgp_unit_alias_check_(imgp_unit_basename_(path),
					   imgp_unit_basename_(simplified));
		if (rc)
			rc = imgp_fail(-rc, "%s: a link to %s, which systemctl refuses "
				       "to install through", path, simplified);
		else
			i->mode = MODE_ALIAS;
	} else {
		i->mode = MODE_LINKED;
	}
	if (!rc && (i->mode == MODE_ALIAS || i->mode == MODE_LINKED)) {
		free(i->link_target);
		i->link_target = simplified;
		simplified = NULL;
	}
out:
	free(dir);
	free(canon_dir);
	free(file);
	free(target);
	free(simplified);
	free(canon);
	free(text);
	return rc;
}

/* The drop-ins NAME.d/ *.conf (and TEMPLATE.d/) of every folder of the search path. */
static int unit_load_dropins(struct unit_ctx *c, struct unit_info *i,
			     const char *template)
{
	struct unit_strv names = { 0 }, paths = { 0 };
	int rc = 0;

	for (int pass = 0; pass < 2 && !rc; pass++) {
		const char *unit = pass ? template : i->name;

		for (size_t d = 0; unit && imgp_unit_search_dir_(d) && !rc; d++) {
			char *dir = NULL, *canon = NULL, **list = NULL;
			size_t n = 0;

			if (asprintf(&dir, "%s/%s.d", imgp_unit_search_dir_(d), unit) < 0)
				return -ENOMEM;
			rc = imgp_unit_chase_(c, dir, true, &canon);
			if (!rc) {
				rc = c->root->list(c->root->arg, canon, &list, &n);
				if (rc == -ENOENT || rc == -ENOTDIR)
					rc = 0, n = 0;
			}
			/* conf_files_list: the first folder with a name wins. */
			for (size_t k = 0; k < n; k++) {
				size_t len = strlen(list[k]);
				char *file;

				if (!rc && len > 5 && !strchr(list[k], '/') &&
				    !strcmp(list[k] + len - 5, ".conf") &&
				    !imgp_unit_strv_has_(&names, list[k])) {
					file = imgp_unit_join_(dir, list[k]);
					rc = file ? imgp_unit_strv_push_(&names, list[k]) : -ENOMEM;
					if (!rc)
						rc = imgp_unit_strv_push_(&paths, file);
					free(file);
				}
				free(list[k]);
			}
			free(list);
			free(dir);
			free(canon);
		}
	}
	/* ... read in the order of their names. */
	while (!rc && names.n) {
		size_t first = 0;
		char *text;

		for (size_t k = 1; k < names.n; k++)
			if (strcmp(names.v[k], names.v[first]) < 0)
				first = k;
		rc = imgp_unit_read_(c, paths.v[first], &text);
		if (!rc)
			rc = unit_parse(c, i, paths.v[first], text);
		free(text);
		free(names.v[first]);
		free(paths.v[first]);
		names.v[first] = names.v[--names.n];
		paths.v[first] = paths.v[--paths.n];
	}
	imgp_unit_strv_free_(&names);
	imgp_unit_strv_free_(&paths);
	return rc;
}

/* unit_file_search: the unit's file in the search path (its template's for an instance). */
int imgp_unit_search_(struct unit_ctx *c, struct unit_info *i, bool load)
{
	char *template = NULL;
	int rc = -ENOENT;

	if (i->mode != MODE_UNSET)
		return 0;
	if (i->path)
		return unit_load_path(c, i, i->path, load);
	if (imgp_unit_name_kind_(i->name) == IMGP_UNIT_INSTANCE &&
	    imgp_unit_name_template_(i->name, &template))
		return -ENOMEM;
	for (int pass = 0; pass < 2 && rc == -ENOENT; pass++) {
		const char *name = pass ? template : i->name;

		for (size_t d = 0; name && imgp_unit_search_dir_(d); d++) {
			char *path = imgp_unit_join_(imgp_unit_search_dir_(d), name);

			if (!path) {
				rc = -ENOMEM;
				break;
			}
			rc = unit_load_path(c, i, path, load);
			if (!rc) {
				i->path = path;
				break;
			}
			free(path);
			if (rc != -ENOENT)
				break;
		}
	}
	if (rc == -ENOENT) {
		rc = imgp_fail(ENOENT, "no unit %s%s%s in /etc/systemd/system, "
			       "/usr/local/lib/systemd/system, /lib/systemd/system or "
			       "/usr/lib/systemd/system", i->name,
			       template ? " or " : "", template ? template : "");
	}
	if (!rc && i->mode != MODE_MASKED && load)
		rc = unit_load_dropins(c, i, template);
	free(template);
	return rc;
}

/*
 * install_info_traverse: the unit's file, its links followed to the unit
 * they alias (a new name) or to a linked file (the same name). Without
 * follow_config a link in /etc/systemd/system itself is -ELOOP, as
 * install_context_apply finds it.
 */
int imgp_unit_traverse_(struct unit_ctx *c, struct unit_info *start,
		       bool follow_config, struct unit_info **out)
{
	struct unit_info *i = start;
	unsigned k = 0;
	int rc;

	rc = imgp_unit_search_(c, i, true);
	while (!rc && (i->mode == MODE_ALIAS || i->mode == MODE_LINKED)) {
		const char *bn = imgp_unit_basename_(i->link_target);
		char *buffer = NULL, *inst = NULL;

		if (++k > UNIT_FOLLOW_MAX)
			return imgp_fail(ELOOP, "%s: too many levels of links", i->name);
		if (!follow_config) {
			char *dir = imgp_unit_dirname_(i->path);
			bool config = dir && !strcmp(dir, UNIT_CONFIG_DIR);

			free(dir);
			if (config)
				return imgp_fail(ELOOP, "%s is a link to %s: systemctl installs "
						 "a unit by its own name, not through a link in "
						 UNIT_CONFIG_DIR, i->path, i->link_target);
		}
		if (i->mode == MODE_ALIAS && strcmp(bn, i->name) &&
		    imgp_unit_name_kind_(i->name) == IMGP_UNIT_INSTANCE &&
		    imgp_unit_name_kind_(bn) == IMGP_UNIT_TEMPLATE) {
			rc = imgp_unit_name_instance_(i->name, &inst);
			if (!rc)
				rc = imgp_unit_name_with_instance_(bn, inst, &buffer);
			free(inst);
			if (rc) {
				free(buffer);
				return rc;
			}
			if (!strcmp(buffer, i->name)) {
				free(buffer);
				buffer = NULL;
				bn = i->name; /* the instance fills the template: follow as is */
			} else {
				bn = buffer;
			}
		}
		if (i->mode == MODE_LINKED || !strcmp(bn, i->name)) {
			free(i->path);
			i->path = i->link_target;
			i->link_target = NULL;
			i->mode = MODE_UNSET;
			rc = unit_load_path(c, i, i->path, true);
		} else {
			rc = imgp_unit_add_(c, bn, false, &i);
			if (!rc) {
				rc = imgp_unit_search_(c, i, true);
				if (rc == -ENOENT)
					rc = imgp_fail_ctx(-ENOLINK, "%s: an alias of a missing unit",
							   start->name);
			}
		}
		free(buffer);
	}
	if (!rc && out)
		*out = i;
	return rc;
}
