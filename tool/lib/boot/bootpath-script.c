// SPDX-License-Identifier: MIT
/*
 * Boot path "script": no FIT, a boot script (/boot.scr.uimg, else
 * /boot.scr, U-Boot's distro-boot order) loads kernel and tree itself.
 * postmarketOS's script sources /user.scr after loading the tree: that is
 * where a fix goes, and the hook this way honours there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imgpatch-internal.h"

/* The first partition with a boot script is the boot partition. */
static int script_probe(struct imgp_survey *sv)
{
	char *error = NULL;
	int rc = 0;

	for (size_t i = 0; i < imgp_nbootscr_paths && !sv->boot; i++) {
		const struct imgp_part *part;

		rc = imgp_survey_find(sv, imgp_bootscr_paths[i], &part, &error);
		if (rc == -ENOMEM && !error)
			return rc;
		if (!rc)
			sv->boot = part;
		else
			rc = imgp_survey_boot_cause(sv, rc, error);
		if (rc)
			break;
	}
	free(error);
	return rc < 0 ? rc : sv->boot != NULL;
}

static bool is_pmos(const struct imgp_survey *sv)
{
	return (sv->script.parsed &&
		strcmp(sv->script.scr.name, "postmarketos") == 0) ||
	       strcmp(sv->boot->fslabel, "pmOS_boot") == 0;
}

static const char *script_hook(const struct imgp_survey *sv)
{
	return sv->script.parsed && is_pmos(sv) ? "user.scr" : NULL;
}

const struct imgp_bootpath imgp_bootpath_script = {
	.name = "script",
	.probe = script_probe,
	.hook = script_hook,
};
