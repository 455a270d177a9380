// SPDX-License-Identifier: MIT
/*
 * Boot path "fit": U-Boot loads a FIT (/image.fit, or the --fit path) and
 * a boot script next to it picks the configuration; the script may load
 * /user-override.dtb instead of the FIT's tree when it is there, as
 * Ubuntu's Kria boot.scr.uimg does. That file is where patch writes a
 * fixed tree, and the hook this way of booting honours.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "imgpatch.h"
#include "part/part.h"
#include "boot/boot.h"
#include "boot/bootpath.h"

/* The FIT's partition is the boot partition. */
static int fit_probe(struct imgp_survey *sv)
{
	const struct imgp_part *part;
	int rc;

	rc = imgp_survey_find_(sv, sv->fit_path, &part, &sv->fit.error);
	if (rc == -ENOMEM && !sv->fit.error)
		return rc;
	sv->fit.rc = rc;
	if (rc == -ENOENT)
		return 0;
	/* A lookup that failed still says where the FIT may be. */
	sv->fit.part = part;
	if (rc)
		return imgp_survey_boot_cause_(sv, rc, sv->fit.error);
	sv->boot = part;
	return 1;
}

static const char *fit_hook(const struct imgp_survey *sv)
{
	(void)sv;
	return IMGP_OVERRIDE_NAME;
}

/* The trees are the FIT's fdt images, listed with the FIT. */
/*
 * With the hook file there and loaded, what a kernel upgrade does to it:
 * it brings a new FIT with the new kernel's trees and leaves the override,
 * a whole tree copied from today's, as it is.
 */
static int fit_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	int rc = imgp_bootinfo_summary_(bi, "FIT %s, picked by the boot script%s%s",
				       sv->fit_path, sv->hook ? ", hook " : "",
				       sv->hook ? sv->hook : "");

	if (!rc && sv->hook_loaded && sv->override.exists &&
	    asprintf(&bi->updates, "a kernel upgrade writes %s anew with the new kernel's trees; /%s is not touched: the board keeps booting it, a whole tree copied from today's, in place of them",
		     sv->fit_path, sv->hook) < 0) {
		bi->updates = NULL;
		rc = imgp_fail(ENOMEM, "out of memory");
	}
	return rc;
}

/* The boot script sets bootargs itself: said, with the script's lines. */
static int fit_cmdline(struct imgp_survey *sv, const struct imgp_survey_bootdt *dt,
		       struct imgp_cmdline_site *site)
{
	(void)dt;
	(void)site;
	return imgp_cmdline_script_refusal_(sv, NULL);
}

/* A FIT by the names U-Boot scripts load one as. */
static const char *const fit_loads[] = {
	"*.fit", "*.itb", NULL,
};

const struct imgp_bootpath imgp_bootpath_fit_ = {
	.name = "fit",
	.named_by = "FIT",
	.loads = fit_loads,
	.probe = fit_probe,
	.hook = fit_hook,
	.describe = fit_describe,
	.cmdline = fit_cmdline,
	.flags = IMGP_BOOTPATHF_FIT,
};
