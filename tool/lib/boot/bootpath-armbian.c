// SPDX-License-Identifier: MIT
/*
 * Boot path "armbian": Armbian's single ext4 root carries /boot/boot.scr,
 * which imports /boot/armbianEnv.txt and loads /boot/dtb/${fdtfile}, then
 * applies each of ${overlays} as
 * /boot/dtb/<vendor>/overlay/${overlay_prefix}-NAME.dtbo and each of
 * ${user_overlays} as /boot/overlay-user/NAME.dtbo, in that order. With a
 * separate boot partition the script's ${prefix} is "/" and the same
 * files sit at that partition's root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch-internal.h"

/* U-Boot's distro boot prefixes, in the order it tries them on a partition. */
static const char *const prefixes[] = { "/", "/boot/" };
#define NPREFIXES (sizeof(prefixes) / sizeof(prefixes[0]))
/* The same order, as the paths of the settings file. */
static const char *const env_paths[] = { "/armbianEnv.txt", "/boot/armbianEnv.txt" };
#define NENV_PATHS (sizeof(env_paths) / sizeof(env_paths[0]))
#define ENV_NAME "armbianEnv.txt"

static int armbian_probe(struct imgp_survey *sv)
{
	return imgp_survey_probe_paths(sv, env_paths, NENV_PATHS);
}

/* The prefix under which the boot partition has armbianEnv.txt. */
static const char *env_prefix(struct imgp_survey *sv)
{
	struct imgp_fs *fs = imgp_survey_fs(sv, sv->boot);
	char path[32];

	for (size_t i = 0; fs && i < NPREFIXES; i++) {
		snprintf(path, sizeof(path), "%s" ENV_NAME, prefixes[i]);
		if (imgp_fs_exists(fs, path) > 0)
			return prefixes[i];
	}
	imgp_errclear();
	return prefixes[NPREFIXES - 1];
}

/* The value of "key=" on a line of armbianEnv.txt; NULL when another key. */
static const char *env_value(const char *line, const char *key)
{
	size_t n = strlen(key);

	return strncmp(line, key, n) == 0 && line[n] == '=' ? line + n + 1 : NULL;
}

static int armbian_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	const char *fdtfile = NULL, *prefix = "", *overlays = "", *user = "";
	struct imgp_survey_bootdt *dt;
	struct imgp_buf path = { 0 };
	char *text, *cursor, *line;
	size_t vendor;
	int rc;

	const char *pre = env_prefix(sv);
	char env[32];

	snprintf(env, sizeof(env), "%s" ENV_NAME, pre);
	rc = imgp_bootinfo_summary(bi, "U-Boot script %sboot.scr (Armbian), %s", pre, env);
	if (!rc)
		rc = imgp_bootinfo_read(sv, bi, sv->boot, env, &text);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	/* env import -t: the last setting of a name wins. */
	cursor = text;
	while ((line = imgp_bootinfo_line(&cursor))) {
		const char *v;

		if ((v = env_value(line, "fdtfile")))
			fdtfile = v;
		else if ((v = env_value(line, "overlay_prefix")))
			prefix = v;
		else if ((v = env_value(line, "overlays")))
			overlays = v;
		else if ((v = env_value(line, "user_overlays")))
			user = v;
	}
	rc = imgp_bootinfo_summary(bi, "U-Boot script %sboot.scr (Armbian), "
				   "fdtfile %s, overlays: %s%s%s", pre,
				   fdtfile ? fdtfile : "(unset)",
				   *overlays ? overlays : "none",
				   *user ? ", user_overlays: " : "", user);
	if (rc || !fdtfile)
		goto out;
	rc = imgp_buf_printf(&path, "%sdtb/%s", pre, fdtfile);
	dt = rc ? NULL : imgp_bootinfo_add_dt(bi, NULL, (char *)path.data);
	if (!dt) {
		rc = -ENOMEM;
		goto out;
	}
	/* The vendor directory of the tree holds its overlays. */
	vendor = strchr(fdtfile, '/') ? (size_t)(strchr(fdtfile, '/') - fdtfile) : 0;
	path.len = 0;
	rc = imgp_buf_printf(&path, "%sdtb/%.*s%soverlay/%s-", pre, (int)vendor,
			     fdtfile, vendor ? "/" : "", prefix);
	if (!rc)
		rc = imgp_bootinfo_add_overlays(dt, (char *)path.data, overlays, ".dtbo");
	path.len = 0;
	if (!rc)
		rc = imgp_buf_printf(&path, "%soverlay-user/", pre);
	if (!rc)
		rc = imgp_bootinfo_add_overlays(dt, (char *)path.data, user, ".dtbo");
out:
	imgp_buf_free(&path);
	free(text);
	return rc;
}

const struct imgp_bootpath imgp_bootpath_armbian = {
	.name = "armbian",
	.probe = armbian_probe,
	.describe = armbian_describe,
};
