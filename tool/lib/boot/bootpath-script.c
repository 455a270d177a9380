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
	return imgp_survey_probe_paths(sv, imgp_bootscr_paths, imgp_nbootscr_paths);
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

/* Which tree the script loads is its own business: it is named, not followed. */
static int script_describe(struct imgp_survey *sv, struct imgp_survey_bootinfo *bi)
{
	return imgp_bootinfo_summary(bi, "U-Boot script %s%s%s",
				     sv->script.path ? sv->script.path : "",
				     sv->hook ? ", hook " : "", sv->hook ? sv->hook : "");
}

const struct imgp_bootpath imgp_bootpath_script = {
	.name = "script",
	.probe = script_probe,
	.hook = script_hook,
	.describe = script_describe,
};
