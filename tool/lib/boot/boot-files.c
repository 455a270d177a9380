// SPDX-License-Identifier: MIT
/*
 * What the board loads from a file, asked before a device tree is written
 * over it: a tree written where the boot path expects a FIT, a script,
 * its configuration or a kernel leaves a board that no longer boots.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "part/part.h"
#include "boot/boot.h"
#include "boot/bootpath.h"

/* One file by two names: FAT matches names whatever their case. */
static bool same_file(const struct imgp_part *part, const char *a, const char *b)
{
	return a && b && (strcmp(part->fstype, "vfat") ? strcmp(a, b) : strcasecmp(a, b)) == 0;
}

/* An overlay entry names its file, then maybe ",param=value"; a bare parameter line names none. */
static bool entry_is(const struct imgp_part *part, const char *entry, const char *path)
{
	size_t n = strcspn(entry, ",");
	char file[4096];

	if (entry[0] != '/' || n >= sizeof(file))
		return false;
	memcpy(file, entry, n);
	file[n] = '\0';
	return same_file(part, file, path);
}

/* What one tree the boot path boots (and the labels after it) loads from path. */
static int bootdt_file(const struct imgp_part *part, const struct imgp_survey_bootdt *dt,
		       const char *path, char *what, size_t len)
{
	for (; dt; dt = dt->next) {
		for (size_t i = 0; i < dt->noverlays; i++)
			if (entry_is(part, dt->overlays[i], path)) {
				snprintf(what, len, "an overlay the boot path applies to %s",
					 dt->path ? dt->path : "its tree");
				return IMGP_BOOT_FILE_OTHER;
			}
		for (size_t i = 0; i < dt->nscripts; i++)
			if (same_file(part, dt->scripts[i], path)) {
				snprintf(what, len, "a script the boot path sources");
				return IMGP_BOOT_FILE_OTHER;
			}
		if (same_file(part, dt->cmdline, path)) {
			snprintf(what, len, "the file the boot path reads the kernel command line from");
			return IMGP_BOOT_FILE_OTHER;
		}
		if (same_file(part, dt->path, path)) {
			snprintf(what, len, "a tree the boot path boots%s%s",
				 dt->model ? " for " : "", dt->model ? dt->model : "");
			return IMGP_BOOT_FILE_TREE;
		}
	}
	return IMGP_BOOT_FILE_NONE;
}

int imgp_survey_boot_file_(const struct imgp_survey *sv, const struct imgp_part *part,
			  const char *path, char *what, size_t len)
{
	const struct imgp_bootpath *bp;
	const char *pattern = NULL;
	int kind = IMGP_BOOT_FILE_NONE;

	what[0] = '\0';
	if (sv->fit.part == part && sv->fit.rc == 0 && same_file(part, sv->fit_path, path)) {
		snprintf(what, len, "the FIT %s", sv->script.parsed && sv->script.part == part ?
			 "the boot script loads" : "on the boot partition");
		return IMGP_BOOT_FILE_OTHER;
	}
	if (sv->script.part == part && same_file(part, sv->script.path, path)) {
		snprintf(what, len, "the boot script");
		return IMGP_BOOT_FILE_OTHER;
	}
	for (size_t i = 0; sv->boot == part && !kind && i < sv->bootinfo.ndts; i++)
		kind = bootdt_file(part, &sv->bootinfo.dts[i], path, what, len);
	if (kind)
		return kind;
	bp = imgp_bootpath_loading_(path, &pattern);
	if (!bp)
		return IMGP_BOOT_FILE_NONE;
	snprintf(what, len, "a file the %s boot path loads (%s)", bp->name, pattern);
	return IMGP_BOOT_FILE_OTHER;
}
