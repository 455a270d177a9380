// SPDX-License-Identifier: MIT
/*
 * Boot path "rpi": the Raspberry Pi firmware reads /config.txt on the FAT
 * boot partition and loads the tree for the board's model from the FAT
 * root (bcm2711-rpi-4-b.dtb, bcm2712-rpi-5-b.dtb, ...), under os_prefix,
 * or the file device_tree= names; it then applies the dtoverlay= and
 * dtparam= lines in order. Lines under a model filter ([pi4], [cm4s],
 * [board-type=0x11], ...) count for the boards it covers, [all] ends the
 * filter; the conditional filters of other kinds ([gpio4=1], [HDMI:0], ...)
 * are taken as true. An
 * "include FILE" line reads FILE there (walk_config() below).
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
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "imgpatch.h"
#include "core/core.h"
#include "part/part.h"
#include "fs/fs.h"
#include "disk/disk.h"
#include "dt/dt.h"
#include "boot/boot.h"
#include "boot/bootpath.h"

#define CONFIG_PATH "/config.txt"
#define DEFAULT_CMDLINE "cmdline.txt"
/* Overlays are a few KiB; the firmware's own limit for one is far below this. */
#define OVERLAY_MAX (4u << 20)
#define OVERLAY_MAP "overlay_map.dtb"
/* A U-Boot script image; U-Boot's own bound for one is far below this. */
#define SCRIPT_MAX ((size_t)1 << 20)

/*
 * Boards by their type, the TTTTTTTT field of Raspberry Pi's new-style
 * revision codes (raspberrypi/documentation,
 * documentation/asciidoc/computers/raspberry-pi/revision-codes.adoc,
 * commit 0456a78c93ba57be2d9e95733df961069925555b): the number a
 * [board-type=N] filter of config.txt names. One bit per type. The
 * never-sold BCM2836 compute module has a tree in the firmware but no
 * type; it gets a bit no type reaches.
 */
enum {
	A = 0x00, B = 0x01, AP = 0x02, BP = 0x03, B2 = 0x04, CM1T = 0x06,
	B3 = 0x08, ZERO = 0x09, CM3T = 0x0a, ZEROW = 0x0c, B3P = 0x0d,
	A3P = 0x0e, CM3PT = 0x10, B4 = 0x11, ZERO2W = 0x12, B400 = 0x13,
	CM4T = 0x14, CM4ST = 0x15, B5 = 0x17, CM5T = 0x18, B500 = 0x19,
	CM5LT = 0x1a, CM0T = 0x1b,
	TYPE_LAST = CM0T,
	CM2_UNTYPED = 63,
};
#define T(x) ((uint64_t)1 << (x))

/*
 * Raspberry Pi's documentation (config.txt, "Conditional filters", its table
 * of model filters) says which filters a board sees: its own and those it
 * "also sees" ([pi400] also sees [pi4], [pi02] sees [pi0w] and [pi0], [cm0]
 * sees [pi02], so [pi0w] and [pi0] as well, ...). Here each filter is the
 * set of board types that see it. [cm5] covers the CM5 and the CM5 Lite,
 * which share its trees.
 */
static const struct {
	const char *name;
	uint64_t types;
} filters[] = {
	{ "pi0", T(ZERO) | T(ZEROW) | T(ZERO2W) | T(CM0T) },
	{ "pi0w", T(ZEROW) | T(ZERO2W) | T(CM0T) },
	{ "pi02", T(ZERO2W) | T(CM0T) },
	{ "cm0", T(CM0T) },
	{ "pi1", T(A) | T(B) | T(AP) | T(BP) | T(CM1T) },
	{ "cm1", T(CM1T) },
	{ "pi2", T(B2) | T(CM2_UNTYPED) },
	{ "pi3", T(B3) | T(B3P) | T(A3P) | T(CM3T) | T(CM3PT) },
	{ "pi3+", T(B3P) | T(A3P) | T(CM3PT) },
	{ "cm3", T(CM3T) },
	{ "cm3+", T(CM3PT) },
	{ "pi4", T(B4) | T(B400) | T(CM4T) | T(CM4ST) },
	{ "pi400", T(B400) },
	{ "cm4", T(CM4T) },
	{ "cm4s", T(CM4ST) },
	{ "pi5", T(B5) | T(B500) | T(CM5T) | T(CM5LT) },
	{ "pi500", T(B500) },
	{ "cm5", T(CM5T) | T(CM5LT) },
};
#define NFILTERS (sizeof(filters) / sizeof(filters[0]))

/*
 * Every tree name the firmware loads for a board: those Raspberry Pi ships
 * (the firmware repository's boot/ folder, raspberrypi/firmware, over its
 * history) and the upstream kernel's (bcm2835-bcm2837, bcm2711, bcm2712:
 * raspberrypi/linux arch/arm/boot/dts/broadcom/Makefile), with the types
 * of the boards it serves. The model is the most specific filter of those
 * boards.
 *
 * A tree may serve boards that a filter tells apart: bcm2710-rpi-cm3.dtb is
 * both the CM3's and the CM3+'s, and only the CM3+ sees [cm3+] and [pi3+],
 * only the CM3 [cm3]. Such a filter "may apply": its lines are kept, as
 * they reach the tree on one of its boards, with a warning. Trees whose
 * boards no model filter tells apart (the 3B+ and 3A+ share
 * bcm2710-rpi-3-b-plus.dtb and both see [pi3+] and [pi3]) need none there;
 * [board-type=0x0d] does tell them apart.
 */
static const struct rpi_tree {
	const char *name, *model;
	uint64_t types;
} rpi_trees[] = {
	/* Raspberry Pi's names */
	{ "bcm2708-rpi-b.dtb", "pi1", T(A) | T(B) },
	{ "bcm2708-rpi-b-rev1.dtb", "pi1", T(B) },
	{ "bcm2708-rpi-b-plus.dtb", "pi1", T(AP) | T(BP) },
	{ "bcm2708-rpi-cm.dtb", "cm1", T(CM1T) },
	{ "bcm2708-rpi-zero.dtb", "pi0", T(ZERO) },
	{ "bcm2708-rpi-zero-w.dtb", "pi0w", T(ZEROW) },
	{ "bcm2708-rpi-0-w.dtb", "pi0w", T(ZEROW) },  /* its name before 2017 */
	{ "bcm2709-rpi-2-b.dtb", "pi2", T(B2) },
	{ "bcm2709-rpi-cm2.dtb", "pi2", T(CM2_UNTYPED) },
	{ "bcm2710-rpi-2-b.dtb", "pi2", T(B2) },       /* 2B v1.2 (BCM2837) */
	{ "bcm2710-rpi-3-b.dtb", "pi3", T(B3) },
	{ "bcm2710-rpi-3-b-plus.dtb", "pi3+", T(B3P) | T(A3P) },
	{ "bcm2710-rpi-cm3.dtb", "cm3", T(CM3T) | T(CM3PT) },
	{ "bcm2710-rpi-zero-2.dtb", "pi02", T(ZERO2W) },
	{ "bcm2710-rpi-zero-2-w.dtb", "pi02", T(ZERO2W) },
	{ "bcm2710-rpi-cm0.dtb", "cm0", T(CM0T) },
	{ "bcm2711-rpi-4-b.dtb", "pi4", T(B4) },
	{ "bcm2711-rpi-400.dtb", "pi400", T(B400) },
	{ "bcm2711-rpi-cm4.dtb", "cm4", T(CM4T) },
	{ "bcm2711-rpi-cm4-io.dtb", "cm4", T(CM4T) },
	{ "bcm2711-rpi-cm4s.dtb", "cm4s", T(CM4ST) },
	{ "bcm2712-rpi-5-b.dtb", "pi5", T(B5) },
	{ "bcm2712d0-rpi-5-b.dtb", "pi5", T(B5) },
	{ "bcm2712-d-rpi-5-b.dtb", "pi5", T(B5) },
	{ "bcm2712-rpi-500.dtb", "pi500", T(B500) },   /* 500, 500+ */
	{ "bcm2712-rpi-cm5-cm5io.dtb", "cm5", T(CM5T) },
	{ "bcm2712-rpi-cm5-cm4io.dtb", "cm5", T(CM5T) },
	{ "bcm2712-rpi-cm5l-cm5io.dtb", "cm5", T(CM5LT) },
	{ "bcm2712-rpi-cm5l-cm4io.dtb", "cm5", T(CM5LT) },
	/* the upstream kernel's */
	{ "bcm2835-rpi-a.dtb", "pi1", T(A) },
	{ "bcm2835-rpi-a-plus.dtb", "pi1", T(AP) },
	{ "bcm2835-rpi-b.dtb", "pi1", T(B) },
	{ "bcm2835-rpi-b-rev2.dtb", "pi1", T(B) },
	{ "bcm2835-rpi-b-plus.dtb", "pi1", T(BP) },
	{ "bcm2835-rpi-cm1-io1.dtb", "cm1", T(CM1T) },
	{ "bcm2835-rpi-zero.dtb", "pi0", T(ZERO) },
	{ "bcm2835-rpi-zero-w.dtb", "pi0w", T(ZEROW) },
	{ "bcm2836-rpi-2-b.dtb", "pi2", T(B2) },
	{ "bcm2837-rpi-2-b.dtb", "pi2", T(B2) },
	{ "bcm2837-rpi-3-a-plus.dtb", "pi3+", T(A3P) },
	{ "bcm2837-rpi-3-b.dtb", "pi3", T(B3) },
	{ "bcm2837-rpi-3-b-plus.dtb", "pi3+", T(B3P) },
	{ "bcm2837-rpi-cm3-io3.dtb", "cm3", T(CM3T) | T(CM3PT) },
	{ "bcm2837-rpi-zero-2-w.dtb", "pi02", T(ZERO2W) },
	/* bcm2711-rpi-4-b, -400, -cm4-io and bcm2712-rpi-5-b are above. */
};
#define NTREES (sizeof(rpi_trees) / sizeof(rpi_trees[0]))

static bool is_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The tree the firmware loads for a board by that name; NULL: none. */
static const struct rpi_tree *tree_of(const char *dtb)
{
	for (size_t i = 0; i < NTREES; i++)
		if (strcmp(dtb, rpi_trees[i].name) == 0)
			return &rpi_trees[i];
	return NULL;
}

/* What a filter line says of a tree's boards. */
enum verdict { FILTER_FALSE, FILTER_TRUE, FILTER_MAYBE, FILTER_OTHER, FILTER_BAD };

/*
 * The board types a model filter ("pi4", "board-type=0x11") covers in
 * *types. FILTER_OTHER: no model filter; FILTER_BAD: a board-type filter
 * whose value is no type of the revision codes (a whole revision code such
 * as "a02082" is written there at times), which no board matches.
 */
static enum verdict filter_types(const char *filter, uint64_t *types)
{
	static const char board_type[] = "board-type=";
	const char *value = filter + sizeof(board_type) - 1;
	unsigned long n;
	char *end;

	*types = 0;
	for (size_t i = 0; i < NFILTERS; i++)
		if (strcmp(filter, filters[i].name) == 0) {
			*types = filters[i].types;
			return FILTER_TRUE;
		}
	if (!is_prefix(filter, board_type))
		return FILTER_OTHER;
	/* The documentation writes the type in hex ("0x14"); a decimal reads as one. */
	errno = 0;
	n = *value >= '0' && *value <= '9' ? strtoul(value, &end, 0) : ULONG_MAX;
	if (n == ULONG_MAX || errno || *end || n > TYPE_LAST)
		return FILTER_BAD;
	*types = T(n);
	for (size_t i = 0; i < NTREES; i++)
		if (rpi_trees[i].types & *types)
			return FILTER_TRUE;
	return FILTER_BAD;
}

static enum verdict filter_covers(const char *filter, const struct rpi_tree *tree)
{
	uint64_t types;
	enum verdict v = filter_types(filter, &types);

	if (v != FILTER_TRUE)
		return v;
	if ((tree->types & types) == tree->types)
		return FILTER_TRUE;
	return tree->types & types ? FILTER_MAYBE : FILTER_FALSE;
}

bool imgp_rpi_tree_sees_(const char *dtb, const char *filter)
{
	const struct rpi_tree *tree = tree_of(dtb);

	return tree && filter_covers(filter, tree) == FILTER_TRUE;
}

int imgp_rpi_own_filters_(const char *dtb, struct imgp_buf *out)
{
	const char *base = strrchr(dtb, '/');
	const struct rpi_tree *tree = tree_of(base ? base + 1 : dtb);
	int rc = 0;

	out->len = 0;
	if (!tree || (tree->types & T(CM2_UNTYPED)))
		return imgp_fail(ENOENT, "%s: no config.txt filter singles out the boards of this tree",
				 dtb);
	for (size_t i = 0; i < NFILTERS; i++)
		if (filters[i].types == tree->types)
			return imgp_buf_printf(out, "%s\n", filters[i].name);
	for (unsigned t = 0; !rc && t <= TYPE_LAST; t++)
		if (tree->types & T(t))
			rc = imgp_buf_printf(out, "board-type=0x%02x\n", t);
	return rc;
}

/*
 * 1 when a U-Boot script beside config.txt loads a tree file itself, 0
 * when not (or there is none), -ENOMEM. The
 * Pi's firmware loads U-Boot as its kernel (Ubuntu: kernel=uboot_rpi_4.bin)
 * and hands it the tree it made from config.txt; Ubuntu's script boots
 * that one ("fdt addr ${fdt_addr}", the firmware's). A script that loads
 * ${fdtfile} or a .dtb replaces it: that is the script's boot path. A
 * script U-Boot cannot run (bad CRC) loads nothing.
 */
static int script_loads_tree(struct imgp_fs *fs)
{
	struct imgp_buf buf = { 0 };
	struct imgp_bootscr scr;
	int rc = 0, loads = 0;

	for (size_t i = 0; i < imgp_nbootscr_paths_; i++) {
		buf.len = 0;
		rc = imgp_fs_read_file_(fs, imgp_bootscr_paths_[i], SCRIPT_MAX, &buf);
		if (rc == -ENOMEM)
			break;
		/* U-Boot runs the first script it can (distro boot goes on after a failed one). */
		if (!rc && imgp_bootscr_parse_(&scr, buf.data, buf.len) == 0) {
			loads = imgp_bootscr_mentions_(&scr, "${fdtfile}") ||
				imgp_bootscr_mentions_(&scr, ".dtb");
			imgp_bootscr_free_(&scr);
			break;
		}
	}
	imgp_buf_free(&buf);
	if (rc == -ENOMEM)
		return rc;
	imgp_errclear_();
	return loads;
}

static int rpi_probe(struct imgp_survey *sv)
{
	const struct imgp_part *part;
	struct imgp_fs *fs;
	char *error = NULL, **names = NULL;
	size_t n = 0;
	int rc, found = 0;

	rc = imgp_survey_find_(sv, CONFIG_PATH, &part, &error);
	if (rc == -ENOMEM && !error)
		return rc;
	if (rc) {
		rc = imgp_survey_boot_cause_(sv, rc, error);
		free(error);
		return rc;
	}
	free(error);
	/* config.txt alone is no Raspberry Pi: its trees or firmware are beside it. */
	fs = imgp_survey_fs_(sv, part);
	if (!fs || imgp_fs_list_(fs, "/", &names, &n)) {
		imgp_errclear_();
		return 0;
	}
	for (size_t i = 0; i < n && !found; i++)
		found = tree_of(names[i]) || is_prefix(names[i], "start") ||
			strcmp(names[i], "kernel8.img") == 0;
	imgp_fs_list_free_(names, n);
	if (found) {
		rc = script_loads_tree(fs);
		if (rc < 0)
			return rc;
		found = !rc;
	}
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
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	struct imgp_buf path = { 0 };
	int rc;

	map->len = 0;
	rc = imgp_buf_printf(&path, "%s" OVERLAY_MAP, dir);
	if (!rc)
		rc = fs ? imgp_survey_read_file_(fs, (const char *)path.data, OVERLAY_MAX, map)
			: -ENOTSUP;
	imgp_buf_free(&path);
	if (rc == -ENOMEM)
		return rc;
	if (rc || map->len < sizeof(struct fdt_header) ||
	    imgp_fdt_check_full_(map->data, map->len))
		map->len = 0;
	imgp_errclear_();
	return 0;
}

const char *imgp_rpi_map_deprecated_(const struct imgp_buf *map, const char *name, size_t n)
{
	int node = map->len ? fdt_subnode_offset_namelen(map->data, 0, name, (int)n) : -1;
	int len = 0;
	const char *why = node >= 0 ? fdt_getprop(map->data, node, "deprecated", &len) : NULL;

	return why && len > 0 && why[len - 1] == '\0' ? why : NULL;
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
	mapped = imgp_rpi_map_deprecated_(map, name, strlen(name));
	if (mapped)
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

/*
 * The lines of config.txt that count on the boards of one tree, as the
 * documentation (config.txt, "Conditional filters" and "include") says:
 *
 *  - a model filter replaces the one before it ("filters of the same type
 *    replace each other"); [board-type=N] is one (the documentation lists
 *    it in the table of model filters): it holds for the boards of type N
 *    only, so [board-type=0x11] is the Pi 4 B alone. [all] resets every
 *    filter;
 *  - a filter of another kind combines with the model filter ([pi4] then
 *    [HDMI:0]: a Pi 4 with that monitor). Those we cannot know here (EDID,
 *    HDMI port, GPIO, serial number, boot variables) are taken as true, so
 *    they change nothing;
 *  - [none] keeps everything after it from any board, and [tryboot] holds
 *    on a tryboot only (not on a normal boot), both until [all];
 *  - "include FILE" inserts FILE of the boot partition at that point: the
 *    filters in force reach into it, those it sets stay after it, and an
 *    include under a false filter is not read. The firmware passes over a
 *    FILE that is not there.
 */
struct config_walk {
	struct imgp_survey *sv;
	struct imgp_survey_bootinfo *bi;
	const struct rpi_tree *tree;
	enum verdict model;      /* the model filter in force: FILTER_TRUE after [all] */
	bool off;                /* [none] or [tryboot] in force */
	unsigned nincluded;      /* files read for include lines */
	bool too_deep, too_many; /* said so once */
	bool say_bad;            /* warn of a filter no board matches (first tree only) */
	struct imgp_buf lines;   /* the lines that count, each ending in '\n' */
};

/*
 * The documentation gives no limit to includes; Ubuntu reads two files and
 * nests none. This many levels end an include loop, and this many files in
 * all a file that includes another twice, over and over (2^depth reads of
 * up to IMGP_TEXT_MAX each).
 */
#define INCLUDE_DEPTH 8
#define INCLUDE_FILES 32

static void warn_config(const struct config_walk *w, const char *file, const char *what)
{
	const struct imgp_part *boot = w->sv->boot;

	imgp_warn(imgp_survey_ctx_(w->sv), "%s: " IMGP_PART_FMT " (%s): %s: %s",
		  imgp_disk_path_(w->sv->disk), boot->number, boot->fstype, file, what);
}

static int walk_config(struct config_walk *w, const char *file, char *text, int depth);

/* "include NAME" under filters in force: NAME's lines in turn. 0 or -ENOMEM. */
static int walk_include(struct config_walk *w, const char *file, const char *name,
			int depth)
{
	struct imgp_buf path = { 0 }, what = { 0 };
	bool deep = depth >= INCLUDE_DEPTH, many = w->nincluded >= INCLUDE_FILES;
	char *text = NULL;
	int rc;

	rc = imgp_buf_printf(&path, "/%s", name + (name[0] == '/'));
	if (rc)
		return rc;
	if (deep || many) {
		/* Once per tree and limit: a loop meets it at every level. */
		bool *said = deep ? &w->too_deep : &w->too_many;

		if (!*said) {
			*said = true;
			rc = deep ? imgp_buf_printf(&what, "include %s: more than %d nested includes, not read",
						    name, INCLUDE_DEPTH) :
				imgp_buf_printf(&what, "include %s: more than %d included files, not read",
						name, INCLUDE_FILES);
			if (!rc)
				warn_config(w, file, (const char *)what.data);
		}
	} else if (imgp_bootinfo_exists_(w->sv, (const char *)path.data)) {
		w->nincluded++;
		/* One that does not read is kept in bi, as config.txt would be. */
		rc = imgp_bootinfo_read_(w->sv, w->bi, w->sv->boot, (const char *)path.data,
					&text);
		if (!rc)
			rc = walk_config(w, (const char *)path.data, text, depth + 1);
		else if (rc != -ENOMEM)
			rc = 0;
	}
	imgp_errclear_();
	free(text);
	imgp_buf_free(&what);
	imgp_buf_free(&path);
	return rc;
}

/* Adds the lines of text (file's) that count for w->tree to w->lines; writes into text. */
static int walk_config(struct config_walk *w, const char *file, char *text, int depth)
{
	char *cursor = text, *line;
	int rc = 0;

	while (!rc && (line = imgp_bootinfo_line_(&cursor))) {
		size_t len = strlen(line);

		if (line[0] == '[' && len > 1 && line[len - 1] == ']') {
			enum verdict v;

			line[len - 1] = '\0';
			v = filter_covers(line + 1, w->tree);
			if (strcmp(line + 1, "all") == 0) {
				w->model = FILTER_TRUE;
				w->off = false;
			} else if (strcmp(line + 1, "none") == 0 ||
				   strcmp(line + 1, "tryboot") == 0) {
				w->off = true;
			} else if (v == FILTER_BAD) {
				w->model = FILTER_FALSE;
			} else if (v != FILTER_OTHER) {
				w->model = v;
			}
			if (v == FILTER_BAD && w->say_bad) {
				struct imgp_buf what = { 0 };

				rc = imgp_buf_printf(&what, "[%s]: no board type of Raspberry Pi's revision codes (0x00..0x%02x): no board takes the lines under it",
						     line + 1, TYPE_LAST);
				if (!rc)
					warn_config(w, file, (const char *)what.data);
				imgp_buf_free(&what);
			}
			if (v == FILTER_MAYBE && !w->off) {
				struct imgp_buf what = { 0 };

				rc = imgp_buf_printf(&what, "[%s]: true for only some of the boards /%s serves: its lines are taken as applying",
						     line + 1, w->tree->name);
				if (!rc)
					warn_config(w, file, (const char *)what.data);
				imgp_buf_free(&what);
			}
			continue;
		}
		if (w->off || w->model == FILTER_FALSE)
			continue;
		if (is_prefix(line, "include") && (line[7] == ' ' || line[7] == '\t')) {
			rc = walk_include(w, file, line + 8 + strspn(line + 8, " \t"), depth);
			continue;
		}
		rc = imgp_buf_printf(&w->lines, "%s\n", line);
	}
	return rc;
}

/* The tree the firmware loads for tree's boards, and what it applies, from config.txt. */
static int describe_model(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi,
			  const struct rpi_tree *tree, const char *text, bool first)
{
	/* Indexed by setting: os_prefix, overlay_prefix, device_tree, cmdline. */
	static const char *const keys[] = { "os_prefix=", "overlay_prefix=", "device_tree=",
					    "cmdline=" };
	struct config_walk w = { .sv = sv, .bi = bi, .tree = tree, .model = FILTER_TRUE,
				 .say_bad = first };
	char *set[4] = { NULL, NULL, NULL, NULL };
	struct imgp_survey_bootdt *dt = NULL;
	struct imgp_buf path = { 0 }, dir = { 0 }, map = { 0 };
	char *config = strdup(text), *cursor, *line;
	size_t scope = 0;        /* 1 + the overlay whose parameters dtparam= sets */
	int rc = 0;

	if (!config)
		return imgp_fail(ENOMEM, "out of memory");
	rc = walk_config(&w, CONFIG_PATH, config, 0);
	if (!rc)
		rc = imgp_buf_printf(&w.lines, "%s", "");
	/* Two passes: the tree's name may be set after the first overlay. */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		free(config);
		config = strdup((const char *)w.lines.data);
		if (!config) {
			rc = imgp_fail(ENOMEM, "out of memory");
			break;
		}
		cursor = config;
		if (pass) {
			path.len = 0;
			rc = imgp_buf_printf(&path, "/%s%s", set[0] ? set[0] : "",
					     set[2] ? set[2] : tree->name);
			dt = rc ? NULL : imgp_bootinfo_add_dt_(bi, tree->model,
							      (char *)path.data);
			if (!dt || imgp_buf_printf(&dir, "/%s%s", set[0] ? set[0] : "",
						   set[1] ? set[1] : "overlays/") ||
			    map_load(sv, (const char *)dir.data, &map)) {
				rc = -ENOMEM;
				break;
			}
		}
		while (!rc && (line = imgp_bootinfo_line_(&cursor))) {
			for (size_t k = 0; !pass && k < 4; k++) {
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
				rc = map_lookup(&map, platform_of(tree->name), name, &to, &why);
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
					rc = imgp_bootinfo_add_overlay_(dt, (char *)path.data);
				scope = dt->noverlays;
			} else if (is_prefix(line, "dtparam=") && scope) {
				rc = add_params(&dt->overlays[scope - 1], line + 8);
			} else if (is_prefix(line, "dtparam=")) {
				rc = imgp_bootinfo_add_overlay_(dt, line);
			}
		}
	}
	/* os_prefix names the command line's file too (Raspberry Pi's config.txt documentation). */
	if (!rc && dt) {
		path.len = 0;
		rc = imgp_buf_printf(&path, "/%s%s", set[0] ? set[0] : "",
				     set[3] ? set[3] + (set[3][0] == '/') : DEFAULT_CMDLINE);
		dt->cmdline = rc ? NULL : strdup((char *)path.data);
		if (!rc && !dt->cmdline)
			rc = imgp_fail(ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < 4; k++)
		free(set[k]);
	imgp_buf_free(&w.lines);
	imgp_buf_free(&map);
	imgp_buf_free(&dir);
	imgp_buf_free(&path);
	free(config);
	return rc;
}

static int rpi_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	struct imgp_fs *fs = imgp_survey_fs_(sv, sv->boot);
	char *text, **names = NULL;
	size_t n = 0;
	int rc;

	rc = imgp_bootinfo_summary_(bi, "Raspberry Pi firmware " CONFIG_PATH);
	if (!rc)
		rc = imgp_bootinfo_read_(sv, bi, sv->boot, CONFIG_PATH, &text);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	rc = fs ? imgp_fs_list_(fs, "/", &names, &n) : -ENOTSUP;
	if (rc) {
		imgp_errclear_();
		rc = 0;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		const struct rpi_tree *tree = tree_of(names[i]);

		if (tree)
			rc = describe_model(sv, bi, tree, text, bi->ndts == 0);
	}
	if (!rc)
		rc = imgp_bootinfo_summary_(bi, "Raspberry Pi firmware " CONFIG_PATH
					   ", a tree by model from the FAT root");
	imgp_fs_list_free_(names, n);
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
		return imgp_buf_printf(out, "%s: %s: %s", imgp_disk_path_(sv->disk), dt->path, line);
	return imgp_buf_printf(out, "%s: " IMGP_PART_FMT " (%s): %s: %s", imgp_disk_path_(sv->disk),
			       boot->number, boot->fstype, dt->path, line);
}

/*
 * Entry i of dt->overlays as the firmware applies it. A parameter it
 * ignores is a warning; an overlay it cannot load or apply fails here
 * (the firmware then boots without it: the caller says so).
 */
static int rpi_apply(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		     size_t i, void **fdt, size_t *size, struct imgp_buf *warnings)
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
			rc = imgp_rpi_dtparam_(fdt, size, entry + 8, (const char *)warn_what.data,
					      warnings);
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
	fs = imgp_survey_fs_(sv, sv->boot);
	/* Its message names the partition and the file. */
	rc = fs ? imgp_survey_read_file_(fs, path, OVERLAY_MAX, &blob) : -ENOTSUP;
	if (rc)
		goto out;
	rc = imgp_rpi_dtoverlay_(fdt, size, blob.data, blob.len, name, params,
				(const char *)warn_what.data, warnings);
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

/* The firmware reads the first line of the file, and no other. */
static int locate_first_line(const struct imgp_cmdline_site *site, const char *text,
			     size_t len, struct imgp_cmdline_span *span)
{
	const char *nl = memchr(text, '\n', len);

	(void)site;
	memset(span, 0, sizeof(*span));
	span->found = true;
	span->end = nl ? (size_t)(nl - text) : len;
	if (span->end && text[span->end - 1] == '\r')
		span->end--;
	return 0;
}

/*
 * The file config.txt's cmdline= (under os_prefix) names for dt's boards,
 * else cmdline.txt. The firmware puts arguments of its own before the
 * line; a U-Boot script that takes the firmware's (Ubuntu's: "fdt get
 * value bootargs /chosen bootargs") sets bootargs from it in turn.
 */
static int rpi_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		       struct imgp_cmdline_site *site)
{
	struct imgp_buf loader = { 0 }, lines = { 0 };
	int rc;

	rc = imgp_buf_printf(&loader, "the firmware puts its own arguments before it (by board: memory, MAC address, serial number, video)");
	if (!rc && sv->script.parsed &&
	    imgp_bootscr_mentions_(&sv->script.scr, "/chosen bootargs") &&
	    imgp_cmdline_script_lines_(sv->script.scr.text, &lines) == 1)
		rc = imgp_buf_printf(&loader, "; then U-Boot's %s takes it from the tree: %s",
				     sv->script.path, (char *)lines.data);
	if (!rc)
		rc = imgp_cmdline_site_set_(site, sv->boot, dt && dt->cmdline ? dt->cmdline :
					   "/" DEFAULT_CMDLINE, "the first line",
					   (char *)loader.data, NULL);
	site->locate = locate_first_line;
	imgp_buf_free(&lines);
	imgp_buf_free(&loader);
	return rc ? imgp_fail(ENOMEM, "out of memory") : 0;
}

/* /overlays/NAME.dtbo, a dtoverlay= line of config.txt. */
static int rpi_overlay_site(const struct imgp_boot_view *boot,
			const struct imgp_survey_bootdt *dt, const char *name,
			const struct imgp_uboot_menu *gen, struct imgp_overlay_site *h)
{
	(void)boot;
	(void)dt;
	(void)gen;
	snprintf(h->file, sizeof(h->file), "/overlays/%s.dtbo", name);
	snprintf(h->list, sizeof(h->list), "/config.txt");
	h->key = "dtoverlay";
	snprintf(h->word, sizeof(h->word), "%s", name);
	return 0;
}

/* What the firmware reads from the FAT root, by its own names. */
static const char *const rpi_loads[] = {
	"*/config.txt", "*/cmdline.txt", "*/kernel*.img", "*/initramfs*", "*/start*.elf", "*/fixup*.dat", "*/bootcode.bin", "*/armstub*.bin", "*/overlays/*", NULL,
};

const struct imgp_bootpath imgp_bootpath_rpi_ = {
	.name = "rpi",
	.named_by = "config.txt",
	.loads = rpi_loads,
	.probe = rpi_probe,
	.describe = rpi_describe,
	.apply = rpi_apply,
	.flags = IMGP_BOOTPATHF_DTPARAM,
	.cmdline = rpi_cmdline,
	.overlay_site = rpi_overlay_site,
	.list = &imgp_list_config_txt_,
	/* config.txt is read by every model: [pi4] would reach the 400 and the CM4 too. */
	.overlay_filters = imgp_rpi_own_filters_,
	.on_missing_tree = "the firmware starts the kernel without the tree this model should get",
};
