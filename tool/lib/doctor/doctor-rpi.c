// SPDX-License-Identifier: MIT
/*
 * Raspberry Pi images: on the boards whose SD card sits on the sdhost
 * controller (Pi Zero to 3), config.txt without dtparam=sd_overclock keeps
 * the SD clock at the firmware's 50 MHz. The parameter does not reach the
 * Pi 4's slot (emmc2) or the Pi 5's, so an image with only their trees
 * gets no such finding.
 */
#include <errno.h>
#include <string.h>

#include "doctor/doctor.h"
#include "boot/bootpath.h"

/*
 * The config.txt section of the newest sdhost board whose tree is on the
 * boot partition (pi3 over pi2 over pi1 over pi0), or NULL when there is
 * none.
 */
static const char *sdhost_section(const struct doctor *d)
{
	static const char *const sections[] = { "pi3", "pi2", "pi1", "pi0" };

	for (size_t k = 0; k < sizeof(sections) / sizeof(sections[0]); k++)
		for (size_t i = 0; i < d->nboot_names; i++)
			if (imgp_rpi_tree_sees_(d->boot_names[i], sections[k]))
				return sections[k];
	return NULL;
}

/*
 * Whether an entry of a tree's list (bootpath-rpi.c: "dtparam=LIST" or
 * "/overlays/NAME.dtbo,LIST") sets param in its LIST ("a=1,param=2").
 */
static bool sets_param(const char *entry, const char *param)
{
	size_t n = strlen(param);
	const char *list = strncmp(entry, "dtparam=", 8) == 0 ? entry + 8 : strchr(entry, ',');

	for (const char *p = list; p && *p; p = strchr(p, ',')) {
		p += *p == ',';
		if (strncmp(p, param, n) == 0 && (p[n] == '=' || p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/*
 * Whether the firmware sets the SD clock for every tree of the boards
 * section covers: dtparam=sd_overclock=N wherever config.txt or a file it
 * includes has it, under any filter that reaches the tree, or the older
 * dtoverlay=sdtweak,overclock_50=N. The survey read config.txt so; a
 * section with no tree of its boards has nothing to say.
 */
static bool overclocked(const struct doctor *d, const char *section)
{
	const struct imgp_survey_bootinfo *bi = &d->sv.bootinfo;

	for (size_t i = 0; i < bi->ndts; i++) {
		const struct imgp_survey_bootdt *dt = &bi->dts[i];
		const char *name = strrchr(dt->path, '/');
		bool set = false;

		if (!imgp_rpi_tree_sees_(name ? name + 1 : dt->path, section))
			continue;
		for (size_t k = 0; k < dt->noverlays && !set; k++)
			set = sets_param(dt->overlays[k], "sd_overclock") ||
			      (strstr(dt->overlays[k], "/sdtweak.dtbo,") &&
			       sets_param(dt->overlays[k], "overclock_50"));
		if (!set)
			return false;
	}
	return true;
}

int imgp_doctor_check_rpi_(struct doctor *d)
{
	struct imgp_finding *f;
	const char *section;
	int rc;

	/* The firmware's own tree only: a script that loads another drops dtparam=. */
	if (!d->sv.bootpath || !(d->sv.bootpath->flags & IMGP_BOOTPATHF_DTPARAM))
		return 0;
	section = sdhost_section(d);
	if (!section)
		return 0;
	if (d->sv.bootinfo.rc || overclocked(d, section))
		return 0;
	f = imgp_doctor_add_(d, DOCTOR_RPI_SD_OVERCLOCK);
	if (!f)
		return -ENOMEM;
	f->partition = d->sv.boot->number;
	f->recipe = "rpi-sd-overclock";
	rc = imgp_doctor_set_(&f->file, "/config.txt");
	if (!rc)
		rc = imgp_doctor_set_(&f->property, "dtparam=sd_overclock");
	if (!rc)
		rc = imgp_doctor_set_(&f->recipe_args, "--set model=%s --set sd_overclock=100",
				section);
	if (!rc)
		rc = imgp_doctor_set_(&f->title, "config.txt does not set dtparam=sd_overclock");
	if (!rc)
		rc = imgp_doctor_set_(&f->cost, "on a Pi Zero to 3 (SD card on sdhost) the SD clock stays at 50 MHz (about 22 MB/s); many cards run at 100 MHz. It does not reach the SD slot of a Pi 4 or 5");
	if (!rc)
		rc = imgp_doctor_set_(&f->hint, "add dtparam=sd_overclock=100 to the [%s] section of config.txt; go back to 50 on mmc errors",
				section);
	return rc;
}
