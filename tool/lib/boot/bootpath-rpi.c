// SPDX-License-Identifier: MIT
/*
 * Boot path "rpi": the Raspberry Pi firmware reads /config.txt on the FAT
 * boot partition and loads the tree for the board's model from the FAT
 * root (bcm2711-rpi-4-b.dtb, bcm2712-rpi-5-b.dtb, ...), under os_prefix,
 * or the file device_tree= names; it then applies the dtoverlay= and
 * dtparam= lines in order. Lines under a model filter ([pi4], [cm5], ...)
 * count for that model only, [all] ends the filter; other conditional
 * filters ([gpio4=1], [HDMI:0], ...) are taken as true.
 *
 * A tree's overlay list has one entry per step the firmware takes:
 * "/overlays/NAME.dtbo,PARAM=VALUE,..." for a dtoverlay= line, with the
 * parameters of the dtparam= lines that follow it (as Raspberry Pi's
 * documentation says, they belong to that overlay until the next
 * dtoverlay= line, an empty one included; a name the overlay lacks falls
 * back to the base tree's), and "dtparam=LIST" for the base tree's own.
 * apply() carries each out as the firmware does (dt-rpi-*.c).
 *
 * The overlay directory's overlay_map.dtb (Raspberry Pi OS ships one) maps
 * an overlay name per platform: vc4-kms-v3d is vc4-kms-v3d-pi4 on a Pi 4,
 * pi3-disable-bt was renamed disable-bt, sdtweak is deprecated (the
 * firmware does not load it). The firmware takes the platform from the
 * tree's compatible; here it comes from the tree's name, which says the
 * same for the Raspberry Pi trees.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "imgpatch-internal.h"

#define CONFIG_PATH "/config.txt"
/* Overlays are a few KiB; the firmware's own limit for one is far below this. */
#define OVERLAY_MAX (4u << 20)
#define OVERLAY_MAP "overlay_map.dtb"

/* Model filters and the tree names they cover (the longest prefix names the model). */
static const struct model {
	const char *filter, *prefix;
} models[] = {
	{ "pi0", "bcm2708-rpi-zero" },   { "pi0", "bcm2835-rpi-zero" },
	{ "pi02", "bcm2710-rpi-zero-2" }, { "pi02", "bcm2837-rpi-zero-2" },
	{ "pi1", "bcm2708-rpi-" },       { "pi1", "bcm2835-rpi-" },
	{ "pi2", "bcm2709-rpi-" },       { "pi2", "bcm2836-rpi-" },
	{ "pi3", "bcm2710-rpi-" },       { "pi3", "bcm2837-rpi-" },
	{ "pi3+", "bcm2710-rpi-3-b-plus" },
	{ "pi4", "bcm2711-rpi-" },       { "pi400", "bcm2711-rpi-400" },
	{ "cm4", "bcm2711-rpi-cm4" },
	{ "pi5", "bcm2712-rpi-" },       { "pi5", "bcm2712d0-rpi-" },
	{ "pi500", "bcm2712-rpi-500" },  { "cm5", "bcm2712-rpi-cm5" },
};
#define NMODELS (sizeof(models) / sizeof(models[0]))

static bool is_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_dtb(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".dtb") == 0;
}

/* The model of a tree name; NULL: no Raspberry Pi tree. */
static const char *model_of(const char *dtb)
{
	const struct model *best = NULL;

	if (!is_dtb(dtb))
		return NULL;
	for (size_t i = 0; i < NMODELS; i++)
		if (is_prefix(dtb, models[i].prefix) &&
		    (!best || strlen(models[i].prefix) > strlen(best->prefix)))
			best = &models[i];
	return best ? best->filter : NULL;
}

/* 1: filter is a model filter covering dtb; 0: one that does not; -1: no model filter. */
static int filter_covers(const char *filter, const char *dtb)
{
	int known = -1;

	for (size_t i = 0; i < NMODELS; i++) {
		if (strcmp(filter, models[i].filter) != 0)
			continue;
		if (is_prefix(dtb, models[i].prefix))
			return 1;
		known = 0;
	}
	if (strcmp(filter, "none") == 0)
		return 0;
	return known;
}

static int rpi_probe(struct imgp_survey *sv)
{
	const struct imgp_part *part;
	struct imgp_fs *fs;
	char *error = NULL, **names = NULL;
	size_t n = 0;
	int rc, found = 0;

	rc = imgp_survey_find(sv, CONFIG_PATH, &part, &error);
	if (rc == -ENOMEM && !error)
		return rc;
	if (rc) {
		rc = imgp_survey_boot_cause(sv, rc, error);
		free(error);
		return rc;
	}
	free(error);
	/* config.txt alone is no Raspberry Pi: its trees or firmware are beside it. */
	fs = imgp_survey_fs(sv, part);
	if (!fs || imgp_fs_list(fs, "/", &names, &n)) {
		imgp_errclear();
		return 0;
	}
	for (size_t i = 0; i < n && !found; i++)
		found = model_of(names[i]) || is_prefix(names[i], "start") ||
			strcmp(names[i], "kernel8.img") == 0;
	imgp_fs_list_free(names, n);
	if (found)
		sv->boot = part;
	return found;
}

/* The platform overlay_map.dtb knows the tree dtb by ("bcm2711"); NULL: none. */
static const char *platform_of(const char *dtb)
{
	static const struct {
		const char *prefix, *platform;
	} platforms[] = {
		{ "bcm2708-", "bcm2835" }, { "bcm2709-", "bcm2835" },
		{ "bcm2710-", "bcm2835" }, { "bcm2835-", "bcm2835" },
		{ "bcm2836-", "bcm2835" }, { "bcm2837-", "bcm2835" },
		{ "bcm2711-", "bcm2711" }, { "bcm2712-", "bcm2712" },
		{ "bcm2712d0-", "bcm2712" },
	};
	const char *name = strrchr(dtb, '/');

	name = name ? name + 1 : dtb;
	for (size_t i = 0; i < sizeof(platforms) / sizeof(platforms[0]); i++)
		if (is_prefix(name, platforms[i].prefix))
			return platforms[i].platform;
	return NULL;
}

/*
 * dir's overlay_map.dtb (dir ends with '/') into map; an empty map when
 * it is missing or no device tree, as the firmware then has none. 0 or
 * -ENOMEM.
 */
static int map_load(struct imgp_survey *sv, const char *dir, struct imgp_buf *map)
{
	struct imgp_fs *fs = imgp_survey_fs(sv, sv->boot);
	struct imgp_buf path = { 0 };
	int rc;

	map->len = 0;
	rc = imgp_buf_printf(&path, "%s" OVERLAY_MAP, dir);
	if (!rc)
		rc = fs ? imgp_survey_read_file(fs, (const char *)path.data, OVERLAY_MAX, map)
			: -ENOTSUP;
	imgp_buf_free(&path);
	if (rc == -ENOMEM)
		return rc;
	if (rc || map->len < sizeof(struct fdt_header) ||
	    imgp_fdt_check_full(map->data, map->len))
		map->len = 0;
	imgp_errclear();
	return 0;
}

/*
 * What the firmware loads for dtoverlay=name on platform by map: 0 with
 * *to the overlay's name and the map's parameters ("vc4-kms-v3d-pi4"),
 * or NULL for name itself; 1 when it loads nothing, why in *why. Both
 * owned. -ENOMEM.
 */
static int map_lookup(const struct imgp_buf *map, const char *platform,
		      const char *name, char **to, char **why)
{
	const char *mapped;
	int node, len;

	*to = *why = NULL;
	node = map->len ? fdt_subnode_offset(map->data, 0, name) : -1;
	if (node < 0)
		return 0;
	mapped = platform ? fdt_getprop(map->data, node, platform, &len) : NULL;
	if (!mapped)
		mapped = fdt_getprop(map->data, node, "renamed", &len);
	if (mapped) {
		/* An empty value: supported on the platform as it is. */
		if (len > 0 && mapped[0] && mapped[len - 1] == '\0') {
			*to = strdup(mapped);
			if (!*to)
				return imgp_fail(ENOMEM, "out of memory");
		}
		return 0;
	}
	mapped = fdt_getprop(map->data, node, "deprecated", &len);
	if (mapped && len > 0 && mapped[len - 1] == '\0')
		len = asprintf(why, "overlay '%s' is deprecated: %s", name, mapped);
	else
		len = asprintf(why, "overlay '%s' is not supported on the '%s' platform",
			       name, platform ? platform : "?");
	if (len < 0) {
		*why = NULL;
		return imgp_fail(ENOMEM, "out of memory");
	}
	return 1;
}

/* Appends ",list" to the overlay entry *entry; 0 or -ENOMEM. */
static int add_params(char **entry, const char *list)
{
	size_t len = strlen(*entry), n = strlen(list);
	char *grown;

	if (!n)
		return 0;
	grown = realloc(*entry, len + 1 + n + 1);
	if (!grown)
		return imgp_fail(ENOMEM, "out of memory");
	grown[len] = ',';
	memcpy(grown + len + 1, list, n + 1);
	*entry = grown;
	return 0;
}

/* The tree the firmware loads for dtb, and what it applies, from config.txt. */
static int describe_model(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
			  const char *dtb, char *text)
{
	/* Indexed by setting: os_prefix, overlay_prefix, device_tree. */
	static const char *const keys[] = { "os_prefix=", "overlay_prefix=", "device_tree=" };
	char *set[3] = { NULL, NULL, NULL };
	struct imgp_survey_bootdt *dt = NULL;
	struct imgp_buf path = { 0 }, dir = { 0 }, map = { 0 };
	char *config = strdup(text), *cursor = config, *line;
	bool applies = true;
	size_t scope = 0;        /* 1 + the overlay whose parameters dtparam= sets */
	int rc = 0;

	if (!config)
		return imgp_fail(ENOMEM, "out of memory");
	/* Two passes: the tree's name may be set after the first overlay. */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		if (pass) {
			strcpy(config, text);
			cursor = config;
			applies = true;
			path.len = 0;
			rc = imgp_buf_printf(&path, "/%s%s", set[0] ? set[0] : "",
					     set[2] ? set[2] : dtb);
			dt = rc ? NULL : imgp_bootinfo_add_dt(bi, model_of(dtb),
							      (char *)path.data);
			if (!dt || imgp_buf_printf(&dir, "/%s%s", set[0] ? set[0] : "",
						   set[1] ? set[1] : "overlays/") ||
			    map_load(sv, (const char *)dir.data, &map)) {
				rc = -ENOMEM;
				break;
			}
		}
		while (!rc && (line = imgp_bootinfo_line(&cursor))) {
			size_t len = strlen(line);

			if (line[0] == '[' && len > 1 && line[len - 1] == ']') {
				int covers;

				line[len - 1] = '\0';
				covers = filter_covers(line + 1, dtb);
				if (strcmp(line + 1, "all") == 0)
					applies = true;
				else if (covers >= 0)
					applies = covers;
				continue;
			}
			if (!applies)
				continue;
			for (size_t k = 0; !pass && k < 3; k++) {
				if (!is_prefix(line, keys[k]))
					continue;
				free(set[k]);
				set[k] = strdup(line + strlen(keys[k]));
				if (!set[k])
					rc = imgp_fail(ENOMEM, "out of memory");
			}
			if (!pass)
				continue;
			if (is_prefix(line, "dtoverlay=")) {
				char *name = line + 10, *params = name + strcspn(name, ",");
				char *to = NULL, *why = NULL;

				scope = 0;
				if (params == name)
					continue;
				/* The map's name and parameters come first, the line's after. */
				if (*params)
					*params++ = '\0';
				rc = map_lookup(&map, platform_of(dtb), name, &to, &why);
				/* One the firmware does not load stays listed: apply() says why. */
				rc = rc > 0 ? 0 : rc;
				path.len = 0;
				if (!rc)
					rc = imgp_buf_printf(&path, "%s%.*s.dtbo%s%s%s",
							     (const char *)dir.data,
							     (int)strcspn(to ? to : name, ","),
							     to ? to : name,
							     to ? to + strcspn(to, ",") : "",
							     *params ? "," : "", params);
				free(to);
				free(why);
				if (!rc)
					rc = imgp_bootinfo_add_overlay(dt, (char *)path.data);
				scope = dt->noverlays;
			} else if (is_prefix(line, "dtparam=") && scope) {
				rc = add_params(&dt->overlays[scope - 1], line + 8);
			} else if (is_prefix(line, "dtparam=")) {
				rc = imgp_bootinfo_add_overlay(dt, line);
			}
		}
	}
	for (size_t k = 0; k < 3; k++)
		free(set[k]);
	imgp_buf_free(&map);
	imgp_buf_free(&dir);
	imgp_buf_free(&path);
	free(config);
	return rc;
}

static int rpi_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	struct imgp_fs *fs = imgp_survey_fs(sv, sv->boot);
	char *text, **names = NULL;
	size_t n = 0;
	int rc;

	rc = imgp_bootinfo_summary(bi, "Raspberry Pi firmware " CONFIG_PATH);
	if (!rc)
		rc = imgp_bootinfo_read(sv, bi, sv->boot, CONFIG_PATH, &text);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	rc = fs ? imgp_fs_list(fs, "/", &names, &n) : -ENOTSUP;
	if (rc) {
		imgp_errclear();
		rc = 0;
	}
	for (size_t i = 0; !rc && i < n; i++)
		if (model_of(names[i]))
			rc = describe_model(sv, bi, names[i], text);
	if (!rc)
		rc = imgp_bootinfo_summary(bi, "Raspberry Pi firmware " CONFIG_PATH
					   ", a tree by model from the FAT root");
	imgp_fs_list_free(names, n);
	free(text);
	return rc;
}

/*
 * -EINVAL when the overlay map of the overlay file path says the firmware
 * does not load overlay name for dt (deprecated, not for its platform).
 */
static int refused(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		   const char *path, const char *name)
{
	struct imgp_buf map = { 0 };
	char *dir = strndup(path, (size_t)(strrchr(path, '/') + 1 - path));
	char *to = NULL, *why = NULL;
	int rc;

	if (!dir)
		return imgp_fail(ENOMEM, "out of memory");
	rc = map_load(sv, dir, &map);
	if (!rc)
		rc = map_lookup(&map, platform_of(dt->path), name, &to, &why);
	if (rc > 0)
		rc = imgp_fail(EINVAL, "%s: %s (%s%s): the firmware does not load it",
			       dt->path, why, dir, OVERLAY_MAP);
	free(to);
	free(why);
	free(dir);
	imgp_buf_free(&map);
	return rc;
}

/*
 * Splits an overlay entry "/overlays/sdio.dtbo,poll_once=off" into the
 * file, the overlay's name ("sdio") and its parameters (NULL: none). A
 * value may hold '/'; only the file is followed by ".dtbo,". 0 or -ENOMEM.
 */
static int split_entry(const char *entry, char **path, char **name,
		       const char **params)
{
	const char *comma = strstr(entry, ".dtbo,"), *file;
	size_t n;

	*params = comma ? comma + 6 : NULL;
	*path = strndup(entry, comma ? (size_t)(comma + 5 - entry) : strlen(entry));
	if (!*path)
		return imgp_fail(ENOMEM, "out of memory");
	file = strrchr(*path, '/');
	file = file ? file + 1 : *path;
	n = strlen(file);
	if (n > 5 && strcmp(file + n - 5, ".dtbo") == 0)
		n -= 5;
	*name = strndup(file, n);
	if (!*name) {
		free(*path);
		*path = NULL;
		return imgp_fail(ENOMEM, "out of memory");
	}
	return 0;
}

/* "pi.img: p1 (vfat): /x.dtb: LINE", for a warning about LINE. */
static int warning_context(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
			   const char *line, struct imgp_buf *out)
{
	const struct imgp_part *boot = sv->boot;

	if (!boot)
		return imgp_buf_printf(out, "%s: %s: %s", sv->disk->img.path, dt->path, line);
	return imgp_buf_printf(out, "%s: " IMGP_PART_FMT " (%s): %s: %s", sv->disk->img.path,
			       boot->number, boot->fstype, dt->path, line);
}

/*
 * Entry i of dt->overlays as the firmware applies it. A parameter it
 * ignores is a warning; an overlay it cannot load or apply fails here
 * (the firmware then boots without it: the caller says so).
 */
static int rpi_apply(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		     size_t i, void **fdt, size_t *size)
{
	const char *entry = dt->overlays[i], *params;
	struct imgp_buf blob = { 0 }, what = { 0 }, warn_what = { 0 };
	struct imgp_fs *fs;
	char *path, *name;
	int rc;

	/*
	 * Failures name the tree and the line ("/x.dtb: dtparam=a"; the caller
	 * adds the image). A warning is printed here, so it names the image and
	 * the partition as well.
	 */
	if (is_prefix(entry, "dtparam=")) {
		rc = warning_context(sv, dt, entry, &warn_what);
		if (!rc)
			rc = imgp_rpi_dtparam(fdt, size, entry + 8, (const char *)warn_what.data);
		imgp_buf_free(&warn_what);
		return rc == -ENOMEM || !rc ? rc : imgp_fail_ctx(rc, "%s: %s", dt->path, entry);
	}
	rc = split_entry(entry, &path, &name, &params);
	if (rc)
		return rc;
	rc = imgp_buf_printf(&what, "dtoverlay=%s%s%s", name,
			     params ? "," : "", params ? params : "");
	if (!rc)
		rc = warning_context(sv, dt, (const char *)what.data, &warn_what);
	imgp_buf_free(&what);
	if (!rc)
		rc = imgp_buf_printf(&what, "%s: dtoverlay=%s%s%s", dt->path, name,
				     params ? "," : "", params ? params : "");
	if (rc)
		goto out;
	rc = refused(sv, dt, path, name);
	if (rc)
		goto out;
	fs = imgp_survey_fs(sv, sv->boot);
	/* Its message names the partition and the file. */
	rc = fs ? imgp_survey_read_file(fs, path, OVERLAY_MAX, &blob) : -ENOTSUP;
	if (rc)
		goto out;
	rc = imgp_rpi_dtoverlay(fdt, size, blob.data, blob.len, name, params,
				(const char *)warn_what.data);
	if (rc && rc != -ENOMEM)
		rc = imgp_fail_ctx(rc, "%s", (const char *)what.data);
out:
	imgp_buf_free(&what);
	imgp_buf_free(&warn_what);
	imgp_buf_free(&blob);
	free(name);
	free(path);
	return rc;
}

const struct imgp_bootpath imgp_bootpath_rpi = {
	.name = "rpi",
	.probe = rpi_probe,
	.describe = rpi_describe,
	.apply = rpi_apply,
};
