// SPDX-License-Identifier: MIT
/*
 * Boot path "uenv": BeagleBoard's Debian images for the BeagleBone. Their
 * U-Boot (am335x_evm with BeagleBoard's patches: ti_armv7_common.h's
 * "boot" and "uname_boot" commands, board/ti/am335x/board.c) looks at
 * partitions 1 to 7 for /boot/uEnv.txt, imports it and, when it sets
 * uname_r and /boot/vmlinuz-${uname_r} is there, boots that with the tree
 * ${fdtfile} (the board's, or dtb=) from the first of /boot/dtbs/${uname_r},
 * /usr/lib/linux-image-${uname_r}, /lib/firmware/${uname_r}/device-tree,
 * /boot/dtb-${uname_r}, /boot/dtbs, /boot/dtb and /boot that has it.
 * With enable_uboot_overlays set, the tree is the board's U-Boot base
 * tree when that file is there (the cape-universal one with
 * enable_uboot_cape_universal), and the overlays follow in U-Boot's order:
 * BB-ADC-00A0.dtbo, uboot_overlay_addr0..7, the board's virtual capes
 * (eMMC, video), uboot_overlay_pru, uboot_overlay_pru_add, dtb_overlay;
 * each unless its disable_uboot_overlay_* is set, each found in
 * ${fdtdir}/overlays/, else /lib/firmware/, else as a path, and skipped
 * when in none. U-Boot's "test -n" makes any non-empty value "set".
 *
 * The board comes from the BeagleBone's EEPROM, which an image does not
 * have: the board is taken to be a BeagleBone Black, the board these
 * images are made for first (its tree and virtual capes below).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch.h"
#include "boot/boot.h"
#include "boot/bootpath.h"

#define UENV_PATH "/boot/uEnv.txt"

/* board.c's settings for a BeagleBone Black (am335x-boneblack). */
static const char board_fdtfile[] = "am335x-boneblack.dtb";
static const char board_base_dtb[] = "am335x-boneblack-uboot.dtb";
static const char board_base_dtb_univ[] = "am335x-boneblack-uboot-univ.dtb";
static const char board_emmc[] = "BB-BONE-eMMC1-01-00A0.dtbo";
static const char board_video[] = "BB-HDMI-TDA998x-00A0.dtbo";
static const char board_video_naudio[] = "BB-NHDMI-TDA998x-00A0.dtbo";

/* The folders uname_boot tries for ${fdtdir}, in its order ("%s": uname_r). */
static const char *const fdtdirs[] = {
	"/boot/dtbs/%s", "/usr/lib/linux-image-%s", "/lib/firmware/%s/device-tree",
	"/boot/dtb-%s", "/boot/dtbs", "/boot/dtb", "/boot",
};
#define NFDTDIRS (sizeof(fdtdirs) / sizeof(fdtdirs[0]))

/* The uEnv.txt settings uname_boot reads, by name. */
enum key {
	K_UNAME_R, K_DTB, K_OVERLAYS, K_UNIVERSAL,
	K_ADDR0, K_ADDR7 = K_ADDR0 + 7,
	K_DISABLE_ADDR0, K_DISABLE_ADDR3 = K_DISABLE_ADDR0 + 3,
	K_DISABLE_ADC, K_DISABLE_EMMC, K_DISABLE_VIDEO, K_DISABLE_AUDIO,
	K_PRU, K_PRU_ADD, K_DTB_OVERLAY, NKEYS
};

static const char *const key_names[NKEYS] = {
	[K_UNAME_R] = "uname_r", [K_DTB] = "dtb",
	[K_OVERLAYS] = "enable_uboot_overlays",
	[K_UNIVERSAL] = "enable_uboot_cape_universal",
	[K_ADDR0] = "uboot_overlay_addr0", [K_ADDR0 + 1] = "uboot_overlay_addr1",
	[K_ADDR0 + 2] = "uboot_overlay_addr2", [K_ADDR0 + 3] = "uboot_overlay_addr3",
	[K_ADDR0 + 4] = "uboot_overlay_addr4", [K_ADDR0 + 5] = "uboot_overlay_addr5",
	[K_ADDR0 + 6] = "uboot_overlay_addr6", [K_ADDR7] = "uboot_overlay_addr7",
	[K_DISABLE_ADDR0] = "disable_uboot_overlay_addr0",
	[K_DISABLE_ADDR0 + 1] = "disable_uboot_overlay_addr1",
	[K_DISABLE_ADDR0 + 2] = "disable_uboot_overlay_addr2",
	[K_DISABLE_ADDR3] = "disable_uboot_overlay_addr3",
	[K_DISABLE_ADC] = "disable_uboot_overlay_adc",
	[K_DISABLE_EMMC] = "disable_uboot_overlay_emmc",
	[K_DISABLE_VIDEO] = "disable_uboot_overlay_video",
	[K_DISABLE_AUDIO] = "disable_uboot_overlay_audio",
	[K_PRU] = "uboot_overlay_pru", [K_PRU_ADD] = "uboot_overlay_pru_add",
	[K_DTB_OVERLAY] = "dtb_overlay",
};

struct uenv {
	struct imgp_survey *sv;
	const char *value[NKEYS]; /* NULL or "": not set, as "test -n" sees it */
	struct imgp_buf fdtdir;
	struct imgp_buf names;   /* the overlays loaded, blank-separated, for the summary */
};

static int uenv_probe(struct imgp_survey *sv)
{
	static const char *const paths[] = { UENV_PATH };

	return imgp_survey_probe_paths_(sv, paths, 1);
}

static const char *get(const struct uenv *u, enum key k)
{
	return u->value[k] && *u->value[k] ? u->value[k] : NULL;
}

static bool exists_in(struct imgp_survey *sv, const char *dir, const char *name,
		      struct imgp_buf *path)
{
	path->len = 0;
	return imgp_buf_printf(path, "%s/%s", dir, name) == 0 &&
	       imgp_bootinfo_exists_(sv, (char *)path->data);
}

/*
 * uname_boot's ${fdtdir} and ${fdtfile}: the folder (into u->fdtdir) and
 * the tree's path (into path). Returns 0 or -ENOMEM; path is left empty
 * when no folder has the tree (U-Boot then stops: "unable to find").
 */
static int find_tree(struct uenv *u, const char *fdtfile, struct imgp_buf *path)
{
	const char *uname = get(u, K_UNAME_R);
	int rc = 0;

	for (size_t i = 0; !rc && i < NFDTDIRS; i++) {
		u->fdtdir.len = 0;
		rc = imgp_buf_printf(&u->fdtdir, fdtdirs[i], uname);
		if (!rc && exists_in(u->sv, (char *)u->fdtdir.data, fdtfile, path))
			return 0;
	}
	/* Last, ${fdtfile} as a path of its own (${fdtdir} stays /boot). */
	path->len = 0;
	if (!rc)
		rc = imgp_buf_printf(path, "%s", fdtfile);
	if (!rc && !imgp_bootinfo_exists_(u->sv, fdtfile))
		path->len = 0;
	return rc;
}

/* virtualloadoverlay: name from ${fdtdir}/overlays/, /lib/firmware/ or as is, onto dt. */
static int add_overlay(struct uenv *u, struct imgp_survey_bootdt *dt, const char *name)
{
	struct imgp_buf path = { 0 }, dir = { 0 };
	int rc = imgp_buf_printf(&dir, "%s/overlays", (char *)u->fdtdir.data);
	bool found = false;

	if (!rc)
		found = exists_in(u->sv, (char *)dir.data, name, &path) ||
			exists_in(u->sv, "/lib/firmware", name, &path);
	if (!rc && !found) {
		path.len = 0;
		rc = imgp_buf_printf(&path, "%s", name);
		found = !rc && imgp_bootinfo_exists_(u->sv, name);
	}
	if (!rc && found)
		rc = imgp_bootinfo_add_overlay_(dt, (char *)path.data);
	if (!rc && found)
		rc = imgp_buf_printf(&u->names, "%s%s", u->names.len ? " " : "", name);
	imgp_buf_free(&dir);
	imgp_buf_free(&path);
	return rc;
}

/* The overlays uname_boot applies, in its order. */
static int add_overlays(struct uenv *u, struct imgp_survey_bootdt *dt)
{
	const char *video = get(u, K_DISABLE_AUDIO) ? board_video_naudio : board_video;
	int rc = 0;

	if (!get(u, K_DISABLE_ADC))
		rc = add_overlay(u, dt, "BB-ADC-00A0.dtbo");
	for (int i = 0; !rc && i <= K_ADDR7 - K_ADDR0; i++) {
		const char *name = get(u, K_ADDR0 + i);

		/* Only addr0..3 (the cape EEPROM slots) can be disabled. */
		if (name && !(i <= 3 && get(u, K_DISABLE_ADDR0 + i)))
			rc = add_overlay(u, dt, name);
	}
	if (!rc && !get(u, K_DISABLE_EMMC))
		rc = add_overlay(u, dt, board_emmc);
	if (!rc && !get(u, K_DISABLE_VIDEO))
		rc = add_overlay(u, dt, video);
	if (!rc && get(u, K_PRU))
		rc = add_overlay(u, dt, get(u, K_PRU));
	if (!rc && get(u, K_PRU_ADD))
		rc = add_overlay(u, dt, get(u, K_PRU_ADD));
	if (!rc && get(u, K_DTB_OVERLAY))
		rc = add_overlay(u, dt, get(u, K_DTB_OVERLAY));
	return rc;
}

static int uenv_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	struct uenv u = { .sv = sv };
	struct imgp_buf path = { 0 };
	struct imgp_survey_bootdt *dt;
	const char *fdtfile;
	char *text, *cursor, *line;
	int rc;

	rc = imgp_bootinfo_summary_(bi, "U-Boot " UENV_PATH " (BeagleBone Debian)");
	if (!rc)
		rc = imgp_bootinfo_read_(sv, bi, sv->boot, UENV_PATH, &text);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	/* env import -t: the last setting of a name wins. */
	cursor = text;
	while ((line = imgp_bootinfo_line_(&cursor)))
		for (int k = 0; k < NKEYS; k++)
			if (imgp_bootinfo_value_(line, key_names[k]))
				u.value[k] = imgp_bootinfo_value_(line, key_names[k]);
	if (!get(&u, K_UNAME_R)) {
		rc = imgp_bootinfo_summary_(bi, "U-Boot " UENV_PATH " (BeagleBone Debian), "
					   "no uname_r: U-Boot boots its default");
		goto out;
	}
	/* uname_boot does nothing without the kernel. */
	rc = imgp_buf_printf(&path, "/boot/vmlinuz-%s", get(&u, K_UNAME_R));
	if (!rc && !imgp_bootinfo_exists_(sv, (char *)path.data)) {
		rc = imgp_bootinfo_summary_(bi, "U-Boot " UENV_PATH " (BeagleBone Debian), "
					   "uname_r %s, no %s: U-Boot boots its default",
					   get(&u, K_UNAME_R), (char *)path.data);
		goto out;
	}
	path.len = 0;
	if (rc)
		goto out;
	fdtfile = get(&u, K_DTB) ? get(&u, K_DTB) : board_fdtfile;
	if (get(&u, K_OVERLAYS)) {
		/* The base tree replaces dtb= when /boot/dtbs/${uname_r} has it. */
		rc = imgp_buf_printf(&u.fdtdir, fdtdirs[0], get(&u, K_UNAME_R));
		if (!rc && get(&u, K_UNIVERSAL) &&
		    exists_in(sv, (char *)u.fdtdir.data, board_base_dtb_univ, &path))
			fdtfile = board_base_dtb_univ;
		else if (!rc && exists_in(sv, (char *)u.fdtdir.data, board_base_dtb, &path))
			fdtfile = board_base_dtb;
	}
	if (!rc)
		rc = find_tree(&u, fdtfile, &path);
	if (!rc && path.len) {
		dt = imgp_bootinfo_add_dt_(bi, NULL, (char *)path.data);
		rc = dt ? 0 : -ENOMEM;
		if (!rc && get(&u, K_OVERLAYS))
			rc = add_overlays(&u, dt);
	}
	if (!rc)
		rc = imgp_bootinfo_summary_(bi, "U-Boot " UENV_PATH " (BeagleBone Debian, "
					   "as on a BeagleBone Black), uname_r %s, dtb %s%s, "
					   "overlays: %s", get(&u, K_UNAME_R), fdtfile,
					   path.len ? "" : " (not found)",
					   !get(&u, K_OVERLAYS) ? "off (no enable_uboot_overlays)" :
					   u.names.len ? (char *)u.names.data : "none");
out:
	imgp_buf_free(&u.names);
	imgp_buf_free(&u.fdtdir);
	imgp_buf_free(&path);
	free(text);
	return rc;
}

/*
 * uEnv.txt's optargs= and cmdline=: BeagleBoard's U-Boot builds bootargs
 * as "console=${console} ${optargs} ${cape_uboot} root=... ro
 * rootfstype=${mmcrootfstype} ${uboot_detected_capes} ${cmdline}"
 * (include/environment/ti/mmc.h of its patches: args_mmc_old,
 * args_mmc_uuid, args_uenv_root alike). optargs= is the lead: its words
 * come first and stay there when edited; a new word goes to cmdline=.
 */
static int uenv_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
			struct imgp_cmdline_site *site)
{
	int rc;

	(void)dt;
	rc = imgp_cmdline_site_set_(site, sv->boot, UENV_PATH, "cmdline=",
				   "BeagleBoard's U-Boot puts console=${console} first, and ${cape_uboot} root=(the root partition) ro rootfstype=${mmcrootfstype} ${uboot_detected_capes} between optargs= and cmdline=",
				   "cmdline");
	site->lead = rc ? NULL : strdup("optargs");
	if (!rc && !site->lead)
		rc = imgp_fail(ENOMEM, "out of memory");
	site->locate = imgp_cmdline_locate_env_;
	return rc;
}

/* What U-Boot's uname_boot reads. */
static const char *const uenv_loads[] = {
	"*/uEnv.txt", "*/zImage", "*/vmlinuz*", "*/initrd.img*", NULL,
};

const struct imgp_bootpath imgp_bootpath_uenv_ = {
	.name = "uenv",
	.loads = uenv_loads,
	.probe = uenv_probe,
	.describe = uenv_describe,
	.cmdline = uenv_cmdline,
	.on_missing_tree = "U-Boot's uname_boot finds it in none of the places it looks and stops (failumsboot)",
};
