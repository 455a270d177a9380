// SPDX-License-Identifier: MIT
/*
 * systemd's unit names, checked and taken apart as systemd 252 does
 * (Debian 12's systemd 252.39-1~deb12u2, src/basic/unit-name.c
 * unit_name_is_valid, src/basic/unit-file.c unit_type_may_alias and
 * unit_type_may_template): the rules custom-units.c follows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "custom/units.h"

/* unit-name.h UNIT_NAME_MAX: a name this long or longer is refused. */
#define UNIT_NAME_MAX 256

static const char *const unit_types[] = {
	"service", "socket", "target", "device", "mount", "automount",
	"swap", "timer", "path", "slice", "scope",
};

/* The characters of a unit name before its suffix (VALID_CHARS_WITH_AT). */
static bool unit_name_char(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	       (ch >= 'A' && ch <= 'Z') || (ch && strchr(":-_.\\@", ch));
}

const char *imgp_unit_name_type_(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (!dot || dot == name)
		return NULL;
	for (size_t i = 0; i < sizeof(unit_types) / sizeof(unit_types[0]); i++)
		if (!strcmp(dot + 1, unit_types[i]))
			return dot + 1;
	return NULL;
}

unsigned imgp_unit_name_kind_(const char *name)
{
	const char *type, *at = NULL;

	if (!name || !*name || strlen(name) >= UNIT_NAME_MAX)
		return 0;
	type = imgp_unit_name_type_(name);
	if (!type)
		return 0;
	for (const char *p = name; p < type - 1; p++) {
		if (*p == '@' && !at)
			at = p;
		if (!unit_name_char(*p))
			return 0;
	}
	if (at == name)
		return 0;
	if (!at)
		return IMGP_UNIT_PLAIN;
	return at + 1 == type - 1 ? IMGP_UNIT_TEMPLATE : IMGP_UNIT_INSTANCE;
}

bool imgp_unit_instance_valid_(const char *instance)
{
	if (!instance || !*instance)
		return false;
	for (const char *p = instance; *p; p++)
		if (!unit_name_char(*p))
			return false;
	return true;
}

bool imgp_unit_type_may_alias_(const char *name)
{
	const char *t = imgp_unit_name_type_(name);

	return t && (!strcmp(t, "service") || !strcmp(t, "socket") ||
		     !strcmp(t, "target") || !strcmp(t, "device") ||
		     !strcmp(t, "timer") || !strcmp(t, "path"));
}

bool imgp_unit_type_may_template_(const char *name)
{
	const char *t = imgp_unit_name_type_(name);

	return t && strcmp(t, "device") && imgp_unit_type_may_alias_(name);
}

int imgp_unit_name_template_(const char *name, char **out)
{
	unsigned kind = imgp_unit_name_kind_(name);
	const char *at, *type;

	*out = NULL;
	if (kind != IMGP_UNIT_INSTANCE && kind != IMGP_UNIT_TEMPLATE)
		return -EINVAL;
	at = strchr(name, '@');
	type = imgp_unit_name_type_(name);
	if (asprintf(out, "%.*s@.%s", (int)(at - name), name, type) < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

int imgp_unit_name_instance_(const char *name, char **out)
{
	unsigned kind = imgp_unit_name_kind_(name);
	const char *at, *type;

	*out = NULL;
	if (!kind)
		return -EINVAL;
	at = strchr(name, '@');
	type = imgp_unit_name_type_(name);
	*out = at ? strndup(at + 1, (size_t)(type - 1 - (at + 1))) : strdup("");
	return *out ? 0 : -ENOMEM;
}

int imgp_unit_name_with_instance_(const char *name, const char *instance,
				 char **out)
{
	const char *at = strchr(name, '@'), *type = imgp_unit_name_type_(name);

	*out = NULL;
	if (!at || !type || !imgp_unit_instance_valid_(instance))
		return -EINVAL;
	if (asprintf(out, "%.*s%s.%s", (int)(at + 1 - name), name, instance,
		     type) < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	if (imgp_unit_name_kind_(*out) != IMGP_UNIT_INSTANCE) {
		free(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

int imgp_unit_name_prefix_(const char *name, bool with_instance, char **out)
{
	const char *end = with_instance ? NULL : strchr(name, '@');

	if (!end)
		end = imgp_unit_name_type_(name) - 1;
	*out = strndup(name, (size_t)(end - name));
	return *out ? 0 : -ENOMEM;
}

int imgp_unit_alias_check_(const char *alias, const char *unit)
{
	unsigned ak = imgp_unit_name_kind_(alias), uk = imgp_unit_name_kind_(unit);
	char *ai = NULL, *ui = NULL;
	int rc = 0;

	if (!ak || !imgp_unit_type_may_alias_(alias) ||
	    (ak != IMGP_UNIT_PLAIN && !imgp_unit_type_may_template_(alias)))
		return -EINVAL;
	if (!strcmp(alias, unit))
		return -ELOOP;
	if (!uk || !(uk == ak || (ak == IMGP_UNIT_INSTANCE && uk == IMGP_UNIT_TEMPLATE)) ||
	    strcmp(imgp_unit_name_type_(alias), imgp_unit_name_type_(unit)))
		return -EXDEV;
	if (uk == IMGP_UNIT_INSTANCE) {
		rc = imgp_unit_name_instance_(alias, &ai);
		if (!rc)
			rc = imgp_unit_name_instance_(unit, &ui);
		if (!rc && strcmp(ai, ui))
			rc = -EXDEV;
	}
	free(ai);
	free(ui);
	return rc;
}
