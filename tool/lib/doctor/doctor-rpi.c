// SPDX-License-Identifier: MIT
/*
 * Raspberry Pi images: config.txt on the boot partition without
 * dtparam=sd_overclock keeps the SD clock at the firmware's 50 MHz.
 */
#include <errno.h>
#include <string.h>

#include "doctor/doctor.h"

/* A Raspberry Pi boot partition: config.txt beside the Pi's kernels or trees. */
static bool is_rpi(const struct doctor *d)
{
	static const char *const kernels[] = {
		"kernel.img", "kernel7.img", "kernel7l.img", "kernel8.img",
		"kernel_2712.img", "start.elf", "start4.elf",
	};

	for (size_t i = 0; i < d->nboot_names; i++) {
		const char *name = d->boot_names[i];

		if (strncmp(name, "bcm27", 5) == 0 && strstr(name, "-rpi-"))
			return true;
		for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
			if (strcmp(name, kernels[k]) == 0)
				return true;
	}
	return false;
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
	int rc;

	if (!d->sv.boot || !is_rpi(d))
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
		rc = doctor_set(&f->recipe_args, "--set sd_overclock=100");
	if (!rc)
		rc = doctor_set(&f->title, "config.txt does not set dtparam=sd_overclock");
	if (!rc)
		rc = doctor_set(&f->cost, "the SD clock stays at 50 MHz (about 22 MB/s); many cards run at 100 MHz");
	if (!rc)
		rc = doctor_set(&f->hint, "add dtparam=sd_overclock=100 to the [all] section of config.txt; go back to 50 on mmc errors");
	return rc;
}
