// SPDX-License-Identifier: MIT
/*
 * What a boot path's describe() fills in (struct imgp_survey_bootinfo):
 * its summary line, the trees it can boot with their overlays, scripts,
 * variables and notes, what its generator will do (updates), each kept
 * whole so that info, doctor and the patch read the one record.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "boot/boot.h"
#include "boot/bootpath.h"
#include "patch/patch.h"

int imgp_bootinfo_read_(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
		       const struct imgp_part *part, const char *path, char **text)
{
	struct imgp_buf buf = { 0 };
	struct imgp_fs *fs = imgp_survey_fs_(sv, part);
	int rc = fs ? imgp_survey_read_file_(fs, path, IMGP_TEXT_MAX, &buf) : -ENOTSUP;

	if (!rc)
		rc = imgp_buf_printf(&buf, "%s", "");
	*text = rc ? NULL : (char *)imgp_buf_steal_(&buf, NULL);
	imgp_buf_free(&buf);
	if (!rc && !*text)
		rc = imgp_fail(ENOMEM, "out of memory");
	if (rc && rc != -ENOMEM && !bi->rc) {
		/* The path's fact fails with its cause kept, as the survey's do. */
		bi->rc = rc;
		return imgp_survey_keep_(rc, &bi->error) == -ENOMEM && !bi->error ? -ENOMEM : rc;
	}
	return rc;
}

static int add_string(char ***list, size_t *n, const char *s)
{
	char **grown = realloc(*list, (*n + 1) * sizeof(**list));

	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	*list = grown;
	grown[*n] = strdup(s);
	if (!grown[*n])
		return imgp_fail(ENOMEM, "out of memory");
	(*n)++;
	return 0;
}

struct imgp_survey_bootdt *imgp_bootinfo_add_dt_(struct imgp_survey_bootinfo *bi,
						const char *model, const char *path)
{
	struct imgp_survey_bootdt *grown = realloc(bi->dts, (bi->ndts + 1) * sizeof(*grown));
	struct imgp_survey_bootdt *dt;

	if (!grown) {
		imgp_fail(ENOMEM, "out of memory");
		return NULL;
	}
	bi->dts = grown;
	dt = memset(&grown[bi->ndts], 0, sizeof(*dt));
	dt->model = model ? strdup(model) : NULL;
	dt->path = strdup(path);
	bi->ndts++;
	if (!dt->path || (model && !dt->model)) {
		imgp_fail(ENOMEM, "out of memory");
		return NULL;
	}
	return dt;
}

int imgp_bootinfo_add_overlay_(struct imgp_survey_bootdt *dt, const char *path)
{
	if (dt->room) {
		long *grown = realloc(dt->room, (dt->noverlays + 1) * sizeof(*grown));

		if (!grown)
			return imgp_fail(ENOMEM, "out of memory");
		dt->room = grown;
		grown[dt->noverlays] = -1;
	}
	return add_string(&dt->overlays, &dt->noverlays, path);
}

int imgp_bootinfo_add_overlay_room_(struct imgp_survey_bootdt *dt, const char *path,
				   long room)
{
	int rc;

	/* Those before it were applied with the room they had. */
	if (!dt->room) {
		dt->room = malloc((dt->noverlays + 1) * sizeof(*dt->room));
		if (!dt->room)
			return imgp_fail(ENOMEM, "out of memory");
		for (size_t i = 0; i < dt->noverlays; i++)
			dt->room[i] = -1;
	}
	rc = imgp_bootinfo_add_overlay_(dt, path);
	if (!rc)
		dt->room[dt->noverlays - 1] = room;
	return rc;
}

int imgp_bootinfo_add_note_(struct imgp_survey_bootdt *dt, const char *note)
{
	return add_string(&dt->notes, &dt->nnotes, note);
}

int imgp_bootinfo_add_script_(struct imgp_survey_bootdt *dt, const char *path)
{
	return add_string(&dt->scripts, &dt->nscripts, path);
}

int imgp_bootinfo_add_script_var_(struct imgp_survey_bootdt *dt, const char *name_value)
{
	return add_string(&dt->script_vars, &dt->nscript_vars, name_value);
}

int imgp_bootinfo_add_overlays_(struct imgp_survey_bootdt *dt, const char *prefix,
			       const char *list, const char *suffix)
{
	struct imgp_buf path = { 0 };
	int rc = 0;

	while (!rc && *list) {
		size_t n;

		list += strspn(list, " \t");
		n = strcspn(list, " \t");
		if (!n)
			break;
		path.len = 0;
		rc = imgp_buf_printf(&path, "%s%.*s%s", prefix, (int)n, list, suffix);
		if (!rc)
			rc = imgp_bootinfo_add_overlay_(dt, (char *)path.data);
		list += n;
	}
	imgp_buf_free(&path);
	return rc;
}

int imgp_bootinfo_summary_(struct imgp_survey_bootinfo *bi, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return imgp_fail(ENOMEM, "out of memory");
	free(bi->summary);
	bi->summary = s;
	return 0;
}

char *imgp_bootinfo_line_(char **text)
{
	char *line = *text, *end;

	if (!line || !*line)
		return NULL;
	end = strchr(line, '\n');
	*text = end ? end + 1 : line + strlen(line);
	if (end)
		*end = '\0';
	line[strcspn(line, "#\r")] = '\0';
	while (isspace((unsigned char)*line))
		line++;
	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return line;
}

const char *imgp_bootinfo_value_(const char *line, const char *key)
{
	size_t n = strlen(key);

	return strncmp(line, key, n) == 0 && line[n] == '=' ? line + n + 1 : NULL;
}

bool imgp_bootinfo_exists_(struct imgp_survey *sv, const char *path)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	bool yes = fs && imgp_fs_exists_(fs, path) > 0;

	imgp_errclear_();
	return yes;
}

bool imgp_bootdt_named_(const struct imgp_survey_bootdt *dt, const char *model)
{
	const char *base = strrchr(dt->path, '/');
	size_t n = strlen(model), len = strlen(dt->path);

	base = base ? base + 1 : dt->path;
	if ((dt->model && !strcmp(dt->model, model)) || !strcmp(base, model) ||
	    !strcmp(dt->path, model) || !strcmp(dt->path + (dt->path[0] == '/'), model))
		return true;
	/* The tail of the path: "rockchip/rk3399-rockpro64.dtb". */
	return len > n && dt->path[len - n - 1] == '/' && !strcmp(dt->path + len - n, model);
}

void imgp_bootdt_clear_(struct imgp_survey_bootdt *dt)
{
	free(dt->kept_in);
	for (size_t k = 0; k < dt->noverlays; k++)
		free(dt->overlays[k]);
	free(dt->overlays);
	free(dt->room);
	for (size_t k = 0; k < dt->nnotes; k++)
		free(dt->notes[k]);
	free(dt->notes);
	for (size_t k = 0; k < dt->nscripts; k++)
		free(dt->scripts[k]);
	free(dt->scripts);
	for (size_t k = 0; k < dt->nscript_vars; k++)
		free(dt->script_vars[k]);
	free(dt->script_vars);
	free(dt->model);
	free(dt->path);
	free(dt->cmdline);
	free(dt->label);
	free(dt->append);
	memset(dt, 0, sizeof(*dt));
}

void imgp_bootinfo_free_(struct imgp_survey_bootinfo *bi)
{
	for (size_t i = 0; i < bi->ndts; i++) {
		struct imgp_survey_bootdt *next = bi->dts[i].next;

		imgp_bootdt_clear_(&bi->dts[i]);
		/* The labels after it are allocated, one by one. */
		while (next) {
			struct imgp_survey_bootdt *after = next->next;

			next->next = NULL;
			imgp_bootdt_clear_(next);
			free(next);
			next = after;
		}
	}
	free(bi->dts);
	free(bi->summary);
	free(bi->error);
	free(bi->updates);
	for (size_t i = 0; i < bi->ndropped; i++)
		free(bi->dropped[i]);
	free(bi->dropped);
}
