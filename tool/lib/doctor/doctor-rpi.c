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
			if (imgp_rpi_tree_sees(d->boot_names[i], sections[k]))
				return sections[k];
	return NULL;
}

/* Whether an active (not commented out) KEY= line is there, by textedit's rule. */
static int has_line(const struct imgp_buf *text, const char *key)
{
	struct imgp_buf out = { 0 };
	int rc = imgp_text_remove_line(text->data ? (const char *)text->data : "",
				       text->len, key, &out);

	imgp_buf_free(&out);
	return rc;
}

int doctor_check_rpi(struct doctor *d)
{
	struct imgp_buf text = { 0 };
	struct imgp_finding *f;
	const char *section;
	int rc;

	/* The firmware's own tree only: a script that loads another drops dtparam=. */
	if (d->sv.bootpath != &imgp_bootpath_rpi)
		return 0;
	section = sdhost_section(d);
	if (!section)
		return 0;
	rc = doctor_read(d, d->sv.boot, "/config.txt", IMGP_TEXT_MAX, &text);
	if (rc > 0)
		rc = has_line(&text, "dtparam=sd_overclock");
	else if (rc == 0)
		rc = 1;   /* no config.txt: nothing to say */
	/* The older overlay form: dtoverlay=sdtweak,overclock_50=N. */
	if (rc == 0)
		rc = has_line(&text, "dtoverlay=sdtweak,overclock_50");
	imgp_buf_free(&text);
	if (rc)
		return rc < 0 ? rc : 0;
	f = doctor_add(d, DOCTOR_RPI_SD_OVERCLOCK);
	if (!f)
		return -ENOMEM;
	f->partition = d->sv.boot->number;
	f->recipe = "rpi-sd-overclock";
	rc = doctor_set(&f->file, "/config.txt");
	if (!rc)
		rc = doctor_set(&f->property, "dtparam=sd_overclock");
	if (!rc)
		rc = doctor_set(&f->recipe_args, "--set model=%s --set sd_overclock=100",
				section);
	if (!rc)
		rc = doctor_set(&f->title, "config.txt does not set dtparam=sd_overclock");
	if (!rc)
		rc = doctor_set(&f->cost, "on a Pi Zero to 3 (SD card on sdhost) the SD clock stays at 50 MHz (about 22 MB/s); many cards run at 100 MHz. It does not reach the SD slot of a Pi 4 or 5");
	if (!rc)
		rc = doctor_set(&f->hint, "add dtparam=sd_overclock=100 to the [%s] section of config.txt; go back to 50 on mmc errors",
				section);
	return rc;
}
